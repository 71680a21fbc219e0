"""A self-contained HTML reward report for a scored file (the output of ``rewardloop score``).

:func:`build_report` reads scored rows (``data_source``, ``score``, ``status``, ``metrics``, ``info``,
``error`` and the response column) and renders, as PNGs embedded in the page (base64; no scripts, no
network): the reward distribution per ``data_source``, status counts, the latency histogram, response
length against reward, and accuracy per group (``data_source`` or any dotted column such as
``extra_info.level``), plus a summary table and the most frequent errors.

Latency is read from a row's ``exec_s`` / ``latency_s`` column, else ``info.exec_s``, else the sum of
``info.timings_ms`` (``math_equiv``); when no row has any, the page says so instead of plotting.
Accuracy is ``metrics.acc`` when present, else "score > 0" over ``ok`` rows.

Needs matplotlib (the ``report`` extra); it is drawn through ``matplotlib.figure.Figure`` with the
Agg canvas, never ``pyplot``, so no global backend state is touched.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import MissingExtraError

__all__ = ["ReportData", "build_report", "page", "report_data", "table"]

_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222;
padding:0 1em}
h1{font-size:1.6em;border-bottom:2px solid #3b6ea5;padding-bottom:.3em}h2{font-size:1.25em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ccc;padding:.3em .7em;text-align:right}
th{background:#eef3f8}td:first-child,th:first-child{text-align:left}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:.85em;border:1px solid #e1e4e8}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:1em}.grid img{width:100%}figure{margin:0}
figcaption{font-size:.9em;color:#555}.note{color:#777;font-style:italic}
"""


def page(title: str, body: str) -> str:
    """An HTML document with the report's inline stylesheet."""
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )


@dataclass
class ReportData:
    """The columns the report plots, one entry per row."""

    task: list[str] = field(default_factory=list)
    group: list[str] = field(default_factory=list)
    reward: list[float | None] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    correct: list[bool | None] = field(default_factory=list)
    latency_s: list[float | None] = field(default_factory=list)
    length: list[int | None] = field(default_factory=list)
    error: list[str | None] = field(default_factory=list)


def _dotted(row: Mapping[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        if isinstance(value, str) and value.startswith("{"):
            value = _maybe_dict(value)
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _maybe_dict(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError:
        return None


def _latency(row: Mapping[str, Any], info: Mapping[str, Any]) -> float | None:
    for value in (row.get("exec_s"), row.get("latency_s"), info.get("exec_s")):
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value)
    timings = info.get("timings_ms")
    if isinstance(timings, Mapping) and timings:
        total = sum(v for v in timings.values() if isinstance(v, int | float))
        return total / 1000.0
    return None


def report_data(
    rows: Sequence[Mapping[str, Any]], *, response_key: str = "response", group_by: str = "data_source"
) -> ReportData:
    """Pull the plotted columns out of scored rows (missing values become None, never an error)."""
    data = ReportData()
    for row in rows:
        info = row.get("info") if isinstance(row.get("info"), Mapping) else {}
        metrics = row.get("metrics") if isinstance(row.get("metrics"), Mapping) else {}
        status = str(row.get("status") or "ok")
        score = row.get("score")
        reward = float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None
        if reward is not None and math.isnan(reward):
            reward = None
        acc = metrics.get("acc")
        correct = (
            bool(acc)
            if isinstance(acc, bool | int | float) and status == "ok"
            else (reward > 0 if reward is not None and status == "ok" else None)
        )
        response = row.get(response_key)
        data.task.append(str(row.get("data_source", "(none)")))
        group = _dotted(row, group_by)
        data.group.append("(none)" if group is None else str(group))
        data.reward.append(reward)
        data.status.append(status)
        data.correct.append(correct)
        data.latency_s.append(_latency(row, info))
        data.length.append(len(response) if isinstance(response, str) else None)
        error = row.get("error") or (info.get("error") if status != "ok" else None)
        data.error.append(None if error is None else str(error))
    return data


# ---------------------------------------------------------------------------------------------------------
# plots


def _figure(width: float = 5.4, height: float = 3.4) -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise MissingExtraError("matplotlib", "report") from exc
    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _reward_distribution(d: ReportData) -> Any:
    fig = _figure()
    ax = fig.add_subplot()
    by_task: dict[str, list[float]] = defaultdict(list)
    for task, r in zip(d.task, d.reward, strict=True):
        if r is not None:
            by_task[task].append(r)
    values = [v for vs in by_task.values() for v in vs]
    if not values:
        return _empty(fig, ax, "no rewards")
    distinct = sorted(set(values))
    if len(distinct) <= 8:  # discrete rewards (1/0, +1/-1): grouped bars read better than histograms
        width = 0.8 / len(by_task)
        for k, (task, vs) in enumerate(sorted(by_task.items())):
            counts = Counter(vs)
            xs = [i + (k - (len(by_task) - 1) / 2) * width for i in range(len(distinct))]
            bars = ax.bar(xs, [counts[v] for v in distinct], width, label=f"{task} (n={len(vs)})")
            ax.bar_label(bars, fontsize=7)
        ax.set_xticks(range(len(distinct)), [f"{v:g}" for v in distinct])
    else:
        lo, hi = min(values), max(values)
        bins = [lo + (hi - lo) * i / 20 for i in range(21)]
        for task, vs in sorted(by_task.items()):
            ax.hist(vs, bins=bins, histtype="stepfilled", alpha=0.45, label=f"{task} (n={len(vs)})")
    ax.set_xlabel("reward")
    ax.set_ylabel("samples")
    ax.legend(fontsize=7)
    return fig


def _status_counts(d: ReportData) -> Any:
    fig = _figure()
    ax = fig.add_subplot()
    counts = Counter(d.status)
    names = sorted(counts, key=lambda s: (s != "ok", s))
    colors = ["#4c9a2a" if n == "ok" else "#c0392b" for n in names]
    bars = ax.bar(names, [counts[n] for n in names], color=colors)
    ax.bar_label(bars, fontsize=8)
    ax.set_ylabel("samples")
    ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    return fig


def _latency_hist(d: ReportData) -> Any | None:
    values = [v for v in d.latency_s if v is not None and v > 0]
    if not values:
        return None
    fig = _figure()
    ax = fig.add_subplot()
    lo, hi = math.log10(min(values)), math.log10(max(values))
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    bins = [10 ** (lo + (hi - lo) * i / 30) for i in range(31)]
    ax.hist(values, bins=bins, color="#3b6ea5")
    ax.set_xscale("log")
    ax.set_xlabel("seconds per sample (log scale)")
    ax.set_ylabel("samples")
    return fig


def _length_vs_reward(d: ReportData) -> Any:
    fig = _figure()
    ax = fig.add_subplot()
    pts = [(n, r) for n, r in zip(d.length, d.reward, strict=True) if n is not None and r is not None]
    if not pts:
        return _empty(fig, ax, "no responses with rewards")
    # a deterministic jitter keeps discrete rewards readable without randomness in the output
    ys = [r + 0.03 * (((i * 2654435761) % 1000) / 1000 - 0.5) for i, (_, r) in enumerate(pts)]
    ax.scatter([n for n, _ in pts], ys, s=6, alpha=0.4, color="#3b6ea5")
    ax.set_xlabel("response length (characters)")
    ax.set_ylabel("reward")
    return fig


def _accuracy_per_group(d: ReportData, group_by: str) -> Any:
    fig = _figure(width=5.4, height=max(2.4, 0.3 * len(set(d.group)) + 1.2))
    ax = fig.add_subplot()
    groups: dict[str, list[bool]] = defaultdict(list)
    for g, c in zip(d.group, d.correct, strict=True):
        if c is not None:
            groups[g].append(c)
    if not groups:
        return _empty(fig, ax, "no graded samples")
    names = sorted(groups)[:40]
    acc = [sum(groups[n]) / len(groups[n]) for n in names]
    bars = ax.barh(names, acc, color="#4c9a2a")
    ax.bar_label(
        bars, labels=[f"{a:.0%} (n={len(groups[n])})" for a, n in zip(acc, names, strict=True)], fontsize=7
    )
    ax.set_xlim(0, 1.2)
    ax.set_xlabel(f"accuracy by {group_by}")
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    return fig


def _empty(fig: Any, ax: Any, text: str) -> Any:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    return fig


# ---------------------------------------------------------------------------------------------------------
# the page


def _summary_rows(d: ReportData) -> list[tuple[Any, ...]]:
    idx: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(d.task):
        idx[t].append(i)
    rows = []
    for task, ix in sorted(idx.items()):
        ok = [i for i in ix if d.status[i] == "ok"]
        rewards = [d.reward[i] for i in ok if d.reward[i] is not None]
        graded = [d.correct[i] for i in ix if d.correct[i] is not None]
        rows.append(
            (
                task,
                len(ix),
                len(ok),
                len(ix) - len(ok),
                f"{sum(rewards) / len(rewards):.4f}" if rewards else "-",
                f"{sum(graded) / len(graded):.2%}" if graded else "-",
            )
        )
    return rows


def build_report(
    rows: Sequence[Mapping[str, Any]],
    *,
    title: str = "rewardloop reward report",
    response_key: str = "response",
    group_by: str = "data_source",
    source: str | None = None,
) -> str:
    """The report as one self-contained HTML string."""
    d = report_data(rows, response_key=response_key, group_by=group_by)
    n_failed = sum(st != "ok" for st in d.status)
    intro = f"<p>{len(d.status)} scored samples" + (
        f" from <code>{html.escape(source)}</code>" if source else ""
    )
    intro += f"; {n_failed} failed (failures are shown apart, never as wrong answers).</p>"
    body = [intro, "<h2>Summary per data_source</h2>"]
    body.append(
        table(["data_source", "samples", "ok", "failed", "mean reward (ok)", "accuracy"], _summary_rows(d))
    )
    figures = [
        ("Reward distribution per data_source", _reward_distribution(d)),
        ("Status counts", _status_counts(d)),
        ("Latency per sample", _latency_hist(d)),
        ("Response length against reward", _length_vs_reward(d)),
        (f"Accuracy per {group_by}", _accuracy_per_group(d, group_by)),
    ]
    body.append('<h2>Plots</h2><div class="grid">')
    for caption, fig in figures:
        if fig is None:
            body.append(
                f'<figure><p class="note">{html.escape(caption)}: no latency recorded in this file '
                "(no exec_s / latency_s column, info.exec_s or info.timings_ms)</p></figure>"
            )
            continue
        body.append(
            f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{_png(fig)}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    body.append("</div>")
    errors = Counter(e.splitlines()[0][:160] for e in d.error if e)
    if errors:
        body.append("<h2>Most frequent errors</h2>")
        body.append(table(["error", "count"], errors.most_common(10)))
    return page(title, "\n".join(body))


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table with escaped cells."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

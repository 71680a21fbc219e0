"""A self-contained HTML reward report for a scored file (the output of ``rewardloop score``).

:func:`build_report` reads scored rows (``data_source``, ``score``, ``status``, ``metrics``, ``info``,
``error`` and the response column) and renders, as PNGs embedded in the page (base64; no scripts, no
network): the reward distribution per ``data_source``, status counts, the latency histogram, response
length against reward, and accuracy per group (``data_source`` or any dotted column such as
``extra_info.level``), plus a summary table and the most frequent errors.

Latency is read from a row's ``exec_s`` / ``latency_s`` column, else ``info.exec_s``, else the sum of
``info.timings_ms`` (``math_equiv``); when no row has any, the page says so instead of plotting.
Accuracy is the one definition shared with ``score`` and ``audit`` (:func:`rewardloop._summary.row_correct`:
the scorer's ``acc`` when it reports one, else full marks), over ``ok`` rows. Rows that share a
``group_id`` (written by ``rewardloop score``) get the GRPO group statistics: a table and pass@k curves.

Readability with many data sources: the reward distribution is drawn as small multiples (one panel per
data_source, the :data:`TOP_N` largest, the rest pooled as "other") on a numeric reward axis, so there is
no legend to clip; accuracy bars are on a fixed [0, 1] axis with their labels inside the plot.

Needs matplotlib (the ``report`` extra); it is drawn through ``matplotlib.figure.Figure`` with the
Agg canvas, never ``pyplot``, so no global backend state is touched.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._summary import correct_of
from ..errors import ConfigError, MissingExtraError

__all__ = [
    "TOP_N",
    "ReportData",
    "build_report",
    "check_scored",
    "page",
    "report_data",
    "report_figures",
    "table",
]

#: data sources drawn in their own reward-distribution panel; the rest are pooled as "other"
TOP_N = 8

_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222;
padding:0 1em}
h1{font-size:1.6em;border-bottom:2px solid #3b6ea5;padding-bottom:.3em}h2{font-size:1.25em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ccc;padding:.3em .7em;text-align:right}
th{background:#eef3f8}td:first-child,th:first-child{text-align:left}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:.85em;border:1px solid #e1e4e8}
.grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em}.grid img{width:100%;height:auto}
figure{margin:0;min-width:0}figure.wide{grid-column:1 / -1}
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
    gid: list[str | None] = field(default_factory=list)


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
        correct = correct_of(status == "ok", reward, metrics, info)
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
        gid = row.get("group_id")
        data.gid.append(None if gid is None else str(gid))
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
    fig.savefig(buf, format="png", bbox_inches="tight", pad_inches=0.1)  # nothing drawn is cut off
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _top_groups(values: dict[str, list[Any]], top: int = TOP_N) -> list[tuple[str, list[Any]]]:
    """The ``top`` largest groups (by size, then name) and, when there are more, the rest pooled as "other"."""
    ordered = sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    if len(ordered) <= top:
        return ordered
    rest = [v for _, vs in ordered[top - 1 :] for v in vs]
    return [*ordered[: top - 1], (f"other ({len(ordered) - top + 1} sources)", rest)]


def _reward_distribution(d: ReportData) -> Any:
    by_task: dict[str, list[float]] = defaultdict(list)
    for task, r in zip(d.task, d.reward, strict=True):
        if r is not None:
            by_task[task].append(r)
    panels = _top_groups(by_task)
    if not panels:
        fig = _figure()
        return _empty(fig, fig.add_subplot(), "no rewards")
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig = _figure(width=10.8 if cols > 1 else 5.4, height=1.9 * rows + 0.6)
    values = [v for _, vs in panels for v in vs]
    lo, hi = min(values), max(values)
    pad = max(0.05 * (hi - lo), 0.05)
    distinct = sorted(set(values))
    axes = fig.subplots(rows, cols, sharex=True, squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= len(panels):
            ax.set_axis_off()
            continue
        name, vs = panels[k]
        if len(distinct) <= 12:  # discrete rewards: a bar at each value, on the numeric axis
            counts = Counter(vs)
            ax.bar(distinct, [counts[v] for v in distinct], width=0.8 * _gap(distinct), color="#3b6ea5")
        else:
            ax.hist(vs, bins=20, range=(lo, hi), color="#3b6ea5")
        margin = pad + (0.4 * _gap(distinct) if len(distinct) <= 12 else 0.0)
        ax.set_xlim(lo - margin, hi + margin)
        ax.set_title(f"{_short(name)} (n={len(vs)})", fontsize=8)
        ax.tick_params(labelsize=7, labelbottom=True)  # reward values under every panel
    for ax in axes[-1]:
        ax.set_xlabel("reward", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("samples", fontsize=8)
    return fig


def _gap(distinct: list[float]) -> float:
    return min((b - a for a, b in itertools.pairwise(distinct)), default=1.0)


def _short(name: str, n: int = 34) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


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
    groups: dict[str, list[bool]] = defaultdict(list)
    for g, c in zip(d.group, d.correct, strict=True):
        if c is not None:
            groups[g].append(c)
    shown = _top_groups(groups, top=30)
    fig = _figure(width=5.4, height=max(2.4, 0.28 * len(shown) + 1.2))
    ax = fig.add_subplot()
    if not shown:
        return _empty(fig, ax, "no graded samples")
    names = [_short(n, 40) for n, _ in shown]
    acc = [sum(vs) / len(vs) for _, vs in shown]
    ax.barh(range(len(names)), acc, color="#4c9a2a")
    for i, (a, (_, vs)) in enumerate(zip(acc, shown, strict=True)):
        label = f"{a:.0%} (n={len(vs)})"
        inside = a > 0.72  # long bars carry their label inside, so it never runs past the axis
        ax.text(a - 0.01 if inside else a + 0.01, i, label, va="center", ha="right" if inside else "left",
                fontsize=7, color="white" if inside else "#222")  # fmt: skip
    ax.set_yticks(range(len(names)), names)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"accuracy by {group_by}")
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    return fig


def _pass_at_k(d: ReportData) -> Any | None:
    from .._groups import group_stats

    stats = group_stats(_group_items(d))
    if not stats or stats[-1].max_n < 2:
        return None
    fig = _figure()
    ax = fig.add_subplot()
    curves = [st for st in stats[:-1] if st.max_n >= 2]
    curves = [*sorted(curves, key=lambda st: -st.groups)[: TOP_N - 1], stats[-1]]
    for st in curves:
        ks = sorted(st.pass_at)
        ax.plot(ks, [st.pass_at[k] for k in ks], marker="o", markersize=3,
                linewidth=2.2 if st.task == "ALL" else 1.2, label=_short(st.task, 28))  # fmt: skip
    ax.set_ylim(0, 1)
    ax.set_xlabel("k (samples per prompt)")
    ax.set_ylabel("pass@k (unbiased)")
    ax.legend(fontsize=6, loc="lower right", framealpha=0.85)
    return fig


def _group_items(d: ReportData) -> Any:
    from ..types import Score, Status

    for task, gid, status, reward, correct in zip(d.task, d.gid, d.status, d.reward, d.correct, strict=True):
        if gid is None:
            continue
        if status == "ok" and reward is not None:
            score = Score(value=reward, metrics={"acc": bool(correct)})
        else:
            known = {s.value for s in Status if s is not Status.OK}
            score = Score.failure(status if status in known else Status.SCORER_ERROR, "")
        yield task, gid, score


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


def check_scored(rows: Sequence[Mapping[str, Any]], source: str | None = None) -> None:
    """Raise :class:`ConfigError` unless ``rows`` were written by ``rewardloop score`` (``status`` and ``score``)."""
    where = f" {source!r}" if source else ""
    if not rows:
        raise ConfigError(f"nothing to report: the file{where} holds no rows")
    unscored = sum(1 for r in rows if "status" not in r or "score" not in r)
    if unscored:
        raise ConfigError(
            f"the file{where} is not scored: {unscored} of {len(rows)} rows have no 'status'/'score' "
            "(score it first: rewardloop score FILE -o scored.jsonl)"
        )


def report_figures(d: ReportData, group_by: str = "data_source") -> list[tuple[str, Any]]:
    """The report's plots as ``(caption, matplotlib Figure or None)``; None means "nothing to plot"."""
    figures = [
        ("Reward distribution per data_source", _reward_distribution(d)),
        ("Status counts", _status_counts(d)),
        ("Latency per sample", _latency_hist(d)),
        ("Response length against reward", _length_vs_reward(d)),
        (f"Accuracy per {group_by}", _accuracy_per_group(d, group_by)),
    ]
    passk = _pass_at_k(d)
    if passk is not None:
        figures.append(("pass@k per data_source (GRPO groups)", passk))
    return figures


def _group_table(d: ReportData) -> str:
    from .._groups import group_stats

    stats = group_stats(_group_items(d))
    if not stats or stats[-1].max_n < 2:
        return ""
    n = stats[-1].max_n
    ks = sorted({*range(1, min(n, 8) + 1), n})
    header = [
        "data_source",
        "groups",
        "n",
        *(f"pass@{k}" for k in ks),
        "mean@n",
        "reward std",
        "all-equal groups",
    ]
    rows = []
    for st in (st for st in stats if st.max_n >= 2 or st.task == "ALL"):  # single-rollout sources say nothing
        rows.append(
            [st.task, st.groups, st.max_n, *(_fmt(st.pass_at.get(k)) for k in ks), _fmt(st.mean_at_n),
             _fmt(st.reward_std), "-" if st.all_equal_share is None else f"{st.all_equal_share:.1%}"]
        )  # fmt: skip
    note = (
        "<p>Rows sharing a <code>group_id</code> are the rollouts of one prompt. pass@k: the unbiased estimator; "
        "all-equal groups: every reward equal, so every GRPO advantage is zero.</p>"
    )
    return "<h2>GRPO groups</h2>" + note + table(header, rows)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def build_report(
    rows: Sequence[Mapping[str, Any]],
    *,
    title: str = "rewardloop reward report",
    response_key: str = "response",
    group_by: str = "data_source",
    source: str | None = None,
) -> str:
    """The report as one self-contained HTML string (``rows`` must be scored: see :func:`check_scored`)."""
    check_scored(rows, source)
    d = report_data(rows, response_key=response_key, group_by=group_by)
    n_failed = sum(st != "ok" for st in d.status)
    intro = f"<p>{len(d.status)} scored samples" + (
        f" from <code>{html.escape(source)}</code>" if source else ""
    )
    intro += f"; {n_failed} failed (failures are shown apart, never as wrong answers).</p>"
    intro += (
        '<p class="note">Accuracy: the scorer\'s <code>acc</code> when it reports one, else full marks '
        "(reward &ge; 1), over ok rows; the same definition as <code>rewardloop score</code> and "
        "<code>audit</code>.</p>"
    )
    body = [intro, "<h2>Summary per data_source</h2>"]
    body.append(
        table(["data_source", "samples", "ok", "failed", "mean reward (ok)", "accuracy"], _summary_rows(d))
    )
    groups = _group_table(d)
    if groups:
        body.append(groups)
    body.append('<h2>Plots</h2><div class="grid">')
    for caption, fig in report_figures(d, group_by):
        if fig is None:
            body.append(
                f'<figure><p class="note">{html.escape(caption)}: no latency recorded in this file '
                "(no exec_s / latency_s column, info.exec_s or info.timings_ms)</p></figure>"
            )
            continue
        wide = " wide" if caption.startswith("Reward distribution") else ""
        body.append(
            f'<figure class="plot{wide}"><img alt="{html.escape(caption)}" src="data:image/png;base64,{_png(fig)}">'
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

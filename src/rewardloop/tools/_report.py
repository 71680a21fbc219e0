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
    "build_comparison",
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
.scroll{max-width:100%;overflow-x:auto}.ex{margin:.5em 0 1em}.ex div{font-size:.85em;overflow-wrap:anywhere}
.ex pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:14em;overflow-y:auto}
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
    metrics: list[Mapping[str, Any]] = field(default_factory=list)
    response: list[str | None] = field(default_factory=list)
    answer: list[Any] = field(default_factory=list)  # what the scorer extracted (info/metrics), if it says
    gold: list[Any] = field(default_factory=list)


def dotted_field(row: Mapping[str, Any], path: str) -> Any:
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
        info: Mapping[str, Any] = row["info"] if isinstance(row.get("info"), Mapping) else {}
        metrics: Mapping[str, Any] = row["metrics"] if isinstance(row.get("metrics"), Mapping) else {}
        status = str(row.get("status") or "ok")
        score = row.get("score")
        reward = float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None
        if reward is not None and math.isnan(reward):
            reward = None
        correct = correct_of(status == "ok", reward, metrics, info)
        response = row.get(response_key)
        data.task.append(str(row.get("data_source", "(none)")))
        group = dotted_field(row, group_by)
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
        data.metrics.append(metrics)
        data.response.append(response if isinstance(response, str) else None)
        data.answer.append(_answer(info, metrics))
        rm = row.get("reward_model")
        rm = _maybe_dict(rm) if isinstance(rm, str) else rm
        data.gold.append(rm.get("ground_truth") if isinstance(rm, Mapping) else None)
    return data


_ANSWER_KEYS = ("extracted", "pred", "answer", "extracted_answer")


def _answer(info: Mapping[str, Any], metrics: Mapping[str, Any]) -> Any:
    for part in (info, metrics):
        for key in _ANSWER_KEYS:
            if part.get(key) is not None:
                return part[key]
    return None


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
        if len(distinct) <= 12:  # only the rewards that occur are labelled (no -0.25 for a 0/1 reward)
            ax.set_xticks(distinct, [f"{v:g}" for v in distinct])
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
    # no jitter: a reward of 1.0 is drawn at 1.0 (overlap shows as darker points)
    ax.scatter([n for n, _ in pts], [r for _, r in pts], s=8, alpha=0.35, color="#3b6ea5")
    distinct = sorted({r for _, r in pts})
    if len(distinct) <= 8:
        ax.set_yticks(distinct, [f"{v:g}" for v in distinct])
    ax.set_xlabel("response length (characters)")
    ax.set_ylabel("reward")
    return fig


def _accuracy_per_group(d: ReportData, group_by: str) -> Any:
    groups: dict[str, list[bool]] = defaultdict(list)
    for g, c in zip(d.group, d.correct, strict=True):
        if c is not None:
            groups[g].append(c)
    shown = sorted(_top_groups(groups, top=30), key=lambda kv: _natural(kv[0]))
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


def _natural(name: str) -> tuple[Any, ...]:
    """Sort key: numbers by value (level 2 before level 10), "other (...)" last."""
    import re

    if name.startswith("other ("):
        return ((2, ""),)
    return tuple((0, float(p)) if p[:1].isdigit() else (1, p) for p in re.findall(r"\d+(?:\.\d+)?|\D+", name))


def _pass_at_k(d: ReportData) -> Any | None:
    from .._groups import group_stats

    stats = group_stats(_group_items(d))
    if not stats or stats[-1].max_n < 2:
        return None
    fig = _figure()
    ax = fig.add_subplot()
    curves = [st for st in stats[:-1] if st.max_n >= 2]
    curves = sorted(curves, key=lambda st: -st.groups)[: TOP_N - 1]
    if len(curves) != 1:  # with one source, ALL is the same line drawn over it
        curves.append(stats[-1])
    for st in curves:
        ks = sorted(st.pass_at)
        ax.plot(ks, [st.pass_at[k] for k in ks], marker="o", markersize=3,
                linewidth=2.2 if st.task == "ALL" else 1.2, label=_short(st.task, 28))  # fmt: skip
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # k is a count: no 1.2, 1.4, ...
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


def _solve_rates(d: ReportData) -> dict[str, list[float]]:
    """Per data_source, each GRPO group's solve rate c/n over its ok samples (groups of 2+ ok samples)."""
    groups: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for task, gid, status, correct in zip(d.task, d.gid, d.status, d.correct, strict=True):
        if gid is not None and status == "ok" and correct is not None:
            groups[(task, gid)].append(correct)
    out: dict[str, list[float]] = defaultdict(list)
    for (task, _), verdicts in groups.items():
        if len(verdicts) >= 2:
            out[task].append(sum(verdicts) / len(verdicts))
    return dict(out)


def _solve_rate_hist(d: ReportData) -> Any | None:
    """Small multiples: per data_source, how many prompts each share of their rollouts solves. A group at 0
    (too hard) or 1 (too easy) has every reward equal under a binary verifier: zero advantage."""
    rates = _solve_rates(d)
    if not rates:
        return None
    panels = _top_groups(rates)
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig = _figure(width=10.8 if cols > 1 else 5.4, height=2.1 * rows + 0.6)
    axes = fig.subplots(rows, cols, squeeze=False)
    edges = [i / 10 for i in range(11)]
    for k, ax in enumerate(axes.flat):
        if k >= len(panels):
            ax.set_axis_off()
            continue
        name, vs = panels[k]
        zero, one = sum(v == 0 for v in vs), sum(v == 1 for v in vs)
        middle = [v for v in vs if 0 < v < 1]
        ax.hist(middle, bins=edges, color="#3b6ea5", label="some solved")
        ax.bar([-0.05, 1.05], [zero, one], width=0.08, color=["#c0392b", "#e69f00"])
        ax.set_xlim(-0.12, 1.12)
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0", ".25", ".5", ".75", "1"])
        ax.set_title(
            f"{_short(name, 26)}: {len(vs)} prompts, {zero / len(vs):.0%} unsolved, {one / len(vs):.0%} all solved",
            fontsize=7,
        )
        ax.tick_params(labelsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("solve rate c/n per prompt", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("prompts", fontsize=8)
    return fig


def _component_keys(d: ReportData) -> list[str]:
    """Composite reward components: a numeric metric ``K`` that comes with ``K_status`` (``Composite``)."""
    keys: dict[str, None] = {}
    for metrics in d.metrics:
        for key in metrics:
            if f"{key}_status" in metrics and isinstance(metrics[key], int | float):
                keys[key] = None
    return list(keys)


def _component_table(d: ReportData) -> str:
    keys = _component_keys(d)
    if not keys:
        return ""
    by_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    failed: Counter[str] = Counter()
    for task, metrics in zip(d.task, d.metrics, strict=True):
        for key in keys:
            value = metrics.get(key)
            if metrics.get(f"{key}_status", "ok") != "ok":
                failed[key] += 1
            elif isinstance(value, int | float) and not isinstance(value, bool):
                by_task[task][key].append(float(value))
                by_task["ALL"][key].append(float(value))
    rows = []
    for task in [*sorted(t for t in by_task if t != "ALL"), "ALL"]:
        cells = [task]
        for key in keys:
            vs = by_task[task][key]
            cells.append(f"{sum(vs) / len(vs):.3f}" if vs else "-")
        rows.append(cells)
    note = (
        "<p>Mean of each component's own reward (before its weight), over the samples it scored; "
        f"a failed component is left out ({', '.join(f'{k}: {failed[k]}' for k in keys) if failed else 'none failed'}).</p>"
    )
    return "<h2>Reward components</h2>" + note + _scroll(table(["data_source", *keys], rows))


def _monitor_panel(d: ReportData, examples: int = 3) -> str:
    """Reward-hacking monitors (``reward.monitors``): how often each fired, and responses it flagged."""
    names: dict[str, None] = {}
    for metrics in d.metrics:
        names.update(dict.fromkeys(k[8:] for k in metrics if k.startswith("monitor/") and k != "monitor/any"))
    if not names:
        return ""
    n = len(d.metrics)
    rows, blocks = [], []
    for name in names:
        hits = [i for i, m in enumerate(d.metrics) if m.get(f"monitor/{name}") is True]
        rows.append([name, len(hits), f"{len(hits) / n:.1%}"])
        for i in hits[:examples]:
            blocks.append(_example_block(d, i, f"{name}"))
    anyhits = sum(m.get("monitor/any") is True for m in d.metrics)
    rows.append(["any", anyhits, f"{anyhits / n:.1%}"])
    body = "<h2>Reward-hacking monitors</h2><p>Flags set by <code>reward.monitors</code> (they flag; they change a "
    body += "reward only where <code>penalize</code> says so).</p>" + table(
        ["monitor", "flagged", "share"], rows
    )
    if blocks:
        body += "<h3>Flagged responses</h3>" + "".join(blocks)
    return body


def _clip(text: Any, n: int = 600) -> str:
    s = text if isinstance(text, str) else ("" if text is None else str(text))
    return s if len(s) <= n else s[: n // 2] + " [...] " + s[-n // 2 :]


def _example_block(d: ReportData, i: int, why: str) -> str:
    reward = "-" if d.reward[i] is None else f"{d.reward[i]:g}"
    head = (
        f"<b>{html.escape(why)}</b> &middot; row {i} &middot; {html.escape(d.task[i])} &middot; "
        f"status {html.escape(d.status[i])} &middot; reward {reward} &middot; gold "
        f"<code>{html.escape(_clip(d.gold[i], 80))}</code> &middot; extracted "
        f"<code>{html.escape(_clip(d.answer[i], 80))}</code>"
    )
    return f'<div class="ex"><div>{head}</div><pre>{html.escape(_clip(d.response[i]))}</pre></div>'


def _truncated(d: ReportData, i: int) -> bool:
    m = d.metrics[i]
    return m.get("overlong") is True or m.get("monitor/overlong_zone") is True


def _examples_panel(d: ReportData, n: int = 4) -> str:
    ok = [i for i, st in enumerate(d.status) if st == "ok" and d.reward[i] is not None]
    worst = sorted(ok, key=lambda i: (d.reward[i], i))[:n]
    truncated = [i for i in range(len(d.status)) if _truncated(d, i)][:n]
    failed = [i for i, st in enumerate(d.status) if st != "ok"][:n]
    parts = [("Lowest rewards", worst, "worst"), ("Truncated (overlong)", truncated, "truncated"),
             ("Failed", failed, "failed")]  # fmt: skip
    body = "<h2>Examples</h2>"
    for title, rows, why in parts:
        if rows:
            body += f"<h3>{html.escape(title)}</h3>" + "".join(_example_block(d, i, why) for i in rows)
    return body


def _scroll(inner: str) -> str:
    """A wide table scrolls inside its own box, so the page never runs off the viewport."""
    return f'<div class="scroll">{inner}</div>'


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
        rewards = [r for i in ok if (r := d.reward[i]) is not None]
        graded = [c for i in ix if (c := d.correct[i]) is not None]
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
    solve = _solve_rate_hist(d)
    if solve is not None:
        figures.append(("Solve rate per prompt, per data_source (GRPO groups)", solve))
    return figures


def _group_table(d: ReportData) -> str:
    from .._groups import group_stats

    stats = group_stats(_group_items(d))
    if not stats or stats[-1].max_n < 2:
        return ""
    n = stats[-1].max_n
    ks = sorted({k for k in (1, 2, 4, 8, 16, 32) if k < n} | {n})
    header = ["data_source", "groups", "n", *(f"pass@{k}" for k in ks), "mean@n", "reward std",
              "all-equal groups", "failed"]  # fmt: skip
    rows = []
    for st in (st for st in stats if st.max_n >= 2 or st.task == "ALL"):  # single-rollout sources say nothing
        size = str(st.max_n) if st.min_n == st.max_n else f"{st.min_n}-{st.max_n}"
        cells = [_passk_cell(st, k) for k in ks]
        rows.append(
            [st.task, st.groups, size, *cells, _fmt(st.mean_at_n), _fmt(st.reward_std),
             "-" if st.all_equal_share is None else f"{st.all_equal_share:.1%}", st.failed]
        )  # fmt: skip
    note = (
        "<p>Rows sharing a <code>group_id</code> are the rollouts of one prompt. pass@k: the unbiased estimator "
        "from each group's own n (its ok samples; <b>failed samples are left out</b>, not counted as wrong), "
        "averaged over the groups with at least k of them; the number in brackets is how many groups that is "
        "(so pass@k can fall as k rises when failures shrink groups). n: the range of group sizes. all-equal "
        "groups: every reward equal, so every GRPO advantage is zero.</p>"
    )
    return "<h2>GRPO groups</h2>" + note + _scroll(table(header, rows))


def _passk_cell(st: Any, k: int) -> str:
    value = st.pass_at.get(k)
    return "-" if value is None else f"{value:.3f} ({st.groups_at.get(k, 0)})"


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
        _scroll(
            table(
                ["data_source", "samples", "ok", "failed", "mean reward (ok)", "accuracy"], _summary_rows(d)
            )
        )
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
        wide = " wide" if caption.startswith(("Reward distribution", "Solve rate")) else ""
        body.append(
            f'<figure class="plot{wide}"><img alt="{html.escape(caption)}" src="data:image/png;base64,{_png(fig)}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    body.append("</div>")
    for section in (_component_table(d), _monitor_panel(d), _examples_panel(d)):
        if section:
            body.append(section)
    errors = Counter(e.splitlines()[0][:160] for e in d.error if e)
    if errors:
        body.append("<h2>Most frequent errors</h2>")
        body.append(_scroll(table(["error", "count"], errors.most_common(10))))
    return page(title, "\n".join(body))


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table with escaped cells."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# ---------------------------------------------------------------------------------------------------------
# two runs


def build_comparison(
    rows_a: Sequence[Mapping[str, Any]],
    rows_b: Sequence[Mapping[str, Any]],
    *,
    names: tuple[str, str] = ("A", "B"),
    title: str = "rewardloop: two runs compared",
    response_key: str = "response",
    examples: int = 5,
) -> str:
    """One page comparing two scored files: per data_source the mean reward and accuracy of each and their
    deltas, and, when the files hold the same rollouts row for row, the flips (right->wrong, ...) with
    examples showing the gold and each run's extracted answer."""
    from ._rescore import compare_scored

    check_scored(rows_a, names[0])
    check_scored(rows_b, names[1])
    a, b = report_data(rows_a, response_key=response_key), report_data(rows_b, response_key=response_key)
    sa, sb = _per_source(a), _per_source(b)
    header = ["data_source", f"n {names[0]}", f"n {names[1]}", "mean reward A", "mean reward B", "delta",
              "accuracy A", "accuracy B", "delta"]  # fmt: skip
    rows = []
    for task in sorted(set(sa) | set(sb)):
        (na, ra, ca), (nb, rb, cb) = sa.get(task, (0, None, None)), sb.get(task, (0, None, None))
        rows.append(
            [task, na, nb, _fmt(ra), _fmt(rb), _delta(ra, rb), _pct(ca), _pct(cb), _delta(ca, cb, pct=True)]
        )
    body = [
        f"<p>A: <code>{html.escape(names[0])}</code> ({len(rows_a)} rows); B: <code>{html.escape(names[1])}</code> "
        f"({len(rows_b)} rows). Accuracy over ok rows, as in <code>rewardloop score</code>.</p>",
        "<h2>Per data_source</h2>",
        _scroll(table(header, rows)),
    ]
    fig = _accuracy_ab(sa, sb, names)
    if fig is not None:
        caption = "Accuracy per data_source, A against B"
        body.append(
            f'<figure class="plot"><img alt="{caption}" src="data:image/png;base64,{_png(fig)}">'
            f"<figcaption>{caption}</figcaption></figure>"
        )
    same = len(rows_a) == len(rows_b) and all(
        x.get(response_key) == y.get(response_key) for x, y in zip(rows_a, rows_b, strict=True)
    )
    if not same:
        body.append(
            '<p class="note">The files do not hold the same rollouts row for row: no flips to show.</p>'
        )
        return page(title, "\n".join(body))
    report = compare_scored(rows_a, rows_b, response_key=response_key, examples=examples)
    counts = [[k.replace("_", " "), v] for k, v in report.counts.items()]
    body += [
        "<h2>Flips</h2>",
        f"<p>{report.flips} of {report.n} rows flipped.</p>",
        table(["kind", "rows"], counts),
    ]
    for kind, shown in report.examples.items():
        if not shown:
            continue
        body.append(f"<h3>{html.escape(kind.replace('_', ' '))}</h3>")
        for ex in shown:
            i = ex["index"]
            head = (
                f"row {i} &middot; {html.escape(str(ex['data_source']))} &middot; A {html.escape(str(ex['old']['status']))} "
                f"{ex['old']['score']} &rarr; B {html.escape(str(ex['new']['status']))} {ex['new']['score']} &middot; gold "
                f"<code>{html.escape(_clip(ex.get('gold'), 80))}</code> &middot; extracted A "
                f"<code>{html.escape(_clip(ex.get('answer_before'), 80))}</code>, B "
                f"<code>{html.escape(_clip(ex.get('answer_now'), 80))}</code>"
            )
            body.append(
                f'<div class="ex"><div>{head}</div><pre>{html.escape(_clip(a.response[i]))}</pre></div>'
            )
    return page(title, "\n".join(body))


def _accuracy_ab(sa: Mapping[str, Any], sb: Mapping[str, Any], names: tuple[str, str]) -> Any | None:
    tasks = sorted(t for t in set(sa) | set(sb) if (sa.get(t) or (0, 0, None))[2] is not None
                   or (sb.get(t) or (0, 0, None))[2] is not None)[:30]  # fmt: skip
    if not tasks:
        return None
    fig = _figure(width=7.0, height=max(2.4, 0.42 * len(tasks) + 1.2))
    ax = fig.add_subplot()
    for offset, stats, color, label in ((-0.2, sa, "#9db4cf", "A"), (0.2, sb, "#3b6ea5", "B")):
        values = [(stats.get(t) or (0, 0, None))[2] or 0.0 for t in tasks]
        ax.barh([i + offset for i in range(len(tasks))], values, height=0.38, color=color, label=label)
    ax.set_yticks(range(len(tasks)), [_short(t, 40) for t in tasks])
    ax.set_xlim(0, 1)
    ax.set_xlabel("accuracy (ok rows)")
    ax.invert_yaxis()
    ax.legend(fontsize=7, loc="lower right")
    ax.tick_params(axis="y", labelsize=7)
    return fig


def _per_source(d: ReportData) -> dict[str, tuple[int, float | None, float | None]]:
    idx: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(d.task):
        idx[t].append(i)
    out = {}
    for task, ix in idx.items():
        rewards = [r for i in ix if d.status[i] == "ok" and (r := d.reward[i]) is not None]
        graded = [c for i in ix if (c := d.correct[i]) is not None]
        out[task] = (
            len(ix),
            sum(rewards) / len(rewards) if rewards else None,
            sum(graded) / len(graded) if graded else None,
        )
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def _delta(x: float | None, y: float | None, pct: bool = False) -> str:
    if x is None or y is None:
        return "-"
    return f"{100 * (y - x):+.1f} pt" if pct else f"{y - x:+.3f}"

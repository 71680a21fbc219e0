"""Per-task summaries of scored samples, and the one definition of "correct" that every report uses.

**Accuracy** (``rewardloop score``, ``report``, ``audit``, ``rescore`` and the group statistics): an ``ok``
sample is correct when the scorer reports ``acc`` (in ``metrics``, else in ``info``; a bool as it is, a
number when it is full marks, ``>= 1``: so an ``acc`` of -1 or 0.5 is not correct), else ``info['correct']``,
else when its reward is full marks (``>= 1``). So geometry3k's 0.1 format reward and
Search-R1's 0.25 are not correct answers; DAPO's ``-1`` / ``+1`` are wrong / correct. Failed samples
(timeouts, errors) are neither: they are counted apart, never as wrong answers.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .types import Score

__all__ = [
    "TaskSummary",
    "correct_of",
    "format_table",
    "is_correct",
    "row_correct",
    "summarize",
    "top_errors",
]

FULL_MARKS = 1.0


def correct_of(ok: bool, value: Any, metrics: Any = None, info: Any = None) -> bool | None:
    """The accuracy rule (module docstring) on raw parts; ``None`` when the sample failed."""
    if not ok:
        return None
    for source in (
        metrics.get("acc") if isinstance(metrics, Mapping) else None,
        info.get("acc") if isinstance(info, Mapping) else None,
        info.get("correct") if isinstance(info, Mapping) else None,
    ):
        if isinstance(source, bool):
            return source
        if isinstance(source, int | float) and not math.isnan(source):
            return source >= FULL_MARKS - 1e-9  # a signed (+1/-1) or fractional acc is not truthiness
    if not isinstance(value, int | float) or isinstance(value, bool) or math.isnan(value):
        return False
    return value >= FULL_MARKS - 1e-9


def is_correct(score: Score) -> bool | None:
    """Whether an ok score judged the response correct (module docstring); ``None`` for failed samples."""
    return correct_of(score.ok, score.value, score.metrics, score.info)


def row_correct(row: Mapping[str, Any]) -> bool | None:
    """:func:`is_correct` for a row written by ``rewardloop score`` (``status``, ``score``, ``metrics``, ``info``)."""
    return correct_of(row.get("status") == "ok", row.get("score"), row.get("metrics"), row.get("info"))


@dataclass
class TaskSummary:
    task: str
    count: int = 0
    ok: int = 0
    reward_sum: float = 0.0
    correct: int = 0
    failures: dict[str, int] = field(default_factory=dict)

    @property
    def mean_reward(self) -> float:
        return self.reward_sum / self.ok if self.ok else math.nan

    @property
    def accuracy(self) -> float:
        return self.correct / self.ok if self.ok else math.nan

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "count": self.count,
            "ok": self.ok,
            "mean_reward": None if math.isnan(self.mean_reward) else round(self.mean_reward, 6),
            "accuracy": None if math.isnan(self.accuracy) else round(self.accuracy, 6),
            "failures": dict(self.failures),
        }


def summarize(items: Iterable[tuple[str, Score]]) -> list[TaskSummary]:
    """One summary per task (sorted by task) plus a final ``"ALL"`` row."""
    by_task: dict[str, TaskSummary] = {}
    total = TaskSummary("ALL")
    for task, score in items:
        for summary in (by_task.setdefault(task, TaskSummary(task)), total):
            summary.count += 1
            if score.ok:
                summary.ok += 1
                summary.reward_sum += score.value or 0.0
                summary.correct += bool(is_correct(score))
            else:
                key = score.status.value
                summary.failures[key] = summary.failures.get(key, 0) + 1
    return [*sorted(by_task.values(), key=lambda s: s.task), total]


_LINE_NO = re.compile(r"\bline \d+\b")
# the values inside an error message that vary between samples of one defect: quoted text, numbers, hex
_VALUES = re.compile(r"'[^']*'|\"[^\"]*\"|\b0x[0-9a-fA-F]+\b|(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_HINT = re.compile(r"\s*\((?:did you mean|pick|use|give|set) .*\)\s*$")
MESSAGE_CHARS = 300


def error_template(message: str) -> str:
    """``message`` with its varying values (quoted text, numbers) replaced: messages of one defect that differ
    only in a value (``line 2`` / ``line 7``, ``worker process 16561 died``) share a template."""
    return _VALUES.sub("_", message)


def clip_message(message: str, limit: int = MESSAGE_CHARS) -> str:
    """The first line of ``message``, at most ``limit`` characters; a trailing hint ("did you mean ...") is
    kept whole and the middle is cut instead."""
    text = message.splitlines()[0] if message.splitlines() else "(no message)"
    if len(text) <= limit:
        return text
    hint = _HINT.search(text)
    tail = hint.group(0).strip() if hint else ""
    head = text[: hint.start()] if hint else text
    room = max(limit - len(tail) - 5, 40)
    return f"{head[:room]} ... {tail}".rstrip()


def short_error(message: Any, limit: int = 160) -> str:
    """A failure message for a per-batch log line: about an unknown data source, its first sentence (the list
    of known ones stays in the sample's ``info.error``); clipped to ``limit`` characters."""
    text = str(message or "(no message)").split(". Known data sources:")[0]
    return clip_message(text, limit)


def error_groups(scores: Iterable[Score]) -> list[tuple[str, str, int, int]]:
    """Every failure kind as ``(status, example message, count, distinct messages)``, most frequent first.

    Messages that differ only in a value are one kind (see :func:`error_template`); the example is the first
    message seen, clipped by :func:`clip_message`.
    """
    counts: Counter[tuple[str, str]] = Counter()
    examples: dict[tuple[str, str], str] = {}
    distinct: dict[tuple[str, str], set[str]] = {}
    for score in scores:
        if score.ok:
            continue
        message = str(score.info.get("error") or "(no message)")
        first = message.splitlines()[0] if message.splitlines() else "(no message)"
        key = (score.status.value, error_template(_LINE_NO.sub("line N", first)))
        counts[key] += 1
        examples.setdefault(key, clip_message(first))
        distinct.setdefault(key, set()).add(first)
    return [(st, examples[(st, t)], c, len(distinct[(st, t)])) for (st, t), c in counts.most_common()]


def top_errors(scores: Iterable[Score], n: int = 5) -> list[tuple[str, str, int]]:
    """The ``n`` most frequent failure kinds as ``(status, message, count)`` (see :func:`error_groups`); a
    kind of several distinct messages says how many more there are."""
    out = []
    for status, message, count, variants in error_groups(scores)[:n]:
        if variants > 1:
            message += f" (+{variants - 1} more like it)"
        out.append((status, message, count))
    return out


def format_table(summaries: list[TaskSummary]) -> str:
    """A plain-text table: task, n, mean reward, accuracy, failures by status."""
    header = ("data_source", "n", "mean", "acc", "failed")
    lines: list[tuple[str, ...]] = []
    for s in summaries:
        failed = ", ".join(f"{k}={v}" for k, v in sorted(s.failures.items())) or "-"
        mean = "-" if math.isnan(s.mean_reward) else f"{s.mean_reward:.3f}"
        acc = "-" if math.isnan(s.accuracy) else f"{s.accuracy:.3f}"
        lines.append((s.task, str(s.count), mean, acc, failed))
    return _grid(header, lines, left=(0, 4))


def format_groups(stats: Sequence[Any], max_k: int = 8) -> str:
    """The group statistics (:func:`rewardloop._groups.group_stats`) as a table; pass@k columns up to ``max_k``
    (and pass@n when n is larger). Data sources whose groups hold one rollout each are left out."""
    if not stats:
        return ""
    n = stats[-1].max_n
    ks = sorted({k for k in range(1, min(n, max_k) + 1)} | {n})
    header = ("data_source", "groups", "n", *(f"pass@{k}" for k in ks), "mean@n", "std", "all-equal")
    lines = []
    partial = False
    for st in (st for st in stats if st.max_n >= 2 or st.task == "ALL"):  # single-rollout sources say nothing
        sizes = str(st.max_n) if st.min_n in (0, st.max_n) else f"{st.min_n}-{st.max_n}"
        cells = [st.task, str(st.groups), sizes]
        for k in ks:
            # a pass@k comes from the groups with at least k rollouts: say how many when that is not all
            behind = st.groups_at.get(k, st.groups)
            cell = _num(st.pass_at.get(k))
            if st.pass_at.get(k) is not None and behind < st.groups:
                cell, partial = f"{cell} ({behind})", True
            cells.append(cell)
        cells += [_num(st.mean_at_n), _num(st.reward_std), _pct(st.all_equal_share)]
        lines.append(tuple(cells))
    table = _grid(header, lines, left=(0,))
    if partial:
        table += "\n(g): a pass@k computed from only g groups, those with at least k rollouts"
    return table


def format_errors(errors: Sequence[tuple[str, str, int]], more: int = 0, more_rows: int = 0) -> str:
    """The top error messages, one per line with their count; ``more`` kinds (``more_rows`` rows) left out
    are said at the end."""
    if not errors:
        return ""
    width = max(len(str(c)) for _, _, c in errors)
    lines = [f"  {str(c).rjust(width)} x {st}: {msg}" for st, msg, c in errors]
    if more:
        lines.append(f"  +{more} more kind{'s' if more > 1 else ''} of error ({more_rows} rows)")
    return "\n".join(lines)


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _grid(header: tuple[str, ...], lines: list[tuple[str, ...]], left: tuple[int, ...]) -> str:
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]

    def fmt(row: tuple[str, ...]) -> str:
        cells = (
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *(fmt(r) for r in lines[:-1]), rule, fmt(lines[-1])])

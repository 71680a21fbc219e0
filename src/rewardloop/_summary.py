"""Per-task summaries of scored samples: count, mean reward, accuracy and failures by status."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .types import Score

__all__ = ["TaskSummary", "format_table", "is_correct", "summarize"]


def is_correct(score: Score) -> bool | None:
    """Whether an ok score judged the response correct: the scorer's ``acc`` metric, else
    ``info['correct']``, else full marks (reward >= 1). ``None`` for failed samples."""
    if not score.ok:
        return None
    for source in (score.metrics.get("acc"), score.info.get("correct")):
        if isinstance(source, bool | int | float):
            return bool(source)
    return (score.value or 0.0) >= 1.0 - 1e-9


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


def format_table(summaries: list[TaskSummary]) -> str:
    """A plain-text table: task, n, mean reward, accuracy, failures by status."""
    header = ("data_source", "n", "mean", "acc", "failed")
    lines = []
    for s in summaries:
        failed = ", ".join(f"{k}={v}" for k, v in sorted(s.failures.items())) or "-"
        mean = "-" if math.isnan(s.mean_reward) else f"{s.mean_reward:.3f}"
        acc = "-" if math.isnan(s.accuracy) else f"{s.accuracy:.3f}"
        lines.append((s.task, str(s.count), mean, acc, failed))
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]

    def fmt(row: tuple[str, ...]) -> str:
        cells = (
            c.ljust(w) if i in (0, 4) else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        return "  ".join(cells)

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *(fmt(r) for r in lines[:-1]), rule, fmt(lines[-1])])

"""The monitor contract and the report of a batch in three shapes (the suite that runs them: ``_suite``).

A :class:`Monitor` looks at one sample (and, if it wants, its score and length) and returns a
:class:`Flag` or None. Monitors never change rewards; ``MonitorSuite.apply`` does, and only for the
monitors named in ``penalize``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..types import Sample, Score

__all__ = ["Flag", "Monitor", "MonitorCounters", "MonitorReport"]


@dataclass(frozen=True)
class Flag:
    """One monitor's finding on one sample: ``reason`` says what it saw, ``value`` how much (a ratio, a count)."""

    monitor: str
    reason: str
    value: float = 1.0


class Monitor(ABC):
    """Watches for one kind of reward hacking. Subclasses set ``name`` and implement :meth:`check`.

    ``check`` is a pure function of its arguments, bounded in time (linear scans, one ``ast.parse``), and
    never raises on odd input: a response it cannot read is not flagged.
    """

    name: ClassVar[str] = "monitor"

    @abstractmethod
    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        """A :class:`Flag` when ``sample`` shows the pattern, else None. ``length`` is in tokens when known."""

    def flag(self, reason: str, value: float = 1.0) -> Flag:
        return Flag(self.name, reason, value)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


@dataclass(frozen=True)
class MonitorReport:
    """Flags of one batch: ``flags[i]`` maps monitor name -> :class:`Flag` for the monitors that fired on sample i."""

    names: tuple[str, ...]
    flags: tuple[Mapping[str, Flag], ...]
    prefix: str = "monitor/"

    def __len__(self) -> int:
        return len(self.flags)

    def counts(self) -> dict[str, int]:
        """Samples flagged per monitor (every monitor listed, zeros included), and ``any``."""
        out = {name: sum(name in f for f in self.flags) for name in self.names}
        out["any"] = sum(bool(f) for f in self.flags)
        return out

    def flagged(self, name: str) -> list[int]:
        """Indices of the samples ``name`` flagged."""
        return [i for i, f in enumerate(self.flags) if name in f]

    def sample_metrics(self, i: int) -> dict[str, bool]:
        """Sample ``i``'s fixed-schema columns: ``monitor/<name>`` for every monitor, and ``monitor/any``."""
        row = {f"{self.prefix}{name}": name in self.flags[i] for name in self.names}
        row[f"{self.prefix}any"] = bool(self.flags[i])
        return row

    def columns(self) -> dict[str, list[bool]]:
        """verl ``reward_extra_info``-style columns: the same keys for every sample, one bool per sample."""
        keys = [f"{self.prefix}{n}" for n in self.names] + [f"{self.prefix}any"]
        rows = [self.sample_metrics(i) for i in range(len(self))]
        return {k: [r[k] for r in rows] for k in keys}

    def log_metrics(self, prefix: str = "monitors/") -> dict[str, float]:
        """Batch rates for a trainer's logger (TRL ``log_metric``, wandb): ``<prefix><name>_rate`` per monitor."""
        n = max(len(self), 1)
        return {f"{prefix}{name}_rate": count / n for name, count in self.counts().items()}

    def log_to(self, log_metric: Callable[[str, float], Any], prefix: str = "monitors/") -> None:
        """Send :meth:`log_metrics` through TRL's ``log_metric(name, value)`` callback."""
        for key, value in self.log_metrics(prefix).items():
            log_metric(key, value)

    def reasons(self, i: int) -> dict[str, str]:
        """What each monitor that fired on sample ``i`` saw."""
        return {name: f.reason for name, f in self.flags[i].items()}


@dataclass
class MonitorCounters:
    """Cumulative flag counts across batches, for a ``/metrics`` endpoint (Prometheus counters).

    One instance per service or trainer; :meth:`add` each batch's report.
    """

    samples: int = 0
    flags: dict[str, int] = field(default_factory=dict)

    def add(self, report: MonitorReport) -> None:
        self.samples += len(report)
        for name, count in report.counts().items():
            self.flags[name] = self.flags.get(name, 0) + count

    def as_dict(self) -> dict[str, int]:
        """``{"samples": N, "<monitor>": flagged, ..., "any": flagged}``."""
        return {"samples": self.samples, **self.flags}

    def exposition(self, prefix: str = "rewardloop_monitor") -> str:
        """The counters in Prometheus' text format (``<prefix>_flags_total{monitor="..."}``)."""
        lines = [
            f"# TYPE {prefix}_samples_total counter",
            f"{prefix}_samples_total {self.samples}",
            f"# TYPE {prefix}_flags_total counter",
        ]
        lines += [f'{prefix}_flags_total{{monitor="{name}"}} {n}' for name, n in sorted(self.flags.items())]
        return "\n".join(lines) + "\n"

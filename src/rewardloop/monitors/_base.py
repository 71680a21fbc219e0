"""The monitor contract, the suite that runs monitors over a batch, and its report in three shapes.

A :class:`Monitor` looks at one sample (and, if it wants, its score and length) and returns a
:class:`Flag` or None. Monitors never change rewards; :meth:`MonitorSuite.apply` does, and only for the
monitors named in ``penalize``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import ConfigError
from ..types import Sample, Score

__all__ = ["Flag", "Monitor", "MonitorCounters", "MonitorReport", "MonitorSuite"]


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


class MonitorSuite:
    """Runs monitors over a batch. ``penalize`` maps a monitor name to the reward a flagged ``ok`` sample gets.

    Monitors are independent of the verifier: :meth:`run` needs only the samples (scores and lengths are
    passed on to monitors that use them). Shapers never see samples, so the suite is its own step after
    scoring: ``scores, report = suite.apply(samples, manager.score(samples, lengths), lengths)``.
    """

    def __init__(
        self, monitors: Sequence[Monitor] | None = None, penalize: Mapping[str, float] | None = None
    ):
        if monitors is None:
            from ._monitors import default_monitors

            monitors = default_monitors()
        self.monitors = tuple(monitors)
        names = [m.name for m in self.monitors]
        if len(set(names)) != len(names):
            raise ConfigError(f"monitor names must be unique, got {names}")
        if "any" in names:
            raise ConfigError("'any' is reserved for the any-monitor column")
        self.penalize = dict(penalize or {})
        unknown = sorted(set(self.penalize) - set(names))
        if unknown:
            raise ConfigError(f"penalize names unknown monitors {unknown}; known: {sorted(names)}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.monitors)

    def run(
        self,
        samples: Sequence[Sample],
        scores: Sequence[Score] | None = None,
        lengths: Sequence[int | None] | None = None,
    ) -> MonitorReport:
        """Per-sample flags and batch counts; changes nothing."""
        n = len(samples)
        for label, seq in (("scores", scores), ("lengths", lengths)):
            if seq is not None and len(seq) != n:
                raise ValueError(f"{len(seq)} {label} for {n} samples")
        rows = []
        for i, sample in enumerate(samples):
            score = None if scores is None else scores[i]
            length = None if lengths is None else lengths[i]
            found = (m.check(sample, score, length) for m in self.monitors)
            rows.append({f.monitor: f for f in found if f is not None})
        return MonitorReport(self.names, tuple(rows))

    def apply(
        self,
        samples: Sequence[Sample],
        scores: Sequence[Score],
        lengths: Sequence[int | None] | None = None,
    ) -> tuple[list[Score], MonitorReport]:
        """:meth:`run`, then the scores with the monitor columns added and the configured penalties applied.

        A flagged ``ok`` score of a monitor in ``penalize`` gets that reward (the lowest one when several
        apply) and ``info["monitor_penalty"]`` naming the monitors; failed scores keep their status.
        """
        report = self.run(samples, scores, lengths)
        return [self._shape(score, report, i) for i, score in enumerate(scores)], report

    def _shape(self, score: Score, report: MonitorReport, i: int) -> Score:
        metrics = {**score.metrics, **report.sample_metrics(i)}
        hits = [name for name in report.flags[i] if name in self.penalize]
        if not hits or not score.ok:
            return Score(score.value, score.status, metrics, score.info)
        info = {**score.info, "monitor_penalty": hits, "monitor_reasons": report.reasons(i)}
        return Score(min(self.penalize[h] for h in hits), score.status, metrics, info)

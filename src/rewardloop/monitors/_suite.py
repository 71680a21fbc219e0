"""The suite that runs monitors over a batch, and applies the configured penalties.

It lives apart from the contract (``_base``) so that the monitors import the contract and the suite imports
the monitors, and no module imports back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import ConfigError
from ..types import Sample, Score
from ._base import Monitor, MonitorReport
from ._monitors import default_monitors

__all__ = ["MonitorSuite"]


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

"""No-op scorers for measuring the runner's own per-sample cost (``runner_vs_verl.py``).

They live in an importable module (not the benchmark script) because process workers import a scorer
by its module path; the runner hands workers the parent's ``sys.path``, which contains ``bench/``.
"""

from __future__ import annotations

from rewardloop.scorers._base import Scorer
from rewardloop.types import Sample, Score


class NoopScorer(Scorer):
    """Returns 1.0 at once, in the event loop."""

    name = "bench_noop"
    execution = "inline"

    def score(self, sample: Sample) -> Score:
        return Score(1.0)


class NoopProcessScorer(NoopScorer):
    """Returns 1.0 at once, in a worker process: what one round trip to the pool costs."""

    name = "bench_noop_process"
    execution = "process"
    timeout_s = 10.0

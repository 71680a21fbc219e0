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


class BusyScorer(Scorer):
    """Burns a fixed amount of CPU in a worker (pure Python, no caches): the pool's own scaling."""

    name = "bench_busy"
    execution = "process"
    timeout_s = 60.0

    def __init__(self, iterations: int = 200_000) -> None:
        self.iterations = iterations

    def score(self, sample: Sample) -> Score:
        acc = 0
        for i in range(self.iterations):
            acc = (acc * 31 + i) % 1_000_003
        return Score(float(acc % 2))


class SleepyScorer(Scorer):
    """Process scorer: sleeps 600 s for responses starting with "hang", else 0.05 s (deadline: the argument)."""

    name = "bench_sleepy"
    execution = "process"

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s  # type: ignore[misc]

    def score(self, sample: Sample) -> Score:
        import time

        time.sleep(600 if sample.response.startswith("hang") else 0.05)
        return Score(1.0)

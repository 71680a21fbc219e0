"""Scorers of the executor behaviour suite (``test_behaviour.py``).

Each takes its execution mode as an argument, so one scorer runs inline, in a thread, in a worker process,
awaited, or inside a Ray actor. They live in a module (not the test file) so worker processes and Ray actors
can import them by path. State that must survive pickling (call counts) lives in files.
"""

from __future__ import annotations

import asyncio
import os
import time

from rewardloop.errors import InfraError
from rewardloop.scorers._base import Scorer
from rewardloop.types import Sample, Score

# the file helpers the Ray tasks already have: state that survives pickling lives in files
from ._ray_tasks import _append
from ._ray_tasks import read_lines as lines


class ModeScorer(Scorer):
    """Base: the execution mode and deadline are constructor arguments."""

    timeout_s = 30.0

    def __init__(self, execution: str = "inline", timeout_s: float | None = None) -> None:
        self.execution = execution  # type: ignore[misc]
        if timeout_s is not None:
            self.timeout_s = timeout_s  # type: ignore[misc]


class ValueScorer(ModeScorer):
    """Returns ``metadata["value"]`` as a bare number (coerced), or as a ``Score`` with ``as_score``."""

    name = "behaviour_value"

    def __init__(self, execution: str = "inline", *, as_score: bool = False, log: str | None = None) -> None:
        super().__init__(execution)
        self.as_score = as_score
        self.log = log

    def score(self, sample: Sample) -> Score:
        if self.log:
            _append(self.log, sample.response)
        value = float(sample.metadata["value"])
        return Score(value) if self.as_score else value  # type: ignore[return-value]


class AsyncValueScorer(ValueScorer):
    """``ValueScorer`` as a coroutine (the runner awaits it)."""

    name = "behaviour_async_value"
    is_async = True

    async def ascore(self, sample: Sample) -> Score:
        await asyncio.sleep(0)
        return self.score(sample)


class BatchValueScorer(ValueScorer):
    """``ValueScorer`` through ``score_batch``."""

    name = "behaviour_batch_value"
    supports_batch = True

    def score_batch(self, samples: list[Sample]) -> list[Score]:
        return [self.score(s) for s in samples]


class SleepScorer(ModeScorer):
    """Sleeps ``float(response)`` seconds, then scores 1.0."""

    name = "behaviour_sleep"

    def score(self, sample: Sample) -> Score:
        time.sleep(float(sample.response))
        return Score(1.0)


class CrashScorer(ModeScorer):
    """``os._exit`` on the response "crash", else 1.0."""

    name = "behaviour_crash"

    def score(self, sample: Sample) -> Score:
        if sample.response == "crash":
            os._exit(3)
        return Score(1.0)


class FlakyScorer(ModeScorer):
    """Raises InfraError until the file ``path`` holds ``failures`` lines for this response, then 1.0."""

    name = "behaviour_flaky"

    def __init__(self, execution: str, path: str, failures: int) -> None:
        super().__init__(execution)
        self.path = str(path)
        self.failures = failures

    def score(self, sample: Sample) -> Score:
        seen = sum(1 for line in lines(self.path) if line == sample.response)
        if seen < self.failures:
            _append(self.path, sample.response)
            raise InfraError(f"server down (call {seen + 1})")
        return Score(1.0, info={"calls": seen + 1})


class FailScorer(ModeScorer):
    """A scorer bug for every sample (status ``scorer_error``)."""

    name = "behaviour_fail"

    def score(self, sample: Sample) -> Score:
        raise RuntimeError(f"bug on {sample.response}")


class QuickOnlyShortScorer(ModeScorer):
    """``quick()`` refuses (raises on) huge responses: it must never be asked about them (the runner's guard
    keeps quick() off responses over 200k characters, which go straight to score())."""

    name = "behaviour_quick_guard"

    def quick(self, sample: Sample) -> Score | None:
        if len(sample.response) > 200_000:
            raise RuntimeError("quick() was called on a huge response")
        return None

    def score(self, sample: Sample) -> Score:
        return Score(float(len(sample.response)))


def center(values: list[float]) -> list[float]:
    mean = sum(values) / len(values)
    return [v - mean for v in values]


class NodeScorer(Scorer):
    """Inline: 1.0, with the Ray node it ran on in ``info["node"]`` (None outside Ray)."""

    name = "behaviour_node"

    def score(self, sample: Sample) -> Score:
        try:
            import ray

            node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else None
        except ImportError:
            node = None
        return Score(1.0, info={"node": node})


class QuickValueScorer(ValueScorer):
    """``ValueScorer`` whose ``quick()`` settles a sample with ``metadata["quick"]`` (that value) and leaves the
    rest to ``score()``."""

    name = "behaviour_quick_value"

    def quick(self, sample: Sample) -> Score | None:
        if "quick" in sample.metadata:
            return Score(float(sample.metadata["quick"]), metrics={"by_quick": 1.0})
        return None

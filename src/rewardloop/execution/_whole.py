"""Scorers that must see more than one sample at a time, dispatched above the executor.

A group scorer needs every member of a group (same ``uid``) in one call; a composite runs each component over
its whole share of the batch. Both runners (the local :class:`~rewardloop.execution.Runner` and the Ray one) hand
such scorers their share here, before any sample reaches an executor, so the rest of the batch is scheduled as
usual and the result is merged in input order. What differs per runner is only where a group is scored:
``runner.run_groups(scorer, samples, on_done=...)`` (the local runner: one call per group on one slot; Ray: each
group on one actor, chosen by its uid) and ``runner.submit_group(scorer, sample)`` for streamed members.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from ..errors import ScoringError
from ..scorers import GroupScorer, Scorer
from ..types import Sample, Score, ScoreBatch
from ._cache import scorer_identity
from ._config import RunnerConfig
from ._report import Done, report

__all__ = ["run_whole", "submit_whole", "wants_whole_batch"]

OnDone = Callable[[int], None] | None
_WholeCall = Callable[[list[Sample], OnDone], Awaitable[ScoreBatch]]


class WholeRunner(Protocol):
    """What this module needs of a runner (:class:`~rewardloop.execution.Runner`)."""

    @property
    def config(self) -> RunnerConfig: ...

    async def run(self, scorer: Any, samples: Iterable[Sample], *, on_done: OnDone = None) -> ScoreBatch: ...

    async def run_groups(
        self, scorer: GroupScorer, samples: Sequence[Sample], *, on_done: OnDone = None
    ) -> ScoreBatch: ...

    async def submit_group(self, scorer: GroupScorer, sample: Sample) -> Score: ...


def wants_whole_batch(scorer: Scorer) -> bool:
    """Whether ``scorer`` must get its whole share of a batch in one call (group scorers, composites)."""
    return isinstance(scorer, GroupScorer) or getattr(scorer, "run_with_runner", None) is not None


def _whole_call(runner: WholeRunner, scorer: Scorer) -> _WholeCall:
    if isinstance(scorer, GroupScorer):
        return lambda samples, on_done: runner.run_groups(scorer, samples, on_done=on_done)
    hook = scorer.run_with_runner  # type: ignore[attr-defined]
    return lambda samples, on_done: hook(runner, samples, on_done=on_done)


async def submit_whole(runner: WholeRunner, scorer: Scorer, sample: Sample) -> Score | None:
    """Stream one sample of a group scorer (it waits for its group) or of a composite (each component
    submitted); None for any other scorer."""
    if isinstance(scorer, GroupScorer):
        return await runner.submit_group(scorer, sample)
    hook = getattr(scorer, "submit_with_runner", None)
    if hook is None:
        return None
    score = await hook(runner, sample)
    if not isinstance(score, Score):
        raise TypeError(
            f"{type(scorer).__name__}.submit_with_runner returned {type(score).__name__}, not a Score"
        )
    return score


async def run_whole(
    runner: WholeRunner, scorers: Sequence[Scorer], samples: list[Sample], on_done: OnDone
) -> ScoreBatch | None:
    """The batch, when some of its scorers want whole shares (else None): each such scorer gets all of its
    samples in one call, the rest runs through ``runner.run``; results merged in input order."""
    shares: dict[str | None, list[int]] = {}
    whole: dict[str, Scorer] = {}
    known: dict[int, str | None] = {}  # id -> identity, computed once per instance
    for i, sc in enumerate(scorers):
        if id(sc) not in known:
            known[id(sc)] = scorer_identity(sc) if wants_whole_batch(sc) else None
        key = known[id(sc)]
        if key is not None:
            whole.setdefault(key, sc)  # equal instances are one scorer: their samples form one share
        shares.setdefault(key, []).append(i)
    if not whole:
        return None
    if len(shares) == 1:
        return await _whole_call(runner, scorers[0])(samples, on_done)

    async def share(key: str | None, idxs: list[int]) -> tuple[list[int], ScoreBatch]:
        part = [samples[i] for i in idxs]
        done = None if on_done is None else (lambda j: on_done(idxs[j]))
        try:
            if key is None:
                return idxs, await runner.run([scorers[i] for i in idxs], part, on_done=done)
            return idxs, await _whole_call(runner, whole[key])(part, done)
        except ScoringError as exc:  # on_error="raise": merge first, raise for the whole batch below
            if getattr(exc, "batch", None) is None:
                raise
            return idxs, exc.batch  # type: ignore[attr-defined]

    t0 = time.perf_counter()
    parts = await asyncio.gather(*(share(k, v) for k, v in shares.items()))
    rows: list[Any] = [None] * len(samples)
    for idxs, batch in parts:
        for j, i in enumerate(idxs):
            rows[i] = Done(
                _in_batch(batch[j], idxs),
                batch.queue_s[j] if batch.queue_s else 0.0,
                batch.exec_s[j] if batch.exec_s else 0.0,
            )
    return report(
        rows,
        samples,
        t0=t0,
        unique=sum(int(b.stats.get("unique", len(b))) for _, b in parts),
        retries=sum(int(b.stats.get("retries", 0) or 0) for _, b in parts),
        on_error=runner.config.on_error,
    )


def _in_batch(score: Score, idxs: list[int]) -> Score:
    """A share's score with ``info["dedup_of"]`` (a position in the share) made a position in the whole batch."""
    lead = score.info.get("dedup_of")
    if not isinstance(lead, int) or isinstance(lead, bool) or not 0 <= lead < len(idxs):
        return score
    return Score(score.value, score.status, score.metrics, {**score.info, "dedup_of": idxs[lead]})

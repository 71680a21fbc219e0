"""One :meth:`Runner.run` call as the scheduler sees it, whatever the executor: ``quick()`` verdicts settled
first, identical samples once (de-duplication keys, the result cache), and the bookkeeping of what finished
(copies fanned out, the cache filled, slow samples logged, results in input order). The executor gets the
leaders still to score (:attr:`Batch.todo`) and hands each result back through :meth:`Batch.complete`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Protocol

from ..scorers import GroupScorer
from ..types import Sample, Score, ScoreBatch
from ._attempt import Context, Plan, run_quick, wants_quick
from ._cache import sample_key
from ._report import Done, copy_score, finish_with_copies, report

__all__ = ["Batch", "Executor"]


class Executor(Protocol):
    """Where a scheduler's (:class:`~rewardloop.execution.Runner`'s) work is scored: in-process and local worker
    processes (:class:`~._local.LocalExecutor`) or Ray actors (:class:`~._ray.RayExecutor`)."""

    def driver_quick(self, plan: Plan) -> bool: ...

    async def execute(self, batch: Batch) -> None: ...

    async def submit(self, plan: Plan, sample: Sample, ctx: Context) -> Done: ...

    async def run_groups(
        self, runner: Any, scorer: GroupScorer, samples: list[Sample], on_done: Callable[[int], None] | None
    ) -> ScoreBatch: ...

    async def submit_group(self, runner: Any, scorer: GroupScorer, sample: Sample) -> Score: ...

    def refuse_gathering(self, reason: str) -> None: ...

    def pool_stats(self) -> Any: ...

    def after_fork(self) -> None: ...

    def close(self) -> None: ...


class Batch:
    """The samples of one batch, their plans, what is left to score and what finished."""

    def __init__(
        self,
        runner: Any,
        samples: list[Sample],
        plans: list[Plan],
        ctx: Context,
        on_done: Callable[[int], None] | None,
    ) -> None:
        self.runner = runner
        self.samples = samples
        self.plans = plans
        self.ctx = ctx
        self.on_done = on_done
        self.done: list[Done | None] = [None] * len(samples)
        self.keys: list[str | None] = [None] * len(samples)
        self.followers: dict[int, list[int]] = {}
        self.unique = 0
        self.cache_hits = 0
        self.extra: dict[str, Any] = {}  # executor-specific stats (Ray: actors, chunks, resubmitted)
        self._leaders: dict[str, int] = {}  # de-duplication key -> the first sample with it
        self._undecided: dict[int, Plan] = {}  # id(plan) -> the plan without quick(), for undecided samples

    def prepare(self, driver_quick: Callable[[Plan], bool]) -> list[int]:
        """Settle ``quick()`` verdicts and cache hits, de-duplicate; the leaders left to score, in order.

        ``driver_quick(plan)``: whether the scheduler runs that plan's ``quick()`` here, in one pass, before
        anything is keyed (the executor does it otherwise, with its first attempt)."""
        return self.prepare_part(range(len(self.samples)), driver_quick)

    def prepare_part(self, idxs: range, driver_quick: Callable[[Plan], bool]) -> list[int]:
        """:meth:`prepare` for the next positions ``idxs`` only (consecutive, in order, each prepared once), so an
        executor can start on the first leaders while the rest are prepared. Same results as one
        :meth:`prepare` of the whole batch: a sample identical to a leader of an earlier part follows that
        leader (a copy at once when it already finished). Not with a result cache: a leader finished meanwhile
        would be a cache hit here but scored in one pass, so a cached runner prepares in one part."""
        settled = self._quick_pass(idxs, driver_quick)
        plans, samples = self.plans, self.samples
        dedup, cached = self.runner.config.dedup, self.runner.cache.get
        todo: list[int] = []
        hits: list[tuple[int, Score]] = []
        for i in idxs:
            if i in settled:  # a verdict of its own: unique, never keyed
                self.unique += 1
                continue
            plan = plans[i]
            key = self.keys[i] = (
                sample_key(plan.fingerprint, samples[i]) if plan.fingerprint is not None else None
            )
            if key is not None and dedup:
                lead = self._leaders.get(key)
                if lead is not None:
                    self._follow(lead, i)
                    continue
                self._leaders[key] = i
            self.unique += 1
            hit = cached(key)
            if hit is not None:
                self.cache_hits += 1
                hits.append((i, hit))
            else:
                todo.append(i)
        for i, score in hits:  # after the part's copies are known
            self.finish(i, Done(score, 0.0, 0.0))
        return todo

    def complete(self, i: int, done: Done) -> None:
        """Leader ``i`` was scored: cache it, log it when slow, fan it out to its copies."""
        plan, sample = self.plans[i], self.samples[i]
        self.runner.cache.put(self.keys[i], done.score, plan.scorer)
        self.runner.log_if_slow(sample, i, done.exec_s, done.score)
        self.finish(i, done)

    def finish(self, i: int, done: Done) -> None:
        finish_with_copies(self.done, self.followers, i, done, self.on_done)

    def report(self, on_error: Any) -> ScoreBatch:
        assert all(d is not None for d in self.done)
        ctx = self.ctx
        return report(
            self.done,  # type: ignore[arg-type]
            self.samples,
            t0=ctx.t0,
            latencies=ctx.executed_latency,
            exec_times=ctx.executed_exec,
            unique=self.unique,
            cache_hits=self.cache_hits,
            retries=ctx.retries,
            on_error=on_error,
            extra=self.extra,
        )

    def _quick_pass(self, idxs: range, driver_quick: Callable[[Plan], bool]) -> set[int]:
        """Settle, before anything else, the samples whose ``quick()`` decides them: one loop over cheap,
        bounded checks instead of a content key and a task per sample (which cost more than the check).
        Undecided samples keep their place and are scored without asking ``quick()`` again. Not with a result
        cache, which wants every verdict keyed."""
        settled: set[int] = set()
        if self.runner.cache.enabled:
            return settled
        plans, samples = self.plans, self.samples
        for i in idxs:
            plan, sample = plans[i], samples[i]
            if not wants_quick(plan, sample) or not driver_quick(plan):
                continue
            verdict, spent = run_quick(plan.scorer, sample)
            if verdict is None:
                plans[i] = self._undecided.setdefault(id(plan), dataclasses.replace(plan, quick=False))
                continue
            self.complete(i, self.ctx.done(verdict, spent))
            settled.add(i)
        return settled

    def _follow(self, lead: int, i: int) -> None:
        """Sample ``i`` is identical to leader ``lead``: its copy, now or when the leader finishes."""
        done = self.done[lead]
        if done is None:
            self.followers.setdefault(lead, []).append(i)
            return
        self.done[i] = Done(copy_score(done.score, dedup_of=lead), done.queue_s, done.exec_s)
        if self.on_done is not None:
            self.on_done(i)

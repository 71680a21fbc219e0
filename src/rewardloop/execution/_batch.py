"""One :meth:`Runner.run` call as the scheduler sees it, whatever the executor: ``quick()`` verdicts settled
first, identical samples once (de-duplication keys, the result cache), and the bookkeeping of what finished
(copies fanned out, the cache filled, slow samples logged, results in input order). The executor gets the
leaders still to score (:attr:`Batch.todo`) and hands each result back through :meth:`Batch.complete`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..types import Sample, ScoreBatch
from ._attempt import Context, Plan, run_quick, wants_quick
from ._cache import sample_key
from ._report import Done, finish_with_copies, group_duplicates, report

__all__ = ["Batch"]


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

    def prepare(self, driver_quick: Callable[[Plan], bool]) -> list[int]:
        """Settle ``quick()`` verdicts and cache hits, de-duplicate; the leaders left to score, in order.

        ``driver_quick(plan)``: whether the scheduler runs that plan's ``quick()`` here, in one pass, before
        anything is keyed (the executor does it otherwise, with its first attempt)."""
        settled = self._quick_pass(driver_quick)
        todo, hits = self._deduplicate(settled)
        for i, score in hits:
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

    def _quick_pass(self, driver_quick: Callable[[Plan], bool]) -> set[int]:
        """Settle, before anything else, the samples whose ``quick()`` decides them: one loop over cheap,
        bounded checks instead of a content key and a task per sample (which cost more than the check).
        Undecided samples keep their place and are scored without asking ``quick()`` again. Not with a result
        cache, which wants every verdict keyed."""
        settled: set[int] = set()
        if self.runner.cache.enabled:
            return settled
        undecided: dict[int, Plan] = {}
        for i, (plan, sample) in enumerate(zip(self.plans, self.samples, strict=True)):
            if not wants_quick(plan, sample) or not driver_quick(plan):
                continue
            verdict, spent = run_quick(plan.scorer, sample)
            if verdict is None:
                self.plans[i] = undecided.setdefault(id(plan), dataclasses.replace(plan, quick=False))
                continue
            self.complete(i, self.ctx.done(verdict, spent))
            settled.add(i)
        return settled

    def _deduplicate(self, settled: set[int]) -> tuple[list[int], list[tuple[int, Any]]]:
        self.keys = [
            sample_key(plan.fingerprint, sample)
            if plan.fingerprint is not None and i not in settled
            else None
            for i, (plan, sample) in enumerate(zip(self.plans, self.samples, strict=True))
        ]
        groups = group_duplicates(self.keys, self.runner.config.dedup, self.runner.cache.get)
        self.followers, self.unique, self.cache_hits = groups.followers, groups.unique, groups.cache_hits
        todo = [i for i in groups.todo if i not in settled] if settled else groups.todo
        return todo, groups.hits  # hits are finished after this, once all their copies are known

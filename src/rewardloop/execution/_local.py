"""The local executor: attempts in the event loop, in threads or in the runner's worker pool, and the batch
scheduler over them.

:class:`Attempts` makes one sample's (or one chunk's, or one group's) attempts: under a concurrency slot and the
rate limiter, in the plan's mode (inline / thread / process / async) with its deadline, retried on
infrastructure errors with backoff within the budget. :class:`LocalBatch` schedules one batch over it: quick
verdicts first, identical samples once, work that leaves the event loop started before inline work, chunks for
batch scorers.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import InfraError, RateLimited, ScoringError, ScoringTimeout
from ..types import Sample, Score, Status
from ._attempt import (
    QUICK_MAX_CHARS,
    Context,
    Plan,
    Retry,
    Timed,
    attempt_inline,
    await_with_deadline,
    batch_scores,
    callable_name,
    estimate_tokens,
    ran_for,
    reported_tokens,
    run_quick,
    safe_score,
    set_exec_s,
    wants_quick,
    with_retry_info,
)
from ._cache import sample_key
from ._config import RunnerConfig
from ._limits import Limiter, RateLimiter, Slots
from ._report import Done, finish_with_copies, group_duplicates
from ._single import failure_score

__all__ = ["Attempts", "LocalBatch"]

_log = logging.getLogger(__name__)

_HANDOFF_S = 0.002  # see LocalBatch._handoff_s
_HANDOFF_HUGE_S = 0.02


class Attempts:
    """Attempts at scoring under one runner's limits: ``max_concurrency`` slots, ``threads`` thread slots, the
    rate limiter, the retry policy; process work goes to the pool ``get_pool()`` returns (built on first use).
    Shared by every batch and streamed sample of the runner."""

    def __init__(self, config: RunnerConfig, limiter: Limiter, get_pool: Callable[[], Any]) -> None:
        self.config = config
        self.limiter = limiter
        self.slots = Slots(config.max_concurrency)
        self._thread_slots = Slots(config.threads)
        self._rng = random.Random()
        self._get_pool = get_pool

    async def score(self, plan: Plan, sample: Sample, ctx: Context, start: Retry | None = None) -> Done:
        """Quick check, then attempts with retries. Never raises for a per-sample failure.

        ``start``: the outcome of :meth:`_first_try` when the caller already made the first attempt.
        """
        if start is None:
            first = await self.first_try(plan, sample, ctx)
            if isinstance(first, Done):
                return first
            start = first
        scores, exec_s, delay, exhausted = start
        retries = 0
        while delay is not None:
            retries += 1
            await self.limiter.sleep(delay)
            scores, spent, error = await self.attempt(plan, [sample], batch=False)
            exec_s += spent
            delay, exhausted = self.retry_delay(scores[0], error, retries, ctx)
        return self.done(with_retry_info(scores[0], retries, exhausted), ctx, exec_s)

    async def first_try(self, plan: Plan, sample: Sample, ctx: Context) -> Done | Retry:
        """The quick check and the first attempt: the final result, or what a retry needs to go on."""
        exec_s = 0.0
        if wants_quick(plan, sample):
            verdict, exec_s = run_quick(plan.scorer, sample)
            if verdict is not None:
                return self.done(verdict, ctx, exec_s)
        if plan.mode == "inline" and self.limiter_idle():
            scores, spent, error = attempt_inline(plan.scorer, sample)
        else:
            scores, spent, error = await self.attempt(plan, [sample], batch=False)
        exec_s += spent
        delay, exhausted = self.retry_delay(scores[0], error, 0, ctx)
        if delay is None:
            return self.done(with_retry_info(scores[0], 0, exhausted), ctx, exec_s)
        return scores, exec_s, delay, exhausted

    def limiter_idle(self) -> bool:
        """No rate limit and no pause: an inline attempt has nothing to wait for or to settle."""
        limiter = self.limiter
        return isinstance(limiter, RateLimiter) and limiter.idle()

    async def score_chunk(self, plan: Plan, samples: list[Sample], ctx: Context) -> list[Done]:
        """A batch scorer's chunk: quick checks, then ``score_batch`` on the rest. Samples that end with
        ``infra_error`` are retried together (one retry of the budget per chunk retry)."""
        out: list[Done | None] = [None] * len(samples)
        pending: list[int] = []
        for i, sample in enumerate(samples):
            verdict, spent = run_quick(plan.scorer, sample) if wants_quick(plan, sample) else (None, 0.0)
            if verdict is None:
                pending.append(i)
            else:
                out[i] = self.done(verdict, ctx, spent)
        final: dict[int, Score] = {}
        retried: dict[int, int] = {}
        exec_s, retries, exhausted = 0.0, 0, False
        while pending:
            scores, spent, error = await self.attempt(plan, [samples[i] for i in pending], batch=True)
            exec_s += spent
            final.update(zip(pending, scores, strict=True))
            failed = [(i, s) for i, s in zip(pending, scores, strict=True) if s.status is Status.INFRA_ERROR]
            if not failed:
                break
            delay, exhausted = self.retry_delay(failed[0][1], error, retries, ctx)
            if delay is None:
                break
            retries += 1
            pending = [i for i, _ in failed]
            for i in pending:
                retried[i] = retried.get(i, 0) + 1
            await self.limiter.sleep(delay)
        for i, score in final.items():
            last_failed = exhausted and score.status is Status.INFRA_ERROR
            out[i] = self.done(with_retry_info(score, retried.get(i, 0), last_failed), ctx, exec_s)
        return out  # type: ignore[return-value]

    def done(self, score: Score, ctx: Context, exec_s: float) -> Done:
        latency = time.perf_counter() - ctx.t0
        ctx.executed_latency.append(latency)
        ctx.executed_exec.append(exec_s)
        return Done(score, max(0.0, latency - exec_s), exec_s)

    async def attempt(
        self, plan: Plan, samples: list[Sample], *, batch: bool
    ) -> tuple[list[Score], float, BaseException | None]:
        """One attempt under a slot and the rate limiter: (one score per sample, seconds, error)."""
        counts_tokens = getattr(self.limiter, "counts_tokens", True)
        estimate = sum(estimate_tokens(plan.scorer, s) for s in samples) if counts_tokens else 1.0
        async with self.slots:
            await self.limiter.acquire(estimate)
            start = time.perf_counter()
            try:
                result, spent = await self.execute(plan, samples if batch else samples[0], batch)
                scores = (
                    batch_scores(plan.scorer, result, len(samples))
                    if batch
                    else [safe_score(plan.scorer, result)]
                )
                error = None
            except Exception as exc:
                spent, error = ran_for(exc, start), exc
                scores = [failure_score(exc) for _ in samples]
            actual = [reported_tokens(s) for s in scores]
            if counts_tokens and any(a is not None for a in actual):
                self.limiter.settle(estimate, sum(a if a is not None else 0.0 for a in actual))
        return scores, spent, error

    async def execute(self, plan: Plan, payload: Any, batch: bool) -> tuple[Any, float]:
        """Run the scorer once as its plan says; returns (raw result, seconds executing)."""
        scorer = plan.scorer
        deadline = plan.deadline
        if batch and deadline is not None:
            deadline *= len(payload)
        fn = scorer.score_batch if batch else scorer.score
        if plan.mode == "process":
            return await self._get_pool().acall(Timed(fn), payload, timeout=deadline)
        if plan.mode == "thread":
            return await self.in_thread(fn, payload, deadline)
        start = time.perf_counter()
        if plan.mode == "async":
            result = await await_with_deadline(scorer.ascore(payload), deadline, scorer)  # type: ignore[attr-defined]
        else:
            result = fn(payload)
        return result, time.perf_counter() - start

    async def in_thread(
        self, fn: Callable[[Any], Any], arg: Any, deadline: float | None
    ) -> tuple[Any, float]:
        """Run ``fn(arg)`` in a fresh daemon thread; the deadline counts from the thread's start.

        A thread per call (not a fixed executor) so that threads abandoned at their deadline can never
        starve later samples; ``threads`` bounds how many run at once.
        """
        async with self._thread_slots:
            loop = asyncio.get_running_loop()
            outcome: asyncio.Future = loop.create_future()

            def work() -> None:
                began = time.perf_counter()
                try:
                    value: Any = (True, (fn(arg), time.perf_counter() - began))
                except BaseException as exc:
                    set_exec_s(exc, time.perf_counter() - began)
                    value = (False, exc)
                with contextlib.suppress(RuntimeError):  # the loop is gone; nobody waits any more
                    loop.call_soon_threadsafe(_settle, outcome, value)

            start = time.perf_counter()  # after the thread slot: waiting for one is queue time
            threading.Thread(target=work, name="rewardloop-score", daemon=True).start()
            try:
                ok, value = await (outcome if deadline is None else asyncio.wait_for(outcome, deadline))
            except asyncio.TimeoutError:
                err = ScoringTimeout(
                    f"{callable_name(fn)} ran past its {deadline:g} s deadline in a thread; the thread cannot be "
                    "stopped and may still be running (use execution='process' for work that can hang)"
                )
                set_exec_s(err, time.perf_counter() - start)
                raise err from None
        if ok:
            return value
        if isinstance(value, Exception):
            raise value
        err = ScoringError(f"{callable_name(fn)} raised {type(value).__name__}: {value!r}")
        set_exec_s(err, getattr(value, "exec_s", 0.0))
        raise err

    def retry_delay(
        self, score: Score, error: BaseException | None, retries: int, ctx: Context
    ) -> tuple[float | None, bool]:
        """Seconds to wait before retrying, or None (no retry); and whether the budget ran out."""
        infra = isinstance(error, InfraError) or (error is None and score.status is Status.INFRA_ERROR)
        if not infra or retries >= self.config.retries:
            return None, False
        if not ctx.budget.take():
            return None, True
        ctx.retries += 1
        retry_after = error.retry_after if isinstance(error, RateLimited) else score.info.get("retry_after")
        if isinstance(retry_after, int | float) and not isinstance(retry_after, bool):
            self.limiter.pause(float(retry_after))  # every request of this limiter waits, not just ours
            return 0.0, False
        cap = min(self.config.backoff_max_s, self.config.backoff_base_s * 2**retries)
        return self._rng.uniform(0.0, cap), False

    # -- caching and streaming -----------------------------------------------------------------------


class LocalBatch:
    """One :meth:`Runner.run` call: quick verdicts, de-duplication, scheduling on the local executor (the event
    loop, threads, the worker pool), fan-out to copies, in input order."""

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

    async def execute(self) -> None:
        settled = self._quick_pass()
        todo, hits = self._deduplicate(settled)
        for i, score in hits:
            self._finish(i, Done(score, 0.0, 0.0))
        # Work that leaves the event loop (process, thread, async) is started first: inline scoring holds
        # the loop (and the GIL, which the pool's dispatcher thread needs to send tasks), and it should
        # overlap the workers' time, not delay their start (and so the whole batch).
        singles = [i for i in todo if not self.plans[i].batch]
        inline = [i for i in singles if self.plans[i].mode == "inline"]
        outside = [asyncio.ensure_future(self._one(i)) for i in singles if self.plans[i].mode != "inline"]
        try:
            if outside and inline:
                await asyncio.sleep(self._handoff_s([i for i in singles if self.plans[i].mode != "inline"]))
            # inline samples hold the loop anyway: one coroutine scores them in turn (a task per sample
            # costs more than a cheap scorer itself)
            # inline samples hold the loop anyway: one coroutine makes their first attempts in turn (a task
            # per sample costs more than a cheap scorer); a sample that needs a retry continues in its own
            # task, so backoffs still overlap
            jobs: list[Any] = [*outside, *([self._inline(inline)] if inline else [])]
            jobs += [self._chunk(idxs) for idxs in self._chunks([i for i in todo if self.plans[i].batch])]
            if jobs:
                await asyncio.gather(*jobs)
        except BaseException:
            for task in outside:
                task.cancel()
            raise

    def _handoff_s(self, outside: list[int]) -> float:
        """How long the loop idles after starting out-of-loop work, so the dispatcher thread can take
        the GIL and send it before inline scoring holds the GIL: 2 ms, 20 ms with a huge response to send."""
        huge = any(
            isinstance(r := self.samples[i].response, str) and len(r) > QUICK_MAX_CHARS for i in outside
        )
        return _HANDOFF_HUGE_S if huge else _HANDOFF_S

    def results(self) -> list[Done]:
        assert all(d is not None for d in self.done)
        return self.done  # type: ignore[return-value]

    def _quick_pass(self) -> set[int]:
        """Settle, before anything else, the samples whose ``quick()`` decides them, for scorers that would
        otherwise run outside the event loop: one loop over cheap, bounded checks instead of a content key
        and a task per sample (which cost more than the check). Undecided samples keep their place and go
        to their worker without asking ``quick()`` again. Not with a result cache, which wants every verdict
        keyed."""
        settled: set[int] = set()
        if self.runner.cache.enabled:
            return settled
        undecided: dict[int, Plan] = {}
        for i, (plan, sample) in enumerate(zip(self.plans, self.samples, strict=True)):
            if plan.mode in ("inline", "async") or plan.batch or not wants_quick(plan, sample):
                continue
            verdict, spent = run_quick(plan.scorer, sample)
            if verdict is None:
                self.plans[i] = undecided.setdefault(id(plan), dataclasses.replace(plan, quick=False))
                continue
            self._complete(i, self.runner.attempts.done(verdict, self.ctx, spent))
            settled.add(i)
        return settled

    def _deduplicate(self, settled: set[int]) -> tuple[list[int], list[tuple[int, Score]]]:
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

    def _chunks(self, idxs: list[int]) -> list[list[int]]:
        size = self.runner.config.batch_size
        by_scorer: dict[int, list[int]] = {}
        for i in idxs:
            by_scorer.setdefault(id(self.plans[i].scorer), []).append(i)
        return [group[k : k + size] for group in by_scorer.values() for k in range(0, len(group), size)]

    async def _inline(self, idxs: list[int]) -> None:
        retrying = []
        for i in idxs:
            first = await self.runner.attempts.first_try(self.plans[i], self.samples[i], self.ctx)
            if isinstance(first, Done):
                self._complete(i, first)
            else:
                retrying.append(self._one(i, first))
        if retrying:
            await asyncio.gather(*retrying)

    async def _one(self, i: int, start: Retry | None = None) -> None:
        done = await self.runner.attempts.score(self.plans[i], self.samples[i], self.ctx, start)
        self._complete(i, done)

    def _complete(self, i: int, done: Done) -> None:
        plan, sample = self.plans[i], self.samples[i]
        self.runner.cache.put(self.keys[i], done.score, plan.scorer)
        self.runner.log_if_slow(sample, i, done.exec_s, done.score)
        self._finish(i, done)

    async def _chunk(self, idxs: list[int]) -> None:
        plan = self.plans[idxs[0]]
        results = await self.runner.attempts.score_chunk(plan, [self.samples[i] for i in idxs], self.ctx)
        limit = self.runner.config.slow_sample_s
        slowest = max((d.exec_s for d in results), default=0.0)
        if limit is not None and slowest > limit:
            _log.warning(
                "slow chunk of %d samples from #%d (task=%s): executed for %.2f s (slow_sample_s=%g)",
                len(idxs),
                idxs[0],
                self.samples[idxs[0]].task,
                slowest,
                limit,
            )
        for i, done in zip(idxs, results, strict=True):
            self.runner.cache.put(self.keys[i], done.score, plan.scorer)
            self._finish(i, done)

    def _finish(self, i: int, done: Done) -> None:
        finish_with_copies(self.done, self.followers, i, done, self.on_done)


# ----------------------------------------------------------------------------------------------------
# the private event loop of the sync facade


def _settle(future: asyncio.Future, value: Any) -> None:
    if not future.done():
        future.set_result(value)

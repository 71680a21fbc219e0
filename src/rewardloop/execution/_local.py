"""The local executor: attempts in the event loop, in threads or in the runner's worker pool, and the batch
scheduler over them.

:class:`Attempts` makes one sample's (or one chunk's, or one group's) attempts: under a concurrency slot and the
rate limiter, in the plan's mode (inline / thread / process / async) with its deadline, retried on
infrastructure errors with backoff within the budget. :class:`LocalExecutor` is the executor the scheduler
(:class:`~rewardloop.execution.Runner`) hands a batch's leaders to: work that leaves the event loop started before
inline work, chunks for batch scorers, groups one call each; it owns the worker pool and the group gatherer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import InfraError, RateLimited, ScoringError, ScoringTimeout
from ..scorers import GroupScorer
from ..types import Sample, Score, ScoreBatch, Status
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
    failure_score,
    ran_for,
    reported_tokens,
    run_quick,
    safe_score,
    set_exec_s,
    wants_quick,
    with_retry_info,
)
from ._batch import Batch
from ._config import RunnerConfig
from ._grouped import GroupGatherer, run_groups
from ._limits import Limiter, RateLimiter, Slots
from ._report import Done
from ._workers import PoolStats, WorkerPool

__all__ = ["Attempts", "LocalExecutor"]

_log = logging.getLogger(__name__)

_HANDOFF_S = 0.002  # see _handoff_s
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
        return ctx.done(with_retry_info(scores[0], retries, exhausted), exec_s)

    async def first_try(self, plan: Plan, sample: Sample, ctx: Context) -> Done | Retry:
        """The quick check and the first attempt: the final result, or what a retry needs to go on."""
        exec_s = 0.0
        if wants_quick(plan, sample):
            verdict, exec_s = run_quick(plan.scorer, sample)
            if verdict is not None:
                return ctx.done(verdict, exec_s)
        if plan.mode == "inline" and self.limiter_idle():
            scores, spent, error = attempt_inline(plan.scorer, sample)
        else:
            scores, spent, error = await self.attempt(plan, [sample], batch=False)
        exec_s += spent
        delay, exhausted = self.retry_delay(scores[0], error, 0, ctx)
        if delay is None:
            return ctx.done(with_retry_info(scores[0], 0, exhausted), exec_s)
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
                out[i] = ctx.done(verdict, spent)
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
            out[i] = ctx.done(with_retry_info(score, retried.get(i, 0), last_failed), exec_s)
        return out  # type: ignore[return-value]

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
            except (Exception, SystemExit) as exc:  # sys.exit() in an inline scorer: this sample's failure
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
            timed: tuple[Any, float] = await self._get_pool().acall(Timed(fn), payload, timeout=deadline)
            return timed
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
            outcome: asyncio.Future[tuple[bool, Any]] = loop.create_future()

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
                timeout = ScoringTimeout(
                    f"{callable_name(fn)} ran past its {deadline:g} s deadline in a thread; the thread cannot be "
                    "stopped and may still be running (use execution='process' for work that can hang)"
                )
                set_exec_s(timeout, time.perf_counter() - start)
                raise timeout from None
        if ok:
            result: tuple[Any, float] = value
            return result
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


class LocalExecutor:
    """The local executor: attempts in the event loop, in threads and in a worker pool (built on first use of a
    process scorer, or lent with ``pool=``, then not closed here), under one :class:`Attempts`; groups scored one
    call per group, streamed members gathered in this process."""

    def __init__(
        self, config: RunnerConfig, limiter: Limiter | None = None, pool: WorkerPool | None = None
    ) -> None:
        self.config = config
        self.limiter: Limiter = limiter if limiter is not None else RateLimiter(config.rpm, config.tpm)
        self.pool = pool
        self._owns_pool = pool is None
        self._lock = threading.Lock()
        self._closed = False
        self._owner_pid = os.getpid()
        self.attempts = Attempts(config, self.limiter, self._get_pool)
        self.gatherer = GroupGatherer()  # streamed members of group scorers wait here for their group

    def __repr__(self) -> str:
        return f"workers={self.config.workers} max_concurrency={self.config.max_concurrency}"

    @staticmethod
    def driver_quick(plan: Plan) -> bool:
        """``quick()`` in the scheduler's pass for work that leaves the loop; inline, async and batch scorers
        ask it with their first attempt."""
        return plan.mode not in ("inline", "async") and not plan.batch

    async def execute(self, batch: Batch) -> None:
        """Score ``batch`` (prepared in one pass: the leaders all start at once). Work that leaves the event
        loop (process, thread, async) is started first: inline scoring holds the loop (and the GIL, which the pool's dispatcher thread
        needs to send tasks), and it should overlap the workers' time, not delay their start."""
        todo = batch.prepare(self.driver_quick)
        plans = batch.plans
        singles = [i for i in todo if not plans[i].batch]
        inline = [i for i in singles if plans[i].mode == "inline"]
        away = [i for i in singles if plans[i].mode != "inline"]
        outside = [asyncio.ensure_future(self._one(batch, i)) for i in away]
        try:
            if outside and inline:
                await asyncio.sleep(_handoff_s(batch.samples, away))
            # inline samples hold the loop anyway: one coroutine makes their first attempts in turn (a task
            # per sample costs more than a cheap scorer); a sample that needs a retry continues in its own
            # task, so backoffs still overlap
            jobs: list[Any] = [*outside, *([self._inline(batch, inline)] if inline else [])]
            jobs += [
                self._chunk(batch, idxs) for idxs in self._chunks(batch, [i for i in todo if plans[i].batch])
            ]
            if jobs:
                await asyncio.gather(*jobs)
        except BaseException:
            for task in outside:
                task.cancel()
            raise

    async def submit(self, plan: Plan, sample: Sample, ctx: Context) -> Done:
        """One streamed sample (a batch scorer gets a chunk of one: it may implement only score_batch well)."""
        if plan.batch:
            (done,) = await self.attempts.score_chunk(plan, [sample], ctx)
            return done
        return await self.attempts.score(plan, sample, ctx)

    async def run_groups(
        self, runner: Any, scorer: GroupScorer, samples: list[Sample], on_done: Callable[[int], None] | None
    ) -> ScoreBatch:
        return await run_groups(runner, self.attempts, scorer, samples, on_done=on_done)

    async def submit_group(self, runner: Any, scorer: GroupScorer, sample: Sample) -> Score:
        return await self.gatherer.submit(runner, scorer, sample)

    def refuse_gathering(self, reason: str) -> None:
        self.gatherer.refuse(reason)

    def pool_stats(self) -> PoolStats | None:
        pool = self.pool
        return pool.stats() if pool is not None else None

    def after_fork(self) -> None:
        """In a forked child: the parent's workers, waiting members and locks are not ours; start afresh."""
        if os.getpid() == self._owner_pid:
            return
        self._owner_pid = os.getpid()
        self._lock = threading.Lock()
        self.gatherer = GroupGatherer()
        self.attempts = Attempts(self.config, self.limiter, self._get_pool)
        if self._owns_pool:
            self.pool = None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pool, self.pool = (self.pool, None) if self._owns_pool else (None, self.pool)
        if pool is not None and os.getpid() == self._owner_pid:
            pool.close()

    def _get_pool(self) -> WorkerPool:
        with self._lock:
            if self._closed:
                raise RuntimeError("this Runner is closed")
            if self.pool is None:
                cfg = self.config
                self.pool = WorkerPool(
                    size=cfg.workers,
                    max_tasks_per_worker=cfg.max_tasks_per_worker,
                    memory_limit_mb=cfg.memory_limit_mb,
                    recycle_memory_mb=cfg.worker_recycle_memory_mb,
                )
            return self.pool

    def _chunks(self, batch: Batch, idxs: list[int]) -> list[list[int]]:
        size = self.config.batch_size
        by_scorer: dict[int, list[int]] = {}
        for i in idxs:
            by_scorer.setdefault(id(batch.plans[i].scorer), []).append(i)
        return [group[k : k + size] for group in by_scorer.values() for k in range(0, len(group), size)]

    async def _inline(self, batch: Batch, idxs: list[int]) -> None:
        retrying = []
        for i in idxs:
            first = await self.attempts.first_try(batch.plans[i], batch.samples[i], batch.ctx)
            if isinstance(first, Done):
                batch.complete(i, first)
            else:
                retrying.append(self._one(batch, i, first))
        if retrying:
            await asyncio.gather(*retrying)

    async def _one(self, batch: Batch, i: int, start: Retry | None = None) -> None:
        batch.complete(i, await self.attempts.score(batch.plans[i], batch.samples[i], batch.ctx, start))

    async def _chunk(self, batch: Batch, idxs: list[int]) -> None:
        plan = batch.plans[idxs[0]]
        results = await self.attempts.score_chunk(plan, [batch.samples[i] for i in idxs], batch.ctx)
        limit = self.config.slow_sample_s
        slowest = max((d.exec_s for d in results), default=0.0)
        if limit is not None and slowest > limit:
            _log.warning(
                "slow chunk of %d samples from #%d (task=%s): executed for %.2f s (slow_sample_s=%g)",
                len(idxs),
                idxs[0],
                batch.samples[idxs[0]].task,
                slowest,
                limit,
            )
        for i, done in zip(idxs, results, strict=True):
            batch.runner.cache.put(batch.keys[i], done.score, plan.scorer)
            batch.finish(i, done)


def _handoff_s(samples: list[Sample], outside: list[int]) -> float:
    """How long the loop idles after starting out-of-loop work, so the dispatcher thread can take the GIL and
    send it before inline scoring holds the GIL: 2 ms, 20 ms with a huge response to send."""
    huge = any(isinstance(r := samples[i].response, str) and len(r) > QUICK_MAX_CHARS for i in outside)
    return _HANDOFF_HUGE_S if huge else _HANDOFF_S


# ----------------------------------------------------------------------------------------------------
# the private event loop of the sync facade


def _settle(future: asyncio.Future[tuple[bool, Any]], value: tuple[bool, Any]) -> None:
    if not future.done():
        future.set_result(value)

"""``Runner``: the one async path that turns (scorer, samples) into a :class:`~rewardloop.ScoreBatch`.

Everything that waits lives here (DESIGN §2): per-sample deadlines, the choice of inline / thread /
process / async execution, concurrency and rate limits, retries of infrastructure errors,
de-duplication and caching, the failure policy, and the batch report. Scorers stay pure.

How one batch runs (``await runner.run(scorer, samples)``):

1. Every sample gets a key (scorer class and options + task, response, ground truth, metadata,
   prompt; see :mod:`._cache`). Identical samples are scored once; the copies get their own
   :class:`Score` with ``info["dedup_of"] = <index of the one that was scored>``. With ``cache_size`` a
   bounded LRU cache spans batches (hits have ``info["cached"] = True``). Only ``ok``,
   ``invalid_input`` and ``parse_error`` results are cached; timeouts, crashes and infrastructure
   errors are not.
2. ``scorer.quick(sample)`` runs inline; a verdict is final.
3. Otherwise the sample takes one of ``max_concurrency`` slots and passes the rate limiter (requests and
   tokens per minute, and any ``Retry-After`` pause), then executes:

   * an async scorer (``is_async`` true, or an ``async def ascore`` without ``is_async``) is awaited
     under ``asyncio.wait_for``;
   * ``"inline"`` runs in the event loop (bounded work; no deadline applied);
   * ``"thread"`` runs in its own daemon thread; the deadline stops the *waiting* (status
     ``timeout``), the thread itself cannot be killed and is left to finish;
   * ``"process"`` runs in the runner's long-lived :class:`WorkerPool`, whose worker is killed at the
     deadline; crashes and the memory cap fail only that sample.

   Scorers with ``supports_batch`` get chunks of ``batch_size`` through ``score_batch`` under one
   deadline (``timeout * len(chunk)``); a failed chunk fails only its own samples.
4. An ``InfraError`` (or a returned ``infra_error`` score) is retried with exponential backoff and full
   jitter, up to ``retries`` per sample and ``retry_budget`` per batch; ``RateLimited.retry_after``
   pauses every request of the limiter. Other failures and wrong answers are never retried.
5. Results come back in input order, with per-sample ``queue_s`` / ``exec_s`` and ``stats``. With
   ``on_error="raise"`` a :class:`ScoringError` naming the first failed sample is raised once the whole
   batch is done (the batch is on the exception as ``.batch``).

Timing: ``exec_s`` is the time spent executing (summed over attempts; for process work it is measured
in the worker; for a failed process attempt, the time from submission to the failure). ``queue_s`` is
the rest of the sample's latency since the batch started: slots, rate limits, the pool's queue, backoff.

The interface a distributed backend (``RayRunner``) must keep: ``Runner(config=None, **overrides)``,
``config``, ``await run(scorer, samples, on_done=None) -> ScoreBatch``, ``run_sync(...)``,
``await submit(scorer, sample) -> Score``, ``close()`` / ``await aclose()``, and both context-manager
protocols. Two hooks let it reuse this class inside each actor: ``limiter=`` takes any
:class:`~rewardloop.execution._limits.Limiter` (e.g. one backed by a shared limiter actor, so limits stay
global), and ``pool=`` an existing :class:`WorkerPool` (not closed by the runner).
:func:`batch_stats` builds the ``stats`` mapping from merged columns.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..errors import ConfigError, InfraError, RateLimited, ScoringError, ScoringTimeout
from ..scorers._base import Scorer, as_scorer
from ..scorers._group import GroupScorer
from ..types import Sample, Score, ScoreBatch, Status
from ._attempt import (
    QUICK_MAX_CHARS,
    Budget,
    Context,
    Plan,
    Retry,
    StreamBudget,
    Timed,
    attempt_inline,
    await_with_deadline,
    batch_scores,
    callable_name,
    estimate_tokens,
    is_async_scorer,
    ran_for,
    reported_tokens,
    run_quick,
    safe_score,
    set_exec_s,
    wants_quick,
    with_retry_info,
)
from ._cache import sample_key, scorer_fingerprint
from ._config import EXECUTIONS, RunnerConfig
from ._grouped import GroupGatherer, run_groups
from ._limits import Limiter, RateLimiter, Slots
from ._report import (
    Done,
    Inflight,
    ResultCache,
    batch_stats,
    check_samples,
    failure_error,
    finish_batch,
    finish_with_copies,
    group_duplicates,
)
from ._single import failure_score
from ._sync import Closable, SyncBridge
from ._whole import run_whole, submit_whole
from ._workers import PoolStats, WorkerPool, _check_timeout

__all__ = ["Runner", "batch_stats"]

_log = logging.getLogger(__name__)

T = TypeVar("T")
ScorerLike = Scorer | str | Callable[[Sample], Any]

_STREAM_PLANS = 64  # scorers whose plan submit() remembers
_HANDOFF_S = 0.002  # see _Batch._handoff_s
_HANDOFF_HUGE_S = 0.02


class Runner(Closable):
    """Scores samples with hard deadlines, isolation, limits, retries, de-duplication and a failure policy.

    ``Runner(config=None, **overrides)``: ``config`` is a :class:`RunnerConfig` or a mapping (parsed by
    :meth:`RunnerConfig.from_dict`); keyword overrides are config fields. ``limiter`` replaces the
    runner's own :class:`RateLimiter` (built from ``rpm``/``tpm``); ``pool`` lends it a
    :class:`WorkerPool` it will not close. Otherwise the runner creates its worker pool on first use
    of a process scorer and keeps it until :meth:`close` (or the end of a ``with`` block).

    Safe to share: any number of threads and event loops may call it at once; ``max_concurrency``,
    the rate limits and the cache are shared by all of them.
    """

    def __init__(
        self,
        config: RunnerConfig | Mapping[str, Any] | None = None,
        *,
        limiter: Limiter | None = None,
        pool: WorkerPool | None = None,
        **overrides: Any,
    ) -> None:
        if config is None or isinstance(config, Mapping):
            config = RunnerConfig.from_dict({**dict(config or {}), **overrides})
        elif not isinstance(config, RunnerConfig):
            raise ConfigError(
                f"config must be a RunnerConfig, a mapping or None, got {type(config).__name__}"
            )
        elif overrides:
            config = config.replace(**overrides)
        self.config: RunnerConfig = config
        self._limiter: Limiter = limiter if limiter is not None else RateLimiter(config.rpm, config.tpm)
        self._slots = Slots(config.max_concurrency)
        self._thread_slots = Slots(config.threads)
        self._cache = ResultCache(config.cache_size)
        self._stream_budget = StreamBudget(config.retry_budget)
        self._rng = random.Random()
        self._lock = threading.Lock()
        self._pool = pool
        self._owns_pool = pool is None
        self._bridge = SyncBridge("Runner")
        self._inflight = Inflight()
        self._plans: OrderedDict[int, tuple[Scorer, Plan]] = OrderedDict()
        self._gatherer = GroupGatherer()  # streamed members of group scorers wait here for their group
        self._closed = False
        self._owner_pid = os.getpid()

    # -- public API ----------------------------------------------------------------------------------

    async def run(
        self,
        scorer: ScorerLike | Sequence[Scorer],
        samples: Iterable[Sample],
        *,
        on_done: Callable[[int], None] | None = None,
    ) -> ScoreBatch:
        """Score ``samples``; the result is in input order.

        ``scorer`` is a :class:`Scorer`, a registered scorer name, a function ``fn(sample)`` (adapted
        with :func:`~rewardloop.as_scorer`), or a list with one :class:`Scorer` per sample (mixed
        batches, e.g. routed by task). ``on_done(i)`` is called in the event loop as sample ``i``
        finishes (progress bars). Per-sample failures are statuses, unless ``on_error="raise"``.
        """
        t0 = time.perf_counter()
        self._check_usable()
        samples = check_samples(samples)
        scorers = self._scorers_for(scorer, len(samples))
        plans: dict[int, Plan] = {}
        for sc in scorers:
            if id(sc) not in plans:
                plans[id(sc)] = self._plan(sc)
        whole = await run_whole(self, scorers, samples, on_done)  # composite / group scorers: whole shares
        if whole is not None:
            return whole
        ctx = Context(t0=t0, budget=Budget(self.config.retry_budget))
        batch = _Batch(self, samples, [plans[id(sc)] for sc in scorers], ctx, on_done)
        await batch.execute()
        return self._report(batch)

    def run_sync(
        self,
        scorer: ScorerLike | Sequence[Scorer],
        samples: Iterable[Sample],
        *,
        on_done: Callable[[int], None] | None = None,
    ) -> ScoreBatch:
        """:meth:`run` for synchronous code. Works from any thread, including one that runs an event
        loop: the batch runs on the runner's private loop in a helper thread."""
        self._check_usable()
        return self._bridge.call_sync(self.run(scorer, samples, on_done=on_done))

    def call_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` (work that awaits this runner: a manager's batch, several streamed samples) to
        completion from synchronous code, on the runner's private event loop; from any thread."""
        self._check_usable()
        return self._bridge.call_sync(coro)

    async def submit(self, scorer: ScorerLike, sample: Sample) -> Score:
        """Score one sample as soon as it arrives (streaming); returns its :class:`Score`.

        Same path as :meth:`run` (quick check, limits, deadline, retries, cache); identical samples in
        flight at the same time are scored once (``info["dedup"] = True`` on the copies). Timing is in
        ``info["queue_s"]`` / ``info["exec_s"]``. Retries draw on a budget of ``retry_budget`` per
        minute. With ``on_error="raise"`` a failed sample raises :class:`ScoringError`.
        """
        t0 = time.perf_counter()
        self._check_usable()
        check_samples([sample])
        scorer = self._as_scorer(scorer)
        special = await submit_whole(self, scorer, sample)  # a group member waits for its group
        if special is not None:
            if self.config.on_error == "raise" and not special.ok:
                raise failure_error(special, sample, None, 1, 1)
            return special
        plan = self._stream_plan(scorer)
        key = sample_key(plan.fingerprint, sample) if plan.fingerprint is not None else None
        score = self._cache.get(key)
        if score is None:
            dedup_key = key if self.config.dedup else None
            score = await self._inflight.run(dedup_key, lambda: self._submit_one(plan, sample, key, t0))
        if self.config.on_error == "raise" and not score.ok:
            raise failure_error(score, sample, None, 1, 1)
        return score

    async def run_groups(
        self, scorer: GroupScorer, samples: Sequence[Sample], *, on_done: Callable[[int], None] | None = None
    ) -> ScoreBatch:
        """Score ``samples`` with a group scorer: each group (same uid) in one call on one slot (see
        :mod:`._grouped`). :meth:`run` comes here for group scorers."""
        return await run_groups(self, scorer, samples, on_done=on_done)

    def refuse_gathering(self, reason: str) -> None:
        """Members of a group that would wait for members arriving in other calls fail at once instead
        (``invalid_input`` naming ``reason``): for deployments where those calls reach other processes."""
        self._gatherer.refuse(reason)

    async def submit_group(self, scorer: GroupScorer, sample: Sample) -> Score:
        """Stream one member of a group: it waits here for the rest of its group (see :mod:`._grouped`)."""
        return await self._gatherer.submit(self, scorer, sample)

    def pool_stats(self) -> PoolStats | None:
        """Counters of the worker pool (None before any process scorer ran)."""
        pool = self._pool
        return pool.stats() if pool is not None else None

    def close(self) -> None:
        """Stop the private event loop and the worker pool (if the runner owns it). Idempotent.

        Meant for when no batch is running: a ``run_sync`` still in progress is cancelled (its caller gets
        ``CancelledError``); work already handed to the pool from other event loops finishes within its
        deadline before the workers exit.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            pool, self._pool = (self._pool, None) if self._owns_pool else (None, self._pool)
        self._bridge.close()
        if pool is not None and os.getpid() == self._owner_pid:
            pool.close()

    def __repr__(self) -> str:
        c = self.config
        state = "closed" if self._closed else "open"
        return f"<Runner workers={c.workers} max_concurrency={c.max_concurrency} {state}>"

    # -- set-up --------------------------------------------------------------------------------------

    def _check_usable(self) -> None:
        if self._closed:
            raise RuntimeError("this Runner is closed")
        if os.getpid() != self._owner_pid:
            # Forked: the parent's pool workers, loop thread, in-flight samples and locks are not ours
            # (a lock may have been held by a parent thread at fork time). Start afresh, lazily.
            self._owner_pid = os.getpid()
            self._lock = threading.Lock()
            self._bridge = SyncBridge("Runner")
            self._inflight = Inflight()
            self._gatherer = GroupGatherer()  # the parent's waiting members are not ours either
            self._slots = Slots(self.config.max_concurrency)
            self._thread_slots = Slots(self.config.threads)
            if self._owns_pool:
                self._pool = None

    def _as_scorer(self, scorer: ScorerLike) -> Scorer:
        if isinstance(scorer, Scorer):
            return scorer
        if isinstance(scorer, str):
            from ..scorers._registry import get_scorer

            return get_scorer(scorer)
        return as_scorer(scorer)

    def _scorers_for(self, scorer: ScorerLike | Sequence[Scorer], n: int) -> list[Scorer]:
        if isinstance(scorer, list | tuple):
            if len(scorer) != n:
                raise ValueError(
                    f"got {len(scorer)} scorers for {n} samples; pass one scorer or one per sample"
                )
            resolved: dict[int, Scorer] = {}
            return [resolved.setdefault(id(s), self._as_scorer(s)) for s in scorer]
        return [self._as_scorer(scorer)] * n

    def _plan(self, scorer: Scorer) -> Plan:
        cfg = self.config
        if is_async_scorer(scorer):
            mode = "async"
        else:
            mode = cfg.execution or getattr(scorer, "execution", "inline")
            if mode not in EXECUTIONS:
                raise ConfigError(f"{scorer!r} has execution={mode!r}; allowed: {', '.join(EXECUTIONS)}")
        timeout = cfg.timeout_s if cfg.timeout_s is not None else getattr(scorer, "timeout_s", None)
        # an inline scorer is cheap by contract: hashing a sample costs about what scoring it does, so only
        # a result cache (which spans batches) keys it; de-duplication is for scorers that cost something
        keyed = (cfg.dedup and mode != "inline") or self._cache.enabled
        return Plan(
            scorer=scorer,
            mode=mode,
            deadline=_check_timeout(timeout),
            batch=bool(getattr(scorer, "supports_batch", False)) and mode != "async",
            quick=type(scorer).quick is not Scorer.quick,
            fingerprint=scorer_fingerprint(scorer) if keyed else None,
        )

    def _stream_plan(self, scorer: Scorer) -> Plan:
        """:meth:`_plan`, remembered for the last few scorers: streaming plans once per scorer, not
        once per sample (the entry holds the scorer, so its id cannot be reused while remembered)."""
        with self._lock:
            entry = self._plans.get(id(scorer))
            if entry is not None and entry[0] is scorer:
                self._plans.move_to_end(id(scorer))
                return entry[1]
        plan = self._plan(scorer)
        with self._lock:
            self._plans[id(scorer)] = (scorer, plan)
            while len(self._plans) > _STREAM_PLANS:
                self._plans.popitem(last=False)
        return plan

    def _get_pool(self) -> WorkerPool:
        with self._lock:
            if self._closed:
                raise RuntimeError("this Runner is closed")
            if self._pool is None:
                cfg = self.config
                self._pool = WorkerPool(
                    size=cfg.workers,
                    max_tasks_per_worker=cfg.max_tasks_per_worker,
                    memory_limit_mb=cfg.memory_limit_mb,
                    recycle_memory_mb=cfg.worker_recycle_memory_mb,
                )
            return self._pool

    # -- scoring one sample --------------------------------------------------------------------------

    async def _score(self, plan: Plan, sample: Sample, ctx: Context, start: Retry | None = None) -> Done:
        """Quick check, then attempts with retries. Never raises for a per-sample failure.

        ``start``: the outcome of :meth:`_first_try` when the caller already made the first attempt.
        """
        if start is None:
            first = await self._first_try(plan, sample, ctx)
            if isinstance(first, Done):
                return first
            start = first
        scores, exec_s, delay, exhausted = start
        retries = 0
        while delay is not None:
            retries += 1
            await self._limiter.sleep(delay)
            scores, spent, error = await self._attempt(plan, [sample], batch=False)
            exec_s += spent
            delay, exhausted = self._retry_delay(scores[0], error, retries, ctx)
        return self._done(with_retry_info(scores[0], retries, exhausted), ctx, exec_s)

    async def _first_try(self, plan: Plan, sample: Sample, ctx: Context) -> Done | Retry:
        """The quick check and the first attempt: the final result, or what a retry needs to go on."""
        exec_s = 0.0
        if wants_quick(plan, sample):
            verdict, exec_s = run_quick(plan.scorer, sample)
            if verdict is not None:
                return self._done(verdict, ctx, exec_s)
        if plan.mode == "inline" and self._limiter_idle():
            scores, spent, error = attempt_inline(plan.scorer, sample)
        else:
            scores, spent, error = await self._attempt(plan, [sample], batch=False)
        exec_s += spent
        delay, exhausted = self._retry_delay(scores[0], error, 0, ctx)
        if delay is None:
            return self._done(with_retry_info(scores[0], 0, exhausted), ctx, exec_s)
        return scores, exec_s, delay, exhausted

    def _limiter_idle(self) -> bool:
        """No rate limit and no pause: an inline attempt has nothing to wait for or to settle."""
        limiter = self._limiter
        return isinstance(limiter, RateLimiter) and limiter.idle()

    async def _score_chunk(self, plan: Plan, samples: list[Sample], ctx: Context) -> list[Done]:
        """A batch scorer's chunk: quick checks, then ``score_batch`` on the rest. Samples that end with
        ``infra_error`` are retried together (one retry of the budget per chunk retry)."""
        out: list[Done | None] = [None] * len(samples)
        pending: list[int] = []
        for i, sample in enumerate(samples):
            verdict, spent = run_quick(plan.scorer, sample) if wants_quick(plan, sample) else (None, 0.0)
            if verdict is None:
                pending.append(i)
            else:
                out[i] = self._done(verdict, ctx, spent)
        final: dict[int, Score] = {}
        retried: dict[int, int] = {}
        exec_s, retries, exhausted = 0.0, 0, False
        while pending:
            scores, spent, error = await self._attempt(plan, [samples[i] for i in pending], batch=True)
            exec_s += spent
            final.update(zip(pending, scores, strict=True))
            failed = [(i, s) for i, s in zip(pending, scores, strict=True) if s.status is Status.INFRA_ERROR]
            if not failed:
                break
            delay, exhausted = self._retry_delay(failed[0][1], error, retries, ctx)
            if delay is None:
                break
            retries += 1
            pending = [i for i, _ in failed]
            for i in pending:
                retried[i] = retried.get(i, 0) + 1
            await self._limiter.sleep(delay)
        for i, score in final.items():
            last_failed = exhausted and score.status is Status.INFRA_ERROR
            out[i] = self._done(with_retry_info(score, retried.get(i, 0), last_failed), ctx, exec_s)
        return out  # type: ignore[return-value]

    def _done(self, score: Score, ctx: Context, exec_s: float) -> Done:
        latency = time.perf_counter() - ctx.t0
        ctx.executed_latency.append(latency)
        ctx.executed_exec.append(exec_s)
        return Done(score, max(0.0, latency - exec_s), exec_s)

    async def _attempt(
        self, plan: Plan, samples: list[Sample], *, batch: bool
    ) -> tuple[list[Score], float, BaseException | None]:
        """One attempt under a slot and the rate limiter: (one score per sample, seconds, error)."""
        counts_tokens = getattr(self._limiter, "counts_tokens", True)
        estimate = sum(estimate_tokens(plan.scorer, s) for s in samples) if counts_tokens else 1.0
        async with self._slots:
            await self._limiter.acquire(estimate)
            start = time.perf_counter()
            try:
                result, spent = await self._execute(plan, samples if batch else samples[0], batch)
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
                self._limiter.settle(estimate, sum(a if a is not None else 0.0 for a in actual))
        return scores, spent, error

    async def _execute(self, plan: Plan, payload: Any, batch: bool) -> tuple[Any, float]:
        """Run the scorer once as its plan says; returns (raw result, seconds executing)."""
        scorer = plan.scorer
        deadline = plan.deadline
        if batch and deadline is not None:
            deadline *= len(payload)
        fn = scorer.score_batch if batch else scorer.score
        if plan.mode == "process":
            return await self._get_pool().acall(Timed(fn), payload, timeout=deadline)
        if plan.mode == "thread":
            return await self._in_thread(fn, payload, deadline)
        start = time.perf_counter()
        if plan.mode == "async":
            result = await await_with_deadline(scorer.ascore(payload), deadline, scorer)  # type: ignore[attr-defined]
        else:
            result = fn(payload)
        return result, time.perf_counter() - start

    async def _in_thread(
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

    def _retry_delay(
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
            self._limiter.pause(float(retry_after))  # every request of this limiter waits, not just ours
            return 0.0, False
        cap = min(self.config.backoff_max_s, self.config.backoff_base_s * 2**retries)
        return self._rng.uniform(0.0, cap), False

    # -- caching and streaming -----------------------------------------------------------------------

    async def _submit_one(self, plan: Plan, sample: Sample, key: str | None, t0: float) -> Score:
        ctx = Context(t0=t0, budget=self._stream_budget)
        if plan.batch:  # a chunk of one: batch scorers may implement only score_batch well
            (done,) = await self._score_chunk(plan, [sample], ctx)
        else:
            done = await self._score(plan, sample, ctx)
        self._cache.put(key, done.score, plan.scorer)
        self._log_if_slow(sample, None, done.exec_s, done.score)
        info = {**done.score.info, "queue_s": round(done.queue_s, 6), "exec_s": round(done.exec_s, 6)}
        if ctx.retries:
            info.setdefault("retries", ctx.retries)
        return Score(done.score.value, done.score.status, done.score.metrics, info)

    # -- reporting -----------------------------------------------------------------------------------

    def _log_if_slow(self, sample: Sample, index: int | None, exec_s: float, score: Score) -> None:
        limit = self.config.slow_sample_s
        if limit is None or exec_s <= limit:
            return
        meta_index = sample.metadata.get("index") if isinstance(sample.metadata, Mapping) else None
        _log.warning(
            "slow sample%s (uid=%s, index=%s, task=%s): executed for %.2f s (slow_sample_s=%g), status %s",
            "" if index is None else f" #{index}",
            sample.uid,
            meta_index,
            sample.task,
            exec_s,
            limit,
            score.status.value,
        )

    def _report(self, batch: _Batch) -> ScoreBatch:
        ctx = batch.ctx
        done = batch.results()
        wall = time.perf_counter() - ctx.t0
        stats = batch_stats(
            [d.score.status for d in done],
            latencies=ctx.executed_latency,
            exec_times=ctx.executed_exec,
            wall_s=wall,
            unique=batch.unique,
            cache_hits=batch.cache_hits,
            retries=ctx.retries,
        )
        return finish_batch(done, batch.samples, stats, self.config.on_error)


class _Batch:
    """One :meth:`Runner.run` call: de-duplication, scheduling, fan-out, in input order."""

    def __init__(
        self,
        runner: Runner,
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
        if self.runner._cache.enabled:
            return settled
        undecided: dict[int, Plan] = {}
        for i, (plan, sample) in enumerate(zip(self.plans, self.samples, strict=True)):
            if plan.mode in ("inline", "async") or plan.batch or not wants_quick(plan, sample):
                continue
            verdict, spent = run_quick(plan.scorer, sample)
            if verdict is None:
                self.plans[i] = undecided.setdefault(id(plan), dataclasses.replace(plan, quick=False))
                continue
            self._complete(i, self.runner._done(verdict, self.ctx, spent))
            settled.add(i)
        return settled

    def _deduplicate(self, settled: set[int]) -> tuple[list[int], list[tuple[int, Score]]]:
        self.keys = [
            sample_key(plan.fingerprint, sample)
            if plan.fingerprint is not None and i not in settled
            else None
            for i, (plan, sample) in enumerate(zip(self.plans, self.samples, strict=True))
        ]
        groups = group_duplicates(self.keys, self.runner.config.dedup, self.runner._cache.get)
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
            first = await self.runner._first_try(self.plans[i], self.samples[i], self.ctx)
            if isinstance(first, Done):
                self._complete(i, first)
            else:
                retrying.append(self._one(i, first))
        if retrying:
            await asyncio.gather(*retrying)

    async def _one(self, i: int, start: Retry | None = None) -> None:
        done = await self.runner._score(self.plans[i], self.samples[i], self.ctx, start)
        self._complete(i, done)

    def _complete(self, i: int, done: Done) -> None:
        plan, sample = self.plans[i], self.samples[i]
        self.runner._cache.put(self.keys[i], done.score, plan.scorer)
        self.runner._log_if_slow(sample, i, done.exec_s, done.score)
        self._finish(i, done)

    async def _chunk(self, idxs: list[int]) -> None:
        plan = self.plans[idxs[0]]
        results = await self.runner._score_chunk(plan, [self.samples[i] for i in idxs], self.ctx)
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
            self.runner._cache.put(self.keys[i], done.score, plan.scorer)
            self._finish(i, done)

    def _finish(self, i: int, done: Done) -> None:
        finish_with_copies(self.done, self.followers, i, done, self.on_done)


# ----------------------------------------------------------------------------------------------------
# the private event loop of the sync facade


def _settle(future: asyncio.Future, value: Any) -> None:
    if not future.done():
        future.set_result(value)

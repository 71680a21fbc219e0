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
import concurrent.futures
import contextlib
import copy
import dataclasses
import inspect
import logging
import math
import os
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import ConfigError, InfraError, RateLimited, ScoringError, ScoringTimeout
from ..scorers._base import Scorer, as_scorer
from ..scorers._group import GroupScorer
from ..types import Sample, Score, ScoreBatch, Status
from ._cache import LRUCache, sample_key, scorer_fingerprint
from ._config import EXECUTIONS, RunnerConfig
from ._grouped import GroupGatherer
from ._limits import Limiter, RateLimiter, Slots, TokenBucket
from ._single import _as_score, failure_score
from ._workers import PoolStats, WorkerPool, _check_timeout

__all__ = ["Runner", "batch_stats"]

_log = logging.getLogger(__name__)

T = TypeVar("T")
ScorerLike = Scorer | str | Callable[[Sample], Any]

_CACHEABLE = frozenset({Status.OK, Status.INVALID_INPUT, Status.PARSE_ERROR})
_CHARS_PER_TOKEN = 4.0  # token estimate when a scorer reports none: roughly English text
_STREAM_PLANS = 64  # scorers whose plan submit() remembers
# quick() runs in the event loop with no deadline. It is linear-time, but on a multi-megabyte response
# even that is seconds of GIL-holding work (prime_math's quick() on 10 MB: ~1.7 s) that would delay
# every other sample; such responses go straight to score(), where a deadline applies. Skipping quick()
# never changes a verdict: it may only answer what score() would.
_QUICK_MAX_CHARS = 200_000
_HANDOFF_S = 0.002  # see _Batch._handoff_s
_HANDOFF_HUGE_S = 0.02


# ----------------------------------------------------------------------------------------------------
# per-scorer plan and per-sample outcome


@dataclass(frozen=True)
class _Plan:
    """How one scorer runs in this runner (resolved once per scorer per batch)."""

    scorer: Scorer
    mode: str  # "async" | "inline" | "thread" | "process"
    deadline: float | None
    batch: bool
    quick: bool
    fingerprint: str | None  # None: never de-duplicated or cached


@dataclass
class _Done:
    score: Score
    queue_s: float
    exec_s: float


# (scores of the last attempt, seconds executed so far, delay before the next attempt, budget exhausted)
_Retry = tuple[list[Score], float, float, bool]


@dataclass
class _Context:
    """State of one batch (or one streamed sample)."""

    t0: float
    budget: Any  # has take() -> bool
    retries: int = 0
    executed_latency: list[float] = field(default_factory=list)
    executed_exec: list[float] = field(default_factory=list)


class _Budget:
    def __init__(self, left: int) -> None:
        self.left = left

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


class _StreamBudget:
    """``retry_budget`` retries per minute, for samples that arrive one by one."""

    def __init__(self, per_minute: int) -> None:
        self._bucket = TokenBucket(per_minute, capacity=per_minute) if per_minute else None

    def take(self) -> bool:
        return self._bucket is not None and self._bucket.try_take(1.0)


class _Timed:
    """Runs ``fn(arg)`` in a worker and returns ``(result, seconds)``.

    Carries ``fn``'s ``__self__`` and ``__name__`` so the pool's messages name the scorer
    (``"SleepScorer.score ran past its 0.3 s deadline"``), not this wrapper.
    """

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.__self__ = getattr(fn, "__self__", None)
        self.__name__ = getattr(fn, "__name__", "score")

    def __call__(self, arg: Any) -> tuple[Any, float]:
        start = time.perf_counter()
        result = self.fn(arg)
        return result, time.perf_counter() - start


# ----------------------------------------------------------------------------------------------------
# the runner


_C = TypeVar("_C", bound="Closable")


class Closable:
    """Context-manager and async-close plumbing shared by :class:`Runner` and ``RayRunner``.

    Subclasses implement ``close()`` (idempotent) and keep ``_closed``.
    """

    _closed: bool

    def close(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    async def aclose(self) -> None:
        """:meth:`close` without blocking the event loop."""
        await asyncio.to_thread(self.close)

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self: _C) -> _C:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


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
        self._cache = LRUCache(config.cache_size) if config.cache_size else None
        self._stream_budget = _StreamBudget(config.retry_budget)
        self._rng = random.Random()
        self._lock = threading.Lock()
        self._pool = pool
        self._owns_pool = pool is None
        self._loop_thread: _LoopThread | None = None
        self._inflight: dict[str, concurrent.futures.Future] = {}
        self._plans: OrderedDict[int, tuple[Scorer, _Plan]] = OrderedDict()
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
        samples = _check_samples(samples)
        scorers = self._scorers_for(scorer, len(samples))
        plans: dict[int, _Plan] = {}
        whole: dict[int, Scorer] = {}
        for sc in scorers:
            if id(sc) not in plans:
                if _whole_batch_runner(sc) is not None:
                    whole[id(sc)] = sc
                plans[id(sc)] = self._plan(sc)
        if whole:  # composite / group scorers see their whole share of the batch
            return await self._run_whole(whole, scorers, samples, on_done)
        ctx = _Context(t0=t0, budget=_Budget(self.config.retry_budget))
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
        return self._call_sync(self.run(scorer, samples, on_done=on_done))

    async def submit(self, scorer: ScorerLike, sample: Sample) -> Score:
        """Score one sample as soon as it arrives (streaming); returns its :class:`Score`.

        Same path as :meth:`run` (quick check, limits, deadline, retries, cache); identical samples in
        flight at the same time are scored once (``info["dedup"] = True`` on the copies). Timing is in
        ``info["queue_s"]`` / ``info["exec_s"]``. Retries draw on a budget of ``retry_budget`` per
        minute. With ``on_error="raise"`` a failed sample raises :class:`ScoringError`.
        """
        t0 = time.perf_counter()
        self._check_usable()
        _check_samples([sample])
        scorer = self._as_scorer(scorer)
        if isinstance(scorer, GroupScorer):  # waits for its group's other members
            grouped = await self._gatherer.submit(self, scorer, sample)
            if self.config.on_error == "raise" and not grouped.ok:
                raise _failure_error(grouped, sample, None, 1, 1)
            return grouped
        streamed = getattr(scorer, "submit_with_runner", None)  # a Composite: each component submitted
        if streamed is not None:
            return await streamed(self, sample)
        plan = self._stream_plan(scorer)
        key = sample_key(plan.fingerprint, sample) if plan.fingerprint is not None else None
        score = self._cached(key)
        if score is None:
            score = await self._submit_deduplicated(plan, sample, key, t0)
        if self.config.on_error == "raise" and not score.ok:
            raise _failure_error(score, sample, None, 1, 1)
        return score

    async def _run_whole(
        self,
        whole: Mapping[int, Scorer],
        scorers: Sequence[Scorer],
        samples: list[Sample],
        on_done: Callable[[int], None] | None,
    ) -> ScoreBatch:
        """A batch with composite or group scorers: each of those gets all of its samples in one call (a group
        scorer needs every member of a group, a composite runs each component over the whole share); the rest
        of the batch runs as usual. Results are merged in input order."""
        shares: dict[int | None, list[int]] = {}
        for i, sc in enumerate(scorers):
            shares.setdefault(id(sc) if id(sc) in whole else None, []).append(i)
        if len(shares) == 1 and None not in shares:
            run = _whole_batch_runner(scorers[0])
            return await run(self, samples, on_done=on_done)  # type: ignore[misc]

        async def share(key: int | None, idxs: list[int]) -> tuple[list[int], ScoreBatch]:
            part = [samples[i] for i in idxs]
            done = None if on_done is None else (lambda j: on_done(idxs[j]))
            try:
                if key is None:
                    return idxs, await self.run([scorers[i] for i in idxs], part, on_done=done)
                run = _whole_batch_runner(whole[key])
                return idxs, await run(self, part, on_done=done)  # type: ignore[misc]
            except ScoringError as exc:  # on_error="raise": merge first, raise for the whole batch below
                if getattr(exc, "batch", None) is None:
                    raise
                return idxs, exc.batch  # type: ignore[attr-defined]

        t0 = time.perf_counter()
        parts = await asyncio.gather(*(share(k, v) for k, v in shares.items()))
        rows: list[Any] = [None] * len(samples)
        for idxs, batch in parts:
            for j, i in enumerate(idxs):
                rows[i] = _Done(
                    batch[j],
                    batch.queue_s[j] if batch.queue_s else 0.0,
                    batch.exec_s[j] if batch.exec_s else 0.0,
                )
        stats = batch_stats(
            [d.score.status for d in rows],
            latencies=[d.queue_s + d.exec_s for d in rows],
            exec_times=[d.exec_s for d in rows],
            wall_s=time.perf_counter() - t0,
            unique=sum(int(b.stats.get("unique", len(b))) for _, b in parts),
            retries=sum(int(b.stats.get("retries", 0) or 0) for _, b in parts),
        )
        return finish_batch(rows, samples, stats, self.config.on_error)

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
            loop_thread, self._loop_thread = self._loop_thread, None
        if loop_thread is not None:
            loop_thread.stop()
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
            self._loop_thread = None
            self._inflight = {}
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

    def _plan(self, scorer: Scorer) -> _Plan:
        cfg = self.config
        if _is_async(scorer):
            mode = "async"
        else:
            mode = cfg.execution or getattr(scorer, "execution", "inline")
            if mode not in EXECUTIONS:
                raise ConfigError(f"{scorer!r} has execution={mode!r}; allowed: {', '.join(EXECUTIONS)}")
        timeout = cfg.timeout_s if cfg.timeout_s is not None else getattr(scorer, "timeout_s", None)
        # an inline scorer is cheap by contract: hashing a sample costs about what scoring it does, so only
        # a result cache (which spans batches) keys it; de-duplication is for scorers that cost something
        keyed = (cfg.dedup and mode != "inline") or self._cache is not None
        return _Plan(
            scorer=scorer,
            mode=mode,
            deadline=_check_timeout(timeout),
            batch=bool(getattr(scorer, "supports_batch", False)) and mode != "async",
            quick=type(scorer).quick is not Scorer.quick,
            fingerprint=scorer_fingerprint(scorer) if keyed else None,
        )

    def _stream_plan(self, scorer: Scorer) -> _Plan:
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

    async def _score(self, plan: _Plan, sample: Sample, ctx: _Context, start: _Retry | None = None) -> _Done:
        """Quick check, then attempts with retries. Never raises for a per-sample failure.

        ``start``: the outcome of :meth:`_first_try` when the caller already made the first attempt.
        """
        if start is None:
            first = await self._first_try(plan, sample, ctx)
            if isinstance(first, _Done):
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
        return self._done(_with_retry_info(scores[0], retries, exhausted), ctx, exec_s)

    async def _first_try(self, plan: _Plan, sample: Sample, ctx: _Context) -> _Done | _Retry:
        """The quick check and the first attempt: the final result, or what a retry needs to go on."""
        exec_s = 0.0
        if _wants_quick(plan, sample):
            verdict, exec_s = _quick(plan.scorer, sample)
            if verdict is not None:
                return self._done(verdict, ctx, exec_s)
        if plan.mode == "inline" and self._limiter_idle():
            scores, spent, error = _attempt_inline(plan.scorer, sample)
        else:
            scores, spent, error = await self._attempt(plan, [sample], batch=False)
        exec_s += spent
        delay, exhausted = self._retry_delay(scores[0], error, 0, ctx)
        if delay is None:
            return self._done(_with_retry_info(scores[0], 0, exhausted), ctx, exec_s)
        return scores, exec_s, delay, exhausted

    def _limiter_idle(self) -> bool:
        """No rate limit and no pause: an inline attempt has nothing to wait for or to settle."""
        limiter = self._limiter
        return isinstance(limiter, RateLimiter) and limiter.idle()

    async def _score_chunk(self, plan: _Plan, samples: list[Sample], ctx: _Context) -> list[_Done]:
        """A batch scorer's chunk: quick checks, then ``score_batch`` on the rest. Samples that end with
        ``infra_error`` are retried together (one retry of the budget per chunk retry)."""
        out: list[_Done | None] = [None] * len(samples)
        pending: list[int] = []
        for i, sample in enumerate(samples):
            verdict, spent = _quick(plan.scorer, sample) if _wants_quick(plan, sample) else (None, 0.0)
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
            out[i] = self._done(_with_retry_info(score, retried.get(i, 0), last_failed), ctx, exec_s)
        return out  # type: ignore[return-value]

    def _done(self, score: Score, ctx: _Context, exec_s: float) -> _Done:
        latency = time.perf_counter() - ctx.t0
        ctx.executed_latency.append(latency)
        ctx.executed_exec.append(exec_s)
        return _Done(score, max(0.0, latency - exec_s), exec_s)

    async def _attempt(
        self, plan: _Plan, samples: list[Sample], *, batch: bool
    ) -> tuple[list[Score], float, BaseException | None]:
        """One attempt under a slot and the rate limiter: (one score per sample, seconds, error)."""
        counts_tokens = getattr(self._limiter, "counts_tokens", True)
        estimate = sum(_estimate_tokens(plan.scorer, s) for s in samples) if counts_tokens else 1.0
        async with self._slots:
            await self._limiter.acquire(estimate)
            start = time.perf_counter()
            try:
                result, spent = await self._execute(plan, samples if batch else samples[0], batch)
                scores = (
                    _batch_scores(plan.scorer, result, len(samples))
                    if batch
                    else [_safe_score(plan.scorer, result)]
                )
                error = None
            except Exception as exc:
                spent, error = time.perf_counter() - start, exc
                scores = [failure_score(exc) for _ in samples]
            actual = [_reported_tokens(s) for s in scores]
            if counts_tokens and any(a is not None for a in actual):
                self._limiter.settle(estimate, sum(a if a is not None else 0.0 for a in actual))
        return scores, spent, error

    async def _execute(self, plan: _Plan, payload: Any, batch: bool) -> tuple[Any, float]:
        """Run the scorer once as its plan says; returns (raw result, seconds executing)."""
        scorer = plan.scorer
        deadline = plan.deadline
        if batch and deadline is not None:
            deadline *= len(payload)
        fn = scorer.score_batch if batch else scorer.score
        if plan.mode == "process":
            return await self._get_pool().acall(_Timed(fn), payload, timeout=deadline)
        if plan.mode == "thread":
            return await self._in_thread(fn, payload, deadline)
        start = time.perf_counter()
        if plan.mode == "async":
            result = await _await_with_deadline(scorer.ascore(payload), deadline, scorer)  # type: ignore[attr-defined]
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
                start = time.perf_counter()
                try:
                    value: Any = (True, (fn(arg), time.perf_counter() - start))
                except BaseException as exc:
                    value = (False, exc)
                with contextlib.suppress(RuntimeError):  # the loop is gone; nobody waits any more
                    loop.call_soon_threadsafe(_settle, outcome, value)

            threading.Thread(target=work, name="rewardloop-score", daemon=True).start()
            try:
                ok, value = await (outcome if deadline is None else asyncio.wait_for(outcome, deadline))
            except asyncio.TimeoutError:
                raise ScoringTimeout(
                    f"{_name(fn)} ran past its {deadline:g} s deadline in a thread; the thread cannot be "
                    "stopped and may still be running (use execution='process' for work that can hang)"
                ) from None
        if ok:
            return value
        if isinstance(value, Exception):
            raise value
        raise ScoringError(f"{_name(fn)} raised {type(value).__name__}: {value!r}")

    def _retry_delay(
        self, score: Score, error: BaseException | None, retries: int, ctx: _Context
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

    def _cached(self, key: str | None) -> Score | None:
        if key is None or self._cache is None:
            return None
        hit = self._cache.get(key)
        return None if hit is None else _copy_score(hit, cached=True)

    def _remember(self, plan: _Plan, key: str | None, score: Score) -> None:
        if key is not None and self._cache is not None and score.status in _CACHEABLE:
            self._cache.put(key, score, plan.scorer)

    async def _submit_deduplicated(self, plan: _Plan, sample: Sample, key: str | None, t0: float) -> Score:
        shared: concurrent.futures.Future | None = None
        if key is not None and self.config.dedup:
            with self._lock:
                running = self._inflight.get(key)
                if running is None:
                    shared = self._inflight[key] = concurrent.futures.Future()
            if running is not None:
                first = await asyncio.wrap_future(running)
                if first is not None:  # None: the first one was cancelled; score this one ourselves
                    return _copy_score(first, dedup=True)
        ctx = _Context(t0=t0, budget=self._stream_budget)
        try:
            if plan.batch:  # a chunk of one: batch scorers may implement only score_batch well
                (done,) = await self._score_chunk(plan, [sample], ctx)
            else:
                done = await self._score(plan, sample, ctx)
        except BaseException:
            self._release_inflight(key, shared, None)
            raise
        self._remember(plan, key, done.score)
        self._release_inflight(key, shared, done.score)
        self._log_if_slow(sample, None, done.exec_s, done.score)
        info = {**done.score.info, "queue_s": round(done.queue_s, 6), "exec_s": round(done.exec_s, 6)}
        if ctx.retries:
            info.setdefault("retries", ctx.retries)
        return Score(done.score.value, done.score.status, done.score.metrics, info)

    def _release_inflight(
        self, key: str | None, shared: concurrent.futures.Future | None, score: Score | None
    ) -> None:
        if shared is None:
            return
        with self._lock:
            self._inflight.pop(key, None)  # type: ignore[arg-type]
        shared.set_result(score)

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

    # -- the sync facade -----------------------------------------------------------------------------

    def _call_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            loop_thread = self._get_loop_thread()
        except BaseException:
            coro.close()
            raise
        if threading.current_thread() is loop_thread.thread:
            # Called from a scorer running on our own loop: that loop cannot wait for itself.
            return _run_in_fresh_thread(coro)
        future = asyncio.run_coroutine_threadsafe(coro, loop_thread.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()  # interrupted (KeyboardInterrupt): stop the batch, kill its workers
            raise

    def _get_loop_thread(self) -> _LoopThread:
        with self._lock:
            if self._closed:
                raise RuntimeError("this Runner is closed")
            if self._loop_thread is None:
                self._loop_thread = _LoopThread()
            return self._loop_thread


class _Batch:
    """One :meth:`Runner.run` call: de-duplication, scheduling, fan-out, in input order."""

    def __init__(
        self,
        runner: Runner,
        samples: list[Sample],
        plans: list[_Plan],
        ctx: _Context,
        on_done: Callable[[int], None] | None,
    ) -> None:
        self.runner = runner
        self.samples = samples
        self.plans = plans
        self.ctx = ctx
        self.on_done = on_done
        self.done: list[_Done | None] = [None] * len(samples)
        self.keys: list[str | None] = [None] * len(samples)
        self.followers: dict[int, list[int]] = {}
        self.unique = 0
        self.cache_hits = 0

    async def execute(self) -> None:
        settled = self._quick_pass()
        todo, hits = self._deduplicate(settled)
        for i, score in hits:
            self._finish(i, _Done(score, 0.0, 0.0))
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
            isinstance(r := self.samples[i].response, str) and len(r) > _QUICK_MAX_CHARS for i in outside
        )
        return _HANDOFF_HUGE_S if huge else _HANDOFF_S

    def results(self) -> list[_Done]:
        assert all(d is not None for d in self.done)
        return self.done  # type: ignore[return-value]

    def _quick_pass(self) -> set[int]:
        """Settle, before anything else, the samples whose ``quick()`` decides them, for scorers that would
        otherwise run outside the event loop: one loop over cheap, bounded checks instead of a content key
        and a task per sample (which cost more than the check). Undecided samples keep their place and go
        to their worker without asking ``quick()`` again. Not with a result cache, which wants every verdict
        keyed."""
        settled: set[int] = set()
        if self.runner._cache is not None:
            return settled
        undecided: dict[int, _Plan] = {}
        for i, (plan, sample) in enumerate(zip(self.plans, self.samples, strict=True)):
            if plan.mode in ("inline", "async") or plan.batch or not _wants_quick(plan, sample):
                continue
            verdict, spent = _quick(plan.scorer, sample)
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
        groups = group_duplicates(self.keys, self.runner.config.dedup, self.runner._cached)
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
            if isinstance(first, _Done):
                self._complete(i, first)
            else:
                retrying.append(self._one(i, first))
        if retrying:
            await asyncio.gather(*retrying)

    async def _one(self, i: int, start: _Retry | None = None) -> None:
        done = await self.runner._score(self.plans[i], self.samples[i], self.ctx, start)
        self._complete(i, done)

    def _complete(self, i: int, done: _Done) -> None:
        plan, sample = self.plans[i], self.samples[i]
        self.runner._remember(plan, self.keys[i], done.score)
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
            self.runner._remember(plan, self.keys[i], done.score)
            self._finish(i, done)

    def _finish(self, i: int, done: _Done) -> None:
        self.done[i] = done
        if self.on_done is not None:
            self.on_done(i)
        for j in self.followers.get(i, ()):
            self.done[j] = _Done(_copy_score(done.score, dedup_of=i), done.queue_s, done.exec_s)
            if self.on_done is not None:
                self.on_done(j)


# ----------------------------------------------------------------------------------------------------
# the private event loop of the sync facade


class _LoopThread:
    """An event loop running forever in a daemon thread; stopping it cancels what still runs there."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._main, name="rewardloop-runner-loop", daemon=True)
        self.thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()  # callers blocked in run_sync get CancelledError instead of hanging
            if pending:
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        finally:
            self.loop.close()

    def stop(self) -> None:
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:  # already closed
            return
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout=10)


def _run_in_fresh_thread(coro: Coroutine[Any, Any, T]) -> T:
    box: dict[str, Any] = {}

    def main() -> None:
        try:
            box["result"] = asyncio.run(coro)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=main, name="rewardloop-runner-nested", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


# ----------------------------------------------------------------------------------------------------
# helpers


def batch_stats(
    statuses: Sequence[Status],
    *,
    latencies: Sequence[float],
    exec_times: Sequence[float],
    wall_s: float,
    unique: int,
    cache_hits: int = 0,
    retries: int = 0,
) -> dict[str, Any]:
    """The ``stats`` mapping of a batch.

    ``latencies`` / ``exec_times`` are those of the samples actually executed (not copies or cache hits).
    Keys: ``n``, ``unique`` (distinct samples after de-duplication), ``deduplicated`` (``n - unique``),
    ``cache_hits``, ``executed``, ``retries``, ``failed``, ``status`` (count per status, zeros
    included), ``wall_s``, ``samples_per_s``, ``latency_p50_s``, ``latency_p99_s``, ``exec_p50_s``,
    ``exec_p99_s`` (None when nothing was executed).
    """
    counts = {s.value: 0 for s in Status}
    for st in statuses:
        counts[(st if type(st) is Status else Status(st)).value] += 1
    n = len(statuses)
    return {
        "n": n,
        "unique": unique,
        "deduplicated": n - unique,
        "cache_hits": cache_hits,
        "executed": len(exec_times),
        "retries": retries,
        "failed": n - counts[Status.OK.value],
        "status": counts,
        "wall_s": round(wall_s, 6),
        "samples_per_s": round(n / wall_s, 3) if wall_s > 0 else None,
        "latency_p50_s": _percentile(latencies, 50),
        "latency_p99_s": _percentile(latencies, 99),
        "exec_p50_s": _percentile(exec_times, 50),
        "exec_p99_s": _percentile(exec_times, 99),
    }


def _percentile(values: Sequence[float], pct: float) -> float | None:
    """Nearest-rank percentile."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return round(ordered[rank - 1], 6)


def _check_samples(samples: Iterable[Sample]) -> list[Sample]:
    if isinstance(samples, Sample):
        raise TypeError("samples must be an iterable of Sample; use submit() for a single sample")
    out = list(samples)
    for i, s in enumerate(out):
        if not isinstance(s, Sample):
            raise TypeError(f"samples[{i}] is a {type(s).__name__}, expected rewardloop.Sample")
    return out


def _whole_batch_runner(scorer: Scorer) -> Callable[..., Any] | None:
    """``run(runner, samples, on_done=None)`` for scorers that must see a whole batch (group scorers; a
    composite's ``run_with_runner``), else None."""
    if isinstance(scorer, GroupScorer):
        from ._grouped import run_groups

        return lambda runner, samples, on_done=None: run_groups(runner, scorer, samples, on_done=on_done)
    return getattr(scorer, "run_with_runner", None)


def _is_async(scorer: Any) -> bool:
    flag = getattr(scorer, "is_async", None)
    if flag is not None:
        return bool(flag)
    return inspect.iscoroutinefunction(getattr(scorer, "ascore", None))


async def _await_with_deadline(coro: Coroutine[Any, Any, Any], deadline: float | None, scorer: Scorer) -> Any:
    if deadline is None:
        return await coro
    try:
        return await asyncio.wait_for(coro, deadline)
    except asyncio.TimeoutError:
        raise ScoringTimeout(
            f"{type(scorer).__name__}.ascore ran past its {deadline:g} s deadline and was cancelled"
        ) from None


def _settle(future: asyncio.Future, value: Any) -> None:
    if not future.done():
        future.set_result(value)


@dataclass
class Groups:
    """A batch split by de-duplication key: what to score, cache hits, and the copies of each leader."""

    todo: list[int]
    hits: list[tuple[int, Score]]
    followers: dict[int, list[int]]
    unique: int
    cache_hits: int


def group_duplicates(
    keys: Sequence[str | None], dedup: bool, cached: Callable[[str | None], Score | None]
) -> Groups:
    """Group samples by key (None: never grouped). With ``dedup``, the first sample of a key leads and the
    rest follow it; each leader is then a cache hit or work to do. Shared by Runner and RayRunner."""
    leaders: dict[str, int] = {}
    groups = Groups([], [], {}, 0, 0)
    for i, key in enumerate(keys):
        if key is not None and dedup:
            lead = leaders.get(key)
            if lead is not None:
                groups.followers.setdefault(lead, []).append(i)
                continue
            leaders[key] = i
        groups.unique += 1
        hit = cached(key)
        if hit is not None:
            groups.cache_hits += 1
            groups.hits.append((i, hit))
        else:
            groups.todo.append(i)
    return groups


def _wants_quick(plan: _Plan, sample: Sample) -> bool:
    """Whether to try ``quick()`` inline: always for inline scorers (their score() runs inline anyway),
    otherwise only for responses short enough that it is cheap (see ``_QUICK_MAX_CHARS``)."""
    if not plan.quick:
        return False
    response = sample.response
    return plan.mode == "inline" or not isinstance(response, str) or len(response) <= _QUICK_MAX_CHARS


def _quick(scorer: Scorer, sample: Sample) -> tuple[Score | None, float]:
    """The scorer's inline verdict (None: undecided) and the seconds it took."""
    start = time.perf_counter()
    try:
        verdict = scorer.quick(sample)
    except Exception as exc:
        verdict = failure_score(exc)
    spent = time.perf_counter() - start
    return (None if verdict is None else _safe_score(scorer, verdict)), spent


def _attempt_inline(scorer: Scorer, sample: Sample) -> tuple[list[Score], float, BaseException | None]:
    """One inline attempt without the slot and the limiter (:meth:`Runner._attempt`'s fast path).

    An inline scorer runs to completion without yielding to the event loop, so a concurrency slot would be
    held for no await at all, and an idle limiter has nothing to grant: the result is the same, minus the
    bookkeeping that costs more than a cheap scorer does.
    """
    start = time.perf_counter()
    try:
        return [_safe_score(scorer, scorer.score(sample))], time.perf_counter() - start, None
    except Exception as exc:
        return [failure_score(exc)], time.perf_counter() - start, exc


def _safe_score(scorer: Scorer, result: Any) -> Score:
    try:
        return _as_score(scorer, result)
    except Exception as exc:  # a Score-like object whose coercion blows up
        return failure_score(exc)


def _batch_scores(scorer: Scorer, result: Any, n: int) -> list[Score]:
    if not isinstance(result, list | tuple) or len(result) != n:
        size = f" of length {len(result)}" if isinstance(result, list | tuple) else ""
        raise ScoringError(
            f"{type(scorer).__name__}.score_batch returned {type(result).__name__}{size} for {n} samples; "
            "it must return a list with one Score per sample, in order"
        )
    return [_safe_score(scorer, r) for r in result]


def _copy_score(score: Score, **info: Any) -> Score:
    """An independent copy (no shared mutable metrics/info) with extra ``info`` keys."""
    return Score(
        value=score.value,
        status=score.status,
        metrics=copy.deepcopy(dict(score.metrics)),
        info={**copy.deepcopy(dict(score.info)), **info},
    )


def _with_retry_info(score: Score, retries: int, exhausted: bool) -> Score:
    if not retries and not exhausted:
        return score
    info = {**score.info, "retries": retries}
    if exhausted:
        info["retry_budget_exhausted"] = True
    return Score(score.value, score.status, score.metrics, info)


def _estimate_tokens(scorer: Scorer, sample: Sample) -> float:
    estimate = getattr(scorer, "estimate_tokens", None)
    if callable(estimate):
        try:
            return max(1.0, float(estimate(sample)))
        except Exception:
            pass
    prompt = sample.prompt
    chars = len(sample.response) + (
        0 if prompt is None else len(prompt if isinstance(prompt, str) else str(prompt))
    )
    return max(1.0, chars / _CHARS_PER_TOKEN)


def _reported_tokens(score: Score) -> float | None:
    """Tokens a scorer reported in ``info["tokens"]``: a number, or a mapping with ``total`` (else the sum)."""
    tokens = score.info.get("tokens")
    if isinstance(tokens, bool):
        return None
    if isinstance(tokens, int | float):
        return float(tokens)
    if isinstance(tokens, Mapping):
        if isinstance(tokens.get("total"), int | float):
            return float(tokens["total"])
        parts = [v for v in tokens.values() if isinstance(v, int | float) and not isinstance(v, bool)]
        return float(sum(parts)) if parts else None
    return None


def finish_batch(
    done: Sequence[Any], samples: Sequence[Sample], stats: dict[str, Any], on_error: Any
) -> ScoreBatch:
    """Assemble the :class:`ScoreBatch` of finished samples (``done[i]`` has ``score``, ``queue_s``,
    ``exec_s``) and apply the ``"raise"`` failure policy: a :class:`ScoringError` naming the first failed
    sample, with the whole batch attached as ``err.batch``."""
    result = ScoreBatch.from_scores(
        [d.score for d in done],
        queue_s=[round(d.queue_s, 6) for d in done],
        exec_s=[round(d.exec_s, 6) for d in done],
        stats=stats,
        on_error=None if on_error == "raise" else on_error,
    )
    if on_error == "raise" and result.num_failed:
        first = next(i for i, st in enumerate(result.statuses) if st is not Status.OK)
        err = _failure_error(result[first], samples[first], first, result.num_failed, len(result))
        err.batch = result  # type: ignore[attr-defined]
        raise err
    return result


def _failure_error(score: Score, sample: Sample, index: int | None, failed: int, n: int) -> ScoringError:
    where = "sample" if index is None else f"sample {index}"
    return ScoringError(
        f"{where} (uid={sample.uid!r}, task={sample.task!r}) failed with status {score.status.value}: "
        f"{score.info.get('error')}; {failed} of {n} sample(s) failed (on_error='raise')"
    )


def _name(fn: object) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "function")
    return f"{type(owner).__name__}.{name}" if owner is not None else name

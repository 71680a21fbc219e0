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

Timing: ``exec_s`` is the time an attempt ran (summed over attempts; for process work measured in the
worker, from the task's start there to its reply or kill). ``queue_s`` is the rest of the sample's latency
since the batch started: slots, rate limits, the pool's queue, backoff.

**One scheduler, pluggable executors.** This class is the scheduler: plans, ``quick()`` verdicts, de-duplication,
the cache, whole-share dispatch (group scorers, composites), statuses, stats and the failure policy. Where the
leaders of a batch are scored is the executor's job (``executor=``): :class:`~._local.LocalExecutor` (the default:
the event loop, threads, a worker pool; ``limiter=`` and ``pool=`` configure it) or
:class:`~._ray.RayExecutor` (Ray actors, each running a local runner; :class:`~._ray.RayRunner` is this class over
it). An executor has ``driver_quick(plan)``, ``await execute(batch)`` (it calls ``batch.prepare(...)``, or
``batch.prepare_part(...)`` part by part to start on the first leaders while the rest are prepared),
``await submit(plan, sample, ctx) -> Done``, ``await run_groups(runner, scorer, samples, on_done)``,
``await submit_group(runner, scorer, sample)``, ``refuse_gathering(reason)``, ``pool_stats()``,
``after_fork()`` and ``close()``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..errors import ConfigError
from ..scorers import GroupScorer, Scorer
from ..types import Sample, Score, ScoreBatch
from ._attempt import Budget, Context, Plan, StreamBudget, make_plan, run_quick, wants_quick
from ._batch import Batch, Executor
from ._cache import sample_key, scorer_fingerprint
from ._config import RunnerConfig
from ._limits import Limiter
from ._local import LocalExecutor
from ._report import Inflight, ResultCache, batch_stats, check_samples, failure_error
from ._sync import RunnerFacade, SyncBridge, resolve_scorer_like
from ._whole import run_whole, submit_whole
from ._workers import WorkerPool

__all__ = ["Runner", "batch_stats"]

_log = logging.getLogger(__name__)

T = TypeVar("T")
ScorerLike = Scorer | str | Callable[[Sample], Any]

_STREAM_PLANS = 64  # scorers whose plan submit() remembers


class Runner(RunnerFacade):
    """Scores samples with hard deadlines, isolation, limits, retries, de-duplication and a failure policy.

    ``Runner(config=None, *, executor=None, limiter=None, pool=None, **overrides)``: ``config`` is a
    :class:`RunnerConfig` or a mapping (parsed by :meth:`RunnerConfig.from_dict`); keyword overrides are config
    fields. ``executor`` is where samples are scored (default: a local executor built from the config, whose
    rate limiter ``limiter`` replaces and whose :class:`WorkerPool` ``pool`` lends, not to be closed here). The
    local executor creates its worker pool on first use of a process scorer and keeps it until :meth:`close`
    (or the end of a ``with`` block).

    Safe to share: any number of threads and event loops may call it at once; ``max_concurrency``,
    the rate limits and the cache are shared by all of them.
    """

    def __init__(
        self,
        config: RunnerConfig | Mapping[str, Any] | None = None,
        *,
        executor: Executor | None = None,
        limiter: Limiter | None = None,
        pool: WorkerPool | None = None,
        **overrides: Any,
    ) -> None:
        config = RunnerConfig.coerce(config, overrides)
        if executor is None:
            executor = LocalExecutor(config, limiter, pool)
        elif limiter is not None or pool is not None:
            raise ConfigError("limiter= and pool= configure the local executor; not allowed with executor=")
        self.config: RunnerConfig = config
        self.executor: Executor = executor
        self.cache = ResultCache(config.cache_size)
        self._stream_budget = StreamBudget(config.retry_budget)
        self._lock = threading.Lock()
        self._bridge = SyncBridge(type(self).__name__)
        self._inflight = Inflight()
        self._plans: OrderedDict[int, tuple[Scorer, Plan]] = OrderedDict()
        self._closed = False
        self._owner_pid = os.getpid()

    # -- public API ----------------------------------------------------------------------------------

    async def run(
        self,
        scorer: ScorerLike | Sequence[Scorer],
        samples: Iterable[Sample],
        *,
        on_done: Callable[[int], None] | None = None,
        ask_quick: bool = True,
    ) -> ScoreBatch:
        """Score ``samples``; the result is in input order.

        ``scorer`` is a :class:`Scorer`, a registered scorer name, a function ``fn(sample)`` (adapted
        with :func:`~rewardloop.as_scorer`), or a list with one :class:`Scorer` per sample (mixed
        batches, e.g. routed by task). ``on_done(i)`` is called in the event loop as sample ``i``
        finishes (progress bars). Per-sample failures are statuses, unless ``on_error="raise"``.
        ``ask_quick=False``: the caller already asked every sample's ``quick()`` (a Ray driver, which sends
        only the undecided ones), so it is not asked again.
        """
        t0 = time.perf_counter()
        self._check_usable()
        samples = check_samples(samples)
        scorers = self._scorers_for(scorer, len(samples))
        plans: dict[int, Plan] = {}
        for sc in scorers:
            if id(sc) not in plans:
                plan = self.plan(sc)
                plans[id(sc)] = plan if ask_quick else dataclasses.replace(plan, quick=False)
        whole = await run_whole(self, scorers, samples, on_done)  # composite / group scorers: whole shares
        if whole is not None:
            return whole
        ctx = Context(t0=t0, budget=Budget(self.config.retry_budget))
        batch = Batch(self, samples, [plans[id(sc)] for sc in scorers], ctx, on_done)
        await self.executor.execute(batch)
        return batch.report(self.config.on_error)

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
        resolved = resolve_scorer_like(scorer)
        score = await submit_whole(self, resolved, sample)  # a group member waits for its group
        if score is None:
            plan = self._stream_plan(resolved)
            key = sample_key(plan.fingerprint, sample) if plan.fingerprint is not None else None
            score = self.cache.get(key)
            if score is None:
                dedup_key = key if self.config.dedup else None
                score = await self._inflight.run(dedup_key, lambda: self._submit_one(plan, sample, key, t0))
        if self.config.on_error == "raise" and not score.ok:
            raise failure_error(score, sample, None, 1, 1)
        return score

    async def run_groups(
        self, scorer: GroupScorer, samples: Sequence[Sample], *, on_done: Callable[[int], None] | None = None
    ) -> ScoreBatch:
        """Score ``samples`` with a group scorer: each group (same uid) whole in one call on one executor slot
        (see :mod:`._grouped`). :meth:`run` comes here for group scorers."""
        return await self.executor.run_groups(self, scorer, list(samples), on_done)

    async def submit_group(self, scorer: GroupScorer, sample: Sample) -> Score:
        """Stream one member of a group: it waits for the rest of its group (see :mod:`._grouped`)."""
        return await self.executor.submit_group(self, scorer, sample)

    def refuse_gathering(self, reason: str) -> None:
        """Members of a group that would wait for members arriving in other calls fail at once instead
        (``invalid_input`` naming ``reason``): for deployments where those calls reach other processes."""
        self.executor.refuse_gathering(reason)

    def pool_stats(self) -> Any:
        """Counters of the executor's worker pool(s) (locally: None before any process scorer ran)."""
        return self.executor.pool_stats()

    def close(self) -> None:
        """Stop the private event loop and the executor (a local one closes the worker pool it owns).
        Idempotent.

        Meant for when no batch is running: a ``run_sync`` still in progress is cancelled (its caller gets
        ``CancelledError``); work already handed to the pool from other event loops finishes within its
        deadline before the workers exit.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._bridge.close()
        self.executor.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<{type(self).__name__} {self.executor!r} {state}>"

    # -- set-up --------------------------------------------------------------------------------------

    def _check_usable(self) -> None:
        if self._closed:
            raise RuntimeError(f"this {type(self).__name__} is closed")
        if os.getpid() != self._owner_pid:
            # Forked: the parent's loop thread, in-flight samples and locks are not ours (a lock may have
            # been held by a parent thread at fork time). Start afresh, lazily.
            self._owner_pid = os.getpid()
            self._lock = threading.Lock()
            self._bridge = SyncBridge(type(self).__name__)
            self._inflight = Inflight()
            self.executor.after_fork()

    def plan(self, scorer: Scorer) -> Plan:
        """How ``scorer`` runs here (mode, deadline, batch and quick flags, and its fingerprint when it is
        de-duplicated or cached)."""
        cfg = self.config
        plan = make_plan(scorer, execution=cfg.execution, timeout_s=cfg.timeout_s)
        # an inline scorer is cheap by contract: hashing a sample costs about what scoring it does (and more than
        # shipping it to a Ray actor), so only a result cache (which spans batches) keys it
        keyed = (cfg.dedup and plan.mode != "inline") or self.cache.enabled
        return dataclasses.replace(plan, fingerprint=scorer_fingerprint(scorer)) if keyed else plan

    def _stream_plan(self, scorer: Scorer) -> Plan:
        """:meth:`plan`, remembered for the last few scorers: streaming plans once per scorer, not
        once per sample (the entry holds the scorer, so its id cannot be reused while remembered)."""
        with self._lock:
            entry = self._plans.get(id(scorer))
            if entry is not None and entry[0] is scorer:
                self._plans.move_to_end(id(scorer))
                return entry[1]
        plan = self.plan(scorer)
        with self._lock:
            self._plans[id(scorer)] = (scorer, plan)
            while len(self._plans) > _STREAM_PLANS:
                self._plans.popitem(last=False)
        return plan

    async def _submit_one(self, plan: Plan, sample: Sample, key: str | None, t0: float) -> Score:
        ctx = Context(t0=t0, budget=self._stream_budget)
        done = None
        if wants_quick(plan, sample) and self.executor.driver_quick(plan):
            verdict, spent = run_quick(plan.scorer, sample)
            if verdict is not None:
                done = ctx.done(verdict, spent)
            else:
                plan = dataclasses.replace(plan, quick=False)
        if done is None:
            done = await self.executor.submit(plan, sample, ctx)
        self.cache.put(key, done.score, plan.scorer)
        self.log_if_slow(sample, None, done.exec_s, done.score)
        info = {**done.score.info, "queue_s": round(done.queue_s, 6), "exec_s": round(done.exec_s, 6)}
        if ctx.retries:
            info.setdefault("retries", ctx.retries)
        return Score(done.score.value, done.score.status, done.score.metrics, info)

    # -- reporting -----------------------------------------------------------------------------------

    def log_if_slow(self, sample: Sample, index: int | None, exec_s: float, score: Score) -> None:
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

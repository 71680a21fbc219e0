"""Score one sample, without a batch, on the runner's own attempt code.

:func:`score_one` is the single-sample sync path (the verl facade's ``default_compute_score`` and
``rewardloop.score`` run on it); :func:`ascore_one` is the same for an event loop. Both build the sample's
:class:`~rewardloop.execution._attempt.Plan` with :func:`~rewardloop.execution._attempt.make_plan` (the runner's
rules: async scorers are awaited, else the scorer's ``execution``; the deadline is ``timeout``, else
``scorer.timeout_s``) and run it through the local executor's :class:`~rewardloop.execution._local.Attempts`,
so the ``quick()`` size guard, deadlines, result checks (finite rewards) and failure statuses are the runner's:

* ``"inline"``: in the caller (``quick()`` first); no deadline.
* ``"thread"``: a daemon thread of its own under the deadline (at the deadline the caller stops *waiting*,
  status ``timeout``); without a deadline, in the calling thread, which blocks anyway.
* ``"process"``: a :class:`~rewardloop.execution._workers.WorkerPool` worker (``pool``, or
  :func:`~rewardloop.execution._workers.default_pool`), killed at the deadline.
* async: awaited under the deadline.

Work that leaves the caller runs on a private event loop (``score_one``) or the caller's loop
(``ascore_one``). Per-sample failures come back as a failed :class:`Score` (see
:func:`~rewardloop.execution._attempt.failure_score`); infrastructure errors are not retried here (the
:class:`Runner` retries). ``info["exec_s"]`` is the wall-clock time of the call. Configuration errors (an
unknown ``execution``, a bad ``timeout``) raise, naming what is allowed.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from typing import Any

from ..scorers import Scorer
from ..types import Sample, Score
from ._attempt import Budget, Context, Plan, failure_score, make_plan
from ._config import RunnerConfig
from ._limits import RateLimiter
from ._local import Attempts
from ._report import Done
from ._sync import SyncBridge
from ._workers import WorkerPool, default_pool

__all__ = ["ascore_one", "failure_score", "score_one"]

# one sample, one attempt: no retries (the Runner retries), no de-duplication, no cache
_CONFIG = RunnerConfig(retries=0, dedup=False, cache_size=0, slow_sample_s=None)
_lock = threading.Lock()
_attempts: dict[int, tuple[WorkerPool | None, Attempts]] = {}
_plans: dict[tuple[int, float | None], Plan] = {}
_bridge: SyncBridge | None = None
_pid = os.getpid()  # a forked child starts afresh: the parent's loop thread and slots are not its own


def score_one(
    scorer: Scorer,
    sample: Sample,
    *,
    timeout: float | None = None,
    pool: WorkerPool | None = None,
    timing: bool = True,
) -> Score:
    """Score one sample synchronously; per-sample failures come back as a failed :class:`Score`.

    ``timing=False`` skips recording ``info["exec_s"]`` (the verl facade's hot path does not report it)."""
    start = time.perf_counter()
    plan = _plan(scorer, timeout)
    if plan.mode == "thread" and plan.deadline is None:  # the caller blocks anyway: no thread needed
        plan = dataclasses.replace(plan, mode="inline")
    coro = _attempts_for(pool).score(plan, sample, Context(t0=start, budget=Budget(0)))
    # an inline attempt never waits (no retries, no limiter): it runs right here, in the caller
    inline = plan.mode == "inline"
    score = _run_without_loop(coro) if inline else _get_bridge().call_sync(coro).score
    return _with_timing(score, start) if timing else score


async def ascore_one(
    scorer: Scorer, sample: Sample, *, timeout: float | None = None, pool: WorkerPool | None = None
) -> Score:
    """:func:`score_one` for an event loop: work that leaves the loop (process, thread, async) is awaited."""
    start = time.perf_counter()
    plan = _plan(scorer, timeout)
    done = await _attempts_for(pool).score(plan, sample, Context(t0=start, budget=Budget(0)))
    return _with_timing(done.score, start)


def _plan(scorer: Scorer, timeout: float | None) -> Plan:
    """:func:`make_plan`, remembered for the last few (scorer, timeout) pairs: the verl facade calls this once
    per sample (the entry holds the scorer, so its id cannot be reused while remembered)."""
    key = (id(scorer), timeout)
    entry = _plans.get(key)
    if entry is not None and entry.scorer is scorer:
        return entry
    plan = make_plan(scorer, timeout_s=timeout)
    with _lock:
        if len(_plans) >= 64:
            _plans.clear()
        _plans[key] = plan
    return plan


def _run_without_loop(coro: Any) -> Score:
    """Drive a coroutine that completes without suspending (an inline attempt) to its result."""
    try:
        coro.send(None)
    except StopIteration as stop:
        done: Done = stop.value
        return done.score
    except Exception as exc:  # pragma: no cover - Attempts.score never raises for a sample
        return failure_score(exc)
    coro.close()  # pragma: no cover - an inline attempt has nothing to wait for
    raise RuntimeError("an inline attempt suspended")  # pragma: no cover


def _attempts_for(pool: WorkerPool | None) -> Attempts:
    """The attempts of one pool (the default pool's when None), made once and shared by every caller."""
    _after_fork()
    key = id(pool)
    entry = _attempts.get(key)
    if entry is not None and entry[0] is pool:
        return entry[1]
    with _lock:
        entry = _attempts.get(key)
        if entry is None or entry[0] is not pool:
            get_pool = (lambda: pool) if pool is not None else default_pool
            if len(_attempts) > 64:  # pools come and go (tests): forget the old ones
                _attempts.clear()
            entry = _attempts[key] = (pool, Attempts(_CONFIG, RateLimiter(None, None), get_pool))
        return entry[1]


def _after_fork() -> None:
    global _bridge, _lock, _pid
    if os.getpid() != _pid:
        _pid, _lock, _bridge = os.getpid(), threading.Lock(), None
        _attempts.clear()


def _get_bridge() -> SyncBridge:
    global _bridge
    _after_fork()
    with _lock:
        if _bridge is None:
            _bridge = SyncBridge("score_one")
        return _bridge


def _with_timing(score: Score, start: float) -> Score:
    info = {**score.info, "exec_s": round(time.perf_counter() - start, 6)}
    return dataclasses.replace(score, info=info)

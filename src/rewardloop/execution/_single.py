"""Score one sample under the scorer's declared execution mode, turning every per-sample failure into data.

:func:`score_one` is the single-sample sync path (the verl facade's ``default_compute_score`` runs on it);
:func:`ascore_one` is the same for an event loop. Both:

1. run ``scorer.quick(sample)`` inline; a non-``None`` verdict is final;
2. otherwise run ``scorer.score(sample)`` as ``scorer.execution`` says:

   * ``"inline"``: in the caller. The scorer promises bounded work, so no deadline is applied.
   * ``"thread"``: in a daemon thread of its own (in the caller's thread when there is no deadline); at the
     deadline the caller stops *waiting* (status ``timeout``): a thread cannot be killed, so it runs on in
     the background. Work that can hang belongs in ``"process"``.
   * ``"process"``: in a :class:`~rewardloop.execution._workers.WorkerPool` worker (``pool``, or
     :func:`~rewardloop.execution._workers.default_pool`), killed at the deadline
     (``timeout``, else ``scorer.timeout_s``).

3. never raise for a per-sample failure: :func:`failure_score` maps ``ScoringTimeout`` -> ``timeout``,
   ``WorkerCrashed`` -> ``crashed``/``oom``, ``InvalidSampleError`` -> ``invalid_input``,
   ``InfraError`` -> ``infra_error`` (no retry here; the Runner retries), and any other
   ``Exception`` -> ``scorer_error`` (``info["error"]`` = ``"ExcType: message"``, ``info["traceback"]``
   = a short traceback, the worker's one for process work). A result that is not a ``Score`` goes
   through :func:`~rewardloop.scorers._base.coerce_score`.

``info["exec_s"]`` holds the wall-clock seconds this call spent on the sample (quick check, queueing in
the pool and execution together). Configuration errors (an unknown ``execution``, a bad ``timeout``)
do raise, with the allowed values named.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from collections.abc import Callable
from typing import Any

from ..errors import (
    ConfigError,
    InfraError,
    InvalidSampleError,
    RateLimited,
    ScoringError,
    ScoringTimeout,
    WorkerCrashed,
)
from ..scorers import Scorer, coerce_score
from ..types import Sample, Score, Status
from ._worker_main import RemoteTraceback
from ._worker_proc import check_timeout
from ._workers import WorkerPool, default_pool

__all__ = ["ascore_one", "failure_score", "score_one"]

_EXECUTIONS = ("inline", "thread", "process")
_TB_CHARS = 2000


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
    execution, deadline = _plan(scorer, timeout)
    try:
        result = scorer.quick(sample)
        if result is None:
            if execution == "process":
                result = (pool or default_pool()).call(scorer.score, sample, timeout=deadline)
            elif execution == "thread" and deadline is not None:
                result = _in_thread_sync(scorer.score, sample, deadline)
            else:
                result = scorer.score(sample)
        score = _as_score(scorer, result)
    except Exception as exc:
        score = failure_score(exc)
    return _with_timing(score, start) if timing else score


def _in_thread_sync(fn: Callable[[Sample], Any], sample: Sample, deadline: float) -> Any:
    """``fn(sample)`` in a daemon thread, waited for up to ``deadline`` seconds (then ``ScoringTimeout``; the
    thread cannot be killed and is left to finish)."""
    import threading

    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["result"] = fn(sample)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=work, name="rewardloop-score", daemon=True)
    thread.start()
    thread.join(deadline)
    if thread.is_alive():
        raise ScoringTimeout(
            f"{_name(fn)} ran past its {deadline:g} s deadline in a thread; the thread cannot be stopped "
            "and may still be running (use execution='process' for work that can hang)"
        )
    if "error" in box:
        error = box["error"]
        if isinstance(error, Exception):
            raise error
        raise ScoringError(f"{_name(fn)} raised {type(error).__name__}: {error!r}")
    return box["result"]


async def ascore_one(
    scorer: Scorer, sample: Sample, *, timeout: float | None = None, pool: WorkerPool | None = None
) -> Score:
    """:func:`score_one` for an event loop: process work is awaited via ``pool.acall``, thread work via
    ``asyncio.to_thread`` (the deadline stops the waiting), inline work runs directly in the loop."""

    start = time.perf_counter()
    execution, deadline = _plan(scorer, timeout)
    try:
        result = scorer.quick(sample)
        if result is None:
            if execution == "process":
                result = await (pool or default_pool()).acall(scorer.score, sample, timeout=deadline)
            elif execution == "thread":
                result = await _in_thread(scorer.score, sample, deadline)
            else:
                result = scorer.score(sample)
        score = _as_score(scorer, result)
    except Exception as exc:
        score = failure_score(exc)
    return _with_timing(score, start)


async def _in_thread(fn: Callable[[Sample], Any], sample: Sample, deadline: float | None) -> Any:
    import asyncio

    work = asyncio.to_thread(fn, sample)
    if deadline is None:
        return await work
    try:
        return await asyncio.wait_for(work, deadline)
    except asyncio.TimeoutError:
        raise ScoringTimeout(
            f"{_name(fn)} ran past its {deadline:g} s deadline in a thread; the thread cannot be stopped "
            "and may still be running (use execution='process' for work that can hang)"
        ) from None


def failure_score(exc: BaseException) -> Score:
    """The failed :class:`Score` for an exception raised while scoring one sample."""
    if isinstance(exc, ScoringTimeout):
        status = Status.TIMEOUT
    elif isinstance(exc, WorkerCrashed):
        status = Status.OOM if exc.oom else Status.CRASHED
    elif isinstance(exc, InvalidSampleError):
        status = Status.INVALID_INPUT
    elif isinstance(exc, InfraError):
        status = Status.INFRA_ERROR
    else:
        status = Status.SCORER_ERROR
    error = f"{type(exc).__name__}: {exc}"
    # A traceback helps with scorer bugs and bad input; for a kill or a crash the message says it all,
    # unless the worker sent its own traceback (MemoryError).
    if status in (Status.SCORER_ERROR, Status.INVALID_INPUT) or isinstance(exc.__cause__, RemoteTraceback):
        return Score.failure(status, error, traceback=_short_traceback(exc))
    if isinstance(exc, RateLimited) and exc.retry_after is not None:
        return Score.failure(status, error, retry_after=exc.retry_after)
    return Score.failure(status, error)


def _plan(scorer: Scorer, timeout: float | None) -> tuple[str, float | None]:
    """Validate the scorer's execution mode and pick the deadline (config errors raise here)."""
    if not isinstance(scorer, Scorer):
        raise TypeError(f"expected a Scorer, got {type(scorer).__name__}; wrap functions with as_scorer()")
    execution = getattr(scorer, "execution", "inline")
    if execution not in _EXECUTIONS:
        raise ConfigError(f"{scorer!r} has execution={execution!r}; allowed: {', '.join(_EXECUTIONS)}")
    deadline = check_timeout(timeout if timeout is not None else getattr(scorer, "timeout_s", None))
    return execution, deadline


def _as_score(scorer: Scorer, result: Any) -> Score:
    """``result`` as a :class:`Score` (see :func:`coerce_score`); a non-finite reward is a ``scorer_error``."""
    if type(result) is Score and (result.value is None or result.value - result.value == 0.0):
        return result  # the common case, without building the source name
    return coerce_score(result, source=f"scorer {scorer.name!r}")


def _with_timing(score: Score, start: float) -> Score:
    info = {**score.info, "exec_s": round(time.perf_counter() - start, 6)}
    return dataclasses.replace(score, info=info)


def _short_traceback(exc: BaseException) -> str:
    """The worker-side traceback when the exception came from a worker, else the local one; the tail."""
    cause = exc.__cause__
    if isinstance(cause, RemoteTraceback):
        text = cause.tb
    else:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, chain=False))
    return text if len(text) <= _TB_CHARS else "...\n" + text[-_TB_CHARS:]


def _name(fn: object) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "function")
    return f"{type(owner).__name__}.{name}" if owner is not None else name

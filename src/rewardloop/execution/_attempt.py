"""One attempt at scoring, and what it needs: the per-scorer :class:`Plan`, the per-batch :class:`Context` and
retry budgets, the ``quick()`` guard, result checks (one :class:`Score` per sample, finite rewards), token
estimates for the rate limiter, and the time an attempt executed (:func:`ran_for`). Used by the runner for
single samples, chunks and groups alike."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
import traceback
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
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
from ._config import EXECUTIONS
from ._limits import TokenBucket
from ._report import Done
from ._worker_main import RemoteTraceback, safe_str
from ._worker_proc import check_timeout

__all__ = [
    "QUICK_MAX_CHARS",
    "Budget",
    "Context",
    "Plan",
    "Retry",
    "StreamBudget",
    "Timed",
    "as_score",
    "attempt_inline",
    "await_with_deadline",
    "batch_scores",
    "callable_name",
    "estimate_tokens",
    "failure_score",
    "is_async_scorer",
    "make_plan",
    "ran_for",
    "reported_tokens",
    "run_quick",
    "safe_score",
    "set_exec_s",
    "wants_quick",
    "with_retry_info",
]

_CHARS_PER_TOKEN = 4.0  # token estimate when a scorer reports none: roughly English text
_TB_CHARS = 2000  # tail of a traceback kept in a failed score's info


# quick() runs in the event loop with no deadline. It is linear-time, but on a multi-megabyte response
# even that is seconds of GIL-holding work (prime_math's quick() on 10 MB: ~1.7 s) that would delay
# every other sample; such responses go straight to score(), where a deadline applies. Skipping quick()
# never changes a verdict: it may only answer what score() would.
QUICK_MAX_CHARS = 200_000


@dataclass(frozen=True)
class Plan:
    """How one scorer runs in a runner (resolved once per scorer per batch)."""

    scorer: Scorer
    mode: str  # "async" | "inline" | "thread" | "process"
    deadline: float | None
    batch: bool
    quick: bool
    fingerprint: str | None  # None: never de-duplicated or cached


# (scores of the last attempt, seconds executed so far, delay before the next attempt, budget exhausted)
Retry = tuple[list[Score], float, float | None, bool]


@dataclass
class Context:
    """State of one batch (or one streamed sample)."""

    t0: float
    budget: Any  # has take() -> bool
    retries: int = 0
    executed_latency: list[float] = field(default_factory=list)
    executed_exec: list[float] = field(default_factory=list)

    def done(self, score: Score, exec_s: float) -> Done:
        """A sample executed now, ``exec_s`` of it executing: recorded for the stats; the rest was queueing."""
        latency = time.perf_counter() - self.t0
        self.executed_latency.append(latency)
        self.executed_exec.append(exec_s)
        return Done(score, max(0.0, latency - exec_s), exec_s)


class Budget:
    """``retry_budget`` retries for one batch."""

    def __init__(self, left: int) -> None:
        self.left = left

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


class StreamBudget:
    """``retry_budget`` retries per minute, for samples that arrive one by one."""

    def __init__(self, per_minute: int) -> None:
        self._bucket = TokenBucket(per_minute, capacity=per_minute) if per_minute else None

    def take(self) -> bool:
        return self._bucket is not None and self._bucket.try_take(1.0)


class Timed:
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


def is_async_scorer(scorer: Any) -> bool:
    flag = getattr(scorer, "is_async", None)
    if flag is not None:
        return bool(flag)
    return inspect.iscoroutinefunction(getattr(scorer, "ascore", None))


def make_plan(scorer: Scorer, *, execution: str | None = None, timeout_s: float | None = None) -> Plan:
    """How ``scorer`` runs: its mode (async when it is async, else ``execution`` or the scorer's own), its
    deadline (``timeout_s``, else the scorer's ``timeout_s``), batch and quick flags; not keyed (the runner adds
    a fingerprint where it de-duplicates). Configuration errors raise, naming what is allowed."""
    if not isinstance(scorer, Scorer):
        raise TypeError(f"expected a Scorer, got {type(scorer).__name__}; wrap functions with as_scorer()")
    mode: str
    if is_async_scorer(scorer):
        mode = "async"
    else:
        mode = str(execution or getattr(scorer, "execution", "inline"))
        if mode not in EXECUTIONS:
            raise ConfigError(f"{scorer!r} has execution={mode!r}; allowed: {', '.join(EXECUTIONS)}")
    timeout = timeout_s if timeout_s is not None else getattr(scorer, "timeout_s", None)
    return Plan(
        scorer=scorer,
        mode=mode,
        deadline=check_timeout(timeout),
        batch=bool(getattr(scorer, "supports_batch", False)) and mode != "async",
        quick=type(scorer).quick is not Scorer.quick,
        fingerprint=None,
    )


async def await_with_deadline(coro: Coroutine[Any, Any, Any], deadline: float | None, scorer: Scorer) -> Any:
    if deadline is None:
        return await coro
    try:
        return await asyncio.wait_for(coro, deadline)
    except asyncio.TimeoutError:
        raise ScoringTimeout(
            f"{type(scorer).__name__}.ascore ran past its {deadline:g} s deadline and was cancelled"
        ) from None


def set_exec_s(exc: BaseException, seconds: float) -> None:
    """Record on a failed attempt's exception how long the attempt itself ran (see :func:`ran_for`)."""
    with contextlib.suppress(AttributeError, TypeError):
        exc.exec_s = seconds  # type: ignore[attr-defined]


def ran_for(exc: BaseException, start: float) -> float:
    """Seconds a failed attempt executed: what its executor measured (a worker process from the task's start
    there to its end or kill, a thread from its start), else the time since ``start`` (inline and async work,
    which start at once)."""
    measured = getattr(exc, "exec_s", None)
    if isinstance(measured, int | float) and not isinstance(measured, bool):
        return float(measured)
    return time.perf_counter() - start


def wants_quick(plan: Plan, sample: Sample) -> bool:
    """Whether to try ``quick()`` inline: always for inline scorers (their score() runs inline anyway),
    otherwise only for responses short enough that it is cheap (see ``QUICK_MAX_CHARS``)."""
    if not plan.quick:
        return False
    response = sample.response
    return plan.mode == "inline" or not isinstance(response, str) or len(response) <= QUICK_MAX_CHARS


def run_quick(scorer: Scorer, sample: Sample) -> tuple[Score | None, float]:
    """The scorer's inline verdict (None: undecided) and the seconds it took."""
    start = time.perf_counter()
    try:
        verdict = scorer.quick(sample)
    except (Exception, SystemExit) as exc:  # sys.exit() in a scorer is that sample's failure, not the run's
        verdict = failure_score(exc)
    spent = time.perf_counter() - start
    return (None if verdict is None else safe_score(scorer, verdict)), spent


def attempt_inline(scorer: Scorer, sample: Sample) -> tuple[list[Score], float, BaseException | None]:
    """One inline attempt without the slot and the limiter (:meth:`Runner._attempt`'s fast path).

    An inline scorer runs to completion without yielding to the event loop, so a concurrency slot would be
    held for no await at all, and an idle limiter has nothing to grant: the result is the same, minus the
    bookkeeping that costs more than a cheap scorer does.
    """
    start = time.perf_counter()
    try:
        return [safe_score(scorer, scorer.score(sample))], time.perf_counter() - start, None
    except (Exception, SystemExit) as exc:  # sys.exit() in a scorer is that sample's failure, not the run's
        return [failure_score(exc)], time.perf_counter() - start, exc


def as_score(scorer: Scorer, result: Any) -> Score:
    """``result`` as a :class:`Score` (see :func:`coerce_score`); a non-finite reward is a ``scorer_error``."""
    if type(result) is Score and (result.value is None or result.value - result.value == 0.0):
        return result  # the common case, without building the source name
    return coerce_score(result, source=f"scorer {scorer.name!r}")


def failure_score(exc: BaseException) -> Score:
    """The failed :class:`Score` for an exception raised while scoring: ``ScoringTimeout`` -> ``timeout``,
    ``WorkerCrashed`` -> ``crashed``/``oom``, ``InvalidSampleError`` -> ``invalid_input``, ``InfraError`` ->
    ``infra_error``, any other exception -> ``scorer_error`` (with a short traceback, the worker's one for
    process work)."""
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
    error = f"{type(exc).__name__}: {safe_str(exc)}"  # an exception whose str() raises is one failed sample
    # A traceback helps with scorer bugs and bad input; for a kill or a crash the message says it all,
    # unless the worker sent its own traceback (MemoryError).
    if status in (Status.SCORER_ERROR, Status.INVALID_INPUT) or isinstance(exc.__cause__, RemoteTraceback):
        return Score.failure(status, error, traceback=_short_traceback(exc))
    if isinstance(exc, RateLimited) and exc.retry_after is not None:
        return Score.failure(status, error, retry_after=exc.retry_after)
    return Score.failure(status, error)


def _short_traceback(exc: BaseException) -> str:
    """The worker-side traceback when the exception came from a worker, else the local one; the tail."""
    cause = exc.__cause__
    if isinstance(cause, RemoteTraceback):
        text = cause.tb
    else:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, chain=False))
    return text if len(text) <= _TB_CHARS else "...\n" + text[-_TB_CHARS:]


def safe_score(scorer: Scorer, result: Any) -> Score:
    try:
        return as_score(scorer, result)
    except Exception as exc:  # a Score-like object whose coercion blows up
        return failure_score(exc)


def batch_scores(scorer: Scorer, result: Any, n: int) -> list[Score]:
    if not isinstance(result, list | tuple) or len(result) != n:
        size = f" of length {len(result)}" if isinstance(result, list | tuple) else ""
        raise ScoringError(
            f"{type(scorer).__name__}.score_batch returned {type(result).__name__}{size} for {n} samples; "
            "it must return a list with one Score per sample, in order"
        )
    return [safe_score(scorer, r) for r in result]


def with_retry_info(score: Score, retries: int, exhausted: bool) -> Score:
    if not retries and not exhausted:
        return score
    info = {**score.info, "retries": retries}
    if exhausted:
        info["retry_budget_exhausted"] = True
    return Score(score.value, score.status, score.metrics, info)


def estimate_tokens(scorer: Scorer, sample: Sample) -> float:
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


def reported_tokens(score: Score) -> float | None:
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


def callable_name(fn: object) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "function")
    return f"{type(owner).__name__}.{name}" if owner is not None else name

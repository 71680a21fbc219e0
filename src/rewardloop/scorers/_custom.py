"""User reward functions (verl's ``compute_score`` contract) as scorers, safe by default.

A custom function is user code: it may loop forever, segfault, call ``os._exit`` or leak memory. So a sync
function runs, by default, in the runner's killable worker processes under a per-sample deadline
(:data:`DEFAULT_TIMEOUT_S`): a sample that hangs or kills its worker fails with its status
(``timeout``, ``worker_crashed`` ...) and leaves no thread or process behind. To get there a function must
reach a fresh interpreter:

* loaded by path (:func:`load_custom_function`, ``file.py`` / ``pkg://``): it travels as
  ``(path, name, reward_kwargs)`` and each worker loads it once (:class:`PathFunction`);
* an importable module-level function: pickled by reference;
* anything else (a closure, a lambda, a function of ``__main__`` or of a file module): pickled by value
  with ``cloudpickle``.

A function that cannot travel (it holds a lock, a socket, a model) runs in a thread instead, with a
warning: a deadline then fails the sample but cannot stop the thread. Opt out explicitly with
``execution="thread"`` (or ``reward.runner.execution: thread``) for functions that must share the
caller's memory. Async functions are awaited in the event loop under the same deadline (cancellation
stops them at their next ``await``).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any, cast

from .._loader import load_extern_object
from ..errors import CustomFunctionError
from ..types import Sample, Score
from ._base import Execution, Scorer, coerce_score
from ._ship import shippable

__all__ = [
    "BATCH_SCORE_PARAMS",
    "DEFAULT_ASYNC_TIMEOUT_S",
    "DEFAULT_TIMEOUT_S",
    "SCORE_PARAMS",
    "CustomFunctionScorer",
    "PathFunction",
    "load_custom_function",
    "load_custom_function_by_reference",
    "shippable",
]

logger = logging.getLogger(__name__)

SCORE_PARAMS = ("data_source", "solution_str", "ground_truth", "extra_info")
BATCH_SCORE_PARAMS = ("data_sources", "solution_strs", "ground_truths", "extra_infos")

#: default per-sample deadline of a sync custom function (``reward.runner.timeout_s`` overrides it)
DEFAULT_TIMEOUT_S = 60.0
#: default deadline of an async one (verl's ``rate_limited`` default: judges over HTTP are slow)
DEFAULT_ASYNC_TIMEOUT_S = 300.0


def _check_signature(
    fn: Callable[..., Any], params: tuple[str, ...], reward_kwargs: Mapping[str, Any]
) -> None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return  # builtins without a signature: trust the caller
    try:
        sig.bind(**{**dict.fromkeys(params), **reward_kwargs})
    except TypeError as exc:
        fn_name = getattr(fn, "__name__", repr(fn))
        raise CustomFunctionError(
            f"custom reward function {fn_name}{sig} cannot be called as verl calls it: {exc}. "
            f"It must accept the keyword arguments {', '.join(params)}"
            + (f", plus reward_kwargs {sorted(reward_kwargs)}" if reward_kwargs else "")
            + " (add **kwargs to accept extra ones such as reward_router_address)."
        ) from None


def _load_checked(
    path: str, name: str, reward_kwargs: Mapping[str, Any], batch: bool = False
) -> Callable[..., Any]:
    fn = load_extern_object(path, name)
    if not callable(fn):
        raise CustomFunctionError(f"{name!r} in {path!r} is a {type(fn).__name__}, not a function")
    _check_signature(fn, BATCH_SCORE_PARAMS if batch else SCORE_PARAMS, reward_kwargs)
    return cast("Callable[..., Any]", fn)


class PathFunction:
    """A custom function by reference: pickles as ``(path, name, reward_kwargs)`` and loads itself on first
    call in the process it lands in. Calls merge ``{**call_kwargs, **reward_kwargs}`` (the config wins)."""

    travels = True  # :func:`~rewardloop.scorers._ship.shippable` sends it as it is

    def __init__(
        self,
        path: str,
        name: str,
        reward_kwargs: Mapping[str, Any] | None = None,
        fn: Callable[..., Any] | None = None,
    ) -> None:
        self.path, self.name = path, name
        self.reward_kwargs = dict(reward_kwargs or {})
        self.__name__ = name
        self._fn = fn

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "name": self.name, "reward_kwargs": self.reward_kwargs}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["name"], state["reward_kwargs"])  # type: ignore[misc]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fn is None:
            self._fn = _load_checked(self.path, self.name, self.reward_kwargs)
        return self._fn(*args, **{**kwargs, **self.reward_kwargs})

    def __repr__(self) -> str:
        return f"PathFunction({self.path!r}, {self.name!r})"


def load_custom_function(
    path: str,
    name: str | None = "compute_score",
    reward_kwargs: Mapping[str, Any] | None = None,
    *,
    batch: bool = False,
) -> Callable[..., Any]:
    """Load a verl custom reward function and bind its ``reward_kwargs``.

    The result takes verl's keyword call and merges ``{**call_kwargs, **reward_kwargs}`` (the config wins,
    as in verl). A sync function comes back as a :class:`PathFunction` (it can travel to worker processes);
    an async one stays async (``inspect.iscoroutinefunction`` is true for the result). ``batch=True`` checks
    the plural signature of verl's ``batch`` manager instead.
    """
    name = name or "compute_score"
    reward_kwargs = dict(reward_kwargs or {})
    fn = _load_checked(path, name, reward_kwargs, batch)
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await fn(*args, **{**kwargs, **reward_kwargs})

        return call_async
    return PathFunction(path, name, reward_kwargs, fn)


#: kept for callers of the earlier name: :func:`load_custom_function` now always returns a travelling function
load_custom_function_by_reference = load_custom_function


class CustomFunctionScorer(Scorer):
    """A verl-style ``compute_score(data_source, solution_str, ground_truth, extra_info, **kw)`` as a scorer.

    ``execution``: None (default) runs a sync function in worker processes when it can travel there (see
    the module docstring), else in a thread with a warning; ``"thread"`` / ``"inline"`` opt out. Async
    functions are awaited. ``timeout_s`` defaults to :data:`DEFAULT_TIMEOUT_S` (sync) or
    :data:`DEFAULT_ASYNC_TIMEOUT_S` (async); the runner's ``timeout_s`` overrides both. The function gets
    its own deep copy of ``extra_info``; results are coerced with :func:`~rewardloop.scorers._base.coerce_score`.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        *,
        tokens_per_request: int | None = None,
        execution: Execution | None = None,
        timeout_s: float | None = None,
        **call_kwargs: Any,
    ) -> None:
        self.name = name or str(getattr(fn, "__name__", "custom"))  # type: ignore[misc]
        self.call_kwargs = call_kwargs
        self.is_async = inspect.iscoroutinefunction(fn)
        self.fn = fn
        if self.is_async:
            mode: Execution = "inline"
        elif execution == "process":  # asked for: it must travel (a __main__ function by value, as below)
            travelling = shippable(fn)
            if travelling is None:
                raise CustomFunctionError(
                    f"custom reward function {self.name!r} cannot be sent to a worker process (it does not "
                    "pickle, even by value); define it at module top level, load it by path, or use "
                    "execution='thread'"
                )
            self.fn, mode = travelling, "process"
        elif execution is not None:
            mode = execution
        else:
            travelling = shippable(fn)
            if travelling is None:
                logger.warning(
                    "custom reward function %r cannot be sent to a worker process; it runs in a thread, where a "
                    "deadline fails the sample but cannot stop it. Define it at module top level or load it by "
                    "path (custom_reward_function.path) to isolate it.",
                    self.name,
                )
                mode = "thread"
            else:
                self.fn, mode = travelling, "process"
        self.execution = mode  # type: ignore[misc]
        default = DEFAULT_ASYNC_TIMEOUT_S if self.is_async else DEFAULT_TIMEOUT_S
        self.timeout_s = default if timeout_s is None else timeout_s  # type: ignore[misc]
        if tokens_per_request is not None:
            # what a rate limit (tpm) charges per call: verl's estimated_tokens_per_request
            self.estimate_tokens = _Constant(float(tokens_per_request))

    def _kwargs(self, sample: Sample) -> dict[str, Any]:
        return {
            **self.call_kwargs,
            "data_source": sample.task,
            "solution_str": sample.response,
            "ground_truth": sample.ground_truth,
            "extra_info": sample.metadata_copy(),
        }

    def score(self, sample: Sample) -> Score:
        result = self.fn(**self._kwargs(sample))
        if inspect.isawaitable(result):
            result = asyncio.run(_await(result))
        return coerce_score(result, source=f"custom reward function {self.name!r}")

    async def ascore(self, sample: Sample) -> Score:
        result = self.fn(**self._kwargs(sample))
        if inspect.isawaitable(result):
            result = await result
        return coerce_score(result, source=f"custom reward function {self.name!r}")


class _Constant:
    def __init__(self, value: float) -> None:
        self.value = value

    def __call__(self, *args: Any) -> float:
        return self.value


async def _await(awaitable: Any) -> Any:
    return await awaitable

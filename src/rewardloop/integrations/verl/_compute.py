"""verl's public reward contracts, implemented on rewardloop's scorers and execution layer.

This is the only module that knows verl's names (``data_source``, ``solution_str``, ``extra_info``,
``reward_kwargs`` ...). It provides:

* :func:`default_compute_score` -- verl's signature, routing table and return convention (float, or a dict
  with ``"score"`` plus extra keys for the DAPO sources). Scorers that may blow up (sympy, math-verify) run
  in a killable worker process under a deadline, so this function is safe to call from any thread,
  event loop or Ray actor.
* :func:`load_custom_function` / :func:`get_custom_reward_fn` -- verl's custom reward function loading
  (``path`` + ``name``, ``pkg://`` and ``file://`` paths, ``reward_kwargs`` merged over call kwargs with the
  config winning, async functions detected), with clear errors for bad paths, names and signatures.
* :class:`CustomFunctionScorer` -- a verl-style ``compute_score`` function as a rewardloop scorer.

Deliberate differences from verl are listed in ``docs/verl-differences.md``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any

from ..._loader import load_extern_object
from ...errors import CustomFunctionError, InvalidSampleError
from ...scorers._base import Scorer, coerce_score
from ...scorers._registry import resolve_scorer
from ...scorers.code import CodeScorer
from ...types import Sample, Score, Status

__all__ = [
    "CustomFunctionScorer",
    "PathFunction",
    "default_compute_score",
    "get_custom_reward_fn",
    "load_custom_function",
    "load_custom_function_by_reference",
    "sample_from_row",
    "sample_from_verl",
    "to_verl_result",
]

logger = logging.getLogger(__name__)

SCORE_PARAMS = ("data_source", "solution_str", "ground_truth", "extra_info")
BATCH_SCORE_PARAMS = ("data_sources", "solution_strs", "ground_truths", "extra_infos")


def sample_from_verl(
    data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any = None, prompt: Any = None
) -> Sample:
    """Build a :class:`Sample` from verl's per-sample fields; raises ``TypeError`` naming the bad field."""
    if not isinstance(solution_str, str):
        raise TypeError(f"solution_str must be a str, got {type(solution_str).__name__}")
    if extra_info is not None and not isinstance(extra_info, Mapping):
        raise TypeError(f"extra_info must be a dict or None, got {type(extra_info).__name__}")
    return Sample(
        response=solution_str,
        ground_truth=ground_truth,
        task=data_source,
        prompt=prompt,
        metadata=extra_info or {},
    )


def _nested(value: Any, field: str) -> Any:
    """A dict field that some exporters store as its JSON or Python-literal text (never evaluated as code)."""
    if isinstance(value, str):
        import ast
        import json

        try:
            return json.loads(value)
        except ValueError:
            try:
                return ast.literal_eval(value)
            except (ValueError, SyntaxError):
                raise InvalidSampleError(
                    f"{field} is a string that is not a JSON/Python dict literal"
                ) from None
    return value


def sample_from_row(row: Mapping[str, Any], response_key: str = "response") -> Sample:
    """Build a :class:`Sample` from a row in verl's dataset layout plus a response column.

    Reads ``data_source``, ``reward_model.ground_truth``, ``extra_info``, ``prompt`` and ``row[response_key]``.
    Raises :class:`InvalidSampleError` naming the missing or mistyped field.
    """
    if "_error" in row:
        raise InvalidSampleError(str(row["_error"]))
    present = sorted(map(str, row))
    if response_key not in row:
        raise InvalidSampleError(
            f"row has no {response_key!r} field (pick the response column with --response-key); fields: {present}"
        )
    response = row[response_key]
    if not isinstance(response, str):
        raise InvalidSampleError(f"{response_key!r} must be a string, got {type(response).__name__}")
    data_source = row.get("data_source")
    if not isinstance(data_source, str) or not data_source:
        raise InvalidSampleError(
            f"'data_source' must be a non-empty string, got {data_source!r}; fields: {present}"
        )
    reward_model = _nested(row.get("reward_model"), "reward_model")
    if not isinstance(reward_model, Mapping) or "ground_truth" not in reward_model:
        raise InvalidSampleError(
            "row needs 'reward_model': {'ground_truth': ...} (verl layout); "
            f"got reward_model={reward_model!r:.120}"
        )
    extra_info = _nested(row.get("extra_info"), "extra_info")
    if extra_info is not None and not isinstance(extra_info, Mapping):
        raise InvalidSampleError(f"'extra_info' must be a dict or null, got {type(extra_info).__name__}")
    uid = row.get("uid")
    return Sample(
        response=response,
        ground_truth=reward_model["ground_truth"],
        task=data_source,
        prompt=row.get("prompt"),
        metadata=extra_info or {},
        uid=None if uid is None else str(uid),
    )


def to_verl_result(scorer: Scorer, score: Score, on_error: float = 0.0) -> float | dict[str, Any]:
    """verl's return convention: a float, or ``{"score": ..., **metrics}`` for scorers that return dicts.

    A failed score becomes ``on_error`` with the scorer's usual keys (metrics it did not compute are
    ``None``), so the shape of results never changes inside a batch. The failure is logged.
    """
    if score.ok:
        value = float(score.value)  # type: ignore[arg-type]
        return {"score": value, **score.metrics} if scorer.returns_dict else value
    logger.warning(
        "%s: %s (%s); reward set to %s", scorer.name, score.status.value, score.info.get("error"), on_error
    )
    if scorer.returns_dict:
        return {"score": float(on_error), **dict.fromkeys(scorer.metric_keys)}
    return float(on_error)


def default_compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    sandbox_fusion_url: str | None = None,
    concurrent_semaphore: Any = None,
    memory_limit_mb: int | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    """Score one response with the scorer routed for ``data_source`` (verl's contract).

    Returns a float, or a dict with ``"score"`` for the DAPO sources. Unknown sources raise
    ``NotImplementedError("Reward function is not implemented for data_source='xyz'")``. A sample that
    fails (timeout, crash, malformed input) does not raise: it gets ``on_error`` (keyword, default 0.0) and
    the failure is logged; use :func:`rewardloop.score` to get the failure status as data. ``timeout``
    (keyword) overrides the scorer's deadline. For the code sources, ``memory_limit_mb`` is the sandbox's
    memory limit per test, and ``sandbox_fusion_url`` (a SandboxFusion server, or ``rewardloop sandbox
    serve``; with or without ``/run_code``) runs the tests there through
    :class:`~rewardloop.sandbox.fusion.SandboxFusionClient` instead of the local sandbox: its outages,
    after retries, are ``infra_error`` failures, never failed tests. ``concurrent_semaphore`` is not
    used: the client bounds requests per URL process-wide.
    """
    from ...execution._single import score_one

    on_error = float(kwargs.pop("on_error", 0.0))
    timeout = kwargs.pop("timeout", None)
    scorer = resolve_scorer(data_source)
    if isinstance(scorer, CodeScorer):
        options: dict[str, Any] = {}
        if sandbox_fusion_url:
            from ...sandbox.fusion import SandboxFusionClient

            options["sandbox"] = SandboxFusionClient(sandbox_fusion_url)
        if memory_limit_mb is not None:
            options["memory_mb"] = int(memory_limit_mb)
        if options:
            scorer = scorer.with_options(**options)
    try:
        sample = sample_from_verl(data_source, solution_str, ground_truth, extra_info)
    except TypeError as exc:
        score = Score.failure(Status.INVALID_INPUT, str(exc))
    else:
        score = score_one(scorer, sample, timeout=timeout, timing=False)
    return to_verl_result(scorer, score, on_error)


# --------------------------------------------------------------------------------------------------
# custom reward functions


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


def load_custom_function(
    path: str,
    name: str | None = "compute_score",
    reward_kwargs: Mapping[str, Any] | None = None,
    *,
    batch: bool = False,
) -> Callable[..., Any]:
    """Load a verl custom reward function and bind its ``reward_kwargs``.

    The result takes verl's keyword call and merges ``{**call_kwargs, **reward_kwargs}`` (the config wins,
    as in verl). Async functions stay async (``inspect.iscoroutinefunction`` is true for the result).
    ``batch=True`` checks the plural signature of verl's ``batch`` manager instead.
    """
    name = name or "compute_score"
    fn = load_extern_object(path, name)
    if not callable(fn):
        raise CustomFunctionError(f"{name!r} in {path!r} is a {type(fn).__name__}, not a function")
    reward_kwargs = dict(reward_kwargs or {})
    _check_signature(fn, BATCH_SCORE_PARAMS if batch else SCORE_PARAMS, reward_kwargs)
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await fn(*args, **{**kwargs, **reward_kwargs})

        return call_async

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **{**kwargs, **reward_kwargs})

    return call


def _cfg_get(cfg: Any, key: str, default: Any = None) -> Any:
    if cfg is None:
        return default
    if isinstance(cfg, Mapping):
        return cfg.get(key, default)
    return getattr(cfg, key, default)


def get_custom_reward_fn(config: Any) -> Callable[..., Any] | None:
    """verl's ``get_custom_reward_fn(config)``: the configured custom function, or None when no path is set.

    Reads ``config.reward.custom_reward_function`` (verl >= 0.6 layout) or ``config.custom_reward_function``
    (older layout) with keys ``path``, ``name`` and ``reward_kwargs``.
    """
    section = _cfg_get(_cfg_get(config, "reward"), "custom_reward_function") or _cfg_get(
        config, "custom_reward_function"
    )
    path = _cfg_get(section, "path")
    if not path:
        return None
    name = _cfg_get(section, "name") or "compute_score"
    reward_kwargs = dict(_cfg_get(section, "reward_kwargs") or {})
    return load_custom_function(path, name, reward_kwargs)


class PathFunction:
    """A custom function by reference: pickles as ``(path, name, reward_kwargs)`` and loads itself on first call.

    This is how a function defined in a file reaches worker processes (plain pickle cannot carry it).
    """

    def __init__(self, path: str, name: str, reward_kwargs: Mapping[str, Any] | None = None) -> None:
        self.path, self.name = path, name
        self.reward_kwargs = dict(reward_kwargs or {})
        self.__name__ = name
        self._fn: Callable[..., Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "name": self.name, "reward_kwargs": self.reward_kwargs}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["name"], state["reward_kwargs"])  # type: ignore[misc]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fn is None:
            self._fn = load_custom_function(self.path, self.name, self.reward_kwargs)
        return self._fn(*args, **kwargs)


def load_custom_function_by_reference(
    path: str, name: str | None = "compute_score", reward_kwargs: Mapping[str, Any] | None = None
) -> Callable[..., Any]:
    """Load (and so check) a custom function; a sync one comes back as a :class:`PathFunction`, which can
    travel to worker processes, an async one as loaded (it is awaited in the event loop)."""
    fn = load_custom_function(path, name, reward_kwargs)
    if inspect.iscoroutinefunction(fn):
        return fn
    return PathFunction(path, name or "compute_score", reward_kwargs)


class CustomFunctionScorer(Scorer):
    """A verl-style ``compute_score(data_source, solution_str, ground_truth, extra_info, **kw)`` as a scorer.

    The function gets its own deep copy of ``extra_info``. Async functions are awaited (in a private event
    loop when called synchronously). Results are coerced with :func:`~rewardloop.scorers._base.coerce_score`.
    """

    execution = "thread"  # type: ignore[assignment]

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        *,
        tokens_per_request: int | None = None,
        **call_kwargs: Any,
    ) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "custom")  # type: ignore[misc]
        self.call_kwargs = call_kwargs
        self.is_async = inspect.iscoroutinefunction(fn)
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

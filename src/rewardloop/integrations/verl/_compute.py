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

import logging
from collections.abc import Callable, Mapping
from typing import Any

from ..._io import response_text
from ...errors import InvalidSampleError
from ...scorers import (
    CustomFunctionScorer,
    PathFunction,
    Scorer,
    load_custom_function,
    load_custom_function_by_reference,
    resolve_scorer,
)
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
    response = response_text(row[response_key], response_key)
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
    from ...execution import score_one

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
# custom reward functions (the loader and scorer live in the core: rewardloop.scorers._custom)


def _cfg_get(cfg: Any, key: str, default: Any = None) -> Any:
    if cfg is None:
        return default
    if isinstance(cfg, Mapping):
        return cfg.get(key, default)
    return getattr(cfg, key, default)


def config_path(cfg: Any, *keys: str) -> Any:
    """``cfg.a.b.c`` of a trainer config (dict, OmegaConf node or object), None where any step is missing."""
    for key in keys:
        cfg = _cfg_get(cfg, key)
    return cfg


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

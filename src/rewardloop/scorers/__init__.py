"""Scorers: the :class:`Scorer` protocol, the registry and routing table, group scorers and custom functions.

The public home of the names other packages and users need; the modules behind it are private. Names resolve
on first attribute access, so importing this package (which every scorer module does) stays cheap. Each rule
scorer's own module (``rewardloop.scorers.gsm8k``, ``math_dapo``, ...) stays importable as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "BATCH_SCORE_PARAMS",
    "DEFAULT_ASYNC_TIMEOUT_S",
    "DEFAULT_TIMEOUT_S",
    "GROUP_MODES",
    "ROUTES",
    "SCORERS",
    "SCORE_PARAMS",
    "CustomFunctionScorer",
    "Execution",
    "FunctionScorer",
    "GroupRelative",
    "GroupScorer",
    "ListwiseJudge",
    "PairwiseJudge",
    "PathFunction",
    "Route",
    "RouteTable",
    "Scorer",
    "as_scorer",
    "build_scorer",
    "coerce_score",
    "get_scorer",
    "load_custom_function",
    "load_custom_function_by_reference",
    "register_route",
    "register_scorer",
    "resolve_scorer",
    "shippable",
]

_LAZY = {
    **dict.fromkeys(("Execution", "FunctionScorer", "Scorer", "as_scorer", "coerce_score"), "._base"),
    **dict.fromkeys(
        (
            "ROUTES",
            "SCORERS",
            "Route",
            "RouteTable",
            "build_scorer",
            "get_scorer",
            "register_route",
            "register_scorer",
            "resolve_scorer",
        ),
        "._registry",
    ),
    **dict.fromkeys(
        ("GROUP_MODES", "GroupRelative", "GroupScorer", "ListwiseJudge", "PairwiseJudge"), "._group"
    ),
    **dict.fromkeys(
        (
            "BATCH_SCORE_PARAMS",
            "DEFAULT_ASYNC_TIMEOUT_S",
            "DEFAULT_TIMEOUT_S",
            "SCORE_PARAMS",
            "CustomFunctionScorer",
            "PathFunction",
            "load_custom_function",
            "load_custom_function_by_reference",
            "shippable",
        ),
        "._custom",
    ),
}

if TYPE_CHECKING:
    from ._base import Execution, FunctionScorer, Scorer, as_scorer, coerce_score
    from ._custom import (
        BATCH_SCORE_PARAMS,
        DEFAULT_ASYNC_TIMEOUT_S,
        DEFAULT_TIMEOUT_S,
        SCORE_PARAMS,
        CustomFunctionScorer,
        PathFunction,
        load_custom_function,
        load_custom_function_by_reference,
        shippable,
    )
    from ._group import GROUP_MODES, GroupRelative, GroupScorer, ListwiseJudge, PairwiseJudge
    from ._registry import (
        ROUTES,
        SCORERS,
        Route,
        RouteTable,
        build_scorer,
        get_scorer,
        register_route,
        register_scorer,
        resolve_scorer,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rewardloop.scorers' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

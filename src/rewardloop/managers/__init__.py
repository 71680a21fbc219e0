"""Reward managers: batch and stream orchestration, shaping and token placement.

:class:`RewardManager` composes a scorer (or the routing table), a runner and shapers; verl's managers in
:mod:`rewardloop.integrations.verl` are facades over it. Token placement (:func:`place_at_last_token`) and
:class:`RolloutBatch` need torch/numpy, imported on first use.
"""

from __future__ import annotations

from typing import Any

from ._batch import RolloutBatch, RolloutItem
from ._composite import Component, Composite, with_group_size
from ._manager import (
    RewardManager,
    TaskRouter,
    code_options,
    custom_function_scorer,
    runner_config_from,
    runner_from_config,
)
from ._shaping import OverlongPenalty, Shaper
from ._tensors import last_token_index, place_at_last_token, response_lengths

__all__ = [
    "Component",
    "Composite",
    "OverlongPenalty",
    "RewardManager",
    "RolloutBatch",
    "RolloutItem",
    "Shaper",
    "TaskRouter",
    "code_options",
    "custom_function_scorer",
    "last_token_index",
    "place_at_last_token",
    "response_lengths",
    "runner_config_from",
    "runner_from_config",
    "with_group_size",
]


# deprecated names, kept working with a warning (no two public classes share a name: issue 24)
_DEPRECATED = {"Router": "TaskRouter"}


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        import warnings

        new = _DEPRECATED[name]
        warnings.warn(
            f"rewardloop.managers.{name} is deprecated; use rewardloop.managers.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return globals()[new]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

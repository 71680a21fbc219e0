"""rewardloop: turn LLM rollouts into rewards for RL post-training.

Importing this package is cheap: it pulls in no torch, ray, fastapi or transformers, and scorers are
imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    ConfigError,
    CustomFunctionError,
    InfraError,
    InvalidSampleError,
    MissingExtraError,
    RateLimited,
    RewardLoopError,
    ScoringError,
    ScoringTimeout,
    UnknownScorerError,
    UnknownTaskError,
    WorkerCrashed,
)
from .types import Sample, Score, ScoreBatch, Status

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "CustomFunctionError",
    "InfraError",
    "InvalidSampleError",
    "MissingExtraError",
    "RateLimited",
    "RayRunner",
    "RewardConfig",
    "RewardLoopError",
    "RewardManager",
    "Runner",
    "RunnerConfig",
    "Sample",
    "Score",
    "ScoreBatch",
    "Scorer",
    "ScoringError",
    "ScoringTimeout",
    "Status",
    "UnknownScorerError",
    "UnknownTaskError",
    "WorkerCrashed",
    "__version__",
    "as_scorer",
    "default_compute_score",
    "get_scorer",
    "load_reward_config",
    "register_route",
    "register_scorer",
    "score",
    "score_many",
]

# name -> module that defines it, imported on first attribute access
_LAZY = {
    "Scorer": ".scorers._base",
    "as_scorer": ".scorers._base",
    "get_scorer": ".scorers._registry",
    "register_route": ".scorers._registry",
    "register_scorer": ".scorers._registry",
    "default_compute_score": ".integrations.verl",
    "score": "._api",
    "score_many": "._api",
    "Runner": ".execution._runner",
    "RayRunner": ".execution._ray",
    "RunnerConfig": ".execution._config",
    "RewardManager": ".managers._manager",
    "RewardConfig": ".config",
    "load_reward_config": ".config",
}

if TYPE_CHECKING:
    from ._api import score, score_many
    from .config import RewardConfig, load_reward_config
    from .execution._config import RunnerConfig
    from .execution._ray import RayRunner
    from .execution._runner import Runner
    from .integrations.verl import default_compute_score
    from .managers._manager import RewardManager
    from .scorers._base import Scorer, as_scorer
    from .scorers._registry import get_scorer, register_route, register_scorer


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rewardloop' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

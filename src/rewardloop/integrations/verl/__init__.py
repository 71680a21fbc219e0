"""verl's public reward contracts, implemented on rewardloop's scorers, runner and managers.

This package is the only place that knows verl's names (``data_source``, ``solution_str``, ``extra_info``,
``reward_model.ground_truth``, ``rm_scores``, ``reward_extra_keys`` ...):

* :func:`default_compute_score`, :func:`load_custom_function`, :func:`get_custom_reward_fn`,
  :class:`CustomFunctionScorer` -- the scorer contract (``_compute``);
* the classic managers (``naive``, ``dapo``, ``batch``, ``prime``) and the reward-loop managers (``naive``,
  ``dapo``, ``remote``, ``rate_limited``) with verl's registry (``_managers``);
* :func:`load_reward_manager`, :class:`RewardLoopWorker`, :class:`RewardLoopManager` (``_loop``).

Deliberate differences from verl are listed in ``docs/verl.md`` and ``docs/verl-differences.md``.
"""

from __future__ import annotations

from ._compute import (
    CustomFunctionScorer,
    PathFunction,
    default_compute_score,
    get_custom_reward_fn,
    load_custom_function,
    load_custom_function_by_reference,
    sample_from_row,
    sample_from_verl,
    to_verl_result,
)
from ._loop import (
    LocalWorkerHandle,
    RewardLoopManager,
    RewardLoopWorker,
    load_reward_manager,
    load_tokenizer,
    resolve_reward_manager_cls,
)
from ._managers import (
    AbstractRewardManager,
    BatchFunctionScorer,
    BatchRewardManager,
    DAPORewardManager,
    LoopDAPORewardManager,
    LoopGDPORewardManager,
    LoopNaiveRewardManager,
    NaiveRewardManager,
    PrimeRewardManager,
    RateLimitedRewardManager,
    RemoteRewardManager,
    RewardManagerBase,
    get_reward_manager_cls,
    register,
)

__all__ = [
    "AbstractRewardManager",
    "BatchFunctionScorer",
    "BatchRewardManager",
    "CustomFunctionScorer",
    "DAPORewardManager",
    "LocalWorkerHandle",
    "LoopDAPORewardManager",
    "LoopGDPORewardManager",
    "LoopNaiveRewardManager",
    "NaiveRewardManager",
    "PathFunction",
    "PrimeRewardManager",
    "RateLimitedRewardManager",
    "RemoteRewardManager",
    "RewardLoopManager",
    "RewardLoopWorker",
    "RewardManagerBase",
    "default_compute_score",
    "get_custom_reward_fn",
    "get_reward_manager_cls",
    "load_custom_function",
    "load_custom_function_by_reference",
    "load_reward_manager",
    "load_tokenizer",
    "register",
    "resolve_reward_manager_cls",
    "sample_from_row",
    "sample_from_verl",
    "to_verl_result",
]

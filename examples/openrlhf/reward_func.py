"""OpenRLHF custom reward file backed by rewardloop.

Pass this file to OpenRLHF, which imports it by path and calls ``reward_func(queries, prompts, labels)``:

    REWARDLOOP_DATA_SOURCE=openai/gsm8k python -m openrlhf.cli.train_ppo_ray \\
        --reward.remote_url examples/openrlhf/reward_func.py --data.label_key answer ...
    # OpenRLHF before 0.10: --remote_rm_url examples/openrlhf/reward_func.py --label_key answer

Environment: REWARDLOOP_DATA_SOURCE (the data_source every label is scored as, unless the label is a
verl ``reward_model`` dict carrying its own), REWARDLOOP_SCORER (a registered scorer name instead of
routing), REWARDLOOP_ON_ERROR (reward of a failed sample, or "raise"; default 0.0).
See docs/openrlhf.md.
"""

from rewardloop.integrations.openrlhf import reward_func

__all__ = ["reward_func"]

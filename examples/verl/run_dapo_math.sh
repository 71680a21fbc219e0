#!/usr/bin/env bash
# DAPO-style run on MATH with rewardloop's dapo manager (overlong shaping) -- needs GPUs and verl >= 0.6.
# Data: `rewardloop prepare math train.jsonl -o ~/data/math/train.parquet` (data_source lighteval/MATH).
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
DATA=${DATA:-$HOME/data/math}

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files="$DATA/train.parquet" \
    data.val_files="$DATA/test.parquet" \
    data.max_prompt_length=1024 \
    data.max_response_length=4096 \
    actor_rollout_ref.model.path="$MODEL" \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=16 \
    reward.reward_manager.source=importlib \
    reward.reward_manager.name=LoopDAPORewardManager \
    reward.reward_manager.module.path=pkg://rewardloop.integrations.verl \
    reward.reward_manager.module.name=LoopDAPORewardManager \
    +reward.reward_kwargs.overlong_buffer_cfg.enable=true \
    +reward.reward_kwargs.overlong_buffer_cfg.len=1024 \
    +reward.reward_kwargs.overlong_buffer_cfg.penalty_factor=1.0 \
    +reward.reward_kwargs.overlong_buffer_cfg.log=true \
    +reward.reward_kwargs.max_resp_len=4096 \
    +reward.runner.timeout_s=10 \
    trainer.n_gpus_per_node=8 "$@"

#!/usr/bin/env bash
# GRPO on GSM8K with verl's trainer and rewardloop's rewards (needs GPUs, verl >= 0.6 and rewardloop installed
# in the same environment). Data: `rewardloop prepare gsm8k train.jsonl -o ~/data/gsm8k/train.parquet`.
#
# Two ways to plug rewardloop in; pick one:
#  A) custom reward function: verl's manager, rewardloop's verifiers (safe deadlines, no silent zeros)
#       reward.custom_reward_function.path=pkg://rewardloop.integrations.verl
#       reward.custom_reward_function.name=default_compute_score
#  B) rewardloop's manager (below): batch decoding, shaping, failure statuses in reward_extra_info
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}
DATA=${DATA:-$HOME/data/gsm8k}

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files="$DATA/train.parquet" \
    data.val_files="$DATA/test.parquet" \
    data.train_batch_size=256 \
    data.max_prompt_length=512 \
    data.max_response_length=1024 \
    actor_rollout_ref.model.path="$MODEL" \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=8 \
    actor_rollout_ref.actor.ppo_mini_batch_size=64 \
    actor_rollout_ref.actor.use_kl_loss=true \
    reward.reward_manager.source=importlib \
    reward.reward_manager.name=LoopNaiveRewardManager \
    reward.reward_manager.module.path=pkg://rewardloop.integrations.verl \
    reward.reward_manager.module.name=LoopNaiveRewardManager \
    +reward.runner.timeout_s=10 \
    trainer.n_gpus_per_node=8 \
    trainer.total_epochs=1 "$@"

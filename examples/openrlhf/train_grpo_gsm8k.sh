#!/usr/bin/env bash
# GRPO-style training on GSM8K with OpenRLHF, rewards from rewardloop's reward_func file.
#
# 1. Prepare the data (chat prompt + label column), nothing downloaded:
#      rewardloop prepare gsm8k ../shared/data/gsm8k/train.jsonl -o data/gsm8k_train.jsonl
#      python -c "import json; [print(json.dumps({'prompt': r['prompt'], 'answer': r['reward_model']['ground_truth']})) for r in map(json.loads, open('data/gsm8k_train.jsonl'))]" > data/gsm8k_openrlhf.jsonl
# 2. Run (flags in the pre-0.10 spelling; OpenRLHF >= 0.10 renames --remote_rm_url to --reward.remote_url
#    and --label_key to --data.label_key, see its docs for the others). Add your model, parallelism and
#    batch-size flags after the script name: ./train_grpo_gsm8k.sh --pretrain ... --actor_num_gpus_per_node 8
set -euo pipefail

export REWARDLOOP_DATA_SOURCE=openai/gsm8k   # every label is scored as a GSM8K answer
export REWARDLOOP_ON_ERROR=0.0               # reward of a sample that fails to score (or "raise")

python -m openrlhf.cli.train_ppo_ray \
  --remote_rm_url "$(dirname "$0")/reward_func.py" \
  --prompt_data data/gsm8k_openrlhf.jsonl \
  --input_key prompt \
  --label_key answer \
  --apply_chat_template \
  --advantage_estimator group_norm \
  --n_samples_per_prompt 8 \
  "$@"

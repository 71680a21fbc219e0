"""GRPO with TRL, rewarded by rewardloop: train on a dataset prepared with ``rewardloop prepare``.

    rewardloop prepare gsm8k ../shared/data/gsm8k/train.jsonl -o data/gsm8k_train.parquet
    python examples/trl/grpo_gsm8k.py --data data/gsm8k_train.parquet --model Qwen/Qwen2.5-0.5B-Instruct

The dataset keeps verl's layout: TRL reads the chat ``prompt`` column (conversational format) and passes
every other column (``data_source``, ``reward_model``, ``extra_info``) to the reward functions, which route
each row to its scorer exactly as verl's ``default_compute_score`` would. ``--tiny`` swaps the model for a
randomly initialised two-layer one with a character tokenizer, built locally, to try the wiring on a CPU
in seconds (its completions are noise, so its accuracy is 0).

Needs TRL and its stack: ``pip install 'rewardloop[torch,models]' trl datasets``. Without them it stops with
a message naming what is missing.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rewardloop.errors import MissingExtraError, require_extras
from rewardloop.integrations.trl import async_reward_func, reward_func
from rewardloop.workbench import read_table


def tiny_model_and_tokenizer() -> tuple[Any, Any]:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2}
    for ch in "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ#+-*/=?.,:'\"$\n":
        vocab.setdefault(ch, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<pad>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tok.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", bos_token="<bos>"
    )
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=2,
    )
    return LlamaForCausalLM(config), tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", required=True, help="a dataset in verl's layout (.parquet or .jsonl)")
    parser.add_argument("--model", default=None, help="model id or path (omit with --tiny)")
    parser.add_argument("--tiny", action="store_true", help="use a tiny random local model (CPU smoke run)")
    parser.add_argument("--max-steps", type=int, default=2)
    parser.add_argument("--limit", type=int, default=64, help="rows of the dataset to use")
    parser.add_argument("--output-dir", default="outputs/grpo_gsm8k")
    args = parser.parse_args()
    needs = {"torch": "torch", "transformers": "models", "tokenizers": "models"}
    needs.update({"datasets": "pip:datasets", "trl": "pip:trl"})
    try:
        require_extras(needs, "examples/trl/grpo_gsm8k.py")
    except MissingExtraError as exc:
        sys.exit(f"error: {exc}")
    if not args.tiny and not args.model:
        parser.error("pass --model, or --tiny for a local smoke run")

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    rows = read_table(args.data)[: args.limit]
    if args.tiny:  # the character tokenizer has no chat template: use the plain-text prompt
        for row in rows:
            row["prompt"] = row["prompt"][-1]["content"][:200]
        model, tokenizer = tiny_model_and_tokenizer()
    else:
        model, tokenizer = args.model, None

    rewards = [
        reward_func(name="accuracy"),  # routed by data_source; failures excluded (None), counted in logs
        async_reward_func("math_verify", name="math_verify", ground_truth_keys="reward_model"),
    ]
    config = GRPOConfig(
        output_dir=args.output_dir,
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=16 if args.tiny else 512,
        max_steps=args.max_steps,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=args.tiny,
        bf16=False,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=rewards,
        args=config,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    try:
        trainer.train()
    finally:
        for fn in rewards:
            fn.close()
    for entry in trainer.state.log_history:
        print(
            {
                k: v
                for k, v in entry.items()
                if k.startswith(("rewards/", "accuracy/", "math_verify/", "reward"))
            }
        )


if __name__ == "__main__":
    main()

"""Run rewardloop's verl reward managers on CPU, without a GPU or a trainer.

    python examples/verl/run_managers_locally.py [examples/rollouts.jsonl]

Builds a toy tokenizer locally, turns the example rollouts into a verl-shaped batch (what the trainer hands a
reward manager), and runs the classic ``dapo`` manager and the reward loop's ``compute_rm_score`` on it. With
verl installed, pass ``--dataproto`` to use a real ``verl.DataProto`` instead of rewardloop's ``RolloutBatch``.

Needs the ``torch`` and ``models`` extras (torch, and tokenizers/transformers for the toy tokenizer):
``pip install 'rewardloop[torch,models]'``. Without them it stops with a message naming what is missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from rewardloop.errors import MissingExtraError, require_extras
from rewardloop.integrations.verl import DAPORewardManager, RewardLoopManager
from rewardloop.testing import make_verl_batch, toy_tokenizer

NEEDS = {"torch": "torch", "tokenizers": "models", "transformers": "models"}

HERE = Path(__file__).resolve().parent


def load_rows(path: Path, limit: int) -> list[dict]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if not isinstance(row.get("response"), str) or not isinstance(row.get("reward_model"), dict):
            continue  # the example file has a few deliberately malformed rows
        rows.append(
            {
                "response": row["response"],
                "data_source": row["data_source"],
                "ground_truth": row["reward_model"].get("ground_truth"),
                "extra_info": row.get("extra_info") or {},
            }
        )
    return rows[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rollouts", nargs="?", default=str(HERE.parent / "rollouts.jsonl"))
    parser.add_argument("--limit", type=int, default=64)
    parser.add_argument("--dataproto", action="store_true", help="use verl.DataProto (needs verl)")
    args = parser.parse_args()
    try:
        require_extras(NEEDS, "examples/verl/run_managers_locally.py")
    except MissingExtraError as exc:
        sys.exit(f"error: {exc}")

    tokenizer = toy_tokenizer()
    rows = [
        r
        for r in load_rows(Path(args.rollouts), args.limit)
        if not r["data_source"].startswith(("code", "apps"))
    ]
    cls = None
    if args.dataproto:
        from verl import DataProto

        cls = DataProto
    batch = make_verl_batch(tokenizer, rows, response_len=256, cls=cls)

    # classic interface: what verl's trainer calls as reward_fn(batch, return_dict=True)
    manager = DAPORewardManager(
        tokenizer,
        num_examine=0,
        overlong_buffer_cfg={"enable": True, "len": 32, "penalty_factor": 1.0, "log": True},
        max_resp_len=256,
    )
    out = manager(batch, return_dict=True)
    manager.close()
    rewards = out["reward_tensor"].sum(-1).tolist()
    print(f"dapo manager: {len(rewards)} rows, mean reward {sum(rewards) / len(rewards):.3f}")
    print("  statuses:", dict(Counter(out["reward_extra_info"]["reward_status"])))
    print("  extra-info columns:", sorted(out["reward_extra_info"]))

    # reward loop: compute_rm_score returns rm_scores plus one column per extra key
    config = {"reward": {"reward_manager": {"name": "naive"}, "runner": {"timeout_s": 10}}}
    with RewardLoopManager(config, tokenizer=tokenizer) as loop:
        scored = loop.compute_rm_score(batch)
    print(f"compute_rm_score: {type(scored).__name__} rm_scores {tuple(scored.batch['rm_scores'].shape)}")
    print("  reward_extra_keys:", scored.meta_info["reward_extra_keys"])


if __name__ == "__main__":
    main()

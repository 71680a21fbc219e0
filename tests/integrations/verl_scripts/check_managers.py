"""Run under the real verl 0.9.1 interpreter (.venv-verl) by tests/integrations/test_real_verl.py.

Prints one JSON object with what verl and rewardloop did on the same real ``DataProto``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from omegaconf import OmegaConf
from tests._rollouts import build_tokenizer, make_batch
from verl import DataProto
from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls as verl_loop_get
from verl.experimental.reward_loop.reward_manager import register as verl_loop_register
from verl.trainer.ppo.reward import get_custom_reward_fn, load_reward_manager
from verl.workers.reward_manager import NaiveRewardManager as VerlNaive
from verl.workers.reward_manager import get_reward_manager_cls as verl_classic_get
from verl.workers.reward_manager import register as verl_classic_register

from rewardloop.integrations import verl as rl

ROWS = [
    {"response": "The answer is #### 42", "data_source": "openai/gsm8k", "ground_truth": "42"},
    {"response": "#### 41", "data_source": "openai/gsm8k", "ground_truth": "42"},
    {"response": "so \\boxed{\\frac{1}{2}}", "data_source": "lighteval/MATH", "ground_truth": "\\frac{1}{2}"},
    {"response": "so \\boxed{3}", "data_source": "lighteval/MATH", "ground_truth": "\\frac{1}{2}"},
]


def main() -> None:
    import verl

    tok = build_tokenizer()
    data = make_batch(tok, ROWS, cls=DataProto)
    out: dict = {"verl_version": verl.__version__, "data_type": type(data).__name__}

    # 1. our classic manager on a real DataProto, next to verl's NaiveRewardManager
    ours = rl.NaiveRewardManager(tok, 0)
    o = ours(data, return_dict=True)
    ours.close()
    t = VerlNaive(tok, 0)(data, return_dict=True)
    out["ours_tensor"] = o["reward_tensor"].tolist()
    out["verl_tensor"] = t["reward_tensor"].tolist()

    # 2. compute_rm_score returns a DataProto with rm_scores and the extra keys
    with rl.RewardLoopManager({}, tokenizer=tok) as manager:
        res = manager.compute_rm_score(data)
    out["rm_type"] = type(res).__name__
    out["rm_sums"] = res.batch["rm_scores"].sum(-1).tolist()
    out["rm_keys"] = res.meta_info["reward_extra_keys"]

    # 3. our default_compute_score as verl's custom_reward_function, through verl's own loader
    cfg = OmegaConf.create(
        {
            "reward": {
                "custom_reward_function": {
                    "path": "pkg://rewardloop.integrations.verl",
                    "name": "default_compute_score",
                }
            }
        }
    )
    fn = get_custom_reward_fn(cfg)
    out["custom_fn"] = [
        fn(data_source=r["data_source"], solution_str=r["response"], ground_truth=r["ground_truth"])
        for r in ROWS
    ]
    verl_with_ours = VerlNaive(tok, 0, compute_score=fn)(data)
    out["verl_manager_with_our_fn"] = verl_with_ours.sum(-1).tolist()

    # 4. our managers registered in verl's registries and selected by name through verl's loader
    verl_loop_register("rewardloop_dapo")(rl.LoopDAPORewardManager)
    verl_classic_register("rewardloop_naive")(rl.NaiveRewardManager)
    out["registered"] = [
        verl_loop_get("rewardloop_dapo") is rl.LoopDAPORewardManager,
        verl_classic_get("rewardloop_naive") is rl.NaiveRewardManager,
    ]
    trainer_yaml = Path(verl.__file__).parent / "trainer" / "config" / "_generated_ppo_trainer.yaml"
    full = OmegaConf.load(trainer_yaml)
    full.reward.reward_manager.name = "rewardloop_dapo"
    manager = load_reward_manager(full, tok)
    out["loaded_type"] = type(manager).__name__
    out["run_single"] = [
        asyncio.run(manager.run_single(data[i : i + 1]))["reward_score"] for i in range(len(ROWS))
    ]
    manager.close()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

"""Run under the real verl 0.9.1 interpreter (.venv-verl) by tests/integrations/test_verl_composite_real.py.

A composite reward (``reward.components``: math_dapo, a custom format function by path, and a process component
that runs past its deadline on one case) and a streamed group-relative reward go through verl's own streaming
path (``AgentLoopWorker._compute_score`` with rewardloop's worker handles), then verl's ``_postprocess`` builds the
extra-info columns from the first sample in every order, and verl's GDPO advantage reads the component keys.

Prints one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from check_aggregation import FakeWorker, aggregate_every_order, internal, score_stream, trajectory
from omegaconf import OmegaConf
from tests._rollouts import build_tokenizer
from verl.experimental.agent_loop.agent_loop import AgentLoopWorker

from rewardloop.integrations import verl as rl

FORMAT = "def fmt(data_source, solution_str, ground_truth, extra_info=None, **kw):\n    return float(solution_str.startswith('Answer:'))\n"


def gdpo(worker: FakeWorker, finals: list, uids: list[str], keys: list[str]) -> bool:
    from verl.trainer.ppo.core_algos import compute_gdpo_outcome_advantage

    out = AgentLoopWorker._postprocess(worker, [internal(o, 64) for o in finals])
    adv, _ = compute_gdpo_outcome_advantage(
        token_level_rewards=out.batch["rm_scores"],
        response_mask=out.batch["response_mask"],
        index=np.array(uids, dtype=object),
        config=OmegaConf.create({"gdpo_reward_keys": keys}),
        non_tensor_batch=out.non_tensor_batch,
        batch=out.batch,
    )
    return bool(torch.isfinite(adv).all())


async def stream_concurrently(worker: FakeWorker, tok, cases: list[dict]) -> list:
    async def one(case: dict):
        outputs = trajectory(tok, "question", case["responses"])
        kwargs = {
            "data_source": case["data_source"],
            "reward_model": {"ground_truth": case["ground_truth"], "style": "rule"},
            "extra_info": {},
            "uid": case["uid"],
        }
        await AgentLoopWorker._compute_score(worker, outputs, kwargs)
        return outputs[-1]

    return list(await asyncio.gather(*(one(c) for c in cases)))


def main() -> None:
    import verl

    tok = build_tokenizer()
    fn_file = Path(tempfile.mkdtemp()) / "fmt.py"
    fn_file.write_text(FORMAT)
    base = OmegaConf.load(Path(verl.__file__).parent / "trainer" / "config" / "_generated_ppo_trainer.yaml")
    out: dict = {"verl_version": verl.__version__}

    components = [
        {"scorer": "math_dapo", "name": "acc"},
        {"path": str(fn_file), "function": "fmt", "weight": 0.2},
        {"scorer": "tests.managers._components:SleepOnMarker", "name": "slow", "weight": 0.0},
    ]
    cases = [
        {"data_source": "math_dapo", "ground_truth": "7", "responses": ["Answer: 7"], "uid": "a"},
        {"data_source": "math_dapo", "ground_truth": "7", "responses": ["so 7. Answer: 8"], "uid": "a"},
        {"data_source": "math_dapo", "ground_truth": "3", "responses": ["SLEEP\nAnswer: 3"], "uid": "b"},
        {"data_source": "math_dapo", "ground_truth": "3", "responses": ["Answer: 3"], "uid": "b"},
        {"data_source": "math_dapo", "ground_truth": None, "responses": ["Answer: 3"], "uid": "c"},
    ]
    cfg = OmegaConf.merge(
        base,
        {
            "algorithm": {"adv_estimator": "gdpo", "gdpo_reward_keys": ["acc", "fmt"]},
            "reward": {"reward_manager": {"name": "gdpo"}, "components": components},
        },
    )
    with rl.RewardLoopManager(cfg, tokenizer=tok) as manager:
        worker = FakeWorker(manager.reward_loop_worker_handles)
        finals = asyncio.run(score_stream(worker, tok, cases))
        res = aggregate_every_order(worker, finals)
        res["rewards"] = [o.reward_score for o in finals]
        res["statuses"] = [o.extra_fields["reward_extra_info"]["reward_status"] for o in finals]
        res["slow_status"] = [o.extra_fields["reward_extra_info"]["slow_status"] for o in finals]
        res["gdpo_finite"] = gdpo(worker, finals, [c["uid"] for c in cases], ["acc", "fmt"])
        out["composite"] = res

    group_cfg = OmegaConf.merge(
        base,
        {
            "actor_rollout_ref": {"rollout": {"n": 2}},
            "reward": {
                "reward_manager": {"name": "naive"},
                "components": [
                    {
                        "scorer": "group_relative",
                        "name": "rel",
                        "options": {"base": "math_dapo", "mode": "center"},
                    }
                ],
            },
        },
    )
    with rl.RewardLoopManager(group_cfg, tokenizer=tok) as manager:
        worker = FakeWorker(manager.reward_loop_worker_handles)
        finals = asyncio.run(stream_concurrently(worker, tok, cases[:4]))
        res = aggregate_every_order(worker, finals)
        res["rewards"] = [o.reward_score for o in finals]
        out["group"] = res

    print(json.dumps(out))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

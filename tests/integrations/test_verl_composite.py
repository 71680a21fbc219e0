"""The verl facade with composite and group rewards: component keys in the fixed extra-info schema (GDPO reads
them as floats for every sample, failed ones included), and group scorers in batch and streaming."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from rewardloop.integrations.verl import LoopGDPORewardManager, LoopNaiveRewardManager, RewardLoopManager
from tests._rollouts import make_batch, shared_tokenizer

COMPONENTS = [
    {"scorer": "math_dapo", "name": "acc"},
    {"scorer": "gsm8k", "name": "fmt", "weight": 0.5},
]
ROWS = [
    {"response": "Answer: 7", "data_source": "math_dapo", "ground_truth": "7"},
    {"response": "#### 7", "data_source": "math_dapo", "ground_truth": "7"},
    {"response": "Answer: 8", "data_source": "math_dapo", "ground_truth": "7"},
]


@pytest.fixture(scope="module")
def tokenizer():
    return shared_tokenizer()


def test_run_single_carries_every_component_key_whatever_the_sample(tokenizer):
    batch = make_batch(tokenizer, ROWS)
    manager = LoopNaiveRewardManager({"components": COMPONENTS}, tokenizer)
    try:
        singles = [asyncio.run(manager.run_single(batch[i : i + 1])) for i in range(3)]
    finally:
        manager.close()
    keys = [set(s["reward_extra_info"]) for s in singles]
    assert keys[0] == keys[1] == keys[2]
    assert {"acc", "acc_status", "fmt", "fmt_status", "acc/pred"} <= keys[0]
    assert [s["reward_score"] for s in singles] == pytest.approx([1.0, -0.5, -1.0])
    assert [s["reward_extra_info"]["fmt"] for s in singles] == [0.0, 1.0, 0.0]


def test_gdpo_component_keys_are_float_columns_when_a_component_fails(tokenizer):
    config = {
        "reward": {
            "reward_manager": {"name": "gdpo"},
            "components": [*COMPONENTS, {"scorer": "math_dapo", "name": "bad", "options": {}}],
        },
        "algorithm": {"gdpo_reward_keys": ["acc", "fmt"]},
    }
    rows = [*ROWS, {"response": "Answer: 7", "data_source": "math_dapo", "ground_truth": None}]
    batch = make_batch(tokenizer, rows)
    manager = LoopGDPORewardManager(config, tokenizer)
    try:
        out = asyncio.run(manager.run_batch(batch))
    finally:
        manager.close()
    infos = [o["reward_extra_info"] for o in out]
    for key in ("acc", "fmt"):
        column = np.array([info[key] for info in infos], dtype=np.float32)  # what GDPO does
        assert np.isfinite(column).all()
    statuses = [info["reward_status"] for info in infos]
    assert statuses[:3] == ["ok", "ok", "ok"] and statuses[3] != "ok"  # no ground truth: a failure, not a 0
    assert infos[3]["bad_status"] == statuses[3]


def test_group_scorer_in_compute_rm_score_and_streaming(tokenizer):
    rows = [
        {
            "response": r,
            "data_source": "math_dapo",
            "ground_truth": "7",
            "uid": u,
            "extra_info": {"group_size": 2},
        }
        for r, u in [("Answer: 7", "p"), ("Answer: 8", "p"), ("Answer: 8", "q"), ("Answer: 8", "q")]
    ]
    config = {
        "reward_manager": {"name": "naive"},
        "components": [
            {"scorer": "group_relative", "name": "rel", "options": {"base": "math_dapo", "mode": "center"}}
        ],
    }
    batch = make_batch(tokenizer, rows)
    with RewardLoopManager(config, tokenizer=tokenizer) as loop:
        out = loop.compute_rm_score(batch)
        handles = loop.reward_loop_worker_handles

        async def stream():
            return await asyncio.gather(
                *(handles[0].compute_score.remote(batch[i : i + 1]) for i in range(4))
            )

        streamed = asyncio.run(stream())
    assert out.batch["rm_scores"].sum(1).tolist() == [1.0, -1.0, 0.0, 0.0]
    assert [s["reward_score"] for s in streamed] == [1.0, -1.0, 0.0, 0.0]
    assert list(out.non_tensor_batch["rel/base_reward"]) == [1.0, -1.0, -1.0, -1.0]


def test_streamed_groups_wait_for_rollout_n_and_a_missing_member_times_out(tokenizer):
    rows = [
        {"response": r, "data_source": "math_dapo", "ground_truth": "7", "uid": u}
        for r, u in [("Answer: 7", "p"), ("Answer: 8", "p"), ("Answer: 7", "lonely")]
    ]
    options = {"base": "math_dapo", "mode": "center", "gather_timeout_s": 0.5}
    config = {
        "reward": {
            "reward_manager": {"name": "naive"},
            "components": [{"scorer": "group_relative", "name": "rel", "options": options}],
        },
        "actor_rollout_ref": {"rollout": {"n": 2}},  # two responses per prompt
    }
    batch = make_batch(tokenizer, rows)
    with RewardLoopManager(config, tokenizer=tokenizer) as loop:
        handle = loop.reward_loop_worker_handles[0]

        async def stream():  # "lonely"'s second member never comes: a deterministic trigger
            return await asyncio.gather(*(handle.compute_score.remote(batch[i : i + 1]) for i in range(3)))

        streamed = asyncio.run(stream())
    assert [s["reward_score"] for s in streamed[:2]] == [1.0, -1.0]
    lonely = streamed[2]["reward_extra_info"]
    assert lonely["reward_status"] == "timeout" and "1 of 2 members" in lonely["error"]
    assert set(lonely) == set(streamed[0]["reward_extra_info"])  # the same fixed schema

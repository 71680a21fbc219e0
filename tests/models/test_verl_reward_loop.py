"""verl's reward loop with a reward model enabled: servers + router started from the reward config."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")


@pytest.mark.slow
@pytest.mark.server
def test_reward_loop_with_an_embedded_disrm(rm_path):
    from rewardloop.integrations.verl import RewardLoopManager
    from rewardloop.testing import make_verl_batch, toy_tokenizer

    tok = toy_tokenizer()
    rows = [
        {
            "response": text,
            "data_source": "openai/gsm8k",
            "ground_truth": "42",
            "raw_prompt": [{"role": "user", "content": "What is 6 x 7?"}],
        }
        for text in ("The answer is 42.", "I think it is 41.", "42")
    ]
    rows.append(
        {"response": "no prompt", "data_source": "openai/gsm8k", "ground_truth": "42", "raw_prompt": None}
    )
    batch = make_verl_batch(tok, rows)
    config = {
        "reward_model": {
            "enable": True,
            "model_path": str(rm_path),
            "rollout": {"name": "embedded", "device": "cpu", "startup_timeout_s": 240},
        },
    }
    with RewardLoopManager(config, tokenizer=tok) as loop:
        assert loop.reward_router_address and loop.reward_loop_worker_handles is None  # colocated: batch mode
        out = loop.compute_rm_score(batch)
    statuses = list(out.non_tensor_batch["reward_status"])
    assert statuses == ["ok", "ok", "ok", "invalid_input"]  # a DisRM needs the prompt; never a silent 0
    sums = out.batch["rm_scores"].sum(-1).tolist()
    assert all(s != 0.0 for s in sums[:3]) and sums[3] == 0.0
    assert sums[0] != sums[1]  # the model's own scores, not a constant

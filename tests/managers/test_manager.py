"""RewardManager: routing, unrouted tasks, shapers, streaming, from_config."""

from __future__ import annotations

import asyncio

import pytest

from rewardloop import Sample, Score, Status
from rewardloop.errors import ConfigError
from rewardloop.managers import OverlongPenalty, RewardManager


def test_routes_by_task_and_keeps_the_batch_when_a_task_is_unknown():
    samples = [
        Sample(response="#### 42", ground_truth="42", task="openai/gsm8k"),
        Sample(response="anything", ground_truth="1", task="no_such_source"),
        Sample(response="\\boxed{\\frac12}", ground_truth="\\frac{1}{2}", task="lighteval/MATH"),
    ]
    done = []
    with RewardManager() as manager:
        batch = manager.score(samples)
        again = asyncio.run(manager.ascore(samples, on_done=done.append))
    assert batch.rewards() == [1.0, 0.0, 1.0]
    assert batch.statuses[1] is Status.INVALID_INPUT and "no_such_source" in batch[1].info["error"]
    assert batch.stats["unrouted"] == 1 and batch.stats["status"]["invalid_input"] == 1
    assert sorted(done) == [0, 1, 2] and again.rewards() == batch.rewards()


def test_one_scorer_for_every_sample():
    with RewardManager(lambda s: float(len(s.response))) as manager:
        batch = manager.score(
            [Sample(response="abc", ground_truth=None), Sample(response="", ground_truth=None)]
        )
    assert batch.rewards() == [3.0, 0.0]


def test_lent_runner_is_not_closed():
    from rewardloop import Runner

    with Runner() as runner:
        manager = RewardManager("gsm8k", runner=runner)
        manager.close()
        assert manager.closed and not runner.closed


def test_overlong_penalty_formula():
    shaper = OverlongPenalty(max_resp_len=20, buffer_len=4, penalty_factor=1.0, log=True)
    assert [shaper.penalty(n) for n in (10, 16, 17, 18, 20, 22)] == [0.0, 0.0, -0.25, -0.5, -1.0, -1.5]
    # verl's unit-test case: len=2, max_resp_len=4, L=4 -> -1.0
    assert OverlongPenalty(4, 2).penalty(4) == -1.0
    scores = [Score(1.0), Score(0.5), Score.failure(Status.TIMEOUT, "slow")]
    out = shaper.apply(scores, [20, 8, 20])
    assert out[0].value == 0.0 and out[0].metrics == {"overlong_reward": -1.0, "overlong": True}
    assert out[1].value == 0.5 and out[1].metrics == {"overlong_reward": 0.0, "overlong": False}
    assert out[2].status is Status.TIMEOUT and out[2].value is None  # failures keep their status
    assert out[2].metrics["overlong"] is True  # columns stay aligned
    unknown = shaper.apply([Score(1.0)], [None])[0]
    assert unknown.value == 1.0 and "unknown" in unknown.info["overlong"]


def test_overlong_config_errors():
    with pytest.raises(ConfigError, match="buffer_len must be > 0"):
        OverlongPenalty(10, 0)
    with pytest.raises(ConfigError, match=r"max_resp_len \(4\) must be >="):
        OverlongPenalty(4, 8)


def test_from_config_dapo_shaping_and_custom_function(tmp_path):
    fn = tmp_path / "reward.py"
    fn.write_text(
        "def compute_score(data_source, solution_str, ground_truth, extra_info=None, bonus=0.0, **kw):\n"
        "    return {'score': float(solution_str == ground_truth) + bonus, 'len': len(solution_str)}\n"
    )
    cfg = {
        "custom_reward_function": {"path": str(fn), "reward_kwargs": {"bonus": 0.5}},
        "reward_kwargs": {"overlong_buffer_cfg": {"enable": True, "len": 2, "log": False}, "max_resp_len": 4},
    }
    with RewardManager.from_config(cfg) as manager:
        batch = manager.score(
            [Sample(response="a", ground_truth="a"), Sample(response="b", ground_truth="a")], lengths=[4, 1]
        )
    assert batch.rewards() == [0.5, 0.5]  # 1 + 0.5 - 1.0 (overlong), 0 + 0.5
    assert batch.metrics["len"] == (1, 1)


def test_streaming_submit_path():
    async def main():
        with RewardManager() as manager:
            return await asyncio.gather(
                manager.ascore_one(Sample(response="#### 7", ground_truth="7", task="openai/gsm8k"), 3),
                manager.ascore_one(Sample(response="#### 7", ground_truth="7", task="unknown")),
            )

    ok, bad = asyncio.run(main())
    assert ok.value == 1.0 and bad.status is Status.INVALID_INPUT

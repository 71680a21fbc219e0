"""Reward-hacking monitors wired into the one RewardManager (``reward.monitors``): flags in every score's
metrics, configured penalties only, counts for ``/metrics``; in verl's extra info as fixed bool columns, so
verl's first-sample aggregation sees the same keys on every sample (issue 17, item 4)."""

from __future__ import annotations

import asyncio
import re

import pytest

from rewardloop import RewardManager, Sample
from rewardloop.config import load_reward_config
from rewardloop.errors import ConfigError

HEDGED = "The answer is \\boxed{3} or maybe \\boxed{4}."
CLEAN = "We add 1 and 2, so the answer is \\boxed{3}."


def _samples():
    return [
        Sample(response=CLEAN, ground_truth="3", task="math_dapo"),
        Sample(response=HEDGED, ground_truth="3", task="math_dapo"),
    ]


def test_monitor_flags_are_metrics_and_change_nothing_unless_configured():
    with RewardManager.from_config({"monitors": {"enable": True}}) as manager:
        batch = manager.score(_samples())
        assert manager.monitor_counters.as_dict()["hedging"] == 1
        assert manager.last_monitor_report.counts()["any"] == 1
    assert batch.metrics["monitor/hedging"] == (False, True)
    assert batch.metrics["monitor/any"] == (False, True)
    assert batch.values[0] == 1.0  # the clean answer keeps its reward


def test_configured_penalty_applies_to_flagged_ok_samples_only():
    with RewardManager.from_config({"monitors": {"penalize": {"hedging": -1.0}}}) as manager:
        batch = manager.score(_samples())
        one = asyncio.run(manager.ascore_one(_samples()[1]))
    assert batch.values == (1.0, -1.0)
    assert batch.infos[1]["monitor_penalty"] == ["hedging"]
    assert one.value == -1.0 and one.metrics["monitor/hedging"] is True


def test_monitors_off_by_default_and_bad_config_named():
    with RewardManager.from_config({}) as manager:
        assert manager.monitors is None
        assert "monitor/any" not in manager.score(_samples()).metrics
    with pytest.raises(ConfigError, match="penalize names unknown monitors"):
        RewardManager.from_config({"monitors": {"penalize": {"hedgin": 0.0}}})
    with pytest.raises(ConfigError, match=re.escape("reward.monitors.enable must be true or false")):
        load_reward_config({"monitors": {"enable": "yes"}})
    with pytest.raises(ConfigError, match="unknown"):
        load_reward_config({"monitors": {"penalise": {}}})


def test_verl_extra_info_carries_every_monitor_column_on_every_sample():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from rewardloop.integrations.verl import LoopNaiveRewardManager
    from tests._rollouts import make_batch, shared_tokenizer

    tok = shared_tokenizer()
    rows = [
        {"response": CLEAN, "data_source": "math_dapo", "ground_truth": "3"},
        {"response": HEDGED, "data_source": "math_dapo", "ground_truth": "3"},
        {"response": "#### 42", "data_source": "no_such_source", "ground_truth": "42"},
    ]
    batch = make_batch(tok, rows, response_len=64)
    manager = LoopNaiveRewardManager({"monitors": {"enable": True}}, tok)
    try:

        async def each():
            return [await manager.run_single(batch[i : i + 1]) for i in range(len(batch))]

        infos = [r["reward_extra_info"] for r in asyncio.run(each())]
    finally:
        manager.close()
    keys = [list(info) for info in infos]
    assert keys[0] == keys[1] == keys[2] and "monitor/any" in keys[0] and "monitor/code_tricks" in keys[0]
    assert [info["monitor/hedging"] for info in infos] == [False, True, False]
    assert all(type(info["monitor/any"]) is bool for info in infos)


def test_the_config_round_trips_with_monitors_off_and_on():
    off = load_reward_config({})
    assert load_reward_config(off.as_dict()).monitors == {}  # a service's workers get the config this way
    on = load_reward_config({"monitors": {"penalize": {"hedging": 0.0}}})
    assert load_reward_config(on.as_dict()).monitors == {"enable": True, "penalize": {"hedging": 0.0}}

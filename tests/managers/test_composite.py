"""Composite rewards: weights, per-component metrics and statuses, isolation of process components, config,
the verl facade's fixed extra-info schema, streaming."""

from __future__ import annotations

import asyncio
import os

import pytest

from rewardloop import RewardManager, Runner, Sample, Status, as_scorer
from rewardloop.errors import ConfigError, ScoringError
from rewardloop.managers._composite import Component, Composite
from rewardloop.scorers._registry import get_scorer

from ._components import PidLength, RaiseOnMarker, SleepOnMarker


def starts_with_answer(sample: Sample) -> float:
    return float(sample.response.startswith("Answer:"))


FORMAT = as_scorer(starts_with_answer, name="format")
SAMPLES = [
    Sample("Answer: 7", "7", task="math_dapo"),  # right, formatted
    Sample("the answer is 7. Answer: 7", "7"),  # right, not formatted
    Sample("Answer: 8", "7"),  # wrong, formatted
]


def test_weighted_sum_and_one_metric_per_component():
    comp = Composite([("acc", get_scorer("math_dapo"), 1.0), ("fmt", FORMAT, 0.2)])
    with Runner() as runner:
        batch = runner.run_sync(comp, SAMPLES)
    assert batch.rewards() == pytest.approx([1.2, 1.0, -0.8])  # math_dapo: +1 right, -1 wrong
    assert batch.metrics["acc"] == (1.0, 1.0, -1.0)
    assert batch.metrics["fmt"] == (1.0, 0.0, 1.0)
    assert batch.metrics["acc_status"] == ("ok", "ok", "ok")
    assert batch.metrics["acc/pred"] == ("7", "7", "8")  # the component's own metrics, prefixed
    assert set(batch.stats["components"]) == {"acc", "fmt"}
    # every key the composite reports is declared with its type (the verl schema reads these)
    assert set(batch.metrics) <= set(comp.metric_types)
    assert comp.metric_types["fmt"] is float and comp.metric_types["fmt_status"] is str


def test_process_components_run_isolated_in_workers():
    comp = Composite([("short", PidLength(), 1.0), ("acc", "math_dapo", 1.0)])
    with Runner(workers=1) as runner:
        batch = runner.run_sync(comp, SAMPLES[:1])
    assert batch[0].status is Status.OK and batch[0].value == 2.0
    assert batch[0].metrics["short/pid"] != os.getpid()  # scored in a worker process
    assert batch.stats["components"]["short"]["executed"] == 1
    # the direct path isolates too (score_one hands process work to a worker pool)
    direct = comp.score(SAMPLES[0])
    assert direct.value == 2.0


def test_a_required_component_timing_out_fails_the_sample_with_its_status():
    comp = Composite([("acc", "math_dapo", 1.0), ("slow", SleepOnMarker(), 0.5)])
    samples = [Sample("SLEEP\nAnswer: 7", "7"), Sample("Answer: 7", "7")]
    with Runner(workers=2) as runner:
        batch = runner.run_sync(comp, samples)
    first = batch[0]
    assert first.status is Status.TIMEOUT and first.value is None  # not acc alone, not a silent 0
    assert first.info["failed_component"] == "slow" and "slow" in first.info["error"]
    assert first.metrics["acc"] == 1.0 and first.metrics["slow_status"] == "timeout"
    assert batch[1].status is Status.OK and batch[1].value == 1.5
    assert batch.rewards(on_error=None) == [None, 1.5]


def test_an_optional_component_failing_is_left_out_and_recorded():
    comp = Composite(
        [Component("acc", get_scorer("math_dapo")), Component("bonus", RaiseOnMarker(), 2.0, optional=True)]
    )
    with Runner() as runner:
        batch = runner.run_sync(comp, [Sample("BOOM\nAnswer: 7", "7"), Sample("Answer: 7", "7")])
    assert batch[0].status is Status.OK and batch[0].value == 1.0
    assert batch[0].metrics["bonus_status"] == "scorer_error" and "bonus" not in batch[0].metrics
    assert batch[0].info["missing"] == ["bonus"]
    assert batch[1].value == 2.0  # 1.0 + 2.0 * 0.5


def test_raise_policy_applies_to_the_combined_score():
    optional = Composite([("acc", "math_dapo", 1.0), ("bonus", RaiseOnMarker(), 1.0, True)])
    required = Composite([("acc", "math_dapo", 1.0), ("bonus", RaiseOnMarker(), 1.0)])
    with Runner(on_error="raise") as runner:
        assert runner.run_sync(optional, [Sample("BOOM\nAnswer: 7", "7")]).rewards() == [1.0]
        with pytest.raises(ScoringError, match="component 'bonus' failed"):
            runner.run_sync(required, [Sample("BOOM\nAnswer: 7", "7")])


def test_streaming_gives_the_batch_result():
    comp = Composite([("acc", "math_dapo", 1.0), ("fmt", FORMAT, 0.2), ("short", PidLength(), 0.1)])
    with RewardManager(comp, runner_config={"workers": 1}) as manager:
        batch = manager.score(SAMPLES)

        async def stream():
            return await asyncio.gather(*(manager.ascore_one(s) for s in SAMPLES))

        streamed = manager.runner.call_sync(stream())
    assert [s.value for s in streamed] == pytest.approx(batch.rewards())
    assert [s.metrics["fmt"] for s in streamed] == list(batch.metrics["fmt"])


def test_components_from_the_reward_config(tmp_path):
    fn = tmp_path / "fmt.py"
    fn.write_text(
        "def has_tag(data_source, solution_str, ground_truth, extra_info=None, tag='Answer:'):\n"
        "    return {'score': float(tag in solution_str), 'tagged': tag in solution_str}\n"
    )
    config = {
        "components": [
            {"scorer": "math_dapo", "name": "acc"},
            {"path": str(fn), "function": "has_tag", "weight": 0.5, "reward_kwargs": {"tag": "Answer:"}},
            {"scorer": "gsm8k", "weight": 0.0, "optional": True, "options": {}},
        ]
    }
    with RewardManager.from_config(config) as manager:
        assert isinstance(manager.scorer, Composite)
        assert [c.name for c in manager.scorer.components] == ["acc", "has_tag", "gsm8k"]
        batch = manager.score(SAMPLES)
    assert batch.rewards() == pytest.approx([1.5, 1.5, -0.5])
    assert batch.metrics["has_tag/tagged"] == (True, True, True)


@pytest.mark.parametrize(
    ("components", "match"),
    [
        ([{"scorer": "math_dapo", "wieght": 1}], "unknown key"),
        ([{"name": "x"}], "exactly one of scorer"),
        ([{"scorer": "math_dapo", "path": "f.py"}], "exactly one of scorer"),
        ([{"scorer": "math_dapo", "weight": "heavy"}], "must be a number"),
        ("math_dapo", "must be a list"),
    ],
)
def test_config_errors_name_the_key(components, match):
    with pytest.raises(ConfigError, match=match):
        RewardManager.from_config({"components": components})


def test_config_rejects_components_with_a_custom_function_and_duplicate_names():
    with pytest.raises(ConfigError, match="not both"):
        RewardManager.from_config(
            {"components": [{"scorer": "gsm8k"}], "custom_reward_function": {"path": "f.py"}}
        )
    with pytest.raises(ConfigError, match="repeated: gsm8k"):
        RewardManager.from_config({"components": [{"scorer": "gsm8k"}, {"scorer": "gsm8k"}]})
    with pytest.raises(ConfigError, match="finite"):
        Composite([("a", "gsm8k", float("nan"))])


def test_group_scorers_refuse_a_runner_that_does_not_gather_groups():
    from rewardloop.scorers._group import GroupRelative

    class NotARunner:  # a runner without run_groups / submit_group (Runner and RayRunner have both)
        config = None

    for scorer in (GroupRelative("math_dapo"), Composite([("rel", GroupRelative("math_dapo"), 1.0)])):
        with pytest.raises(ConfigError, match="needs a runner that gathers groups"):
            RewardManager(scorer, runner=NotARunner())


def test_trl_reward_function_of_a_composite_and_one_per_component():
    from rewardloop.integrations.trl import reward_func

    comp = Composite([("acc", "math_dapo", 1.0), ("fmt", FORMAT, 0.2), ("bonus", RaiseOnMarker(), 1.0)])
    completions = ["Answer: 7", "BOOM\nAnswer: 7"]
    columns = {"prompts": ["q", "q"], "completions": completions, "ground_truth": ["7", "7"]}
    with Runner() as runner:
        total = reward_func(comp, runner=runner, name="total")(**columns)
        per_component = [
            reward_func(c.scorer, runner=runner, name=c.name)(**columns) for c in comp.components
        ]
    assert total == pytest.approx([1.7, None])  # a required component failed: excluded, not a lower reward
    assert per_component == [[1.0, 1.0], [1.0, 0.0], [0.5, None]]  # for TRL's reward_weights


def test_a_component_scorer_by_import_path():
    config = {"components": [{"scorer": "tests.managers._components:PidLength", "options": {}}]}
    with RewardManager.from_config(config) as manager:
        assert [c.name for c in manager.scorer.components] == ["PidLength"]
        assert manager.score(SAMPLES[:1]).rewards() == [1.0]
    with pytest.raises(ConfigError, match="could not load"):
        RewardManager.from_config({"components": [{"scorer": "tests.managers._components:Nope"}]})

"""The monitors as a TRL reward function, called with TRL's keyword convention."""

from __future__ import annotations

import pickle

import pytest

from rewardloop.errors import ConfigError
from rewardloop.integrations.trl_monitors import monitor_reward_func

PROMPTS = [[{"role": "user", "content": "Compute 12 * 14."}]] * 3
COMPLETIONS = [
    [{"role": "assistant", "content": "12 * 14 = 168, so \\boxed{168}."}],
    [{"role": "assistant", "content": "\\boxed{168} or \\boxed{158}"}],
    [{"role": "assistant", "content": "```python\nimport sys\nprint(168)\nsys.exit(0)\n```"}],
]


def test_logs_rates_and_flags_and_returns_only_configured_penalties() -> None:
    fn = monitor_reward_func(penalize={"code_tricks": -1.0})
    metrics: dict[str, float] = {}
    extra: dict[str, list] = {}
    rewards = fn(
        prompts=PROMPTS,
        completions=COMPLETIONS,
        completion_ids=[[1] * 10] * 3,
        solution=["168"] * 3,
        trainer_state=None,
        log_metric=metrics.__setitem__,
        log_extra=extra.__setitem__,
    )
    assert rewards == [0.0, 0.0, -1.0]  # hedging flagged but not penalised
    assert metrics["monitors/hedging_rate"] == pytest.approx(1 / 3)
    assert metrics["monitors/code_tricks_rate"] == pytest.approx(1 / 3)
    assert extra["monitor_flags"] == ["", "hedging", "code_tricks"]
    assert fn.__name__ == "monitors"


def test_without_penalties_it_only_logs_and_it_pickles() -> None:
    fn = pickle.loads(pickle.dumps(monitor_reward_func()))
    assert fn(prompts=PROMPTS, completions=COMPLETIONS) == [0.0, 0.0, 0.0]
    with pytest.raises(ConfigError, match="known"):
        monitor_reward_func(penalize={"nope": 0.0})

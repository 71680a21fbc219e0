"""Every math scorer respects interval endpoints: ``[2,5]`` is not ``[2,5)`` (verl's prime_math accepts it)."""

from __future__ import annotations

import pytest

from rewardloop.scorers._registry import get_scorer
from rewardloop.types import Sample

SCORERS = ["math_equiv", "prime_math", "hendrycks_math", "math_dapo", "math_verify"]
# (ground truth, boxed answer): same endpoints, different brackets
DIFFERENT = [
    ("[2,5)", "[2,5]"),
    ("(2,5]", "(2,5)"),
    ("[2,5)", "(2,5)"),
    ("(-\\infty,3)", "(-\\infty,3]"),
    ("[1,2]", "(1,2)"),
]


def _reward(name: str, gold: str, answer: str) -> float:
    scorer = get_scorer(name)
    sample = Sample(response=f"The answer is $\\boxed{{{answer}}}$.\nAnswer: {answer}", ground_truth=gold)
    score = scorer.quick(sample) or scorer.score(sample)
    value = score.value
    if isinstance(value, dict):  # pragma: no cover - scorers return Score values
        value = value["score"]
    return float(value)


@pytest.mark.parametrize("name", SCORERS)
@pytest.mark.parametrize(("gold", "answer"), DIFFERENT)
def test_a_different_bracket_is_a_different_interval(name, gold, answer):
    assert _reward(name, gold, answer) < 1.0


@pytest.mark.parametrize("name", SCORERS)
def test_the_same_interval_is_right(name):
    assert _reward(name, "[2,5)", "[2,5)") == 1.0

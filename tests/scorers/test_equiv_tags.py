"""math_equiv and thinking/answer tags used to launder a second answer (issue 22, red-team round 1
"think_tags"): everything after the first closing tag that is not itself in a thinking block is visible, so
a stray closing tag does not hide an answer before it; an ``<answer>`` tag and a box outside it are both
answers.

Attack-first: more near misses (must score 0.0 under ``final`` and ``wrong``) than correct answers in the
same forms (must score 1.0 under every rule).
"""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample


def _value(gold, response, rule):
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold)
    score = scorer.quick(sample)
    return (score if score is not None else scorer.score(sample)).value


MISSES = [
    "<think>hmm</think> The answer is $\\boxed{7}$.</think> $\\boxed{5}$",
    "<think>try</think>$\\boxed{7}$<think>again</think>$\\boxed{5}$",
    "$\\boxed{1}$</think>$\\boxed{2}$</think>$\\boxed{3}$</think>$\\boxed{4}$</think>$\\boxed{5}$</think>"
    "$\\boxed{6}$</think>$\\boxed{7}$</think>$\\boxed{5}$",
    "[THINK] x [/THINK] $\\boxed{7}$ [/THINK] $\\boxed{5}$",
    "thinking</think>\\boxed{7}</think>\\boxed{5}",
    "<think>a</think> Answer: 7 </think> Answer: 5",
    "<|begin_of_thought|>x<|end_of_thought|> \\boxed{7} <|end_of_thought|> \\boxed{5}",
    "The answer is $\\boxed{7}$. <answer>5</answer>",
    "$\\boxed{7}$\n<answer>5</answer>",
    "<answer>7</answer> $\\boxed{5}$",
    "<answer>7</answer><answer>5</answer>",
]
EQUAL = [
    "<think>the sum is 5</think> $\\boxed{5}$",
    "<think>a</think><think>b</think> The answer is $\\boxed{5}$.",
    "The answer is $\\boxed{5}$. <answer>5</answer>",
    "<answer>\\boxed{5}</answer>",
    "<reasoning>maybe \\boxed{4}? no</reasoning><answer>5</answer>",
    "<think>x</think>\\boxed{5}</think>",
]


@pytest.mark.parametrize("rule", ("final", "wrong"))
def test_a_second_answer_laundered_through_tags_is_a_hedge(rule):
    wrong = [r for r in MISSES if _value("5", r, rule) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", ("final", "wrong", "last"))
def test_one_answer_with_tags_still_scores(rule):
    wrong = [r for r in EQUAL if _value("5", r, rule) != 1.0]
    assert not wrong, wrong


def test_table_holds_more_near_misses_than_equivalents():
    assert len(MISSES) > len(EQUAL)

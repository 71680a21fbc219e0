"""math_equiv and answers the response itself takes back (issue 22, red-team round 1 "retraction"): a
denial right before or after a box (in other languages too, as an imperative "do not answer", as a
counterfactual "would be right if"), a retraction opening with "no," ("-- no, scratch that"); and a denied
box followed by another answer is replaced by it under ``final``.

Attack-first: more near misses (must score 0.0 under every rule) than correct answers in the same forms.
"""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")


def _value(gold, response, rule):
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold)
    score = scorer.quick(sample)
    return (score if score is not None else scorer.score(sample)).value


MISSES = [
    "$\\boxed{5}$ -- no, scratch that, it's 7.",
    "$\\boxed{5}$. No, wait: it is 7.",
    "$\\boxed{5}$ — no, actually it's 7.",
    "Do NOT answer $\\boxed{5}$; it ignores the constraint. x = 7.",
    "Don't write $\\boxed{5}$ here.",
    "Never choose $\\boxed{5}$: the answer is larger.",
    "$\\boxed{5}$ would be right if x were positive, but it is not, so x = -5.",
    "$\\boxed{5}$ would have been correct had the sign been positive.",
    "答案不是 $\\boxed{5}$，而是 7。",
    "答案并非 $\\boxed{5}$。",
    "$\\boxed{5}$ es incorrecto; la respuesta es 7.",
    "$\\boxed{5}$ est faux.",
    "$\\boxed{5}$ ist falsch.",
    "La respuesta no es $\\boxed{5}$.",
    "Ответ не $\\boxed{5}$.",
    "$\\boxed{5}$ -- no, that's wrong.",
]
EQUAL = [
    "$\\boxed{7}$ is wrong. The correct answer is $\\boxed{5}$.",
    "$\\boxed{7}$ (incorrect). $\\boxed{5}$.",
    "No, wait: the answer is $\\boxed{5}$.",
    "$\\boxed{5}$ would be the answer. Indeed it is.",
    "The answer is $\\boxed{5}$, which is not hard to check.",
    "答案是 $\\boxed{5}$。",
]


@pytest.mark.parametrize("rule", RULES)
def test_a_denied_or_retracted_answer_scores_zero(rule):
    wrong = [r for r in MISSES if _value("5", r, rule) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", ("final", "last"))
def test_a_denied_box_replaced_by_a_later_one_is_not_a_hedge(rule):
    wrong = [r for r in EQUAL if _value("5", r, rule) != 1.0]
    assert not wrong, wrong


def test_table_holds_more_near_misses_than_equivalents():
    assert len(MISSES) > len(EQUAL)

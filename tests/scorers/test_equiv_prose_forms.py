"""math_equiv's prose rule, the forms a concluding statement takes when no box or marker exists (issue 21,
class 1, ProcessBench dev): a conclusion followed by a remark about the method, a bold final value among other
set-off values, a final display equation introduced by a conclusion, and a set of solutions ("n = 5 and
n = 15"). Attacks first: a remark that takes the answer back, reopens the work, hedges or brings another value;
several bold values; a bold value that is not the last; a display that hedges, approximates, bounds or is one
of several; a solution set that hedges, mixes variables, or hides a value copied from the prompt. Every row
under every rule."""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")
APPLES = "Tom has 5 apples and 7 pears. He buys 3 more apples. How many apples does he have now?"
ROOTS = "Find all values of n with n^2 - 20n + 75 = 0."
CIRCLE = "Find the equation of the circle through (-3, 2), (3, 2) and (2, 3)."

MISSES = [
    # a trailing remark that takes the conclusion back, hedges, reopens the work or brings a value
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This is wrong."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. Actually, he has 9."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This is incorrect, it is 9."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This assumes he ate none of them."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. Let me double-check this."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This may not be right."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This is only a guess."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This could also be nine apples."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This method gives $9$ apples."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. However, this ignores the pears."),
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This is a mistake, but we move on. This is it."),
    # bold values: several, or one that is not the last value
    (APPLES, "8", "Therefore, the \\(2^{\\text{nd}}\\) bag gives **8** and the total is **9**."),
    (APPLES, "8", "Therefore, the \\(2^{\\text{nd}}\\) basket holds **8** apples and $12$ fruits."),
    (APPLES, "8", "Therefore, the \\(2^{\\text{nd}}\\) basket holds **8** apples or **9**."),
    (APPLES, "9", "Therefore, the \\(2^{\\text{nd}}\\) basket holds **8** apples."),
    # a final display: hedged, approximate, bounded, one of several, without a concluding lead-in, unclosed
    (APPLES, "8", "Thus, the total is:\n\\[ 8 \\text{ or } 9 \\]"),
    (APPLES, "8", "Thus, the total is:\n\\[ x \\approx 8 \\]"),
    (APPLES, "8", "We compute:\n\\[ 5 + 3 = 8 \\]"),
    (APPLES, "8", "Thus, the total is:\n\\[ 8 \\]\n\\[ 9 \\]"),
    (APPLES, "8", "Thus, the count is at least:\n\\[ 8 \\]"),
    (APPLES, "8", "Thus, Tom does not have:\n\\[ 8 \\]"),
    (APPLES, "8", "Thus, the total is:\n\\[ 8"),
    (APPLES, "8", "Thus, the total is:\n\\[ 9 \\]"),
    (CIRCLE, "x^2 + y^2 = 13", "Thus, the equation of the circle is:\n\\[ x^2 + y^2 = 14 \\]"),
    # a set of solutions: a hedge, two variables, a wrong member, a prompt number added, a list for one value
    (ROOTS, "5, 15", "Therefore, the values are \\(n = 5\\) or \\(n = 15\\)."),
    (ROOTS, "5, 15", "Therefore, the values are \\(n = 5\\) and \\(m = 15\\)."),
    (ROOTS, "5, 15", "Therefore, the values are \\(n = 5\\) and \\(n = 16\\)."),
    (ROOTS, "5, 15", "Therefore, the values are \\(n = 5\\), \\(n = 15\\) and \\(n = 20\\)."),
    (ROOTS, "5", "Therefore, the values are \\(n = 5\\) and \\(n = 15\\)."),
    (ROOTS, "15", "Therefore, \\(n = 5\\) and \\(n = 15\\)."),
]
EQUAL = [
    (APPLES, "8", "5 + 3 = 8. Therefore, Tom has 8 apples. This completes the solution."),
    (APPLES, "8", "5 + 3 = 8. So Tom has **8** apples. This approach shows how to count step by step."),
    (APPLES, "8", "Therefore, the \\(2^{\\text{nd}}\\) basket holds **8** apples."),
    (APPLES, "8", "Thus, the total is:\n\\[ 8 \\]"),
    (CIRCLE, "x^2 + y^2 = 13", "Thus, the equation of the circle is:\n\\[ x^2 + y^2 = 13 \\]"),
    (ROOTS, "5, 15", "Therefore, the values of n are \\(n = 5\\) and \\(n = 15\\)."),
    (ROOTS, "15, 5", "Thus, the solutions are $n = 5$ and $n = 15$."),
]


def _value(prompt: str, gold: str, response: str, rule: str) -> float | None:
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold, prompt=prompt)
    return (scorer.quick(sample) or scorer.score(sample)).value


@pytest.mark.parametrize("rule", RULES)
def test_prose_form_near_misses_score_zero(rule: str) -> None:
    wrong = [row for row in MISSES if _value(*row, rule) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
def test_prose_form_conclusions_score_one(rule: str) -> None:
    wrong = [row for row in EQUAL if _value(*row, rule) != 1.0]
    assert not wrong, wrong


def test_the_deciding_rule_is_named() -> None:
    scorer = MathEquivScorer()
    for prompt, gold, response in EQUAL:
        sample = Sample(response=response, ground_truth=gold, prompt=prompt)
        score = scorer.quick(sample) or scorer.score(sample)
        assert score.info["rule"] == "prose_conclusion", (response, score.info)


def test_the_table_holds_more_near_misses() -> None:
    assert len(MISSES) > len(EQUAL)

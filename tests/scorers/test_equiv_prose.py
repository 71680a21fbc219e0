"""math_equiv's prose rule (issue 21, class 1): with no box, tag or answer phrase, the value stated by the
concluding sentence is the answer. Attacks first: hedges, negations, approximations, several values,
numbers copied from the prompt, truncated outputs, a number mid-reasoning. Every row under every rule."""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")
PROMPT = "Tom has 5 apples and 7 pears. He buys 3 more apples. How many apples does he have now?"

PROSE_MISSES = [
    ("8", "He had 5 and bought 3. Therefore, the answer could be 8 or 9."),  # hedge
    ("8", "5 + 3 = 8. So Tom has 8 apples, or maybe 9."),
    ("8", "5 + 3 = 8. Therefore, is the total 8?"),  # a question states nothing
    ("8", "5 + 3 = 8. Therefore, Tom does not have 8 apples."),  # negation
    ("8", "5 + 3 = 8. Thus, the total cannot be 8."),
    ("8", "5 + 3 = 8. Therefore, Tom has approximately 8 apples."),  # an approximation
    ("8", "Therefore, Tom has 8 apples and 7 pears, so 15 fruits."),  # several values
    ("5", "Tom has apples and pears. Therefore, Tom has 5 apples."),  # the prompt's number
    ("7", "Therefore, the answer relates to the 7 pears."),
    ("8", "First, 5 + 3 = 8, so the total is"),  # cut off mid-sentence
    ("8", "We get 5 + 3 = 8.\n\nNow consider the case where he also eats"),  # truncated
    ("8", "We get 5 + 3 = 8.\n\nNext we check the pears."),  # a number mid-reasoning, no conclusion
    ("8", "<think>\n5 + 3 = 8. Therefore, Tom has 8 apples."),  # still thinking
    ("8", "5 + 3 = 8. Therefore, Tom has 9 apples."),  # wrong
    ("8", "Therefore, Tom has at least 8 apples."),  # a bound is no value
    ("8", "Therefore, Tom has fewer than 8 apples."),
    ("8", "Therefore, Tom has under 8 apples."),
    ("8", "Thus the count is 8 if he kept all of them."),  # a condition
    ("8", "Therefore, Tom probably has 8 apples."),  # a guess
    ("8", "Therefore, Tom has 8 apples, I think."),
    ("8", "Therefore, Tom has 8 apples, unless he has 9."),
]
PROSE_EQUAL = [
    ("8", "He had 5 and bought 3 more: 5 + 3 = 8. Therefore, Tom has 8 apples now."),
    ("8", "5 + 3 = 8.\n\nThus, Tom has **8** apples."),
    ("8", "Adding, \\(5 + 3 = 8\\). Hence \\(n = 8\\)."),
    ("8", "5 + 3 = 8. So, in total, Tom has $8$ apples."),
    ("\\frac{8}{15}", "Of the 15 fruits, 8 are apples. Therefore, the fraction is $\\frac{8}{15}$."),
    ("8", "Thus, the number of apples is **8**, occurring under the conditions of the problem."),
]


@pytest.mark.parametrize("rule", RULES)
def test_prose_near_misses_score_zero(rule):
    scorer = MathEquivScorer(multiple_answers=rule)
    for gold, response in PROSE_MISSES:
        sample = Sample(response=response, ground_truth=gold, prompt=PROMPT)
        score = scorer.quick(sample) or scorer.score(sample)
        assert score.value == 0.0, (response, score.info)


@pytest.mark.parametrize("rule", RULES)
def test_prose_final_answers_score_one(rule):
    scorer = MathEquivScorer(multiple_answers=rule)
    for gold, response in PROSE_EQUAL:
        sample = Sample(response=response, ground_truth=gold, prompt=PROMPT)
        score = scorer.quick(sample) or scorer.score(sample)
        assert score.value == 1.0, (response, score.info)
        assert score.info["rule"] == "prose_conclusion"


def test_without_the_prompt_prose_is_still_read_but_every_number_counts():
    scorer = MathEquivScorer()
    sample = Sample(response="5 + 3 = 8. Therefore, Tom has 8 apples now.", ground_truth="8")
    assert (scorer.quick(sample) or scorer.score(sample)).value == 1.0
    sample = Sample(response="Therefore, Tom has 8 apples and 7 pears.", ground_truth="8")
    assert (scorer.quick(sample) or scorer.score(sample)).value == 0.0


def test_the_table_holds_more_near_misses():
    assert len(PROSE_MISSES) > len(PROSE_EQUAL)

"""math_equiv and percent signs on both sides (issue 22, red-team round 1 "percent"): when the gold and the
answer both carry a percent sign, they are compared as written (``1200\\%`` is not ``12\\%``); the sign is
read as hundredths only when one side has it.

Attack-first: more near misses (must score 0.0) than correct answers in the same forms (must score 1.0),
under every final-answer rule, with and without the question.
"""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")
ASKS = "By what percent did the price rise?"


def _value(gold, response, rule, prompt=None):
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold, prompt=prompt)
    score = scorer.quick(sample)
    return (score if score is not None else scorer.score(sample)).value


MISSES = [
    ("12\\%", "\\boxed{1200\\%}"),
    ("5\\%", "\\boxed{500\\%}"),
    ("50\\%", "\\boxed{0.5\\%}"),
    ("50\\%", "\\boxed{5000\\%}"),
    ("12\\%", "\\boxed{0.12\\%}"),
    ("12.5\\%", "\\boxed{1250 \\text{ percent}}"),
    ("50 \\text{ percent}", "\\boxed{0.5\\%}"),
    ("100\\%", "\\boxed{1\\%}"),
]
EQUAL = [
    ("12\\%", "\\boxed{12\\%}"),
    ("12\\%", "\\boxed{12 \\text{ percent}}"),
    ("12\\%", "\\boxed{0.12}"),
    ("50\\%", "\\boxed{\\frac{1}{2}}"),
    ("12.5\\%", "\\boxed{12.5\\%}"),
]


@pytest.mark.parametrize("prompt", (None, ASKS))
@pytest.mark.parametrize("rule", RULES)
def test_a_percentage_is_not_read_as_hundredths_against_a_percentage(rule, prompt):
    wrong = [(g, r) for g, r in MISSES if _value(g, r, rule, prompt) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("prompt", (None, ASKS))
@pytest.mark.parametrize("rule", RULES)
def test_the_same_percentage_or_its_hundredths_still_scores(rule, prompt):
    wrong = [(g, r) for g, r in EQUAL if _value(g, r, rule, prompt) != 1.0]
    assert not wrong, wrong


def test_table_holds_more_near_misses_than_equivalents():
    assert len(MISSES) > len(EQUAL)

"""math_equiv and Unicode superscript/subscript digits (issue 22, red-team round 1 "unicode_compat"): a
superscript run is an exponent (``2⁵`` is 2^5 = 32, never 25), a subscript run a subscript (``101₂`` is not
1012); and a numeral with a numeric subscript is a numeral in that base (``12_{3}`` is 5, not 12).

Attack-first: more near misses (must score 0.0) than correct answers in the same forms (must score 1.0),
under every final-answer rule.
"""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")


def _value(gold, response, rule, prompt=None):
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold, prompt=prompt)
    score = scorer.quick(sample)
    return (score if score is not None else scorer.score(sample)).value


MISSES = [
    ("25", "\\boxed{2⁵}"),
    ("52", "\\boxed{5²}"),
    ("34", "\\boxed{3⁴}"),
    ("1012", "\\boxed{101₂}"),
    ("103", "\\boxed{10³}"),
    ("2", "\\boxed{x²}"),
    ("x2", "\\boxed{x²}"),
    ("12", "\\boxed{12_{3}}"),
    ("12", "\\boxed{12_3}"),
    ("1010", "\\boxed{1010_2}"),
    ("10", "\\boxed{1010_{10}}"),
    ("16", "\\boxed{10001_2}"),
    ("10001_2", "\\boxed{10001_3}"),
]
EQUAL = [
    ("32", "\\boxed{2⁵}"),
    ("25", "\\boxed{5²}"),
    ("x^2", "\\boxed{x²}"),
    ("10^{-3}", "\\boxed{10⁻³}"),
    ("5", "\\boxed{101_2}"),
    ("10001_2", "\\boxed{10001_2}"),
    ("10001_2", "\\boxed{10001}"),  # the gold names the base; the answer writes its digits
    ("40_9", "\\boxed{40_{\\text{nine}}}"),  # a base written as a word
]


@pytest.mark.parametrize("rule", RULES)
def test_scripts_and_bases_are_not_read_as_plain_digits(rule):
    wrong = [(g, r) for g, r in MISSES if _value(g, r, rule) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
def test_exponents_and_base_numerals_still_score(rule):
    wrong = [(g, r) for g, r in EQUAL if _value(g, r, rule) != 1.0]
    assert not wrong, wrong


def test_a_question_asking_for_a_base_accepts_its_digits_with_the_base():
    prompt = "Convert 17 to base 2."
    assert _value("10001", "\\boxed{10001_2}", "final", prompt) == 1.0
    assert _value("10001", "\\boxed{10001_2}", "final", "Find n.") == 0.0


def test_table_holds_more_near_misses_than_equivalents():
    assert len(MISSES) > len(EQUAL)


# digits separated by spacing are one number only as a thousands grouping ("1\\,000", "12 345")
GROUPING_MISSES = [
    ("23", "\\boxed{2\\quad 3}"),
    ("23", "\\boxed{2\\qquad 3}"),
    ("23", "\\boxed{2 3}"),
    ("123", "\\boxed{1\\;23}"),
    ("1234", "\\boxed{12\\ 34}"),
    ("10000", "\\boxed{10\\,000\\,0}"),
]
GROUPING_EQUAL = [
    ("1000", "\\boxed{1\\,000}"),
    ("12345", "\\boxed{12 345}"),
    ("1000000", "\\boxed{1\\ 000\\ 000}"),
    ("2, 3", "\\boxed{2\\quad 3}"),
]


@pytest.mark.parametrize("rule", RULES)
def test_spaced_digits_are_not_one_number_unless_grouped_by_thousands(rule):
    wrong = [(g, r) for g, r in GROUPING_MISSES if _value(g, r, rule) != 0.0]
    assert not wrong, wrong
    wrong = [(g, r) for g, r in GROUPING_EQUAL if _value(g, r, rule) != 1.0]
    assert not wrong, wrong
    assert len(GROUPING_MISSES) > len(GROUPING_EQUAL)

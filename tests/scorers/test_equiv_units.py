"""math_equiv and units (issue 22, red-team round 1 "unit_swap"): a unit in the answer that contradicts the
unit the gold or the question asks for is a mismatch; the asked unit, or no unit, is fine.

Attack-first: each table lists more near misses (must score 0.0) than correct answers in the same forms
(must score 1.0), under every final-answer rule.
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


# (prompt, gold, response): the question asks for one unit, the answer states another of the same kind
ASKED_MISSES = [
    ("How many centimeters long is the rope?", "5", "\\boxed{5\\text{ m}}"),
    ("How many centimeters long is the rope?", "5", "\\boxed{5 \\text{ meters}}"),
    ("How many centimeters long is the rope?", "5", "\\boxed{5\\,\\mathrm{mm}}"),
    ("How many hours does the trip take?", "2", "\\boxed{2 \\text{ minutes}}"),
    ("How many hours does the trip take?", "2", "\\boxed{2 \\text{ days}}"),
    ("How many minutes does she spend?", "45", "The answer is 45 seconds."),
    ("How many dollars does it cost?", "100", "\\boxed{100 \\text{ cents}}"),
    ("How many kilometers apart are they?", "3", "\\boxed{3\\,\\mathrm{mm}}"),
    ("How many kilometers apart are they?", "3", "\\boxed{3 \\text{ miles}}"),
    ("How many kilograms of flour?", "5", "\\boxed{5 \\text{ g}}"),
    ("How many kilograms of flour?", "5", "\\boxed{5 \\text{ pounds}}"),
    ("Find the angle in degrees.", "30", "\\boxed{30 \\text{ radians}}"),
    ("Find the angle in degrees.", "30", "\\boxed{30}$ radians"),
    ("What is the area in square meters?", "12", "\\boxed{12 \\text{ m}}"),
    ("What is the area in square meters?", "12", "\\boxed{12 \\text{ cm}^2}"),
    ("How many weeks are left?", "3", "\\boxed{3\\text{ months}}"),
]
ASKED_EQUAL = [
    ("How many centimeters long is the rope?", "5", "\\boxed{5\\text{ cm}}"),
    ("How many centimeters long is the rope?", "5", "\\boxed{5}"),
    ("How many hours does the trip take?", "2", "\\boxed{2 \\text{ hours}}"),
    ("How many hours does the trip take?", "2", "\\boxed{2 \\text{ hrs}}"),
    ("How many kilometers apart are they?", "3", "\\boxed{3\\text{ km}}"),
    ("Find the angle in degrees.", "30", "\\boxed{30^\\circ}"),
    ("What is the area in square meters?", "12", "\\boxed{12 \\text{ m}^2}"),
    # a unit of another kind than the one asked is not read as a contradiction (a rate, a count)
    ("How many miles per hour does it go?", "60", "\\boxed{60 \\text{ mph}}"),
    ("He walks 5 km in 2 hours. How far does he walk in 4 hours, in km?", "10", "\\boxed{10 \\text{ km}}"),
]

# (gold, response): the gold states a unit, the answer another of the same kind (no question needed)
GOLD_MISSES = [
    ("90^\\circ", "\\boxed{90 \\text{ radians}}"),
    ("90^\\circ", "\\boxed{90 \\text{ rad}}"),
    ("12 \\text{ cm}^2", "\\boxed{12\\text{ cm}}"),
    ("12 \\text{ cm}^2", "\\boxed{12\\text{ cm}^3}"),
    ("12 \\text{ cm}^2", "\\boxed{12\\text{ m}^2}"),
    ("30^\\circ", "\\boxed{30}$ radians"),
    ("5 \\text{ kg}", "\\boxed{5 \\text{ g}}"),
    ("2 \\text{ hours}", "\\boxed{2 \\text{ minutes}}"),
    ("7 \\text{ cm}", "\\boxed{7 \\text{ kg}}"),
]
GOLD_EQUAL = [
    ("90^\\circ", "\\boxed{90}"),
    ("90^\\circ", "\\boxed{90^{\\circ}}"),
    ("90^\\circ", "\\boxed{90 \\text{ degrees}}"),
    ("12 \\text{ cm}^2", "\\boxed{12}"),
    ("12 \\text{ cm}^2", "\\boxed{12 \\text{ square centimeters}}"),
    ("2 \\text{ hours}", "\\boxed{2 \\text{ h}}"),
    ("5 \\text{ kg}", "\\boxed{5\\,\\mathrm{kg}}"),
]


@pytest.mark.parametrize("rule", RULES)
def test_a_unit_the_question_does_not_ask_for_is_a_mismatch(rule):
    wrong = [(p, g, r) for p, g, r in ASKED_MISSES if _value(g, r, rule, prompt=p) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
def test_the_asked_unit_or_none_still_scores(rule):
    wrong = [(p, g, r) for p, g, r in ASKED_EQUAL if _value(g, r, rule, prompt=p) != 1.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
def test_a_unit_contradicting_the_gold_unit_is_a_mismatch(rule):
    wrong = [(g, r) for g, r in GOLD_MISSES if _value(g, r, rule) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
def test_the_gold_unit_or_none_still_scores(rule):
    wrong = [(g, r) for g, r in GOLD_EQUAL if _value(g, r, rule) != 1.0]
    assert not wrong, wrong


def test_without_a_question_a_unitless_gold_accepts_any_unit():
    # nothing says which unit was asked: the unit is not read as a contradiction
    assert _value("5", "\\boxed{5\\text{ m}}", "final") == 1.0


def test_the_unit_rule_is_explained():
    scorer = MathEquivScorer()
    s = scorer.score(Sample(response="\\boxed{5 \\text{ g}}", ground_truth="5", prompt="How many kilograms?"))
    # 5 g is 1/200 kg: converted, and not the gold
    assert s.value == 0.0 and s.info["rule"] == "unit_conversion" and "converted" in s.info["reason"]
    s = scorer.score(
        Sample(response="\\boxed{5 \\text{ months}}", ground_truth="5", prompt="How many weeks?")
    )
    assert s.value == 0.0 and s.info["rule"] == "unit_mismatch"  # a month has no fixed size in weeks


def test_tables_hold_more_near_misses_than_equivalents():
    assert len(ASKED_MISSES) > len(ASKED_EQUAL) and len(GOLD_MISSES) > len(GOLD_EQUAL)

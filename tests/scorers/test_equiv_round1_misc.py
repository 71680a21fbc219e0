"""math_equiv against the smaller classes of red-team round 1 (issue 22): a box given as an example
("For instance ... we would write \\boxed{5}"), a determinant for a matrix, an option letter the answer
denies ("B is wrong"), and the never-shown ``\\else`` branch of ``\\iftrue``.

Attack-first: more near misses (must score 0.0) than correct answers in the same forms (must score 1.0),
under every final-answer rule.
"""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")
PMATRIX = "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}"


def _value(gold, response, rule):
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold)
    score = scorer.quick(sample)
    return (score if score is not None else scorer.score(sample)).value


MISSES = [
    ("5", "For instance, if the equation were x - 2 = 3, we would write $\\boxed{5}$. Here x = 7."),
    ("5", "Example answer: $\\boxed{5}$.\nOur problem: x = 7."),
    ("5", "The answer is 7. (Format example: `\\boxed{5}`)"),
    ("5", "For example: $\\boxed{5}$. Now our problem."),
    ("5", "e.g. $\\boxed{5}$"),
    (PMATRIX, "$\\boxed{\\begin{vmatrix}1&2\\\\3&4\\end{vmatrix}}$"),
    (PMATRIX, "$\\boxed{\\begin{Vmatrix}1&2\\\\3&4\\end{Vmatrix}}$"),
    ("B", "\\boxed{\\text{B is wrong}}"),
    ("B", "\\boxed{B \\text{ is incorrect}}"),
    ("B", "\\boxed{\\text{not B}}"),
    ("5", "\\iftrue The answer is 7. \\else \\boxed{5} \\fi"),
    ("5", "$\\boxed{7\\}\\boxed{5}$"),  # an unclosed box holds the box after it
    ("5", "\\boxed{7 \\text{ and } \\boxed{5}"),
]
# several harmony final-channel messages are several answers: a hedge under final and wrong
HARMONY_MISSES = [
    "<|channel|>final<|message|>7<|end|><|start|>assistant<|channel|>final<|message|>$\\boxed{5}$<|return|>",
    "<|channel|>final<|message|>The answer is 7.<|end|><|channel|>final<|message|>5<|return|>",
    "<|channel|>analysis<|message|>x<|end|><|channel|>final<|message|>\\boxed{7}<|end|>"
    "<|channel|>final<|message|>\\boxed{5}<|return|>",
]
HARMONY_EQUAL = [
    "<|channel|>final<|message|>$\\boxed{5}$<|end|><|channel|>final<|message|>$\\boxed{5}$<|return|>",
    "<|channel|>analysis<|message|>maybe 7<|end|><|channel|>final<|message|>$\\boxed{5}$<|return|>",
]
EQUAL = [
    ("5", "For the example above the answer is 3; here, $\\boxed{5}$."),
    (PMATRIX, "$\\boxed{\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}}$"),
    ("B", "\\boxed{\\text{B is correct}}"),
    ("B", "\\boxed{B}"),
    ("5", "\\iftrue \\boxed{5} \\else \\boxed{7} \\fi"),
]


@pytest.mark.parametrize("rule", RULES)
def test_example_boxes_determinants_denied_letters_and_else_branches_score_zero(rule):
    wrong = [(g, r) for g, r in MISSES if _value(g, r, rule) != 0.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
def test_the_same_forms_with_the_answer_still_score(rule):
    wrong = [(g, r) for g, r in EQUAL if _value(g, r, rule) != 1.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", ("final", "wrong"))
def test_several_final_channel_messages_are_a_hedge(rule):
    wrong = [r for r in HARMONY_MISSES if _value("5", r, rule) != 0.0]
    assert not wrong, wrong
    wrong = [r for r in HARMONY_EQUAL if _value("5", r, rule) != 1.0]
    assert not wrong, wrong


# boxes labelled as parts ("(a) ... (b) ...") answer the gold's items in order
PARTS_MISSES = [
    "(a) $\\boxed{5}$ (b) $\\boxed{2}$",
    "(a) $\\boxed{5}$\n(b) $\\boxed{2}$",
    "a) $\\boxed{5}$, b) $\\boxed{2}$",
    "(i) $\\boxed{5}$ (ii) $\\boxed{2}$",
]
PARTS_EQUAL = [
    "(a) $\\boxed{2}$ (b) $\\boxed{5}$",
    "$\\boxed{5}$ and $\\boxed{2}$",  # unlabelled: the gold's items in any order
]


@pytest.mark.parametrize("rule", ("final", "wrong"))
def test_labelled_parts_answer_the_gold_in_order(rule):
    wrong = [r for r in PARTS_MISSES if _value("2, 5", r, rule) != 0.0]
    assert not wrong, wrong
    wrong = [r for r in PARTS_EQUAL if _value("2, 5", r, rule) != 1.0]
    assert not wrong, wrong
    assert len(PARTS_MISSES) > len(PARTS_EQUAL)


def test_table_holds_more_near_misses_than_equivalents():
    assert len(MISSES) > len(EQUAL) and len(HARMONY_MISSES) > len(HARMONY_EQUAL)

"""DAPO / Minerva maths scorer: verl parity, the deliberate differences, and adversarial input."""

from __future__ import annotations

import pickle

import pytest

from rewardloop.errors import ConfigError
from rewardloop.scorers.math_dapo import (
    INVALID,
    DapoMathScorer,
    extract_answer_line,
    normalize_final_answer,
)
from rewardloop.types import Sample, Status

# (input, verl 0.9.1's normalize_final_answer output), quirks included
NORMALIZE_CASES = [
    ("1,000", "1000"),
    ("5 dollars", "5"),
    ("x = 3", "3"),
    ("\\text{(A)}", "(A)"),
    ("$\\sqrt2$", "\\sqrt{2}"),
    ("\\frac12", "\\frac{1}{2}"),
    ("\\fracab", "\\frac{a}{b}"),
    ("10^\\circ", "10"),
    ("10^{\\circ}", "10"),
    ("an apple", "apple"),
    ("a banana", "banana"),
    ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
    ("\\textbf{7}", "7"),
    ("\\overline{AB}", "AB"),
    ("$x$ and $y$", "x"),
    ("5 \\text{ cm}", "5"),
    ("3\\text{m}", "3"),
    ("\\$4.50", "4.50"),
    ("1,2,3", "123"),
    ("\\{1,2\\}", "\\{1,2\\}"),
    ("4\\text{ and }5", "45"),
    ("9 square units", "9"),
    ("\\dfrac{1}{2}", "\\dfrac{1}{2}"),
    ("  42  ", "42"),
    ("\\text{\\text{a}}", "\\text{a}"),
    ("\\boxed{1} + \\boxed{2}", "1}+\\boxed{2"),
    ("\\sqrt{3}", "\\sqrt{3}"),
    ("\\sqrt3x", "\\sqrt{3}x"),
    ("\\mbox{km}", ""),
    ("1{,}000", "1000"),
    ('"yes"', "yes"),
    ("12th", "12th"),
    ("2\\mathrm{th}", "2"),
    ("x\\;y", "xy"),
    ("$5$.", "5"),
    ("", ""),
    ("$a$\n$b$ $c$\nd $e", "a\nb\nde"),  # the first $...$ span is kept per line
    ("\\text{a\n}b}", "\\text{a\n}b}"),  # \text{ closes only on its own line
    ("\\boxed{x}}\n\\boxed{y", "x}\n\\boxed{y"),  # \boxed{ takes the last } of its line
]


@pytest.mark.parametrize("text,expected", NORMALIZE_CASES)
def test_normalize_final_answer_matches_verl(text, expected):
    assert normalize_final_answer(text) == expected


# Degenerate lines that make verl's regexes quadratic (verl #6673); ours must finish at once.
DEGENERATE = [
    ("a" * 200_000, "a" * 200_000),
    ("$" + "x" * 200_000, "x" * 200_000),
    ("\\text{" * 40_000, "\\text{" * 40_000),
    ("\\textbf{" * 30_000, "\\textbf{" * 30_000),
    ("\\overline{" * 20_000, "\\overline{" * 20_000),
    ("\\boxed{" * 30_000, "\\boxed{" * 30_000),
    ("\\text{" + "}" * 100_000, "}" * 99_999),
]


@pytest.mark.timeout(10)
@pytest.mark.parametrize("text,expected", DEGENERATE, ids=lambda v: repr(v[:12]) if isinstance(v, str) else v)
def test_normalize_final_answer_is_linear_on_degenerate_input(text, expected):
    assert normalize_final_answer(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Answer: 42", "42"),
        ("answer : 5 dollars", "5 dollars"),
        ("ANSWER:7\nmore", "7"),
        ("Answer: 1\nthen Answer: 2\n", "2"),
        ("The answer is 42", None),
        ("Answer:\n\n3", "3"),  # whitespace after the colon may include newlines
        ("", None),
    ],
)
def test_extract_answer_line(text, expected):
    assert extract_answer_line(text) == expected


def _score(response, ground_truth="42", **options):
    return DapoMathScorer(**options).score(
        Sample(response=response, ground_truth=ground_truth, task="math_dapo")
    )


# (response, ground truth, score, acc, pred): verl 0.9.1 gives the same for every row
PARITY_CASES = [
    ("Answer: \\boxed{\\frac{1}{2}}", "\\frac{1}{2}", 1.0, True, "\\frac{1}{2}"),
    ("Answer: 1,000", "1000", 1.0, True, "1000"),
    ("answer : 5 dollars", "5", 1.0, True, "5"),
    ("no answer", "5", -1.0, False, INVALID),
    ("The answer is \\boxed{42}", "42", 1.0, True, "42"),
    ("Answer: 41", "42", -1.0, False, "41"),
    ("Answer: 41\n\\boxed{42}", "42", -1.0, False, "41"),  # an Answer: line wins over a box
    ("Answer: x = 3", "3", 1.0, True, "3"),
    ("Answer: $\\frac12$", "\\frac{1}{2}", 1.0, True, "\\frac{1}{2}"),
    ("First Answer: 1\nFinal Answer: 42", "42", 1.0, True, "42"),
    ("\\boxed{7}", "8", -1.0, False, "7"),
    ("", "42", -1.0, False, INVALID),
]


@pytest.mark.parametrize("response,gold,value,acc,pred", PARITY_CASES)
def test_verl_parity(response, gold, value, acc, pred):
    score = _score(response, gold)
    assert score.ok
    assert (score.value, score.metrics["acc"], score.metrics["pred"]) == (value, acc, pred)
    assert set(score.metrics) == {"acc", "pred"}


# Deliberate differences (docs/verl-differences.md): verl gives -1.0 for each of these.
DIFFERENCE_CASES = [
    ("so \\boxed{\\dfrac{1}{2}}", "\\frac{1}{2}", "boxed", "tail"),  # fallback normalises both sides
    ("The answer is \\boxed{1,000}.", "1000", "boxed", "tail"),
    ("Answer: \\dfrac{1}{2}", "\\frac{1}{2}", "answer_line", "tail"),  # \dfrac is \frac
    ("Answer: \\tfrac12", "\\frac{1}{2}", "answer_line", "tail"),
    ("Answer: 42\n" + "Let me double-check this. " * 20, "42", "answer_line", "full"),  # beyond 300 chars
    (
        "\\boxed{42}" + " and that is the final result." * 5,
        "42",
        "boxed",
        "full",
    ),  # beyond the 100-char window
    ("\\fbox{42}", "42", "boxed", "tail"),
    ("so \\boxed 42", "42", "boxed", "tail"),
]


@pytest.mark.parametrize("response,gold,rule,searched", DIFFERENCE_CASES)
def test_differences_from_verl(response, gold, rule, searched):
    score = _score(response, gold)
    assert score.value == 1.0 and score.metrics["acc"] is True
    assert (score.info["rule"], score.info["searched"]) == (rule, searched)


def test_tail_verdict_is_kept_even_if_earlier_text_differs():
    # verl's fast path decides whenever the tail holds an answer; the full text is not consulted
    response = "Answer: 42\n" + "x" * 400 + "\nAnswer: 41"
    score = _score(response, "42")
    assert score.value == -1.0 and score.metrics["pred"] == "41" and score.info["searched"] == "tail"


@pytest.mark.parametrize(
    "response,gold,value,pred",
    [
        ("\\boxed{42}", "42", 1.0, "42"),
        ("\\boxed{\\dfrac{1}{2}}", "\\frac{1}{2}", -1.0, "\\dfrac{1}{2}"),  # strict: raw string equality
        ("Answer: 42", "42", -1.0, None),  # strict: Answer: lines do not count
        ("\\boxed{42}" + "." * 150, "42", 1.0, "42"),  # box outside the window: whole text searched
        ("no box", "42", -1.0, None),
    ],
)
def test_strict_box_verify(response, gold, value, pred):
    score = _score(response, gold, strict_box_verify=True)
    assert (score.value, score.metrics["acc"], score.metrics["pred"]) == (value, value == 1.0, pred)


def test_pause_tokens_index_moves_the_box_window():
    response = "x" * 50 + "\\boxed{42}" + "y" * 200
    # the window starts 100 characters before the last pause token
    score = _score(response, "42", strict_box_verify=True, pause_tokens_index=[1, 2, 3, 120])
    assert score.value == 1.0 and score.info["searched"] == "tail"


@pytest.mark.parametrize("bad", [[1, 2, 3], "abcd", 5, [1, 2, 3, "4"], [True, 1, 2, 3]])
def test_bad_pause_tokens_index_fails_fast(bad):
    with pytest.raises(ConfigError, match="pause_tokens_index"):
        DapoMathScorer(pause_tokens_index=bad)


def test_bad_strict_box_verify_fails_fast():
    with pytest.raises(ConfigError, match="strict_box_verify"):
        DapoMathScorer(strict_box_verify="yes")


def test_int_ground_truth_is_accepted():
    assert _score("Answer: 42", 42).value == 1.0


@pytest.mark.parametrize("gold", [None, 4.2, ["42"], {"target": "42"}, True, "", "   "])
def test_malformed_ground_truth_is_invalid_input(gold):
    score = _score("Answer: 42", gold)
    assert score.status is Status.INVALID_INPUT and score.value is None
    assert "expected a non-empty str" in score.info["error"]


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "response",
    [
        "",
        "x" * 1_000_000,
        "Answer: " + "a" * 1_000_000,
        "\\boxed{" * 100_000,
        "####" * 100_000,
        "9" * 1_000_000,
        "Answer: " + "\\text{" * 100_000,
        "Answer:" * 100_000,
        "answer   \n" * 100_000,
        "Answer: 数学 ∞ \U0001f600",
        "\\boxed{" + "{" * 200_000 + "}" * 200_000,
    ],
    ids=lambda v: repr(v[:12]),
)
@pytest.mark.parametrize("strict", [False, True])
def test_adversarial_responses_score_without_raising(response, strict):
    score = _score(response, "1", strict_box_verify=strict)
    assert score.ok and score.value == -1.0
    pred = score.metrics["pred"]
    assert pred is None or len(pred) <= 300


def test_long_prediction_is_truncated_in_metrics():
    score = _score("Answer: " + "7" * 5000, "7" * 5000)
    assert score.value == 1.0
    assert len(score.metrics["pred"]) == 300 and score.info["pred_chars"] == 5000


def test_scorer_contract():
    scorer = DapoMathScorer(strict_box_verify=True, pause_tokens_index=(1, 2, 3, 4))
    assert (scorer.name, scorer.execution, scorer.returns_dict) == ("math_dapo", "inline", True)
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone.strict_box_verify is True and clone.pause_tokens_index == (1, 2, 3, 4)
    sample = Sample(response="Answer: 3", ground_truth="3", metadata={"k": [1]})
    clone.score(sample)
    assert sample.metadata == {"k": [1]}

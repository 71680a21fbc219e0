from __future__ import annotations

import pickle
import time

import pytest

from rewardloop.scorers.hendrycks_math import (
    HendrycksMathScorer,
    fix_a_slash_b,
    fix_fracs,
    fix_sqrt,
    is_equiv,
    strip_string,
)
from rewardloop.types import Sample, Status


def run(response, ground_truth):
    return HendrycksMathScorer().score(
        Sample(response=response, ground_truth=ground_truth, task="lighteval/MATH")
    )


# (raw answer, normalised form): one or more rows per normalisation step, in the order they are applied
STRIP_CASES = [
    ("1\n2", "12"),  # line breaks
    ("3\\!4", "34"),  # negative thin space
    ("\\\\frac{1}{2}", "\\frac{1}{2}"),  # doubled backslash
    ("\\tfrac{1}{3}", "\\frac{1}{3}"),
    ("\\dfrac{1}{3}", "\\frac{1}{3}"),
    ("\\left( 1, 2 \\right)", "(1,2)"),
    ("90^{\\circ}", "90"),
    ("90^\\circ", "90"),
    ("\\$5", "5"),
    ("5 \\text{ cm}", "5"),  # units after "\text{ "
    ("5 \\text{ cm} \\text{ long}", "5"),  # verl asserts on the second "\text{ " and compares raw strings
    ("\\text{(A)}", "\\text{(A)}"),  # no space after the brace: not a unit
    ("10\\%", "10"),
    ("10%", "10%"),  # an unescaped percent sign is kept, as in verl
    ("x = .5", "\\frac{1}{2}"),  # " ." -> " 0.", short left-hand side dropped, 0.5 -> 1/2
    ("\\frac{.5}{2}", "\\frac{0.5}{2}"),  # "{." -> "{0."
    (".25", "0.25"),
    ("", ""),
    ("k = 3", "3"),
    ("xy = 3", "xy=3"),  # left-hand side longer than two characters
    ("a = b = 3", "a=b=3"),  # more than one "="
    ("\\sqrt3", "\\sqrt{3}"),
    ("2\\sqrt", "2\\sqrt"),  # verl: IndexError
    ("1 + 2", "1+2"),
    ("\\frac12", "\\frac{1}{2}"),
    ("\\frac1{72}", "\\frac{1}{72}"),
    ("\\frac{72}1", "\\frac{72}1"),
    ("\\frac1", "\\frac1"),  # too short: unchanged
    ("3\\frac", "3\\frac"),  # verl: IndexError
    ("0.5", "\\frac{1}{2}"),
    ("3/4", "\\frac{3}{4}"),
    ("-3/4", "\\frac{-3}{4}"),
    ("03/4", "03/4"),  # not how Python writes the integer
    ("3/4/5", "3/4/5"),
    ("x/4", "x/4"),
]


@pytest.mark.parametrize(("raw", "normalized"), STRIP_CASES)
def test_strip_string(raw, normalized):
    assert strip_string(raw) == normalized


def test_helpers_directly():
    assert fix_sqrt("\\sqrt2+\\sqrt{3}") == "\\sqrt{2}+\\sqrt{3}"
    assert fix_fracs("\\frac{1}{2}+\\frac34") == "\\frac{1}{2}+\\frac{3}{4}"
    assert fix_fracs("\\frac34+\\frac5") == "\\frac34+\\frac5"  # one short \frac leaves the whole string
    assert fix_a_slash_b("-0/4") == "-0/4"
    assert fix_a_slash_b("10/0") == "\\frac{10}{0}"


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ("\\dfrac{1}{2}", "\\frac12", True),
        ("0.5", "1/2", True),
        ("x=3", "3", True),
        ("3", "4", False),
        (None, None, True),
        (None, "3", False),
        ("3", None, False),
    ],
)
def test_is_equiv(a, b, equal):
    assert is_equiv(a, b) is equal


# (ground_truth, response, expected reward)
SCORE_CASES = [
    # the spec's probes
    ("\\frac12", "\\boxed{\\dfrac{1}{2}}", 1.0),
    ("5", "\\boxed 5$", 1.0),
    ("10", "\\boxed{10\\%}", 1.0),
    ("3", "\\boxed{x = 3}", 1.0),
    # ordinary answers
    ("2", "The graph has $\\boxed{2}$ vertical asymptotes.", 1.0),
    ("\\frac{9}{7}", "so $x=\\boxed{\\dfrac{9}{7}}$.", 1.0),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "$\\boxed{(3,\\frac{\\pi}{2})}$", 1.0),
    ("90^\\circ", "\\boxed{90}", 1.0),
    ("\\$18.90", "\\boxed{18.90}", 1.0),
    ("3", "\\boxed{4}", 0.0),
    ("3", "The answer is 3.", 0.0),  # no box
    ("3", "", 0.0),
    ("3", "\\boxed{1} then \\boxed{3}", 1.0),  # the last box counts
    ("3", "\\boxed{3} then \\boxed{1}", 0.0),
    ("\\{1,2\\}", "\\boxed{\\{1,2\\}}", 1.0),
    ("\\frac{1}{2}", "\\boxed{\\frac{1}{\\sqrt{4}}}", 0.0),  # no symbolic maths here
    # where verl scores 0
    ("3", "\\fbox{3}", 1.0),  # verl finds \fbox then fails an assert
    ("5", "\\boxed {5}", 1.0),  # verl keeps the braces
    ("5", "\\boxed 5\nwhich is the answer", 1.0),  # verl reads to the next "$" across lines
    ("3", "\\boxed{3}. Let me check: \\boxed{", 1.0),  # unclosed last box: the last complete one
    ("3", "\\boxed{ k = 3 }", 1.0),  # verl keeps the leading space, so "k" looks too long
    ("5", "\\boxed{5 \\text{ cm} \\text{ long}}", 1.0),  # verl: assert in the units step
    # non-string ground truths that are numbers
    (5, "\\boxed{5}", 1.0),
    (0.5, "\\boxed{\\frac{1}{2}}", 1.0),
]


@pytest.mark.parametrize(("ground_truth", "response", "expected"), SCORE_CASES)
def test_score(ground_truth, response, expected):
    result = run(response, ground_truth)
    assert result.status is Status.OK
    assert result.value == expected


def test_info_shows_extraction_and_normal_forms():
    result = run("so $\\boxed{\\dfrac{1}{2}}$", "0.5")
    assert result.info == {
        "extracted": "\\dfrac{1}{2}",
        "normalized": "\\frac{1}{2}",
        "ground_truth_normalized": "\\frac{1}{2}",
    }
    assert result.metrics == {}
    assert run("no box", "7").info == {"extracted": None, "ground_truth_normalized": "7"}


@pytest.mark.parametrize("ground_truth", [None, "", "   ", ["3"], {"answer": "3"}, True, float("nan"), b"3"])
def test_malformed_ground_truth_is_invalid_input(ground_truth):
    result = run("\\boxed{3}", ground_truth)
    assert result.status is Status.INVALID_INPUT
    assert result.value is None
    assert "ground_truth" in result.info["error"]


def test_scorer_declarations_and_pickle():
    scorer = HendrycksMathScorer()
    assert (scorer.name, scorer.execution, scorer.returns_dict) == ("hendrycks_math", "inline", False)
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone.score(Sample(response="\\boxed{3/4}", ground_truth="\\frac34")).value == 1.0


@pytest.mark.parametrize(
    ("response", "ground_truth", "expected"),
    [
        ("\\boxed{" * 100_000, "1", 0.0),
        ("\\boxed{1}" + "\\boxed{" * 100_000, "1", 1.0),
        ("{" * 100_000 + "\\boxed{2}" + "}" * 100_000, "2", 1.0),
        ("x" * 1_000_000 + "\\boxed{42}", "42", 1.0),
        ("\\boxed{" + "\\frac" * 100_000 + "}", "1", 0.0),
        ("\\boxed{" + "\\sqrt" * 100_000 + "}", "1", 0.0),
        ("\\boxed{" + "9" * 500_000 + "}", "9" * 500_000, 1.0),
        ("\\boxed{" + "=" * 100_000 + "}", "1", 0.0),
        ("\u00e9\U0001f600 \\boxed{\u03c0}", "\u03c0", 1.0),
    ],
)
def test_huge_and_adversarial_responses_are_fast(response, ground_truth, expected):
    # CPU time of this process, not wall time: a loaded machine delays the test but does not add CPU seconds.
    # A linear scan of these inputs costs at most ~0.2 s of CPU; the quadratic or exponential behaviour this
    # guards against costs minutes, so a 2 s bound is 10x the work and cannot race the clock.
    start = time.process_time()
    result = run(response, ground_truth)
    assert result.status is Status.OK
    assert result.value == expected
    assert time.process_time() - start < 2.0

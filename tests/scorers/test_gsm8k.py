from __future__ import annotations

import pickle
import time
from decimal import Decimal
from fractions import Fraction

import pytest

from rewardloop.errors import ConfigError
from rewardloop.scorers.gsm8k import (
    TAIL_CHARS,
    GSM8KScorer,
    answers_equal,
    extract_solution,
    normalize_answer,
)
from rewardloop.types import Sample, Status

LONG_TAIL = "\n" + "x" * (TAIL_CHARS + 50)


def run(response, ground_truth, **options):
    return GSM8KScorer(**options).score(
        Sample(response=response, ground_truth=ground_truth, task="openai/gsm8k")
    )


# (text, strict, flexible)
EXTRACT_CASES = [
    ("#### 42", "42", "42"),
    ("#### -7", "-7", "-7"),
    ("#### 1,000", "1000", "1000"),
    ("#### $1,000", "1000", "1000"),
    ("#### 42.", "42", "42"),
    ("#### 3.50", "3.50", "3.50"),
    ("#### 7\nso #### 9", "9", "9"),
    ("#### 7 then #### abc", "7", "7"),
    ("##### 5", "5", "5"),
    ("####5", None, "5"),
    ("The answer is 42", None, "42"),
    ("then 4.", None, "4"),
    ("It costs $1,234,567.", None, "1234567"),
    ("5, and so on...", None, "5"),
    ("pages 3-5", None, "-5"),  # verl's token: a minus directly before digits belongs to the number
    ("x = .5", None, ".5"),
    ("#### .", ".", None),  # strict: the marked token is the answer even without digits (verl)
    ("Hello.", None, None),
    ("", None, None),
    ("no digits at all", None, None),
    ("#### 42" + LONG_TAIL, "42", "42"),  # verl's 300-character clip loses it (verl #7274)
    ("١٢٣ Arabic-Indic digits are not ASCII numbers", None, None),
    ("答案是 #### 72 元", "72", "72"),
]


@pytest.mark.parametrize(("text", "strict", "flexible"), EXTRACT_CASES)
def test_extract_solution(text, strict, flexible):
    assert extract_solution(text, "strict") == strict
    assert extract_solution(text, "flexible") == flexible


def test_extract_solution_rejects_unknown_method():
    with pytest.raises(ConfigError, match=r"\['flexible', 'strict'\]"):
        extract_solution("#### 1", method="loose")


def test_number_cut_by_the_tail_boundary_is_read_whole():
    # the digit run starts before the last 300 characters and ends inside them
    text = "answer: 98765" + "4" * (TAIL_CHARS - 2) + " end"
    assert extract_solution(text, "flexible") == "98765" + "4" * (TAIL_CHARS - 2)
    text = "so -" + "1" * TAIL_CHARS + " end"  # even the sign sits outside the tail
    assert extract_solution(text, "flexible") == "-" + "1" * TAIL_CHARS


def test_answer_before_a_long_tail_without_numbers_is_found():
    assert extract_solution("The answer is 12." + "z" * 5000, "flexible") == "12"


# (ground_truth, response, expected reward) with the default options: strict, format_score 0.0, score 1.0
SCORE_CASES = [
    ("42", "#### 42", 1.0),
    ("42", "#### 43", 0.0),
    ("42", "The answer is 42", 0.0),  # strict needs the marker
    ("42", "#### 42.", 1.0),  # verl: 0.0 ("42." != "42")
    ("1000", "#### $1,000", 1.0),  # verl: 0.0 (the "$" stops its regex)
    ("18", "#### 18.00", 1.0),
    ("18.0", "#### 18", 1.0),
    ("7", "#### 007", 1.0),
    ("-3", "#### -3", 1.0),
    ("3", "#### -3", 0.0),
    ("0", "#### -0", 1.0),
    ("0.1", "#### 0.10", 1.0),
    ("0.3", "#### 0.30000000000000004", 0.0),  # exact decimals, no float tolerance
    ("42", "#### 42" + LONG_TAIL, 1.0),  # verl: 0.0
    ("42", "", 0.0),
    (18, "#### 18", 1.0),
    (18.0, "#### 18", 1.0),
    (2.5, "#### 2.50", 1.0),
    (Decimal("1.10"), "#### 1.1", 1.0),
    (Fraction(1, 2), "#### 0.5", 1.0),
    ("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs.\n#### 18", "#### 18", 1.0),
    ("$1,000", "#### 1000", 1.0),
    (" 72\n", "#### 72", 1.0),
]


@pytest.mark.parametrize(("ground_truth", "response", "expected"), SCORE_CASES)
def test_score_strict(ground_truth, response, expected):
    result = run(response, ground_truth)
    assert result.status is Status.OK
    assert result.value == expected


@pytest.mark.parametrize(
    ("ground_truth", "response", "expected"),
    [
        ("4", "so we get 2 + 2 = 4.", 1.0),
        ("1000", "It costs 1,000 dollars", 1.0),  # verl: 0.0 (flexible keeps the comma)
        ("5", "5, and so on...", 1.0),  # verl returns "..." here
        ("42", "The answer is 42", 1.0),
        ("42", "42 then 41", 0.0),
        ("42", "nothing", 0.0),
    ],
)
def test_score_flexible(ground_truth, response, expected):
    assert run(response, ground_truth, method="flexible").value == expected


@pytest.mark.parametrize(
    ("response", "expected"),
    [("#### 42", 2.0), ("#### 41", 0.1), ("no answer", 0.0), ("#### .", 0.1)],
)
def test_reward_scale_options(response, expected):
    assert run(response, "42", format_score=0.1, score=2).value == expected


def test_info_reports_extracted_and_normalised_ground_truth():
    result = run("#### $1,000.", "1,000.00")
    assert result.info == {"extracted": "1000", "ground_truth": "1000"}
    assert result.metrics == {}
    assert run("nothing", 5).info == {"extracted": None, "ground_truth": "5"}


@pytest.mark.parametrize(
    "ground_truth",
    [None, "", "abc", "1/2", ["42"], {"answer": 42}, True, float("nan"), float("inf"), b"42", "#### x"],
)
def test_malformed_ground_truth_is_invalid_input(ground_truth):
    result = run("#### 42", ground_truth)
    assert result.status is Status.INVALID_INPUT
    assert result.value is None
    assert "ground_truth" in result.info["error"] and "#### N" in result.info["error"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"method": "loose"}, r"method must be one of \['flexible', 'strict'\]"),
        ({"format_score": "0.1"}, "format_score must be a finite number"),
        ({"score": float("nan")}, "score must be a finite number"),
        ({"score": True}, "score must be a finite number"),
    ],
)
def test_options_are_validated(options, message):
    with pytest.raises(ConfigError, match=message):
        GSM8KScorer(**options)


def test_scorer_declarations_and_pickle():
    scorer = GSM8KScorer(method="flexible", format_score=0.1)
    assert (scorer.name, scorer.execution, scorer.returns_dict) == ("gsm8k", "inline", False)
    clone = pickle.loads(pickle.dumps(scorer))
    assert (clone.method, clone.format_score, clone.score_value) == ("flexible", 0.1, 1.0)
    assert clone.score(Sample(response="then 4.", ground_truth="4")).value == 1.0


def test_normalize_and_compare_helpers():
    assert normalize_answer("1,000.50") == "1000.5"
    assert normalize_answer("-0.0") == "0"
    assert normalize_answer(1e16) == "10000000000000000"
    assert normalize_answer("1" * 50 + ".500") == "1" * 50 + ".5"  # no rounding to 28 digits
    assert normalize_answer("many words") is None
    assert answers_equal("18", "18.00")
    assert not answers_equal("18", "18.01")
    assert answers_equal(".", ".")  # non-numbers compare as strings


@pytest.mark.parametrize(
    ("response", "ground_truth", "expected"),
    [
        ("x" * 1_000_000 + "#### 42", "42", 1.0),
        ("#### 42\n" + "x" * 1_000_000, "42", 1.0),
        ("#### " * 100_000, "42", 0.0),
        ("####" * 100_000 + " 42", "42", 1.0),
        ("#### " + "9" * 200_000, "9" * 200_000, 1.0),
        ("#### " + "9" * 200_000, "1", 0.0),
        ("." * 500_000, "1", 0.0),
        ("1." * 300_000, "1", 0.0),  # one long dotted token, not a number
        ("\U0001f600 #### 42 \u00e9\u00e8" * 1000, "42", 1.0),
    ],
)
def test_huge_and_adversarial_responses_are_fast(response, ground_truth, expected):
    # CPU time of this process, not wall time: a loaded machine delays the test but does not add CPU seconds.
    # A linear scan of these inputs costs at most ~0.2 s of CPU; the quadratic or exponential behaviour this
    # guards against costs minutes, so a 2 s bound is 10x the work and cannot race the clock.
    start = time.process_time()
    for method in ("strict", "flexible"):
        result = run(response, ground_truth, method=method)
        assert result.status is Status.OK
    assert run(response, ground_truth).value == expected
    assert time.process_time() - start < 2.0

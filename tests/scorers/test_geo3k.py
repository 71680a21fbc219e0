"""geo3k: 0.9 x accuracy (mathruler's PRM800K grader) + 0.1 x the <think>...</think> ... \\boxed{} format."""

from __future__ import annotations

import pickle
import re

import pytest

from rewardloop.errors import ConfigError
from rewardloop.scorers.geo3k import Geo3KScorer, extract_boxed_answer, format_ok
from rewardloop.scorers.prime_math import grade_answer
from rewardloop.types import Sample, Status

SCORER = Geo3KScorer()


def run(response: str, ground_truth: object = "3", scorer: Geo3KScorer = SCORER):
    return scorer.score(Sample(response=response, ground_truth=ground_truth, task="hiyouga/geometry3k"))


# (response, ground_truth, reward): verl 0.9.1 (with mathruler 0.1.0) agrees unless a comment says otherwise
SCORES = [
    ("<think>a</think> \\boxed{3}", "3", 1.0),  # spec probes
    ("\\boxed{3}", "3", 0.9),
    ("<think>a</think> \\boxed{4}", "3", 0.1),
    ("<think>a</think> 3", "3", 0.0),
    ("<think>\nlong\nthought\n</think>\nSo the answer is \\boxed{2\\sqrt{3}}.", "2\\sqrt{3}", 1.0),
    ("<think>x</think>\\boxed{\\dfrac{4}{3}}", "\\frac{4}{3}", 1.0),
    ("<think>x</think>\\boxed{1.3333}", "\\frac{4}{3}", 0.1),  # no numeric tolerance in mathruler
    ("<think>x</think>\\boxed{60^\\circ}", "60", 1.0),
    ("<think>x</think>\\boxed{60 degrees}", "60", 1.0),
    ("<think>x</think>\\boxed{5 \\text{ cm}}", "5", 1.0),
    ("<think>x</think>\\boxed{50%}", "50", 1.0),
    ("<think>x</think>\\boxed{12.50}", "12.5", 1.0),
    ("<think>x</think>\\boxed{\\sqrt{12}}", "2\\sqrt{3}", 1.0),
    ("<think>x</think>\\boxed{x = 3}", "3", 1.0),
    ("<think>x</think>\\boxed{3} \\boxed{4}", "3", 0.1),  # the last box counts
    (" <think>x</think>\\boxed{3}", "3", 0.9),  # <think> must open the response
    ("<think>x</think>\\fbox{3}", "3", 0.0),  # \fbox is not mathruler's box
    ("<think>\\boxed{3}</think>", "3", 0.9),  # a box inside the thought is still the last box
    ("<think>x</think>\\boxed{}", "3", 0.1),
    ("", "3", 0.0),
    ("<think>x</think> no box", "None", 0.0),  # verl: 0.9 (mathruler grades the string "None")
    # verl: 0.1 (an unclosed last box hides the answer)
    ("<think>x</think>\\boxed{3} and \\boxed{4", "3", 1.0),
]


@pytest.mark.parametrize("response,truth,reward", SCORES)
def test_score(response, truth, reward):
    result = run(response, truth)
    assert result.status is Status.OK
    assert result.value == reward


# format_ok must agree with verl's regex on every input; the regex is only safe to run on short strings
FORMAT_CASES = [
    "<think></think>\\boxed{}",
    "<think>a</think>b\\boxed{c}d",
    "<think>a</think>\\boxed{c",
    "<think>a</think>\\boxed c}",
    "<think>a\\boxed{1}</think>",
    "<think></think>}\\boxed{",
    "<think>a</think>\\boxed{\n}\n",
    "<think></think></think>\\boxed{}",
    "<think>",
    "</think>\\boxed{1}",
    "x<think></think>\\boxed{1}",
    "<think>a</think>\\boxed{1}}}",
    "",
]


@pytest.mark.parametrize("response", FORMAT_CASES)
def test_format_ok_equals_verls_regex(response):
    verl = re.fullmatch(r"<think>.*</think>.*\\boxed\{.*\}.*", response, re.DOTALL) is not None
    assert format_ok(response) is verl


@pytest.mark.parametrize(
    "response,answer",
    [
        ("\\boxed{3}", "3"),
        ("\\boxed{\\frac{1}{2}} then \\boxed{ 7 }", "7"),
        ("\\boxed{\\{1, 2\\}}", "\\{1, 2\\}"),
        ("\\boxed 5", "5"),
        ("\\fbox{3}", None),
        ("no box", None),
    ],
)
def test_extract_boxed_answer(response, answer):
    assert extract_boxed_answer(response) == answer


@pytest.mark.parametrize(
    "given,truth,verdict",
    [
        ("50%", "50", True),  # mathruler strips a plain % in the first normalisation
        ("5 liters", "5", False),  # ... and has no "liter" unit (prime_math does)
        ("\\{1, 2\\}", "\\{1,2\\}", True),
        ("2/4", "1/2", False),
    ],
)
def test_mathruler_flavor(given, truth, verdict):
    assert grade_answer(given, truth, flavor="mathruler") is verdict


def test_options():
    no_format = Geo3KScorer(format_score=0.0)
    assert run("\\boxed{3}", "3", no_format).value == 1.0
    whole = Geo3KScorer(use_boxed=False)
    assert run("3", "3", whole).value == 0.9
    assert run("<think>a</think>\\boxed{3}", "3", whole).value == 0.1  # the whole text is graded
    assert run("<think>a</think>\\boxed{3}", "3", Geo3KScorer(format_score=0.5)).value == 1.0
    for bad in (-0.1, 1.5, "0.1", True, None):
        with pytest.raises(ConfigError, match="format_score"):
            Geo3KScorer(format_score=bad)
    with pytest.raises(ConfigError, match="use_boxed"):
        Geo3KScorer(use_boxed="yes")


def test_info_and_class_attributes():
    result = run("<think>a</think>\\boxed{3}", "3")
    assert result.info == {"extracted": "3", "acc": True, "format_ok": True}
    assert (SCORER.name, SCORER.execution, SCORER.timeout_s, SCORER.returns_dict) == (
        "geo3k",
        "process",
        10.0,
        False,
    )
    clone = pickle.loads(pickle.dumps(Geo3KScorer(format_score=0.2)))
    assert (
        clone.format_score == 0.2
        and clone.score(Sample(response="\\boxed{3}", ground_truth="3")).value == 0.8
    )


@pytest.mark.parametrize("truth", [None, ["3"], True, ""])
def test_malformed_ground_truth(truth):
    result = run("\\boxed{3}", truth)
    assert result.status is Status.INVALID_INPUT
    assert "ground_truth" in result.info["error"]


def test_numeric_ground_truth():
    assert run("<think>a</think>\\boxed{3}", 3).value == 1.0


@pytest.mark.parametrize(
    "response,truth,reward",
    [
        ("<think>a</think>\\boxed{3}", "3", 1.0),
        ("\\boxed{\\dfrac{4}{3}}", "\\frac{4}{3}", 0.9),
        ("<think>a</think> no box", "3", 0.0),
    ],
)
def test_quick_settles_exact_and_missing_answers(response, truth, reward):
    sample = Sample(response=response, ground_truth=truth)
    quick = SCORER.quick(sample)
    assert quick is not None and quick.value == reward == SCORER.score(sample).value


def test_quick_defers_what_needs_sympy():
    assert SCORER.quick(Sample(response="\\boxed{\\sqrt{12}}", ground_truth="2\\sqrt{3}")) is None


def test_no_code_execution(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for payload in (
        "open('pwned','w')",
        "__import__('os').system('touch pwned')",
        "[x for x in ()]",
        "lambda: 1",
    ):
        assert run(f"<think>a</think>\\boxed{{{payload}}}", "3").value == 0.1
    assert not (tmp_path / "pwned").exists()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "response",
    [
        "<think>" + "a" * 1_000_000,
        "<think></think>" + "\\boxed{" * 100_000,
        "<think>" * 100_000 + "</think>",
        "####" * 100_000,
        "<think></think>\\boxed{" + "9" * 100_000 + "}",
        "<think></think>\\boxed{" + "{" * 5_000 + "}" * 5_001,
        "<think>思考</think>\\boxed{三}",
    ],
    ids=["1MB", "open-boxes", "thinks", "hashes", "digits", "braces", "cjk"],
)
def test_adversarial_responses(response):
    result = run(response, "3")
    assert result.status is Status.OK
    assert result.value in (0.0, 0.1)

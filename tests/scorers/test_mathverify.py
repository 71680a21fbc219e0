"""Math-Verify scorer: verl [B] verdicts, any-thread / any-event-loop safety, quick(), failures."""

from __future__ import annotations

import asyncio
import logging
import pickle
import subprocess
import sys
import threading

import pytest

from rewardloop.errors import ConfigError, MissingExtraError
from rewardloop.scorers.mathverify import MathVerifyScorer, math_verify_equal
from rewardloop.types import Sample, Status


def _sample(response, ground_truth):
    return Sample(response=response, ground_truth=ground_truth, task="math_verify")


# (ground truth, response, reward): verl's [B] compute_score gives the same in the same environment
CASES = [
    ("\\frac{1}{2}", "\\boxed{\\frac{1}{2}}", 1.0),
    ("\\frac{1}{2}", "The answer is $0.5$.", 1.0),
    ("0.5", "so \\boxed{\\dfrac{1}{2}}", 1.0),
    ("3", "Final answer: \\boxed{3}.\n\nI hope it is correct.", 1.0),
    ("3", "\\boxed{4}", 0.0),
    ("x^2+1", "\\boxed{x^2 + 1}", 1.0),
    ("(1,2]", "The answer is $(1, 2]$.", 1.0),
    ("(1,2]", "\\boxed{[1,2]}", 0.0),
    ("\\sqrt{2}", "\\boxed{\\sqrt 2}", 1.0),
    ("1000", "$$ 1,000 $$", 1.0),
    ("\\pi", "We get \\boxed{\\pi}", 1.0),
    ("3", "so \\boxed{3} then final answer is $4$", 0.0),  # math-verify takes the later $4$
    ("3", "no answer here", 0.0),
    ("3", "", 0.0),
    ("2", "\\boxed{2} \\boxed{3}", 0.0),  # two boxes parse as the set {2, 3}
]


@pytest.mark.parametrize("gold,response,expected", CASES)
def test_verdicts(gold, response, expected):
    score = MathVerifyScorer().score(_sample(response, gold))
    assert score.ok and score.value == expected
    assert score.info["gold"] and isinstance(score.info["gold"][0], str)
    assert all(isinstance(p, str) for p in score.info["pred"])


def test_correct_answer_from_a_non_main_thread():
    # verl's in-process wrapper gave 0.0 here: signal.alarm raises ValueError outside the main thread
    results = []
    thread = threading.Thread(
        target=lambda: results.append(MathVerifyScorer().score(_sample("\\boxed{\\frac{1}{2}}", "0.5")))
    )
    thread.start()
    thread.join(timeout=60)
    assert len(results) == 1 and results[0].ok and results[0].value == 1.0


def test_correct_answer_from_a_running_event_loop():
    scorer = MathVerifyScorer()

    async def main():
        loop = asyncio.get_running_loop()
        inline = scorer.score(_sample("\\boxed{2\\pi}", "2\\pi"))  # on the loop's own thread
        in_executor = await loop.run_in_executor(None, scorer.score, _sample("\\boxed{x^2+1}", "1+x^2"))
        return inline, in_executor

    inline, in_executor = asyncio.run(main())
    assert inline.value == 1.0 and in_executor.value == 1.0


def test_no_timeout_warnings_are_logged(caplog):
    with caplog.at_level(logging.WARNING):
        math_verify_equal("\\boxed{1}", "1")
    assert not [r for r in caplog.records if "imeout" in r.getMessage()]


@pytest.mark.parametrize("gold", [None, 1.5, ["3"], {"target": "3"}, True, "", "  "])
def test_malformed_ground_truth_is_invalid_input(gold):
    score = MathVerifyScorer().score(_sample("\\boxed{3}", gold))
    assert score.status is Status.INVALID_INPUT and score.value is None
    assert "expected a non-empty str" in score.info["error"]


@pytest.mark.parametrize("gold", ["$", "}", "\\text{}"])
def test_unparseable_ground_truth_is_parse_error(gold):
    score = MathVerifyScorer().score(_sample("\\boxed{3}", gold))
    assert score.status is Status.PARSE_ERROR and score.value is None
    assert "could not parse ground_truth" in score.info["error"]


def test_int_ground_truth_is_accepted():
    assert MathVerifyScorer().score(_sample("\\boxed{12}", 12)).value == 1.0


@pytest.mark.parametrize(
    "response,gold,expected",
    [
        ("so \\boxed{\\frac{1}{2}}.", "\\frac{1}{2}", 1.0),
        ("\\boxed{ \\frac{1}{2}  }", "\\frac{1}{2} ", 1.0),
        ("\\boxed{x  +  1}", "x + 1", 1.0),
        ("\\fbox{7}", "7", None),  # math-verify does not read \fbox
        ("\\boxed{0.5}", "\\frac{1}{2}", None),  # equal only symbolically: left to math-verify
        ("\\boxed{2} \\boxed{3}", "3", None),  # several boxes: left to math-verify
        ("so \\boxed{3} then final answer is $4$", "3", None),  # math-verify would read 4
        ("\\boxed{3}\n\nThe final answer is 4.", "3", None),
        ("The final answer is $\\boxed{3}$. I hope it is correct.", "3", None),  # " is" after the box
        ("The final answer is $\\boxed{3}$.", "3", 1.0),
        ("final answer: \\boxed{3} answer is 8", "3", None),  # the anchor reaches across the box to 8
        ("Final Answer: \\boxed{3}", "3", 1.0),
        ("The answer is 3", "3", None),
        ("\\boxed{3", "3", None),
        ("\\boxed{3}", None, None),
        ("\\boxed{3}", "", None),
        ("\\boxed{" * 100_000, "3", None),
        ("x" * 1_000_000 + "\\boxed{3}", "3", 1.0),
        ("final answer" + " " * 100_000 + "x\\boxed{3}", "3", None),
        ("final answer" + " " * 10 + "\t:\n \\boxed{3}", "3", 1.0),
    ],
    ids=lambda v: repr(v[:20]) if isinstance(v, str) else repr(v),
)
def test_quick(response, gold, expected):
    score = MathVerifyScorer().quick(_sample(response, gold))
    if expected is None:
        assert score is None
    else:
        assert score is not None and score.value == expected and score.info["rule"] == "quick_exact_box"


@pytest.mark.parametrize(
    "response",
    ["", "x" * 100_000, "####" * 10_000, "9" * 20_000, "数学 ∞ \U0001f600 \\boxed{½}", "\\boxed{" * 300],
    ids=lambda v: repr(v[:12]),
)
def test_odd_responses_score_without_raising(response):
    score = MathVerifyScorer().score(_sample(response, "3"))
    assert score.ok and score.value == 0.0


def test_missing_math_verify_gives_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "math_verify", None)
    with pytest.raises(MissingExtraError, match="pip install 'math-verify"):
        MathVerifyScorer().score(_sample("\\boxed{3}", "3"))


def test_importing_the_module_does_not_import_math_verify():
    code = "import sys, rewardloop.scorers.mathverify; print('math_verify' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_scorer_contract():
    scorer = MathVerifyScorer()
    assert (scorer.name, scorer.execution, scorer.timeout_s, scorer.returns_dict) == (
        "math_verify",
        "process",
        30.0,
        False,
    )
    custom = pickle.loads(pickle.dumps(MathVerifyScorer(timeout_s=5)))
    assert custom.timeout_s == 5.0 and MathVerifyScorer.timeout_s == 30.0


@pytest.mark.parametrize("timeout_s", [0, -1, "5", True, float("nan")])
def test_bad_timeout_fails_fast(timeout_s):
    with pytest.raises(ConfigError, match="timeout_s"):
        MathVerifyScorer(timeout_s=timeout_s)


def test_ground_truth_is_parsed_once_per_process():
    from rewardloop.scorers import mathverify

    mathverify._parse_gold.cache_clear()
    first = mathverify.math_verify_equal("\\boxed{\\frac{1}{2}}", "0.5")
    second = mathverify.math_verify_equal("the answer is 1/3", "0.5")
    info = mathverify._parse_gold.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    assert first[0] is True and second[0] is False

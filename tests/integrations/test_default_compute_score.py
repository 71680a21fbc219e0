"""default_compute_score: verl's signature, routing, return convention, and failures that never raise."""

import asyncio
import logging
import threading

import pytest

import rewardloop
from rewardloop import default_compute_score as dcs
from rewardloop.scorers._registry import ROUTES, SCORERS

from ._scorers import SlowDictScorer

# (data_source, response, ground_truth, verl's result) -- verdicts checked against verl 0.9.1
PARITY = [
    ("openai/gsm8k", "She sells 9 eggs.\n#### 18", "18", 1.0),
    ("openai/gsm8k", "#### 17", "18", 0.0),
    ("openai/gsm8k", "The answer is 18", "18", 0.0),  # strict: no '####'
    ("lighteval/MATH", "so $\\boxed{\\dfrac{1}{2}}$", "\\frac12", 1.0),
    ("HuggingFaceH4/MATH-500", "\\boxed{x = 3}", "3", 1.0),
    ("DigitalLearningGmbH/MATH-lighteval", "\\boxed{4}", "5", 0.0),
    ("math_dapo", "Answer: 5 dollars", "5", {"score": 1.0, "acc": True, "pred": "5"}),
    ("math", "no answer here", "5", {"score": -1.0, "acc": False, "pred": "[INVALID]"}),
    ("aime2024", "Answer: 204", "204", {"score": 1.0, "acc": True, "pred": "204"}),
    ("numina_olympiads", "The answer is \\boxed{x^2+4x+4}", "(x+2)^2", 1.0),
    ("numina_cn_k12", "The answer is \\boxed{7}", "8", 0.0),
    ("hiyouga/geometry3k", "<think>a</think> \\boxed{3}", "3", 1.0),
    ("hiyouga/geometry3k", "\\boxed{3}", "3", 0.9),
    ("searchR1_nq", "<answer>The Beatles</answer>", {"target": ["beatles"]}, 1.0),
    ("searchR1_triviaqa", "<answer>x</answer>" * 11, {"target": ["x"]}, 0.25),
    ("math_verify", "The result is $\\frac{1}{2}$", "0.5", 1.0),
]


@pytest.mark.parametrize("source,response,gt,expected", PARITY)
def test_verl_verdicts_and_return_convention(source, response, gt, expected):
    result = dcs(source, response, gt)
    assert result == expected
    assert type(result) is type(expected)


def test_accepts_verl_keyword_call_and_sandbox_arguments():
    out = dcs(
        data_source="openai/gsm8k",
        solution_str="#### 3",
        ground_truth="3",
        extra_info={"index": 1},
        sandbox_fusion_url=None,
        concurrent_semaphore=None,
        memory_limit_mb=1024,
        reward_router_address=None,
    )
    assert out == 1.0


def test_extra_info_is_not_mutated():
    extra = {"index": 1, "nested": {"k": [1]}}
    dcs("numina_olympiads", "\\boxed{2}", "2", extra_info=extra)
    assert extra == {"index": 1, "nested": {"k": [1]}}


def test_bad_solution_type_does_not_raise(caplog):
    with caplog.at_level(logging.WARNING):
        assert dcs("openai/gsm8k", None, "1") == 0.0
    assert "invalid_input" in caplog.text


@pytest.fixture
def slow_source():
    SCORERS.register("slow_dict", SlowDictScorer)
    rewardloop.register_route("slow_source", "slow_dict")
    yield "slow_source"
    ROUTES.remove("slow_source")
    SCORERS.unregister("slow_dict")


def test_timeout_keeps_dict_shape_and_uses_on_error(slow_source, caplog):
    assert dcs(slow_source, "0", "x") == {"score": 1.0, "acc": True, "pred": "0"}
    with caplog.at_level(logging.WARNING):
        out = dcs(slow_source, "30", "x", on_error=-1.0)
    assert out == {"score": -1.0, "acc": None, "pred": None}
    assert "timeout" in caplog.text
    # the per-call timeout overrides the scorer's deadline
    assert dcs(slow_source, "0.8", "x", timeout=5)["score"] == 1.0


def test_process_scorers_work_from_threads_and_event_loops():
    results = []

    def work():
        results.append(dcs("math_verify", "\\boxed{\\frac{2}{4}}", "\\frac12"))
        results.append(dcs("numina_olympiads", "\\boxed{x+x}", "2x"))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [1.0] * 8

    async def in_loop():
        loop = asyncio.get_running_loop()
        direct = dcs("math_verify", "\\boxed{0.5}", "\\frac12")
        via_executor = await loop.run_in_executor(None, dcs, "math_verify", "\\boxed{0.5}", "\\frac12")
        return direct, via_executor

    assert asyncio.run(in_loop()) == (1.0, 1.0)

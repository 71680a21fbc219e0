"""rewardloop's side of verl's conformance suite, runnable without verl.

* the deliberate differences of ``_suite.DIFFERENCES``: each is documented in docs/verl-differences.md and
  pinned here by a test of our behaviour;
* regression tests for what verl's tests found (a decode-only tokenizer, registering any class, verl's
  ``AssertionError`` on a bad DAPO config, ``max_resp_len`` / ``is_async_reward_score`` attributes, ``max_tpm``
  charged when ``compute_score`` is passed, rate limits that de-duplication does not bypass, the ``timeout`` /
  ``error`` extra keys of the rate-limited manager).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

import rewardloop
from rewardloop.errors import ConfigError
from rewardloop.integrations.verl import (
    DAPORewardManager,
    LoopDAPORewardManager,
    NaiveRewardManager,
    RateLimitedRewardManager,
)
from rewardloop.managers import RolloutBatch
from rewardloop.types import Sample

from ._suite import DIFFERENCES, REPO

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux")


class DecodeOnlyTokenizer:
    """All verl's managers require of a tokenizer: ``decode`` (no ``batch_decode``)."""

    eos_token = "</s>"

    def decode(self, token_ids, skip_special_tokens=True):
        return " ".join(str(int(t)) for t in token_ids)


def _batch(responses: list[list[int]], ground_truth: str = "1 2", prompt_len: int = 2) -> RolloutBatch:
    import torch

    width = max(len(r) for r in responses)
    ids = [r + [0] * (width - len(r)) for r in responses]
    mask = [[1] * prompt_len + [1] * len(r) + [0] * (width - len(r)) for r in responses]
    return RolloutBatch.from_dict(
        {
            "prompts": torch.ones(len(ids), prompt_len, dtype=torch.long),
            "responses": torch.tensor(ids),
            "attention_mask": torch.tensor(mask),
        },
        {
            "data_source": ["unit_test"] * len(ids),
            "reward_model": [{"ground_truth": ground_truth}] * len(ids),
        },
    )


def exact_match(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    return 1.0 if solution_str == ground_truth else 0.0


async def async_exact_match(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    return 1.0 if solution_str == ground_truth else 0.0


class _Counter:
    calls = 0


async def counting_judge(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    _Counter.calls += 1
    await asyncio.sleep(0)
    return 1.0


async def failing_judge(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    raise ValueError("judge API said no")


async def slow_judge(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    await asyncio.sleep(60)  # 120x the 0.5 s timeout below
    return 1.0


# ------------------------------------------------------------------------------------ documented + pinned


def test_every_difference_is_documented_and_pinned():
    doc = (REPO / "docs" / "verl-differences.md").read_text()
    for nodeid, difference in DIFFERENCES.items():
        assert nodeid.split("::")[-1] in doc, nodeid
        assert difference.outcome in ("failed", "passed")
        path, name = difference.pinned_by.split("::")
        assert Path(REPO / path).exists() and name in globals(), difference.pinned_by
        assert f"`{name}`" in doc, name


@linux_only
@pytest.mark.sandbox
def test_code_score_counts_the_first_10_cases_like_verl_unless_routed_otherwise():
    """verl's continuous code score of a failing program is the pass rate of the first 10 cases: that is the
    default route; a config route with ``max_tests: null`` counts every case (ours, an option)."""
    from rewardloop import RewardManager

    inputs = [str(i) for i in range(11)]
    outputs = [str(2 * i) for i in range(11)]
    outputs[3] = "-1"  # the program fails exactly one case, among the first ten
    truth = json.dumps({"inputs": inputs, "outputs": outputs})
    program = "print(2 * int(input()))"
    assert rewardloop.default_compute_score("codecontests", program, truth) == pytest.approx(9 / 10)
    every = {"continuous": True, "float_tol": 1e-5, "max_tests": None}
    manager = RewardManager.from_config({"routes": {"codecontests": {"scorer": "code", "options": every}}})
    try:
        batch = manager.score([Sample(response=program, ground_truth=truth, task="codecontests")])
    finally:
        manager.close()
    assert batch[0].value == pytest.approx(10 / 11)


def test_rate_limits_live_on_the_runner_not_the_class(tokenizer_free_config):
    """verl's limiters are class attributes shared by every instance in the process; ours belong to the
    manager's runner (shared by whoever shares that runner, or by all Ray actors with ``backend: ray``)."""
    config = tokenizer_free_config
    RateLimitedRewardManager.init_class(config, DecodeOnlyTokenizer())
    assert getattr(RateLimitedRewardManager, "_semaphore", None) is None
    a = RateLimitedRewardManager(config, DecodeOnlyTokenizer(), compute_score=async_exact_match)
    b = RateLimitedRewardManager(config, DecodeOnlyTokenizer(), compute_score=async_exact_match)
    try:
        assert a.core.manager.runner is not b.core.manager.runner
        for manager in (a, b):
            runner_cfg = manager.core.manager.runner.config
            assert runner_cfg.max_concurrency == 3 and runner_cfg.rpm == 600 and runner_cfg.dedup is False
    finally:
        a.close()
        b.close()


@pytest.fixture
def tokenizer_free_config():
    return {"reward": {"max_concurrent": 3, "max_rpm": 600, "timeout": 10.0}}


# ------------------------------------------------------------------------------------------ regressions


def test_a_tokenizer_with_only_decode_works_in_classic_and_loop_managers():
    data = _batch([[1, 2], [3]])
    manager = NaiveRewardManager(DecodeOnlyTokenizer(), 0, compute_score=exact_match)
    try:
        out = manager(data, return_dict=True)
    finally:
        manager.close()
    assert out["reward_tensor"].sum(-1).tolist() == [1.0, 0.0]
    loop = LoopDAPORewardManager({}, DecodeOnlyTokenizer(), compute_score=exact_match)
    try:
        assert asyncio.run(loop.run_single(data[0:1]))["reward_score"] == 1.0
    finally:
        loop.close()


def test_a_bad_dapo_config_is_also_verls_assertion_error():
    cfg = {"enable": True, "len": 128, "penalty_factor": 1.0, "log": False}
    with pytest.raises(AssertionError, match="max_resp_len must be provided") as missing:
        DAPORewardManager(DecodeOnlyTokenizer(), 0, compute_score=exact_match, overlong_buffer_cfg=cfg)
    with pytest.raises(AssertionError, match="max_resp_len must be larger") as short:
        DAPORewardManager(
            DecodeOnlyTokenizer(), 0, compute_score=exact_match, overlong_buffer_cfg=cfg, max_resp_len=64
        )
    for exc in (missing.value, short.value):  # still our typed configuration error
        assert isinstance(exc, ConfigError) and isinstance(exc, ValueError)


def test_loop_dapo_exposes_verls_overlong_attributes():
    kwargs = {"overlong_buffer_cfg": {"enable": True, "len": 4, "penalty_factor": 1.0}, "max_resp_len": 16}
    manager = LoopDAPORewardManager({"reward": {"reward_kwargs": kwargs}}, DecodeOnlyTokenizer(), exact_match)
    disabled = LoopDAPORewardManager({}, DecodeOnlyTokenizer(), exact_match)
    try:
        assert manager.max_resp_len == 16 and manager.overlong_buffer_cfg.len == 4
        assert disabled.max_resp_len is None and disabled.overlong_buffer_cfg is None
    finally:
        manager.close()
        disabled.close()


def test_rate_limited_reports_whether_compute_score_is_async():
    config = {"reward": {"max_concurrent": 2}}
    sync = RateLimitedRewardManager(config, DecodeOnlyTokenizer(), compute_score=exact_match)
    coro = RateLimitedRewardManager(config, DecodeOnlyTokenizer(), compute_score=async_exact_match)
    routed = RateLimitedRewardManager(config, DecodeOnlyTokenizer())
    try:
        assert (sync.is_async_reward_score, coro.is_async_reward_score) == (False, True)
        assert routed.is_async_reward_score is False  # the routing table is sync, like verl's default
    finally:
        for manager in (sync, coro, routed):
            manager.close()


def test_max_tpm_charges_estimated_tokens_when_compute_score_is_passed():
    """What the runner charges the token bucket for each call is ``estimated_tokens_per_request``, as in verl
    (it charged ~1 token per call, so verl's 18 s ``test_tpm_rate_limiting`` took 0.02 s)."""
    from rewardloop.execution._attempt import estimate_tokens as _estimate_tokens

    config = {"reward": {"max_concurrent": 2, "max_tpm": 6000, "estimated_tokens_per_request": 2000}}
    for fn in (async_exact_match, exact_match):
        manager = RateLimitedRewardManager(config, DecodeOnlyTokenizer(), compute_score=fn)
        try:
            charged = _estimate_tokens(manager.core.manager.scorer, Sample(response="x", ground_truth="x"))
            assert charged == 2000
            assert manager.core.manager.runner.config.tpm == 6000
        finally:
            manager.close()


def test_identical_concurrent_requests_each_pass_the_rate_limited_managers_limits():
    """De-duplication must not merge what the rate limits count: five identical in-flight requests are five
    calls (verl's ``test_concurrency_limiting`` / ``test_high_throughput``)."""
    _Counter.calls = 0
    manager = RateLimitedRewardManager(
        {"reward": {"max_concurrent": 2}}, DecodeOnlyTokenizer(), compute_score=counting_judge
    )
    data = _batch([[1, 2]])

    async def five():
        return await asyncio.gather(*(manager.run_single(data) for _ in range(5)))

    try:
        results = asyncio.run(five())
    finally:
        manager.close()
    assert [r["reward_score"] for r in results] == [1.0] * 5
    assert _Counter.calls == 5


def test_rate_limited_failures_carry_verls_timeout_and_error_keys():
    config = {"reward": {"max_concurrent": 2, "timeout": 0.5}}
    data = _batch([[1, 2]])
    failing = RateLimitedRewardManager(config, DecodeOnlyTokenizer(), compute_score=failing_judge)
    slow = RateLimitedRewardManager(config, DecodeOnlyTokenizer(), compute_score=slow_judge)
    try:
        error = asyncio.run(failing.run_single(data))
        timeout = asyncio.run(slow.run_single(data))
    finally:
        failing.close()
        slow.close()
    assert error["reward_score"] == 0.0 and "judge API said no" in error["reward_extra_info"]["error"]
    assert error["reward_extra_info"]["acc"] == 0.0
    assert timeout["reward_score"] == 0.0 and timeout["reward_extra_info"]["timeout"] is True
    assert timeout["reward_extra_info"]["acc"] == 0.0


def test_importlib_route_takes_the_class_name_from_reward_manager_name_as_verl_does():
    """verl 0.9.1 loads ``getattr(module, reward.reward_manager.name)``; ``module.name`` is what older layouts
    (and verl's own legacy migration) set, used when the module has no attribute named ``name``."""
    from rewardloop.integrations.verl import resolve_reward_manager_cls

    path = "pkg://rewardloop.integrations.verl"
    verl_style = {"source": "importlib", "name": "LoopDAPORewardManager", "module": {"path": path}}
    legacy = {"source": "importlib", "module": {"path": path, "name": "RemoteRewardManager"}}
    assert resolve_reward_manager_cls({"reward_manager": verl_style}) is LoopDAPORewardManager
    assert resolve_reward_manager_cls({"reward_manager": legacy}).__name__ == "RemoteRewardManager"


async def dict_judge(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    return {"score": 1.0, "correct": True, "reasoning": "Mock reasoning"}


def dynamic_judge(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    out = {"score": 1.0}
    out.update({f"judge_{k}": v for k, v in (("len", len(solution_str)),)})  # keys built at run time
    return out


async def failing_dict_judge(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    if solution_str:
        raise ValueError("judge API said no")
    return {"score": 1.0, "correct": True, "reasoning": "Mock reasoning"}


def test_run_single_keeps_a_custom_functions_dict_keys():
    """verl's ``test_dict_result_format``: one trajectory at a time, the dict keys a custom function returns are
    kept. They are read from its returned dict literals (so a sample failing in another worker carries them
    too, filled), else learned from the first result; ``infer_extra_info_keys: false`` keeps only the
    declared keys (ours, an option)."""
    data = _batch([[1, 2]])

    def run(config, fn=dict_judge):
        manager = RateLimitedRewardManager({"reward": config}, DecodeOnlyTokenizer(), compute_score=fn)
        try:
            return asyncio.run(manager.run_single(data))["reward_extra_info"], manager
        finally:
            manager.close()

    kept, manager = run({})
    assert kept["score"] == 1.0 and kept["correct"] is True and kept["reasoning"] == "Mock reasoning"
    # read from the source, so known before any sample: a failed sample carries them with fillers
    assert manager.core.schema.kinds["correct"] is bool and manager.core.schema.kinds["reasoning"] is str
    failed, _ = run({}, failing_dict_judge)
    assert failed["correct"] is False and failed["reasoning"] == "" and failed["reward_status"] != "ok"
    learned, _ = run({}, dynamic_judge)
    assert learned["judge_len"] == 3.0
    strict, _ = run({"infer_extra_info_keys": False})
    assert strict["score"] == 1.0 and "correct" not in strict and "reasoning" not in strict
    declared, _ = run(
        {"infer_extra_info_keys": False, "extra_info_keys": {"correct": "bool", "reasoning": "str"}}
    )
    assert declared["correct"] is True and declared["reasoning"] == "Mock reasoning"


def test_returned_dict_keys_are_typed_from_the_source():
    from rewardloop.integrations.verl._managers import returned_dict_keys

    def judge(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        correct = solution_str.strip() == ground_truth.strip()
        if not solution_str:
            return {"score": 0.0, "correct": False, "why": "empty", "n": 0}
        return {"score": 1.0, "correct": correct, "why": f"{solution_str}", "n": 2 * 3, "raw": kwargs}

    assert returned_dict_keys(judge) == {"correct": bool, "why": str, "n": float, "raw": object}
    assert returned_dict_keys(len) == {}  # no source: nothing inferred (learned from the first result)

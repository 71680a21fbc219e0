"""Proof against the real verl 0.9.1: its DataProto, its custom-function loader, its registries, and our managers
inside verl's own reward path (its load_reward_manager, RewardLoopWorker, Ray RewardLoopManager, extract_reward).

verl runs in its own interpreter (``.venv-verl``, made by ``make verl-venv``; override with
``REWARDLOOP_VERL_PYTHON``), never in the test process. Skipped when that interpreter is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VERL_PYTHON = Path(os.environ.get("REWARDLOOP_VERL_PYTHON", REPO / ".venv-verl" / "bin" / "python"))
# `make verl-venv` writes .ok only after verl installed completely
VERL_READY = "REWARDLOOP_VERL_PYTHON" in os.environ or (REPO / ".venv-verl" / ".ok").exists()

pytestmark = [
    pytest.mark.verl,
    pytest.mark.slow,
    pytest.mark.skipif(
        not VERL_PYTHON.exists(), reason=f"no verl interpreter at {VERL_PYTHON} (make verl-venv)"
    ),
]


def run_script(name: str, timeout: float = 240) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(
        [str(VERL_PYTHON), str(REPO / "tests" / "integrations" / "verl_scripts" / name)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def result():
    return run_script("check_managers.py")


def test_our_manager_accepts_a_real_dataproto_and_agrees_with_verl(result):
    assert result["verl_version"] == "0.9.1" and result["data_type"] == "DataProto"
    ours, theirs = result["ours_tensor"], result["verl_tensor"]
    assert [sum(r) for r in ours] == [1.0, 0.0, 1.0, 0.0]
    assert ours == theirs  # same scalar, same token, for responses verl and we judge alike


def test_compute_rm_score_returns_a_dataproto(result):
    assert result["rm_type"] == "DataProto"
    assert result["rm_sums"] == [1.0, 0.0, 1.0, 0.0]
    assert "acc" in result["rm_keys"] and "reward_status" in result["rm_keys"]


def test_our_compute_score_through_verls_loader(result):
    assert result["custom_fn"] == [1.0, 0.0, 1.0, 0.0]
    assert result["verl_manager_with_our_fn"] == [1.0, 0.0, 1.0, 0.0]


def test_our_managers_registered_and_selected_in_verls_registry(result):
    assert result["registered"] == [True, True]
    assert result["loaded_type"] == "LoopDAPORewardManager"
    assert result["run_single"] == [1.0, 0.0, 1.0, 0.0]


# -- our managers inside verl's own reward path (docs/verl.md's routes, read from the page) ----------------


@pytest.fixture(scope="module")
def loop_result():
    return run_script("check_reward_loop.py", timeout=600)


EXPECTED = [
    1.0,
    0.0,
    1.0,
    0.0,
    1.0,
    0.0,
]  # gsm8k right/wrong, MATH right/wrong, math_dapo right, unknown source


def test_the_documented_routes_are_the_tested_configs(loop_result):
    routes = loop_result["routes"]
    assert sorted(routes) == ["custom_function", "importlib", "register"]
    assert (
        "reward.custom_reward_function.path=pkg://rewardloop.integrations.verl" in routes["custom_function"]
    )
    assert "reward.reward_manager.name=LoopDAPORewardManager" in routes["importlib"]
    assert routes["register"] == ["reward.reward_manager.name=rewardloop_dapo"]


@pytest.mark.parametrize("route", ["importlib", "register"])
def test_verls_loader_and_reward_loop_worker_run_our_manager(loop_result, route):
    out = loop_result[route]
    ours = "rewardloop.integrations.verl._managers.LoopDAPORewardManager"
    assert out["manager"] == out["worker_manager"] == ours
    assert out["scores"] == EXPECTED and out["single"] == 1.0
    assert all(keys == out["key_sets"][0] for keys in out["key_sets"])  # verl reads the first sample's keys
    assert {"score", "acc", "reward_status", "timeout", "error"} <= set(out["key_sets"][0])
    statuses = [e["reward_status"] for e in out["extra"]]
    assert statuses == ["ok"] * 5 + ["invalid_input"]
    assert "no_such_source" in out["extra"][-1]["error"] and out["extra"][4]["pred"] == "7"
    # what the migration checklist tells users to watch for
    assert "verl's default_compute_score replaced by rewardloop's routing table" in out["logs"]
    assert any(m.startswith("1 of 1 samples failed {'invalid_input': 1}") for m in out["logs"])


def test_our_default_compute_score_under_verls_own_manager(loop_result):
    out = loop_result["custom_function"]
    assert out["manager"] == "verl.experimental.reward_loop.reward_manager.naive.NaiveRewardManager"
    assert out["scores"] == EXPECTED[:4] and out["extra"] == [{"acc": s} for s in EXPECTED[:4]]
    ray = loop_result["ray_custom_function"]
    assert ray["manager_cls"] == "NaiveRewardManager" and ray["rm_sums"] == EXPECTED[:4]


def test_verls_ray_reward_loop_manager_and_extract_reward_with_our_manager(loop_result):
    out = loop_result["ray_importlib"]
    assert out["manager_cls"] == "LoopDAPORewardManager"
    assert out["rm_sums"] == EXPECTED
    for reward, position, length in zip(
        out["rm_sums"], out["rm_positions"], out["response_lengths"], strict=True
    ):
        assert position == (length - 1 if reward else -1)  # the scalar sits on the last response token
    assert {"score", "acc", "reward_status", "timeout", "error", "pred"} <= set(out["extra_keys"])
    extra = out["extra"]
    assert all(len(column) == len(EXPECTED) for column in extra.values())
    assert extra["acc"] == EXPECTED and extra["reward_status"][-1] == "invalid_input"
    assert extra["timeout"] == [False] * len(EXPECTED)


def test_a_node_without_rewardloop_fails_loudly(loop_result):
    assert loop_result["no_rewardloop"] == "ModuleNotFoundError: No module named 'rewardloop'"


# -- row sums: every manager's reward_tensor row sums to the sample's score, empty responses included --------


@pytest.fixture(scope="module")
def row_sums():
    return run_script("check_row_sums.py", timeout=600)


@pytest.mark.parametrize("name", ["naive", "dapo", "batch", "prime"])
def test_each_managers_rows_sum_to_the_score_like_verls(row_sums, name):
    ours, theirs = row_sums["ours"][name], row_sums["verl"][name]
    sums = [sum(row) for row in ours["tensor"]]
    assert sums == pytest.approx(ours["score"])  # the row sum is the score verl's GRPO sees
    assert ours["tensor"] == theirs["tensor"]  # same value on the same token as verl's own manager
    if name != "prime":  # math_dapo's -1 for an empty response sits in the last column, as verl puts it
        assert ours["tensor"][1][-1] == -1.0 and sums[1] == -1.0


def test_the_reward_loop_rm_scores_sum_to_each_samples_score(row_sums):
    assert [sum(r) for r in row_sums["rm_scores"]] == pytest.approx(row_sums["loop_scores"])
    assert row_sums["rm_score_column"] == pytest.approx(row_sums["loop_scores"])
    assert row_sums["loop_scores"][1] == -1.0 and row_sums["rm_scores"][1][-1] == -1.0

"""Proof against the real verl 0.9.1: its DataProto, its custom-function loader, its registries.

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


def run_script(name: str) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(
        [str(VERL_PYTHON), str(REPO / "tests" / "integrations" / "verl_scripts" / name)],
        capture_output=True,
        text=True,
        timeout=240,
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

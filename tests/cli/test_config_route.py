"""``score --config`` (verl's reward section + runner keys), ``--route NAME=SCORER:K=V`` and ``--execution``."""

import json
import subprocess
import sys
import textwrap

import pytest

from ._util import EXAMPLES, read_jsonl, row, run_cli, write_jsonl

PID_FUNCTION = """
import os

def compute_score(data_source, solution_str, ground_truth, extra_info=None, scale=1.0):
    if "fail" in solution_str:
        raise ValueError("asked to fail")
    return {"score": scale * float(solution_str == ground_truth), "pid": os.getpid()}
"""


@pytest.fixture
def fn(tmp_path):
    path = tmp_path / "my_reward.py"
    path.write_text(textwrap.dedent(PID_FUNCTION))
    return path


@pytest.fixture
def src(tmp_path):
    rows = [
        row("anything", "a", "a", index=0),
        row("anything", "a", "b", index=1),
        row("x", "a", "fail", index=2),
    ]
    return write_jsonl(tmp_path / "in.jsonl", rows)


def test_config_reward_section_with_runner_keys(fn, src, tmp_path):
    cfg = tmp_path / "reward.yaml"
    cfg.write_text(
        textwrap.dedent(f"""
        reward:
          custom_reward_function:
            path: {fn}
            name: compute_score
            reward_kwargs: {{scale: 3}}
          runner:
            timeout_s: 30
            on_error: -1.0
    """)
    )
    out = tmp_path / "out.jsonl"
    proc = run_cli("score", src, "--config", cfg, "-o", out, "--max-failure-rate", "0.5")
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(out)
    assert [r["score"] for r in rows] == [3.0, 0.0, -1.0]  # reward_kwargs and runner.on_error applied
    assert [r["status"] for r in rows] == ["ok", "ok", "scorer_error"]
    assert rows[0]["scorer"] == "compute_score"


def test_the_verl_example_config(tmp_path):
    proc = run_cli(
        "score", EXAMPLES / "rollouts.jsonl", "--config", EXAMPLES / "verl" / "reward_rewardloop.yaml"
    )
    assert proc.returncode == 0, proc.stderr
    # said, not silently dropped: the example has no token lengths
    assert "not applied: reward_kwargs.overlong_buffer_cfg" in proc.stderr and "--length-key" in proc.stderr
    assert "openai/gsm8k" in proc.stdout


def test_route_passes_scorer_options(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", [row("openai/gsm8k", "42", "so the answer is 42")])
    out = tmp_path / "out.jsonl"
    strict = run_cli("score", src, "-o", out)
    assert strict.returncode == 0 and read_jsonl(out)[0]["score"] == 0.0  # strict needs '#### 42'
    flexible = run_cli("score", src, "-o", out, "--route", "openai/gsm8k=gsm8k:method=flexible")
    assert flexible.returncode == 0, flexible.stderr
    assert read_jsonl(out)[0]["score"] == 1.0
    bad = run_cli("score", src, "--route", "openai/gsm8k=gsm8k:method=sloppy")
    assert bad.returncode == 2 and "method must be one of" in bad.stderr


def _pids(args, tmp_path):
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rewardloop.cli.main",
            *map(str, args),
            "-o",
            str(out),
            "--max-failure-rate",
            "0.5",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    return proc.pid, [r["metrics"].get("pid") for r in read_jsonl(out) if r["status"] == "ok"]


def test_execution_flag(fn, src, tmp_path):
    cli_pid, pids = _pids(
        ["score", src, "--custom-function", f"{fn}:compute_score", "--execution", "thread"], tmp_path
    )
    assert pids == [cli_pid, cli_pid]  # threads of the CLI process
    cli_pid, pids = _pids(
        ["score", src, "--custom-function", f"{fn}:compute_score", "--execution", "process"], tmp_path
    )
    assert len(pids) == 2 and cli_pid not in pids  # killable worker processes
    bad = run_cli("score", src, "--execution", "fork")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_reward_kwargs_without_custom_function_is_an_error(src):
    proc = run_cli("score", src, "--reward-kwargs", json.dumps({"scale": 2}))
    assert proc.returncode == 2 and "--reward-kwargs needs --custom-function" in proc.stderr

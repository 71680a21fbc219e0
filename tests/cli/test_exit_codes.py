"""Honest exit codes and messages: failures are never silent, mistakes get a "did you mean"."""

import json
import textwrap

import pytest

from ._util import row, run_cli, write_jsonl

GOOD = [row("openai/gsm8k", "4", "#### 4", index=i) for i in range(9)]


@pytest.fixture
def good(tmp_path):
    return write_jsonl(tmp_path / "in.jsonl", GOOD)


def test_wrong_response_key_fails_and_says_why_without_output(good):
    proc = run_cli("score", good, "--response-key", "respons")
    assert proc.returncode == 1
    assert "every row failed (9 of 9)" in proc.stderr
    # the top errors are printed even without -o, with their count and a hint
    assert "9 x invalid_input: row has no 'respons' field" in proc.stdout
    assert "did you mean --response-key 'response'?" in proc.stdout


def test_custom_function_failing_on_every_row_exits_1(good, tmp_path):
    fn = tmp_path / "broken.py"
    fn.write_text(
        textwrap.dedent("""
        def compute_score(data_source, solution_str, ground_truth, extra_info=None):
            raise KeyError("answer")
    """)
    )
    proc = run_cli("score", good, "--custom-function", f"{fn}:compute_score")
    assert proc.returncode == 1, proc.stderr
    assert (
        "every row failed" in proc.stderr and "9 x scorer_error" in proc.stdout and "KeyError" in proc.stdout
    )


def test_failure_rate_limit(tmp_path):
    rows = [*GOOD[:8], row("openai/gsm8k", "4", 12345, index=8), row("openai/gsm8k", "4", None, index=9)]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    summary = tmp_path / "s.json"
    proc = run_cli("score", src, "--summary-json", summary)  # 2 of 10 failed > the default 0.1
    assert proc.returncode == 1
    assert "2 of 10 rows failed (20.0%), more than --max-failure-rate 0.1" in proc.stderr
    data = json.loads(summary.read_text())
    assert data["exit_code"] == 1 and data["failure_rate"] == 0.2 and data["max_failure_rate"] == 0.1
    assert run_cli("score", src, "--max-failure-rate", "0.25").returncode == 0
    bad = run_cli("score", src, "--max-failure-rate", "2")
    assert bad.returncode == 2 and "between 0 and 1" in bad.stderr


def test_summary_has_throughput_and_latency(good, tmp_path):
    summary = tmp_path / "s.json"
    proc = run_cli("score", good, "--summary-json", summary)
    assert proc.returncode == 0, proc.stderr
    assert "rows/s" in proc.stdout and "latency p50" in proc.stdout and "p99" in proc.stdout
    perf = json.loads(summary.read_text())["performance"]
    assert perf["samples_per_s"] > 0 and 0 <= perf["latency_p50_s"] <= perf["latency_p99_s"]


def test_did_you_mean_data_source(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", [row("openai/gsm8K", "4", "#### 4")])
    proc = run_cli("score", src)
    assert proc.returncode == 1
    assert "did you mean 'openai/gsm8k'?" in proc.stdout


def test_did_you_mean_scorer_flag_command(good):
    proc = run_cli("score", good, "--route", "x=gsm8:method=flexible")
    assert proc.returncode == 2 and "did you mean 'gsm8k'?" in proc.stderr
    proc = run_cli("score", good, "--respons-key", "x")
    assert proc.returncode == 2 and "did you mean '--response-key'?" in proc.stderr
    proc = run_cli("scroe", good)
    assert proc.returncode == 2 and "did you mean 'score'" in proc.stderr


def test_did_you_mean_config_keys(good, tmp_path):
    cfg = tmp_path / "reward.yaml"
    cfg.write_text("reward:\n  custom_reward_fuction:\n    path: x.py\n")
    proc = run_cli("score", good, "--config", cfg)
    assert proc.returncode == 2 and "did you mean 'custom_reward_function'?" in proc.stderr
    cfg.write_text("reward:\n  runner:\n    timeout: 5\n")
    proc = run_cli("score", good, "--config", cfg)
    assert proc.returncode == 2 and "did you mean 'timeout_s'?" in proc.stderr


def test_empty_input_is_an_error(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    proc = run_cli("score", empty)
    assert proc.returncode == 2 and "holds no rows" in proc.stderr


def test_unwritable_summary_json_is_an_error_not_a_traceback(good, tmp_path):
    proc = run_cli("score", good, "--summary-json", tmp_path / "no_such_dir" / "s.json")
    assert proc.returncode == 2 and "could not write" in proc.stderr and "Traceback" not in proc.stderr
    assert "openai/gsm8k" in proc.stdout  # the summary was printed first

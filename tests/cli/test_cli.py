"""The real `rewardloop` console entry point in a subprocess, on small files written per test."""

import json
import subprocess
import sys
import textwrap

import pyarrow as pa
import pyarrow.parquet as pq
import pytest


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "rewardloop.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def row(source, gt, response, **extra):
    return {
        "data_source": source,
        "reward_model": {"style": "rule", "ground_truth": gt},
        "extra_info": {"index": 0},
        "response": response,
        **extra,
    }


ROWS = [
    row("openai/gsm8k", "42", "so the answer is\n#### 42"),
    row("openai/gsm8k", "42", "#### 41"),
    row("math_dapo", "5", "Answer: 5"),
    row("math_dapo", "5", "Answer: 6"),
    row("searchR1_nq", {"target": ["Paris"]}, "<answer>paris</answer>"),
    {"data_source": "openai/gsm8k", "response": "#### 1"},  # no reward_model
    row("openai/gsm8k", "1", 12345),  # response not a string
    row("no_such_source", "1", "x"),
]


@pytest.fixture
def rollouts(tmp_path):
    path = tmp_path / "in.jsonl"
    with open(path, "w") as fh:
        for r in ROWS:
            fh.write(json.dumps(r) + "\n")
        fh.write("{not json\n")
    return path


def read_jsonl(path):
    return [json.loads(line) for line in open(path)]


def test_score_jsonl_writes_every_row_and_summary(rollouts, tmp_path):
    out = tmp_path / "out.jsonl"
    summary = tmp_path / "summary.json"
    proc = run_cli(
        "score", str(rollouts), "-o", str(out), "--summary-json", str(summary), "--max-failure-rate", "0.5"
    )
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(out)
    assert len(rows) == len(ROWS) + 1
    assert [r["score"] for r in rows[:5]] == [1.0, 0.0, 1.0, -1.0, 1.0]
    assert [r["status"] for r in rows[:5]] == ["ok"] * 5
    assert rows[2]["metrics"] == {"acc": True, "pred": "5"}
    for bad, needle in zip(
        rows[5:], ["reward_model", "must be a string", "no_such_source", "invalid JSON"], strict=True
    ):
        assert bad["status"] == "invalid_input" and bad["score"] is None
        assert needle in bad["error"]
        assert bad["exec_s"] is None  # never executed
    assert all(r["exec_s"] >= 0 and r["queue_s"] >= 0 for r in rows[:5])
    data = json.loads(summary.read_text())
    assert data["rows"] == 9 and data["failed"] == 4 and data["exit_code"] == 0
    by_task = {t["task"]: t for t in data["tasks"]}
    assert by_task["openai/gsm8k"]["count"] == 4
    assert by_task["openai/gsm8k"]["accuracy"] == 0.5
    assert by_task["openai/gsm8k"]["failures"] == {"invalid_input": 2}
    assert by_task["math_dapo"]["mean_reward"] == 0.0 and by_task["math_dapo"]["accuracy"] == 0.5
    assert by_task["ALL"]["count"] == 9
    assert "data_source" in proc.stdout and "openai/gsm8k" in proc.stdout and "invalid_input=2" in proc.stdout


def test_on_error_value_is_written_for_failures(rollouts, tmp_path):
    out = tmp_path / "out.jsonl"
    proc = run_cli("score", str(rollouts), "-o", str(out), "--on-error", "-1", "--max-failure-rate", "0.5")
    assert proc.returncode == 0, proc.stderr
    assert read_jsonl(out)[5]["score"] == -1.0


def test_parquet_roundtrip_and_response_key(tmp_path):
    path = tmp_path / "in.parquet"
    rows = [dict(r, answer_text=r["response"]) for r in ROWS[:4]]
    for r in rows:
        del r["response"]
    pq.write_table(pa.Table.from_pylist(rows), path)
    out = tmp_path / "out.parquet"
    proc = run_cli("score", str(path), "-o", str(out), "--response-key", "answer_text", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    scored = pq.read_table(out).to_pylist()
    assert [r["score"] for r in scored] == [1.0, 0.0, 1.0, -1.0]


def test_custom_function(rollouts, tmp_path):
    fn = tmp_path / "my_reward.py"
    fn.write_text(
        textwrap.dedent("""
        def length_reward(data_source, solution_str, ground_truth, extra_info=None, scale=1.0):
            return {"score": scale * len(solution_str), "n_chars": len(solution_str)}
    """)
    )
    out = tmp_path / "out.jsonl"
    proc = run_cli(
        "score",
        str(rollouts),
        "-o",
        str(out),
        "--no-progress",
        "--custom-function",
        f"{fn}:length_reward",
        "--reward-kwargs",
        '{"scale": 2}',
        "--max-failure-rate",
        "0.5",
    )
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(out)
    assert rows[0]["score"] == 2 * len(ROWS[0]["response"])
    assert rows[0]["metrics"] == {"n_chars": len(ROWS[0]["response"])}
    assert rows[7]["status"] == "ok"  # a custom function handles every data_source


def test_custom_function_errors_fail_fast(rollouts, tmp_path):
    proc = run_cli("score", str(rollouts), "--custom-function", f"{tmp_path}/missing.py:f")
    assert proc.returncode == 2 and "Custom module file not found" in proc.stderr


def test_route_flag(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(
        json.dumps(row("my_gsm", "7", "#### 7")) + "\n" + json.dumps(row("pre_x", "7", "#### 7")) + "\n"
    )
    out = tmp_path / "out.jsonl"
    proc = run_cli(
        "score",
        str(path),
        "-o",
        str(out),
        "--no-progress",
        "--route",
        "my_gsm=gsm8k",
        "--route-prefix",
        "pre_=gsm8k",
    )
    assert proc.returncode == 0, proc.stderr
    assert [r["score"] for r in read_jsonl(out)] == [1.0, 1.0]
    bad = run_cli("score", str(path), "--route", "oops")
    assert bad.returncode == 2 and "TASK=SCORER" in bad.stderr


def test_missing_input_and_bad_extension(tmp_path):
    proc = run_cli("score", str(tmp_path / "nope.jsonl"))
    assert proc.returncode == 2 and "input file not found" in proc.stderr
    weird = tmp_path / "x.csv"
    weird.write_text("a,b\n")
    proc = run_cli("score", str(weird))
    assert proc.returncode == 2 and "allowed: .jsonl, .json" in proc.stderr and ".parquet" in proc.stderr


def test_list_shows_scorers_and_routes():
    proc = run_cli("list", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    names = {s["name"] for s in data["scorers"]}
    assert {
        "gsm8k",
        "hendrycks_math",
        "math_dapo",
        "prime_math",
        "math_verify",
        "geo3k",
        "search_r1_qa",
    } <= names
    routes = {r["data_source"]: r["scorer"] for r in data["routes"]}
    assert routes["openai/gsm8k"] == "gsm8k" and routes["aime*"] == "math_dapo"
    text = run_cli("list")
    assert "Routing table" in text.stdout and "searchR1_nq" in text.stdout

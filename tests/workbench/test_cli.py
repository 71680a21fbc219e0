"""``rewardloop prepare`` and ``rewardloop check`` on the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rewardloop.cli.main import main
from rewardloop.workbench import read_table

GSM8K = [
    {"question": "What is 2 + 3?", "answer": "2+3=5\n#### 5"},
    {"question": "What is 10 * 100?", "answer": "#### 1,000"},
]


@pytest.fixture
def gsm8k_file(tmp_path):
    path = tmp_path / "gsm8k.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in GSM8K))
    return path


def test_prepare_then_check_passes(tmp_path, gsm8k_file, capsys):
    out = tmp_path / "train.parquet"
    assert main(["prepare", "gsm8k", str(gsm8k_file), "-o", str(out), "--split", "test"]) == 0
    assert "wrote 2 rows" in capsys.readouterr().err
    rows = read_table(out)
    assert [r["reward_model"]["ground_truth"] for r in rows] == ["5", "1000"]
    assert main(["check", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "rewardloop check: 2 rows, 2 scored" in printed and "all checks passed" in printed
    for name in ("layout", "routing", "reference", "penalties", "determinism", "speed"):
        assert name in printed


def test_prepare_template_options(tmp_path, gsm8k_file):
    template = tmp_path / "t.txt"
    template.write_text("Solve: {question}\nEnd with \\boxed{}.")
    out = tmp_path / "o.jsonl"
    assert main(["prepare", "gsm8k", str(gsm8k_file), "-o", str(out), "--template-file", str(template)]) == 0
    assert read_table(out)[0]["prompt"][0]["content"] == "Solve: What is 2 + 3?\nEnd with \\boxed{}."
    assert (
        main(
            ["prepare", "gsm8k", str(gsm8k_file), "-o", str(out), "--template", "{question}!", "--limit", "1"]
        )
        == 0
    )
    (row,) = read_table(out)
    assert row["prompt"][0]["content"] == "What is 2 + 3?!"


def test_prepare_errors(tmp_path, gsm8k_file, capsys):
    assert main(["prepare", "squad", str(gsm8k_file), "-o", str(tmp_path / "o.parquet")]) == 2
    assert "allowed: gsm8k, math, math500, aime, humaneval, mbpp, nq" in capsys.readouterr().err
    assert main(["prepare", "humaneval", str(gsm8k_file), "-o", str(tmp_path / "o.parquet")]) == 2
    assert "humaneval: a row has none of the fields ['prompt']" in capsys.readouterr().err
    args = [
        "prepare",
        "gsm8k",
        str(gsm8k_file),
        "-o",
        "x.parquet",
        "--template-file",
        str(tmp_path / "missing"),
    ]
    assert main(args) == 2
    assert "template file not found" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: --template and --template-file exclude each other
        main(
            [
                "prepare",
                "gsm8k",
                str(gsm8k_file),
                "-o",
                "x.parquet",
                "--template",
                "a",
                "--template-file",
                "b",
            ]
        )


def test_check_json_and_exit_code_on_failure(tmp_path, gsm8k_file):
    out = tmp_path / "train.jsonl"
    main(["prepare", "gsm8k", str(gsm8k_file), "-o", str(out), "--data-source", "unrouted_source"])
    reward = tmp_path / "reward.py"
    reward.write_text(
        "def compute_score(data_source, solution_str, ground_truth, extra_info=None):\n    return 'yes'\n"
    )
    # a real subprocess: the console script's exit status is what CI and shells see
    proc = subprocess.run(
        [sys.executable, "-m", "rewardloop.cli.main", "check", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is False
    assert {c["name"]: c["status"] for c in report["checks"]}["routing"] == "fail"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rewardloop.cli.main",
            "check",
            str(out),
            "--custom-function",
            f"{reward}:compute_score",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    assert checks["routing"]["status"] == "skip"
    assert checks["returns"]["status"] == "fail" and "returned str" in checks["returns"]["examples"][0]


def test_check_errors(tmp_path, capsys):
    assert main(["check", str(tmp_path / "missing.parquet")]) == 2
    assert "input file not found" in capsys.readouterr().err
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"data_source": "openai/gsm8k"}) + "\n")
    assert main(["check", str(path), "--custom-function", f"{tmp_path / 'nope.py'}:f"]) == 2
    assert main(["check", str(path), "--max-rows", "0"]) == 2

"""Versioned, replayable scores: provenance on every row, and ``rescore`` reporting the right flips."""

import json
import re
import textwrap

import pytest

import rewardloop
from rewardloop.tools import compare_scored

from ._util import read_jsonl, row, run_cli, write_jsonl

# with gsm8k:method=flexible rows 0 and 1 are right; with the default (strict) only row 1 is
ROWS = [
    row("openai/gsm8k", "42", "so the answer is 42", index=0),
    row("openai/gsm8k", "42", "#### 42", index=1),
    row("openai/gsm8k", "42", "I think 41", index=2),
    row("openai/gsm8k", "7", "#### 7 but also fail", index=3),
]


@pytest.fixture
def flexible(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    out = tmp_path / "flexible.jsonl"
    proc = run_cli("score", src, "-o", out, "--route", "openai/gsm8k=gsm8k:method=flexible")
    assert proc.returncode == 0, proc.stderr
    return out


def test_every_scored_row_records_scorer_version_and_fingerprint(flexible, tmp_path):
    rows = read_jsonl(flexible)
    assert {r["scorer"] for r in rows} == {"gsm8k"}
    assert {r["rewardloop_version"] for r in rows} == {rewardloop.__version__}
    [fingerprint] = {r["scorer_fingerprint"] for r in rows}
    assert re.fullmatch(r"[0-9a-f]{16}", fingerprint)
    strict = tmp_path / "strict.jsonl"
    assert run_cli("score", tmp_path / "in.jsonl", "-o", strict).returncode == 0
    assert read_jsonl(strict)[0]["scorer_fingerprint"] != fingerprint  # other options, other fingerprint
    again = tmp_path / "again.jsonl"
    assert (
        run_cli(
            "score", tmp_path / "in.jsonl", "-o", again, "--route", "openai/gsm8k=gsm8k:method=flexible"
        ).returncode
        == 0
    )
    assert read_jsonl(again)[0]["scorer_fingerprint"] == fingerprint  # stable across processes


def test_rescore_reports_right_to_wrong(flexible, tmp_path):
    new = tmp_path / "new.jsonl"
    report = tmp_path / "flips.json"
    proc = run_cli("rescore", flexible, "-o", new, "--report-json", report)
    assert proc.returncode == 0, proc.stderr
    assert "right to wrong   1" in proc.stdout and "#0 openai/gsm8k: ok 1.0 -> ok 0.0" in proc.stdout
    data = json.loads(report.read_text())
    assert data["counts"]["right_to_wrong"] == 1 and data["counts"]["wrong_to_right"] == 0
    assert data["counts"]["unchanged"] == 3 and data["flips"] == 1
    [example] = data["examples"]["right_to_wrong"]
    assert example["index"] == 0 and example["response"] == "so the answer is 42"
    assert example["old"]["scorer_fingerprint"] != example["new"]["scorer_fingerprint"]
    assert [r["score"] for r in read_jsonl(new)] == [0.0, 1.0, 0.0, 1.0]


def test_rescore_with_the_same_options_flips_nothing(flexible):
    proc = run_cli("rescore", flexible, "--scorer", "gsm8k:method=flexible", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["flips"] == 0 and data["counts"]["unchanged"] == 4
    assert list(data["old_scorers"]) == list(data["new_scorers"])  # same name, fingerprint and version


def test_rescore_reports_ok_to_failure_and_wrong_to_right(flexible, tmp_path):
    fn = tmp_path / "judge.py"
    fn.write_text(
        textwrap.dedent("""
        def compute_score(data_source, solution_str, ground_truth, extra_info=None):
            if "fail" in solution_str:
                raise RuntimeError("judge down")
            return 1.0 if ground_truth in solution_str or "41" in solution_str else 0.0
    """)
    )
    proc = run_cli(
        "rescore", flexible, "--custom-function", f"{fn}:compute_score", "--json", "--max-failure-rate", "0.5"
    )
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout)["counts"]
    assert counts["ok_to_failure"] == 1 and counts["wrong_to_right"] == 1 and counts["unchanged"] == 2


def test_rescore_needs_a_scored_file(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    proc = run_cli("rescore", src)
    assert proc.returncode == 2 and "is not a scored file" in proc.stderr


def test_compare_scored_failure_kinds():
    ok = {"status": "ok", "score": 1.0}
    wrong = {"status": "ok", "score": 0.1}  # a format score is not a correct answer
    failed = {"status": "timeout", "score": None}
    crashed = {"status": "crashed", "score": None}
    report = compare_scored(
        [ok, wrong, failed, failed, ok], [wrong, ok, ok, crashed, {"status": "ok", "score": 2.0}]
    )
    assert report.counts["right_to_wrong"] == 1 and report.counts["wrong_to_right"] == 1
    assert report.counts["failure_to_ok"] == 1 and report.counts["failure_changed"] == 1
    assert report.counts["reward_changed"] == 1 and report.flips == 3

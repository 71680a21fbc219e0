"""Issue 25: a scored file remembers how it was read (response key, group key, config fingerprint), and
``rescore``, ``report`` and ``explain`` read it: a GRPO file scored with ``--response-key responses`` round-trips
without repeating the flag, and a usage mistake in ``rescore`` exits 2 instead of counting flips."""

from __future__ import annotations

import json

import pytest

from ._util import read_jsonl, run_cli, write_jsonl

pytest.importorskip("pyarrow")


def _grpo_rows() -> list[dict]:
    return [
        {
            "data_source": "math_dapo",
            "reward_model": {"style": "rule", "ground_truth": str(p)},
            "extra_info": {"index": p},
            "prompt": f"problem {p}",
            "responses": [f"Answer: {p}", f"Answer: {p + 1}", f"Answer: {p}"],
        }
        for p in range(2)
    ]


@pytest.fixture(params=["jsonl", "parquet"])
def scored(request, tmp_path):
    src = write_jsonl(tmp_path / "grpo.jsonl", _grpo_rows())
    out = tmp_path / f"scored.{request.param}"
    proc = run_cli("score", src, "--response-key", "responses", "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out


def _rows(path):
    if str(path).endswith(".parquet"):
        from rewardloop._io import read_rows

        return read_rows(path)
    return read_jsonl(path)


def test_the_scored_file_records_how_it_was_read(scored):
    rows = _rows(scored)
    assert len(rows) == 6
    settings = {json.dumps(r["scored_with"], sort_keys=True) for r in rows}
    assert len(settings) == 1
    recorded = rows[0]["scored_with"]
    assert recorded["response_key"] == "responses" and recorded["group_by"] is None
    assert isinstance(recorded["config_fingerprint"], str) and len(recorded["config_fingerprint"]) == 16


def test_rescore_reads_the_recorded_response_key(scored, tmp_path):
    proc = run_cli("rescore", scored, "-o", tmp_path / "again.jsonl")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rescore: 6 rows, 0 flips" in proc.stdout
    assert "(the same config)" in proc.stderr
    again = read_jsonl(tmp_path / "again.jsonl")
    assert [r["score"] for r in again] == [r["score"] for r in _rows(scored)]
    assert again[0]["scored_with"]["response_key"] == "responses"


def test_a_rescore_usage_mistake_exits_2_not_flips(scored):
    proc = run_cli("rescore", scored, "--response-key", "respones")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "flips" not in proc.stdout
    assert "no column 'respones'" in proc.stderr and "did you mean --response-key 'responses'" in proc.stderr


def test_report_reads_the_recorded_response_key(scored, tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "r.html"
    proc = run_cli("report", scored, "-o", page)
    assert proc.returncode == 0, proc.stderr
    assert "no responses with rewards" not in page.read_text()


def test_explain_picks_one_response_out_of_a_list(tmp_path):
    src = write_jsonl(tmp_path / "grpo.jsonl", _grpo_rows())
    proc = run_cli("explain", "--file", src, "--index", "1", "--response-key", "responses", "--json")
    assert proc.returncode == 2 and "--response-index 0..2" in proc.stderr
    ok = run_cli(
        "explain",
        "--file",
        src,
        "--index",
        "1",
        "--response-key",
        "responses",
        "--response-index",
        "1",
        "--json",
    )
    assert ok.returncode == 0, ok.stderr
    result = json.loads(ok.stdout)
    assert result["value"] == -1.0  # "Answer: 2" against gold 1
    bad = run_cli("explain", "--file", src, "--response-key", "responses", "--response-index", "5")
    assert bad.returncode == 2 and "out of range" in bad.stderr


def test_explain_reads_a_scored_files_recorded_key(scored):
    proc = run_cli("explain", "--file", scored, "--index", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["value"] == -1.0


def test_rescore_examples_name_gold_and_answers_from_distinct_prompts(tmp_path):
    rows = [
        {
            "data_source": "math_dapo",
            "reward_model": {"ground_truth": "1"},
            "extra_info": {"index": p},
            "responses": ["Answer: 2", "Answer: 3"],
        }
        for p in range(3)
    ]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "s.jsonl"
    assert run_cli("score", src, "--response-key", "responses", "-o", out).returncode == 0
    proc = run_cli(
        "rescore", out, "--scorer", "gsm8k", "--examples", "3", "--json", "--max-failure-rate", "1"
    )
    report = json.loads(proc.stdout)
    examples = report["examples"]["reward_changed"] or report["examples"]["wrong_to_right"]
    assert len(examples) == 3
    groups = {json.loads(json.dumps(_rows(out)[e["index"]]["group_id"])) for e in examples}
    assert len(groups) == 3  # one per prompt before a second of any prompt
    assert all(e["gold"] == "1" for e in examples)
    assert examples[0]["answer_before"] == "2"

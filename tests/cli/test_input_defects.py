"""Issue 25: every input defect gets a specific message (exit 2 for a file, ``invalid_input`` for a row),
error kinds are merged with "+N more", output files respect the umask, and a run without a terminal says
where it is about every 10 s."""

from __future__ import annotations

import json
import os
import stat
import textwrap

import pytest

from ._util import read_jsonl, row, run_cli, write_jsonl

pytest.importorskip("pyarrow")


def test_an_empty_parquet_file_exits_2_naming_it(tmp_path):
    empty = tmp_path / "x.parquet"
    empty.write_bytes(b"")
    proc = run_cli("score", empty)
    assert proc.returncode == 2, proc.stderr
    assert "'" + str(empty) + "' is not a readable Parquet file (an empty file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_truncated_parquet_file_exits_2(tmp_path):
    from rewardloop._io import write_rows

    good = tmp_path / "good.parquet"
    write_rows(good, [row("openai/gsm8k", "1", "#### 1", index=i) for i in range(50)])
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    proc = run_cli("score", cut)
    assert proc.returncode == 2 and "is not a readable Parquet file" in proc.stderr, proc.stderr


def test_a_json_array_is_read_as_json(tmp_path):
    src = tmp_path / "rows.json"
    src.write_text(
        json.dumps([row("openai/gsm8k", "1", "#### 1"), row("openai/gsm8k", "2", "#### 3"), 7], indent=2)
    )
    out = tmp_path / "out.jsonl"
    proc = run_cli("score", src, "-o", out, "--max-failure-rate", "0.5")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = read_jsonl(out)
    assert [r["status"] for r in rows] == ["ok", "ok", "invalid_input"]
    assert [r["score"] for r in rows[:2]] == [1.0, 0.0]
    assert "item 2: expected a JSON object, got int" in rows[2]["error"]
    src.write_text(src.read_text()[:-30])  # cut off: a file defect, not 3 bad rows
    proc = run_cli("score", src)
    assert proc.returncode == 2 and "starts a JSON array but is not valid JSON" in proc.stderr


def test_a_cut_off_json_line_names_its_own_column(tmp_path):
    src = tmp_path / "rows.jsonl"
    good = json.dumps(row("openai/gsm8k", "1", "#### 1"))
    src.write_text(good + "\n" + good[:25] + "\n")
    out = tmp_path / "out.jsonl"
    run_cli("score", src, "-o", out, "--max-failure-rate", "1")
    error = read_jsonl(out)[1]["error"]
    assert error.startswith("line 2: invalid JSON") and "truncated?" in error
    assert "line 2 column 1" not in error and "column 1 " not in error


def test_an_unknown_extension_lists_the_allowed_ones_plainly(tmp_path):
    src = tmp_path / "rows.txt"
    src.write_text("{}\n")
    proc = run_cli("score", src)
    assert proc.returncode == 2
    assert ".jsonl, .json" in proc.stderr and "('jsonl'" not in proc.stderr


def test_chat_responses_are_scored_and_bad_lists_named(tmp_path):
    chat = [{"role": "user", "content": "1+1?"}, {"role": "assistant", "content": "#### 2"}]
    parts = [
        {"role": "assistant", "content": [{"type": "text", "text": "#### "}, {"type": "text", "text": "2"}]}
    ]
    rows = [
        row("openai/gsm8k", "2", chat),
        row("openai/gsm8k", "2", parts),
        row("openai/gsm8k", "2", []),
        row("openai/gsm8k", "2", [{"role": "user", "content": "hi"}]),
        row("openai/gsm8k", "2", [chat, [{"role": "assistant", "content": "#### 3"}]]),  # n chats
    ]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    run_cli("score", src, "-o", out, "--max-failure-rate", "1")
    got = read_jsonl(out)
    assert [r["status"] for r in got] == ["ok", "ok", "invalid_input", "invalid_input", "ok", "ok"]
    assert [r["score"] for r in got] == [1.0, 1.0, None, None, 1.0, 0.0]
    assert "'response' is an empty list: no response to score" in got[2]["error"]
    assert "a chat without an assistant message (roles: user)" in got[3]["error"]
    assert [r.get("response_index") for r in got[4:]] == [0, 1]


def test_the_response_key_hint_is_never_cut_off(tmp_path):
    wide = {f"column_with_a_rather_long_name_{i}": i for i in range(40)}
    rows = [{**row("openai/gsm8k", "1", None), **wide, "responses": ["#### 1"]} for _ in range(2)]
    for r in rows:
        del r["response"]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    proc = run_cli("score", src)
    assert proc.returncode == 1
    assert "did you mean --response-key 'responses'?)" in proc.stdout


def test_messages_differing_in_a_value_are_merged_and_the_rest_counted(tmp_path):
    rows = [row(f"nowhere_{i}", "1", "x") for i in range(3)]
    rows += [row("openai/gsm8k", "1", None, index=9), {"data_source": "openai/gsm8k", "response": "x"}]
    rows += [{"data_source": 5, "response": "x"}, {"reward_model": {"ground_truth": 1}, "response": "x"}]
    rows += [{**row("openai/gsm8k", "1", "x"), "extra_info": 7}, {**row("openai/gsm8k", "1", 8)}]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    summary = tmp_path / "s.json"
    proc = run_cli("score", src, "--summary-json", summary)
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if "nowhere_" in line and " x " in line]
    assert len(lines) == 1 and "3 x invalid_input" in lines[0] and "(+2 more like it)" in lines[0]
    data = json.loads(summary.read_text())
    assert data["errors_more"]["kinds"] >= 1 and f"+{data['errors_more']['kinds']} more kind" in proc.stdout


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600)])
@pytest.mark.parametrize("suffix", ["jsonl", "parquet"])
def test_output_files_respect_the_umask(tmp_path, umask, mode, suffix):
    src = write_jsonl(tmp_path / "in.jsonl", [row("openai/gsm8k", "1", "#### 1")])
    out = tmp_path / f"out.{suffix}"
    proc = run_cli("score", src, "-o", out, preexec_fn=lambda: os.umask(umask))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_without_a_terminal_a_progress_line_comes_about_every_interval(tmp_path):
    fn = tmp_path / "slow.py"
    fn.write_text(
        textwrap.dedent(
            """
            import time
            def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
                time.sleep(0.25)
                return 1.0
            """
        )
    )
    src = write_jsonl(
        tmp_path / "in.jsonl", [row("openai/gsm8k", "1", f"#### {i}", index=i) for i in range(12)]
    )
    env = {**os.environ, "REWARDLOOP_PROGRESS_INTERVAL_S": "0.2"}
    # 12 x 0.25 s on one worker: the run lasts 15x the interval (the interval is set low for the test)
    proc = run_cli("score", src, "--custom-function", f"{fn}:compute_score", "--workers", "1", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("rewardloop: scored ")]
    assert len(lines) >= 3, proc.stderr
    assert "/12 (" in lines[0] and "rows/s" in lines[0]
    quiet = run_cli("score", src, "--custom-function", f"{fn}:compute_score", "--no-progress", env=env)
    assert "rewardloop: scored " not in quiet.stderr

"""The issue's smaller defects, each reproduced through the real command line."""

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

from ._util import read_jsonl, row, run_cli, write_jsonl

ROWS = [row("openai/gsm8k", "4", "#### 4", index=i) for i in range(5)]


def test_no_progress_bar_when_stderr_is_a_file(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    with open(tmp_path / "err.log", "w") as err:
        proc = subprocess.run(
            [sys.executable, "-m", "rewardloop.cli.main", "score", str(src)],
            stdout=subprocess.PIPE, stderr=err, text=True, timeout=180,
        )  # fmt: skip
    assert proc.returncode == 0
    log = (tmp_path / "err.log").read_text()
    assert "scoring" not in log and "\r" not in log and "sample/s" not in log


def test_progress_bar_on_a_terminal(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "rewardloop.cli.main", "score", str(src)],
            stdout=subprocess.PIPE, stderr=slave, timeout=180,
        )  # fmt: skip
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    assert proc.returncode == 0
    assert b"scoring" in b"".join(chunks)


def test_list_json_into_a_closed_pipe_has_no_traceback():
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written: `| head` that already exited
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "rewardloop.cli.main", "list", "--json"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=180,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.returncode == 141


def test_directory_input_says_directory(tmp_path):
    (tmp_path / "part-0.parquet").write_text("")
    proc = run_cli("score", tmp_path)
    assert proc.returncode == 2
    assert "is a directory, not a file" in proc.stderr and "part-0.parquet" in proc.stderr
    assert "not found" not in proc.stderr


def test_prime_math_matched_is_false_on_a_wrong_answer(tmp_path):
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            row("numina_olympiads", "5", "Step 1: x\nStep 2: so \\boxed{7}"),
            row("numina_olympiads", "5", "\\boxed{5}"),
        ],
    )
    out = tmp_path / "out.jsonl"
    assert run_cli("score", src, "-o", out).returncode == 0
    wrong, right = read_jsonl(out)
    assert (
        wrong["score"] == 0.0 and wrong["info"]["matched"] is False and wrong["info"]["answer_found"] is True
    )
    assert right["score"] == 1.0 and right["info"]["matched"] is True


def test_list_shows_no_raw_rst():
    proc = run_cli("list")
    assert proc.returncode == 0
    assert "``" not in proc.stdout and ":class:" not in proc.stdout and ":func:" not in proc.stdout
    assert "gsm8k" in proc.stdout


def test_wrote_n_rows(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", ROWS)
    out = tmp_path / "out.parquet"
    proc = run_cli("score", src, "-o", out)
    assert proc.returncode == 0
    assert f"wrote 5 rows to {out}" in proc.stderr

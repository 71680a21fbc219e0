"""examples/grpo_composite runs as the README says, and its report shows what the rollouts were written to show."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "grpo_composite"


def test_the_committed_rollouts_are_what_the_generator_writes(tmp_path: Path) -> None:
    out = tmp_path / "rollouts.jsonl"
    subprocess.run(
        [sys.executable, str(EXAMPLE / "make_rollouts.py"), str(out)], check=True, capture_output=True
    )
    assert out.read_text(encoding="utf-8") == (EXAMPLE / "rollouts.jsonl").read_text(encoding="utf-8")


def test_the_example_runs_from_the_repository_root(tmp_path: Path) -> None:
    scored = tmp_path / "scored.jsonl"
    proc = subprocess.run(
        [sys.executable, "examples/grpo_composite/score_grpo.py", "-o", str(scored)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "24 responses, 6 prompts" in proc.stdout
    rows = [json.loads(line) for line in scored.read_text(encoding="utf-8").splitlines()]
    kinds = [r["extra_info"]["kind"] for r in rows]
    flagged = {k for r, k in zip(rows, kinds, strict=True) if r["metrics"]["monitor/any"]}
    # every hack is flagged, no honest response is
    assert flagged == {"copied", "hedging", "loop", "exit_trick", "tag_spam", "truncated"}
    by_kind = {k: r for r, k in zip(rows, kinds, strict=True)}
    assert (
        by_kind["exit_trick"]["score"] == -1.0 and by_kind["hedging"]["score"] == 0.0
    )  # configured penalties
    assert by_kind["loop"]["metrics"]["repetition"] < 0  # the repetition component, not a monitor, lowered it
    # one schema for every row: the composite's components, the overlong columns and the monitor columns
    assert len({frozenset(r["metrics"]) for r in rows}) == 1
    assert {"acc", "format", "repetition", "length", "overlong_reward", "monitor/code_tricks"} <= set(
        rows[0]["metrics"]
    )
    assert "monitor flags (samples): hedging=1, copied_answer=1" in proc.stdout

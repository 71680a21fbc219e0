"""Helpers for the CLI tests: the real console entry point in a subprocess, rows in verl's layout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared" / "data"
EXAMPLES = REPO / "examples"


def run_cli(*args: str, cwd: Any = None, **kwargs: Any) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rewardloop.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=180,
        **kwargs,
    )


def row(source: str, gt: Any, response: Any, index: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "data_source": source,
        "reward_model": {"style": "rule", "ground_truth": gt},
        "extra_info": {"index": index},
        "response": response,
        **extra,
    }


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]

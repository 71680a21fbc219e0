"""Black-box breaker rows for ``qa_equiv`` (built by ``redteam/build_qa_breaker.py``).

Each attack must score 0 and each control 1. Rows marked ``known_break`` are where the scorer
currently gets it wrong: strict xfails, so a fix turns them into XPASS failures and the jsonl is
rebuilt with the builder.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rewardloop import Sample, get_scorer

ROWS_PATH = Path(__file__).parent / "redteam" / "qa_equiv_breaker.jsonl"
ROWS: list[dict[str, Any]] = [
    json.loads(line) for line in ROWS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()
]


def _param(row: dict[str, Any]) -> Any:
    marks = []
    if row["known_break"]:
        marks.append(pytest.mark.xfail(strict=True, reason=f"breaker: {row['class']}"))
    return pytest.param(row, id=row["id"], marks=marks)


@pytest.fixture(scope="module")
def scorer() -> Any:
    return get_scorer("qa_equiv")


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_breaker_row(scorer: Any, row: dict[str, Any]) -> None:
    sample = Sample(
        response=row["response"], ground_truth=row["gold"], metadata={"question": row["question"]}
    )
    result = scorer.score(sample)
    want = 0.0 if row["kind"] == "attack" else 1.0
    assert result.value == want, (
        f"{row['kind']} {row['response']!r} for gold {row['gold']}: "
        f"got {result.value} by rule {result.info.get('rule')!r}"
    )


def test_breaker_set_shape() -> None:
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids))
    kinds = Counter(r["kind"] for r in ROWS)
    assert kinds["attack"] >= 120 and kinds["control"] >= 40
    assert len({r["class"] for r in ROWS}) >= 12
    for r in ROWS:
        assert r["kind"] in ("attack", "control")
        assert r["id"].startswith("qa-a-" if r["kind"] == "attack" else "qa-c-")
        assert isinstance(r["gold"], list) and all(isinstance(g, str) and g for g in r["gold"])
        assert r.get("why_wrong") if r["kind"] == "attack" else r.get("why_right")
        assert isinstance(r["known_break"], bool)


def test_jsonl_matches_builder() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_qa_breaker", ROWS_PATH.with_name("build_qa_breaker.py")
    )
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    stored = [{k: v for k, v in r.items() if k not in ("id", "known_break")} for r in ROWS]
    assert stored == builder.ROWS, "qa_equiv_breaker.jsonl is stale: rerun build_qa_breaker.py"

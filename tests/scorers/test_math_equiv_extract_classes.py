"""Extraction-side attack classes of ``math_equiv`` (issue 22), each with correct answers in the same forms.

Rows live in ``tests/scorers/redteam/math_equiv_extract_classes.jsonl`` (same row format as the red team's
``math_equiv_round*.jsonl``, see ``test_math_equiv_redteam.py``): for each class named in the round-2 red
team's findings, more surface forms than its rows showed, written before the rule that closes the class.
Attacks must score 0 and controls 1 under every final-answer rule the row names (default all three), with
and without the prompt. ``known_break`` names a documented limit (``docs/math-verifier.md``) as a strict
xfail, as the red-team test does.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rewardloop import Sample, get_scorer

ROWS = Path(__file__).parent / "redteam" / "math_equiv_extract_classes.jsonl"
RULES = ("final", "wrong", "last")
MODES = ("with", "without")


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _cases() -> list[Any]:
    cases = []
    for row in _rows():
        modes = ["without"] if not row.get("prompt") else (row.get("modes") or list(MODES))
        for rule in row.get("rules") or RULES:
            for mode in modes:
                kb = row.get("known_break")
                marks = []
                if kb is True or (kb and (rule in kb or f"{rule}:{mode}" in kb)):
                    marks.append(pytest.mark.xfail(strict=True, reason=f"documented limit: {row['class']}"))
                cases.append(pytest.param(row, rule, mode, id=f"{row['id']}-{rule}-{mode}", marks=marks))
    return cases


@cache
def _scorer(rule: str) -> Any:
    return get_scorer("math_equiv", multiple_answers=rule)


def test_every_class_has_attacks_and_controls() -> None:
    rows = _rows()
    assert len({r["id"] for r in rows}) == len(rows)
    classes = {r["class"] for r in rows}
    for cls in classes:
        kinds = {r["kind"] for r in rows if r["class"] == cls}
        assert kinds == {"attack", "control"}, (cls, kinds)
    for row in rows:
        assert row["kind"] in ("attack", "control"), row["id"]
        if row["kind"] == "attack":
            assert row.get("why_wrong"), row["id"]


@pytest.mark.parametrize(("row", "rule", "mode"), _cases())
def test_extraction_class_row(row: dict[str, Any], rule: str, mode: str) -> None:
    scorer = _scorer(rule)
    sample = Sample(
        response=row["response"],
        ground_truth=row["gold"],
        prompt=row.get("prompt") if mode == "with" else None,
    )
    # in-process and without a deadline: these rows never reach an expensive symbolic comparison
    score = scorer.quick(sample) or scorer.score(sample)
    value = 0.0 if score.value is None else score.value
    if row["kind"] == "attack":
        assert value == 0.0, f"attack scored {value} ({row['class']}: {row['why_wrong']}); info={score.info}"
    else:
        assert score.status.value == "ok" and value == 1.0, f"control scored {value}: {score.info}"

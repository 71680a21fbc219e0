"""The independent red team's rows against ``math_equiv`` (issue 22): attacks score 0, controls score 1.

Rows live in ``tests/scorers/redteam/math_equiv_round*.jsonl`` (crafted text, written by someone who did not
write the verifier's rules; see ``build_round*.py``). Each row is judged under every final-answer rule it
names (``rules``, default ``final``/``wrong``/``last``) and with and without its prompt (``modes``).

A row the verifier still gets wrong carries ``known_break``: ``true`` (every rule and mode) or a list of
``"rule"`` / ``"rule:mode"`` entries. Those cases are strict xfails: the suite stays green while naming each
break by its class, and a fix flips the case to XPASS, which fails the run until the marker is removed.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import rewardloop
from rewardloop import Sample, get_scorer

REDTEAM = Path(__file__).parent / "redteam"
FILES = sorted(REDTEAM.glob("math_equiv_round*.jsonl"))
RULES = ("final", "wrong", "last")
MODES = ("with", "without")


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _combos(row: dict[str, Any]) -> list[tuple[str, str]]:
    rules = row.get("rules") or list(RULES)
    modes = ["without"] if not row.get("prompt") else (row.get("modes") or list(MODES))
    return [(r, m) for r in rules for m in modes]


def _is_known(row: dict[str, Any], rule: str, mode: str) -> bool:
    kb = row.get("known_break")
    if kb is True:
        return True
    if not kb:
        return False
    return rule in kb or f"{rule}:{mode}" in kb


def _cases() -> list[Any]:
    cases = []
    for path in FILES:
        for row in _rows(path):
            for rule, mode in _combos(row):
                marks = []
                if _is_known(row, rule, mode):
                    marks.append(pytest.mark.xfail(strict=True, reason=f"redteam: {row['class']}"))
                cases.append(pytest.param(row, rule, mode, id=f"{row['id']}-{rule}-{mode}", marks=marks))
    return cases


@cache
def _scorer(rule: str) -> Any:
    return get_scorer("math_equiv", multiple_answers=rule)


def test_the_rows_are_well_formed() -> None:
    assert FILES, "no red-team files found"
    seen: set[str] = set()
    for path in FILES:
        rows = _rows(path)
        assert sum(r["kind"] == "attack" for r in rows) >= 150, path
        assert sum(r["kind"] == "control" for r in rows) >= 60, path
        for row in rows:
            assert row["id"] not in seen, row["id"]
            seen.add(row["id"])
            assert row["kind"] in ("attack", "control"), row["id"]
            assert set(row.get("rules") or RULES) <= set(RULES), row["id"]
            assert set(row.get("modes") or MODES) <= set(MODES), row["id"]
            if row["kind"] == "attack":
                assert row.get("why_wrong"), row["id"]


@pytest.mark.parametrize(("row", "rule", "mode"), _cases())
def test_redteam_row(row: dict[str, Any], rule: str, mode: str) -> None:
    sample = Sample(
        response=row["response"],
        ground_truth=row["gold"],
        prompt=row.get("prompt") if mode == "with" else None,
    )
    # a verdict test, not a deadline test: the slowest row needs ~5 s of sympy (an infinite sum), so the
    # default 10 s deadline would make its verdict depend on the machine's load; 120 s is 24x that work
    score = rewardloop.score(sample, _scorer(rule), timeout_s=120.0)
    value = 0.0 if score.value is None else score.value
    if row["kind"] == "attack":
        assert value == 0.0, (
            f"attack scored {value} ({row['class']}: {row.get('why_wrong')}); info={score.info}"
        )
    else:
        assert score.status.value == "ok" and value == 1.0, (
            f"control scored {value}: {score.status} {score.info}"
        )

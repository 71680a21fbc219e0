"""What changed when stored rollouts were scored again: the flips between two scored files.

:func:`compare_scored` takes the rows of a file written by ``rewardloop score`` and the rows of the same
rollouts scored again (``rewardloop rescore``), row for row, and classifies each pair by the verdict of
:func:`rewardloop._summary.row_correct` (the one accuracy definition) and the status:

* ``right_to_wrong`` / ``wrong_to_right``: both ok, the verdict changed;
* ``ok_to_failure`` / ``failure_to_ok``: one side failed (timeout, error, ...): a failure is not a
  wrong answer, so these are kept apart;
* ``failure_changed``: both failed, with different statuses;
* ``reward_changed``: same verdict, different reward (e.g. a format score or a penalty moved);
* ``unchanged``.

The report also says which scorers (name, fingerprint, rewardloop version) produced the old and the new
scores, and keeps up to ``examples`` rows per kind of flip.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._summary import row_correct

__all__ = ["FLIP_KINDS", "RescoreReport", "compare_scored"]

FLIP_KINDS = (
    "right_to_wrong",
    "wrong_to_right",
    "ok_to_failure",
    "failure_to_ok",
    "failure_changed",
    "reward_changed",
    "unchanged",
)
_TOL = 1e-9


def _kind(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    a, b = row_correct(old), row_correct(new)
    if a is not None and b is not None:
        if a != b:
            return "right_to_wrong" if a else "wrong_to_right"
        x, y = old.get("score"), new.get("score")
        if isinstance(x, int | float) and isinstance(y, int | float) and abs(x - y) > _TOL:
            return "reward_changed"
        return "unchanged"
    if a is not None:
        return "ok_to_failure"
    if b is not None:
        return "failure_to_ok"
    return "failure_changed" if old.get("status") != new.get("status") else "unchanged"


def _producer(row: Mapping[str, Any]) -> str:
    if row.get("scorer") is None:  # failed before any scorer saw it (e.g. invalid input)
        return f"no scorer ({row.get('status')})"
    return f"{row.get('scorer')} [{row.get('scorer_fingerprint')}] rewardloop {row.get('rewardloop_version')}"


_ANSWER_KEYS = ("extracted", "pred", "answer", "extracted_answer")


def _answer(row: Mapping[str, Any]) -> Any:
    """The answer the scorer extracted (its ``extracted`` / ``pred`` info or metric), None when it keeps none."""
    for part in ("info", "metrics"):
        values = row.get(part)
        if isinstance(values, Mapping):
            for key in _ANSWER_KEYS:
                if values.get(key) is not None:
                    return values[key]
    return None


def _gold(row: Mapping[str, Any]) -> Any:
    rm = row.get("reward_model")
    return rm.get("ground_truth") if isinstance(rm, Mapping) else None


def _clip(text: Any, n: int = 160) -> str:
    s = text if isinstance(text, str) else json.dumps(text, default=str)
    s = s.replace("\n", "\\n")
    return s if len(s) <= n else s[: n - 3] + "..."


@dataclass(frozen=True)
class RescoreReport:
    """Counts of each kind of flip (:data:`FLIP_KINDS`), examples, and the scorers on both sides."""

    n: int
    counts: dict[str, int]
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    old_scorers: dict[str, int] = field(default_factory=dict)
    new_scorers: dict[str, int] = field(default_factory=dict)

    @property
    def flips(self) -> int:
        """Rows whose verdict or ok/failed state changed."""
        return sum(
            self.counts[k] for k in ("right_to_wrong", "wrong_to_right", "ok_to_failure", "failure_to_ok")
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "flips": self.flips,
            "counts": dict(self.counts),
            "old_scorers": dict(self.old_scorers),
            "new_scorers": dict(self.new_scorers),
            "examples": {k: list(v) for k, v in self.examples.items()},
        }

    def to_json(self) -> str:
        from .._io import json_safe

        return json.dumps(json_safe(self.to_dict()), indent=2, ensure_ascii=False)

    def to_text(self) -> str:
        lines = [f"rescore: {self.n} rows, {self.flips} flips"]
        lines.append(
            "  scored before by: " + "; ".join(f"{k} ({v} rows)" for k, v in self.old_scorers.items())
        )
        lines.append(
            "  scored now by:    " + "; ".join(f"{k} ({v} rows)" for k, v in self.new_scorers.items())
        )
        width = max(len(k) for k in FLIP_KINDS)
        lines.append("")
        for kind in FLIP_KINDS:
            lines.append(f"  {kind.replace('_', ' ').ljust(width)}  {self.counts[kind]}")
        for kind, rows in self.examples.items():
            if not rows or kind == "unchanged":
                continue
            lines.append(f"\n--- {kind.replace('_', ' ')} ({self.counts[kind]}; {len(rows)} shown) ---")
            for ex in rows:
                lines.append(
                    f"  #{ex['index']} {ex['data_source']}: {ex['old']['status']} {ex['old']['score']} -> "
                    f"{ex['new']['status']} {ex['new']['score']}"
                    + (f"  ({ex['new']['error']})" if ex["new"].get("error") else "")
                )
                lines.append(
                    f"      gold: {_clip(ex.get('gold'), 60)}; answer before: {_clip(ex.get('answer_before'), 60)}"
                    f"; now: {_clip(ex.get('answer_now'), 60)}"
                )
                lines.append(f"      response: {ex['response']}")
        return "\n".join(lines)


def compare_scored(
    old_rows: Sequence[Mapping[str, Any]],
    new_rows: Sequence[Mapping[str, Any]],
    *,
    response_key: str = "response",
    examples: int = 5,
) -> RescoreReport:
    """Classify each (old, new) pair of scored rows (see the module docstring)."""
    if len(old_rows) != len(new_rows):
        raise ValueError(
            f"compare_scored needs the same rows on both sides, got {len(old_rows)} and {len(new_rows)}"
        )
    counts = dict.fromkeys(FLIP_KINDS, 0)
    candidates: dict[str, list[int]] = {k: [] for k in FLIP_KINDS if k != "unchanged"}
    old_by: Counter[str] = Counter()
    new_by: Counter[str] = Counter()
    for i, (old, new) in enumerate(zip(old_rows, new_rows, strict=True)):
        kind = _kind(old, new)
        counts[kind] += 1
        old_by[_producer(old)] += 1
        new_by[_producer(new)] += 1
        if kind in candidates:
            candidates[kind].append(i)
    kept = {
        kind: [_example(i, old_rows[i], new_rows[i], response_key) for i in _spread(rows, old_rows, examples)]
        for kind, rows in candidates.items()
    }
    return RescoreReport(len(old_rows), counts, kept, dict(old_by), dict(new_by))


def _spread(indices: Sequence[int], rows: Sequence[Mapping[str, Any]], n: int) -> list[int]:
    """Up to ``n`` of ``indices``, one per prompt group first (five flips of one prompt say less than five
    prompts' flips), in file order."""
    seen: set[Any] = set()
    first: list[int] = []
    rest: list[int] = []
    for i in indices:
        group = rows[i].get("group_id", i)
        (rest if group in seen else first).append(i)
        seen.add(group)
    return sorted((first + rest)[:n])


def _example(i: int, old: Mapping[str, Any], new: Mapping[str, Any], response_key: str) -> dict[str, Any]:
    fields = ("score", "status", "error", "scorer", "scorer_fingerprint")
    return {
        "index": i,
        "data_source": old.get("data_source"),
        "old": {k: old.get(k) for k in fields},
        "new": {k: new.get(k) for k in fields},
        "gold": _gold(old),
        "answer_before": _answer(old),
        "answer_now": _answer(new),
        "response": _clip(old.get(response_key)),
    }

"""``math_equiv`` on four other graders' own unit-test cases: agreement per file, every disagreement classified.

Reads ``../shared/data/grader_tests/`` (Math-Verify, open-r1, Hendrycks MATH ``is_equiv``, NeMo-Skills
``math_equal``: each file records its source repo, commit and license). A case is a (gold, prediction,
expected) triple in the other grader's semantics; we score the prediction against the gold with
``math_equiv`` and compare with ``expected``:

* the prediction is taken as a response when it contains a box or an answer phrase, and is otherwise
  boxed (``\\boxed{pred}``): these tests are about equivalence, not about finding the answer;
* the gold is its boxes' contents when it has boxes (several different boxes: a list), else the text as written;
* NeMo-Skills asserts each pair in both orders, so both are run (``a`` as gold, then ``b`` as gold);
* Math-Verify's ``compare_strings`` cases carry options (``precision``, ``strict``, set relations) that
  are part of *its* semantics; ours has none of them: they are shown in the disagreement record.

Out of scope (counted, not scored): open-r1's non-accuracy rewards (format, tag count, length, ...) and
Math-Verify's ``parse_string_extraction`` cases (its extraction-config API).

Each disagreement is looked up in ``bench/adjudication/grader_tests.jsonl`` (our classification, written
by hand: ``ours_right`` / ``theirs_right`` / ``different_semantics``, with a reason). A disagreement
without a record is reported as ``unclassified``; a record whose verdict no longer matches is reported as
``stale``. Writes ``bench/results/grader_tests.json`` and prints a table. No third-party text is written
into the adjudication file: cases are named by file, line and order.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from _common import RESULTS, data_dir, read_jsonl, write_json

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
ADJUDICATION = REPO / "bench" / "adjudication" / "grader_tests.jsonl"
CLASSES = ("ours_right", "theirs_right", "different_semantics")


def _ours(gold: Any, pred: Any) -> bool:
    from rewardloop.scorers._equiv_extract import extract_answers
    from rewardloop.scorers.math_equiv import MathEquivScorer
    from rewardloop.types import Sample

    if isinstance(gold, str):
        boxes = extract_answers(gold)
        gold = ", ".join(dict.fromkeys(boxes.answers)) if boxes.method == "boxed" else gold
    text = pred if isinstance(pred, str) else str(pred)
    response = text if extract_answers(text).answers else "\\boxed{" + text + " }"
    scorer = MathEquivScorer()
    sample = Sample(response=response, ground_truth=gold)
    score = scorer.quick(sample) or scorer.score(sample)
    return score.value == 1.0


def cases(data: Path) -> tuple[list[dict[str, Any]], Counter]:
    """``{"key", "file", "gold", "pred", "expected", "options"}`` per scored case; out-of-scope counts."""
    out: list[dict[str, Any]] = []
    skipped: Counter = Counter()
    root = data / "grader_tests"
    mv = json.loads((root / "math_verify_test_cases.json").read_text())
    for c in mv["cases"]:
        if c["api"] == "parse_string_extraction":
            skipped["math_verify:parse_string_extraction"] += 1
            continue
        opts = {k: c[k] for k in ("match_types", "precision", "strict", "allow_set_relation_comp") if k in c}
        key = f"math_verify:{c['file']}:{c['line']}"
        out.append(_case(key, "math_verify", c["gold"], c["pred"], bool(c["expected"]), opts))
    r1 = json.loads((root / "open_r1_reward_test_cases.json").read_text())
    for c in r1["cases"]:
        if c["reward_fn"] != "accuracy_reward":
            skipped[f"open_r1:{c['reward_fn']}"] += 1
            continue
        for e in c["expected"]:
            i = e["index"]
            key = f"open_r1:{c['line']}:{i}"
            out.append(_case(key, "open_r1", c["solution"][i], c["completions"][i], e["value"] == 1.0, {}))
    hm = json.loads((root / "hendrycks_math_is_equiv_cases.json").read_text())
    for c in hm["cases"]:
        out.append(_case(f"hendrycks:{c['line']}", "hendrycks_math", c["str1"], c["str2"], c["expected"], {}))
    ns = json.loads((root / "nemo_skills_math_equal_cases.json").read_text())
    for c in ns["cases"]:
        out.append(_case(f"nemo:{c['line']}:ab", "nemo_skills", c["a"], c["b"], c["expected"], {}))
        out.append(_case(f"nemo:{c['line']}:ba", "nemo_skills", c["b"], c["a"], c["expected"], {}))
    return out, skipped


def _case(key: str, file: str, gold: Any, pred: Any, expected: bool, opts: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "file": file, "gold": gold, "pred": pred, "expected": expected, "options": opts}


def load_adjudication(path: Path = ADJUDICATION) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    return {r["key"]: r for r in read_jsonl(path)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(RESULTS / "grader_tests.json"))
    parser.add_argument("--show", action="store_true", help="print every disagreement (for adjudicating)")
    args = parser.parse_args()
    data = data_dir()
    if data is None or not (data / "grader_tests").is_dir():
        print("../shared/data/grader_tests not found: nothing to compare", file=sys.stderr)
        return 0
    rows, skipped = cases(data)
    adjudicated = load_adjudication()
    per_file: dict[str, Counter] = {}
    disagreements = []
    for c in rows:
        ours = _ours(c["gold"], c["pred"])
        tally = per_file.setdefault(c["file"], Counter())
        tally["n"] += 1
        if ours == c["expected"]:
            tally["agree"] += 1
            continue
        record = adjudicated.get(c["key"])
        if record is None:
            cls = "unclassified"
        elif record.get("ours") != ours:
            cls = "stale"
        else:
            cls = record["class"]
        tally[cls] += 1
        disagreements.append({**c, "ours": ours, "class": cls, "reason": (record or {}).get("reason", "")})
        if args.show:
            print(json.dumps({**c, "ours": ours, "class": cls}, ensure_ascii=False))
    report = {
        "benchmark": "grader_tests",
        "scorer": "math_equiv (defaults)",
        "out_of_scope": dict(skipped),
        "per_file": {
            f: {
                "n": t["n"],
                "agree": t["agree"],
                "agreement": t["agree"] / t["n"],
                **{k: t[k] for k in (*CLASSES, "unclassified", "stale")},
            }
            for f, t in per_file.items()
        },
        "disagreements": [
            {k: d[k] for k in ("key", "file", "expected", "ours", "class", "reason")} for d in disagreements
        ],
    }
    write_json(report, args.output)
    print(table(report))
    return 0


def table(report: dict[str, Any]) -> str:
    lines = [
        "| file | cases | agree | agreement | ours right | theirs right | different semantics | unclassified |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f, r in report["per_file"].items():
        lines.append(
            f"| {f} | {r['n']} | {r['agree']} | {100 * r['agreement']:.1f}% | {r['ours_right']} | "
            f"{r['theirs_right']} | {r['different_semantics']} | {r['unclassified'] + r['stale']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

"""How often the reader view (``_equiv_visible.reader_view``) refuses or rewrites REAL responses.

Every refusal rule of ``_equiv_visible`` must be ~silent on legitimate outputs (issue 21: no rule may buy safety
with false negatives). This reads real responses from every corpus available to the rules writer, runs
``reader_view`` on each response's answer region (what ``extract_answers`` passes it) and counts, per rule,
the responses it refuses; with ``--show`` it prints each one (to read by hand).

Corpora (nothing is copied into the repository; missing ones are skipped):

* ``../shared/data``: qwen25_math_cot (800 Qwen2.5-Math responses), gsm8k example_model_solutions (GPT-3, 4
  per problem), MATH test reference solutions (5,000 human-written solutions: legitimate LaTeX, not model
  outputs, a check that ordinary LaTeX is never refused);
* ``/work/extdata/dev/*.jsonl`` (the external sources' dev split only; test/ is never read here);
* ``/work/extdata/monitors/tune/rows.jsonl`` (real outputs in other languages and formats, the monitors'
  tuning set).

Usage: ``PYTHONPATH=src .venv/bin/python bench/visible_scan.py [--show RULE|all] [-o out.json]``.

``--verdicts FILE`` also writes math_equiv's verdict (value, rule) on every dev row to FILE; ``--against FILE``
compares them with such a file written by another source tree (e.g. the commit before a change, with its
``src`` first on ``PYTHONPATH``) and counts the rows whose verdict changed.
Results: ``bench/results/visible_scan.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXTDATA = Path(os.environ.get("REWARDLOOP_EXTDATA", "/work/extdata"))


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def corpora(data: Path) -> dict[str, list[tuple[str, str]]]:
    """``{corpus: [(id, response), ...]}``."""
    out: dict[str, list[tuple[str, str]]] = {}
    rows = _jsonl(data / "qwen25_math_cot" / "math_cot_100_qwen_rm_maj_responses.jsonl")
    out["qwen25_math_cot"] = [(f"{r['idx']}-{j}", c) for r in rows for j, c in enumerate(r["code"])]
    rows = _jsonl(data / "gsm8k" / "example_model_solutions.jsonl")
    out["gsm8k_gpt3"] = [
        (f"{i}-{k}", r[k]["solution"])
        for i, r in enumerate(rows)
        for k in ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification")
        if k in r
    ]
    rows = _jsonl(data / "math" / "math_test_5000.jsonl")
    out["math_solutions_human"] = [(str(r.get("idx", i)), r["solution"]) for i, r in enumerate(rows)]
    for path in sorted((EXTDATA / "dev").glob("*.jsonl")):
        out[f"dev/{path.stem}"] = [(r["id"], r["response"]) for r in _jsonl(path)]
    out["monitors_tune"] = [
        (r["id"], r.get("response", "")) for r in _jsonl(EXTDATA / "monitors/tune/rows.jsonl")
    ]
    return {k: v for k, v in out.items() if v}


def _dev_verdicts() -> dict[str, list[Any]]:
    from rewardloop.scorers.math_equiv import judge

    out: dict[str, list[Any]] = {}
    for path in sorted((EXTDATA / "dev").glob("*.jsonl")):
        for r in _jsonl(path):
            golds = r["gold"] if isinstance(r["gold"], list) else [r["gold"]]
            v = judge(r["response"], [str(g) for g in golds], prompt=r.get("prompt"))
            out[r["id"]] = [v.value, v.rule]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--show", default="", help="print the responses a rule refuses ('all' for every rule)")
    ap.add_argument("-o", "--output", default="")
    ap.add_argument("--verdicts", default="", help="write math_equiv's verdict on every dev row to this file")
    ap.add_argument("--against", default="", help="count dev rows whose verdict differs from this file's")
    args = ap.parse_args()
    from rewardloop.scorers._equiv_extract import MAX_RESPONSE_CHARS, answer_region
    from rewardloop.scorers._equiv_visible import reader_view

    report: dict[str, Any] = {}
    total = Counter()
    for name, items in corpora(Path(args.data)).items():
        fired: Counter[str] = Counter()
        changed = 0
        for rid, response in items:
            if not isinstance(response, str):
                continue
            region, _ = answer_region(response)
            region = region[-MAX_RESPONSE_CHARS:]
            seen, refused = reader_view(region)
            if refused:
                fired[refused] += 1
                if args.show in ("all", refused):
                    print(f"=== {name} {rid} [{refused}]\n{region[-1500:]}\n")
            elif seen != region:
                changed += 1
        report[name] = {"responses": len(items), "refused": dict(fired), "rewritten": changed}
        total["responses"] += len(items)
        total["refused"] += sum(fired.values())
        total["rewritten"] += changed
    report["total"] = dict(total)
    if args.verdicts or args.against:
        verdicts = _dev_verdicts()
        if args.verdicts:
            Path(args.verdicts).write_text(json.dumps(verdicts) + "\n", encoding="utf-8")
        if args.against:
            before = json.loads(Path(args.against).read_text(encoding="utf-8"))
            changed = sorted(k for k in verdicts if before.get(k, [None])[0] != verdicts[k][0])
            report["dev_verdicts_changed"] = {"rows": len(verdicts), "changed": len(changed), "ids": changed}
    for name, rec in report.items():
        print(f"{name:24s} {json.dumps(rec, ensure_ascii=False)}", file=sys.stderr)
    if args.output:
        Path(args.output).write_text(
            json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

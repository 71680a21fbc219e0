"""Agreement of the GSM8K scorers with human correctness labels.

``../shared/data/gsm8k/example_model_solutions.jsonl`` holds, for each of the 1,319 GSM8K test questions,
four GPT-3 solutions (6B/175B x finetuning/verification) with an ``is_correct`` label: 5,276 labelled
responses. The solutions end with ``A: <n>`` rather than GSM8K's ``#### <n>``, so each scorer is run in
three ways:

* ``strict_raw`` -- strict mode on the solution as written (no ``####``: the strict format is missing);
* ``strict_hash`` -- strict mode on the solution with its final ``A: n`` line rewritten to ``#### n``;
* ``flexible_raw`` -- flexible mode (the last number in the text) on the solution as written.

Gold = the text after ``####`` in ``test.jsonl`` with thousands separators removed, as verl's
``examples/data_preprocess/gsm8k.py`` stores it (a handful of golds are written ``5,600``). A verdict counts as "correct" when the reward is 1.0.
For each implementation and way: agreement with the labels, a confusion matrix (label x verdict), and
a few examples of each kind of disagreement. verl runs in ``.venv-verl`` as a subprocess; when it is
missing only ours is reported.

Writes ``bench/results/gsm8k_labels.json``. Exits 0 with a message when the shared data is absent.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import (
    RESULTS,
    VERL_PYTHON,
    data_dir,
    read_jsonl,
    run_worker,
    verl_available,
    versions,
    write_json,
)
from _corpus import to_hash_format

MODELS = ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification")
WAYS = ("strict_raw", "strict_hash", "flexible_raw")


def load(data: Path) -> list[dict[str, Any]]:
    golds = [
        json.loads(line)["answer"].split("####")[-1].strip().replace(",", "")
        for line in (data / "gsm8k" / "test.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    lines = (data / "gsm8k" / "example_model_solutions.jsonl").read_text(encoding="utf-8").splitlines()
    rows: list[dict[str, Any]] = []
    for q, (gold, line) in enumerate(zip(golds, lines, strict=True)):
        record = json.loads(line)
        for model in MODELS:
            solution = record[model]["solution"]
            rows.append(
                {
                    "question": q,
                    "model": model,
                    "gold": gold,
                    "label": bool(record[model]["is_correct"]),
                    "raw": solution,
                    "hash": to_hash_format(solution),
                }
            )
    return rows


def ours_verdicts(rows: list[dict[str, Any]]) -> dict[str, list[float | None]]:
    from rewardloop.scorers.gsm8k import GSM8KScorer
    from rewardloop.types import Sample

    strict, flexible = GSM8KScorer(method="strict"), GSM8KScorer(method="flexible")

    def run(scorer: GSM8KScorer, key: str) -> list[float | None]:
        return [
            scorer.score(Sample(response=r[key], ground_truth=r["gold"], task="openai/gsm8k")).value
            for r in rows
        ]

    return {
        "strict_raw": run(strict, "raw"),
        "strict_hash": run(strict, "hash"),
        "flexible_raw": run(flexible, "raw"),
    }


def verl_verdicts(rows: list[dict[str, Any]]) -> dict[str, list[float | None]]:
    out: dict[str, list[float | None]] = {}
    with tempfile.TemporaryDirectory(prefix="rewardloop-gsm8k-") as tmp:
        for way, key, impl in (
            ("strict_raw", "raw", "verl"),
            ("strict_hash", "hash", "verl"),
            ("flexible_raw", "raw", "verl-gsm8k-flexible"),
        ):
            inp, res = Path(tmp) / f"{way}.jsonl", Path(tmp) / f"{way}.out.jsonl"
            with open(inp, "w", encoding="utf-8") as fh:
                for i, r in enumerate(rows):
                    row = {
                        "id": i,
                        "data_source": "openai/gsm8k",
                        "response": r[key],
                        "ground_truth": r["gold"],
                    }
                    fh.write(json.dumps(row) + "\n")
            run_worker(VERL_PYTHON, impl, "score", inp, res)
            out[way] = [x["result"] for x in read_jsonl(res)]
    return out


def evaluate(rows: list[dict[str, Any]], verdicts: list[float | None], key: str) -> dict[str, Any]:
    cells = {"label_correct_scored_1": 0, "label_correct_scored_0": 0, "label_wrong_scored_1": 0}
    cells["label_wrong_scored_0"] = 0
    errors = 0
    examples: dict[str, list[dict[str, Any]]] = {"false_negative": [], "false_positive": []}
    per_model = {m: [0, 0] for m in MODELS}
    for row, value in zip(rows, verdicts, strict=True):
        if value is None:
            errors += 1
            continue
        hit = value == 1.0
        cells[f"label_{'correct' if row['label'] else 'wrong'}_scored_{int(hit)}"] += 1
        per_model[row["model"]][0] += hit == row["label"]
        per_model[row["model"]][1] += 1
        if hit != row["label"]:
            bucket = examples["false_negative" if row["label"] else "false_positive"]
            if len(bucket) < 5:
                text = row[key]
                bucket.append(
                    {
                        "question": row["question"],
                        "model": row["model"],
                        "gold": row["gold"],
                        "tail": text[-160:],
                    }
                )
    n = sum(cells.values())
    agree = cells["label_correct_scored_1"] + cells["label_wrong_scored_0"]
    return {
        "n": n,
        "errors": errors,
        "agreement": round(agree / n, 4) if n else None,
        "confusion": cells,
        "agreement_by_model": {m: round(a / t, 4) if t else None for m, (a, t) in per_model.items()},
        "examples": examples,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "gsm8k_labels.json")
    args = parser.parse_args(argv)
    data = data_dir()
    if data is None or not (data / "gsm8k" / "example_model_solutions.jsonl").exists():
        print("gsm8k_labels: ../shared/data/gsm8k not found; skipping (nothing to compare against).")
        return 0
    rows = load(data)
    n_correct = sum(r["label"] for r in rows)
    print(f"gsm8k_labels: {len(rows)} labelled solutions ({n_correct} labelled correct)")
    results: dict[str, Any] = {"ours": {}, "verl": {}}
    ours = ours_verdicts(rows)
    for way in WAYS:
        results["ours"][way] = evaluate(rows, ours[way], "hash" if way == "strict_hash" else "raw")
    if verl_available():
        verl = verl_verdicts(rows)
        for way in WAYS:
            results["verl"][way] = evaluate(rows, verl[way], "hash" if way == "strict_hash" else "raw")
        results["ours_vs_verl_same_verdict"] = {
            way: sum(a == b for a, b in zip(ours[way], verl[way], strict=True)) for way in WAYS
        }
    else:
        print(f"gsm8k_labels: verl not importable with {VERL_PYTHON}; reporting ours only", file=sys.stderr)
        del results["verl"]
    report = {
        "versions": versions(),
        "n": len(rows),
        "labelled_correct": n_correct,
        "label_source": "openai/grade-school-math example_model_solutions.jsonl (is_correct)",
        "gold": "text after '####' in test.jsonl, commas removed (verl's data_preprocess/gsm8k.py form)",
        **results,
    }
    write_json(report, args.out)
    print(f"{'impl':6} {'way':14} {'agree':>7}  TP    FN    FP    TN")
    for impl in ("ours", "verl"):
        for way, r in results.get(impl, {}).items():
            c = r["confusion"]
            print(
                f"{impl:6} {way:14} {r['agreement']:7.4f} {c['label_correct_scored_1']:5d} "
                f"{c['label_correct_scored_0']:5d} {c['label_wrong_scored_1']:5d} {c['label_wrong_scored_0']:5d}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Verdict parity with verl 0.9.1's ``default_compute_score`` on every rule data source.

Builds the corpus (``bench/_corpus.py``: the procedural generator plus real text from ``../shared/data``
when present), scores it with verl in ``.venv-verl`` (a subprocess, one guard per sample) and with
``rewardloop.default_compute_score`` in this process (same guard), and compares the rewards.

Writes:

* ``bench/results/parity_verl.json`` -- totals per data source (``n``, ``agree``, ``disagree``,
  ``verl_error``, ``ours_error``), per corpus origin, and per disagreement category;
* ``bench/results/parity_disagreements.jsonl`` -- every disagreement (and every error): data source,
  response (first 400 characters), ground truth, verl's result, ours, and a ``category``.

Categories come from reading the cases; :data:`CATEGORIES` documents each one and whether ours or verl
is right. Run ``python bench/parity_verl.py --help`` for options.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from _categories import CATEGORIES, categorize, family_of, score_value
from _common import (
    RESULTS,
    VERL_PYTHON,
    data_dir,
    read_jsonl,
    run_worker,
    verl_available,
    versions,
    write_json,
    write_jsonl,
)
from _corpus import build_corpus, iter_sources
from _score_worker import call_guarded, install_alarm


def same_verdict(verl: Any, ours: Any) -> bool:
    """Same reward (and the same return shape: float vs dict)."""
    if isinstance(verl, dict) != isinstance(ours, dict):
        return False
    a, b = score_value(verl), score_value(ours)
    return a is not None and b is not None and math.isclose(a, b, abs_tol=1e-9)


def score_ours(rows: list[dict[str, Any]], timeout: float) -> dict[int, dict[str, Any]]:
    from rewardloop import default_compute_score

    install_alarm()
    out: dict[int, dict[str, Any]] = {}
    for i, row in enumerate(rows):
        result, error = call_guarded(default_compute_score, row, timeout)
        out[row["id"]] = {"result": result, "error": error}
        if i and i % 2000 == 0:
            print(f"  ours: {i}/{len(rows)}", file=sys.stderr)
    return out


def compare(
    rows: list[dict[str, Any]], verl: dict[int, Any], ours: dict[int, Any]
) -> tuple[dict, list[dict]]:
    per_source: dict[str, Counter] = defaultdict(Counter)
    per_origin: dict[str, Counter] = defaultdict(Counter)
    per_scorer: dict[str, Counter] = defaultdict(Counter)
    cases: list[dict[str, Any]] = []
    for row in rows:
        v, o = verl[row["id"]], ours[row["id"]]
        origin = row["origin"].split("_")[0] if not row["origin"].startswith("gsm8k") else "gsm8k"
        if v["error"] or o["error"]:
            # an error on either side is not a verdict: counted apart from agree/disagree
            outcomes = [name for name, r in (("verl_error", v), ("ours_error", o)) if r["error"]]
            category = f"{outcomes[0]}:{(v['error'] or o['error']).split(':')[0]}"
        elif same_verdict(v["result"], o["result"]):
            outcomes, category = ["agree"], None
        else:
            outcomes = ["disagree"]
            category = categorize(row, v["result"], o["result"])
        for counter in (
            per_source[row["data_source"]],
            per_origin[origin],
            per_scorer[family_of(row["data_source"])],
        ):
            counter["n"] += 1
            counter.update(outcomes)
        if category is not None:
            cases.append(
                {
                    "id": row["id"],
                    "data_source": row["data_source"],
                    "origin": row["origin"],
                    "kind": row["kind"],
                    "category": category,
                    "response": row["response"][:400],
                    "response_tail": row["response"][-200:] if len(row["response"]) > 400 else "",
                    "response_len": len(row["response"]),
                    "ground_truth": row["ground_truth"],
                    "verl": v["result"] if not v["error"] else {"error": v["error"]},
                    "ours": o["result"] if not o["error"] else {"error": o["error"]},
                }
            )
    keys = ("n", "agree", "disagree", "verl_error", "ours_error")
    totals = {
        "by_data_source": {s: {k: per_source[s][k] for k in keys} for s in iter_sources(rows)},
        "by_scorer": {s: {k: c[k] for k in keys} for s, c in sorted(per_scorer.items())},
        "by_origin": {s: {k: c[k] for k in keys} for s, c in sorted(per_origin.items())},
    }
    return totals, cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-procedural", type=int, default=3450, help="generated rows (default 3450)")
    parser.add_argument("--timeout", type=float, default=20.0, help="per-sample limit, both sides (s)")
    parser.add_argument(
        "--limit", type=int, default=0, help="score only the first N corpus rows (smoke runs)"
    )
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    data = data_dir()
    if data is None:
        print("parity_verl: ../shared/data not found; using the procedural corpus only", file=sys.stderr)
    if not verl_available():
        print(
            f"parity_verl: verl not importable with {VERL_PYTHON}; run bench/run_all.sh to create .venv-verl."
        )
        return 0
    rows = build_corpus(data, seed=args.seed, n_procedural=args.n_procedural)
    if args.limit:
        rows = rows[: args.limit]
    print(f"parity_verl: {len(rows)} responses over {len(set(r['data_source'] for r in rows))} data sources")

    with tempfile.TemporaryDirectory(prefix="rewardloop-parity-") as tmp:
        corpus, verl_out = Path(tmp) / "corpus.jsonl", Path(tmp) / "verl.jsonl"
        _write_corpus(rows, corpus)
        t0 = time.perf_counter()
        run_worker(VERL_PYTHON, "verl", "score", corpus, verl_out, "--timeout", str(args.timeout))
        verl_s = time.perf_counter() - t0
        verl = {r["id"]: r for r in read_jsonl(verl_out)}
    t0 = time.perf_counter()
    ours = score_ours(rows, args.timeout)
    ours_s = time.perf_counter() - t0

    totals, cases = compare(rows, verl, ours)
    categories = Counter(c["category"] for c in cases)
    overall = Counter()
    for counts in totals["by_data_source"].values():
        overall.update(counts)
    report = {
        "versions": versions(),
        "corpus": {"n": len(rows), "seed": args.seed, "shared_data": data is not None},
        "wall_s": {"verl": round(verl_s, 1), "ours": round(ours_s, 1)},
        "overall": dict(overall),
        **totals,
        "categories": {
            name: {
                "count": n,
                "right": CATEGORIES.get(name, ("?", ""))[0],
                "about": CATEGORIES.get(name, ("", "?"))[1],
            }
            for name, n in categories.most_common()
        },
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_json(report, args.out_dir / "parity_verl.json")
    write_jsonl(cases, args.out_dir / "parity_disagreements.jsonl")
    _print_table(report)
    return 0


def _write_corpus(rows: list[dict[str, Any]], path: Path) -> None:
    keep = ("id", "data_source", "response", "ground_truth")
    write_jsonl(({k: r[k] for k in keep} for r in rows), path)


def _print_table(report: dict[str, Any]) -> None:
    print(f"{'data_source':36} {'n':>6} {'agree':>6} {'disagree':>8} {'verl_err':>8} {'ours_err':>8}")
    for source, c in report["by_data_source"].items():
        print(
            f"{source:36} {c['n']:6d} {c['agree']:6d} {c['disagree']:8d} {c['verl_error']:8d} {c['ours_error']:8d}"
        )
    o = report["overall"]
    print(
        f"{'total':36} {o['n']:6d} {o['agree']:6d} {o['disagree']:8d} {o['verl_error']:8d} {o['ours_error']:8d}"
    )
    for name, c in report["categories"].items():
        print(f"  {c['count']:5d}  [{c['right']}] {name}")


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    raise SystemExit(main())

"""Throughput of ``default_compute_score``: verl 0.9.1 vs rewardloop, per data source, on the parity corpus.

Each implementation is timed in its own virtual environment by the same stdlib-only worker
(``bench/_score_worker.py --mode time``): verl under ``.venv-verl/bin/python``, rewardloop under
``.venv/bin/python``, one after the other in the same run, over the same inputs. Per data source the
worker pays lazy imports with one untimed call, then times the whole group with ``time.perf_counter``
``--repeats`` times (default 3) and keeps the best pass. Both are single-process, sequential calls: this
measures the scorer functions, not a parallel runner.

Writes ``bench/results/throughput.json`` with samples/s per source for both and the ratio ours/verl
(> 1 means rewardloop is faster).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from _common import (
    OURS_PYTHON,
    RESULTS,
    VERL_PYTHON,
    data_dir,
    run_worker,
    verl_available,
    versions,
    write_json,
    write_jsonl,
)
from _corpus import build_corpus


def _subsample(rows: list[dict[str, Any]], per_source: int, seed: int) -> list[dict[str, Any]]:
    if per_source <= 0:
        return rows
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["data_source"]].append(row)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for group in groups.values():
        out += group if len(group) <= per_source else rng.sample(group, per_source)
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a and b else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--per-source", type=int, default=0, help="sample at most N rows per source (0: all)")
    parser.add_argument(
        "--budget", type=float, default=900.0, help="limit for one timed pass of a source (s)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "throughput.json")
    args = parser.parse_args(argv)

    data = data_dir()
    if data is None:
        print("throughput: ../shared/data not found; using the procedural corpus only", file=sys.stderr)
    if not verl_available():
        print(
            f"throughput: verl not importable with {VERL_PYTHON}; run bench/run_all.sh to create .venv-verl."
        )
        return 0
    rows = _subsample(build_corpus(data, seed=args.seed), args.per_source, args.seed)
    print(f"throughput: {len(rows)} responses, best of {args.repeats} passes per source")

    timings: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="rewardloop-throughput-") as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        keep = ("id", "data_source", "response", "ground_truth")
        write_jsonl(({k: r[k] for k in keep} for r in rows), corpus)
        for impl, python in (("verl", VERL_PYTHON), ("rewardloop", OURS_PYTHON)):
            out = Path(tmp) / f"{impl}.json"
            extra = ("--repeats", str(args.repeats), "--budget", str(args.budget))
            run_worker(python, impl, "time", corpus, out, *extra)
            timings[impl] = json.loads(out.read_text())

    per_source: dict[str, Any] = {}
    totals = {"verl": [0, 0.0], "ours": [0, 0.0]}
    for source, v in timings["verl"].items():
        o = timings["rewardloop"][source]
        per_source[source] = {
            "n": v["n"],
            "verl_samples_per_s": _round(v["samples_per_s"]),
            "ours_samples_per_s": _round(o["samples_per_s"]),
            "ratio_ours_over_verl": _ratio(o["samples_per_s"], v["samples_per_s"]),
            "verl_errors": v["errors"],
            "ours_errors": o["errors"],
            "verl_runs_s": [round(x, 4) for x in v["runs_s"]],
            "ours_runs_s": [round(x, 4) for x in o["runs_s"]],
        }
        for key, t in (("verl", v), ("ours", o)):
            if t["best_s"]:
                totals[key][0] += t["n"]
                totals[key][1] += t["best_s"]
    overall = {
        "n": len(rows),
        "verl_samples_per_s": _round(totals["verl"][0] / totals["verl"][1]) if totals["verl"][1] else None,
        "ours_samples_per_s": _round(totals["ours"][0] / totals["ours"][1]) if totals["ours"][1] else None,
    }
    overall["ratio_ours_over_verl"] = _ratio(overall["ours_samples_per_s"], overall["verl_samples_per_s"])
    report = {
        "versions": versions(),
        "method": f"sequential calls in one process per implementation; best of {args.repeats} passes per source",
        "corpus": {"n": len(rows), "seed": args.seed, "shared_data": data is not None},
        "overall": overall,
        "by_data_source": per_source,
    }
    write_json(report, args.out)
    print(f"{'data_source':36} {'n':>6} {'verl/s':>10} {'ours/s':>10} {'ours/verl':>9}")
    for source, r in per_source.items():
        print(
            f"{source:36} {r['n']:6d} {_fmt(r['verl_samples_per_s'])} {_fmt(r['ours_samples_per_s'])} "
            f"{_fmt(r['ratio_ours_over_verl'], 9)}"
        )
    print(
        f"{'overall':36} {overall['n']:6d} {_fmt(overall['verl_samples_per_s'])} "
        f"{_fmt(overall['ours_samples_per_s'])} {_fmt(overall['ratio_ours_over_verl'], 9)}"
    )
    return 0


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


def _fmt(x: float | None, width: int = 10) -> str:
    return f"{'-':>{width}}" if x is None else f"{x:{width}.1f}" if x >= 10 else f"{x:{width}.3f}"


if __name__ == "__main__":
    raise SystemExit(main())

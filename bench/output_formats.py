"""What writing scored rows costs: rewardloop's Parquet writer (exact round-trip, JSON text columns where Arrow
cannot hold a column exactly) against its JSONL writer, in the same run.

Rows: ``examples/rollouts.jsonl`` scored by the routing table (23 data sources, 8 scorers), repeated to
``--rows``. Reports seconds to write and read each format, the Parquet/JSONL ratios, file sizes, and whether
both read back exactly. Writes ``bench/results/output_formats.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _common import REPO, RESULTS, versions, write_json
from rewardloop._io import read_rows, write_rows
from rewardloop.cli.main import main


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(n_rows: int, repeats: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        scored = Path(tmp) / "scored.jsonl"
        assert main(["score", str(REPO / "examples" / "rollouts.jsonl"), "-o", str(scored)]) == 0
        base = read_rows(scored)
        rows = [dict(base[i % len(base)]) for i in range(n_rows)]
        out = {}
        for fmt in ("jsonl", "parquet"):
            path = Path(tmp) / f"rows.{fmt}"
            write_s = _best(lambda p=path: write_rows(p, rows), repeats)
            read_s = _best(lambda p=path: read_rows(p), repeats)
            exact = read_rows(path) == json.loads(json.dumps(rows))
            out[fmt] = {"write_s": round(write_s, 4), "read_s": round(read_s, 4), "bytes": path.stat().st_size,
                        "exact_round_trip": exact}  # fmt: skip
    return {
        "rows": n_rows,
        "repeats": repeats,
        **out,
        "parquet_over_jsonl_write": round(out["parquet"]["write_s"] / out["jsonl"]["write_s"], 3),
        "parquet_over_jsonl_read": round(out["parquet"]["read_s"] / out["jsonl"]["read_s"], 3),
        "versions": versions(),
    }


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    result = run(args.rows, args.repeats)
    write_json(result, RESULTS / "output_formats.json")
    print(
        f"{result['rows']} rows: write jsonl {result['jsonl']['write_s']}s parquet {result['parquet']['write_s']}s "
        f"(x{result['parquet_over_jsonl_write']}); read jsonl {result['jsonl']['read_s']}s parquet "
        f"{result['parquet']['read_s']}s (x{result['parquet_over_jsonl_read']}); exact: "
        f"{result['jsonl']['exact_round_trip']} / {result['parquet']['exact_round_trip']}"
    )


if __name__ == "__main__":
    main_()

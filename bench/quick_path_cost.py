"""What ``math_equiv``'s quick path (``quick()``: extraction, policy, exact/normalized/structured stages) costs per
sample on real outputs, for two source trees measured in the same run.

Each round runs every tree once, in alternating order, each in a fresh interpreter (``--src`` first on
``sys.path``): ``warm_up()``, one untimed pass, then ``--passes`` timed passes of ``quick()`` over the set with
the normalisation cache emptied before each pass; a round counts the best pass of each tree (the usual filter for a
shared machine). Reported: the median over ``--rounds`` rounds of ms/sample per tree and of their ratio, CPU time
(``time.process_time``, which other processes' load hardly moves). Verdicts of the two trees are compared too: the
number of samples whose ``quick()`` value differs (it should be 0 for a speed-only change).

Sets: ``qwen25_math_cot`` (800 Qwen2.5-Math responses, ``../shared/data``) by default; ``--set gsm8k_gpt3`` for
the GPT-3 GSM8K set.

Usage::

    python bench/quick_path_cost.py --base /tmp/base/src --src src --rounds 5 -o bench/results/quick_path_cost.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from _common import RESULTS, data_dir, write_json

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import rewardloop
from real_outputs import gsm8k_gpt3, qwen25
from _common import data_dir
from rewardloop.scorers import _equiv_norm
from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample
rows = {"qwen25_math_cot": qwen25, "gsm8k_gpt3": gsm8k_gpt3}[sys.argv[3]](data_dir())
samples = [Sample(response=r["response"], ground_truth=r["ground_truth"], prompt=r["prompt"]) for r in rows]
scorer = MathEquivScorer()
scorer.warm_up()
values = [None if (s := scorer.quick(x)) is None else s.value for x in samples]
best = None
for _ in range(int(sys.argv[4])):
    _equiv_norm._normalize.cache_clear()
    t0 = time.process_time()
    for x in samples:
        scorer.quick(x)
    dt = time.process_time() - t0
    best = dt if best is None else min(best, dt)
print(json.dumps({"file": rewardloop.__file__, "ms": best * 1000 / len(samples), "n": len(samples), "values": values}))
"""


def _run(src: Path, dataset: str, passes: int) -> dict[str, Any]:
    bench = Path(__file__).resolve().parent
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(src.resolve()), str(bench), dataset, str(passes)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": ""},
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if not Path(result["file"]).resolve().is_relative_to(src.resolve()):
        raise SystemExit(f"rewardloop was imported from {result['file']}, not from {src}")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, type=Path, help="the baseline source tree (holding rewardloop/)")
    ap.add_argument("--src", required=True, type=Path, help="the source tree measured against it")
    ap.add_argument("--set", default="qwen25_math_cot", choices=("qwen25_math_cot", "gsm8k_gpt3"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument(
        "--base-label", default="", help="what the baseline tree is (a commit), recorded in the result"
    )
    ap.add_argument("-o", "--out", type=Path, default=RESULTS / "quick_path_cost.json")
    args = ap.parse_args(argv)
    if data_dir() is None:
        raise SystemExit("../shared/data not found (set REWARDLOOP_SHARED_DATA)")
    base_ms, ms, ratios = [], [], []
    differ = 0
    for r in range(args.rounds):
        order = [("base", args.base), ("src", args.src)]
        if r % 2:
            order.reverse()
        got = {name: _run(tree, args.set, args.passes) for name, tree in order}
        base_ms.append(got["base"]["ms"])
        ms.append(got["src"]["ms"])
        ratios.append(got["base"]["ms"] / got["src"]["ms"])
        differ = sum(a != b for a, b in zip(got["base"]["values"], got["src"]["values"], strict=True))
        print(
            f"round {r + 1}: base {base_ms[-1]:.3f} ms/sample, src {ms[-1]:.3f}, differ {differ}",
            file=sys.stderr,
        )
    report = {
        "set": args.set,
        "samples": got["src"]["n"],
        "rounds": args.rounds,
        "passes": args.passes,
        "base": str(args.base),
        "base_label": args.base_label,
        "src": str(args.src),
        "base_ms_per_sample": round(statistics.median(base_ms), 4),
        "src_ms_per_sample": round(statistics.median(ms), 4),
        "speedup_median": round(statistics.median(ratios), 3),
        "per_round_speedup": [round(x, 3) for x in ratios],
        "quick_values_that_differ": differ,
        "loadavg": list(os.getloadavg()),
    }
    write_json(report, args.out)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A/B of the sandbox's stdin/stdout throughput between two source trees, alternating in the same minutes.

    .venv/bin/python bench/code_sandbox_ab.py --a /work/main/src --b src --problems 15 --rounds 2

Each pass runs ``bench/code_sandbox.py``'s generated problems (correct and wrong solutions, 10 cases
each) through ``run_tests`` on ``Sandbox(max_parallel=2)``, in a fresh interpreter whose ``PYTHONPATH``
is one tree; the trees alternate (A, B, A, B ...), so both see the same machine load. Writes
``bench/results/code_sandbox_ab.json``: every pass's seconds and the best per tree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common

PASS = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
import code_sandbox as cs
from rewardloop.sandbox import Sandbox
from rewardloop.sandbox.harness import run_tests
rows = cs.make_problems(int(sys.argv[1]))
with Sandbox(max_parallel=cs.WORKERS) as sb:
    def one(row):
        return sum(r.passed for r in run_tests(row["solution"], row["tests"], sandbox=sb))
    one(rows[0])
    t0 = time.perf_counter()
    cs._pool_map(one, rows)
    print(json.dumps({"seconds": round(time.perf_counter() - t0, 3)}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--a", required=True, help="first source tree (e.g. main's src)")
    parser.add_argument("--b", required=True, help="second source tree")
    parser.add_argument("--problems", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--output", type=Path, default=_common.RESULTS / "code_sandbox_ab.json")
    args = parser.parse_args()
    trees = {"a": os.path.abspath(args.a), "b": os.path.abspath(args.b)}
    passes: list[dict[str, object]] = []
    for _ in range(args.rounds):
        for name, tree in trees.items():
            env = {**os.environ, "PYTHONPATH": tree}
            here = str(Path(__file__).resolve().parent)
            cmd = [sys.executable, "-c", PASS, str(args.problems), here]
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            seconds = json.loads(done.stdout.strip().splitlines()[-1])["seconds"]
            passes.append({"tree": name, "seconds": seconds})
            print(name, tree, seconds, flush=True)
    best = {n: min(float(p["seconds"]) for p in passes if p["tree"] == n) for n in trees}  # type: ignore[arg-type]
    result = {
        "trees": trees,
        "problems": args.problems,
        "tests": args.problems * 2 * 10,
        "passes": passes,
        "best_s": best,
        "b_over_a": round(best["a"] / best["b"], 3),
        "load_1min": round(os.getloadavg()[0], 2),
    }
    _common.write_json(result, args.output)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

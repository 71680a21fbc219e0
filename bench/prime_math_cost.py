"""Per-sample cost of ``prime_math`` on the samples that reach sympy, and a verdict check across a corpus.

The samples: the ``numina_*`` rows of ``bench/runner_vs_verl.py``'s mixed 1,024-response batch
(``_runner_workload.mixed_workload``, seed 0) that :meth:`PrimeMathScorer.quick` cannot settle, i.e. the ones
a ``Runner`` sends to a worker process. Each is scored with ``score()`` in this process, after a warm-up on
other samples (sympy and the LaTeX parser imported), in one pass in the batch's order, so ground truths
shared by several responses of one problem are parsed as often as the implementation parses them.
Reported: mean, p50 and p99 milliseconds per sample, best of ``--repeats`` fresh interpreters.

Verdict check: every response of the mixed batch and every pair of ``bench/verifier.py`` is scored with
``prime_math`` (``quick()`` then ``score()``); the verdicts are hashed and, with ``--save-verdicts``, written
out; ``--compare-verdicts FILE`` fails (exit 1) naming each sample whose verdict differs from ``FILE``'s.
Writes ``bench/results/prime_math_cost.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import RESULTS, data_dir, write_json

REPO = Path(__file__).resolve().parents[1]
# --baseline-src runs the timing pass on another checkout's src/ (e.g. ``git archive`` of an older commit)
sys.path.insert(0, os.environ.get("PRIME_MATH_COST_SRC") or str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))


def _samples(kind: str) -> list[Any]:
    from _runner_workload import mixed_workload
    from rewardloop import Sample

    rows = mixed_workload(data_dir(), seed=0)
    if kind == "numina":
        rows = [r for r in rows if str(r["data_source"]).startswith("numina")]
    return [Sample(response=r["response"], ground_truth=r["ground_truth"], task="prime_math") for r in rows]


def timing_pass() -> dict[str, Any]:
    """One interpreter: warm up, then time ``quick() or score()`` on every numina sample, in order."""
    from rewardloop import Sample
    from rewardloop.scorers.prime_math import PrimeMathScorer

    scorer = PrimeMathScorer()
    if hasattr(scorer, "warm_up"):  # what a worker does as it unpickles the scorer
        scorer.warm_up()
    for k in range(2, 8):  # imports and first-use costs, on answers unlike the workload's
        scorer.score(Sample(response=f"\\boxed{{\\frac{{{k}}}{{{k + 1}}}\\sqrt{{2}}}}", ground_truth=f"{k}x"))
    samples = _samples("numina")
    heavy = [scorer.quick(s) is None for s in samples]
    times = []
    for s in samples:
        t0 = time.perf_counter()
        _ = scorer.quick(s) or scorer.score(s)
        times.append(time.perf_counter() - t0)
    return {"times_s": times, "reaches_sympy": heavy}


def _summary(times: list[float]) -> dict[str, Any]:
    ms = sorted(t * 1000 for t in times)
    return {
        "n": len(ms),
        "mean_ms": statistics.fmean(ms),
        "p50_ms": ms[len(ms) // 2],
        "p99_ms": ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))],
    }


def _child(src: str | None) -> dict[str, Any]:
    env = dict(os.environ)
    if src:
        env["PRIME_MATH_COST_SRC"] = src
    cmd = [sys.executable, __file__, "--child"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def verdicts() -> list[float | None]:
    from rewardloop.scorers.prime_math import PrimeMathScorer
    from rewardloop.types import Sample
    from verifier import build_pairs

    scorer = PrimeMathScorer()
    samples = _samples("all")
    pairs = build_pairs(data_dir(), 0, 100, 100, 60, 300)
    samples += [Sample(response=p["response"], ground_truth=p["ground_truth"]) for p in pairs]
    out = []
    for s in samples:
        score = scorer.quick(s) or scorer.score(s)
        out.append(score.value)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--baseline-src", default=None, help="another checkout's src/ to time side by side")
    parser.add_argument("--save-verdicts", default=None)
    parser.add_argument("--compare-verdicts", default=None)
    parser.add_argument("--output", default=str(RESULTS / "prime_math_cost.json"))
    args = parser.parse_args()
    if data_dir() is None:
        print("../shared/data not found: nothing to measure", file=sys.stderr)
        return 0
    if args.child:
        print(json.dumps(timing_pass()))
        return 0
    rounds: dict[str, list[dict[str, Any]]] = {"current": [], "baseline": []}
    for _ in range(args.repeats):  # fresh interpreters, baseline and current alternating
        rounds["current"].append(_child(None))
        if args.baseline_src:
            rounds["baseline"].append(_child(args.baseline_src))
    # the samples that reach sympy: those the baseline's quick() leaves open (else the current one's)
    ref = rounds["baseline"][0] if rounds["baseline"] else rounds["current"][0]
    heavy = [i for i, h in enumerate(ref["reaches_sympy"]) if h]
    report_cost = {}
    for name, runs in rounds.items():
        if not runs:
            continue
        per_run = [_summary([r["times_s"][i] for i in heavy]) for r in runs]
        report_cost[name] = {
            "best": min(per_run, key=lambda x: x["mean_ms"]),
            "runs": per_run,
            "reach_sympy_now": sum(runs[0]["reaches_sympy"]),
        }
    best = report_cost["current"]["best"]
    got = verdicts()
    digest = hashlib.sha256(json.dumps(got).encode()).hexdigest()
    report = {
        "benchmark": "prime_math_cost",
        "samples": f"{len(heavy)} numina rows of the mixed batch that the baseline's quick() leaves to sympy",
        "cost": report_cost,
        "verdicts_n": len(got),
        "verdicts_sha256": digest,
    }
    if args.save_verdicts:
        Path(args.save_verdicts).write_text(json.dumps(got))
    status = 0
    if args.compare_verdicts:
        before = json.loads(Path(args.compare_verdicts).read_text())
        diff = [i for i, (a, b) in enumerate(zip(before, got, strict=True)) if a != b]
        report["verdicts_changed"] = diff
        status = 1 if diff else 0
    write_json(report, args.output)
    base = report_cost.get("baseline", {}).get("best")
    print(
        f"prime_math on {best['n']} numina samples that reach sympy: mean {best['mean_ms']:.2f} ms, "
        f"p50 {best['p50_ms']:.2f} ms, p99 {best['p99_ms']:.2f} ms (best of {args.repeats})"
        + (
            f"; baseline mean {base['mean_ms']:.2f} ms (x{base['mean_ms'] / best['mean_ms']:.2f})"
            if base
            else ""
        )
        + "; "
        f"{len(got)} verdicts sha256 {digest[:12]}"
        + (f"; {len(report['verdicts_changed'])} changed" if args.compare_verdicts else "")
    )
    return status


if __name__ == "__main__":
    sys.exit(main())

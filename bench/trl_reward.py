"""TRL reward functions: rewardloop's adapter against TRL's own ``accuracy_reward`` on MATH-500.

Both are called the way ``GRPOTrainer`` calls reward functions (keyword ``prompts`` / ``completions`` /
dataset columns, conversational completions), batch by batch. Completions are built from MATH-500's
answers: for every problem one correct (``\\boxed{answer}``) and one wrong (``\\boxed{answer + 1}``-style)
completion. Measured per implementation: samples/s over all batches (best of ``--repeats``), the rewards'
agreement with the expected verdicts (a ``None``, "not applicable", counts as a wrong verdict), and with
TRL. Without ``../shared/data`` a small procedural set of
fractions is used.

    .venv/bin/python bench/trl_reward.py [--batch 64] [--limit 500] [--repeats 2]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, data_dir, write_json


def load_problems(limit: int) -> tuple[str, list[dict[str, str]]]:
    root = data_dir()
    path = root / "math" / "math500_test.jsonl" if root else None
    if path is not None and path.is_file():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return "MATH-500", [{"problem": r["problem"], "answer": r["answer"]} for r in rows[:limit]]
    rows = [
        {"problem": f"Simplify {2 * i}/{4 * i}.", "answer": f"\\frac{{1}}{{{i + 1}}}"} for i in range(1, 101)
    ]
    return "procedural fractions", rows[:limit]


def wrong_answer(answer: str) -> str:
    return answer + "+1" if not answer.strip().isdigit() else str(int(answer) + 1)


def build(problems: list[dict[str, str]]) -> tuple[list[Any], list[str], list[bool]]:
    completions, solutions, expected = [], [], []
    for p in problems:
        for text, ok in ((p["answer"], True), (wrong_answer(p["answer"]), False)):
            completions.append(
                [{"role": "assistant", "content": f"Working it out.\nThe answer is $\\boxed{{{text}}}$."}]
            )
            solutions.append(p["answer"])
            expected.append(ok)
    return completions, solutions, expected


def run(
    fn: Any, completions: list[Any], solutions: list[str], batch: int
) -> tuple[float, list[float | None]]:
    out: list[float | None] = []
    start = time.perf_counter()
    for i in range(0, len(completions), batch):
        chunk = completions[i : i + batch]
        sols = solutions[i : i + batch]
        out += fn(
            prompts=[[{"role": "user", "content": "q"}]] * len(chunk),
            completions=chunk,
            completion_ids=[[0]] * len(chunk),
            solution=sols,
            data_source=["HuggingFaceH4/MATH-500"] * len(chunk),
            trainer_state=None,
            log_extra=lambda *a: None,
            log_metric=lambda *a: None,
        )
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--batch", type=int, default=64, help="completions per call (one TRL shard)")
    parser.add_argument("--limit", type=int, default=500, help="problems (2 completions each)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="worker processes of rewardloop's runner")
    args = parser.parse_args()

    import trl
    from trl.rewards import accuracy_reward

    import rewardloop
    from rewardloop import Runner
    from rewardloop.integrations.trl import reward_func

    corpus, problems = load_problems(args.limit)
    completions, solutions, expected = build(problems)
    runner = Runner(workers=args.workers, on_error=None)
    impls = {
        "trl.rewards.accuracy_reward (math-verify, main thread)": accuracy_reward,
        "rewardloop reward_func('math_verify') (worker processes)": reward_func(
            "math_verify", runner=runner, ground_truth_keys="solution"
        ),
        "rewardloop reward_func() routed (hendrycks_math, inline)": reward_func(
            runner=runner, ground_truth_keys="solution"
        ),
    }
    results = {}
    trl_rewards: list[float | None] = []
    for name, fn in impls.items():
        best, rewards = min(
            (run(fn, completions, solutions, args.batch) for _ in range(args.repeats)), key=lambda x: x[0]
        )
        if not trl_rewards:
            trl_rewards = rewards
        verdicts = [r is not None and r >= 1.0 for r in rewards]
        results[name] = {
            "seconds": round(best, 3),
            "samples_per_s": round(len(completions) / best, 1),
            "accuracy_vs_expected": round(
                sum(v == e for v, e in zip(verdicts, expected, strict=True)) / len(expected), 4
            ),
            "agreement_with_trl": round(
                sum(a == b for a, b in zip(rewards, trl_rewards, strict=True)) / len(rewards), 4
            ),
            "excluded_none": sum(r is None for r in rewards),
        }
    runner.close()
    baseline = results[next(iter(results))]["seconds"]
    for r in results.values():
        r["speedup_vs_trl"] = round(baseline / r["seconds"], 2)
    report = {
        "corpus": corpus,
        "completions": len(completions),
        "batch": args.batch,
        "repeats": args.repeats,
        "workers": args.workers,
        "versions": {
            "rewardloop": rewardloop.__version__,
            "trl": trl.__version__,
            "math_verify": importlib.metadata.version("math-verify"),
            "python": platform.python_version(),
        },
        "machine": {"cpus": os.cpu_count(), "loadavg_1m": round(os.getloadavg()[0], 2)},
        "results": results,
    }
    write_json(report, RESULTS / "trl_reward.json")
    print(f"## TRL reward functions on {corpus}: {len(completions)} completions, batches of {args.batch}\n")
    print("| implementation | samples/s | vs TRL | correct verdicts | agrees with TRL | excluded |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        print(
            f"| {name} | {r['samples_per_s']} | {r['speedup_vs_trl']}x | {r['accuracy_vs_expected']:.1%} "
            f"| {r['agreement_with_trl']:.1%} | {r['excluded_none']} |"
        )
    print(f"\nload average {report['machine']['loadavg_1m']} on {report['machine']['cpus']} CPUs")


if __name__ == "__main__":
    main()

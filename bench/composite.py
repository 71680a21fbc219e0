"""Composite and group-relative rewards against the same work done by hand, in the same run.

* ``composite``: ``Runner.run(Composite([math_dapo, format]))`` vs ``Runner.run(math_dapo)`` +
  ``Runner.run(format)`` and the weighted sum in Python (what a user would write without a composite);
* ``group_relative``: ``Runner.run(GroupRelative(math_dapo, "zscore"))`` vs ``Runner.run(math_dapo)`` and the
  per-uid z-score in Python;
* ``stream_composite``: ``Runner.submit(composite, s)`` for every sample vs submitting both components.

Interleaved rounds, median seconds per variant, and the ratio composite / by hand (1.0 = no overhead).
Writes ``bench/results/composite.json``. Usage: ``python bench/composite.py [--n 4000] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, write_json
from rewardloop import Runner, Sample, Score
from rewardloop.managers import Composite
from rewardloop.scorers._base import Scorer
from rewardloop.scorers._group import GroupRelative
from rewardloop.scorers._registry import get_scorer


class Format(Scorer):
    name = "bench_format"
    execution = "inline"

    def score(self, sample: Sample) -> Score:
        return Score(float(sample.response.startswith("Answer:")))


def samples(n: int, group: int = 8) -> list[Sample]:
    out = []
    for i in range(n):
        gt = str(i // group)
        answer = gt if i % 3 else str(i)
        text = f"Let me think step {i}. Answer: {answer}" if i % 5 else f"Answer: {answer}"
        out.append(Sample(text, gt, uid=f"u{i // group}"))
    return out


def by_hand_composite(runner: Runner, acc: Scorer, fmt: Scorer, batch: list[Sample]) -> list[float | None]:
    a, f = runner.run_sync(acc, batch), runner.run_sync(fmt, batch)
    return [x + 0.2 * y for x, y in zip(a.rewards(), f.rewards(), strict=True)]


def by_hand_zscore(runner: Runner, acc: Scorer, batch: list[Sample]) -> list[float]:
    rewards = runner.run_sync(acc, batch).rewards()
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(batch):
        groups.setdefault(s.uid, []).append(i)
    out = [0.0] * len(batch)
    for idxs in groups.values():
        vals = [rewards[i] for i in idxs]
        mean = math.fsum(vals) / len(vals)
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / len(vals))
        for i, v in zip(idxs, vals, strict=True):
            out[i] = (v - mean) / (std + 1e-6)
    return out


async def stream(runner: Runner, scorers: list[Scorer], batch: list[Sample]) -> None:
    await asyncio.gather(*(runner.submit(sc, s) for s in batch for sc in scorers))


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    batch = samples(args.n)
    acc, fmt = get_scorer("math_dapo"), Format()
    comp = Composite([("acc", acc, 1.0), ("fmt", fmt, 0.2)])
    rel = GroupRelative(acc, "zscore")
    times: dict[str, list[float]] = {}
    with Runner() as runner:
        # same answers first: the benchmark compares equal work
        assert runner.run_sync(comp, batch).rewards() == by_hand_composite(runner, acc, fmt, batch)
        got = runner.run_sync(rel, batch).rewards()
        want = by_hand_zscore(runner, acc, batch)
        assert all(abs(a - b) < 1e-9 for a, b in zip(got, want, strict=True))
        variants = {
            "composite": lambda: runner.run_sync(comp, batch),
            "composite_by_hand": lambda: by_hand_composite(runner, acc, fmt, batch),
            "group_relative": lambda: runner.run_sync(rel, batch),
            "group_relative_by_hand": lambda: by_hand_zscore(runner, acc, batch),
            "stream_composite": lambda: runner.call_sync(stream(runner, [comp], batch)),
            "stream_components": lambda: runner.call_sync(stream(runner, [acc, fmt], batch)),
        }
        for _ in range(args.rounds):
            for name, fn in variants.items():
                times.setdefault(name, []).append(timed(fn))
    median = {k: statistics.median(v) for k, v in times.items()}
    result = {
        "n": args.n,
        "rounds": args.rounds,
        "median_s": {k: round(v, 4) for k, v in median.items()},
        "ratio": {
            "composite_over_by_hand": round(median["composite"] / median["composite_by_hand"], 3),
            "group_relative_over_by_hand": round(
                median["group_relative"] / median["group_relative_by_hand"], 3
            ),
            "stream_composite_over_components": round(
                median["stream_composite"] / median["stream_components"], 3
            ),
        },
    }
    write_json(result, RESULTS / "composite.json")
    print(result)


if __name__ == "__main__":
    main()

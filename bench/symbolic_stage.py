"""math_equiv's symbolic stage per call, this checkout against a baseline commit, in the same run.

The samples: every response of the external speed sets (``bench/external_outputs.py``'s ``speed_sets``: all
sources, dev and test; no label is read) that math_equiv's ``quick()`` leaves open, i.e. the ones a
``Runner`` sends to a worker process. Each round starts one fresh interpreter per checkout (baseline and
current alternating, the order flipping each round); the interpreter imports rewardloop, runs the scorer's
``warm_up()`` (what a fresh worker does when it loads the scorer: the *fresh-worker cost*, timed), then
scores every sample once with ``score()`` in the sets' order and times each call (CPU time of the process,
which a loaded machine disturbs less than wall time; wall time is reported beside it).

Reported per checkout: the median over rounds of the total, mean, p50 and p99 milliseconds per call, and
the fresh-worker cost; the ratio baseline / current per round and its median. The samples are scored in two
halves (even, then odd positions): the second half's cost is also reported on its own, as a worker that has
already parsed other answers sees it (ANTLR's prediction cache filled; a long-lived training worker). Then
every response is scored again with its digits changed (1 to 2, ..., 9 to 1): answers of the forms just seen
with other numbers, against the same golds, as the n responses of a GRPO group often are ("same shapes"). The verdicts of both
checkouts are compared sample by sample (``Score.value``, ``info["stage"]`` and ``info["rule"]``): any
difference is listed and makes the run fail.

``--baseline REV`` is a git revision of this repository (``git archive`` into a temporary folder).
Writes ``bench/results/symbolic_stage.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, write_json

REPO = Path(__file__).resolve().parents[1]
_DIGIT = re.compile(r"[1-9]")


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


def child(samples_path: str) -> int:
    """In a fresh interpreter: warm up, score every sample, print timings and verdicts as JSON."""
    t_wall, t_cpu = time.perf_counter(), time.process_time()
    from rewardloop import Sample, get_scorer

    scorer = get_scorer("math_equiv")
    scorer.warm_up()
    fresh = {"wall_s": time.perf_counter() - t_wall, "cpu_s": time.process_time() - t_cpu}
    rows = json.loads(Path(samples_path).read_text(encoding="utf-8"))
    cpu, wall, verdicts = [], [], []
    for r in rows:
        s = Sample(response=r["response"], ground_truth=r["gold"], prompt=r["prompt"])
        w0, c0 = time.perf_counter(), time.process_time()
        score = scorer.score(s)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        verdicts.append([score.value, score.info.get("stage"), score.info.get("rule")])
    # then every response again with its digits changed (1->2, ..., 9->1): answers of the same forms with other
    # numbers against the same golds, as the n responses of a GRPO group are
    same_shape = []
    for r in rows:
        other = _DIGIT.sub(lambda m: str(int(m.group()) % 9 + 1), r["response"])
        s = Sample(response=other, ground_truth=r["gold"], prompt=r["prompt"])
        c0 = time.process_time()
        scorer.score(s)
        same_shape.append(time.process_time() - c0)
    print(
        json.dumps(
            {"fresh": fresh, "cpu": cpu, "wall": wall, "verdicts": verdicts, "same_shape_cpu": same_shape}
        )
    )
    return 0


def _run(src: str, samples_path: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, __file__, "--child", samples_path],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _samples(src: str) -> list[dict[str, Any]]:
    """The rows of the external speed sets that ``quick()`` of ``src`` leaves to the symbolic stage."""
    sys.path.insert(0, src)
    import external_outputs as eo
    from rewardloop import get_scorer

    scorer = get_scorer("math_equiv")
    seen, out = set(), []
    for rows in eo.speed_sets(list(eo.SOURCES), 10**9).values():
        for r, s in zip(rows, eo.samples(rows), strict=True):
            if r["id"] in seen:
                continue
            seen.add(r["id"])
            try:
                if scorer.quick(s) is None:
                    out.append(
                        {"id": r["id"], "response": r["response"], "gold": r["gold"], "prompt": r["prompt"]}
                    )
            except Exception:
                continue
    return out


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def med(f: Any) -> float:
        return round(statistics.median(f(r) for r in runs), 3)

    half = runs[0]["half"] if runs else 0

    return {
        "total_cpu_s_median": med(lambda r: sum(r["cpu"])),
        "total_wall_s_median": med(lambda r: sum(r["wall"])),
        "mean_cpu_ms_median": med(lambda r: 1000 * statistics.mean(r["cpu"])),
        "p50_cpu_ms_median": med(lambda r: 1000 * _pct(r["cpu"], 50)),
        "p99_cpu_ms_median": med(lambda r: 1000 * _pct(r["cpu"], 99)),
        "p99_wall_ms_median": med(lambda r: 1000 * _pct(r["wall"], 99)),
        "fresh_worker_wall_s_median": med(lambda r: r["fresh"]["wall_s"]),
        "fresh_worker_cpu_s_median": med(lambda r: r["fresh"]["cpu_s"]),
        "total_cpu_s_per_round": [round(sum(r["cpu"]), 3) for r in runs],
        "second_half_cpu_s_median": med(lambda r: sum(r["cpu"][half:])),
        "same_shapes_cpu_s_median": med(lambda r: sum(r["same_shape_cpu"])),
        "second_half_mean_cpu_ms_median": med(lambda r: 1000 * statistics.mean(r["cpu"][half:])),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=False, default=None, help="git revision to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", default=str(RESULTS / "symbolic_stage.json"))
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    current = str(REPO / "src")
    with tempfile.TemporaryDirectory() as tmp:
        found = _samples(current)
        rows = found[0::2] + found[1::2]  # the second half is timed again after the first warmed the process
        half = len(found[0::2])
        samples_path = str(Path(tmp) / "samples.json")
        Path(samples_path).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
        base_src = None
        if args.baseline:
            archive = subprocess.run(
                ["git", "-C", str(REPO), "archive", args.baseline, "src"], capture_output=True, check=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            base_src = str(Path(tmp) / "src")
        runs: dict[str, list[dict[str, Any]]] = {"current": [], "baseline": []}
        for k in range(args.rounds):
            order = [("current", current), ("baseline", base_src)]
            if k % 2:
                order.reverse()
            for name, src in order:
                if src is not None:
                    runs[name].append({**_run(src, samples_path), "half": half})
            print(
                f"round {k + 1}: "
                + ", ".join(f"{n} {sum(r[-1]['cpu']):.2f} s" for n, r in runs.items() if r),
                file=sys.stderr,
            )
    report: dict[str, Any] = {
        "benchmark": "symbolic_stage",
        "samples": f"{len(rows)} responses of the external speed sets (dev and test) that quick() leaves open",
        "rounds": args.rounds,
        "baseline": args.baseline,
        "machine": {"cpus": os.cpu_count(), "loadavg": os.getloadavg()[0]},
        "current": _summary(runs["current"]),
    }
    changed = []
    if runs["baseline"]:
        report["baseline_summary"] = _summary(runs["baseline"])
        ratios = [
            sum(b["cpu"]) / sum(c["cpu"]) for b, c in zip(runs["baseline"], runs["current"], strict=True)
        ]
        report["baseline_over_current_cpu_per_round"] = [round(x, 2) for x in ratios]
        report["baseline_over_current_cpu_median"] = round(statistics.median(ratios), 2)
        warm = [
            sum(b["cpu"][half:]) / sum(c["cpu"][half:])
            for b, c in zip(runs["baseline"], runs["current"], strict=True)
        ]
        report["second_half_baseline_over_current_cpu_per_round"] = [round(x, 2) for x in warm]
        report["second_half_baseline_over_current_cpu_median"] = round(statistics.median(warm), 2)
        same = [
            sum(b["same_shape_cpu"]) / sum(c["same_shape_cpu"])
            for b, c in zip(runs["baseline"], runs["current"], strict=True)
        ]
        report["same_shapes_baseline_over_current_cpu_per_round"] = [round(x, 2) for x in same]
        report["same_shapes_baseline_over_current_cpu_median"] = round(statistics.median(same), 2)
        vb, vc = runs["baseline"][0]["verdicts"], runs["current"][0]["verdicts"]
        changed = [
            {"id": r["id"], "baseline": b, "current": c}
            for r, b, c in zip(rows, vb, vc, strict=True)
            if b != c
        ]
        report["verdicts_compared"] = len(rows)
        report["verdicts_changed"] = changed
    write_json(report, args.output)
    print(json.dumps({k: v for k, v in report.items() if k != "verdicts_changed"}, indent=1))
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())

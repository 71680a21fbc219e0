"""The execution engine on every executor (issue 24): deadlines under load, Ray against local, Ray scaling.

Sections (one run; ratios are within this run only, never against numbers from another run):

1. **deadlines** -- ``Runner(workers=2)``: 24 samples that hang (``time.sleep(600)``) under a 2 s deadline,
   mixed with 24 that take 0.05 s, one batch. Reports, for the timed-out samples, the largest ``exec_s``
   (the attempt's own run time, from its start in the worker to the kill) against ``deadline + 1 s``, and
   their ``queue_s`` (time waiting for a worker, which used to be reported as execution). Run it beside a
   busy loop per core to see the bound hold under load: ``../shared/tools/under-load -- .venv/bin/python
   bench/execution_engine.py --only deadlines``.
2. **ray_vs_local** -- the 1,024-response mixed workload (``_runner_workload.mixed_workload``, one scorer per
   sample as the CLI routes them): ``Runner(workers=2)`` against ``RayRunner(num_actors=2, workers=1)``, all
   warm, in alternating rounds (``--rounds``, default 7); the median time of each and their ratio.
3. **ray_scaling** -- the same batch on ``RayRunner(num_actors=k, workers=1)`` for k = 1, 2, 4, in the same
   alternating rounds (the local Ray is given 4 logical CPUs; the machine has the cores ``os.cpu_count()``
   says, so k = 4 oversubscribes a 2-core machine: that is what the number shows).
4. **groups** -- ``GroupRelative(math_dapo, "center")`` over 64 groups of 8 on both executors: whether the
   rewards are identical (the bug this issue fixed gave 0.0 to every sample on Ray).

Writes ``bench/results/execution_engine.json``. Without Ray the Ray sections say so; without ``../shared/data``
the workload falls back to ``examples/make_rollouts.py`` rows (labelled in the output).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, data_dir, versions, write_json
from _runner_workload import mixed_workload

OUT = RESULTS / "execution_engine.json"


def log(msg: str) -> None:
    print(f"[execution_engine] {msg}", file=sys.stderr, flush=True)


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# ------------------------------------------------------------------------------------------------ 1


def section_deadlines() -> dict[str, Any]:
    from _bench_scorers import SleepyScorer
    from rewardloop import Runner, Sample, Status

    deadline = 2.0
    samples = [Sample(("hang" if i % 2 else "ok") + f"-{i}") for i in range(48)]
    scorer = SleepyScorer(deadline)
    with Runner(workers=2, slow_sample_s=None) as runner:
        runner.run_sync(scorer, [Sample("ok-warm-1"), Sample("ok-warm-2")])
        t0 = time.perf_counter()
        batch = runner.run_sync(scorer, samples)
        wall = time.perf_counter() - t0
    timed_out = [i for i, st in enumerate(batch.statuses) if st is Status.TIMEOUT]
    exec_t = [batch.exec_s[i] for i in timed_out]
    queue_t = [batch.queue_s[i] for i in timed_out]
    return {
        "what": "Runner(workers=2), 24 hanging samples (2 s deadline) + 24 of 0.05 s, one batch",
        "deadline_s": deadline,
        "timeouts": len(timed_out),
        "ok": sum(st is Status.OK for st in batch.statuses),
        "exec_s_max_of_timeouts": round(max(exec_t), 3) if exec_t else None,
        "exec_s_min_of_timeouts": round(min(exec_t), 3) if exec_t else None,
        "bound_s": deadline + 1.0,
        "within_bound": bool(exec_t) and max(exec_t) <= deadline + 1.0,
        "queue_s_max_of_timeouts": round(max(queue_t), 3) if queue_t else None,
        "wall_s": round(wall, 3),
        "loadavg": loadavg(),
    }


# ------------------------------------------------------------------------------------------------ 2, 3, 4


def _samples(rows: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    from rewardloop import Sample
    from rewardloop.scorers._registry import resolve_scorer

    samples = [
        Sample(r["response"], r["ground_truth"], r["data_source"], metadata={"id": r.get("id")}) for r in rows
    ]
    return samples, [resolve_scorer(s.task) for s in samples]


def _timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def section_ray(rows: list[dict[str, Any]], rounds: int, actors: tuple[int, ...]) -> dict[str, Any]:
    try:
        import ray

        from rewardloop.execution import RayRunner
    except Exception as exc:
        return {"skipped": f"Ray unavailable: {type(exc).__name__}: {exc}"}
    from rewardloop import Runner

    samples, scorers = _samples(rows)
    warm, warm_scorers = samples[::16], scorers[::16]
    n = len(samples)
    out: dict[str, Any] = {"n": n, "rounds": rounds, "loadavg_before": loadavg()}
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=max(actors), include_dashboard=False, log_to_driver=False)
    runners: dict[str, Any] = {}
    try:
        runners["local"] = Runner(workers=2, slow_sample_s=None)
        for k in sorted({2, *actors}):
            runners[f"ray{k}"] = RayRunner(num_actors=k, workers=1, slow_sample_s=None)
        for r in runners.values():  # warm: pools started, scorers imported and shipped
            r.run_sync(warm_scorers, warm)
            r.run_sync(scorers, samples)
        runs: dict[str, list[float]] = {name: [] for name in runners}
        for _ in range(rounds):  # alternating rounds: every executor sees the same load, in turn
            for name, r in runners.items():
                runs[name].append(_timed(lambda r=r: r.run_sync(scorers, samples)))
        med = {name: statistics.median(v) for name, v in runs.items()}
        out["ray_vs_local"] = {
            "local": {"what": "Runner(workers=2)", "median_s": round(med["local"], 4),
                      "samples_per_s": round(n / med["local"], 1)},
            "ray": {"what": "RayRunner(num_actors=2, workers=1)", "median_s": round(med["ray2"], 4),
                    "samples_per_s": round(n / med["ray2"], 1)},
            "ray_time_over_local": round(med["ray2"] / med["local"], 3),
            "ray_time_over_local_per_round": [
                round(b / a, 3) for a, b in zip(runs["local"], runs["ray2"], strict=True)
            ],
            "median_of_round_ratios": round(
                statistics.median(b / a for a, b in zip(runs["local"], runs["ray2"], strict=True)), 3
            ),
            "local_runs_s": [round(x, 4) for x in runs["local"]],
            "ray_runs_s": [round(x, 4) for x in runs["ray2"]],
        }  # fmt: skip
        out["ray_scaling"] = {
            "what": f"RayRunner(num_actors=k, workers=1), ray.init(num_cpus={max(actors)}), {os.cpu_count()} cores,"
            " rounds alternating with the local runner",
            **{
                str(k): {
                    "median_s": round(med[f"ray{k}"], 4),
                    "samples_per_s": round(n / med[f"ray{k}"], 1),
                    "over_local": round(med[f"ray{k}"] / med["local"], 3),
                    "runs_s": [round(x, 4) for x in runs[f"ray{k}"]],
                }
                for k in actors
            },
        }
        out["groups"] = _groups(runners["local"], runners["ray2"])
    finally:
        for r in runners.values():
            with contextlib.suppress(Exception):
                r.close()
        with contextlib.suppress(Exception):
            ray.shutdown()
    out["loadavg_after"] = loadavg()
    return out


def _groups(local: Any, rayr: Any) -> dict[str, Any]:
    from rewardloop import Sample
    from rewardloop.scorers._group import GroupRelative

    samples = [
        Sample(f"Answer: {(g + m) % 3}", "1", "math_dapo", uid=f"g{g}") for g in range(64) for m in range(8)
    ]
    scorer = GroupRelative("math_dapo", "center")
    a = local.run_sync(scorer, samples)
    b = rayr.run_sync(scorer, samples)
    return {
        "what": "GroupRelative(math_dapo, center), 64 groups x 8, local Runner vs RayRunner(num_actors=2)",
        "identical_rewards": list(a.values) == list(b.values),
        "nonzero_on_ray": sum(1 for v in b.values if v),
        "group_n_on_ray": sorted({s.metrics.get("group_n") for s in b}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["deadlines", "ray"], default=None)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--actors", default="1,2,4")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"versions": versions(), "cpu_count": os.cpu_count()}
    if OUT.exists():
        import json

        with contextlib.suppress(Exception):
            report.update({k: v for k, v in json.loads(OUT.read_text()).items() if k not in report})
    if args.only in (None, "deadlines"):
        log("deadlines")
        report["deadlines"] = section_deadlines()
        report["deadlines"]["measured_at"] = time.strftime("%Y-%m-%d %H:%M:%S")
    if args.only in (None, "ray"):
        data = data_dir()
        rows = mixed_workload(data)
        log(f"ray sections on {len(rows)} rows")
        report["ray"] = section_ray(rows, args.rounds, tuple(int(k) for k in args.actors.split(",")))
        report["ray"]["workload"] = (
            "mixed_workload" if data is not None else "fallback rows (no ../shared/data)"
        )
        report["ray"]["measured_at"] = time.strftime("%Y-%m-%d %H:%M:%S")
    write_json(report, OUT)
    log(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

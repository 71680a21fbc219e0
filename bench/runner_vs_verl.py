"""The execution engine (issue 3) side by side with verl 0.9.1's reward managers, on this machine's cores.

Sections (all in one run; verl runs under ``.venv-verl/bin/python`` through ``bench/_verl_reward.py``):

1. **mixed** -- 1,024 labelled responses over gsm8k / MATH / math_dapo / numina sources
   (``_runner_workload.mixed_workload``), tokenised by a locally trained BPE tokenizer and cut to 1,024
   tokens. Ours: ``Runner(workers=2)`` with one scorer per sample (``resolve_scorer(data_source)``, as the
   CLI does). verl: the legacy ``NaiveRewardManager`` on a ``DataProto``, the reward loop
   (``RewardLoopManager``, 2 ``RewardLoopWorker`` actors on a local Ray with 2 CPUs) and, in one process,
   the reward-loop ``NaiveRewardManager.run_single`` driven by ``asyncio.gather``. Ours and verl run in
   alternating rounds (each side warm, best round kept). Also ``RayRunner(num_actors=2, workers=1)``.
   Samples/s, ratios, and agreement of every side with the workload's labels.
2. **math_verify** -- our ``math_verify`` scorer through ``Runner(workers=2)`` vs verl's
   ``math_verify.compute_score`` (a 4-process spawn pool), called sequentially and from asyncio's
   default-size thread pool, on the same 1,024 responses, in alternating rounds (each side warm). Ours
   also with ``max_tasks_per_worker=None`` (workers never recycled).
3. **adversarial** -- deep nesting, power towers, 10 MB responses, regex bombs, for five scorer families
   (``_runner_workload.adversarial_inputs``). Ours, ``Runner(workers=2)`` with a ``--deadline`` per
   sample: the whole corpus as one batch (wall time vs the best possible packing of its work on 2
   workers), and one batch per input holding its five family variants (wall time vs the deadline).
   verl: each input in its own subprocess under a hard ``--cap`` (time, hang, crash, error per input).
4. **grpo** -- 128 prompts x 16 responses with repeated short answers: ``dedup=True`` vs ``False``.
5. **scaling** -- 1 vs 2 workers (never recycled) on prime_math and math_verify samples that need a
   worker (no ``quick()`` verdict); per-sample overhead of a no-op scorer, inline and in a process.

Writes ``bench/results/runner.json``; ``--tables`` prints the README tables from it. Nothing here is a
timed assertion. Needs ``.venv-verl`` (``bench/run_all.sh`` creates it); without it, or without
``../shared/data`` (then the workload falls back to ``examples/make_rollouts.py`` rows), it says so.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _common import (
    REPO,
    RESULTS,
    VERL_PYTHON,
    clear_scorer_caches,
    data_dir,
    read_jsonl,
    verl_available,
    versions,
    write_json,
    write_jsonl,
)
from _runner_workload import adversarial_inputs, grpo_workload, mixed_workload

VERL_SCRIPT = Path(__file__).resolve().parent / "_verl_reward.py"
OUT = RESULTS / "runner.json"
WORKERS = 2


# --------------------------------------------------------------------------- helpers


def log(msg: str) -> None:
    print(f"[runner_vs_verl {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run_verl(mode: str, inp: Path, out: Path, *extra: str, timeout: float = 3600) -> dict[str, Any]:
    cmd = [str(VERL_PYTHON), str(VERL_SCRIPT), "--mode", mode, "--input", str(inp), "--output", str(out)]
    proc = subprocess.run([*cmd, *extra], cwd=REPO, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(out.read_text())


def samples_of(rows: Sequence[dict[str, Any]], task: str | None = None, index_key: str = "id") -> list[Any]:
    from rewardloop import Sample

    return [
        Sample(
            response=r["response"],
            ground_truth=str(r["ground_truth"]) if task == "math_verify" else r["ground_truth"],
            task=task or r["data_source"],
            metadata={"index": r[index_key]},
        )
        for r in rows
    ]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def best_of(fn: Callable[[], Any], repeats: int) -> tuple[float, list[float], Any]:
    runs, out = [], None
    for _ in range(repeats):
        dt, out = timed(fn)
        runs.append(dt)
    return min(runs), runs, out


def rate(n: int, seconds: float | None) -> float | None:
    return round(n / seconds, 1) if seconds else None


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a and b else None


def agreement(rows: Sequence[dict[str, Any]], rewards: Sequence[float | None]) -> dict[str, Any]:
    """How often ``reward > 0`` matches the label, overall and per family (unlabelled rows skipped)."""
    per: dict[str, Counter] = defaultdict(Counter)
    misses: Counter[str] = Counter()
    for row, reward in zip(rows, rewards, strict=True):
        if row.get("label") is None:
            continue
        judged = reward is not None and not math.isnan(reward) and reward > 0
        cell = ("tp" if judged else "fn") if row["label"] else ("fp" if judged else "tn")
        for key in ("all", row["family"]):
            per[key][cell] += 1
        if cell in ("fn", "fp"):
            misses[f"{row['family']}/{row['kind']}"] += 1
    out: dict[str, Any] = {}
    for key, c in per.items():
        n = sum(c.values())
        out[key] = {"n": n, "agree": c["tp"] + c["tn"], "rate": round((c["tp"] + c["tn"]) / n, 4), **dict(c)}
    out["misses_by_kind"] = dict(sorted(misses.items()))
    return out


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def cpu_bound(
    scorers: Sequence[Any],
    samples: Sequence[Any],
    baseline_s: float | None,
    warm: Sequence[Any],
    warm_scorers: Sequence[Any],
) -> dict[str, Any]:
    """The scorers' own CPU time on this batch, in this process (warmed on ``warm``, other responses, with the
    data caches emptied after; one thread, ``thread_time``, so load from other jobs hardly counts), and what
    it implies for ``Runner(workers=2)``.

    ``parent_s``: ``quick()`` on every sample plus ``score()`` of inline scorers (the runner's event loop
    does this work). ``worker_s``: ``score()`` of the samples ``quick()`` leaves to a process scorer.
    On 2 cores no schedule beats ``bound_s = max(parent_s, worker_s / 2, (parent_s + worker_s) / 2)``,
    so ``baseline_s / bound_s`` is the highest ratio any runner could reach against ``baseline_s``.
    """
    from rewardloop.execution._attempt import QUICK_MAX_CHARS as _QUICK_MAX_CHARS

    def one_pass(scorers: Sequence[Any], samples: Sequence[Any]) -> tuple[float, float, int]:
        parent = worker = 0.0
        sent = 0
        for sc, s in zip(scorers, samples, strict=True):
            t0 = time.thread_time()
            verdict = sc.quick(s) if len(s.response) <= _QUICK_MAX_CHARS else None
            t1 = time.thread_time()
            parent += t1 - t0
            if verdict is not None:
                continue
            sc.score(s)
            spent = time.thread_time() - t1
            if sc.execution == "process":
                worker, sent = worker + spent, sent + 1
            else:
                parent += spent
        return parent, worker, sent

    one_pass(warm_scorers, warm)  # warm: imports, sympy's and ANTLR's set-up (as in a long-lived worker) ...
    clear_scorer_caches()  # ... but nothing learnt from these very responses
    parent, worker, sent = one_pass(scorers, samples)
    bound = max(parent, worker / WORKERS, (parent + worker) / WORKERS)
    return {
        "what": "the scorers' own CPU seconds on this batch, warmed on other responses with the data caches "
        "emptied, one thread (time.thread_time)",
        "parent_s": round(parent, 3),
        "worker_s": round(worker, 3),
        "samples_to_workers": sent,
        "worker_ms_per_sample": round(1000 * worker / sent, 2) if sent else None,
        f"bound_s_{WORKERS}_cores": round(bound, 3),
        "max_ratio_vs_baseline": ratio(baseline_s, bound),
    }


# --------------------------------------------------------------------------- 1. mixed batch


def section_mixed(
    rows: list[dict[str, Any]], prepared: Path, tok: Path, tmp: Path, args: argparse.Namespace
) -> dict:
    from rewardloop import Runner
    from rewardloop.scorers._registry import resolve_scorer

    n = len(rows)
    samples = samples_of(rows)
    scorers = [resolve_scorer(s.task) for s in samples]
    ours_runs: list[float] = []
    naive_runs: list[float] = []
    naive_decode: list[float] = []
    loop_runs: list[float] = []
    single_runs: list[float] = []
    loop_startup: list[float] = []
    loop_error = None
    ours_batch = naive = loop = None
    warm = samples_of(list(read_jsonl(warm_path(prepared))))
    warm_scorers = [resolve_scorer(s.task) for s in warm]
    for r in range(args.rounds):
        log(f"mixed round {r + 1}/{args.rounds}: ours")
        with Runner(workers=WORKERS) as runner:  # fresh workers, warmed on other responses
            runner.run_sync(warm_scorers, warm)
            clear_scorer_caches()
            dt, ours_batch = timed(lambda runner=runner: runner.run_sync(scorers, samples))
        ours_runs.append(dt)
        log(f"mixed round {r + 1}/{args.rounds}: verl NaiveRewardManager")
        naive = run_verl(
            "naive",
            prepared,
            tmp / "naive.json",
            "--tokenizer-dir",
            str(tok),
            "--repeats",
            "1",
            "--warm-input",
            str(warm_path(prepared)),
        )
        naive_runs.append(naive["best_s"])
        naive_decode.append(naive["decode_best_s"])
        log(f"mixed round {r + 1}/{args.rounds}: verl reward loop")
        loop = run_verl(
            "loop",
            prepared,
            tmp / "loop.json",
            "--tokenizer-dir",
            str(tok),
            "--repeats",
            "1",
            "--workers",
            str(WORKERS),
            "--cpus",
            str(WORKERS),
            "--warm-input",
            str(warm_path(prepared)),
        )
        if "best_s" in loop["ray_loop"]:
            loop_runs.append(loop["ray_loop"]["best_s"])
            loop_startup.append(loop["ray_loop"]["startup_s"])
        else:
            loop_error = loop["ray_loop"].get("error")
        single_runs.append(loop["run_single"]["best_s"])
    stats = dict(ours_batch.stats)
    ours_rewards = ours_batch.rewards()
    result: dict[str, Any] = {
        "n": n,
        "kinds": dict(Counter(r["kind"] for r in rows)),
        "families": dict(Counter(r["family"] for r in rows)),
        "ours": {
            "what": f"Runner(workers={WORKERS}), one scorer per sample (resolve_scorer)",
            "runs_s": ours_runs,
            "best_s": min(ours_runs),
            "samples_per_s": rate(n, min(ours_runs)),
            "status": stats["status"],
            "unique": stats["unique"],
            "agreement": agreement(rows, ours_rewards),
        },
        "verl_naive": {
            "what": "verl.workers.reward_manager.naive.NaiveRewardManager on a DataProto (decoding included)",
            "runs_s": naive_runs,
            "best_s": min(naive_runs),
            "samples_per_s": rate(n, min(naive_runs)),
            "decode_best_s": min(naive_decode),
            "agreement": agreement(rows, naive["rewards"]),
        },
        "verl_run_single": {
            "what": "reward-loop NaiveRewardManager.run_single for every row, asyncio.gather, one process",
            "runs_s": single_runs,
            "best_s": min(single_runs),
            "samples_per_s": rate(n, min(single_runs)),
            "agreement": agreement(rows, loop["run_single"]["rewards"]),
        },
    }
    if loop_runs:
        result["verl_reward_loop"] = {
            "what": f"RewardLoopManager.compute_rm_score, {WORKERS} RewardLoopWorker actors, ray.init(num_cpus={WORKERS})",
            "runs_s": loop_runs,
            "best_s": min(loop_runs),
            "samples_per_s": rate(n, min(loop_runs)),
            "startup_s": min(loop_startup),
            "agreement": agreement(rows, loop["ray_loop"]["rewards"]),
        }
    else:
        result["verl_reward_loop"] = {"error": loop_error}
    result["cpu_bound"] = cpu_bound(scorers, samples, result["verl_naive"]["best_s"], warm, warm_scorers)
    result["ours_ray"] = _ray_runner(rows, samples, scorers, args, warm, warm_scorers)
    verdicts = sum(
        ((a or 0) > 0) == ((b or 0) > 0) for a, b in zip(ours_rewards, naive["rewards"], strict=True)
    )
    result["ours_vs_verl_same_verdict"] = verdicts
    ours_sps = result["ours"]["samples_per_s"]
    result["ratios"] = {
        "ours_over_verl_naive": ratio(ours_sps, result["verl_naive"]["samples_per_s"]),
        "ours_over_verl_reward_loop": ratio(ours_sps, result["verl_reward_loop"].get("samples_per_s")),
        "ours_over_verl_run_single": ratio(ours_sps, result["verl_run_single"]["samples_per_s"]),
        "ours_ray_over_verl_reward_loop": ratio(
            result["ours_ray"].get("samples_per_s"), result["verl_reward_loop"].get("samples_per_s")
        ),
    }
    return result


def _ray_runner(
    rows: list[dict[str, Any]],
    samples: list[Any],
    scorers: list[Any],
    args: argparse.Namespace,
    warm: list[Any],
    warm_scorers: list[Any],
) -> dict:
    """``RayRunner(num_actors=2, workers=1)`` on the same batch; skipped with a note if unavailable."""
    try:
        import ray

        from rewardloop.execution._ray import RayRunner
    except Exception as exc:
        return {"skipped": f"RayRunner unavailable: {type(exc).__name__}: {exc}"}
    log("mixed: ours RayRunner")
    try:
        t0 = time.perf_counter()
        ray.init(num_cpus=WORKERS, include_dashboard=False, log_to_driver=False)
        runs, startup, batch = [], None, None
        for _ in range(args.rounds):  # fresh actors each round, warmed on other responses
            runner = RayRunner(num_actors=WORKERS, workers=1)
            try:
                runner.run_sync(warm_scorers, warm)
                startup = startup if startup is not None else time.perf_counter() - t0
                dt, batch = timed(lambda runner=runner: runner.run_sync(scorers, samples))
                runs.append(dt)
            finally:
                runner.close()
        best = min(runs)
    except Exception as exc:
        return {"skipped": f"RayRunner failed: {type(exc).__name__}: {str(exc)[:500]}"}
    finally:
        with contextlib.suppress(Exception):
            ray.shutdown()
    return {
        "what": f"RayRunner(num_actors={WORKERS}, workers=1), ray.init(num_cpus={WORKERS})",
        "runs_s": runs,
        "best_s": best,
        "samples_per_s": rate(len(samples), best),
        "startup_s": startup,
        "status": batch.stats["status"],
        "agreement": agreement(rows, batch.rewards()),
    }


# --------------------------------------------------------------------------- 2. math_verify


def section_math_verify(
    rows: list[dict[str, Any]], prepared: Path, tmp: Path, args: argparse.Namespace
) -> dict:
    from rewardloop import Runner, get_scorer

    n = len(rows)
    samples = samples_of(rows, task="math_verify")
    scorer = get_scorer("math_verify")
    runs: list[float] = []
    runs_nr: list[float] = []
    verl_runs: dict[str, list[float]] = {"sequential": [], "threaded": []}
    verl: dict[str, Any] = {}
    warm = samples_of(list(read_jsonl(warm_path(prepared))), task="math_verify")
    recycled = 0
    for r in range(args.rounds):  # in turn with verl, so that load from elsewhere hits both alike
        log(f"math_verify round {r + 1}/{args.rounds}: ours (default, then recycled every 500 tasks)")
        for options, out in (({}, runs), ({"max_tasks_per_worker": 500}, runs_nr)):
            with Runner(workers=WORKERS, **options) as runner:  # fresh, warmed on other responses
                runner.run_sync(scorer, warm)
                clear_scorer_caches()
                dt, got = timed(lambda runner=runner: runner.run_sync(scorer, samples))
                if options:
                    batch_nr = got
                else:
                    batch, recycled = got, recycled + runner.pool_stats().recycled
            out.append(dt)
        log(f"math_verify round {r + 1}/{args.rounds}: verl")
        verl = run_verl(
            "math_verify",
            prepared,
            tmp / "mv.json",
            "--repeats",
            "1",
            "--warm-input",
            str(warm_path(prepared)),
        )
        for key in verl_runs:
            verl_runs[key].append(verl[key]["best_s"])
    best, best_nr = min(runs), min(runs_nr)
    quick = sum(scorer.quick(s) is not None for s in samples)
    result = {
        "n": n,
        "ours": {
            "what": f"math_verify scorer, Runner(workers={WORKERS})",
            "runs_s": runs,
            "best_s": best,
            "samples_per_s": rate(n, best),
            "status": batch.stats["status"],
            "decided_by_quick": quick,
            "workers_recycled": recycled,
            "agreement": agreement(rows, batch.rewards()),
        },
        "ours_recycle_500": {
            "what": f"math_verify scorer, Runner(workers={WORKERS}, max_tasks_per_worker=500) (the old default)",
            "runs_s": runs_nr,
            "best_s": best_nr,
            "samples_per_s": rate(n, best_nr),
            "status": batch_nr.stats["status"],
            "agreement": agreement(rows, batch_nr.rewards()),
        },
    }
    for key in ("sequential", "threaded"):
        v = verl[key]
        result[f"verl_{key}"] = {
            "what": "verl math_verify.compute_score (4-process spawn pool), "
            + ("called in a loop" if key == "sequential" else f"from {verl['threads']} threads"),
            "runs_s": verl_runs[key],
            "best_s": min(verl_runs[key]),
            "samples_per_s": rate(n, min(verl_runs[key])),
            "agreement": agreement(rows, v["rewards"]),
        }
    sps = result["ours"]["samples_per_s"]
    result["ratios"] = {
        "ours_over_verl_sequential": ratio(sps, result["verl_sequential"]["samples_per_s"]),
        "ours_over_verl_threaded": ratio(sps, result["verl_threaded"]["samples_per_s"]),
        "ours_recycle_500_over_verl_sequential": ratio(
            result["ours_recycle_500"]["samples_per_s"], result["verl_sequential"]["samples_per_s"]
        ),
    }
    result["cpu_bound"] = cpu_bound(
        [scorer] * n, samples, result["verl_sequential"]["best_s"], warm, [scorer] * len(warm)
    )
    return result


# --------------------------------------------------------------------------- 3. adversarial


def section_adversarial(tmp: Path, args: argparse.Namespace) -> dict:
    from rewardloop import Runner, get_scorer

    rows = adversarial_inputs()
    result: dict[str, Any] = {
        "n": len(rows),
        "deadline_s": args.deadline,
        "inputs": sorted({r["name"] for r in rows}),
        "families": {r["family"]: r["data_source"] for r in rows},
        "ours": {},
    }
    samples = samples_of(rows, index_key="id")
    scorers = [_adv_scorer(r) for r in rows]
    with Runner(workers=WORKERS, timeout_s=args.deadline, slow_sample_s=None) as runner:
        _warm_pool(runner, get_scorer("math_verify"), WORKERS)
        log(f"adversarial: ours, all {len(rows)} inputs in one batch")
        wall, batch = timed(lambda: runner.run_sync(scorers, samples))
        result["ours"]["one_batch"] = _adv_batch_report(rows, batch, wall, args.deadline, scorers)
        per_input: list[dict[str, Any]] = []
        walls: dict[str, float] = {}
        for name in dict.fromkeys(r["name"] for r in rows):
            idx = [i for i, r in enumerate(rows) if r["name"] == name]
            log(f"adversarial: ours, batch of the {len(idx)} families' {name}")
            wall, small = timed(lambda: runner.run_sync([scorers[i] for i in idx], [samples[i] for i in idx]))  # noqa: B023
            walls[name] = round(wall, 3)
            per_input += _adv_batch_report([rows[i] for i in idx], small, wall, args.deadline, None)[
                "per_input"
            ]
        worst = max(walls, key=walls.__getitem__)
        result["ours"]["per_input_batches"] = {
            "what": "one batch per input: its gsm8k, math, dapo, numina and math_verify variants (2 process samples)",
            "wall_s": walls,
            "max_wall_s": walls[worst],
            "max_wall_input": worst,
            "max_over_deadline_s": round(walls[worst] - args.deadline, 3),
            "per_input": per_input,
        }
        result["ours"]["pool"] = repr(runner.pool_stats())
    if args.skip_verl_adversarial:
        result["verl"] = {"skipped": "--skip-verl-adversarial"}
        return result
    verl_rows = []
    for i, row in enumerate(rows):
        log(f"adversarial: verl {i + 1}/{len(rows)} {row['family']}/{row['name']}")
        verl_rows.append({"family": row["family"], "name": row["name"], **verl_one(row, tmp, args.cap)})
    result["verl"] = {
        "cap_s": args.cap,
        "per_input": verl_rows,
        "outcomes": dict(Counter(v["outcome"] for v in verl_rows)),
    }
    return result


def _adv_batch_report(
    rows: list[dict[str, Any]], batch: Any, wall: float, deadline: float, scorers: list[Any] | None
) -> dict[str, Any]:
    """Statuses and latencies of one adversarial batch; with ``scorers``, the makespan bound too.

    The bound is what ``WORKERS`` perfectly packed workers need: the execution time of every process
    sample that finished, plus one deadline per timeout, divided by the workers (inline work runs in
    the caller and is not counted). A timeout's ``exec_s`` includes its wait for a worker, so it is not
    used.
    """
    timeouts = batch.stats["status"]["timeout"]
    out: dict[str, Any] = {"wall_s": round(wall, 2), "status": batch.stats["status"], "timeouts": timeouts}
    if scorers is not None:
        done = sum(
            e
            for sc, s, e in zip(scorers, batch, batch.exec_s, strict=True)
            if sc.execution == "process" and s.status.value != "timeout"
        )
        bound = max(deadline if timeouts else 0.0, (done + timeouts * deadline) / WORKERS)
        out.update(workers=WORKERS, process_work_s=round(done, 2), makespan_bound_s=round(bound, 2))
        out["over_bound_s"] = round(wall - bound, 2)
    out["per_input"] = [
        {
            "family": r["family"],
            "name": r["name"],
            "status": s.status.value,
            "value": s.value,
            "exec_s": round(e, 3),
            "latency_s": round(q + e, 3),
        }
        for r, s, q, e in zip(rows, batch, batch.queue_s, batch.exec_s, strict=True)
    ]
    return out


def _adv_scorer(row: dict[str, Any]) -> Any:
    from rewardloop import get_scorer
    from rewardloop.scorers._registry import resolve_scorer

    return (
        get_scorer("math_verify")
        if row["data_source"] == "math_verify"
        else resolve_scorer(row["data_source"])
    )


def _warm_pool(runner: Any, scorer: Any, workers: int) -> None:
    """Start every worker and import math-verify in each: samples with no box (quick() cannot decide)."""
    from rewardloop import Sample

    warm = [
        Sample(response=f"so x = {k}/{k + 1}", ground_truth=f"{k}/{k + 1}", task="math_verify")
        for k in range(2 * workers)
    ]
    runner.run_sync(scorer, warm)


def _limit_child() -> None:
    os.setsid()
    with contextlib.suppress(ValueError, OSError):
        limit = 8 << 30
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def verl_one(row: dict[str, Any], tmp: Path, cap: float, import_cap: float = 300.0) -> dict[str, Any]:
    """Score one adversarial row with verl in a fresh subprocess; kill it ``cap`` s after it is ready.

    Outcomes: ``ok`` / ``error`` (verl returned / raised), ``hang`` (no answer within ``cap``), ``crash``
    (the process died without answering), ``startup_failure``. ``exit`` says whether the process then
    exited by itself (a busy pool worker can keep it alive after it answered).
    """
    d = tmp / f"adv_{row['id']}"
    d.mkdir()
    inp = d / "row.json"
    inp.write_text(json.dumps(row))
    cmd = [str(VERL_PYTHON), str(VERL_SCRIPT), "--mode", "one", "--input", str(inp), "--status-dir", str(d)]
    with open(d / "stderr.txt", "wb") as err:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=_limit_child)
    ready_file, result_file = d / "ready", d / "result.json"
    grace = min(10.0, cap)
    t0 = time.monotonic()
    t_ready = t_result = t_exit = None
    reaped = None
    while True:
        reaped = _reap(proc)
        now = time.monotonic()
        if t_ready is None and ready_file.exists():
            t_ready = now
        if t_result is None and result_file.exists():
            t_result = now
        if reaped is not None:
            t_exit = now
            break
        if t_ready is None and now - t0 > import_cap:
            break
        if t_ready is not None and t_result is None and now - t_ready > cap:
            break
        if t_result is not None and now - t_result > grace:
            break
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the process, or what it left behind
    if reaped is None:
        reaped = _reap(proc, block=True)
    code, maxrss_mb = reaped
    out: dict[str, Any] = {"maxrss_mb": maxrss_mb}
    if result_file.exists():
        res = json.loads(result_file.read_text())
        out.update(outcome="error" if res["error"] else "ok", value=res["value"], error=res["error"])
        out["call_s"] = round(res["call_s"], 3)
        if t_exit is None:
            out["exit"] = f"did not exit within {grace:g} s of answering (killed)"
        else:
            out["exit"] = "clean" if code == 0 else _describe_exit(code)
    elif not ready_file.exists():
        out.update(outcome="startup_failure", exit=_describe_exit(code) if t_exit else "killed")
    elif t_exit is not None:
        out.update(outcome="crash", exit=_describe_exit(code), call_s=round(t_exit - (t_ready or t0), 3))
        tail = (d / "stderr.txt").read_text(errors="replace").strip().splitlines()[-3:]
        out["stderr_tail"] = " | ".join(tail)[-500:]
    else:
        out.update(outcome="hang", exit=f"killed after {cap:g} s", call_s=None)
    return out


def _reap(proc: subprocess.Popen, block: bool = False) -> tuple[int, float] | None:
    """``(exit code (negative: signal), max RSS in MB)`` once ``proc`` exited, else None."""
    pid, status, usage = os.wait4(proc.pid, 0 if block else os.WNOHANG)
    if pid == 0:
        return None
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    return code, round(usage.ru_maxrss / 1024, 1)


def _describe_exit(status: int) -> str:
    if status < 0:
        return f"signal {signal.Signals(-status).name}"
    return f"exit code {status}"


# --------------------------------------------------------------------------- 4. GRPO de-duplication


def section_grpo(rows: list[dict[str, Any]], args: argparse.Namespace) -> dict:
    from rewardloop import Runner, get_scorer
    from rewardloop.scorers._registry import resolve_scorer

    n = len(rows)
    result: dict[str, Any] = {
        "n": n,
        "prompts": args.grpo_prompts,
        "group": 16,
        "distinct_responses": len({(r["prompt_index"], r["response"]) for r in rows}),
    }
    for label, task in (("prime_math", None), ("math_verify", "math_verify")):
        samples = samples_of(rows, task=task, index_key="prompt_index")
        scorer = get_scorer("math_verify") if task else resolve_scorer(rows[0]["data_source"])
        with Runner(workers=WORKERS, dedup=True) as on, Runner(workers=WORKERS, dedup=False) as off:
            on.run_sync(scorer, samples)
            off.run_sync(scorer, samples)
            on_runs, off_runs = [], []
            batch_on = batch_off = None
            for _ in range(args.repeats):
                log(f"grpo {label}: dedup on / off")
                dt, batch_on = timed(lambda: on.run_sync(scorer, samples))  # noqa: B023
                on_runs.append(dt)
                dt, batch_off = timed(lambda: off.run_sync(scorer, samples))  # noqa: B023
                off_runs.append(dt)
        same = sum(a == b for a, b in zip(batch_on.rewards(), batch_off.rewards(), strict=True))
        firsts = {d.info.get("dedup_of") for d in batch_on if "dedup_of" in d.info}
        copies = [i for i, d in enumerate(batch_on) if "dedup_of" in d.info and i not in firsts]
        need_worker = sum(scorer.quick(samples[i]) is None for i in copies)
        result[label] = {
            "dedup_on": {
                "runs_s": on_runs,
                "best_s": min(on_runs),
                "samples_per_s": rate(n, min(on_runs)),
                "unique": batch_on.stats["unique"],
                "executed": batch_on.stats["executed"],
            },
            "dedup_off": {
                "runs_s": off_runs,
                "best_s": min(off_runs),
                "samples_per_s": rate(n, min(off_runs)),
                "executed": batch_off.stats["executed"],
            },
            "speedup": ratio(min(off_runs), min(on_runs)),
            "copies": len(copies),
            "copies_needing_a_worker": need_worker,
            "same_rewards": same,
            "agreement": agreement(rows, batch_on.rewards()),
        }
    return result


# --------------------------------------------------------------------------- 5. scaling and overhead


def section_scaling(
    rows: list[dict[str, Any]], extra: list[dict[str, Any]], args: argparse.Namespace
) -> dict:
    """1 vs 2 workers on heavy samples, and the no-op overhead.

    Every timed pass gets samples the runner has never seen (disjoint sets; a separate set warms the
    workers up): scorers keep per-process caches (sympy's, parsed ground truths), so repeating one set
    would favour a single worker that has already seen every sample.
    """
    from _bench_scorers import BusyScorer, NoopProcessScorer, NoopScorer
    from rewardloop import Sample, get_scorer
    from rewardloop.scorers._registry import resolve_scorer

    result: dict[str, Any] = {"machine": _machine_scaling(args.repeats)}
    busy = [Sample(response=f"busy {i}", ground_truth="1", task="busy") for i in range(200)]
    result["busy"] = _scale(BusyScorer(), [busy[:20]] + [busy] * args.repeats, "busy (pure-Python CPU)")
    heavy = (
        ("prime_math", resolve_scorer("numina_olympiads"), "numina_olympiads"),
        ("math_verify", get_scorer("math_verify"), "math_verify"),
    )
    for label, scorer, task in heavy:
        pool, seen = [], set()
        for s in samples_of([*rows, *extra], task=task):
            key = (s.response, s.ground_truth)
            if key not in seen and scorer.quick(s) is None:
                seen.add(key)
                pool.append(s)
        n = min(args.scaling_n, len(pool) // (args.repeats + 1))
        sets = [pool[i * n : (i + 1) * n] for i in range(args.repeats + 1)]
        result[label] = _scale(scorer, sets, label)
    noop = [Sample(response=f"response {i}", ground_truth="1", task="noop") for i in range(args.noop_n)]
    inline = _scale(NoopScorer(), [noop] * (args.repeats + 1), "noop inline", workers=(1,))
    result["noop_inline"] = {
        "n": len(noop),
        "us_per_sample": _us(inline["workers_1"]["best_s"], len(noop)),
        "samples_per_s": inline["workers_1"]["samples_per_s"],
    }
    small = noop[: args.noop_n // 5]
    proc = _scale(NoopProcessScorer(), [small] * (args.repeats + 1), "noop process")
    result["noop_process"] = {
        "n": len(small),
        **{
            f"workers_{w}": {
                "us_per_sample": _us(proc[f"workers_{w}"]["best_s"], len(small)),
                "samples_per_s": proc[f"workers_{w}"]["samples_per_s"],
            }
            for w in (1, 2)
        },
    }
    return result


def _machine_scaling(repeats: int, iterations: int = 3_000_000) -> dict[str, Any]:
    """The ceiling: one CPU-bound Python process vs two at once (twice the work), best of ``repeats``."""
    code = f"acc = 0\nfor i in range({iterations}):\n    acc = (acc * 31 + i) % 1000003\n"

    def run(k: int) -> float:
        t0 = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(k)]
        for p in procs:
            p.wait()
        return time.perf_counter() - t0

    log("scaling: bare machine, 1 vs 2 processes")
    ones, twos = [], []
    for _ in range(repeats):  # in turn, so that load from elsewhere hits both alike
        ones.append(run(1))
        twos.append(run(2))
    one, two = min(ones), min(twos)
    speedup = 2 * one / two
    return {
        "one_process_s": round(one, 3),
        "two_processes_s": round(two, 3),
        "speedup_1_to_2": round(speedup, 2),
        "parallel_efficiency": round(speedup / 2, 2),
    }


def _us(seconds: float, n: int) -> float:
    return round(seconds / n * 1e6, 1)


def _scale(scorer: Any, sets: list[list[Any]], label: str, workers: Sequence[int] = (1, 2)) -> dict:
    """``sets[0]`` warms the runners up; each later set is one timed pass per worker count, taken in turn
    (1 worker, 2 workers, 1 worker, ...) so that load from elsewhere hits both alike; best pass kept."""
    from rewardloop import Runner

    n = len(sets[1])
    out: dict[str, Any] = {"n": n, "passes": len(sets) - 1}
    runs: dict[int, list[float]] = {w: [] for w in workers}
    last: dict[int, Any] = {}
    with contextlib.ExitStack() as stack:
        # no recycling: a recycled worker re-imports sympy / math-verify, which is not what this measures
        runners = {w: stack.enter_context(Runner(workers=w, max_tasks_per_worker=None)) for w in workers}
        for runner in runners.values():
            runner.run_sync(scorer, sets[0])
        log(f"scaling {label}: workers {'/'.join(map(str, workers))}")
        for samples in sets[1:]:
            for w, runner in runners.items():
                dt, last[w] = timed(lambda: runner.run_sync(scorer, samples))  # noqa: B023 -- called at once
                runs[w].append(dt)
    for w in workers:
        out[f"workers_{w}"] = {
            "runs_s": runs[w],
            "best_s": min(runs[w]),
            "samples_per_s": rate(n, min(runs[w])),
            "status": last[w].stats["status"],
        }
    if len(workers) == 2:
        speedup = out["workers_1"]["best_s"] / out["workers_2"]["best_s"]
        out["speedup_1_to_2"] = round(speedup, 2)
        out["parallel_efficiency"] = round(speedup / 2, 2)
    return out


# --------------------------------------------------------------------------- tables


def _f(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "–"
    return f"{x:,.{digits}f}" if abs(x) < 100 or digits == 0 else f"{x:,.0f}"


def _pct(a: dict[str, Any] | None, key: str = "all") -> str:
    if not a or key not in a:
        return "–"
    return f"{100 * a[key]['rate']:.1f}%"


def tables(report: dict[str, Any]) -> str:
    lines: list[str] = []
    m = report.get("mixed")
    if m:
        lines += [
            "| mixed batch (1,024 responses) | best s | samples/s | ours ÷ it | label agreement |",
            "|---|---:|---:|---:|---:|",
        ]
        ours = m["ours"]["samples_per_s"]
        for key, name in (
            ("ours", "**ours** `Runner(workers=2)`"),
            ("ours_ray", "**ours** `RayRunner(2 actors × 1 worker)`"),
            ("verl_naive", "verl `NaiveRewardManager` (legacy)"),
            ("verl_reward_loop", "verl `RewardLoopManager` (2 workers)"),
            ("verl_run_single", "verl reward-loop `run_single` + asyncio"),
        ):
            v = m.get(key) or {}
            if "best_s" not in v:
                lines.append(f"| {name} | – | – | – | {v.get('skipped') or v.get('error') or 'n/a'} |")
                continue
            r = "" if key.startswith("ours") else _f(ratio(ours, v["samples_per_s"]), 2) + "×"
            lines.append(
                f"| {name} | {v['best_s']:.2f} | {_f(v['samples_per_s'], 0)} | {r} | {_pct(v.get('agreement'))} |"
            )
        lines.append("")
        lines += ["| family | n | ours agree | verl naive agree |", "|---|---:|---:|---:|"]
        for fam in ("gsm8k", "math", "dapo", "numina"):
            a = m["ours"]["agreement"].get(fam)
            if a:
                lines.append(
                    f"| {fam} | {a['n']} | {_pct(m['ours']['agreement'], fam)} | {_pct(m['verl_naive']['agreement'], fam)} |"
                )
        lines.append("")
        lines += _bound_line(m, "`NaiveRewardManager`")
    mv = report.get("math_verify")
    if mv:
        lines += [
            "| Math-Verify (1,024 responses) | best s | samples/s | ours ÷ it | label agreement |",
            "|---|---:|---:|---:|---:|",
        ]
        ours = mv["ours"]["samples_per_s"]
        for key, name in (
            ("ours", "**ours** `math_verify` scorer, `Runner(workers=2)`"),
            ("ours_recycle_500", "**ours**, same with `max_tasks_per_worker=500` (old default)"),
            ("verl_sequential", "verl `math_verify.compute_score`, loop"),
            ("verl_threaded", "verl `math_verify.compute_score`, 6 threads"),
        ):
            v = mv.get(key)
            if not v:
                continue
            r = "" if key.startswith("ours") else _f(ratio(ours, v["samples_per_s"]), 2) + "×"
            lines.append(
                f"| {name} | {v['best_s']:.2f} | {_f(v['samples_per_s'], 0)} | {r} | {_pct(v['agreement'])} |"
            )
        lines.append("")
        lines += _bound_line(mv, "verl's loop")
    adv = report.get("adversarial")
    if adv:
        one, per = adv["ours"]["one_batch"], adv["ours"]["per_input_batches"]
        lines += [
            "| adversarial, ours (`Runner(workers=2)`, deadline "
            f"{adv['deadline_s']:g} s) | samples | wall s | timeouts | bound s | wall − bound |",
            "|---|---:|---:|---:|---:|---:|",
            f"| whole corpus in one batch | {adv['n']} | {one['wall_s']:.2f} | {one['timeouts']} | "
            f"{one['makespan_bound_s']:.2f} | {one['over_bound_s']:+.2f} |",
            f"| one batch per input (5 families each), slowest: `{per['max_wall_input']}` | 5 | "
            f"{per['max_wall_s']:.2f} | – | {adv['deadline_s']:g} (deadline) | {per['max_over_deadline_s']:+.2f} |",
            "",
        ]
        lines += _adversarial_matrix(adv)
    g = report.get("grpo")
    if g:
        lines += [
            f"| GRPO batch ({g['prompts']} × {g['group']}, {g['distinct_responses']} distinct responses) | unique scored | dedup on s | dedup off s | speed-up |",
            "|---|---:|---:|---:|---:|",
        ]
        for key in ("prime_math", "math_verify"):
            v = g[key]
            lines.append(
                f"| {key} | {v['dedup_on']['unique']} | {v['dedup_on']['best_s']:.2f} | {v['dedup_off']['best_s']:.2f} | {v['speedup']:.2f}× |"
            )
        lines.append("")
    s = report.get("scaling")
    if s:
        lines += [
            "| scaling | n | 1 worker samples/s | 2 workers samples/s | speed-up | parallel efficiency |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        mach = s.get("machine")
        if mach:
            lines.append(
                f"| bare machine: 1 vs 2 Python processes (ceiling) | – | – | – | {mach['speedup_1_to_2']:.2f}× | "
                f"{100 * mach['parallel_efficiency']:.0f}% |"
            )
        for key in ("busy", "prime_math", "math_verify"):
            v = s.get(key)
            if not v:
                continue
            lines.append(
                f"| {key} | {v['n']} | {_f(v['workers_1']['samples_per_s'], 0)} | {_f(v['workers_2']['samples_per_s'], 0)} | "
                f"{v['speedup_1_to_2']:.2f}× | {100 * v['parallel_efficiency']:.0f}% |"
            )
        ni, npr = s["noop_inline"], s["noop_process"]
        lines += [
            "",
            "| no-op scorer | n | µs per sample | samples/s |",
            "|---|---:|---:|---:|",
            f"| inline | {ni['n']} | {ni['us_per_sample']:.0f} | {_f(ni['samples_per_s'], 0)} |",
        ]
        for w in (1, 2):
            v = npr[f"workers_{w}"]
            lines.append(
                f"| process, {w} worker{'s' if w > 1 else ''} | {npr['n']} | {v['us_per_sample']:.0f} | {_f(v['samples_per_s'], 0)} |"
            )
        lines.append("")
    return "\n".join(lines)


def _bound_line(section: dict[str, Any], baseline: str) -> list[str]:
    b = section.get("cpu_bound")
    if not b:
        return []
    return [
        f"CPU bound (the scorers' own work, cold for these responses, one thread): {b['parent_s']:.2f} s in the runner's loop "
        f"(`quick()` + inline scorers) + {b['worker_s']:.2f} s in workers ({b['samples_to_workers']} samples, "
        f"{_f(b['worker_ms_per_sample'], 2)} ms each); no schedule on {WORKERS} cores beats "
        f"{b[f'bound_s_{WORKERS}_cores']:.2f} s, i.e. at most {_f(b['max_ratio_vs_baseline'], 2)}× vs {baseline}.",
        "",
    ]


def _short(status: str, value: float | None) -> str:
    return f"{value:g}" if status == "ok" and value is not None else f"**{status}**"


def _adversarial_matrix(adv: dict[str, Any]) -> list[str]:
    """Per input and family: ours (status, latency) and verl (outcome, time)."""
    fams = list(adv["families"])
    ours_rows = adv["ours"]["per_input_batches"]["per_input"]
    ours = {(r["family"], r["name"]): r for r in ours_rows}
    verl = {(r["family"], r["name"]): r for r in adv.get("verl", {}).get("per_input", [])}
    names = list(dict.fromkeys(r["name"] for r in ours_rows))
    lines = [
        "| input | " + " | ".join(f"{f}: ours / verl" for f in fams) + " |",
        "|---|" + "---|" * len(fams),
    ]
    for name in names:
        cells = []
        for fam in fams:
            o, v = ours.get((fam, name)), verl.get((fam, name))
            oc = f"{_short(o['status'], o['value'])} {o['latency_s']:.1f}s" if o else "–"
            if not v:
                vc = "–"
            elif v["outcome"] == "hang":
                vc = f"**hang** (>{adv['verl']['cap_s']:g}s)"
            elif v["outcome"] == "crash":
                vc = f"**crash** ({v['exit']})"
            elif v["outcome"] == "error":
                vc = f"error {v['call_s']:.1f}s"
            else:
                vc = f"{_short('ok', v['value'])} {v['call_s']:.1f}s" + (
                    " **+exit hang**" if "did not exit" in v.get("exit", "") else ""
                )
            cells.append(f"{oc} / {vc}")
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


# --------------------------------------------------------------------------- main


SECTIONS = ("mixed", "math_verify", "adversarial", "grpo", "scaling")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {SECTIONS}"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternating ours/verl rounds of the mixed batch"
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed passes elsewhere (best kept)")
    parser.add_argument(
        "--deadline", type=float, default=5.0, help="per-sample deadline of the adversarial batch"
    )
    parser.add_argument("--cap", type=float, default=60.0, help="hard limit on one verl call (adversarial)")
    parser.add_argument("--skip-verl-adversarial", action="store_true")
    parser.add_argument("--grpo-prompts", type=int, default=128)
    parser.add_argument("--scaling-n", type=int, default=512)
    parser.add_argument("--noop-n", type=int, default=10000)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--tables", action="store_true", help="print the README tables from --out and exit")
    args = parser.parse_args(argv)
    if args.tables:
        print(tables(json.loads(args.out.read_text())))
        return 0
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}; allowed: {', '.join(SECTIONS)}")

    data = data_dir()
    if data is None:
        print(
            "runner_vs_verl: ../shared/data not found; the workload falls back to examples/make_rollouts.py rows"
        )
    if not verl_available():
        print(
            f"runner_vs_verl: verl not importable with {VERL_PYTHON}; run bench/run_all.sh to create .venv-verl."
        )
        return 0

    report: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    report.update(
        {
            "versions": versions(),
            "machine": {
                "cpus": os.cpu_count(),
                "usable_cpus": len(os.sched_getaffinity(0)),
                "loadavg_start": loadavg(),
            },
            "workload": {"shared_data": data is not None, "seed": args.seed},
        }
    )
    with tempfile.TemporaryDirectory(prefix="rewardloop-runner-bench-") as tmp_name:
        tmp = Path(tmp_name)
        rows = prepare(data, tmp, args, report)
        prepared, tok = tmp / "prepared.jsonl", tmp / "tokenizer"
        grpo_rows = grpo_workload(data, prompts=args.grpo_prompts, group=16, seed=args.seed)
        runs: dict[str, Callable[[], dict[str, Any]]] = {
            "mixed": lambda: section_mixed(rows, prepared, tok, tmp, args),
            "math_verify": lambda: section_math_verify(rows, prepared, tmp, args),
            "grpo": lambda: section_grpo(grpo_rows, args),
            "scaling": lambda: section_scaling(rows, grpo_rows, args),
            "adversarial": lambda: section_adversarial(tmp, args),
        }
        for name in SECTIONS:
            if name in sections:
                before = loadavg()
                report[name] = runs[name]()
                report[name]["loadavg_before_after"] = [before, loadavg()]  # other jobs share the cores
                report[name]["measured_at"] = time.strftime("%Y-%m-%d %H:%M:%S")
    report["machine"]["loadavg_end"] = loadavg()
    write_json(report, args.out)
    print(tables(report))
    return 0


def warm_path(prepared: Path) -> Path:
    """The warm-up workload written next to ``prepared`` (see :func:`prepare`)."""
    return prepared.with_name("warm.jsonl")


def prepare(
    data: Path | None, tmp: Path, args: argparse.Namespace, report: dict[str, Any]
) -> list[dict[str, Any]]:
    """Build the workload, tokenise it in verl's venv, and return the canonical (decoded) rows."""
    rows = mixed_workload(data, seed=args.seed)
    # a second workload (another seed), less every row whose ground truth the timed batch also has, that every
    # timed side is warmed on: no side's caches already hold a response or a ground truth it is timed on
    # (in training every step brings new responses, and a problem comes back only with the next epoch)
    timed = {str(r["ground_truth"]) for r in rows}
    warm_rows = [r for r in mixed_workload(data, seed=args.seed + 1) if str(r["ground_truth"]) not in timed]
    raw, prepared, tok = tmp / "rows.jsonl", tmp / "prepared.jsonl", tmp / "tokenizer"
    write_jsonl([*rows, *warm_rows], raw)
    log(f"workload: {len(rows)} responses; training the tokenizer and tokenising in .venv-verl")
    subprocess.run(
        [
            str(VERL_PYTHON),
            str(VERL_SCRIPT),
            "--mode",
            "prepare",
            "--input",
            str(raw),
            "--output",
            str(prepared),
            "--tokenizer-dir",
            str(tok),
        ],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    meta = json.loads(Path(str(prepared) + ".meta.json").read_text())
    both = list(read_jsonl(prepared))
    rows, warm_rows = both[: len(rows)], both[len(rows) :]
    write_jsonl(warm_rows, warm_path(prepared))
    for row in rows:
        if row.get("cut") and row["kind"] != "truncated":
            row["kind"], row["label"] = f"{row['kind']}_cut", 0  # its final answer fell past 1,024 tokens
    write_jsonl(rows, prepared)
    chars = [len(r["response"]) for r in rows]
    report["workload"].update(
        {
            "n": len(rows),
            "tokenizer": meta,
            "response_chars_max": max(chars),
            "response_chars_mean": round(sum(chars) / len(chars), 1),
            "long_chain_chars_mean": round(
                sum(len(r["response"]) for r in rows if r["kind"].startswith(("long", "truncated")))
                / max(1, sum(r["kind"].startswith(("long", "truncated")) for r in rows)),
                1,
            ),
        }
    )
    return rows


if __name__ == "__main__":
    raise SystemExit(main())

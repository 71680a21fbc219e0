"""Load test of the reward service (``rewardloop serve``) from a second process on loopback.

For each scenario the benchmark keeps ``--concurrency`` requests in flight for ``--duration`` seconds
(default 20; 60 for the issue's longer run) and reports sustained requests/s and samples/s, latency
p50/p99, HTTP errors, 429s, and the two correctness counters that must stay at zero: results **lost**
(a response with fewer or more scores than samples, or a failed request) and results **mis-ordered**
(a score that does not belong to the sample at its position: every sample has a random expected reward
and a unique number the scorer echoes back in ``info``).

Scenarios:

* ``gsm8k`` -- cheap inline scorer, ``/v1/score`` batches of ``--batch`` samples;
* ``gsm8k_openrlhf`` -- the same scorer through ``/get_reward`` one query per request, as OpenRLHF >= 0.10
  calls a remote reward (per sample, right after generation);
* ``math_verify`` -- CPU-heavy scorer in the runner's worker processes (sympy equivalence of fractions),
  ``/v1/score`` batches of ``--heavy-batch``.

Baseline, measured in the same run: the same batches scored in this process by a ``RewardManager``
(no HTTP) for half the duration; ``ratio`` is the service's samples/s over it (what HTTP, JSON and
admission cost). The server runs with ``--server-workers`` uvicorn workers and ``--workers`` scorer
processes. Writes ``bench/results/server_load.json`` and prints a markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import RESULTS, versions, write_json

GSM8K = "openai/gsm8k"
MATH_VERIFY = "math_verify"


# --------------------------------------------------------------------------------------------------
# samples with known answers


def gsm8k_item(rng: random.Random) -> tuple[dict[str, Any], float, str]:
    """(sample, expected value, echo): the scorer reports the extracted number in ``info.extracted``."""
    k = rng.randrange(10**6, 10**7)
    right = rng.random() < 0.5
    sample = {"response": f"Adding up the parts gives #### {k}", "ground_truth": str(k if right else k + 1)}
    return {**sample, "task": GSM8K}, 1.0 if right else 0.0, str(k)


def math_item(rng: random.Random) -> tuple[dict[str, Any], float, str]:
    """A fraction to compare symbolically; math_verify echoes the prediction in ``info.pred``."""
    k = rng.randrange(100, 10**5)
    right = rng.random() < 0.5
    truth = f"\\frac{{{2 * k}}}{{{2 * k + 2}}}" if right else f"\\frac{{{k}}}{{{k + 2}}}"
    sample = {"response": f"So the answer is $\\boxed{{\\frac{{{k}}}{{{k + 1}}}}}$.", "ground_truth": truth}
    return {**sample, "task": MATH_VERIFY}, 1.0 if right else 0.0, f"{{{k}}}"


def check(score: dict[str, Any], expected: float, echo: str) -> bool:
    """The score belongs to its sample: the right value and the sample's own number in ``info``."""
    return (
        score.get("status") == "ok" and score.get("value") == expected and echo in json.dumps(score["info"])
    )


# --------------------------------------------------------------------------------------------------
# the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(tmp: Path, args: argparse.Namespace) -> tuple[subprocess.Popen, str]:
    config = {
        "server": {
            "max_batch": 1024,
            "max_in_flight": 8192,
            "sandbox": False,
            "workers": args.server_workers,
        },
        "reward": {"runner": {"workers": args.workers}},
    }
    path = tmp / "service.json"  # JSON is YAML
    path.write_text(json.dumps(config))
    port = free_port()
    log = (tmp / "server.log").open("wb")
    cmd = [sys.executable, "-m", "rewardloop.cli.main", "serve", "--config", str(path), "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError((tmp / "server.log").read_text())
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not start")


# --------------------------------------------------------------------------------------------------
# load


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.requests = 0
        self.samples = 0
        self.lost = 0
        self.misordered = 0
        self.errors = 0
        self.throttled = 0


async def _native(client: Any, url: str, make: Any, batch: int, rng: random.Random, tally: Tally) -> None:
    items = [make(rng) for _ in range(batch)]
    t0 = time.perf_counter()
    r = await client.post(url + "/v1/score", json={"samples": [s for s, _, _ in items]})
    latency = time.perf_counter() - t0
    if r.status_code == 429:
        tally.throttled += 1
        await asyncio.sleep(float(r.headers.get("retry-after", "1")))
        return
    tally.requests += 1
    tally.latencies.append(latency)
    if r.status_code != 200:
        tally.errors += 1
        tally.lost += batch
        return
    scores = r.json()["scores"]
    if len(scores) != batch:
        tally.lost += batch
        return
    tally.samples += batch
    tally.misordered += sum(not check(s, v, e) for s, (_, v, e) in zip(scores, items, strict=True))


async def _openrlhf(client: Any, url: str, make: Any, batch: int, rng: random.Random, tally: Tally) -> None:
    sample, expected, _ = make(rng)
    prompt = "Question: how many in total? Answer step by step.\n"
    body = {
        "query": [prompt + sample["response"]],
        "prompts": [prompt],
        "labels": [sample["ground_truth"]],
        "data_source": sample["task"],
    }
    t0 = time.perf_counter()
    r = await client.post(url + "/get_reward", json=body)
    latency = time.perf_counter() - t0
    if r.status_code == 429:
        tally.throttled += 1
        await asyncio.sleep(float(r.headers.get("retry-after", "1")))
        return
    tally.requests += 1
    tally.latencies.append(latency)
    payload = r.json() if r.status_code == 200 else {}
    if len(payload.get("rewards", [])) != 1:
        tally.errors += r.status_code != 200
        tally.lost += 1
        return
    tally.samples += 1
    tally.misordered += payload["rewards"][0] != expected or payload["extra_logs"]["rewardloop_failed"] != [
        0.0
    ]


async def drive(
    url: str, call: Any, make: Any, batch: int, concurrency: int, duration: float
) -> dict[str, Any]:
    import httpx

    tally = Tally()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=300, limits=limits) as client:
        stop = time.perf_counter() + duration

        async def worker(seed: int) -> None:
            rng = random.Random(seed)
            while time.perf_counter() < stop:
                await call(client, url, make, batch, rng, tally)

        t0 = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(concurrency)))
        wall = time.perf_counter() - t0
    lat = sorted(tally.latencies)
    return {
        "wall_s": round(wall, 2),
        "requests": tally.requests,
        "samples": tally.samples,
        "requests_per_s": round(tally.requests / wall, 1),
        "samples_per_s": round(tally.samples / wall, 1),
        "latency_p50_ms": round(1000 * statistics.median(lat), 1) if lat else None,
        "latency_p99_ms": round(1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1) if lat else None,
        "lost": tally.lost,
        "misordered": tally.misordered,
        "http_errors": tally.errors,
        "throttled_429": tally.throttled,
    }


def baseline(make: Any, batch: int, duration: float, workers: int, concurrency: int) -> float:
    """Samples/s of the same requests scored in this process by one ``RewardManager`` (no HTTP, no JSON):
    ``concurrency`` loops each awaiting ``ascore`` on a batch of ``batch`` samples, after a warm-up."""
    from rewardloop.managers import RewardManager
    from rewardloop.types import Sample

    rng = random.Random(7)
    manager = RewardManager.from_config({"runner": {"workers": workers}})

    def samples(n: int) -> list[Sample]:
        items = [make(rng)[0] for _ in range(n)]
        return [Sample(s["response"], s["ground_truth"], s["task"]) for s in items]

    async def run() -> float:
        await manager.ascore(samples(2 * workers))  # warm-up: worker processes start and import
        stop = time.perf_counter() + duration
        done = 0

        async def loop() -> None:
            nonlocal done
            while time.perf_counter() < stop:
                await manager.ascore(samples(batch))
                done += batch

        t0 = time.perf_counter()
        await asyncio.gather(*(loop() for _ in range(concurrency)))
        return done / (time.perf_counter() - t0)

    try:
        return asyncio.run(run())
    finally:
        manager.close()


# --------------------------------------------------------------------------------------------------


SCENARIOS = {
    "gsm8k": (_native, gsm8k_item, "batch"),
    "gsm8k_openrlhf": (_openrlhf, gsm8k_item, None),
    "math_verify": (_native, math_item, "heavy_batch"),
}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=20.0, help="seconds per scenario (default 20; try 60)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    p.add_argument("--batch", type=int, default=32, help="samples per /v1/score request, gsm8k (default 32)")
    p.add_argument("--heavy-batch", type=int, default=8, help="samples per request, math_verify (default 8)")
    p.add_argument("--workers", type=int, default=2, help="scorer worker processes of the server (default 2)")
    p.add_argument("--server-workers", type=int, default=1, help="uvicorn workers (default 1)")
    p.add_argument("--scenarios", default=",".join(SCENARIOS), help="comma-separated subset")
    p.add_argument("--no-baseline", action="store_true", help="skip the in-process baseline")
    p.add_argument("--output", default=str(RESULTS / "server_load.json"))
    args = p.parse_args()
    names = [n for n in args.scenarios.split(",") if n]
    unknown = sorted(set(names) - set(SCENARIOS))
    if unknown:
        p.error(f"unknown scenario(s) {unknown}; known: {', '.join(SCENARIOS)}")

    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp), args)
        try:
            for name in names:
                call, make, batch_arg = SCENARIOS[name]
                batch = getattr(args, batch_arg) if batch_arg else 1
                # warm-up: the scorer's worker processes start and import on first use
                asyncio.run(drive(url, call, make, batch, 2, min(3.0, args.duration)))
                result = asyncio.run(drive(url, call, make, batch, args.concurrency, args.duration))
                result.update(scenario=name, batch=batch, concurrency=args.concurrency)
                if not args.no_baseline:
                    base = baseline(make, batch, args.duration / 2, args.workers, args.concurrency)
                    result["baseline_in_process_samples_per_s"] = round(base, 1)
                    result["ratio_vs_in_process"] = round(result["samples_per_s"] / base, 3) if base else None
                rows.append(result)
                print(f"{name}: {result}", file=sys.stderr)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
    out = {
        "benchmark": "server_load",
        "versions": {**versions(), **_server_versions()},
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        },
        "settings": {k: v for k, v in vars(args).items() if k != "output"},
        "scenarios": rows,
    }
    write_json(out, args.output)
    print(table(rows))
    return 0


def _server_versions() -> dict[str, str]:
    from importlib.metadata import version

    return {name: version(name) for name in ("fastapi", "uvicorn", "httpx")}


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| scenario | batch | conc. | req/s | samples/s | p50 ms | p99 ms | lost | mis-ordered | 429 "
        "| in-process samples/s | ratio |"
    )
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        lines.append(
            f"| {r['scenario']} | {r['batch']} | {r['concurrency']} | {r['requests_per_s']} | {r['samples_per_s']} "
            f"| {r['latency_p50_ms']} | {r['latency_p99_ms']} | {r['lost']} | {r['misordered']} "
            f"| {r['throttled_429']} | {r.get('baseline_in_process_samples_per_s', '-')} "
            f"| {r.get('ratio_vs_in_process', '-')} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

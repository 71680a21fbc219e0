"""Reward-model serving: router overhead, embedded-server batching, and a 1,000-sample DisRM batch.

Builds a small random Llama reward model locally (no downloads), serves it with the embedded server
(``RewardModelManager(backend="embedded")``, one subprocess per server, one torch thread each) and measures

1. router overhead: sequential latency (p50 / p95) and concurrent throughput, a server called directly
   vs the same server through the router;
2. embedded-server throughput with dynamic batching vs ``--max-batch-size 1``, same concurrency;
3. a 1,000-sample DisRM batch (``Runner`` + ``RewardModelScorer``) through two servers behind the router,
   vs one server called directly.

Writes ``bench/results/reward_models.json`` and prints a markdown table. Ratios are against baselines
measured in the same run. Numbers on a shared CPU box are noisy: the load average is recorded.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, write_json

SPECIALS = ["<pad>", "<unk>", "<s>", "</s>", "<|user|>", "<|assistant|>", "<|end|>"]
WORDS = [
    "what",
    "is",
    "the",
    "answer",
    "plus",
    "minus",
    "times",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "so",
    ".",
    ",",
    "?",
    "=",
]


def build_model(path: Path, hidden: int, layers: int) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForSequenceClassification, PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(SPECIALS + WORDS + [str(i) for i in range(100)])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.add_special_tokens(SPECIALS)
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    )
    tok.chat_template = (
        "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
    )
    tok.save_pretrained(path)
    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=hidden,
        intermediate_size=hidden * 2,
        num_hidden_layers=layers,
        num_attention_heads=max(1, hidden // 64),
        num_key_value_heads=max(1, hidden // 64),
        max_position_embeddings=1024,
        pad_token_id=tok.pad_token_id,
        num_labels=1,
    )
    LlamaForSequenceClassification(cfg).save_pretrained(path)
    return path


def samples(n: int, words: int) -> list[Any]:
    from rewardloop import Sample

    out = []
    for i in range(n):
        question = f"what is {i % 97} plus {(i * 7) % 89} ?"
        answer = " ".join(str((i + k) % 100) for k in range(words))
        out.append(
            Sample(
                response=f"so the answer is {answer} . </s>", prompt=[{"role": "user", "content": question}]
            )
        )
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def sequential_latency(url: str, text: str, n: int) -> list[float]:
    import httpx

    lat = []
    with httpx.Client(timeout=60) as client:
        for _ in range(n):
            t0 = time.perf_counter()
            client.post(url + "/classify", json={"input": text, "use_activation": False}).raise_for_status()
            lat.append(time.perf_counter() - t0)
    return lat


def concurrent_throughput(url: str, texts: list[str], concurrency: int) -> float:
    """Requests per second for ``texts`` sent with ``concurrency`` requests in flight."""
    import httpx

    async def go() -> float:
        sem = asyncio.Semaphore(concurrency)
        limits = httpx.Limits(max_connections=concurrency)
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:

            async def one(text: str) -> None:
                async with sem:
                    r = await client.post(url + "/classify", json={"input": text, "use_activation": False})
                    r.raise_for_status()

            t0 = time.perf_counter()
            await asyncio.gather(*(one(t) for t in texts))
            return time.perf_counter() - t0

    wall = asyncio.run(go())
    return len(texts) / wall


def server_stats(url: str) -> dict[str, float]:
    """The embedded server's counters from ``GET /metrics``."""
    import httpx

    text = httpx.get(url + "/metrics", timeout=30).text
    return {line.split()[0]: float(line.split()[1]) for line in text.splitlines() if line.strip()}


def mean_batch(before: dict[str, float], after: dict[str, float]) -> float:
    items = after["rewardloop_rm_batched_items_total"] - before["rewardloop_rm_batched_items_total"]
    batches = after["rewardloop_rm_batches_total"] - before["rewardloop_rm_batches_total"]
    return items / max(batches, 1.0)


def manager(model: Path, servers: int, extra: tuple[str, ...] = ()) -> Any:
    from rewardloop.models import RewardModelManager, RewardModelServerConfig

    cfg = RewardModelServerConfig(
        model_path=str(model),
        num_servers=servers,
        served_model_name="bench-rm",
        env={"OMP_NUM_THREADS": "1"},
        extra_args=("--threads", "1", *extra),
        startup_timeout_s=300,
    )
    return RewardModelManager(cfg)


def disrm_batch(scorer: Any, batch: list[Any], concurrency: int) -> dict[str, Any]:
    from rewardloop import Runner

    t0 = time.perf_counter()
    result = Runner(max_concurrency=concurrency, slow_sample_s=120).run_sync(scorer, batch)
    wall = time.perf_counter() - t0
    return {
        "samples": len(batch),
        "wall_s": wall,
        "samples_per_s": len(batch) / wall,
        "status": result.stats["status"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hidden", type=int, default=256, help="model width (default 256)")
    ap.add_argument("--layers", type=int, default=4, help="model depth (default 4)")
    ap.add_argument("--words", type=int, default=40, help="response length in words (default 40)")
    ap.add_argument(
        "--latency-n", type=int, default=200, help="sequential requests for latency (default 200)"
    )
    ap.add_argument("--requests", type=int, default=256, help="requests per throughput round (default 256)")
    ap.add_argument("--concurrency", type=int, default=32, help="client concurrency (default 32)")
    ap.add_argument("--batch", type=int, default=1000, help="DisRM batch size (default 1000)")
    ap.add_argument(
        "--rounds", type=int, default=3, help="alternating rounds for latency/throughput (default 3)"
    )
    ap.add_argument(
        "--disrm-rounds", type=int, default=2, help="alternating rounds of the DisRM batch (default 2)"
    )
    args = ap.parse_args()

    import torch
    import transformers

    import rewardloop
    from rewardloop.scorers.reward_model import RewardModelScorer

    load_before = os.getloadavg()
    out: dict[str, Any] = {
        "versions": {
            "rewardloop": rewardloop.__version__,
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        },
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadavg_before": load_before},
        "params": vars(args),
    }
    with tempfile.TemporaryDirectory() as tmp:
        model = build_model(Path(tmp) / "rm", args.hidden, args.layers)
        batch = samples(args.batch, args.words)
        with manager(model, 2) as m, manager(model, 1, ("--max-batch-size", "1")) as m1:
            scorer = RewardModelScorer(m.router_address, m.model_name, m.tokenizer)
            one = RewardModelScorer(m.server_urls[0], m.model_name, m.tokenizer)
            texts = [scorer.input_text(s) for s in batch[: args.requests]]
            direct, router, unbatched = m.server_urls[0], m.router_url, m1.server_urls[0]
            # The machine is shared: measurements alternate (A, B, C, A, B, C, ...) so that load changes
            # hit every variant alike; each variant reports the median of its rounds.
            lat: dict[str, list[float]] = {"direct": [], "router": []}
            thr: dict[str, list[float]] = {"direct_1_server": [], "router_2_servers": [], "unbatched": []}
            batches: list[float] = []
            per_round = max(1, args.latency_n // args.rounds)
            for _ in range(args.rounds):
                lat["direct"] += sequential_latency(direct, texts[0], per_round)
                lat["router"] += sequential_latency(router, texts[0], per_round)
                before = server_stats(direct)
                thr["direct_1_server"].append(concurrent_throughput(direct, texts, args.concurrency))
                batches.append(mean_batch(before, server_stats(direct)))
                thr["router_2_servers"].append(concurrent_throughput(router, texts, args.concurrency))
                thr["unbatched"].append(concurrent_throughput(unbatched, texts, args.concurrency))
            out["router_latency"] = {k: latency_summary(v) for k, v in lat.items()}
            out["throughput_req_per_s"] = {k: statistics.median(v) for k, v in thr.items()}
            out["throughput_rounds"] = thr
            out["mean_batch"] = statistics.median(batches)
            dis: dict[str, list[dict[str, Any]]] = {"direct_1_server": [], "router_2_servers": []}
            for _ in range(args.disrm_rounds):
                dis["direct_1_server"].append(disrm_batch(one, batch, 64))
                dis["router_2_servers"].append(disrm_batch(scorer, batch, 64))
            out["disrm_batch"] = dis
            out["router_status"] = m.router_status()
    out["machine"]["loadavg_after"] = os.getloadavg()
    write_json(out, RESULTS / "reward_models.json")
    print_table(out)
    return 0


def latency_summary(lat: list[float]) -> dict[str, float]:
    return {"p50_ms": 1000 * statistics.median(lat), "p95_ms": 1000 * pct(lat, 0.95), "n": len(lat)}


def print_table(out: dict[str, Any]) -> None:
    lat, thr = out["router_latency"], out["throughput_req_per_s"]
    med = {k: statistics.median(r["samples_per_s"] for r in v) for k, v in out["disrm_batch"].items()}
    n = out["params"]["batch"]
    rows = [
        (
            "sequential latency p50, direct vs via router (ms)",
            lat["direct"]["p50_ms"],
            lat["router"]["p50_ms"],
        ),
        (
            "sequential latency p95, direct vs via router (ms)",
            lat["direct"]["p95_ms"],
            lat["router"]["p95_ms"],
        ),
        (
            "embedded server, max batch 1 vs dynamic batching (req/s)",
            thr["unbatched"],
            thr["direct_1_server"],
        ),
        ("1 server direct vs 2 servers via router (req/s)", thr["direct_1_server"], thr["router_2_servers"]),
        (
            f"{n}-sample DisRM batch, 1 server vs 2 via router (samples/s)",
            med["direct_1_server"],
            med["router_2_servers"],
        ),
    ]
    print("| measurement | baseline | rewardloop | ratio |")
    print("|---|---|---|---|")
    for name, base, ours in rows:
        print(f"| {name} | {base:.1f} | {ours:.1f} | {ours / base:.2f}x |")
    statuses = [r["status"] for v in out["disrm_batch"].values() for r in v]
    print(f"\nmean batch with dynamic batching: {out['mean_batch']:.1f}; DisRM statuses: {statuses[-1]}")
    print(
        f"load average before/after: {out['machine']['loadavg_before']} / {out['machine']['loadavg_after']}"
    )


if __name__ == "__main__":
    raise SystemExit(main())

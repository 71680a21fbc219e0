"""verl's side of ``runner_vs_verl.py``: run under ``.venv-verl/bin/python`` (verl 0.9.1, CPU torch).

Modes (``--mode``):

* ``prepare`` -- train a small byte-level BPE tokenizer on the workload's prompts and responses
  (``tokenizers``, nothing downloaded), save it as a ``PreTrainedTokenizerFast`` directory, and write the
  canonical rows: each response encoded, cut to ``--max-response-tokens`` and decoded again, with its
  token count. Both implementations then score exactly these strings.
* ``naive`` -- verl's legacy ``verl.workers.reward_manager.naive.NaiveRewardManager`` called on a real
  ``DataProto`` (left-padded ``prompts``, right-padded ``responses``, ``attention_mask``, and
  ``data_source`` / ``reward_model`` / ``extra_info`` in ``non_tensor_batch``); best of ``--repeats``
  calls. Also times the decoding alone (what the manager spends in ``tokenizer.decode``).
* ``loop`` -- verl's reward loop: ``verl.experimental.reward_loop.RewardLoopManager`` with
  ``--workers`` ``RewardLoopWorker`` Ray actors on a local ``ray.init(num_cpus=...)``, fed the same
  ``DataProto`` through ``compute_rm_score``; and, in one process, the reward-loop
  ``NaiveRewardManager.run_single`` of every row driven by ``asyncio.gather`` (what one worker does).
* ``math_verify`` -- ``verl.utils.reward_score.math_verify.compute_score`` on every row: sequentially
  (as ``NaiveRewardManager`` calls a custom reward function) and from a thread pool the size of asyncio's
  default executor (as the reward loop's ``run_in_executor`` calls it).
* ``one`` -- score one adversarial input and exit; the parent enforces the hard time cap. Writes
  ``ready`` (after imports) and ``result.json`` into ``--status-dir``.

Library output on stdout (verl prints debug lines) goes to /dev/null; results go to ``--output``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

SPECIAL = ["<pad>", "<eos>"]


def _rows(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 -- lives as long as the process


def _dump(obj: Any, path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh)


def _best(runs: list[float]) -> float:
    return min(runs)


# --------------------------------------------------------------------------- tokenizer and DataProto


def prepare(args: argparse.Namespace) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    rows = _rows(args.input)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=args.vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator((t for r in rows for t in (r["prompt"], r["response"])), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", clean_up_tokenization_spaces=False
    )
    fast.save_pretrained(args.tokenizer_dir)
    out, cut, changed, lengths = [], 0, 0, []
    for row in rows:
        ids = fast.encode(row["response"], add_special_tokens=False)
        was_cut = len(ids) > args.max_response_tokens
        if was_cut:
            ids, cut = ids[: args.max_response_tokens], cut + 1
        text = fast.decode(ids, skip_special_tokens=True)
        changed += text != row["response"]
        lengths.append(len(ids))
        out.append({**row, "response": text, "response_tokens": len(ids), "cut": was_cut})
    with open(args.output, "w", encoding="utf-8") as fh:
        for row in out:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    lengths.sort()
    _dump(
        {
            "vocab_size": fast.vocab_size,
            "rows": len(out),
            "cut_to_max_tokens": cut,
            "changed_by_round_trip": changed,
            "response_tokens_max": lengths[-1],
            "response_tokens_mean": sum(lengths) / len(lengths),
            "response_tokens_p50": lengths[len(lengths) // 2],
        },
        args.output + ".meta.json",
    )


def load_tokenizer(path: str) -> Any:
    from verl.utils import hf_tokenizer

    return hf_tokenizer(path)


def build_dataproto(rows: list[dict[str, Any]], tokenizer: Any) -> Any:
    """verl's rollout layout: prompts left-padded, responses right-padded, one attention mask."""
    import numpy as np
    import torch
    from verl import DataProto

    pad = tokenizer.pad_token_id
    prompts = [tokenizer.encode(r["prompt"], add_special_tokens=False)[-1024:] for r in rows]
    responses = [tokenizer.encode(r["response"], add_special_tokens=False) for r in rows]
    p_len = max(map(len, prompts))
    r_len = max(1, max(map(len, responses)))
    n = len(rows)
    prompt_t = torch.full((n, p_len), pad, dtype=torch.long)
    resp_t = torch.full((n, r_len), pad, dtype=torch.long)
    mask = torch.zeros((n, p_len + r_len), dtype=torch.long)
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        if p:
            prompt_t[i, p_len - len(p) :] = torch.tensor(p)
            mask[i, p_len - len(p) : p_len] = 1
        if r:
            resp_t[i, : len(r)] = torch.tensor(r)
            mask[i, p_len : p_len + len(r)] = 1
    position_ids = torch.clamp(torch.cumsum(mask, dim=-1) - 1, min=0)

    def objects(values: list[Any]) -> Any:
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
        return arr

    return DataProto.from_dict(
        tensors={
            "prompts": prompt_t,
            "responses": resp_t,
            "input_ids": torch.cat([prompt_t, resp_t], dim=-1),
            "attention_mask": mask,
            "position_ids": position_ids,
        },
        non_tensors={
            "data_source": objects([r["data_source"] for r in rows]),
            "reward_model": objects([{"style": "rule", "ground_truth": r["ground_truth"]} for r in rows]),
            "extra_info": objects([{"index": r["id"], "split": "test"} for r in rows]),
        },
    )


def _warm_data(args: argparse.Namespace, data: Any, tokenizer: Any) -> Any:
    """What a side warms up on: ``--warm-input`` (other responses, so nothing timed is already cached), else
    the timed batch itself."""
    if not args.warm_input:
        return data
    return build_dataproto(_rows(args.warm_input), tokenizer)


def _rewards(tensor: Any) -> list[float]:
    return [float(x) for x in tensor.sum(dim=-1).tolist()]


# --------------------------------------------------------------------------- legacy NaiveRewardManager


def naive(args: argparse.Namespace) -> None:
    from verl.workers.reward_manager.naive import NaiveRewardManager

    rows = _rows(args.input)
    tokenizer = load_tokenizer(args.tokenizer_dir)
    data = build_dataproto(rows, tokenizer)
    manager = NaiveRewardManager(tokenizer=tokenizer, num_examine=0)
    manager(_warm_data(args, data, tokenizer), return_dict=True)  # warm: lazy imports, sympy's set-up
    runs, out = [], None
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        out = manager(data, return_dict=True)
        runs.append(time.perf_counter() - t0)
    decode_runs = [_time_decode(data, tokenizer) for _ in range(args.repeats)]
    _dump(
        {
            "n": len(rows),
            "runs_s": runs,
            "best_s": _best(runs),
            "decode_runs_s": decode_runs,
            "decode_best_s": _best(decode_runs),
            "rewards": _rewards(out["reward_tensor"]),
        },
        args.output,
    )


def _time_decode(data: Any, tokenizer: Any) -> float:
    """What the manager spends decoding: the same per-item slicing and two decodes per row."""
    t0 = time.perf_counter()
    p_len = data.batch["prompts"].shape[-1]
    for i in range(len(data)):
        item = data[i]
        mask = item.batch["attention_mask"]
        vp = int(mask[:p_len].sum())
        vr = int(mask[p_len:].sum())
        tokenizer.decode(item.batch["prompts"][-vp:], skip_special_tokens=True)
        tokenizer.decode(item.batch["responses"][:vr], skip_special_tokens=True)
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- the reward loop


def loop_config(tokenizer_dir: str, workers: int) -> Any:
    from omegaconf import OmegaConf

    return OmegaConf.create(
        {
            "actor_rollout_ref": {"model": {"path": tokenizer_dir, "tokenizer_path": tokenizer_dir}},
            "reward": {
                "num_workers": workers,
                "reward_manager": {"name": "naive", "source": "register", "module": {"path": None}},
                "custom_reward_function": {"path": None, "name": None},
                "reward_model": {"enable": False, "enable_resource_pool": False},
                "sandbox_fusion": None,
            },
        }
    )


def loop(args: argparse.Namespace) -> None:
    rows = _rows(args.input)
    tokenizer = load_tokenizer(args.tokenizer_dir)
    data = build_dataproto(rows, tokenizer)
    warm = _warm_data(args, data, tokenizer)
    report: dict[str, Any] = {"n": len(rows), "workers": args.workers}
    try:
        report["ray_loop"] = _ray_loop(args, data, warm)
    except Exception as exc:  # reported, and the asyncio fallback still runs
        report["ray_loop"] = {"error": f"{type(exc).__name__}: {str(exc)[:2000]}"}
    report["run_single"] = asyncio.run(_run_single_all(data, tokenizer, args.repeats, warm))
    _dump(report, args.output)


def _ray_loop(args: argparse.Namespace, data: Any, warm: Any) -> dict[str, Any]:
    import ray
    from verl.experimental.reward_loop import RewardLoopManager

    t0 = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    try:
        manager = RewardLoopManager(loop_config(args.tokenizer_dir, args.workers))
        manager.compute_rm_score(warm)  # warm: actors up, scorer modules imported
        startup = time.perf_counter() - t0
        runs, out = [], None
        for _ in range(args.repeats):
            t = time.perf_counter()
            out = manager.compute_rm_score(data)
            runs.append(time.perf_counter() - t)
        return {
            "startup_s": startup,
            "runs_s": runs,
            "best_s": _best(runs),
            "rewards": _rewards(out.batch["rm_scores"]),
        }
    finally:
        ray.shutdown()


async def _run_single_all(data: Any, tokenizer: Any, repeats: int, warm: Any) -> dict[str, Any]:
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager

    manager = NaiveRewardManager(config=None, tokenizer=tokenizer, compute_score=None)

    async def once(items: Any) -> list[dict[str, Any]]:
        return await asyncio.gather(*(manager.run_single(items[i : i + 1]) for i in range(len(items))))

    await once(warm)  # warm
    runs, outs = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        outs = await once(data)
        runs.append(time.perf_counter() - t)
    return {"runs_s": runs, "best_s": _best(runs), "rewards": [float(o["reward_score"]) for o in outs]}


# --------------------------------------------------------------------------- math_verify


def math_verify(args: argparse.Namespace) -> None:
    from verl.utils.reward_score import math_verify as mv

    rows = _rows(args.input)
    threads = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default executor, used by run_in_executor

    def one(r: dict[str, Any]) -> float:
        return float(mv.compute_score(r["response"], str(r["ground_truth"])))

    warm = _rows(args.warm_input) if args.warm_input else rows
    with ThreadPoolExecutor(threads) as ex:  # warm: all four spawn workers up
        list(ex.map(one, warm))
    seq_runs, thr_runs, seq, thr = [], [], [], []
    for _ in range(args.repeats):
        t = time.perf_counter()
        seq = [one(r) for r in rows]
        seq_runs.append(time.perf_counter() - t)
    for _ in range(args.repeats):
        t = time.perf_counter()
        with ThreadPoolExecutor(threads) as ex:
            thr = list(ex.map(one, rows))
        thr_runs.append(time.perf_counter() - t)
    _dump(
        {
            "n": len(rows),
            "threads": threads,
            "sequential": {"runs_s": seq_runs, "best_s": _best(seq_runs), "rewards": seq},
            "threaded": {"runs_s": thr_runs, "best_s": _best(thr_runs), "rewards": thr},
        },
        args.output,
    )


# --------------------------------------------------------------------------- one adversarial input


def one(args: argparse.Namespace) -> None:
    status = Path(args.status_dir)
    with open(args.input, encoding="utf-8") as fh:
        row = json.load(fh)
    if row["data_source"] == "math_verify":
        from verl.utils.reward_score.math_verify import compute_score as mv_score

        def fn(r: dict[str, Any]) -> Any:
            return mv_score(r["response"], r["ground_truth"])
    else:
        from verl.utils.reward_score import default_compute_score

        def fn(r: dict[str, Any]) -> Any:
            return default_compute_score(r["data_source"], r["response"], r["ground_truth"])

    # warm-up on a harmless input: lazy imports, and math_verify's spawn pool started
    fn({**row, "response": "The answer is \\boxed{42}.\nAnswer: 42\n#### 42", "ground_truth": "42"})
    (status / "ready").write_text(str(time.time()))
    t0 = time.perf_counter()
    try:
        value, error = fn(row), None
        if isinstance(value, dict):
            value = value.get("score")
        value = float(value)
    except BaseException as exc:  # RecursionError, MemoryError, verl asserts ...
        value, error = None, f"{type(exc).__name__}: {str(exc)[:300]}"
    call_s = time.perf_counter() - t0
    tmp = status / "result.tmp"
    tmp.write_text(json.dumps({"value": value, "error": error, "call_s": call_s}))
    tmp.rename(status / "result.json")


def main() -> int:
    parser = argparse.ArgumentParser(description="verl's side of runner_vs_verl.py")
    parser.add_argument("--mode", required=True, choices=["prepare", "naive", "loop", "math_verify", "one"])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", default="")
    parser.add_argument("--tokenizer-dir", default="")
    parser.add_argument("--status-dir", default="")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--warm-input", default="", help="rows to warm up on (default: the timed rows themselves)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--vocab-size", type=int, default=8192)
    parser.add_argument("--max-response-tokens", type=int, default=1024)
    args = parser.parse_args()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    _silence_stdout()
    {"prepare": prepare, "naive": naive, "loop": loop, "math_verify": math_verify, "one": one}[args.mode](
        args
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

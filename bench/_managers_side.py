"""One side of ``managers_vs_verl.py``, run as a subprocess.

Under ``.venv-verl/bin/python`` with ``PYTHONPATH=src`` (verl 0.9.1 and rewardloop in one interpreter, so
both are timed on the same tokenizer object and the same ``DataProto``), or under ``.venv/bin/python``
(rewardloop's own environment; no verl, so only the ``RolloutBatch`` contenders run).

Modes (``--mode``):

* ``managers`` -- the classic batch path, every contender warm, in alternating rounds (the order rotates each
  round, best round kept): verl's ``verl.workers.reward_manager.naive.NaiveRewardManager`` on a real
  ``DataProto``; ours ``NaiveRewardManager(tok, 0)(data, return_dict=True)`` on that ``DataProto`` and on a
  :class:`~rewardloop.managers.RolloutBatch` of the same tensors; ours ``RewardLoopManager(config,
  tokenizer=tok).compute_rm_score`` on the local runner on both. Then where our time goes: decoding and
  reading (``read_batch``), scoring, token placement, each best of ``--repeats``.
* ``verl-loop`` -- verl's reward loop: ``verl.experimental.reward_loop.RewardLoopManager`` with
  ``--workers`` ``RewardLoopWorker`` Ray actors on ``ray.init(num_cpus=--cpus)``, ``compute_rm_score`` on
  the ``DataProto`` (as ``bench/_verl_reward.py`` drives it).
* ``ours-ray`` -- ours ``RewardLoopManager({"backend": "ray", "num_workers": W}, tokenizer=tok)
  .compute_rm_score`` on the ``DataProto`` (or the ``RolloutBatch`` without verl), same ``ray.init``.

Each contender's last reward tensor is saved as ``<dir>/reward_<name>.pt``; timings go to ``--output``.
Library output on stdout goes to /dev/null (verl prints debug lines).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 -- lives as long as the process


def _has_verl() -> bool:
    try:
        import verl  # noqa: F401
    except ImportError:
        return False
    return True


def load_inputs(folder: Path) -> tuple[Any, dict[str, Any], dict[str, list[Any]]]:
    import torch
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder / "tokenizer"))
    tensors = torch.load(folder / "tensors.pt")
    non_tensors = json.loads((folder / "non_tensors.json").read_text(encoding="utf-8"))
    return tokenizer, tensors, non_tensors


def _objects(values: list[Any]) -> Any:
    import numpy as np

    arr = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        arr[i] = v
    return arr


def dataproto(tensors: dict[str, Any], non_tensors: dict[str, list[Any]]) -> Any:
    from verl import DataProto

    return DataProto.from_dict(
        tensors={k: v.clone() for k, v in tensors.items()},
        non_tensors={k: _objects(v) for k, v in non_tensors.items()},
    )


def rollout_batch(tensors: dict[str, Any], non_tensors: dict[str, list[Any]]) -> Any:
    from rewardloop.managers import RolloutBatch

    return RolloutBatch.from_dict({k: v.clone() for k, v in tensors.items()}, non_tensors)


def _status(manager: Any) -> dict[str, int] | None:
    batch = getattr(manager, "last_batch", None)
    if batch is None:
        return None
    return {k: v for k, v in batch.status_counts().items() if v}


# --------------------------------------------------------------------------- the classic batch path


def managers(args: argparse.Namespace) -> dict[str, Any]:
    from rewardloop.integrations.verl import NaiveRewardManager, RewardLoopManager

    folder = Path(args.dir)
    tokenizer, tensors, non_tensors = load_inputs(folder)
    rb = rollout_batch(tensors, non_tensors)
    ours = NaiveRewardManager(tokenizer, 0)
    loop = RewardLoopManager({"num_workers": args.workers}, tokenizer=tokenizer)
    contenders: dict[str, tuple[Callable[[], Any], Any]] = {}
    if _has_verl():
        from verl.workers.reward_manager.naive import NaiveRewardManager as VerlNaive

        dp = dataproto(tensors, non_tensors)
        verl_naive = VerlNaive(tokenizer=tokenizer, num_examine=0)
        contenders["verl_naive"] = (lambda: verl_naive(dp, return_dict=True)["reward_tensor"], None)
        contenders["ours_naive_dataproto"] = (lambda: ours(dp, return_dict=True)["reward_tensor"], ours)
        contenders["ours_loop_local_dataproto"] = (
            lambda: loop.compute_rm_score(dp).batch["rm_scores"],
            loop.worker.reward_manager,
        )
    contenders["ours_naive_rollout"] = (lambda: ours(rb, return_dict=True)["reward_tensor"], ours)
    contenders["ours_loop_local_rollout"] = (
        lambda: loop.compute_rm_score(rb).batch["rm_scores"],
        loop.worker.reward_manager,
    )
    report = _alternate(contenders, args.repeats, folder, args.tag)
    report["breakdown"] = _breakdown(ours, rb, args.repeats)
    ours.close()
    loop.close()
    return report


def _alternate(
    contenders: dict[str, tuple[Callable[[], Any], Any]], repeats: int, folder: Path, tag: str
) -> dict[str, Any]:
    import torch

    names = list(contenders)
    report: dict[str, Any] = {name: {"runs_s": []} for name in names}
    outs: dict[str, Any] = {}
    for name in names:  # warm: lazy imports, regex compilation, worker start-up
        t0 = time.perf_counter()
        outs[name] = contenders[name][0]()
        report[name]["first_call_s"] = time.perf_counter() - t0
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            t0 = time.perf_counter()
            outs[name] = contenders[name][0]()
            report[name]["runs_s"].append(time.perf_counter() - t0)
    for name in names:
        report[name]["best_s"] = min(report[name]["runs_s"])
        report[name]["status"] = _status(contenders[name][1])
        torch.save(outs[name].detach().cpu(), folder / f"reward_{tag}{name}.pt")
    return report


def _breakdown(ours: Any, rb: Any, repeats: int) -> dict[str, Any]:
    """Where our classic call spends its time, each part alone (best of ``repeats``), and what the two
    biggest parts cost done another way (same texts, same scores): decoding with the Rust backend's
    ``decode_batch``, or one ``decode`` per row as verl does; scoring without the runner."""
    from rewardloop.integrations.verl._data import reward_tensor

    core = ours.core
    rows = core.read(rb)
    scorers = [core.manager.scorer_for(s) for s in rows.samples]
    responses = rb.batch["responses"]
    ids = [responses[i, :n].tolist() for i, n in enumerate(rows.lengths)]
    parts: dict[str, Callable[[], Any]] = {
        "whole classic call": lambda: ours(rb, return_dict=True),
        "read_batch (decode + samples)": lambda: core.read(rb),
        "score (manager + runner)": lambda: core.manager.score(rows.samples, rows.lengths),
        "pack": lambda: core.pack(rows, batch),
        "place (reward_tensor)": lambda: reward_tensor(rb, rewards, rows.lengths),
        "alt: tokenizer.batch_decode(lists) alone": lambda: core.tokenizer.batch_decode(
            ids, skip_special_tokens=True
        ),
        "alt: backend_tokenizer.decode_batch(lists)": lambda: core.tokenizer.backend_tokenizer.decode_batch(
            ids, skip_special_tokens=True
        ),
        "alt: decode per row (tensor slices, verl's way)": lambda: [
            core.tokenizer.decode(responses[i, :n], skip_special_tokens=True)
            for i, n in enumerate(rows.lengths)
        ],
        "alt: scorer.score per sample, no runner": lambda: [
            sc.score(s) for sc, s in zip(scorers, rows.samples, strict=True)
        ],
    }
    batch = core.manager.score(rows.samples, rows.lengths)
    rewards, _ = core.pack(rows, batch)
    texts = core.tokenizer.batch_decode(ids, skip_special_tokens=True)
    same = core.tokenizer.backend_tokenizer.decode_batch(ids, skip_special_tokens=True) == texts
    runs: dict[str, list[float]] = {k: [] for k in parts}
    for _ in range(repeats):
        for key, fn in parts.items():
            t0 = time.perf_counter()
            fn()
            runs[key].append(time.perf_counter() - t0)
    out: dict[str, Any] = {k: min(v) for k, v in runs.items()}
    out["backend_decode_batch_gives_same_texts"] = same
    return out


# --------------------------------------------------------------------------- the reward loops on Ray


def _ray_init(args: argparse.Namespace) -> Any:
    import ray

    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    return ray


def _timed(fn: Callable[[], Any], repeats: int, t_start: float) -> tuple[dict[str, Any], Any]:
    out = fn()  # warm: actors up, scorer modules imported in each
    startup = time.perf_counter() - t_start
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t0)
    return {"startup_s": startup, "runs_s": runs, "best_s": min(runs)}, out


def verl_loop(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop import RewardLoopManager

    folder = Path(args.dir)
    tokenizer, tensors, non_tensors = load_inputs(folder)
    del tokenizer  # verl's workers load it from the path in the config
    dp = dataproto(tensors, non_tensors)
    tok_dir = str(folder / "tokenizer")
    config = OmegaConf.create(
        {
            "actor_rollout_ref": {"model": {"path": tok_dir, "tokenizer_path": tok_dir}},
            "reward": {
                "num_workers": args.workers,
                "reward_manager": {"name": "naive", "source": "register", "module": {"path": None}},
                "custom_reward_function": {"path": None, "name": None},
                "reward_model": {"enable": False, "enable_resource_pool": False},
                "sandbox_fusion": None,
            },
        }
    )
    t0 = time.perf_counter()
    ray = _ray_init(args)
    try:
        manager = RewardLoopManager(config)
        report, out = _timed(lambda: manager.compute_rm_score(dp), args.repeats, t0)
        torch.save(out.batch["rm_scores"].detach().cpu(), folder / f"reward_{args.tag}verl_loop_ray.pt")
        return {"verl_loop_ray": report}
    finally:
        ray.shutdown()


def ours_ray(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from rewardloop.integrations.verl import RewardLoopManager

    folder = Path(args.dir)
    tokenizer, tensors, non_tensors = load_inputs(folder)
    data = dataproto(tensors, non_tensors) if _has_verl() else rollout_batch(tensors, non_tensors)
    name = "ours_loop_ray_" + ("dataproto" if _has_verl() else "rollout")
    t0 = time.perf_counter()
    ray = _ray_init(args)
    try:
        loop = RewardLoopManager({"backend": "ray", "num_workers": args.workers}, tokenizer=tokenizer)
        report, out = _timed(lambda: loop.compute_rm_score(data).batch["rm_scores"], args.repeats, t0)
        report["status"] = _status(loop.worker.reward_manager)
        torch.save(out.detach().cpu(), folder / f"reward_{args.tag}{name}.pt")
        loop.close()
        return {name: report}
    finally:
        ray.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description="one side of managers_vs_verl.py")
    parser.add_argument("--mode", required=True, choices=["managers", "verl-loop", "ours-ray"])
    parser.add_argument("--dir", required=True, help="folder written by _managers_data.py")
    parser.add_argument("--output", required=True)
    parser.add_argument("--tag", default="", help="prefix of the saved reward tensors")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=2)
    args = parser.parse_args()
    _silence_stdout()
    mode = {"managers": managers, "verl-loop": verl_loop, "ours-ray": ours_ray}[args.mode]
    report = {"python": sys.executable, "verl": _has_verl(), **mode(args)}
    Path(args.output).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

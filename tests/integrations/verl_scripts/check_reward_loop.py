"""Run under the real verl 0.9.1 interpreter (.venv-verl) by tests/integrations/test_real_verl.py.

Our managers inside verl's own reward path: verl's generated trainer config plus the overrides of each route
documented in docs/verl.md (read from the page), verl's own ``load_reward_manager``, verl's ``RewardLoopWorker``
in process (the agent loop's per-trajectory call) and verl's ``RewardLoopManager`` with Ray reward workers
(``compute_rm_score``, then the trainer's ``extract_reward``), on a real ``DataProto``.

Prints one JSON object (the last stdout line).
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf, open_dict
from tests._rollouts import build_tokenizer, make_batch
from verl import DataProto

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "verl.md"

ROWS = [
    {"response": "The answer is #### 42", "data_source": "openai/gsm8k", "ground_truth": "42"},
    {"response": "#### 41", "data_source": "openai/gsm8k", "ground_truth": "42"},
    {"response": "so \\boxed{\\frac{1}{2}}", "data_source": "lighteval/MATH", "ground_truth": "\\frac{1}{2}"},
    {"response": "so \\boxed{3}", "data_source": "lighteval/MATH", "ground_truth": "\\frac{1}{2}"},
]
#: rows only our managers get: a dict scorer (math_dapo) and a data_source no scorer handles
EXTRA_ROWS = [
    {"response": "Answer: 7", "data_source": "math_dapo", "ground_truth": "7"},
    {"response": "#### 42", "data_source": "no_such_source", "ground_truth": "42"},
]

_OVERRIDE = re.compile(r"^\s*(?P<o>[+~]{0,2}[A-Za-z_][\w.]*=\S+)\s*\\?\s*$")


def doc_snippets() -> dict[str, dict]:
    """``{route: {"overrides": [...], "register": code}}`` from the marked blocks of docs/verl.md."""
    text = DOC.read_text()
    routes: dict[str, dict] = {}
    for kind, route, body in re.findall(
        r"<!-- verl-(overrides|register): (\w+) -->\n```\w*\n(.*?)```", text, re.S
    ):
        entry = routes.setdefault(route, {"overrides": [], "register": None})
        if kind == "register":
            entry["register"] = body
            continue
        for line in body.strip().splitlines():
            match = _OVERRIDE.match(line)
            if match is None:
                raise ValueError(f"docs/verl.md route {route}: not a Hydra override: {line!r}")
            entry["overrides"].append(match["o"])
    return routes


def trainer_config(overrides: list[str], tokenizer_dir: str):
    """verl's generated trainer config with the overrides applied as Hydra parses them (struct mode: a key
    verl does not have needs ``+``, as on verl's command line)."""
    import verl
    from hydra.core.override_parser.overrides_parser import OverridesParser

    cfg = OmegaConf.load(Path(verl.__file__).parent / "trainer" / "config" / "_generated_ppo_trainer.yaml")
    OmegaConf.set_struct(cfg, True)
    user = [f"actor_rollout_ref.model.path={tokenizer_dir}", "reward.num_workers=2"]
    for override in OverridesParser.create().parse_overrides(user + overrides):
        if override.is_add():
            with open_dict(cfg):
                OmegaConf.update(cfg, override.key_or_group, override.value(), merge=True)
        else:
            if OmegaConf.select(cfg, override.key_or_group, default="__missing__") == "__missing__":
                raise KeyError(f"{override.key_or_group} is not in verl's trainer config (use +key=...)")
            OmegaConf.update(cfg, override.key_or_group, override.value(), merge=True)
    return cfg


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def in_process(route: str, cfg, tok, data: DataProto) -> dict:
    """verl's load_reward_manager, then verl's RewardLoopWorker (what the agent loop calls per trajectory)."""
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
    from verl.trainer.ppo.reward import load_reward_manager

    records = _Records()
    logging.getLogger("rewardloop").addHandler(records)
    logging.getLogger("rewardloop").setLevel(logging.INFO)
    try:
        manager = load_reward_manager(cfg, tok)
        worker = RewardLoopWorker(cfg, None)
        batch_outs = worker.loop.run_until_complete(worker.compute_score_batch(data))  # as in its actor
        single = worker.loop.run_until_complete(worker.compute_score(data[0:1]))
    finally:
        logging.getLogger("rewardloop").removeHandler(records)
    out = {
        "manager": f"{type(manager).__module__}.{type(manager).__name__}",
        "worker_manager": f"{type(worker.reward_manager).__module__}.{type(worker.reward_manager).__name__}",
        "scores": [o["reward_score"] for o in batch_outs],
        "single": single["reward_score"],
        "key_sets": [sorted(o.get("reward_extra_info", {})) for o in batch_outs],
        "extra": [_plain(o.get("reward_extra_info", {})) for o in batch_outs],
        "logs": records.messages,
    }
    for m in (manager, worker.reward_manager):
        close = getattr(m, "close", None)
        if close is not None:
            close()
    return out


def with_ray(cfg, data: DataProto) -> dict:
    """verl's RewardLoopManager: Ray reward workers score chunks; verl aggregates the extra info from the
    first sample's keys; the trainer unions the result into the batch and calls extract_reward."""
    from verl.experimental.reward_loop import RewardLoopManager
    from verl.trainer.ppo.reward import extract_reward

    manager = RewardLoopManager(config=cfg, rm_resource_pool=None)
    scored = manager.compute_rm_score(data)
    batch = data.union(scored)
    reward_tensor, extra = extract_reward(batch)
    return {
        "manager_cls": manager.reward_manager_cls.__name__,
        "rm_sums": reward_tensor.sum(-1).tolist(),
        "rm_positions": [int(np.flatnonzero(r).max()) if r.any() else -1 for r in reward_tensor.numpy()],
        "response_lengths": data.batch["attention_mask"][:, data.batch["prompts"].shape[1] :]
        .sum(-1)
        .tolist(),
        "extra_keys": list(scored.meta_info["reward_extra_keys"]),
        "extra": {k: _plain(list(v)) for k, v in extra.items()},
    }


def without_rewardloop(cfg_yaml: str, tokenizer_dir: str) -> str:
    """What a Ray node without rewardloop installed sees: verl's loader cannot import our module."""
    code = (
        "import sys\nfrom omegaconf import OmegaConf\nfrom transformers import AutoTokenizer\n"
        "from verl.trainer.ppo.reward import load_reward_manager\n"
        f"cfg = OmegaConf.create({cfg_yaml!r})\n"
        f"tok = AutoTokenizer.from_pretrained({tokenizer_dir!r})\n"
        "try:\n    load_reward_manager(cfg, tok)\nexcept Exception as exc:\n"
        "    print(type(exc).__name__ + ': ' + str(exc))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/", timeout=240
    )
    return (proc.stdout.strip().splitlines() or [proc.stderr[-500:]])[-1]


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and value != value:
        return "NaN"
    return value


def main() -> None:
    import ray

    routes = doc_snippets()
    tok = build_tokenizer()
    out: dict = {"routes": {name: r["overrides"] for name, r in routes.items()}}
    with tempfile.TemporaryDirectory() as tmp:
        tok.save_pretrained(tmp)
        ours = make_batch(tok, ROWS + EXTRA_ROWS, cls=DataProto)
        plain = make_batch(tok, ROWS, cls=DataProto)
        for name, route in routes.items():
            if route["register"]:
                exec(compile(route["register"], f"docs/verl.md:{name}", "exec"), {})
            cfg = trainer_config(route["overrides"], tmp)
            data = plain if name == "custom_function" else ours
            out[name] = in_process(name, cfg, tok, data)
        cfg_importlib = trainer_config(routes["importlib"]["overrides"], tmp)
        out["no_rewardloop"] = without_rewardloop(OmegaConf.to_yaml(cfg_importlib), tmp)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            out["ray_importlib"] = with_ray(cfg_importlib, ours)
            out["ray_custom_function"] = with_ray(
                trainer_config(routes["custom_function"]["overrides"], tmp), plain
            )
        finally:
            ray.shutdown()
    print(json.dumps(out))


if __name__ == "__main__":
    main()

"""DESIGN §3.11, issue 25: one reward config gives one reward. The same rows are scored through every entry
point — the builder's ``RewardManager``, ``rewardloop score --config`` (a subprocess), a real ``rewardloop serve``
process, verl's loop manager, and the TRL and OpenRLHF adapters — and every path returns the same rewards and
the same per-sample metrics (components, monitor flags, routed scorers' keys)."""

from __future__ import annotations

import asyncio
import json
import math

import pytest
import yaml

from rewardloop import RewardManager, Sample
from rewardloop.config import load_reward_config
from rewardloop.errors import ConfigError
from tests.cli._util import read_jsonl, run_cli, write_jsonl

# components + monitors (with a penalty), and routes + monitors: the keys `score --config` used to drop
COMPOSITE = {
    "runner": {"workers": 1},
    "components": [
        {"scorer": "math_dapo", "name": "acc"},
        {"scorer": "tag_count", "name": "tags", "weight": 0.5},
    ],
    "monitors": {"enable": True, "penalize": {"hedging": -1.5}},
}
ROUTED = {
    "runner": {"workers": 1},
    "routes": {"mine": "math_dapo", "gsm*": {"scorer": "gsm8k", "options": {"method": "flexible"}}},
    "monitors": {"enable": True},
}
CONFIGS = {"composite": COMPOSITE, "routed": ROUTED}

ROWS = [  # (data_source, ground truth, response)
    ("mine", "7", "<think>\nadd\n</think>\n<answer>\nAnswer: 7\n</answer>"),
    ("mine", "7", "Answer: 8"),
    ("mine", "12", "It is \\boxed{12} or \\boxed{13}. Answer: 12"),  # a hedge: penalised in COMPOSITE
    ("gsm_custom", "42", "so the total is 42"),
    ("gsm_custom", "42", "<think>\n<think>\n</think> no idea"),  # tag spam
]


def _verl_rows() -> list[dict]:
    return [
        {
            "data_source": src,
            "reward_model": {"style": "rule", "ground_truth": gt},
            "extra_info": {"index": i},
            "prompt": f"question {i}",
            "response": resp,
        }
        for i, (src, gt, resp) in enumerate(ROWS)
    ]


def _samples() -> list[Sample]:
    return [
        Sample(resp, gt, src, prompt=f"question {i}", metadata={"index": i})
        for i, (src, gt, resp) in enumerate(ROWS)
    ]


def _numeric(metrics: dict) -> dict[str, float]:
    return {k: float(v) for k, v in metrics.items() if isinstance(v, bool | int | float) and v is not None}


def _by_builder(cfg: dict) -> tuple[list[float], list[dict[str, float]]]:
    manager = RewardManager.from_config(cfg)
    try:
        batch = manager.score(_samples())
    finally:
        manager.close()
    assert all(s.ok for s in batch), [s.info for s in batch]
    return [s.value for s in batch], [_numeric(s.metrics) for s in batch]


def _by_cli(cfg: dict, tmp_path) -> tuple[list[float], list[dict[str, float]]]:
    tmp_path.mkdir()
    config = tmp_path / "reward.yaml"
    config.write_text(yaml.safe_dump({"reward": cfg}))
    src = write_jsonl(tmp_path / "rows.jsonl", _verl_rows())
    out = tmp_path / "out.jsonl"
    proc = run_cli("score", src, "--config", config, "-o", out)
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(out)
    assert [r["status"] for r in rows] == ["ok"] * len(ROWS)
    return [r["score"] for r in rows], [_numeric(r["metrics"]) for r in rows]


def _by_service(cfg: dict, tmp_path) -> tuple[list[float], list[dict[str, float]]]:
    pytest.importorskip("fastapi")
    from tests.server.conftest import start_server

    tmp_path.mkdir()
    server = start_server(tmp_path, {"server": {"sandbox": False}, "reward": cfg})
    try:
        with server.client() as client:
            samples = [
                {
                    "response": s.response,
                    "ground_truth": s.ground_truth,
                    "task": s.task,
                    "prompt": s.prompt,
                    "metadata": dict(s.metadata),
                }
                for s in _samples()
            ]
            reply = client.post("/v1/score", json={"samples": samples})
    finally:
        server.stop()
    assert reply.status_code == 200, reply.text
    scores = reply.json()["scores"]
    assert [s["status"] for s in scores] == ["ok"] * len(ROWS)
    return [s["reward"] for s in scores], [_numeric(s["metrics"]) for s in scores]


def _by_trl(cfg: dict) -> tuple[list[float], list[dict[str, float]]]:
    from rewardloop.integrations.trl import reward_func

    extra: dict[str, list] = {}
    rows = _verl_rows()
    fn = reward_func(config=cfg, name="r")
    try:
        rewards = fn(
            prompts=[r["prompt"] for r in rows],
            completions=[r["response"] for r in rows],
            data_source=[r["data_source"] for r in rows],
            reward_model=[r["reward_model"] for r in rows],
            extra_info=[r["extra_info"] for r in rows],
            log_extra=lambda key, values: extra.__setitem__(key, values),
        )
    finally:
        fn.close()
    metrics: list[dict[str, float]] = [{} for _ in rows]
    for key, values in extra.items():
        if key.startswith("r/"):
            for i, v in enumerate(values):
                if v is not None:
                    metrics[i][key[2:]] = v
    return rewards, metrics


def _by_openrlhf(cfg: dict) -> tuple[list[float], list[dict[str, float]]]:
    from rewardloop.integrations.openrlhf import make_reward_func

    fn = make_reward_func(config=cfg, return_tensors=False)
    rows = _verl_rows()
    try:
        out = fn(
            [r["prompt"] + r["response"] for r in rows],
            [r["prompt"] for r in rows],
            [
                {
                    "ground_truth": r["reward_model"]["ground_truth"],
                    "data_source": r["data_source"],
                    "extra_info": r["extra_info"],
                }
                for r in rows
            ],
        )
    finally:
        fn.close()
    metrics: list[dict[str, float]] = [{} for _ in rows]
    for key, values in out["extra_logs"].items():
        if key != "rewardloop_failed":
            for i, v in enumerate(values):
                metrics[i][key] = v
    return out["rewards"], metrics


def _by_verl(cfg: dict) -> tuple[list[float], list[dict[str, float]]]:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from rewardloop.integrations.verl import LoopNaiveRewardManager
    from tests._rollouts import make_batch, shared_tokenizer

    tokenizer = shared_tokenizer()
    rows = [{"response": r, "data_source": s, "ground_truth": g} for s, g, r in ROWS]
    batch = make_batch(tokenizer, rows)
    for i in range(len(ROWS)):  # the same prompts as the other paths (the monitors read them)
        batch.non_tensor_batch["extra_info"][i] = {"index": i}
    manager = LoopNaiveRewardManager({"reward": cfg}, tokenizer)
    try:
        out = asyncio.run(manager.run_batch(batch))
    finally:
        manager.close()
    return [o["reward_score"] for o in out], [_numeric(o["reward_extra_info"]) for o in out]


def _same(expected, got, where: str) -> None:
    rewards, metrics = expected
    assert got[0] == pytest.approx(rewards), where
    for i, (want, have) in enumerate(zip(metrics, got[1], strict=True)):
        common = set(want) & set(have)
        # every metric of the builder's score reaches the path (the TRL/OpenRLHF logs carry numbers only)
        assert set(want) <= set(have), f"{where}, row {i}: missing {sorted(set(want) - set(have))}"
        assert {k: have[k] for k in common} == pytest.approx({k: want[k] for k in common}), (
            f"{where}, row {i}"
        )


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_entry_point_gives_the_builders_rewards_and_metrics(name, tmp_path):
    cfg = CONFIGS[name]
    expected = _by_builder(cfg)
    rewards, metrics = expected
    # the config is really applied (not the routing table's defaults): monitors flag, components/routes score
    assert all("monitor/any" in m for m in metrics)
    assert metrics[2]["monitor/hedging"] == 1.0 and metrics[4]["monitor/tag_spam"] == 1.0
    if name == "composite":
        assert rewards[0] == pytest.approx(1.0 + 0.5 * 1.0) and rewards[2] == -1.5  # tags + penalty
        assert metrics[1]["acc"] == -1.0
    else:
        assert rewards[:2] == [1.0, -1.0] and rewards[3] == 1.0  # math_dapo and gsm8k flexible by route
    _same(expected, _by_cli(cfg, tmp_path / "cli"), "cli")
    _same(expected, _by_trl(cfg), "trl")
    _same(expected, _by_openrlhf(cfg), "openrlhf")
    _same(expected, _by_verl(cfg), "verl loop manager")
    _same(expected, _by_service(cfg, tmp_path / "service"), "service")


def test_routes_round_trip_and_name_the_bad_scorer():
    cfg = load_reward_config(ROUTED)
    assert load_reward_config(cfg.as_dict()) == cfg
    assert cfg.fingerprint() == load_reward_config(cfg.as_dict()).fingerprint()
    assert cfg.fingerprint() != load_reward_config(COMPOSITE).fingerprint()
    with pytest.raises(ConfigError, match=r"reward\.routes\.x\.options must be a mapping"):
        load_reward_config({"routes": {"x": {"scorer": "gsm8k", "options": 3}}})
    with pytest.raises(Exception, match="nope"):
        RewardManager.from_config({"routes": {"x": "nope"}})


def test_what_a_path_cannot_apply_is_named_or_refused(tmp_path):
    overlong = {
        "reward_kwargs": {
            "overlong_buffer_cfg": {"enable": True, "len": 4, "penalty_factor": 1.0},
            "max_resp_len": 8,
        },
        "monitors": {"enable": True},
    }
    from rewardloop.integrations.openrlhf import make_reward_func

    with pytest.raises(ConfigError, match=r"no token lengths.*overlong_buffer_cfg.*overlong_zone"):
        make_reward_func(config=overlong)
    # the CLI names it on stderr and in the summary; with --length-key the penalty is applied
    config = tmp_path / "reward.yaml"
    config.write_text(yaml.safe_dump({"reward": overlong}))
    rows = [{**r, "data_source": "math_dapo", "n_tokens": 8} for r in _verl_rows()[:2]]
    src = write_jsonl(tmp_path / "rows.jsonl", rows)
    summary = tmp_path / "summary.json"
    proc = run_cli("score", src, "--config", config, "-o", tmp_path / "a.jsonl", "--summary-json", summary)
    assert proc.returncode == 0, proc.stderr
    assert "not applied: reward_kwargs.overlong_buffer_cfg" in proc.stderr
    assert any("overlong_zone" in n for n in json.loads(summary.read_text())["not_applied"])
    plain = read_jsonl(tmp_path / "a.jsonl")
    proc = run_cli("score", src, "--config", config, "-o", tmp_path / "b.jsonl", "--length-key", "n_tokens")
    assert proc.returncode == 0, proc.stderr
    assert "not applied" not in proc.stderr
    shaped = read_jsonl(tmp_path / "b.jsonl")
    assert [r["status"] for r in shaped] == [r["status"] for r in plain] == ["ok", "ok"]
    assert [r["score"] for r in plain] == [1.0, -1.0]
    for a, b in zip(plain, shaped, strict=True):
        assert math.isclose(b["score"], a["score"] - 1.0)  # L = max_resp_len: the full penalty
        assert (
            b["metrics"]["monitor/overlong_zone"] is True and a["metrics"]["monitor/overlong_zone"] is False
        )

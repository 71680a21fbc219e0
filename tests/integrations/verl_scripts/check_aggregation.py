"""Run under the real verl 0.9.1 interpreter (.venv-verl) by tests/integrations/test_verl_aggregation.py.

Drives verl's own streaming reward path with rewardloop's worker handles: verl's ``AgentLoopWorker._compute_score``
builds each trajectory's ``DataProto`` (several outputs per trajectory where asked, right-padded as verl pads them)
and awaits ``handle.compute_score.remote(data)``; verl's ``AgentLoopWorker._postprocess`` then builds the batch's
``reward_extra_info`` columns from the *first* sample's keys, in every order of the batch. On the result it runs
verl's GDPO advantage and its validation-metric reduction. As a control, verl's own ``naive`` loop manager goes
through the same aggregation on the mixed-source batch.

Prints one JSON object.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import torch
from omegaconf import OmegaConf
from tests._rollouts import build_tokenizer
from verl.experimental.agent_loop.agent_loop import (
    AgentLoopMetrics,
    AgentLoopOutput,
    AgentLoopWorker,
    _InternalAgentLoopOutput,
)

from rewardloop.integrations import verl as rl

CUSTOM = textwrap.dedent(
    """
    import os
    import time

    def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        case = extra_info["case"]
        if case == "float":  # the gdpo manager adds the experiment name, as verl's does
            return 1.0 if ground_truth in solution_str and extra_info.get("experiment_name") == "agg-check" else 0.0
        if case == "dict":
            return {"score": 0.5, "format_reward": 1.0, "accuracy_reward": 0.0, "judge": "ok"}
        if case == "partial_dict":  # only one of the GDPO components
            return {"score": 0.25, "accuracy_reward": 1.0}
        if case == "raise":
            raise RuntimeError("scorer bug")
        if case == "loop":
            while True:
                time.sleep(0.05)
        if case == "exit":
            os._exit(3)
        if case == "bad":
            return "not a score"
        raise AssertionError(case)
    """
)


class FakeWorker:
    """The attributes of verl's ``AgentLoopWorker`` that ``_compute_score`` / ``_postprocess`` read."""

    def __init__(self, handles: list) -> None:
        self.reward_loop_worker_handles = handles
        self.processor = None
        self.mm_processor_kwargs = None

    _compute_multi_modal_inputs = AgentLoopWorker._compute_multi_modal_inputs
    _compute_position_ids = AgentLoopWorker._compute_position_ids
    _get_mm_processor_kwargs = AgentLoopWorker._get_mm_processor_kwargs


def trajectory(tok, prompt: str, responses: list[str]) -> list[AgentLoopOutput]:
    """One trajectory: one output per response; every output repeats the prompt (as multi-output agents do)."""
    prompt_ids = tok.encode(prompt)
    return [
        AgentLoopOutput(
            prompt_ids=prompt_ids if i else prompt_ids * 3,  # outputs differ in prompt length
            response_ids=tok.encode(text),
            response_mask=[1] * len(tok.encode(text)),
            num_turns=2,
            metrics=AgentLoopMetrics(),
        )
        for i, text in enumerate(responses)
    ]


async def score_stream(worker: FakeWorker, tok, cases: list[dict]) -> list[AgentLoopOutput]:
    finals = []
    for case in cases:
        outputs = trajectory(tok, case.get("prompt", "question"), case["responses"])
        kwargs = {
            "data_source": case["data_source"],
            "reward_model": {"ground_truth": case["ground_truth"], "style": "rule"},
            "extra_info": dict(case.get("extra_info", {})),
            "uid": case.get("uid", "u0"),
        }
        await AgentLoopWorker._compute_score(worker, outputs, kwargs)
        finals.append(outputs[-1])
    return finals


def internal(output: AgentLoopOutput, width: int) -> _InternalAgentLoopOutput:
    """The padded form ``_postprocess`` receives (prompt left-padded, response right-padded to ``width``)."""
    p, r = output.prompt_ids[-width:], output.response_ids[:width]
    prompt = torch.zeros(1, width, dtype=torch.long)
    prompt[0, width - len(p) :] = torch.tensor(p)
    response = torch.zeros(1, width, dtype=torch.long)
    response[0, : len(r)] = torch.tensor(r)
    pmask = torch.zeros(1, width, dtype=torch.long)
    pmask[0, width - len(p) :] = 1
    rmask = torch.zeros(1, width, dtype=torch.long)
    rmask[0, : len(r)] = 1
    attention = torch.cat([pmask, rmask], dim=1)
    return _InternalAgentLoopOutput(
        prompt_ids=prompt,
        response_ids=response,
        input_ids=torch.cat([prompt, response], dim=1),
        position_ids=torch.cumsum(attention, dim=1) - 1,
        response_mask=rmask,
        attention_mask=attention,
        reward_score=output.reward_score,
        num_turns=output.num_turns,
        metrics=output.metrics,
        extra_fields=dict(output.extra_fields),
    )


def aggregate_every_order(worker: FakeWorker, finals: list, limit: int = 720) -> dict:
    """verl's ``_postprocess`` on every order of ``finals``: failures counted, columns checked."""
    width = 64
    inputs = [internal(o, width) for o in finals]
    all_keys = set().union(*(o.extra_fields.get("reward_extra_info", {}).keys() for o in finals))
    orders = errors = dropped = non_numeric = 0
    first_error = None
    for order in itertools.islice(itertools.permutations(range(len(inputs))), limit):
        orders += 1
        try:
            out = AgentLoopWorker._postprocess(worker, [inputs[i] for i in order])
        except Exception as exc:
            errors += 1
            first_error = first_error or f"{type(exc).__name__}: {exc}"
            continue
        keys = set(out.meta_info.get("reward_extra_keys", []))
        dropped += len(all_keys - keys)
        for key in keys:
            column = out.non_tensor_batch[key]
            sample = finals[order[0]].extra_fields["reward_extra_info"][key]
            if isinstance(sample, bool | int | float) and column.dtype.kind not in "biuf":
                non_numeric += 1
    return {
        "orders": orders,
        "errors": errors,
        "first_error": first_error,
        "dropped_columns": dropped,
        "non_numeric_columns": non_numeric,
        "keys": sorted(all_keys),
    }


def gdpo_and_metrics(worker: FakeWorker, finals: list, uids: list[str]) -> dict:
    from verl.trainer.ppo.core_algos import compute_gdpo_outcome_advantage
    from verl.trainer.ppo.metric_utils import process_validation_metrics

    width = 64
    out = AgentLoopWorker._postprocess(worker, [internal(o, width) for o in finals])
    cfg = OmegaConf.create({"gdpo_reward_keys": ["format_reward", "accuracy_reward"]})
    adv, _ = compute_gdpo_outcome_advantage(
        token_level_rewards=out.batch["rm_scores"],
        response_mask=out.batch["response_mask"],
        index=np.array(uids, dtype=object),
        config=cfg,
        non_tensor_batch=out.non_tensor_batch,
        batch=out.batch,
    )
    infos = {k: list(out.non_tensor_batch[k]) for k in out.meta_info["reward_extra_keys"]}
    data_sources = ["custom"] * len(finals)
    metrics = process_validation_metrics(
        data_sources, uids, {"reward": [o.reward_score for o in finals], **infos}
    )
    flat = [v for src in metrics.values() for var in src.values() for v in var.values()]
    return {
        "gdpo_finite": bool(torch.isfinite(adv).all()),
        "metrics_finite": all(np.isfinite(v) for v in flat),
        "n_metrics": len(flat),
    }


def main() -> None:
    import verl

    tok = build_tokenizer()
    tmp = Path(tempfile.mkdtemp())
    fn_file = tmp / "my_reward.py"
    fn_file.write_text(CUSTOM)
    base = OmegaConf.load(Path(verl.__file__).parent / "trainer" / "config" / "_generated_ppo_trainer.yaml")
    out: dict = {"verl_version": verl.__version__}

    # 1. the routing table over mixed sources: float and dict scorers, an unknown source, a malformed row
    mixed = [
        {"data_source": "openai/gsm8k", "ground_truth": "42", "responses": ["so #### 42"]},
        {"data_source": "math_dapo", "ground_truth": "7", "responses": ["Answer: 7"]},
        {"data_source": "no_such_source", "ground_truth": "1", "responses": ["1"]},
        {
            "data_source": "lighteval/MATH",
            "ground_truth": "\\frac12",
            "responses": ["wrong", "\\boxed{\\frac{1}{2}}"],
        },
        {"data_source": "math_dapo", "ground_truth": "3", "responses": ["Answer: 4"]},
        {"data_source": "openai/gsm8k", "ground_truth": "5", "responses": ["#### 6"]},
    ]
    for name in ("naive", "dapo"):
        cfg = OmegaConf.merge(base, {"reward": {"reward_manager": {"name": name}}})
        if name == "dapo":
            cfg = OmegaConf.merge(
                cfg,
                {
                    "reward": {
                        "reward_kwargs": {
                            "overlong_buffer_cfg": {"enable": True, "len": 2, "log": True},
                            "max_resp_len": 8,
                        }
                    }
                },
            )
        with rl.RewardLoopManager(cfg, tokenizer=tok) as manager:
            worker = FakeWorker(manager.reward_loop_worker_handles)
            finals = asyncio.run(score_stream(worker, tok, mixed))
            out[f"routing_{name}"] = aggregate_every_order(worker, finals)
            out[f"routing_{name}"]["rewards"] = [o.reward_score for o in finals]
            out[f"routing_{name}"]["statuses"] = [
                o.extra_fields["reward_extra_info"]["reward_status"] for o in finals
            ]

    # 2. a custom function (by path) that returns floats, dicts, raises, loops forever, exits, returns junk,
    #    with GDPO component keys declared by algorithm.gdpo_reward_keys
    cases = ["float", "dict", "partial_dict", "raise", "loop", "exit", "bad"]
    custom = [
        {
            "data_source": "custom",
            "ground_truth": "42",
            "responses": ["#### 42"],
            "extra_info": {"case": c},
            "uid": f"u{i % 3}",
        }
        for i, c in enumerate(cases)
    ]
    cfg = OmegaConf.merge(
        base,
        {
            "algorithm": {"adv_estimator": "gdpo", "gdpo_reward_keys": ["format_reward", "accuracy_reward"]},
            "trainer": {"experiment_name": "agg-check"},
            "reward": {
                "reward_manager": {"name": "gdpo"},
                "custom_reward_function": {"path": str(fn_file), "name": "compute_score"},
                "runner": {"timeout_s": 2.0},
            },
        },
    )
    with rl.RewardLoopManager(cfg, tokenizer=tok) as manager:
        worker = FakeWorker(manager.reward_loop_worker_handles)
        finals = asyncio.run(score_stream(worker, tok, custom))
        res = aggregate_every_order(worker, finals, limit=5040)
        res["rewards"] = [o.reward_score for o in finals]
        res["statuses"] = [o.extra_fields["reward_extra_info"]["reward_status"] for o in finals]
        res.update(gdpo_and_metrics(worker, finals, [c["uid"] for c in custom]))
        out["custom_gdpo"] = res

    # 3. control: verl's own loop `naive` manager through the same aggregation on the mixed batch
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager as VerlLoopNaive

    class VerlHandle:
        def __init__(self, manager) -> None:
            self.manager = manager
            self.compute_score = self

        async def remote(self, data):
            return await self.manager.run_single(data)

    async def control() -> tuple[FakeWorker, list]:
        worker = FakeWorker([VerlHandle(VerlLoopNaive(base, tok, None))])  # binds to the running loop
        known = [c for c in mixed if c["data_source"] != "no_such_source"]
        return worker, await score_stream(worker, tok, known)

    worker, finals = asyncio.run(control())
    out["verl_control"] = aggregate_every_order(worker, finals)

    print(json.dumps(out))
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Run under the real verl 0.9.1 interpreter (.venv-verl) by tests/integrations/test_real_verl.py.

Every classic manager of verl (naive, dapo, batch, prime) and ours scores the same real ``DataProto``, empty
responses included; our reward-loop paths (``run_batch``, ``compute_rm_score``) score it too. Prints one JSON
object: each tensor, and each sample's score as the manager reports it (``reward_extra_info['score']``).
"""

from __future__ import annotations

import asyncio
import json
import sys

from tests._rollouts import build_tokenizer, make_batch
from verl import DataProto
from verl.utils.reward_score import default_compute_score as verl_score
from verl.workers.reward_manager import BatchRewardManager as VerlBatch
from verl.workers.reward_manager import DAPORewardManager as VerlDAPO
from verl.workers.reward_manager import NaiveRewardManager as VerlNaive
from verl.workers.reward_manager import PrimeRewardManager as VerlPrime

from rewardloop.integrations import verl as rl

ROWS = [
    {"response": "Answer: 7", "data_source": "math_dapo", "ground_truth": "7"},
    {"response": "", "data_source": "math_dapo", "ground_truth": "7"},  # verl: -1 at the last column
    {"response": "Answer: 8", "data_source": "math_dapo", "ground_truth": "7"},
    {"response": "The answer is #### 42", "data_source": "openai/gsm8k", "ground_truth": "42"},
    {"response": "", "data_source": "openai/gsm8k", "ground_truth": "42"},
]
# verl's PrimeRewardManager takes float scores only (a math_dapo dict makes it set every reward to 0)
FLOAT_ROWS = [
    ROWS[3],
    ROWS[4],
    {"response": "so \\boxed{3}", "data_source": "lighteval/MATH", "ground_truth": "3"},
]


def batch_fn(data_sources, solution_strs, ground_truths, extra_infos, **kwargs):
    return [
        verl_score(d, s, g, e)
        for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extra_infos, strict=True)
    ]


def _run(manager, data) -> dict:
    out = manager(data, return_dict=True)
    scores = out.get("reward_extra_info", {}).get("score")  # verl's prime manager returns no extra info
    close = getattr(manager, "close", None)
    if close is not None:
        close()
    return {
        "tensor": out["reward_tensor"].tolist(),
        "score": None if scores is None else [float(x) for x in scores],
    }


def main() -> None:
    tok = build_tokenizer()
    data = make_batch(tok, ROWS, cls=DataProto)
    floats = make_batch(tok, FLOAT_ROWS, cls=DataProto)
    out: dict = {"verl": {}, "ours": {}}
    pairs = {
        "naive": (lambda: VerlNaive(tok, 0), lambda: rl.NaiveRewardManager(tok, 0)),
        "dapo": (lambda: VerlDAPO(tok, 0), lambda: rl.DAPORewardManager(tok, 0)),
        "batch": (lambda: VerlBatch(tok, 0, batch_fn), lambda: rl.BatchRewardManager(tok, 0, batch_fn)),
        "prime": (lambda: VerlPrime(tok, 0), lambda: rl.PrimeRewardManager(tok, 0)),
    }
    for name, (theirs, ours) in pairs.items():
        batch = floats if name == "prime" else data
        out["verl"][name] = _run(theirs(), batch)
        out["ours"][name] = _run(ours(), batch)
    loop = rl.LoopDAPORewardManager({}, tok)
    try:
        singles = asyncio.run(loop.run_batch(data))
    finally:
        loop.close()
    out["loop_scores"] = [s["reward_score"] for s in singles]
    with rl.RewardLoopManager({}, tokenizer=tok) as manager:
        res = manager.compute_rm_score(data)
    out["rm_scores"] = res.batch["rm_scores"].tolist()
    out["rm_score_column"] = [float(x) for x in res.non_tensor_batch["score"]]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

"""Call the OpenRLHF reward file the way OpenRLHF 0.10 does, without OpenRLHF or a GPU.

    python examples/openrlhf/try_reward_func.py

OpenRLHF imports the file given to ``--reward.remote_url`` (``--remote_rm_url`` before 0.10) by path,
then calls ``reward_func([query], [prompt], [label])`` once per sample from worker threads; the query is
prompt + response decoded with special tokens.

Needs nothing beyond rewardloop itself: with torch installed the reward function returns tensors (as
OpenRLHF wants), without it plain lists; both are printed the same way.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
from pathlib import Path
from typing import Any

PROMPT = "<|im_start|>user\nWhat is 6*7? Answer after '####'.<|im_end|>\n<|im_start|>assistant\n"
SAMPLES = [
    (PROMPT + "6*7 = 42\n#### 42<|im_end|>", PROMPT, "42"),
    (PROMPT + "6*7 = 36\n#### 36<|im_end|>", PROMPT, "42"),
    (PROMPT + "<|im_end|>", PROMPT, "42"),  # empty response
]


async def main() -> None:
    os.environ.setdefault("REWARDLOOP_DATA_SOURCE", "openai/gsm8k")
    path = Path(__file__).with_name("reward_func.py")
    spec = importlib.util.spec_from_file_location("reward_func", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = await asyncio.gather(
        *(asyncio.to_thread(module.reward_func, [q], [p], [lb]) for q, p, lb in SAMPLES)
    )
    for (query, _, label), info in zip(SAMPLES, results, strict=True):
        logs = {k: _plain(v) for k, v in info["extra_logs"].items()}
        print(f"label={label!r} response={query[len(PROMPT) :]!r}")
        print(f"  rewards={_plain(info['rewards'])} scores={_plain(info['scores'])} extra_logs={logs}")


def _plain(values: Any) -> list:
    """A tensor (torch installed) or a list (no torch) as a list."""
    return values.tolist() if hasattr(values, "tolist") else list(values)


if __name__ == "__main__":
    asyncio.run(main())

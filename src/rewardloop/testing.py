"""Test helpers for reward code: a toy tokenizer built locally and verl-shaped batches.

For users' own tests of reward functions and managers, and for rewardloop's tests and examples. Needs
``tokenizers``/``transformers`` (the ``models`` extra) and torch; nothing is downloaded.

* :func:`toy_tokenizer` -- a real byte-level BPE tokenizer (``PreTrainedTokenizerFast``, ``<pad>``/``<eos>``)
  trained in a moment on a small math corpus;
* :func:`make_verl_batch` -- a batch shaped like verl's rollouts (left-padded prompts, right-padded responses
  with EOS, ``attention_mask``, optional ``response_mask``, ``data_source``/``reward_model``/``extra_info``
  columns), as a :class:`~rewardloop.managers.RolloutBatch` or any class with ``from_dict`` (verl's DataProto).
"""

from __future__ import annotations

__all__ = ["make_verl_batch", "toy_tokenizer"]

from collections.abc import Sequence
from typing import Any

_CORPUS = [
    "The answer is #### 42. So the final answer is \\boxed{\\frac{1}{2}}.",
    "Let x = 3, then 2x + 1 = 7. Therefore \\boxed{7}. #### 18",
    "Answer: 3/4 is 0.75 and sqrt(2) is irrational.",
] * 20


def toy_tokenizer() -> Any:
    """A byte-level BPE tokenizer (vocabulary ~400) built locally."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<pad>", "<eos>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(_CORPUS, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>")  # type: ignore[no-untyped-call]


def make_verl_batch(
    tokenizer: Any,
    rows: Sequence[dict[str, Any]],
    *,
    prompt_len: int = 6,
    response_len: int = 48,
    eos: bool = True,
    with_response_mask: bool = False,
    cls: Any = None,
) -> Any:
    """A verl-shaped batch: left-padded prompts, right-padded responses (+EOS), non-tensor columns.

    Each row: ``response`` (text), ``data_source``, ``ground_truth``; optional ``extra_info``,
    ``prompt`` (text), ``mask`` (explicit response_mask list for the valid tokens).
    """
    import torch

    from rewardloop.managers import RolloutBatch

    pad, eos_id = tokenizer.pad_token_id, tokenizer.eos_token_id
    prompts, responses, attn, rmask = [], [], [], []
    for row in rows:
        p_ids = tokenizer.encode(row.get("prompt", "Q:"))[-prompt_len:]
        r_ids = tokenizer.encode(row["response"]) if row["response"] else []
        if eos and row["response"]:
            r_ids = [*r_ids, eos_id]
        r_ids = r_ids[:response_len]
        prompts.append([pad] * (prompt_len - len(p_ids)) + p_ids)
        responses.append(r_ids + [pad] * (response_len - len(r_ids)))
        attn.append(
            [0] * (prompt_len - len(p_ids))
            + [1] * len(p_ids)
            + [1] * len(r_ids)
            + [0] * (response_len - len(r_ids))
        )
        m = row.get("mask", [1] * len(r_ids))
        rmask.append(list(m) + [0] * (response_len - len(m)))
    tensors = {
        "prompts": torch.tensor(prompts),
        "responses": torch.tensor(responses),
        "attention_mask": torch.tensor(attn),
    }
    tensors["input_ids"] = torch.cat([tensors["prompts"], tensors["responses"]], dim=1)
    if with_response_mask:
        tensors["response_mask"] = torch.tensor(rmask)
    non_tensors = {
        "data_source": [r["data_source"] for r in rows],
        "reward_model": [{"ground_truth": r["ground_truth"], "style": "rule"} for r in rows],
        "extra_info": [r.get("extra_info", {"index": i}) for i, r in enumerate(rows)],
    }
    for key in ("__num_turns__", "reward_scores", "tool_extra_fields", "uid", "raw_prompt"):
        if any(key in r for r in rows):
            non_tensors[key] = [r.get(key) for r in rows]
    if cls is not None:
        import numpy as np

        return cls.from_dict(
            tensors=tensors, non_tensors={k: np.array(v, dtype=object) for k, v in non_tensors.items()}
        )
    return RolloutBatch.from_dict(tensors, non_tensors)

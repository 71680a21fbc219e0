"""Inputs of ``managers_vs_verl.py``: the gsm8k + MATH rollout batch, its tokenizer and its tensors.

Runs under ``.venv/bin/python`` (torch, tokenizers, transformers). Writes into one folder:

* ``tokenizer/`` -- a byte-level BPE tokenizer trained here on the workload's prompts and responses
  (``tokenizers``; nothing is downloaded), saved with ``save_pretrained`` so both venvs load the same files;
* ``tensors.pt`` -- verl's rollout layout, exactly ``rows x response_tokens`` responses: ``prompts``
  (left-padded), ``responses`` (right-padded, each cut to ``response_tokens``), ``input_ids``,
  ``attention_mask``, ``position_ids``;
* ``non_tensors.json`` -- ``data_source``, ``reward_model`` (``{"style", "ground_truth"}``) and
  ``extra_info`` (``{"index", "split"}``) per row;
* ``rows.jsonl`` -- the rows (``kind``, ``family``, the response as the tokens decode, its token count).

Rows: half ``openai/gsm8k``, half ``lighteval/MATH``, built from ``../shared/data`` by the generators of
``_runner_workload.py`` (correct, equivalent, wrong, unparsable, long chains of thought, truncated). Without
the shared data they come from ``examples/make_rollouts.py`` (via ``mixed_workload``'s fallback).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

SPECIAL = ["<pad>", "<eos>"]
PROMPT_TOKENS = 256  # prompts are cut from the left, as verl's max_prompt_length does


# --------------------------------------------------------------------------- rows


def gsm8k_math_rows(data: Path | None, n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` rows, half gsm8k and half MATH (see the module docstring); distinct (response, gold) pairs.

    A few spare rows are generated per source, so that dropping duplicates still leaves ``n``.
    """
    spare = max(16, n // 32)
    rows = _from_shared(data, n // 2 + spare, seed) if data is not None else None
    if rows is None:
        rows = _fallback(n, seed)
    seen: set[tuple[str, str, str]] = set()
    by_source: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        key = (row["data_source"], row["response"], str(row["ground_truth"]))
        if key not in seen:
            seen.add(key)
            by_source.setdefault(row["data_source"], []).append(row)
    sources = sorted(by_source, key=lambda s: s != "openai/gsm8k")
    picked = by_source[sources[0]][: n // 2]
    for source in sources[1:]:
        picked += by_source[source][: n - len(picked)]
    return [{**row, "id": i} for i, row in enumerate(picked)]


def _from_shared(data: Path, per_family: int, seed: int) -> list[dict[str, Any]] | None:
    import _runner_workload as w

    if not (data / "math").is_dir():
        return None
    rng = random.Random(seed)
    b = w._Builder(rng)
    block = sum(w.KIND_MIX.values())  # KIND_MIX is one mix of 256 rows; scale it up
    scale = -(-per_family // block)
    if not w._gsm8k_rows(b, data, {k: v * scale for k, v in w.KIND_MIX.items()}):
        return None
    gsm8k = b.rows[:per_family]
    b.rows = []
    problems = w._math_problems(data, rng)
    for start in range(0, scale * block, block):  # one kind mix per 256 problems
        w._math_family_rows(b, "math", problems[start : start + block], lambda j: "lighteval/MATH")
    return gsm8k + b.rows[:per_family]


def _fallback(n: int, seed: int) -> list[dict[str, Any]]:
    from _runner_workload import mixed_workload

    rows: list[dict[str, Any]] = []
    s = seed
    while len(rows) < 2 * n and s < seed + 50:
        rows += [r for r in mixed_workload(None, seed=s) if r["family"] in ("gsm8k", "math")]
        s += 1
    return rows


# --------------------------------------------------------------------------- tokenizer and tensors


def train_tokenizer(rows: list[dict[str, Any]], vocab_size: int, out_dir: Path) -> Any:
    """Train a byte-level BPE tokenizer on the rows' prompts and responses; save it to ``out_dir``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator((t for r in rows for t in (r["prompt"], r["response"])), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", clean_up_tokenization_spaces=False
    )
    fast.save_pretrained(str(out_dir))
    return fast


def write_batch(
    rows: list[dict[str, Any]], tokenizer: Any, response_tokens: int, out: Path
) -> dict[str, Any]:
    """Write ``tensors.pt``, ``non_tensors.json`` and ``rows.jsonl`` into ``out``; return a summary."""
    import torch

    pad = tokenizer.pad_token_id
    prompts = [tokenizer.encode(r["prompt"], add_special_tokens=False)[-PROMPT_TOKENS:] for r in rows]
    responses = [tokenizer.encode(r["response"], add_special_tokens=False) for r in rows]
    cut = sum(len(r) > response_tokens for r in responses)
    responses = [r[:response_tokens] for r in responses]
    n, p_len = len(rows), max(1, max(map(len, prompts)))
    prompt_t = torch.full((n, p_len), pad, dtype=torch.long)
    resp_t = torch.full((n, response_tokens), pad, dtype=torch.long)
    mask = torch.zeros((n, p_len + response_tokens), dtype=torch.long)
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        if p:
            prompt_t[i, p_len - len(p) :] = torch.tensor(p)
            mask[i, p_len - len(p) : p_len] = 1
        if r:
            resp_t[i, : len(r)] = torch.tensor(r)
            mask[i, p_len : p_len + len(r)] = 1
    tensors = {
        "prompts": prompt_t,
        "responses": resp_t,
        "input_ids": torch.cat([prompt_t, resp_t], dim=-1),
        "attention_mask": mask,
        "position_ids": torch.clamp(torch.cumsum(mask, dim=-1) - 1, min=0),
    }
    torch.save(tensors, out / "tensors.pt")
    non_tensors = {
        "data_source": [r["data_source"] for r in rows],
        "reward_model": [{"style": "rule", "ground_truth": str(r["ground_truth"])} for r in rows],
        "extra_info": [{"index": r["id"], "split": "test"} for r in rows],
    }
    (out / "non_tensors.json").write_text(json.dumps(non_tensors), encoding="utf-8")
    texts = tokenizer.batch_decode(responses, skip_special_tokens=True)
    with open(out / "rows.jsonl", "w", encoding="utf-8") as fh:
        for row, text, ids in zip(rows, texts, responses, strict=True):
            fh.write(json.dumps({**row, "response": text, "response_tokens": len(ids)}) + "\n")
    lengths = sorted(map(len, responses))
    return {
        "rows": n,
        "prompt_width": p_len,
        "response_width": response_tokens,
        "vocab_size": tokenizer.vocab_size,
        "responses_cut_to_width": cut,
        "empty_responses": sum(x == 0 for x in lengths),
        "response_tokens_mean": round(sum(lengths) / n, 1),
        "response_tokens_p50": lengths[n // 2],
        "response_tokens_max": lengths[-1],
        "data_sources": dict(Counter(r["data_source"] for r in rows)),
        "kinds": dict(Counter(f"{r['family']}/{r['kind']}" for r in rows)),
    }

"""Token placement: one scalar reward per sequence, written on the last token the policy generated.

Vectorised torch code (no per-row Python loop). Rule (``docs/managers.md``):

* With a ``response_mask`` (1 = a token the policy generated, 0 = padding or a tool observation), the reward
  goes to the last position whose mask is 1, so tool-observation tokens never receive the model's reward.
* Without it, the valid response length comes from the response part of the ``attention_mask`` (verl's rule)
  and the reward goes to position ``length - 1``.
* A row with no generated token (empty response) gets its reward in its last column, as verl's managers
  write it (``reward_tensor[i, valid_response_length - 1]`` with a length of 0), and is counted in the returned
  ``empty`` mask. verl's GRPO takes each row's sum as the sample's score, so every row sums to its sample's
  reward, empty ones included (math_dapo's -1 for an empty answer is not turned into a 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["last_token_index", "place_at_last_token", "response_lengths"]


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - exercised only without torch
        from ..errors import MissingExtraError

        raise MissingExtraError("torch", "torch") from exc
    return torch


def response_lengths(attention_mask: Any, response_len: int) -> Any:
    """Valid response tokens per row: ``attention_mask[:, -response_len:].sum(1)``.

    Shapes: ``attention_mask (b, P + R)`` -> ``(b,)`` int64.
    """
    return attention_mask[:, attention_mask.shape[1] - response_len :].sum(dim=1).long()


def last_token_index(mask: Any) -> tuple[Any, Any]:
    """Index of the last nonzero entry per row, and which rows have one.

    Shapes: ``mask (b, L)`` -> ``(index (b,) int64, has_token (b,) bool)``; ``index`` is 0 where
    ``has_token`` is False (never used for writing there).
    """
    torch = _torch()
    width = mask.shape[1]
    if width == 0:
        zeros = torch.zeros(mask.shape[0], dtype=torch.long, device=mask.device)
        return zeros, zeros.bool()
    # 1-based positions where the mask is set, 0 elsewhere; the row max is the last set position.
    # int16 positions keep the pass memory-light (the mask itself is usually int64).
    dtype = torch.int16 if width < 32767 else torch.int32
    positions = torch.arange(1, width + 1, dtype=dtype, device=mask.device)
    last = torch.where(mask.bool(), positions, torch.zeros((), dtype=dtype, device=mask.device)).amax(dim=1)
    has_token = last > 0
    index = (last.long() - 1).clamp(min=0)
    return index.long(), has_token


def place_at_last_token(
    scores: Any,
    *,
    response_mask: Any = None,
    lengths: Any = None,
    width: int | None = None,
    dtype: Any = None,
) -> tuple[Any, Any]:
    """Scatter one score per row onto its last generated token.

    Shapes: ``scores (b,)`` (a tensor or a sequence of floats) and either ``response_mask (b, R)`` or
    ``lengths (b,)`` with ``width = R``  ->  ``(rewards (b, R) float32, empty (b,) bool)``. ``empty`` marks rows
    without any generated token; their reward goes to the last column (verl's rule; see the module docstring).
    """
    torch = _torch()
    if response_mask is None and lengths is None:
        raise ValueError("place_at_last_token needs response_mask or lengths")
    device = (response_mask if response_mask is not None else lengths).device
    scores_t = _as_tensor(scores, device)
    if response_mask is not None:
        index, has_token = last_token_index(response_mask)
        width = response_mask.shape[1]
    else:
        if width is None:
            raise ValueError("place_at_last_token(lengths=...) needs width (the response length R)")
        lengths = lengths.long().clamp(max=width)
        has_token = lengths > 0
        index = (lengths - 1).clamp(min=0)
    if scores_t.shape[0] != index.shape[0]:
        raise ValueError(f"{scores_t.shape[0]} scores for {index.shape[0]} rows")
    out = torch.zeros(index.shape[0], width, dtype=dtype or torch.float32, device=device)
    if width == 0:
        return out, ~has_token
    index = torch.where(has_token, index, torch.full_like(index, width - 1))
    out.scatter_(1, index.unsqueeze(1), scores_t.to(out.dtype).unsqueeze(1))
    return out, ~has_token


def _as_tensor(scores: Any, device: Any) -> Any:
    torch = _torch()
    if isinstance(scores, torch.Tensor):
        return scores.to(device=device, dtype=torch.float32)
    if isinstance(scores, Sequence) or hasattr(scores, "__array__"):
        return torch.as_tensor([float("nan") if s is None else float(s) for s in scores], device=device)
    raise TypeError(f"scores must be a tensor or a sequence of numbers, got {type(scores).__name__}")

"""Shared test helpers (built on :mod:`rewardloop.testing`)."""

from __future__ import annotations

from typing import Any

from rewardloop.testing import make_verl_batch as make_batch
from rewardloop.testing import toy_tokenizer as build_tokenizer

__all__ = ["build_tokenizer", "make_batch", "shared_tokenizer"]

_TOKENIZER: list[Any] = []


def shared_tokenizer() -> Any:
    """One tokenizer per test session (building it takes a moment)."""
    if not _TOKENIZER:
        _TOKENIZER.append(build_tokenizer())
    return _TOKENIZER[0]

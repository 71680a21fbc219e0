"""Discriminative reward model (DisRM) scorer: prompt + response -> one scalar from an HTTP server.

Semantics follow verl's ``compute_score_disrm``: the input is the chat prompt (``Sample.prompt`` or
``metadata["raw_prompt"]``) plus the response as the assistant turn, rendered with the reward model's own
chat template, with EOS tokens removed from the response and a leading BOS dropped; the reward is

* ``protocol="vllm"``: ``POST /classify`` with activation off, ``data[-1].probs[-1]`` (the raw logit);
* ``protocol="sglang"``: ``POST /v1/embeddings``, ``data[-1].embedding[-1]``.

The address is a server, or a router in front of several (``RewardModelManager.router_address``).
Unlike verl, every request has a timeout, and a failure is a status, never a zero: a missing prompt is
``invalid_input``, an outage ``infra_error`` (the Runner retries it), a 4xx ``invalid_input`` /
``scorer_error``, a malformed answer ``scorer_error``.

This scorer is async (``ascore``); the Runner awaits it. ``score`` is a blocking facade for scripts.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, ClassVar, cast

from ..clients import RetryPolicy, chat_of, reward_client, rm_input
from ..errors import ConfigError, InfraError, InvalidSampleError, MissingExtraError, RateLimited, ScoringError
from ..types import Sample, Score, Status
from ._base import Scorer

__all__ = ["RewardModelScorer", "failure_of"]


def failure_of(exc: BaseException) -> Score:
    """The failed Score for an error from a model client (kept here: scorers sit below the Runner)."""
    if isinstance(exc, InvalidSampleError):
        status = Status.INVALID_INPUT
    elif isinstance(exc, InfraError):
        status = Status.INFRA_ERROR
    else:
        status = Status.SCORER_ERROR
    return Score.failure(status, f"{type(exc).__name__}: {exc}")


def load_tokenizer(tokenizer: Any) -> Any:
    """A tokenizer object, or one loaded with ``AutoTokenizer.from_pretrained`` from a path/name."""
    if not isinstance(tokenizer, str):
        return tokenizer
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise MissingExtraError("transformers", "models") from exc
    return AutoTokenizer.from_pretrained(tokenizer)


class RewardModelScorer(Scorer):
    """Scores a sample with a DisRM served over HTTP.

    ``address``: ``host:port`` or URL of a server or router. ``model``: the served model name (also where
    the tokenizer is loaded from when ``tokenizer`` is not given). ``tokenizer``: the reward model's
    tokenizer (object, or a path), used only for its chat template. ``address`` / ``model`` default to the
    environment variables ``REWARDLOOP_RM_URL`` / ``REWARDLOOP_RM_MODEL`` (handy with ``rewardloop score``).
    """

    name: ClassVar[str] = "reward_model"
    timeout_s: ClassVar[float | None] = 300.0
    is_async: ClassVar[bool] = True

    def __init__(
        self,
        address: str | None = None,
        model: str | None = None,
        tokenizer: Any = None,
        *,
        protocol: str = "vllm",
        retry: RetryPolicy | None = None,
        api_key: str | None = None,
    ) -> None:
        address = address or os.environ.get("REWARDLOOP_RM_URL")
        model = model or os.environ.get("REWARDLOOP_RM_MODEL")
        if not address or not model:
            raise ConfigError(
                "the reward_model scorer needs address= (host:port or URL of a server or router) and model= "
                "(the served model name), or the environment variables REWARDLOOP_RM_URL / REWARDLOOP_RM_MODEL"
            )
        self.address = address
        self.model = model
        self.protocol = protocol
        self.client = reward_client(protocol, address, model, retry=retry, api_key=api_key)
        self._tokenizer = tokenizer if tokenizer is not None else model

    @property
    def tokenizer(self) -> Any:
        if isinstance(self._tokenizer, str):
            self._tokenizer = load_tokenizer(self._tokenizer)
        return self._tokenizer

    def input_text(self, sample: Sample) -> str:
        """The exact text sent to the reward model for ``sample``."""
        return rm_input(self.tokenizer, chat_of(sample), sample.response)

    async def ascore(self, sample: Sample) -> Score:
        try:
            text = self.input_text(sample)
        except InvalidSampleError as exc:
            return Score.failure(Status.INVALID_INPUT, str(exc))
        try:
            value = await self.client.score(text)
        except RateLimited:
            raise  # the Runner pauses every request of its limiter for Retry-After
        except ScoringError as exc:
            return failure_of(exc)
        return Score(value=value)

    def score(self, sample: Sample) -> Score:
        return cast("Score", asyncio.run(_closing(self.client, self.ascore(sample))))


async def _closing(client: Any, coro: Any) -> Any:
    try:
        return await coro
    finally:
        await client.aclose()

"""Reward models over HTTP (optional extra ``rewardloop[models]``, plus ``[server]`` for serving).

* clients for vLLM ``/classify``, SGLang ``/v1/embeddings`` and OpenAI-compatible chat (judges);
* :class:`Router` — least-in-flight, health-checked routing over N servers (``rewardloop router``);
* the embedded server (``python -m rewardloop.models._server``): a transformers model on CPU/GPU with
  dynamic batching, speaking the same protocols;
* :class:`RewardModelManager` — starts N servers (embedded / vLLM / SGLang) and a router and exposes
  ``router_address`` and ``tokenizer`` (verl's ``reward_router_address`` / ``reward_model_tokenizer``).

The scorers that use them are :class:`rewardloop.scorers.reward_model.RewardModelScorer` (DisRM) and
:class:`rewardloop.scorers.judge.JudgeScorer` (GenRM). See ``docs/reward-models.md``.
"""

from typing import Any

from ..clients import (
    JUDGE_TEMPLATES,
    ChatClient,
    ChatResult,
    ClassifyClient,
    EmbeddingsClient,
    HttpClient,
    ProtocolError,
    RequestRejected,
    RetryPolicy,
    chat_of,
    parse_binary,
    parse_rating,
    render,
    reward_client,
    rm_input,
)
from ._manager import (
    RewardModelManager,
    RewardModelServerConfig,
    launch_command,
    router_command,
    wait_healthy,
)
from ._router import SAFE_HEADERS, Router, RouterConfig, create_app
from ._serving import KEEP_ALIVE_S, ServerThread, free_port

__all__ = [
    "JUDGE_TEMPLATES",
    "KEEP_ALIVE_S",
    "SAFE_HEADERS",
    "ChatClient",
    "ChatResult",
    "ClassifyClient",
    "EmbeddingsClient",
    "HttpClient",
    "ProtocolError",
    "RequestRejected",
    "RetryPolicy",
    "RewardModelManager",
    "RewardModelServerConfig",
    "Router",
    "RouterConfig",
    "ServerThread",
    "chat_of",
    "create_app",
    "free_port",
    "launch_command",
    "parse_binary",
    "parse_rating",
    "render",
    "reward_client",
    "rm_input",
    "router_command",
    "wait_healthy",
]


# deprecated names, kept working with a warning (no two public classes share a name: issue 24)
_DEPRECATED = {"RewardModelConfig": "RewardModelServerConfig"}


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        import warnings

        new = _DEPRECATED[name]
        warnings.warn(
            f"rewardloop.models.{name} is deprecated; use rewardloop.models.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return globals()[new]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""HTTP clients for reward-model servers and judges, and the prompt templates they send (layer 0: they know
``Sample`` and the error types, nothing above). ``rewardloop.scorers`` builds its reward-model and judge scorers on
them and ``rewardloop.models`` serves and routes the servers they talk to; ``rewardloop.models`` re-exports them.

* clients for vLLM ``/classify``, SGLang ``/v1/embeddings`` and OpenAI-compatible chat, with retries that map
  outages to ``infra_error`` (:class:`RetryPolicy`, :func:`reward_client`);
* the judge templates and their parsers, and the reward-model input builders (:func:`rm_input`, :func:`chat_of`).
"""

from ._http import (
    ChatClient,
    ChatResult,
    ClassifyClient,
    EmbeddingsClient,
    HttpClient,
    ProtocolError,
    RequestRejected,
    RetryPolicy,
    import_httpx,
    normalize_url,
    reward_client,
)
from ._templates import (
    JUDGE_TEMPLATES,
    chat_of,
    judge_messages,
    parse_binary,
    parse_rating,
    question_of,
    render,
    rm_input,
    strip_reasoning,
)

__all__ = [
    "JUDGE_TEMPLATES",
    "ChatClient",
    "ChatResult",
    "ClassifyClient",
    "EmbeddingsClient",
    "HttpClient",
    "ProtocolError",
    "RequestRejected",
    "RetryPolicy",
    "chat_of",
    "import_httpx",
    "judge_messages",
    "normalize_url",
    "parse_binary",
    "parse_rating",
    "question_of",
    "render",
    "reward_client",
    "rm_input",
    "strip_reasoning",
]

"""Async HTTP clients for reward-model servers: vLLM ``/classify``, SGLang ``/v1/embeddings`` and
OpenAI-compatible ``/v1/chat/completions`` (generative judges).

Scope: one request per call, JSON in and out, through one long-lived ``httpx.AsyncClient`` per event
loop (an httpx client is bound to the loop that created it; the Runner and ``asyncio.run`` facades use
different loops, so each loop gets its own connection pool). Every request has a connect and a total
timeout.

Failure policy (what an RL engineer needs: an outage is never a wrong answer):

* connection errors and HTTP 5xx are retried here, up to ``RetryPolicy.attempts`` times, with
  exponential backoff and full jitter; when they run out, :class:`~rewardloop.errors.InfraError` is
  raised (the Runner may retry the sample later; its final status is ``infra_error``);
* a read timeout is not retried here (the server may still be working on it; doubling the load of a slow
  server makes it slower): it raises ``InfraError`` at once and the Runner's own retry budget decides;
* HTTP 429 raises :class:`~rewardloop.errors.RateLimited` with ``Retry-After``;
* other 4xx mean the request itself is wrong and are never retried: :class:`RequestRejected`
  (status ``invalid_input`` for 400/413/422, whose cause is usually the sample, e.g. too long;
  ``scorer_error`` otherwise);
* a 2xx body without the expected fields raises :class:`ProtocolError` (``scorer_error``).

Limits: no streaming responses; no HTTP/2; TLS settings are httpx's defaults.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ..errors import InfraError, InvalidSampleError, MissingExtraError, RateLimited, ScoringError

__all__ = [
    "ChatClient",
    "ChatResult",
    "ClassifyClient",
    "EmbeddingsClient",
    "HttpClient",
    "ProtocolError",
    "RequestRejected",
    "RetryPolicy",
    "import_httpx",
    "normalize_url",
    "reward_client",
]

log = logging.getLogger(__name__)


def _httpx() -> Any:
    try:
        import httpx
    except ImportError as exc:  # pragma: no cover - httpx is a dependency of the models extra
        raise MissingExtraError("httpx", "models") from exc
    return httpx


import_httpx = _httpx  # httpx, or MissingExtraError naming the extra


class RequestRejected(ScoringError):
    """The server answered 4xx: the request is wrong and retrying cannot help."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.status_code))


class InvalidRequest(RequestRejected, InvalidSampleError):
    """A 400 / 413 / 422: usually the sample itself (too long, empty); status ``invalid_input``."""


class ProtocolError(ScoringError):
    """The server answered 2xx but the body is not what the protocol promises."""


@dataclass(frozen=True)
class RetryPolicy:
    """Timeouts and retries of one HTTP request.

    ``attempts`` counts the first try; the pause before retry ``k`` (1-based) is drawn uniformly from
    ``[0, min(backoff_max_s, backoff_s * 2**(k-1))]`` (full jitter, so many clients do not retry in step).
    """

    timeout_s: float = 60.0
    connect_timeout_s: float = 5.0
    attempts: int = 4
    backoff_s: float = 0.25
    backoff_max_s: float = 8.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"RetryPolicy.attempts must be >= 1, got {self.attempts}")
        if self.timeout_s <= 0 or self.connect_timeout_s <= 0:
            raise ValueError("RetryPolicy timeouts must be > 0")

    def pause(self, retry: int) -> float:
        return random.uniform(0.0, min(self.backoff_max_s, self.backoff_s * 2 ** (retry - 1)))


def normalize_url(address: str) -> str:
    """``host:port`` (verl's ``reward_router_address``) or a URL -> a base URL without trailing slash."""
    address = address.strip().rstrip("/")
    if not address:
        raise ValueError("empty server address")
    if "://" not in address:
        address = "http://" + address
    return address


class HttpClient:
    """JSON-over-HTTP with the retry policy above; one ``httpx.AsyncClient`` per event loop.

    ``api_key`` (or the environment variable named by ``api_key_env``) is sent as a bearer token.
    """

    def __init__(
        self,
        base_url: str,
        *,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        max_connections: int = 256,
    ) -> None:
        self.base_url = normalize_url(base_url)
        self.retry = retry or RetryPolicy()
        self.max_connections = max_connections
        self._headers = dict(headers or {})
        key = api_key or (os.environ.get(api_key_env) if api_key_env else None)
        if key:
            self._headers["Authorization"] = f"Bearer {key}"
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.base_url}>"

    def __getstate__(self) -> dict[str, Any]:  # clients are per process and per loop
        state = dict(self.__dict__)
        state["_clients"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._clients = weakref.WeakKeyDictionary()

    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.is_closed:
            httpx = _httpx()
            r = self.retry
            client = httpx.AsyncClient(
                base_url=self.base_url,
                headers=self._headers,
                timeout=httpx.Timeout(r.timeout_s, connect=r.connect_timeout_s),
                limits=httpx.Limits(
                    max_connections=self.max_connections, max_keepalive_connections=self.max_connections
                ),
            )
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close this loop's connection pool (other loops' pools close with their loops)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover
            return
        client = self._clients.pop(loop, None)
        if client is not None:
            await client.aclose()

    async def post_json(self, path: str, payload: Mapping[str, Any]) -> Any:
        """POST ``payload`` to ``path`` and return the decoded JSON body, with the retry policy."""
        httpx = _httpx()
        body = json.dumps(payload).encode()
        last: str = ""
        for attempt in range(1, self.retry.attempts + 1):
            if attempt > 1:
                await asyncio.sleep(self.retry.pause(attempt - 1))
            try:
                resp = await self._client().post(
                    path, content=body, headers={"Content-Type": "application/json"}
                )
            except httpx.TimeoutException as exc:
                if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
                    last = f"{type(exc).__name__} connecting to {self.base_url}{path}"
                    continue
                raise InfraError(
                    f"{self.base_url}{path} did not answer within {self.retry.timeout_s:g} s"
                ) from exc
            except httpx.TransportError as exc:
                last = f"{type(exc).__name__} talking to {self.base_url}{path}: {exc}"
                continue
            if resp.status_code >= 500:
                last = f"{self.base_url}{path} answered HTTP {resp.status_code}: {resp.text[:300]}"
                log.debug("retrying after %s (attempt %d)", last, attempt)
                continue
            return _decode(resp, f"{self.base_url}{path}")
        raise InfraError(f"{last} (gave up after {self.retry.attempts} attempts)")


def _decode(resp: Any, where: str) -> Any:
    code = resp.status_code
    if code == 429:
        raise RateLimited(f"{where} answered HTTP 429", retry_after=_retry_after(resp))
    if 400 <= code < 500:
        cls = InvalidRequest if code in (400, 413, 422) else RequestRejected
        raise cls(f"{where} rejected the request with HTTP {code}: {resp.text[:300]}", code)
    try:
        return resp.json()
    except ValueError as exc:
        raise ProtocolError(
            f"{where} answered HTTP {code} with a body that is not JSON: {resp.text[:200]!r}"
        ) from exc


def _retry_after(resp: Any) -> float | None:
    value = resp.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _last_float(body: Any, key: str, where: str) -> float:
    """``body["data"][-1][key][-1]`` as a float: verl's reading of a pooled reward-model output."""
    try:
        value = body["data"][-1][key]
        if isinstance(value, list):
            value = value[-1]
        return float(value)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ProtocolError(
            f"{where}: expected data[-1].{key}[-1] to be a number, got {body!r:.300}"
        ) from exc


class ClassifyClient(HttpClient):
    """vLLM pooling ``POST /classify``: the reward is ``data[-1].probs[-1]`` with the activation off,
    i.e. the raw logit of the last class (the scalar of a one-label reward model)."""

    path = "/classify"

    def __init__(self, base_url: str, model: str, *, use_activation: bool = False, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self.model = model
        self.use_activation = use_activation

    async def score(self, text: str) -> float:
        payload = {"model": self.model, "input": text, "use_activation": self.use_activation}
        body = await self.post_json(self.path, payload)
        return _last_float(body, "probs", f"{self.base_url}{self.path}")


class EmbeddingsClient(HttpClient):
    """SGLang (``--is-embedding``) ``POST /v1/embeddings``: the reward is ``data[-1].embedding[-1]``."""

    path = "/v1/embeddings"

    def __init__(self, base_url: str, model: str, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self.model = model

    async def score(self, text: str) -> float:
        body = await self.post_json(self.path, {"model": self.model, "input": text})
        return _last_float(body, "embedding", f"{self.base_url}{self.path}")


@dataclass(frozen=True)
class ChatResult:
    """One chat completion: the assistant text, why it stopped, and token usage when reported."""

    text: str
    finish_reason: str | None = None
    usage: Mapping[str, Any] = field(default_factory=dict)


class ChatClient(HttpClient):
    """OpenAI-compatible ``POST /v1/chat/completions`` for generative judges."""

    path = "/v1/chat/completions"

    def __init__(self, base_url: str, model: str, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self.model = model

    async def complete(self, messages: Sequence[Mapping[str, str]], **sampling: Any) -> ChatResult:
        payload = {"model": self.model, "messages": [dict(m) for m in messages], **sampling}
        body = await self.post_json(self.path, payload)
        try:
            choice = body["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ProtocolError(
                f"{self.base_url}{self.path}: expected choices[0].message.content, got {body!r:.300}"
            ) from exc
        if not isinstance(text, str):
            raise ProtocolError(
                f"{self.base_url}{self.path}: message.content is {type(text).__name__}, not text"
            )
        usage = body.get("usage") if isinstance(body.get("usage"), Mapping) else {}
        return ChatResult(text=text, finish_reason=choice.get("finish_reason"), usage=usage or {})


_PROTOCOLS = {
    "vllm": ClassifyClient,
    "classify": ClassifyClient,
    "sglang": EmbeddingsClient,
    "embeddings": EmbeddingsClient,
}


def reward_client(
    protocol: str, base_url: str, model: str, **kwargs: Any
) -> ClassifyClient | EmbeddingsClient:
    """The DisRM client for ``protocol``: ``vllm`` / ``classify`` or ``sglang`` / ``embeddings``."""
    try:
        cls = _PROTOCOLS[protocol]
    except KeyError:
        from ..errors import ConfigError

        raise ConfigError(
            f"unknown reward-model protocol {protocol!r}; allowed: {', '.join(_PROTOCOLS)}"
        ) from None
    return cast("ClassifyClient | EmbeddingsClient", cls(base_url, model, **kwargs))

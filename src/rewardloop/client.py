"""Clients of the reward service (``rewardloop serve``): :class:`RewardClient` and :class:`AsyncRewardClient`.

Both speak the native API (``POST /v1/score``) and return a :class:`~rewardloop.ScoreBatch` in input
order, carrying the server's ``stats``; failed samples keep their status, and :meth:`ScoreBatch.rewards`
fills them with the client's ``on_error`` (default 0.0; None excludes them). They also call
``/get_reward``, ``/v1/scorers`` and ``/healthz``.

Retries: a connection that could not be made, a connection dropped before an answer, HTTP 5xx and HTTP
429 are retried up to ``retries`` times with exponential backoff and full jitter
(``uniform(0, min(backoff_max_s, backoff_base_s * 2**k))``); a ``Retry-After`` header is honoured
instead (capped at ``backoff_max_s``). Other 4xx answers are not retried: they raise
:class:`ServiceError` at once, with the server's field path for 422. Read timeouts are not retried: the
request may still be running on the server, and scoring it twice would double the load exactly when the
service is slow. When retries run out, :class:`~rewardloop.errors.RateLimited` (after 429) or
:class:`~rewardloop.errors.InfraError` is raised.

Auth: ``token=`` or the ``REWARDLOOP_TOKEN`` environment variable, sent as ``Authorization: Bearer``.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from ._validate import renamed
from .errors import ConfigError, InfraError, MissingExtraError, RateLimited, RewardLoopError
from .types import Sample, Score, ScoreBatch

try:
    import httpx
except ImportError as exc:  # pragma: no cover - httpx ships with the server extra
    raise MissingExtraError("httpx", "server") from exc

__all__ = ["AsyncRewardClient", "RewardClient", "ServiceError"]

ENV_TOKEN = "REWARDLOOP_TOKEN"
ENV_URL = "REWARDLOOP_URL"
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class ServiceError(RewardLoopError):
    """The service refused a request (4xx other than 429, or 5xx after the retries).

    ``status_code`` is the HTTP status, ``error`` the service's error kind (``invalid_request``,
    ``too_large``, ``unauthorized``, ...), ``detail`` its explanation (for 422: a list of
    ``{"field", "msg", ...}``), ``error_id`` the id of a 500 in the server log.
    """

    def __init__(self, status_code: int, error: str, detail: Any = None, error_id: str | None = None) -> None:
        self.status_code = status_code
        self.error = error
        self.detail = detail
        self.error_id = error_id
        super().__init__(
            f"HTTP {status_code} {error}: {_describe(detail)}"
            + (f" (error id {error_id})" if error_id else "")
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.status_code, self.error, self.detail, self.error_id))


def _describe(detail: Any) -> str:
    if isinstance(detail, list):
        return "; ".join(
            f"{d.get('field', '?')}: {d.get('msg', '')}" if isinstance(d, Mapping) else str(d) for d in detail
        )
    return str(detail)


def plain(value: Any) -> Any:
    """``value`` as JSON-ready Python: numpy arrays and scalars (verl's ``non_tensor_batch``) through
    ``tolist()``, tuples and sets as lists, mapping keys as strings, anything else unknown as ``str``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return plain(tolist())
    return str(value)


def sample_json(sample: Sample | Mapping[str, Any]) -> dict[str, Any]:
    """The native API's JSON for one sample (a :class:`Sample`, or a mapping with the same fields)."""
    return cast("dict[str, Any]", plain(_sample_fields(sample)))


def _sample_fields(sample: Sample | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(sample, Sample):
        out: dict[str, Any] = {
            "response": sample.response,
            "ground_truth": sample.ground_truth,
            "task": sample.task,
        }
        if sample.prompt is not None:
            out["prompt"] = sample.prompt
        if sample.metadata:
            out["metadata"] = dict(sample.metadata)
        if sample.uid is not None:
            out["uid"] = sample.uid
        return out
    return dict(sample)


def batch_from_json(payload: Mapping[str, Any], on_error: float | None = 0.0) -> ScoreBatch:
    """A :class:`ScoreBatch` from a ``/v1/score`` response (``stats`` kept)."""
    scores = [
        Score(
            value=s.get("value"),
            status=s.get("status", "ok"),
            metrics=s.get("metrics") or {},
            info=s.get("info") or {},
        )
        for s in payload.get("scores", [])
    ]
    return ScoreBatch.from_scores(scores, stats=payload.get("stats") or {}, on_error=on_error)


class _Base:
    """What both clients share: settings, request bodies, error mapping, retry decisions."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        token: str | None = None,
        timeout_s: float | None = None,
        connect_timeout_s: float | None = None,
        retries: int = 4,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        on_error: float | None = 0.0,
        timeout: float | None = None,  # deprecated name of timeout_s
        connect_timeout: float | None = None,  # deprecated name of connect_timeout_s
    ) -> None:
        where = type(self).__name__
        timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", where, default=600.0)
        connect_timeout_s = renamed(
            connect_timeout_s, connect_timeout, "connect_timeout", "connect_timeout_s", where, default=10.0
        )
        base_url = base_url or os.environ.get(ENV_URL)
        if not base_url:
            raise ConfigError(f"no service URL: pass base_url or set {ENV_URL}")
        self.base_url = _base(base_url)
        self.token = token or os.environ.get(ENV_TOKEN) or None
        self.timeout = httpx.Timeout(timeout_s, connect=connect_timeout_s)
        self.retries = retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.on_error = on_error
        self._rng = random.Random()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        if response is not None:
            after = _retry_after(response)
            if after is not None:
                return min(after, self.backoff_max_s)
        return self._rng.uniform(0, min(self.backoff_max_s, self.backoff_base_s * 2**attempt))

    @staticmethod
    def _score_body(samples: Iterable[Sample | Mapping[str, Any]], timeout_s: float | None) -> dict[str, Any]:
        body: dict[str, Any] = {"samples": [sample_json(s) for s in samples]}
        if timeout_s is not None:
            body["timeout_s"] = timeout_s
        return body

    def _final_error(self, response: httpx.Response | None, error: Exception | None, url: str) -> Exception:
        if response is not None and response.status_code == 429:
            return RateLimited(
                f"{url}: still overloaded after {self.retries} retries", _retry_after(response)
            )
        if response is not None:
            return _service_error(response)
        return InfraError(f"{url}: {type(error).__name__}: {error} (after {self.retries} retries)")


def _base(url: str) -> str:
    url = url.rstrip("/")
    for suffix in ("/v1/score", "/get_reward"):  # a full endpoint URL is accepted too
        if url.endswith(suffix):
            url = url[: -len(suffix)]
    return url


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _service_error(response: httpx.Response) -> ServiceError:
    try:
        body = response.json()
    except ValueError:
        body = {"detail": response.text[:300]}
    if not isinstance(body, Mapping):
        body = {"detail": body}
    return ServiceError(
        response.status_code, str(body.get("error", "error")), body.get("detail"), body.get("error_id")
    )


def _retryable_error(exc: Exception) -> bool:
    # the request never reached a handler (connect) or the connection dropped before any answer
    return isinstance(
        exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.RemoteProtocolError | httpx.PoolTimeout
    )


class RewardClient(_Base):
    """Synchronous client of the reward service. Thread-safe (one ``httpx.Client`` connection pool).

    ``RewardClient("http://127.0.0.1:8000", token=None, timeout_s=600, retries=4)``; ``timeout_s`` bounds each
    HTTP attempt, ``connect_timeout`` the connection set-up, ``on_error`` the reward that
    :meth:`ScoreBatch.rewards` gives failed samples in returned batches.
    """

    def __init__(self, base_url: str | None = None, *, transport: Any = None, **options: Any) -> None:
        super().__init__(base_url, **options)
        self._client = httpx.Client(timeout=self.timeout, transport=transport)

    def score(
        self, samples: Iterable[Sample | Mapping[str, Any]], *, timeout_s: float | None = None
    ) -> ScoreBatch:
        """Score samples on the service (``timeout_s``: the request's deadline on the server)."""
        payload = self._request("POST", "/v1/score", self._score_body(samples, timeout_s))
        return batch_from_json(payload, self.on_error)

    def score_one(self, sample: Sample | Mapping[str, Any], *, timeout_s: float | None = None) -> Score:
        return self.score([sample], timeout_s=timeout_s)[0]

    def get_reward(
        self, query: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **extra: Any
    ) -> dict[str, Any]:
        """OpenRLHF's ``/get_reward`` call: ``{"rewards", "scores", "extra_logs"}``."""
        body = {"query": list(query), "prompts": list(prompts), "labels": list(labels), **extra}
        return cast("dict[str, Any]", self._request("POST", "/get_reward", body))

    def scorers(self) -> dict[str, Any]:
        return cast("dict[str, Any]", self._request("GET", "/v1/scorers", None))

    def health(self) -> dict[str, Any]:
        return cast("dict[str, Any]", self._request("GET", "/healthz", None))

    def _request(self, method: str, path: str, body: Any) -> Any:
        url = self.base_url + path
        response: httpx.Response | None = None
        error: Exception | None = None
        for attempt in range(self.retries + 1):
            response, error = None, None
            try:
                response = self._client.request(method, url, json=body, headers=self._headers())
            except httpx.HTTPError as exc:
                if not _retryable_error(exc):
                    raise InfraError(f"{url}: {type(exc).__name__}: {exc}") from exc
                error = exc
            if response is not None and response.status_code < 400:
                return response.json()
            if response is not None and response.status_code not in _RETRY_STATUSES:
                raise _service_error(response)
            if attempt < self.retries:
                time.sleep(self._delay(attempt, response))
        raise self._final_error(response, error, url)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> RewardClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncRewardClient(_Base):
    """The asyncio twin of :class:`RewardClient` (same arguments and methods, awaited)."""

    def __init__(self, base_url: str | None = None, *, transport: Any = None, **options: Any) -> None:
        super().__init__(base_url, **options)
        self._client = httpx.AsyncClient(timeout=self.timeout, transport=transport)

    async def score(
        self, samples: Iterable[Sample | Mapping[str, Any]], *, timeout_s: float | None = None
    ) -> ScoreBatch:
        payload = await self._request("POST", "/v1/score", self._score_body(samples, timeout_s))
        return batch_from_json(payload, self.on_error)

    async def score_one(self, sample: Sample | Mapping[str, Any], *, timeout_s: float | None = None) -> Score:
        return (await self.score([sample], timeout_s=timeout_s))[0]

    async def get_reward(
        self, query: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **extra: Any
    ) -> dict[str, Any]:
        body = {"query": list(query), "prompts": list(prompts), "labels": list(labels), **extra}
        return cast("dict[str, Any]", await self._request("POST", "/get_reward", body))

    async def scorers(self) -> dict[str, Any]:
        return cast("dict[str, Any]", await self._request("GET", "/v1/scorers", None))

    async def health(self) -> dict[str, Any]:
        return cast("dict[str, Any]", await self._request("GET", "/healthz", None))

    async def _request(self, method: str, path: str, body: Any) -> Any:
        url = self.base_url + path
        response: httpx.Response | None = None
        error: Exception | None = None
        for attempt in range(self.retries + 1):
            response, error = None, None
            try:
                response = await self._client.request(method, url, json=body, headers=self._headers())
            except httpx.HTTPError as exc:
                if not _retryable_error(exc):
                    raise InfraError(f"{url}: {type(exc).__name__}: {exc}") from exc
                error = exc
            if response is not None and response.status_code < 400:
                return response.json()
            if response is not None and response.status_code not in _RETRY_STATUSES:
                raise _service_error(response)
            if attempt < self.retries:
                await asyncio.sleep(self._delay(attempt, response))
        raise self._final_error(response, error, url)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> AsyncRewardClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

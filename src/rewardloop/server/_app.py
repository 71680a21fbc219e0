"""The reward service: one FastAPI app that serves every rewardloop scorer over three protocols.

Endpoints (``docs/server.md`` has the request and response shapes):

* ``POST /v1/score`` -- native: ``{"samples": [{"response", "ground_truth", "task", "prompt"?,
  "metadata"?, "uid"?, "length"?}], "timeout_s"?}`` -> ``{"scores": [{"value", "reward", "status",
  "metrics", "info"}], "stats": {...}}``, in input order.
* ``POST /get_reward`` -- OpenRLHF's remote reward model: ``{"query", "prompts", "labels"}`` ->
  ``{"rewards", "scores", "extra_logs"}``.
* ``POST /run_code`` and ``GET /v1/ping`` -- SandboxFusion, served by :mod:`.sandbox_app`'s routes.
* ``GET /v1/scorers``, ``GET /healthz``, ``GET /metrics`` (Prometheus text).

Guarantees: one :class:`~rewardloop.RewardManager` per app (built at start-up, closed at shutdown); a
bearer token checked on every request when configured; bodies over ``max_body_bytes`` and batches over
``max_batch`` get 413; schema errors get 422 naming the field path; at most ``max_in_flight`` samples
are scored at once, beyond that 429 with ``Retry-After``; every request has a deadline (its samples end
with status ``timeout`` when it passes); an exception becomes a 500 JSON body with an ``error_id`` that is
also in the server log, and the server keeps serving. Only ``/run_code`` runs code sent in a request;
samples of code tasks (``codecontests``, ``apps``, ...) run the response against its tests in the same
sandbox, as their scorer does everywhere. No request can name a file, module or function to load.

Limits: admission counts samples, not their cost (a math_verify sample and a gsm8k sample weigh the
same); with ``workers > 1`` every worker has its own manager, bound and metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .._io import response_text
from ..config import RewardConfig, load_reward_config
from ..errors import ScoringError
from ..types import Sample, Score, ScoreBatch, Status
from ._auth import check_bearer
from ._config import ServerConfig
from ._metrics import Metrics

__all__ = ["ServiceState", "create_app"]

log = logging.getLogger("rewardloop.server")

ENDPOINTS = ("/v1/score", "/get_reward", "/run_code", "/v1/ping", "/v1/scorers", "/healthz", "/metrics")
_RUN_CODE = "/run_code"
_FAILED_LOG = "rewardloop_failed"


# --------------------------------------------------------------------------------------------------
# request schemas


_SAMPLE_FIELDS = ("response", "ground_truth", "task", "prompt", "metadata", "uid", "length")
#: verl's names for the same fields (documented in docs/server.md): data_source -> task, reward_model
#: (a dict holding ground_truth) -> ground_truth, extra_info -> metadata
_VERL_ALIASES = {"data_source": "task", "reward_model": "ground_truth", "extra_info": "metadata"}


class SampleIn(BaseModel):
    """One sample of ``/v1/score``; ``length`` is the response length in tokens (for overlong shaping).
    verl's field names are accepted as aliases (:data:`_VERL_ALIASES`)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _verl_names(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        out = {k: v for k, v in data.items() if k not in _VERL_ALIASES}
        for alias, name in _VERL_ALIASES.items():
            if alias not in data:
                continue
            if name in data:
                raise ValueError(f"give one of {name!r} or {alias!r} (verl's name for it), not both")
            value = data[alias]
            if alias == "reward_model":
                if not isinstance(value, Mapping) or "ground_truth" not in value:
                    raise ValueError("reward_model needs a 'ground_truth' key (verl's layout)")
                value = value["ground_truth"]
            if alias == "extra_info" and value is None:
                value = {}
            out[name] = value
        return out

    # a string, or a chat (TRL's conversational format): the last assistant message, as the CLI reads it
    response: str | list[dict[str, Any]]
    ground_truth: Any = None
    task: str | None = None
    prompt: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    uid: str | None = None
    length: int | None = Field(default=None, ge=0)

    @field_validator("response")
    @classmethod
    def _chat_to_text(cls, value: Any) -> str:
        return response_text(value)  # an InvalidSampleError is a ValueError: a 422 naming samples[i].response


class ScoreRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    samples: list[SampleIn]
    timeout_s: float | None = Field(default=None, gt=0)


class RewardRequest(BaseModel):
    """OpenRLHF's body. Other fields are accepted and ignored (clients add their own)."""

    model_config = ConfigDict(extra="allow")

    query: list[str]
    prompts: list[str] | None = None
    labels: list[Any] | None = None
    data_source: str | list[str] | None = None


# --------------------------------------------------------------------------------------------------
# state shared by the handlers and the guard


class TaskRewards:
    """Per task (verl ``data_source``): samples, failures, the mean reward of the scored ones and their
    accuracy (the one definition, :func:`rewardloop._summary.correct_of`), for ``/metrics``."""

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._tasks: dict[str, list[float]] = {}  # task -> [samples, failed, ok, reward sum, correct, judged]

    def add(self, samples: Sequence[Sample], batch: ScoreBatch) -> None:
        from .._summary import correct_of

        with self._lock:
            for sample, score in zip(samples, batch, strict=True):
                t = self._tasks.setdefault(str(sample.task or "(none)"), [0.0] * 6)
                t[0] += 1
                if not score.ok:
                    t[1] += 1
                    continue
                t[2] += 1
                t[3] += float(score.value or 0.0)
                correct = correct_of(True, score.value, score.metrics, score.info)
                if correct is not None:
                    t[4] += bool(correct)
                    t[5] += 1

    def exposition(self) -> str:
        from ._metrics import _labels, _num

        with self._lock:
            tasks = {k: list(v) for k, v in sorted(self._tasks.items())}
        if not tasks:
            return ""
        series: tuple[tuple[str, str, str, Callable[[list[Any]], float]], ...] = (
            ("rewardloop_task_samples_total", "counter", "samples scored per task", lambda t: t[0]),
            ("rewardloop_task_failed_total", "counter", "failed samples per task", lambda t: t[1]),
            ("rewardloop_task_reward_mean", "gauge", "mean reward of the ok samples", lambda t: t[3] / t[2]),
            (
                "rewardloop_task_accuracy",
                "gauge",
                "share of the ok samples judged correct",
                lambda t: t[4] / t[5],
            ),
        )
        out = []
        for name, kind, what, fn in series:
            out += [f"# HELP {name} {what}", f"# TYPE {name} {kind}"]
            for task, t in tasks.items():
                with contextlib.suppress(ZeroDivisionError):
                    out.append(f"{name}{_labels(task=task)} {_num(fn(t))}")
        return "\n".join(out) + "\n"


class ServiceState:
    """The app's manager, admission counter, metrics and draining flag (``app.state.service``)."""

    def __init__(self, config: ServerConfig, manager: Any = None) -> None:
        self.config = config
        self.manager = manager
        self.metrics = Metrics(config.max_in_flight)
        self.task_rewards = TaskRewards()
        self.draining = False
        self.in_flight = 0

    def admit(self, n: int) -> bool:
        """Reserve ``n`` sample slots; False when that would pass ``max_in_flight``.

        Runs on the event loop thread only (no awaits between check and update), so no lock is needed.
        """
        if self.in_flight + n > self.config.max_in_flight:
            return False
        self.in_flight += n
        self.metrics.in_flight_samples = self.in_flight
        return True

    def release(self, n: int) -> None:
        self.in_flight -= n
        self.metrics.in_flight_samples = self.in_flight

    @property
    def on_error(self) -> Any:
        return self.manager.runner.config.on_error if self.manager is not None else 0.0


def _error(code: int, error: str, detail: Any, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": error, "detail": detail}, status_code=code, headers=dict(headers or {}))


def _retry_after(cfg: ServerConfig) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(cfg.retry_after_s)))}


# --------------------------------------------------------------------------------------------------
# the guard: auth, body size, draining, /run_code admission, metrics, last-resort 500s (pure ASGI)


class _Guard:
    """Outermost ASGI layer. Checks run before the body is read, so a refused request costs little."""

    def __init__(self, app: Any, state: ServiceState) -> None:
        self.app = app
        self.state = state

    async def __call__(
        self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]
    ) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        endpoint = path if path in ENDPOINTS else "other"
        started = time.perf_counter()
        status = {"code": 500}

        async def send_recording(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        self.state.metrics.in_flight_requests += 1
        try:
            await self._handle(scope, receive, send_recording, path)
        finally:
            self.state.metrics.in_flight_requests -= 1
            self.state.metrics.request_done(endpoint, status["code"], time.perf_counter() - started)

    async def _handle(
        self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any], path: str
    ) -> None:
        refusal = self._refusal(scope, path)
        if refusal is None:
            body, refusal = await self._read_body(scope, receive)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        replay = _replay(body, receive)
        if path == _RUN_CODE and scope["method"] == "POST":
            if not self.state.admit(1):
                self.state.metrics.reject("overloaded")
                await _error(
                    429, "overloaded", "too many samples in flight", _retry_after(self.state.config)
                )(scope, replay, send)
                return
            try:
                await self._call_app(scope, replay, send)
            finally:
                self.state.release(1)
            return
        await self._call_app(scope, replay, send)

    def _refusal(self, scope: dict[str, Any], path: str) -> JSONResponse | None:
        cfg, metrics = self.state.config, self.state.metrics
        if self.state.draining:
            metrics.reject("draining")
            return _error(
                503, "draining", "the server is shutting down", {**_retry_after(cfg), "Connection": "close"}
            )
        public = cfg.public_healthz and path == "/healthz"
        if not public and not _authorized(cfg.token, scope):
            metrics.reject("auth")
            return _error(
                401, "unauthorized", "a valid bearer token is required", {"WWW-Authenticate": "Bearer"}
            )
        length = _header(scope, b"content-length")
        if length is not None and length.isdigit() and int(length) > cfg.max_body_bytes:
            metrics.reject("too_large")
            return _error(413, "too_large", f"request body is over {cfg.max_body_bytes} bytes")
        return None

    async def _read_body(
        self, scope: dict[str, Any], receive: Callable[..., Any]
    ) -> tuple[bytes, JSONResponse | None]:
        """The whole body (bounded by ``max_body_bytes`` even without a Content-Length)."""
        limit = self.state.config.max_body_bytes
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                self.state.metrics.reject("too_large")
                return b"", _error(413, "too_large", f"request body is over {limit} bytes")
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks), None

    async def _call_app(
        self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]
    ) -> None:
        sent = {"started": False}

        async def tracking_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                sent["started"] = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:  # the app's own 500 handler already answered and logged with an id
            if not sent["started"]:
                response = _internal_error(self.state, exc)
                await response(scope, receive, send)


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return cast("str | None", value.decode("latin-1"))
    return None


def _authorized(token: str | None, scope: dict[str, Any]) -> bool:
    """The bearer header, or (for clients that cannot set headers: OpenRLHF, verl's SandboxFusion client)
    a ``token`` query parameter."""
    if check_bearer(token, _header(scope, b"authorization")):
        return True
    if token is None or not scope.get("query_string"):
        return False
    from urllib.parse import parse_qs

    given = parse_qs(scope["query_string"].decode("latin-1")).get("token", [])
    return len(given) == 1 and check_bearer(token, f"Bearer {given[0]}")


def _replay(body: bytes, receive: Callable[..., Any]) -> Callable[[], Awaitable[dict[str, Any]]]:
    """A ``receive`` that gives the already-read body once, then the client's own messages (disconnect)."""
    done = {"sent": False}

    async def replay() -> dict[str, Any]:
        if not done["sent"]:
            done["sent"] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return cast("dict[Any, Any]", await receive())

    return replay


def _internal_error(state: ServiceState, exc: BaseException) -> JSONResponse:
    error_id = uuid.uuid4().hex[:16]
    state.metrics.error()
    log.error("unhandled error %s: %s: %s", error_id, type(exc).__name__, exc, exc_info=exc)
    detail = f"{type(exc).__name__}: {exc}"[:500]
    return JSONResponse({"error": "internal_error", "error_id": error_id, "detail": detail}, status_code=500)


# --------------------------------------------------------------------------------------------------
# validation errors with field paths


def field_path(loc: Sequence[Any]) -> str:
    """``("body", "samples", 0, "response")`` -> ``"samples[0].response"``."""
    parts = list(loc[1:] if loc and loc[0] == "body" else loc)
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "body"


def _validation_response(exc: RequestValidationError) -> JSONResponse:
    detail = []
    for err in exc.errors():
        loc = list(err.get("loc", ()))
        field = "body" if err.get("type") == "json_invalid" else field_path(loc)
        msg = err.get("msg", "")
        if err.get("type") == "extra_forbidden" and "samples" in loc:  # name what a sample may hold
            msg += f"; accepted: {', '.join(_SAMPLE_FIELDS)}, and verl's {', '.join(_VERL_ALIASES)}"
        detail.append({"field": field, "loc": loc, "msg": msg, "type": err.get("type", "")})
    return JSONResponse({"error": "invalid_request", "detail": detail}, status_code=422)


def _invalid(field: str, msg: str) -> JSONResponse:
    return JSONResponse(
        {
            "error": "invalid_request",
            "detail": [{"field": field, "loc": ["body", field], "msg": msg, "type": "value_error"}],
        },
        status_code=422,
    )


# --------------------------------------------------------------------------------------------------
# JSON-safe values


def jsonable(value: Any) -> Any:
    """``value`` with NaN/inf as null, tuples as lists, keys as strings and unknown objects as ``str``."""
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    item = getattr(value, "item", None)  # numpy scalars, 0-d tensors
    if callable(item) and getattr(value, "ndim", 0) == 0:
        with contextlib.suppress(Exception):
            return jsonable(item())
    return str(value)


def score_json(score: Score, on_error: Any) -> dict[str, Any]:
    reward = score.value if on_error == "raise" else score.reward(on_error)
    return {
        "value": jsonable(score.value),
        "reward": jsonable(reward),
        "status": score.status.value,
        "metrics": jsonable(score.metrics),
        "info": jsonable(score.info),
    }


# --------------------------------------------------------------------------------------------------
# scoring under the request deadline


async def score_with_deadline(
    state: ServiceState, samples: list[Sample], lengths: list[int | None] | None, timeout_s: float | None
) -> ScoreBatch:
    """Score through the manager; when the deadline passes every sample ends with status ``timeout``."""
    deadline = min(timeout_s or math.inf, state.config.request_timeout_s)
    try:
        return await asyncio.wait_for(state.manager.ascore(samples, lengths), deadline)
    except asyncio.TimeoutError:  # not the builtin TimeoutError before Python 3.11
        message = f"the request deadline of {deadline:g} s passed before scoring finished"
        log.warning("%s (%d samples)", message, len(samples))
        scores = [Score.failure(Status.TIMEOUT, message, request_deadline_s=deadline) for _ in samples]
        return ScoreBatch.from_scores(scores, stats={"deadline_exceeded": True}, on_error=state.on_error)
    except ScoringError as exc:  # runner on_error="raise": the scored batch rides on the exception
        batch = getattr(exc, "batch", None)
        if batch is None:
            raise
        return cast("ScoreBatch", batch)


def _admission_refused(state: ServiceState, n: int) -> JSONResponse | None:
    cfg = state.config
    if n > cfg.max_batch:
        state.metrics.reject("too_large")
        return _error(
            413, "too_large", f"{n} samples in one request; the limit (server.max_batch) is {cfg.max_batch}"
        )
    if not state.admit(n):
        state.metrics.reject("overloaded")
        return _error(
            429,
            "overloaded",
            f"{state.in_flight} samples in flight; {n} more would pass server.max_in_flight={cfg.max_in_flight}",
            _retry_after(cfg),
        )
    return None


# --------------------------------------------------------------------------------------------------
# OpenRLHF rows


def _label_parts(label: Any) -> tuple[Any, str | None, dict[str, Any]]:
    """``(ground_truth, data_source, metadata)`` of a label: plain, or a verl ``reward_model``-style dict
    (or its JSON text) with ``ground_truth`` and optionally ``data_source`` and ``extra_info``."""
    if isinstance(label, str) and label[:1] == "{":
        with contextlib.suppress(ValueError):
            label = json.loads(label)
    if isinstance(label, Mapping) and "ground_truth" in label:
        source = label.get("data_source")
        extra = label.get("extra_info")
        return (
            label["ground_truth"],
            source if isinstance(source, str) else None,
            dict(extra) if isinstance(extra, Mapping) else {},
        )
    return label, None, {}


def openrlhf_samples(req: RewardRequest, default_task: str) -> list[Sample]:
    from ..integrations.openrlhf import response_from_query

    n = len(req.query)
    sources = req.data_source if isinstance(req.data_source, list) else [req.data_source] * n
    samples = []
    for i, query in enumerate(req.query):
        prompt = req.prompts[i] if req.prompts is not None else ""
        ground_truth, source, metadata = _label_parts(req.labels[i] if req.labels is not None else None)
        task = source or sources[i] or default_task
        samples.append(
            Sample(
                response=response_from_query(query, prompt),
                ground_truth=ground_truth,
                task=task,
                prompt=prompt,
                metadata=metadata,
            )
        )
    return samples


def openrlhf_result(batch: ScoreBatch, fill: float) -> dict[str, Any]:
    """OpenRLHF's response: failed rows get ``fill`` and ``extra_logs.rewardloop_failed = 1``."""
    rewards, accuracy, failed = [], [], []
    for score in batch:
        reward = float(score.value) if score.ok and math.isfinite(score.value) else fill  # type: ignore[arg-type]
        acc = score.metrics.get("acc")
        numeric_acc = isinstance(acc, bool | int | float) and math.isfinite(float(acc))
        rewards.append(reward)
        accuracy.append(float(cast(float, acc)) if score.ok and numeric_acc else reward)
        failed.append(0.0 if score.ok else 1.0)
    logs: dict[str, list[float]] = {_FAILED_LOG: failed}
    keys = sorted({k for s in batch for k, v in s.metrics.items() if _finite_number(v)})
    for key in keys:
        logs[key] = [float(s.metrics[key]) if _finite_number(s.metrics.get(key)) else 0.0 for s in batch]
    return {"rewards": rewards, "scores": accuracy, "extra_logs": logs}


def _finite_number(value: Any) -> bool:
    return isinstance(value, bool | int | float) and math.isfinite(float(value))


# --------------------------------------------------------------------------------------------------
# the app


def create_app(
    config: ServerConfig | None = None,
    reward: RewardConfig | Mapping[str, Any] | None = None,
    *,
    manager: Any = None,
    own_manager: bool = False,
) -> FastAPI:
    """The service as a FastAPI app (its :class:`ServiceState` is ``app.state.service``).

    Without ``manager`` a :class:`~rewardloop.RewardManager` is built from ``reward`` at start-up and
    closed at shutdown; a given ``manager`` is closed at shutdown only with ``own_manager=True``.
    """
    cfg = config or ServerConfig()
    state = ServiceState(cfg, manager)
    sandbox = _make_sandbox(cfg)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = own_manager or state.manager is None
        if state.manager is None:
            from ._scorers import build_manager

            state.manager = build_manager(cfg, load_reward_config(reward))
        log.info("rewardloop service ready: %s", cfg.public_dict())
        try:
            yield
        finally:
            if owned:
                await asyncio.to_thread(state.manager.close)
            if sandbox is not None:
                await asyncio.to_thread(sandbox.close)

    app = FastAPI(title="rewardloop reward service", lifespan=lifespan)
    app.state.service = state

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        state.metrics.reject("invalid")
        return _validation_response(exc)

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        return _internal_error(state, exc)

    _add_routes(app, state)
    if sandbox is not None:
        _add_sandbox_routes(app, sandbox, cfg.run_code)
    app.add_middleware(_Guard, state=state)
    return app


def _make_sandbox(cfg: ServerConfig) -> Any:
    if not cfg.sandbox:
        return None
    from ..sandbox import Sandbox

    return Sandbox(max_parallel=cfg.sandbox_max_parallel)


def _add_sandbox_routes(app: FastAPI, sandbox: Any, limits: Any) -> None:
    """Reuse the sandbox app's ``/run_code`` and ``/v1/ping`` routes (its own lifespan is not used: the
    sandbox is closed by this app's)."""
    from .sandbox_app import create_app as sandbox_app

    sub = sandbox_app(sandbox, limits=limits)
    app.router.routes.extend(
        r for r in sub.router.routes if getattr(r, "path", None) in (_RUN_CODE, "/v1/ping")
    )


def _add_routes(app: FastAPI, state: ServiceState) -> None:
    cfg = state.config

    @app.post("/v1/score")
    async def score(body: ScoreRequest) -> Any:
        n = len(body.samples)
        refused = _admission_refused(state, n)
        if refused is not None:
            return refused
        try:
            samples = [
                # the SampleIn validator has turned a chat into its text
                Sample(cast(str, s.response), s.ground_truth, s.task, s.prompt, s.metadata, s.uid)
                for s in body.samples
            ]
            lengths = [s.length for s in body.samples]
            started = time.perf_counter()
            batch = await score_with_deadline(
                state, samples, lengths if any(x is not None for x in lengths) else None, body.timeout_s
            )
        finally:
            state.release(n)
        state.metrics.count_samples("/v1/score", batch.status_counts())
        state.task_rewards.add(samples, batch)
        on_error = batch.on_error
        stats = {**jsonable(batch.stats), "n": n, "request_s": round(time.perf_counter() - started, 6)}
        return JSONResponse({"scores": [score_json(s, on_error) for s in batch], "stats": stats})

    @app.post("/get_reward")
    async def get_reward(body: RewardRequest) -> Any:
        n = len(body.query)
        for name in ("prompts", "labels"):
            values = getattr(body, name)
            if values is not None and len(values) != n:
                return _invalid(name, f"{name} has {len(values)} entries for {n} queries; need one per query")
        if isinstance(body.data_source, list) and len(body.data_source) != n:
            return _invalid("data_source", f"data_source has {len(body.data_source)} entries for {n} queries")
        refused = _admission_refused(state, n)
        if refused is not None:
            return refused
        try:
            samples = openrlhf_samples(body, cfg.openrlhf_task)
            batch = await score_with_deadline(state, samples, None, None)
        finally:
            state.release(n)
        state.metrics.count_samples("/get_reward", batch.status_counts())
        state.task_rewards.add(samples, batch)
        return JSONResponse(openrlhf_result(batch, float(cfg.openrlhf_on_error)))

    @app.get("/v1/scorers")
    async def scorers() -> Any:
        from ..scorers import ROUTES, SCORERS

        manager = state.manager
        custom = getattr(getattr(manager, "scorer", None), "name", None)
        return {
            "scorers": SCORERS.names(),
            "routes": [{"task": r.pattern, "scorer": r.scorer, "prefix": r.prefix} for r in ROUTES.routes()],
            "configured_scorer": custom,
            "openrlhf_task": cfg.openrlhf_task,
            "limits": {
                "max_batch": cfg.max_batch,
                "max_in_flight": cfg.max_in_flight,
                "max_body_bytes": cfg.max_body_bytes,
                "request_timeout_s": cfg.request_timeout_s,
            },
            "run_code": cfg.sandbox,
        }

    @app.get("/healthz")
    async def healthz() -> Any:
        return {"status": "ok", "in_flight_samples": state.in_flight, "max_in_flight": cfg.max_in_flight}

    @app.get("/metrics")
    async def metrics() -> Any:
        text = state.metrics.render() + state.task_rewards.exposition()
        counters = getattr(state.manager, "monitor_counters", None)
        if counters is not None:  # reward-hacking monitors (reward.monitors): flags counted per monitor
            text += counters.exposition()
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4; charset=utf-8")


# --------------------------------------------------------------------------------------------------
# running it

ENV_SERVE_CONFIG = "REWARDLOOP_SERVE_CONFIG"


def serve(config: ServerConfig, reward: RewardConfig | None = None) -> None:
    """Run the service with uvicorn until SIGINT/SIGTERM, then drain: the listening socket closes, new
    requests on open connections get 503, in-flight requests finish (up to ``graceful_timeout_s``), and
    the manager is closed.

    One worker: the manager is built here first, so a bad config fails before the port is bound. Several
    workers: uvicorn's supervisor starts ``workers`` processes, each building its own app from the config
    passed in the ``REWARDLOOP_SERVE_CONFIG`` environment variable.
    """
    import uvicorn

    reward = reward or RewardConfig()
    common: dict[str, Any] = {
        "host": config.host,
        "port": config.port,
        "timeout_graceful_shutdown": config.graceful_timeout_s,
        "log_level": logging.getLevelName(
            min(logging.getLogger().getEffectiveLevel(), logging.WARNING)
        ).lower(),
        "access_log": False,
    }
    if config.workers > 1:
        import os

        os.environ[ENV_SERVE_CONFIG] = json.dumps({"server": config.as_dict(), "reward": reward.as_dict()})
        uvicorn.run("rewardloop.server._app:app_from_env", factory=True, workers=config.workers, **common)
        return
    from ._scorers import build_manager

    manager = build_manager(config, reward)
    app = create_app(config, reward, manager=manager, own_manager=True)
    server = _draining_server(uvicorn.Config(app, **common), app.state.service)
    server.run()


def app_from_env() -> FastAPI:
    """The app of one worker process of a multi-worker service (uvicorn ``factory=True``)."""
    import os

    from ._config import load_service_config

    server, reward = load_service_config(json.loads(os.environ[ENV_SERVE_CONFIG]))
    return create_app(server, reward)


def _draining_server_class() -> type:
    import uvicorn

    class DrainingServer(uvicorn.Server):
        """Marks the service as draining as soon as a shutdown signal arrives, so requests that reach
        it on already-open connections get 503 instead of starting work that shutdown would cut off."""

        def __init__(self, config: Any, state: ServiceState) -> None:
            super().__init__(config)
            self._service = state

        def handle_exit(self, sig: int, frame: Any) -> None:
            self._service.draining = True
            super().handle_exit(sig, frame)

    return DrainingServer


def _draining_server(config: Any, state: ServiceState) -> Any:
    return _draining_server_class()(config, state)

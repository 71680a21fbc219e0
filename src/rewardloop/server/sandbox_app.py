"""``rewardloop sandbox serve``: the local sandbox behind SandboxFusion's ``/run_code`` protocol, so that
verl (``reward.sandbox_fusion.url``), the ``sandbox-fusion`` SDK and
:class:`~rewardloop.sandbox.fusion.SandboxFusionClient` can use it.

Endpoints:

* ``POST /run_code``: SandboxFusion's request (``code``, ``language``, ``stdin``, ``compile_timeout``,
  ``run_timeout``, ``memory_limit_MB``, ``files``, ``fetch_files``) and response (``status``
  ``Success | Failed | SandboxError``, ``message``, ``compile_result`` / ``run_result`` with ``status``
  ``Finished | Error | TimeLimitExceeded``, ``return_code``, ``stdout``, ``stderr``, ``execution_time``;
  ``executor_pod_name``, ``files``). Status rule as SandboxFusion's: a sandbox failure is
  ``SandboxError``; a timeout or a non-zero return code (a signal is ``-signal``) is ``Failed``; else
  ``Success``.
* ``GET /v1/ping``: ``"pong"`` (SandboxFusion's health check).

Languages: ``python``, ``cpp``, ``c``, ``java``, ``nodejs`` (also ``javascript``), ``rust``, ``bash``.

Every request is bounded by a :class:`~rewardloop.server._config.RunCodeLimits` (defaults in
``docs/sandbox.md``): a body over ``max_body_bytes`` is HTTP 413, one that has not arrived within
``body_timeout_s`` is HTTP 408; a malformed field, or one over its limit (timeouts, memory, code, stdin,
file sizes and count, file names), is HTTP 422 whose JSON names the ``field`` and the ``limit``; more than
``max_parallel + max_queued`` requests at once, or more than ``max_queued_bytes`` of their bodies, get
HTTP 429 with ``Retry-After``; a body that is not ``Content-Type: application/json`` is HTTP 415 (a
browser's cross-origin "simple" POST never runs code); a connection that has not sent its headers within
``header_timeout_s`` is closed (:func:`serve`). With a ``token``, ``/run_code`` needs it (bearer header
or ``?token=``), else 401; :func:`serve` refuses a non-loopback host without one. ``SandboxError`` is kept for failures of the sandbox itself (clients retry those as
outages), and its message names no host path or process id. A client that disconnects cancels its run
and the sandbox kills the program's processes.

Where we differ from SandboxFusion: an unsupported language (SandboxFusion has 29), a ``files`` name that
is absolute or has a ``..`` component (SandboxFusion writes absolute paths anywhere), or content that is
not base64, is refused with HTTP 422; ``memory_limit_MB`` omitted, null or ``<= 0`` means the server's
default limit, not "no limit"; the memory cap, output cap and the sandbox's other limits apply as in
:mod:`rewardloop.sandbox` (a program stopped by one of them is ``Failed``, with ``stderr`` naming the
limit); ``fetch_files`` is accepted but no files are returned (``files`` is always ``{}``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import logging
import math
import re
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.requests import ClientDisconnect

from ..errors import ConfigError, InvalidSampleError
from ..sandbox import Limits, RunResult, RunStatus, Sandbox
from ._auth import check_bearer
from ._config import RunCodeLimits

__all__ = ["create_app", "serve", "to_response"]

log = logging.getLogger(__name__)

LANGUAGES = {
    "python": "python",
    "cpp": "cpp",
    "c": "c",
    "java": "java",
    "nodejs": "javascript",
    "javascript": "javascript",
    "rust": "rust",
    "bash": "bash",
}
_LIMIT_NOTES = {
    RunStatus.MEMORY_EXCEEDED: "rewardloop sandbox: memory limit exceeded",
    RunStatus.OUTPUT_EXCEEDED: "rewardloop sandbox: output limit exceeded",
}
NAME_MAX = 255  # bytes per path component (Linux NAME_MAX)
PATH_MAX = 1024  # bytes per file name, all components together
_SHOWN = 60  # characters of a client's string quoted back in an error message


# ----------------------------------------------------------------------------------------------------------
# the response


def _stage(result: RunResult) -> dict[str, Any]:
    if result.status is RunStatus.TIMEOUT:
        status, code = "TimeLimitExceeded", None
    else:
        status = "Finished"
        code = result.exit_code if result.exit_code is not None else -(result.signal or 9)
    stderr = result.stderr
    note = _LIMIT_NOTES.get(result.status)
    if note:
        stderr = f"{stderr}\n{note}\n" if stderr else note + "\n"
        code = code or 1
    return {
        "status": status,
        "execution_time": result.wall_s,
        "return_code": code,
        "stdout": result.stdout,
        "stderr": stderr,
    }


def to_response(result: RunResult) -> dict[str, Any]:
    """A :class:`RunResult` as SandboxFusion's ``/run_code`` response."""
    out: dict[str, Any] = {
        "status": "Success",
        "message": "",
        "compile_result": None,
        "run_result": None,
        "executor_pod_name": None,
        "files": {},
    }
    if result.status is RunStatus.SANDBOX_ERROR:
        out.update(status="SandboxError", message=public_message(result.error or "sandbox error"))
        return out
    if result.compile is not None:
        out["compile_result"] = _stage(result.compile)
    if result.status is RunStatus.COMPILE_ERROR:
        if out["compile_result"] is None:
            out["compile_result"] = _stage(RunResult(RunStatus.FINISHED, exit_code=1, stderr=result.stderr))
        out.update(status="Failed", message=public_message(result.error or ""))
        return out
    run = out["run_result"] = _stage(result)
    if run["status"] != "Finished" or run["return_code"] != 0:
        out["status"] = "Failed"
    return out


_HOST_PATH = re.compile(r"(?<![\w.~-])/[^\s'\"`,;:()\[\]{}<>]+")
_PROCESS_ID = re.compile(r"\b(pid|PID|process|holder)(\s*[=:#]?\s*)\d+")
_BASE_NAME = re.compile(r"rewardloop-sandbox-\d+-\w+")


def public_message(message: str) -> str:
    """``message`` without host paths or process ids (both only help an attacker), at most 500 chars.
    The full message is in the server log."""
    text = _BASE_NAME.sub("<sandbox>", message)
    text = _HOST_PATH.sub("<path>", text)
    return _PROCESS_ID.sub(r"\1\2<n>", text)[:500]


# ----------------------------------------------------------------------------------------------------------
# the request: every field checked, refusals name the field and the limit


class Refused(Exception):
    """A request this server does not run: HTTP ``status`` (408, 413 or 422) naming ``field`` and
    ``limit``."""

    def __init__(self, status: int, field: str, detail: str, limit: Any = None) -> None:
        super().__init__(detail)
        self.status, self.field, self.detail, self.limit = status, field, detail, limit

    def response(self) -> JSONResponse:
        error = {413: "too_large", 408: "timeout"}.get(self.status, "invalid_request")
        body = {"error": error, "field": self.field, "limit": self.limit, "detail": self.detail}
        return JSONResponse(body, status_code=self.status, headers=_closing(self.status))


def _closing(status: int) -> dict[str, str]:
    # a 413 or 408 may leave the body unread: the connection cannot carry another request
    return {"Connection": "close"} if status in (408, 413) else {}


@dataclass(frozen=True)
class RunCodeRequest:
    """A ``/run_code`` request that passed every check (see :func:`parse_request`)."""

    code: str
    language: str
    stdin: str
    limits: Limits
    files: dict[str, bytes]


def parse_request(data: Any, limits: RunCodeLimits) -> RunCodeRequest:
    """The checked request from the decoded JSON body; raises :class:`Refused` (422) naming the field."""
    if not isinstance(data, dict):
        raise Refused(422, "body", f"the body must be a JSON object, got {_json_type(data)}")
    code = _text(data, "code", limits.max_code_bytes, "max_code_bytes", required=True)
    language = _language(data)
    stdin = _text(data, "stdin", limits.max_stdin_bytes, "max_stdin_bytes", required=False)
    run_limits = Limits(
        wall_s=_timeout(
            data,
            "run_timeout",
            limits.default_run_timeout_s,
            limits.max_run_timeout_s,
            "run",
            limits.min_timeout_s,
        ),
        compile_wall_s=_timeout(
            data,
            "compile_timeout",
            limits.default_compile_timeout_s,
            limits.max_compile_timeout_s,
            "compile",
            limits.min_timeout_s,
        ),
        memory_mb=_memory(data, limits),
    )
    files = _files(data.get("files"), limits)
    _fetch_files(data.get("fetch_files"), limits)
    return RunCodeRequest(code, language, stdin, run_limits, files)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _show(text: str) -> str:
    """A client's string, quoted safely (lone surrogates escaped) and shortened, for an error message."""
    return ascii(text[:_SHOWN] + ("..." if len(text) > _SHOWN else ""))


def _encoded(value: str, field: str) -> bytes:
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise Refused(
            422,
            field,
            f"{field} is not valid Unicode: a lone surrogate ({value[exc.start]!a}) at character "
            f"{exc.start}; send UTF-8 text",
        ) from None


def _text(data: dict[str, Any], field: str, maximum: int, limit_name: str, *, required: bool) -> str:
    value = data.get(field)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        missing = field not in data
        raise Refused(422, field, f"{field} is required" if missing else f"{field} must be a string")
    size = len(_encoded(value, field))
    if size > maximum:
        raise Refused(
            422, field, f"{field} is {size} bytes, over this server's {limit_name} ({maximum})", maximum
        )
    return value


def _language(data: dict[str, Any]) -> str:
    value = data.get("language")
    supported = ", ".join(sorted(LANGUAGES))
    if not isinstance(value, str):
        raise Refused(422, "language", f"language must be a string, one of: {supported}")
    if value not in LANGUAGES:
        raise Refused(
            422,
            "language",
            f"language {_show(value)} is not supported by this server; supported: {supported}",
        )
    return LANGUAGES[value]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _shown_number(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def _timeout(
    data: dict[str, Any], field: str, default: float, maximum: float, phase: str, minimum: float
) -> float:
    value = data.get(field)
    if value is None:
        return default
    finite = _number(value) and (isinstance(value, int) or math.isfinite(value))
    if not finite or value <= 0:
        raise Refused(
            422, field, f"{field} must be a finite number of seconds > 0, got {_shown_number(value)}"
        )
    if value < minimum:
        raise Refused(
            422,
            field,
            f"{field}={_shown_number(value)} is under this server's min_timeout_s ({minimum:g} s)",
            minimum,
        )
    if value > maximum:
        raise Refused(
            422,
            field,
            f"{field}={_shown_number(value)} is over this server's max_{phase}_timeout_s ({maximum:g} s)",
            maximum,
        )
    return float(value)


def _memory(data: dict[str, Any], limits: RunCodeLimits) -> int:
    value = data.get("memory_limit_MB")
    maximum = limits.max_memory_limit_mb
    if value is None:
        return limits.default_memory_limit_mb
    integral = _number(value) and (isinstance(value, int) or (math.isfinite(value) and value.is_integer()))
    if not integral:
        raise Refused(
            422, "memory_limit_MB", f"memory_limit_MB must be an integer, got {_shown_number(value)}"
        )
    if value <= 0:  # SandboxFusion's "no limit": this server always has one
        return limits.default_memory_limit_mb
    if value > maximum:
        raise Refused(
            422,
            "memory_limit_MB",
            f"memory_limit_MB={_shown_number(value)} is over this server's max_memory_limit_mb ({maximum})",
            maximum,
        )
    return int(value)


def _files(value: Any, limits: RunCodeLimits) -> dict[str, bytes]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Refused(422, "files", "files must be an object of file name -> base64 content")
    if len(value) > limits.max_files:
        raise Refused(
            422,
            "files",
            f"files has {len(value)} entries, over this server's max_files ({limits.max_files})",
            limits.max_files,
        )
    decoded: dict[str, bytes] = {}
    for name, content in value.items():
        field = f"files[{_show(name)}]"
        path = _file_name(name, field)
        if path in decoded:
            raise Refused(422, field, f"{field} names the same file as another entry ({_show(path)})")
        if content is not None:
            decoded[path] = _content(content, field, limits.max_file_bytes)
    _no_file_under_a_file(decoded)
    return decoded


def _file_name(name: str, field: str) -> str:
    """The normalised relative path (``a//./b`` -> ``a/b``), or :class:`Refused`."""
    raw = _encoded(name, field)
    if "\0" in name:
        raise Refused(422, field, f"{field}: a file name cannot contain a NUL character")
    if len(raw) > PATH_MAX:
        raise Refused(422, field, f"{field}: the name is {len(raw)} bytes, over {PATH_MAX}", PATH_MAX)
    if name.startswith("/"):
        raise Refused(422, field, f"{field}: file names must be relative paths inside the working directory")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise Refused(
            422, field, f"{field}: file names must be relative paths inside the working directory (no '..')"
        )
    for part in parts:
        if len(part.encode()) > NAME_MAX:
            raise Refused(
                422,
                field,
                f"{field}: the path component {_show(part)} is {len(part.encode())} bytes, over {NAME_MAX}",
                NAME_MAX,
            )
    return "/".join(parts)


def _content(content: Any, field: str, maximum: int) -> bytes:
    if not isinstance(content, str):
        raise Refused(422, field, f"{field} must be a base64 string or null")
    if (len(content) // 4) * 3 > maximum + 3:  # refuse before decoding
        raise Refused(422, field, f"{field} is over this server's max_file_bytes ({maximum})", maximum)
    try:
        data = base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise Refused(422, field, f"{field} is not valid base64") from None
    if len(data) > maximum:
        raise Refused(
            422,
            field,
            f"{field} is {len(data)} bytes, over this server's max_file_bytes ({maximum})",
            maximum,
        )
    return data


def _no_file_under_a_file(files: Mapping[str, bytes]) -> None:
    """``x`` and ``x/y`` cannot both be written: ``x`` would be a file and a directory."""
    for path in files:
        parent = path
        while "/" in parent:
            parent = parent.rsplit("/", 1)[0]
            if parent in files:
                field = f"files[{_show(path)}]"
                raise Refused(422, field, f"{field} is inside {_show(parent)}, which is also given as a file")


def _fetch_files(value: Any, limits: RunCodeLimits) -> None:
    if value is None:
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Refused(422, "fetch_files", "fetch_files must be an array of file names")
    if len(value) > limits.max_files:
        raise Refused(
            422,
            "fetch_files",
            f"fetch_files has {len(value)} entries, over this server's max_files ({limits.max_files})",
            limits.max_files,
        )


async def _read_body(request: Request, maximum: int) -> bytes:
    """The body, refused (413) past ``maximum`` bytes, on its ``Content-Length`` or while reading."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > maximum:
        raise _too_large(maximum)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > maximum:
            raise _too_large(maximum)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(maximum: int) -> Refused:
    return Refused(413, "body", f"the request body is over this server's max_body_bytes ({maximum})", maximum)


def _decode_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # bad JSON, bad UTF-8, too deep
        raise Refused(422, "body", "the body is not valid JSON") from None


# ----------------------------------------------------------------------------------------------------------
# admission and running


class _Gate:
    """Requests admitted at once (running or waiting for a sandbox slot): past ``capacity`` requests, or
    past ``byte_capacity`` bytes of bodies (each reserves its declared size before it is read), 429.
    Used from one event loop only."""

    def __init__(self, capacity: int, byte_capacity: int) -> None:
        self.capacity, self.byte_capacity = capacity, byte_capacity
        self.active = 0
        self.bytes = 0

    def enter(self, cost: int) -> bool:
        if self.active >= self.capacity or self.bytes + cost > self.byte_capacity:
            return False
        self.active += 1
        self.bytes += cost
        return True

    def leave(self, cost: int) -> None:
        self.active -= 1
        self.bytes -= cost


def _reserved_bytes(request: Request, limits: RunCodeLimits) -> int:
    """What a request reserves of the byte budget: its Content-Length, capped (the body is refused past
    ``max_body_bytes`` anyway), or ``max_body_bytes`` when it declares none (chunked)."""
    length = request.headers.get("content-length", "")
    return min(int(length), limits.max_body_bytes) if length.isdigit() else limits.max_body_bytes


def _json_media_type(request: Request) -> bool:
    """Only ``application/json`` (with any parameters): a browser's cross-origin "simple" POST
    (``text/plain``, form encodings) is never run, and needs no preflight to be sent."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return media == "application/json"


async def _disconnected(receive: Callable[[], Any]) -> None:
    """Returns when the client goes away (the body has been read: only a disconnect can arrive)."""
    while (await receive())["type"] != "http.disconnect":
        await asyncio.sleep(0.05)  # a server that keeps answering "no more body": do not spin


async def _run_unless_disconnected(sb: Sandbox, job: RunCodeRequest, request: Request) -> RunResult | None:
    """The run's result, or None when the client disconnected first (the run is then cancelled, which
    kills the program)."""
    run = asyncio.ensure_future(
        sb.arun(job.code, job.language, stdin=job.stdin, limits=job.limits, files=job.files)
    )
    watch = asyncio.ensure_future(_disconnected(request.receive))
    try:
        await asyncio.wait({run, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
        if not run.done():
            run.cancel()
    if run.cancelled():
        return None
    return run.result()


def _sandbox_failed(exc: Exception) -> JSONResponse:
    """The sandbox itself failed (it could not start, was closed, or has a bug): a ``SandboxError``,
    which clients treat as an outage, never a 500 and never the request's fault. The details (paths,
    traceback) go to the log only."""
    log.error("/run_code: the sandbox failed: %s: %s", type(exc).__name__, exc, exc_info=exc)
    closed = isinstance(exc, RuntimeError) and "closed" in str(exc)
    message = (
        "the sandbox is closed"
        if closed
        else f"the sandbox failed ({type(exc).__name__}); see the server log"
    )
    return JSONResponse(to_response(RunResult(RunStatus.SANDBOX_ERROR, error=message)))


async def _installed(sb: Sandbox, language: str) -> bool:
    """Whether ``language``'s toolchain is here; the sandbox starts on the first call (off the event
    loop), so a sandbox that cannot start raises here, before any request is blamed for it."""
    return (await asyncio.to_thread(sb.languages))[language]


async def _handle(sb: Sandbox, limits: RunCodeLimits, request: Request) -> Response:
    try:
        body = await asyncio.wait_for(_read_body(request, limits.max_body_bytes), limits.body_timeout_s)
        job = parse_request(_decode_json(body), limits)
    except Refused as refusal:
        return refusal.response()
    except ClientDisconnect:
        return Response(status_code=400)  # nobody reads it
    except asyncio.TimeoutError:
        return Refused(
            408,
            "body",
            f"the request body did not arrive within body_timeout_s ({limits.body_timeout_s:g} s)",
        ).response()
    try:
        installed = await _installed(sb, job.language)
    except Exception as exc:  # cannot start, closed or broken: SandboxFusion's SandboxError
        return _sandbox_failed(exc)
    if not installed:
        return Refused(
            422, "language", f"language {job.language!r} has no toolchain installed on this server"
        ).response()
    try:
        result = await _run_unless_disconnected(sb, job, request)
    except (ConfigError, InvalidSampleError, UnicodeError) as exc:  # a request the sandbox itself refuses
        return Refused(422, "files" if "file" in str(exc) else "body", public_message(str(exc))).response()
    except Exception as exc:
        return _sandbox_failed(exc)
    if result is None:
        log.info("/run_code: the client disconnected; its run was cancelled")
        return Response(status_code=499)  # nobody reads it (nginx's "client closed request")
    if result.status is RunStatus.SANDBOX_ERROR:
        log.warning("/run_code: sandbox error: %s", result.error)
    return JSONResponse(to_response(result))


def _overloaded(limits: RunCodeLimits, gate: _Gate) -> JSONResponse:
    body = {
        "error": "overloaded",
        "field": None,
        "limit": gate.capacity,
        "detail": f"this server is running or queueing {gate.active} requests ({gate.bytes} bytes of bodies; "
        f"at most {gate.capacity} = max_parallel + max_queued, and max_queued_bytes = {gate.byte_capacity}); "
        "retry later",
    }
    headers = {"Retry-After": str(max(1, math.ceil(limits.retry_after_s))), "Connection": "close"}
    return JSONResponse(body, status_code=429, headers=headers)


def create_app(
    sandbox: Sandbox | None = None,
    *,
    max_parallel: int | None = None,
    limits: RunCodeLimits | None = None,
    isolation: str = "auto",
    token: str | None = None,
) -> FastAPI:
    """The FastAPI app; it owns (and closes on shutdown) a new :class:`Sandbox` (of ``isolation``) unless
    one is given. ``limits``: what a request may ask for (default :class:`RunCodeLimits`). ``token``:
    required on ``/run_code`` as ``Authorization: Bearer <token>`` or ``?token=`` (verl's client cannot
    set headers); ``/v1/ping`` stays open for health checks."""
    owned = sandbox is None
    sb = sandbox if sandbox is not None else Sandbox(max_parallel=max_parallel, isolation=isolation)
    bounds = limits if limits is not None else RunCodeLimits()
    gate = _Gate(sb.max_parallel + bounds.max_queued, bounds.max_queued_bytes)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        if owned:
            sb.close()

    app = FastAPI(title="rewardloop sandbox (SandboxFusion protocol)", lifespan=lifespan)

    @app.get("/v1/ping")
    async def ping() -> str:
        return "pong"

    @app.post("/run_code")
    async def run_code(request: Request) -> Response:
        if not _token_ok(token, request):
            body = {
                "error": "unauthorized",
                "field": None,
                "limit": None,
                "detail": "a valid token is required",
            }
            return JSONResponse(
                body, status_code=401, headers={"WWW-Authenticate": "Bearer", "Connection": "close"}
            )
        if not _json_media_type(request):
            detail = "the body must be JSON sent as Content-Type: application/json"
            body = {
                "error": "unsupported_media_type",
                "field": "content-type",
                "limit": None,
                "detail": detail,
            }
            return JSONResponse(body, status_code=415, headers={"Connection": "close"})
        cost = _reserved_bytes(request, bounds)
        if not gate.enter(cost):
            return _overloaded(bounds, gate)
        try:
            return await _handle(sb, bounds, request)
        finally:
            gate.leave(cost)

    return app


def _token_ok(token: str | None, request: Request) -> bool:
    if check_bearer(token, request.headers.get("authorization")):
        return True
    given = request.query_params.getlist("token") if token is not None else []
    return len(given) == 1 and check_bearer(token, f"Bearer {given[0]}")


def header_timeout_protocol(timeout_s: float) -> type:
    """uvicorn's h11 protocol with a deadline for each request's headers: a connection that has not sent
    complete headers ``timeout_s`` after it opened (or after its previous response) is closed. uvicorn
    itself only times out idle keep-alive connections, and any byte resets that timer."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeoutProtocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self.cycle is None or self.cycle.response_complete:
                self._arm()  # between requests: the next one's headers are due
            super().data_received(data)
            if self.cycle is not None and not self.cycle.response_complete:
                self._disarm()  # a request's headers arrived (the body has its own timeout)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(timeout_s, self._expired)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _expired(self) -> None:
            self._header_timer = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

    return HeaderTimeoutProtocol


def serve(
    host: str = "127.0.0.1",
    port: int = 8080,
    max_parallel: int | None = None,
    limits: RunCodeLimits | None = None,
    isolation: str = "auto",
    token: str | None = None,
) -> None:
    """Run the app with uvicorn until interrupted. A host that is not a loopback address needs ``token``."""
    import uvicorn

    from ._config import is_loopback

    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to bind {host!r} without a token: anyone who can reach it could run code"
        )
    bounds = limits if limits is not None else RunCodeLimits()
    app = create_app(max_parallel=max_parallel, limits=bounds, isolation=isolation, token=token)
    protocol = header_timeout_protocol(bounds.header_timeout_s)
    uvicorn.run(app, host=host, port=port, log_level="warning", http=protocol)

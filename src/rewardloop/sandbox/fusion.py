"""A client for the SandboxFusion HTTP protocol (``POST /run_code``), usable wherever the local
:class:`~rewardloop.sandbox.Sandbox` is: :meth:`SandboxFusionClient.run` has the same signature and returns
the same :class:`~rewardloop.sandbox.RunResult`, so :func:`rewardloop.sandbox.harness.run_tests` and
:class:`~rewardloop.scorers.code.CodeScorer` run on either backend.

::

    from rewardloop.sandbox.fusion import SandboxFusionClient

    client = SandboxFusionClient("http://127.0.0.1:8080", timeout_s=30)   # with or without /run_code
    result = client.run("print(input()[::-1])", "python", stdin="abc")    # RunResult(status=FINISHED, ...)
    raw = client.run_code("print(1)", "python")                            # the response JSON (a dict)

The server can be bytedance's SandboxFusion or ``rewardloop sandbox serve``
(:mod:`rewardloop.server.sandbox_app`). Only the standard library is used (``urllib.request``).

Failure policy (unlike verl, which retries only HTTP 504 and scores every other failure as a failed
test):

* connection errors, timeouts and HTTP 5xx are retried ``retries`` times with exponential backoff and
  full jitter (``uniform(0, backoff_base_s * 2**attempt)``);
* HTTP 4xx is not retried (HTTP 429 raises :class:`~rewardloop.errors.RateLimited` with its
  ``Retry-After``);
* when the retries are exhausted, on a 4xx, on an unreadable response, or when the server answers
  ``"status": "SandboxError"``, :class:`~rewardloop.errors.InfraError` is raised: an outage is never a
  failed test.

Concurrency: the requests in flight to one URL are bounded process-wide, by a
``threading.BoundedSemaphore(max_concurrency)`` per URL created on first use under a lock; the first
client for a URL fixes its size (later clients with another ``max_concurrency`` share it). The semaphore
is held only during the HTTP request, not while backing off. Clients hold no connection state and pickle.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError, InfraError, RateLimited
from ._types import Limits, RunResult, RunStatus

__all__ = ["SandboxFusionClient", "to_run_result"]

log = logging.getLogger(__name__)

_DEFAULT_LIMITS = Limits()
_HTTP_SLACK_S = 10.0  # added to compile + run timeouts for the HTTP timeout (as verl's API_TIMEOUT)
# rewardloop's language names -> SandboxFusion's (``c`` is not a SandboxFusion language; our server has it)
_LANGUAGE_NAMES = {"javascript": "nodejs", "js": "nodejs", "node": "nodejs", "py": "python", "c++": "cpp"}

_semaphores: dict[str, threading.BoundedSemaphore] = {}
_semaphores_lock = threading.Lock()


def _semaphore(url: str, size: int) -> threading.BoundedSemaphore:
    with _semaphores_lock:
        sem = _semaphores.get(url)
        if sem is None:
            sem = _semaphores[url] = threading.BoundedSemaphore(size)
        return sem


def _run_code_url(url: str) -> str:
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(f"SandboxFusion url must start with http:// or https://, got {url!r}")
    # keep a query string (``?token=...`` for a rewardloop service) after the path
    base, sep, query = url.partition("?")
    base = base.rstrip("/")
    if not base.endswith("/run_code"):
        base += "/run_code"
    return base + sep + query


class SandboxFusionClient:
    """Runs code on a SandboxFusion-compatible server.

    ``url``: the server (``http://host:8080``) or its ``/run_code`` URL. ``timeout_s``: HTTP timeout of
    one request (``None``: compile timeout + run timeout + 10 s). ``retries``: extra attempts after a
    connection error, timeout or HTTP 5xx. ``backoff_base_s``: the first backoff's upper bound.
    ``max_concurrency``: requests in flight to this URL across the whole process.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float | None = None,
        retries: int = 3,
        backoff_base_s: float = 0.5,
        max_concurrency: int = 32,
    ) -> None:
        self.url = _run_code_url(url)
        if timeout_s is not None and not (isinstance(timeout_s, (int, float)) and timeout_s > 0):
            raise ConfigError(f"timeout_s must be a number > 0 or None, got {timeout_s!r}")
        if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
            raise ConfigError(f"retries must be an int >= 0, got {retries!r}")
        if not isinstance(backoff_base_s, (int, float)) or backoff_base_s < 0:
            raise ConfigError(f"backoff_base_s must be a number >= 0, got {backoff_base_s!r}")
        if not isinstance(max_concurrency, int) or isinstance(max_concurrency, bool) or max_concurrency < 1:
            raise ConfigError(f"max_concurrency must be an int >= 1, got {max_concurrency!r}")
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_base_s = float(backoff_base_s)
        self.max_concurrency = max_concurrency

    def __repr__(self) -> str:
        return f"SandboxFusionClient({self.url!r}, retries={self.retries})"

    # ------------------------------------------------------------------------------------------ raw protocol

    def run_code(
        self,
        code: str,
        language: str = "python",
        *,
        stdin: str | None = None,
        compile_timeout: float = 10.0,
        run_timeout: float = 10.0,
        memory_limit_mb: int = -1,
        files: Mapping[str, str | bytes] | None = None,
        fetch_files: Sequence[str] = (),
    ) -> dict[str, Any]:
        """``POST /run_code``; the response JSON. ``files`` values are raw contents (base64-encoded here).

        Raises :class:`InfraError` when the server cannot be reached after the retries, answers an HTTP
        error, an unreadable body, or ``"status": "SandboxError"``.
        """
        body = {
            "code": code,
            "language": language,
            "stdin": stdin,
            "compile_timeout": compile_timeout,
            "run_timeout": run_timeout,
            "memory_limit_MB": memory_limit_mb,
            "files": {name: _b64(content) for name, content in (files or {}).items()},
            "fetch_files": list(fetch_files),
        }
        timeout = self.timeout_s or (compile_timeout + run_timeout + _HTTP_SLACK_S)
        response = self._post(json.dumps(body).encode(), timeout)
        if response.get("status") == "SandboxError":
            raise InfraError(f"SandboxFusion at {self.url}: SandboxError: {response.get('message') or ''}")
        if response.get("status") not in ("Success", "Failed"):
            raise InfraError(f"SandboxFusion at {self.url}: unknown status {response.get('status')!r}")
        return response

    def _post(self, data: bytes, timeout: float) -> dict[str, Any]:
        request = urllib.request.Request(
            self.url,
            data=data,
            method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        sem = _semaphore(self.url, self.max_concurrency)
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(random.uniform(0.0, self.backoff_base_s * 2 ** (attempt - 1)))
            try:
                with sem, urllib.request.urlopen(request, timeout=timeout) as reply:
                    raw = reply.read()
            except urllib.error.HTTPError as exc:
                detail = _error_body(exc)
                if exc.code == 429:
                    retry_after = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
                    raise RateLimited(f"SandboxFusion at {self.url}: HTTP 429 {detail}", retry_after) from exc
                if 400 <= exc.code < 500:
                    raise InfraError(
                        f"SandboxFusion at {self.url}: HTTP {exc.code} (not retried): {detail}"
                    ) from exc
                last = f"HTTP {exc.code}: {detail}"
            except (urllib.error.URLError, OSError) as exc:  # refused, reset, DNS, timeout
                last = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            else:
                try:
                    response = json.loads(raw)
                except ValueError as exc:
                    raise InfraError(f"SandboxFusion at {self.url}: the response is not JSON") from exc
                if not isinstance(response, dict):
                    raise InfraError(f"SandboxFusion at {self.url}: the response is not a JSON object")
                return response
            log.debug("SandboxFusion %s attempt %d failed: %s", self.url, attempt + 1, last)
        raise InfraError(f"SandboxFusion at {self.url}: failed after {self.retries + 1} attempts: {last}")

    # ------------------------------------------------------------------------------------------ Sandbox API

    def run(
        self,
        code: str,
        language: str = "python",
        *,
        stdin: str | bytes = "",
        limits: Limits = _DEFAULT_LIMITS,
        files: Mapping[str, str | bytes] | None = None,
        args: Sequence[str] = (),
    ) -> RunResult:
        """:meth:`Sandbox.run <rewardloop.sandbox.Sandbox.run>` on the server: ``limits.wall_s``,
        ``compile_wall_s`` and ``memory_mb`` are sent (SandboxFusion has no other limits); ``args`` are
        not supported. Raises :class:`InfraError` for an outage (see the module docstring)."""
        if args:
            raise ConfigError("SandboxFusion runs take no command-line args")
        if isinstance(stdin, (bytes, bytearray)):
            stdin = bytes(stdin).decode("utf-8", "replace")
        name = str(language).strip().lower()
        response = self.run_code(
            code,
            _LANGUAGE_NAMES.get(name, name),
            stdin=stdin,
            compile_timeout=limits.compile_wall_s,
            run_timeout=limits.wall_s,
            memory_limit_mb=-1 if limits.memory_mb is None else limits.memory_mb,
            files=files,
        )
        return to_run_result(response)


def to_run_result(response: Mapping[str, Any]) -> RunResult:
    """A ``/run_code`` response (``Success`` or ``Failed``) as a :class:`RunResult`.

    A failed or timed-out compile stage is ``COMPILE_ERROR`` (the compiler's exit code and output); a
    run stage that timed out is ``TIMEOUT``; one that finished is ``FINISHED`` with its return code
    (a negative one is a signal). A missing run stage, or a stage with status ``Error`` (SandboxFusion's
    own failure), raises :class:`InfraError`."""
    compiled = _stage(response.get("compile_result"))
    if compiled is not None and not compiled.ok:
        error = "the compile phase ran past its time limit" if compiled.status is RunStatus.TIMEOUT else None
        return RunResult(
            status=RunStatus.COMPILE_ERROR,
            exit_code=compiled.exit_code,
            signal=compiled.signal,
            stdout=compiled.stdout,
            stderr=compiled.stderr,
            wall_s=compiled.wall_s,
            compile=compiled,
            error=error,
        )
    ran = _stage(response.get("run_result"))
    if ran is None:
        raise InfraError(f"SandboxFusion answered {response.get('status')!r} without a run_result")
    return RunResult(
        status=ran.status,
        exit_code=ran.exit_code,
        signal=ran.signal,
        stdout=ran.stdout,
        stderr=ran.stderr,
        wall_s=ran.wall_s,
        compile=compiled,
    )


def _stage(stage: Any) -> RunResult | None:
    if stage is None:
        return None
    if not isinstance(stage, Mapping):
        raise InfraError(f"SandboxFusion: a stage result is not an object: {stage!r:.200}")
    status = stage.get("status")
    code = stage.get("return_code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    common: dict[str, Any] = {
        "stdout": stage.get("stdout") or "",
        "stderr": stage.get("stderr") or "",
        "wall_s": float(stage.get("execution_time") or 0.0),
    }
    if status == "TimeLimitExceeded":
        return RunResult(status=RunStatus.TIMEOUT, **common)
    if status == "Finished":
        if code is not None and code < 0:
            return RunResult(status=RunStatus.FINISHED, signal=-code, **common)
        return RunResult(status=RunStatus.FINISHED, exit_code=code, **common)
    raise InfraError(f"SandboxFusion stage status {status!r}: {common['stderr'][-300:]}")


def _b64(content: str | bytes) -> str:
    raw = content.encode() if isinstance(content, str) else bytes(content)
    return base64.b64encode(raw).decode("ascii")


def _error_body(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read(500).decode("utf-8", "replace")
    except Exception:  # the body is only a diagnostic
        return ""


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None

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
Where we differ from SandboxFusion: an unsupported language (SandboxFusion has 29), a ``files`` name that
is absolute or leaves the working directory (SandboxFusion writes absolute paths anywhere), or content
that is not base64, is refused with HTTP 422 and a ``detail`` message; ``memory_limit_MB <= 0`` means no
memory cap; the memory cap, output cap and the sandbox's other limits apply as in :mod:`rewardloop.sandbox`
(a program stopped by one of them is ``Failed``, with ``stderr`` naming the limit); ``fetch_files`` is
accepted but no files are returned (``files`` is always ``{}``).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

from ..errors import ConfigError
from ..sandbox import Limits, RunResult, RunStatus, Sandbox

__all__ = ["create_app", "serve"]

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


class RunCodeRequest(BaseModel):
    code: str
    language: str
    compile_timeout: float = 10.0
    run_timeout: float = 10.0
    memory_limit_MB: int = -1
    stdin: str | None = None
    files: dict[str, str | None] = {}
    fetch_files: list[str] = []


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
        out.update(status="SandboxError", message=result.error or "sandbox error")
        return out
    if result.compile is not None:
        out["compile_result"] = _stage(result.compile)
    if result.status is RunStatus.COMPILE_ERROR:
        if out["compile_result"] is None:
            out["compile_result"] = _stage(RunResult(RunStatus.FINISHED, exit_code=1, stderr=result.stderr))
        out.update(status="Failed", message=result.error or "")
        return out
    run = out["run_result"] = _stage(result)
    if run["status"] != "Finished" or run["return_code"] != 0:
        out["status"] = "Failed"
    return out


def _files(files: dict[str, str | None]) -> dict[str, bytes]:
    decoded = {}
    for name, content in files.items():
        if content is None:
            continue
        try:
            decoded[name] = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise HTTPException(422, f"files[{name!r}] is not valid base64") from exc
    return decoded


def create_app(sandbox: Sandbox | None = None, *, max_parallel: int | None = None) -> FastAPI:
    """The FastAPI app; it owns (and closes on shutdown) a new :class:`Sandbox` unless one is given."""
    owned = sandbox is None
    sb = sandbox if sandbox is not None else Sandbox(max_parallel=max_parallel)

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
    async def run_code(request: RunCodeRequest) -> dict[str, Any]:
        language = LANGUAGES.get(request.language)
        if language is None:
            raise HTTPException(
                422,
                f"language {request.language!r} is not supported by this server; "
                f"supported: {', '.join(sorted(LANGUAGES))}",
            )
        try:
            limits = Limits(
                wall_s=request.run_timeout,
                compile_wall_s=request.compile_timeout,
                memory_mb=request.memory_limit_MB if request.memory_limit_MB > 0 else None,
            )
        except ConfigError as exc:
            raise HTTPException(422, str(exc)) from exc
        try:
            result = await sb.arun(
                request.code,
                language,
                stdin=request.stdin or "",
                limits=limits,
                files=_files(request.files),
            )
        except ConfigError as exc:  # a bad file name
            raise HTTPException(422, str(exc)) from exc
        except RuntimeError as exc:  # the sandbox is closed or broken: SandboxFusion's SandboxError
            log.exception("sandbox run failed")
            return to_response(RunResult(RunStatus.SANDBOX_ERROR, error=str(exc)))
        return to_response(result)

    return app


def serve(host: str = "127.0.0.1", port: int = 8080, max_parallel: int | None = None) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(max_parallel=max_parallel), host=host, port=port, log_level="warning")

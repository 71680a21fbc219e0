"""HTTP servers (optional extra ``rewardloop[server]``: FastAPI + uvicorn).

* :func:`create_app` / :func:`serve`: the reward service of ``rewardloop serve`` (native ``/v1/score``,
  OpenRLHF ``/get_reward``, SandboxFusion ``/run_code``, ``/v1/scorers``, ``/healthz``, ``/metrics``);
  see ``docs/server.md``.
* :mod:`.sandbox_app`: the sandbox alone (``rewardloop sandbox serve``).

Importing this package is cheap: :class:`ServerConfig` and :func:`load_service_config` need no extra;
FastAPI is imported when :func:`create_app` or :func:`serve` is first used. :mod:`rewardloop` never
imports this package.
"""

from __future__ import annotations

from typing import Any

from ._config import (
    ENV_TOKEN,
    RunCodeLimits,
    ServerConfig,
    is_loopback,
    load_run_code_limits,
    load_service_config,
)

__all__ = [
    "ENV_TOKEN",
    "RunCodeLimits",
    "ServerConfig",
    "create_app",
    "is_loopback",
    "load_run_code_limits",
    "load_service_config",
    "serve",
]


def __getattr__(name: str) -> Any:
    if name in ("create_app", "serve"):
        try:
            from . import _app
        except ImportError as exc:
            from ..errors import MissingExtraError

            raise MissingExtraError(exc.name or "fastapi", "server") from exc
        return getattr(_app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

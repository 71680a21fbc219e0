"""The execution layer: :class:`Runner` (deadlines, worker processes, limits, retries, de-duplication,
failure policy), its :class:`RunnerConfig`, and :class:`RayRunner`, the same interface over Ray actors
(Ray itself is imported only when a ``RayRunner`` is built).

Worker processes import this package, so it stays light: names resolve on first attribute access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["RateLimiter", "RayLimiter", "RayRunner", "Runner", "RunnerConfig", "TokenBucket", "WorkerPool"]

_LAZY = {
    "RateLimiter": "._limits",
    "RayLimiter": "._ray",
    "RayRunner": "._ray",
    "Runner": "._runner",
    "RunnerConfig": "._config",
    "TokenBucket": "._limits",
    "WorkerPool": "._workers",
}

if TYPE_CHECKING:
    from ._config import RunnerConfig
    from ._limits import RateLimiter, TokenBucket
    from ._ray import RayLimiter, RayRunner
    from ._runner import Runner
    from ._workers import WorkerPool


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rewardloop.execution' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

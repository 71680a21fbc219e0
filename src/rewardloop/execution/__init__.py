"""The execution layer: :class:`Runner`, the one scheduler (deadlines, limits, retries, de-duplication, cache,
failure policy) over an executor (:class:`LocalExecutor`: the event loop, threads, worker processes; or
:class:`RayExecutor`: Ray actors), its :class:`RunnerConfig`, and :class:`RayRunner`, the runner over a Ray
executor (Ray itself is imported only when one is built); :func:`score_one` for one sample on the same
attempt rules, :class:`WorkerPool` for killable worker processes, and the batch report helpers other layers use.

Worker processes import this package, so it stays light: names resolve on first attribute access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "DEFAULT_MAX_TASKS_PER_WORKER",
    "EXECUTIONS",
    "Closable",
    "LocalExecutor",
    "PoolStats",
    "RateLimiter",
    "RayExecutor",
    "RayLimiter",
    "RayRunner",
    "RemoteTraceback",
    "Runner",
    "RunnerConfig",
    "TokenBucket",
    "WorkerPool",
    "batch_stats",
    "default_pool",
    "failure_error",
    "failure_score",
    "finish_batch",
    "score_one",
]

_LAZY = {
    "DEFAULT_MAX_TASKS_PER_WORKER": "._workers",
    "EXECUTIONS": "._config",
    "Closable": "._sync",
    "LocalExecutor": "._local",
    "PoolStats": "._workers",
    "RateLimiter": "._limits",
    "RayExecutor": "._ray",
    "RayLimiter": "._ray",
    "RayRunner": "._ray",
    "RemoteTraceback": "._worker_main",
    "Runner": "._runner",
    "RunnerConfig": "._config",
    "TokenBucket": "._limits",
    "WorkerPool": "._workers",
    "batch_stats": "._report",
    "default_pool": "._workers",
    "failure_error": "._report",
    "failure_score": "._attempt",
    "finish_batch": "._report",
    "score_one": "._single",
}

if TYPE_CHECKING:
    from ._attempt import failure_score
    from ._config import EXECUTIONS, RunnerConfig
    from ._limits import RateLimiter, TokenBucket
    from ._local import LocalExecutor
    from ._ray import RayExecutor, RayLimiter, RayRunner
    from ._report import batch_stats, failure_error, finish_batch
    from ._runner import Runner
    from ._single import score_one
    from ._sync import Closable
    from ._worker_main import RemoteTraceback
    from ._workers import DEFAULT_MAX_TASKS_PER_WORKER, PoolStats, WorkerPool, default_pool


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

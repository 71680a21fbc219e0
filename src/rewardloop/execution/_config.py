"""``RunnerConfig``: every knob of the :class:`~rewardloop.execution.Runner`, each default defined here once.

Raw mappings (YAML, JSON, Hydra) go through :meth:`RunnerConfig.from_dict`, which rejects unknown keys
by name. Values are checked when the config is built, so a bad value fails at start-up, naming what is
allowed (DESIGN §3, contract 7).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ConfigError
from ._workers import DEFAULT_MAX_TASKS_PER_WORKER

__all__ = ["EXECUTIONS", "RunnerConfig"]

EXECUTIONS = ("inline", "thread", "process")
OnError = float | None | Literal["raise"]


def _default_workers() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))  # the CPUs this process may use (containers, taskset)
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


@dataclass(frozen=True)
class RunnerConfig:
    """How a :class:`~rewardloop.execution.Runner` executes scorers. See ``docs/execution.md``.

    Attributes:
        workers: worker processes for ``execution="process"`` scorers (default ``min(4, usable CPUs)``).
        timeout_s: per-sample deadline in seconds, counted from the start of execution; None = each
            scorer's own ``timeout_s``. Batch scorers get ``timeout_s * len(chunk)`` per chunk.
        max_concurrency: samples (or chunks) in flight at once, across every caller of the runner.
        threads: ``execution="thread"`` samples running at once.
        on_error: the reward of a failed sample: a number (NaN allowed), None (exclude), or ``"raise"``
            (raise :class:`~rewardloop.errors.ScoringError` naming the first failure once the batch is done).
        dedup: score identical samples once per batch and fan the result out.
        cache_size: entries of the LRU cache of results that spans batches; 0 = no cache.
        retries: retries per sample of an infrastructure failure (``InfraError`` / status ``infra_error``).
        backoff_base_s, backoff_max_s: retry ``k`` waits ``uniform(0, min(max, base * 2**(k-1)))`` s.
        retry_budget: retries per batch in all (per minute for :meth:`~rewardloop.execution.Runner.submit`).
        batch_size: chunk size for scorers with ``supports_batch``.
        max_tasks_per_worker: a worker process is replaced after this many samples (None = never); a
            safety net, since a fresh worker must re-import and re-warm its scorers.
        memory_limit_mb: memory cap per worker process (None = no cap).
        recycle_memory_mb: a worker is replaced, between samples, once its resident memory passes
            this many MiB (None = ``3/4`` of ``memory_limit_mb`` when that is set, else never): leaks are
            caught by growth, not by a task count.
        execution: force ``"inline"``, ``"thread"`` or ``"process"`` for every sync scorer (None = as
            each scorer declares). Async scorers are always awaited.
        rpm, tpm: requests / tokens per minute across the runner (None = unlimited).
        slow_sample_s: log a warning for each sample that executes longer than this (None = never).
    """

    workers: int = field(default_factory=_default_workers)
    timeout_s: float | None = None
    max_concurrency: int = 256
    threads: int = 32
    on_error: OnError = 0.0
    dedup: bool = True
    cache_size: int = 0
    retries: int = 3
    backoff_base_s: float = 0.2
    backoff_max_s: float = 10.0
    retry_budget: int = 100
    batch_size: int = 64
    max_tasks_per_worker: int | None = DEFAULT_MAX_TASKS_PER_WORKER
    memory_limit_mb: int | None = None
    recycle_memory_mb: int | None = None
    execution: Literal["inline", "thread", "process"] | None = None
    rpm: float | None = None
    tpm: float | None = None
    slow_sample_s: float | None = 10.0

    def __post_init__(self) -> None:
        for name in ("workers", "max_concurrency", "threads", "batch_size"):
            _check_int(name, getattr(self, name), minimum=1)
        for name in ("cache_size", "retries", "retry_budget"):
            _check_int(name, getattr(self, name), minimum=0)
        _check_int("max_tasks_per_worker", self.max_tasks_per_worker, minimum=1, optional=True)
        _check_int("memory_limit_mb", self.memory_limit_mb, minimum=64, optional=True)
        _check_int("recycle_memory_mb", self.recycle_memory_mb, minimum=1, optional=True)
        for name in ("timeout_s", "rpm", "tpm", "slow_sample_s"):
            _check_positive(name, getattr(self, name), optional=True)
        for name in ("backoff_base_s", "backoff_max_s"):
            _check_positive(name, getattr(self, name), zero_ok=True)
        if not isinstance(self.dedup, bool):
            raise ConfigError(f"dedup must be True or False, got {self.dedup!r}")
        if self.execution is not None and self.execution not in EXECUTIONS:
            raise ConfigError(
                f"execution must be None or one of {', '.join(EXECUTIONS)}, got {self.execution!r}"
            )
        _check_on_error(self.on_error)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> RunnerConfig:
        """Build a config from a mapping; unknown keys raise :class:`ConfigError` listing the allowed ones."""
        data = dict(data or {})
        allowed = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(map(str, set(data) - set(allowed)))
        if unknown:
            raise ConfigError(
                f"unknown RunnerConfig key(s): {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
            )
        return cls(**data)

    @classmethod
    def coerce(
        cls, config: RunnerConfig | Mapping[str, Any] | None, overrides: Mapping[str, Any]
    ) -> RunnerConfig:
        """A runner's ``config`` argument (a RunnerConfig, a mapping or None) with keyword ``overrides``."""
        if config is None or isinstance(config, Mapping):
            return cls.from_dict({**dict(config or {}), **overrides})
        if not isinstance(config, RunnerConfig):
            raise ConfigError(
                f"config must be a RunnerConfig, a mapping or None, got {type(config).__name__}"
            )
        return config.replace(**overrides) if overrides else config

    def replace(self, **changes: Any) -> RunnerConfig:
        """A copy with ``changes`` applied (checked like :meth:`from_dict`)."""
        return type(self).from_dict({**self.as_dict(), **changes})

    @property
    def worker_recycle_memory_mb(self) -> int | None:
        """The effective ``recycle_memory_mb`` (its default derives from ``memory_limit_mb``)."""
        if self.recycle_memory_mb is not None:
            return self.recycle_memory_mb
        return None if self.memory_limit_mb is None else self.memory_limit_mb * 3 // 4

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def _check_int(name: str, value: Any, *, minimum: int, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        extra = " or None" if optional else ""
        raise ConfigError(f"{name} must be an int >= {minimum}{extra}, got {value!r}")


def _check_positive(name: str, value: Any, *, optional: bool = False, zero_ok: bool = False) -> None:
    if value is None and optional:
        return
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not zero_ok):
        what = "a number >= 0" if zero_ok else "a positive number"
        raise ConfigError(f"{name} must be {what}{' or None' if optional else ''}, got {value!r}")


def _check_on_error(value: Any) -> None:
    if value is None or value == "raise":
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(
            f"on_error must be a number (NaN allowed), None (exclude failed samples) or 'raise', got {value!r}"
        )

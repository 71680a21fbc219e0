"""``RunnerConfig``: every knob of the :class:`~rewardloop.execution.Runner`, each default defined here once.

Raw mappings (YAML, JSON, Hydra) go through :meth:`RunnerConfig.from_dict`, which rejects unknown keys
by name. Values are checked when the config is built, so a bad value fails at start-up, naming what is
allowed (DESIGN §3, contract 7).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._validate import Bool, Choice, Int, Number, Rule, Spec, check_fields, known_keys
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
        check_fields(self, _SPECS)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, where: str = "RunnerConfig") -> RunnerConfig:
        """Build a config from a mapping; unknown keys raise :class:`ConfigError` listing the allowed ones
        (``where`` names the mapping in that message: ``reward.runner`` for a reward config's section).
        The config remembers which keys the mapping set (:meth:`given`)."""
        settings = known_keys(cls, data, where)
        config = cls(**settings)
        object.__setattr__(config, "_given_keys", frozenset(settings))
        return config

    def given(self) -> dict[str, Any]:
        """The settings this config was given: the keys of :meth:`from_dict`'s mapping (a ``runner`` section
        as written), or, for a config built directly, the fields that differ from their defaults. Layers
        of defaults (:meth:`with_defaults`) apply under these."""
        names = self.__dict__.get("_given_keys")
        if names is None:
            default = type(self)()
            names = [
                f.name for f in dataclasses.fields(self) if getattr(self, f.name) != getattr(default, f.name)
            ]
        return {name: getattr(self, name) for name in sorted(names)}

    def with_defaults(self, **defaults: Any) -> RunnerConfig:
        """A copy where ``defaults`` fill the fields this config was not given (see :meth:`given`)."""
        return type(self).from_dict({**defaults, **self.given()})

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
        """A copy with ``changes`` applied (checked like :meth:`from_dict`); they count as given."""
        config = type(self).from_dict({**self.as_dict(), **changes})
        object.__setattr__(config, "_given_keys", frozenset(self.given()) | frozenset(changes))
        return config

    @property
    def worker_recycle_memory_mb(self) -> int | None:
        """The effective ``recycle_memory_mb`` (its default derives from ``memory_limit_mb``)."""
        if self.recycle_memory_mb is not None:
            return self.recycle_memory_mb
        return None if self.memory_limit_mb is None else self.memory_limit_mb * 3 // 4

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def _on_error_ok(value: Any) -> bool:
    return (
        value is None or value == "raise" or (isinstance(value, int | float) and not isinstance(value, bool))
    )


# each field's rule, checked by __post_init__ (rewardloop._validate words the errors)
_SPECS: dict[str, Spec] = {
    "workers": Int(minimum=1),
    "timeout_s": Number(positive=True, optional=True),
    "max_concurrency": Int(minimum=1),
    "threads": Int(minimum=1),
    "on_error": Rule(_on_error_ok, "a number (NaN allowed), None (exclude failed samples) or 'raise'"),
    "dedup": Bool(),
    "cache_size": Int(minimum=0),
    "retries": Int(minimum=0),
    "backoff_base_s": Number(minimum=0),
    "backoff_max_s": Number(minimum=0),
    "retry_budget": Int(minimum=0),
    "batch_size": Int(minimum=1),
    "max_tasks_per_worker": Int(minimum=1, optional=True),
    "memory_limit_mb": Int(minimum=64, optional=True),
    "recycle_memory_mb": Int(minimum=1, optional=True),
    "execution": Choice(EXECUTIONS, optional=True),
    "rpm": Number(positive=True, optional=True),
    "tpm": Number(positive=True, optional=True),
    "slow_sample_s": Number(positive=True, optional=True),
}

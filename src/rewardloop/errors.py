"""The error hierarchy of rewardloop.

::

    RewardLoopError
    ├── ConfigError                 configuration is wrong; raised at start-up, names the allowed values
    │                               (also a ValueError, and an AssertionError as verl asserts its config)
    │   ├── UnknownTaskError        a task / data_source no scorer handles (also a NotImplementedError, as verl raises)
    │   ├── UnknownScorerError      a scorer name that is not registered
    │   └── CustomFunctionError     a custom reward function cannot be loaded or has the wrong signature
    ├── InvalidSampleError          one sample is malformed (missing field, wrong type); becomes status ``invalid_input``
    ├── ScoringError                scoring one sample failed
    │   ├── ScoringTimeout          the deadline passed; the worker was killed
    │   ├── WorkerCrashed           the process scoring the sample died (segfault, os._exit, out of memory)
    │   └── InfraError              a dependency failed (sandbox, model server, network); the Runner retries it
    │       └── RateLimited         the dependency said "too many requests" (HTTP 429); carries retry_after
    └── MissingExtraError           an optional dependency is not installed; names the extra to install

Per-sample errors are normally turned into a :class:`~rewardloop.Score` with a failure status by the
execution layer; they only propagate when the failure policy says ``raise``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "ConfigError",
    "CustomFunctionError",
    "InfraError",
    "InvalidSampleError",
    "MissingExtraError",
    "RateLimited",
    "RewardLoopError",
    "ScoringError",
    "ScoringTimeout",
    "UnknownScorerError",
    "UnknownTaskError",
    "WorkerCrashed",
    "require_extras",
]


class RewardLoopError(Exception):
    """Base class of every error rewardloop raises on purpose."""


class ConfigError(RewardLoopError, ValueError, AssertionError):
    """A configuration value is wrong. The message names the allowed values.

    Also an ``AssertionError``: verl reports a bad configuration with ``assert`` (e.g. its DAPO managers'
    ``max_resp_len`` checks), so code written against verl that catches ``AssertionError`` keeps working.
    """


class UnknownTaskError(ConfigError, NotImplementedError):
    """No scorer is routed for a task (verl: ``data_source``).

    The message starts exactly like verl's so that code matching on it keeps working.
    """

    def __init__(self, task: object, known: Iterable[str] = ()) -> None:
        self.task = task
        self.known = sorted(known)
        msg = f"Reward function is not implemented for data_source={task!r}"
        if self.known:
            shown = ", ".join(self.known[:40]) + (" ..." if len(self.known) > 40 else "")
            msg += f". Known data sources: {shown}. Register more with rewardloop.register_route()."
        super().__init__(msg)


class UnknownScorerError(ConfigError, KeyError):
    """A scorer name that is not in the registry."""

    def __init__(self, name: str, known: Iterable[str] = ()) -> None:
        self.name = name
        self.known = sorted(known)
        super().__init__(f"Unknown scorer {name!r}. Known scorers: {', '.join(self.known) or '(none)'}")

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class CustomFunctionError(ConfigError):
    """A custom reward function could not be loaded or called as configured."""


class InvalidSampleError(RewardLoopError, ValueError):
    """One sample is malformed. Only that sample fails, with status ``invalid_input``."""


class ScoringError(RewardLoopError):
    """Scoring one sample failed for a reason other than a wrong answer."""


class ScoringTimeout(ScoringError, TimeoutError):
    """A sample ran past its deadline; the work was stopped."""


class WorkerCrashed(ScoringError):
    """The worker process died while scoring a sample."""

    def __init__(self, message: str, *, oom: bool = False) -> None:
        self.oom = oom
        super().__init__(message)


class InfraError(ScoringError):
    """A dependency of the scorer failed (sandbox, model server, network), not the answer.

    Scorers raise it (or return a score with status ``infra_error``) for transient failures; the
    :class:`~rewardloop.Runner` retries them with exponential backoff and jitter, and a sample whose
    retries run out ends with status ``infra_error``, never as a wrong answer.
    """


class RateLimited(InfraError):
    """The dependency refused the request for load (HTTP 429). ``retry_after`` is its ``Retry-After`` in
    seconds, or None when it gave none; the Runner pauses every request of its limiter that long."""

    def __init__(self, message: str = "rate limited", retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = None if retry_after is None else max(0.0, float(retry_after))

    def __reduce__(self) -> tuple[Any, ...]:  # keep retry_after across process boundaries
        return (type(self), (str(self), self.retry_after))


class MissingExtraError(RewardLoopError, ImportError):
    """An optional dependency is missing. The message says which extra to install."""

    def __init__(
        self, module: str, extra: str, *, who: str | None = None, install: str | None = None
    ) -> None:
        self.module = module
        self.extra = extra
        need = f"{who} needs {module}, not installed" if who else f"{module!r} is not installed"
        command = install or f"pip install 'rewardloop[{extra}]'"
        super().__init__(f"{need}; install it with: {command}")


def require_extras(needs: dict[str, str], who: str) -> None:
    """Raise :class:`MissingExtraError` naming every module of ``needs`` that cannot be imported. ``needs`` maps
    a module to the rewardloop extra that installs it, or to ``"pip:PACKAGE"`` for a package outside the
    extras (``trl``); ``who`` is what needs them (an example script)."""
    import importlib

    missing = {}
    for module, extra in needs.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing[module] = extra
    if not missing:
        return
    extras = sorted({e for e in missing.values() if not e.startswith("pip:")})
    packages = sorted({e[4:] for e in missing.values() if e.startswith("pip:")})
    parts = ([f"'rewardloop[{','.join(extras)}]'"] if extras else []) + packages
    raise MissingExtraError(
        ", ".join(missing), ",".join(extras), who=who, install="pip install " + " ".join(parts)
    )

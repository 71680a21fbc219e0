"""``ServerConfig``: the settings of ``rewardloop serve``, and the one parser of its YAML file.

The file has two sections::

    server:              # ServerConfig fields (all optional)
      port: 8000
      max_in_flight: 4096
    reward:              # verl's reward section (see rewardloop.config.load_reward_config)
      custom_reward_function: {path: my_reward.py}

A file without a ``server`` key is read as a reward section alone (or a whole verl trainer config), with
the default server settings. Unknown keys raise :class:`~rewardloop.errors.ConfigError` naming the
allowed ones; values are checked when the config is built.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._validate import Bool, Int, Number, Spec, Str, check_fields, known_keys
from ..config import RewardConfig, load_reward_config
from ..errors import ConfigError

__all__ = ["RunCodeLimits", "ServerConfig", "is_loopback", "load_run_code_limits", "load_service_config"]

ENV_TOKEN = "REWARDLOOP_TOKEN"
_MiB = 1 << 20


@dataclass(frozen=True)
class RunCodeLimits:
    """What ``POST /run_code`` accepts (``rewardloop sandbox serve``, and ``rewardloop serve``'s
    ``server.run_code``). See ``docs/sandbox.md``; every default is defined here, once.

    Attributes:
        default_run_timeout_s, default_compile_timeout_s: used when the request omits ``run_timeout`` /
            ``compile_timeout`` (SandboxFusion's defaults, 10 s).
        max_run_timeout_s, max_compile_timeout_s: a request asking for more gets 422.
        default_memory_limit_mb: used when ``memory_limit_MB`` is omitted, null or <= 0 (SandboxFusion's
            "no limit"; this server always has one).
        max_memory_limit_mb: a request asking for more gets 422.
        max_body_bytes: a larger request body gets 413.
        body_timeout_s: a body not received in full within this time gets 408 (a client that sends
            headers and then stalls would otherwise hold a queue place forever).
        max_code_bytes, max_stdin_bytes: UTF-8 size of ``code`` / ``stdin``; more gets 422.
        max_file_bytes: decoded size of each ``files`` entry; more gets 422.
        max_files: entries in ``files`` (and in ``fetch_files``); more gets 422.
        max_queued: requests that may wait for a free sandbox slot; past ``max_parallel + max_queued``
            requests at once, a request gets 429 with ``Retry-After``.
        max_queued_bytes: request bodies admitted at once (running or waiting), in bytes: a request's
            ``Content-Length`` (``max_body_bytes`` when it sends none) is reserved before its body is read;
            past this budget, 429. A request holds about twice its body in memory while it waits.
        retry_after_s: the ``Retry-After`` of that 429 (rounded up to whole seconds).
        header_timeout_s: a connection that has not sent a request's complete headers within this time is
            closed (a client that opens connections and stalls would otherwise hold them forever).
        min_timeout_s: ``run_timeout`` / ``compile_timeout`` below this get 422 (too short to start a
            program: a client's mistake, not a sandbox failure).
    """

    default_run_timeout_s: float = 10.0
    default_compile_timeout_s: float = 10.0
    max_run_timeout_s: float = 60.0
    max_compile_timeout_s: float = 60.0
    default_memory_limit_mb: int = 1024
    max_memory_limit_mb: int = 4096
    max_body_bytes: int = 64 * _MiB
    body_timeout_s: float = 60.0
    max_code_bytes: int = 4 * _MiB
    max_stdin_bytes: int = 16 * _MiB
    max_file_bytes: int = 16 * _MiB
    max_files: int = 64
    max_queued: int = 1024
    max_queued_bytes: int = 256 * _MiB
    retry_after_s: float = 1.0
    header_timeout_s: float = 10.0
    min_timeout_s: float = 0.05

    def __post_init__(self) -> None:
        check_fields(self, _RUN_CODE_SPECS, "run_code.")
        if self.max_body_bytes > self.max_queued_bytes:
            raise ConfigError("run_code.max_body_bytes must be <= run_code.max_queued_bytes")
        for name in ("default_run_timeout_s", "default_compile_timeout_s"):
            if getattr(self, name) < self.min_timeout_s:
                raise ConfigError(f"run_code.{name} must be >= run_code.min_timeout_s")
        for default, maximum in (
            ("default_run_timeout_s", "max_run_timeout_s"),
            ("default_compile_timeout_s", "max_compile_timeout_s"),
            ("default_memory_limit_mb", "max_memory_limit_mb"),
        ):
            if getattr(self, default) > getattr(self, maximum):
                raise ConfigError(f"run_code.{default} must be <= run_code.{maximum}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> RunCodeLimits:
        """Build from a mapping; unknown keys raise :class:`ConfigError` listing the allowed ones."""
        return cls(**known_keys(cls, data, "run_code"))

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class ServerConfig:
    """How the reward service listens, authenticates and sheds load. See ``docs/server.md``.

    Attributes:
        host, port: where to listen. A host other than a loopback address requires ``token``.
        token: the bearer token every request must carry (``Authorization: Bearer <token>``); None = no auth.
        workers: uvicorn worker processes; each has its own RewardManager and its own ``max_in_flight``.
        max_body_bytes: larger request bodies get 413.
        max_batch: samples per request (``/v1/score`` samples, ``/get_reward`` queries); more gets 413.
        max_in_flight: samples being scored at once (per worker); a request that would exceed it gets 429.
        request_timeout_s: the per-request deadline; a request may ask for less with ``timeout_s``.
        retry_after_s: the ``Retry-After`` sent with 429 and draining 503 responses.
        graceful_timeout_s: on SIGTERM, how long in-flight requests may take to finish.
        openrlhf_task: the task (verl ``data_source``) of ``/get_reward`` rows that name none.
        openrlhf_on_error: the ``rewards`` / ``scores`` value of a failed ``/get_reward`` row.
        sandbox: serve SandboxFusion's ``/run_code`` (and ``/v1/ping``) from the local sandbox.
        sandbox_max_parallel: programs the sandbox runs at once (None = the number of CPUs).
        public_healthz: answer ``GET /healthz`` without the token (for load-balancer probes).
        isolate_custom_function: run a synchronous ``custom_reward_function`` in worker processes, so a
            segfault in it fails one sample instead of the server (see :mod:`._scorers`).
        run_code: the limits of ``/run_code`` (a :class:`RunCodeLimits`, or a mapping of its fields).
    """

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    workers: int = 1
    max_body_bytes: int = 32 * 1024 * 1024
    max_batch: int = 4096
    max_in_flight: int = 8192
    request_timeout_s: float = 600.0
    retry_after_s: float = 1.0
    graceful_timeout_s: float = 60.0
    openrlhf_task: str = "lighteval/MATH"
    openrlhf_on_error: float = 0.0
    sandbox: bool = True
    sandbox_max_parallel: int | None = None
    public_healthz: bool = False
    isolate_custom_function: bool = True
    run_code: RunCodeLimits = dataclasses.field(default_factory=RunCodeLimits)

    def __post_init__(self) -> None:
        if isinstance(self.run_code, Mapping):
            object.__setattr__(self, "run_code", RunCodeLimits.from_dict(self.run_code))
        if not isinstance(self.run_code, RunCodeLimits):
            raise ConfigError(f"server.run_code must be a mapping, got {type(self.run_code).__name__}")
        check_fields(self, _SERVER_SPECS, "server.")
        if self.max_batch > self.max_in_flight:
            raise ConfigError(
                f"server.max_batch ({self.max_batch}) must be <= server.max_in_flight ({self.max_in_flight}), "
                "or a full batch could never be admitted"
            )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ServerConfig:
        """Build from a mapping; unknown keys raise :class:`ConfigError` listing the allowed ones."""
        return cls(**known_keys(cls, data, "server"))

    def replace(self, **changes: Any) -> ServerConfig:
        """A copy with ``changes`` applied (None values are ignored, so CLI defaults do not override)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def public_dict(self) -> dict[str, Any]:
        """The settings without the token (for logs and ``/v1/scorers``)."""
        out = self.as_dict()
        out["token"] = "***" if self.token else None
        return out


# each field's rule (rewardloop._validate words the errors); relations between fields stay in __post_init__
_RUN_CODE_SPECS: dict[str, Spec] = {
    **dict.fromkeys(
        ("default_run_timeout_s", "default_compile_timeout_s", "max_run_timeout_s", "max_compile_timeout_s"),
        Number(positive=True),
    ),
    **dict.fromkeys(
        ("retry_after_s", "body_timeout_s", "header_timeout_s", "min_timeout_s"), Number(positive=True)
    ),
    **dict.fromkeys(
        (
            "max_queued_bytes",
            "default_memory_limit_mb",
            "max_memory_limit_mb",
            "max_body_bytes",
            "max_code_bytes",
        ),
        Int(minimum=1),
    ),
    **dict.fromkeys(("max_stdin_bytes", "max_file_bytes", "max_files", "max_queued"), Int(minimum=0)),
}

_SERVER_SPECS: dict[str, Spec] = {
    "host": Str(),
    "port": Int(minimum=0),
    "token": Str(optional=True),
    **dict.fromkeys(("workers", "max_body_bytes", "max_batch", "max_in_flight"), Int(minimum=1)),
    "sandbox_max_parallel": Int(minimum=1, optional=True),
    **dict.fromkeys(("request_timeout_s", "retry_after_s", "graceful_timeout_s"), Number(positive=True)),
    "openrlhf_task": Str(),
    "openrlhf_on_error": Number(),  # finite: OpenRLHF builds tensors from it
    **dict.fromkeys(("sandbox", "public_healthz", "isolate_custom_function"), Bool()),
}


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def load_service_config(
    source: str | Path | Mapping[str, Any] | None = None,
) -> tuple[ServerConfig, RewardConfig]:
    """``(server settings, reward config)`` from a YAML path or a mapping (None: both defaults).

    With a ``server`` key, the only other key allowed is ``reward``; without one, the whole mapping is the
    reward config (a ``reward`` section, or a verl trainer config holding one).
    """
    if source is None:
        return ServerConfig(), RewardConfig()
    data: Any = source
    if isinstance(source, str | Path):
        data = _read_yaml(Path(source))
    if not isinstance(data, Mapping):
        raise ConfigError(f"a service config must be a mapping, got {type(data).__name__}")
    if "server" not in data:
        return ServerConfig(), load_reward_config(data)
    unknown = sorted(str(k) for k in data if k not in ("server", "reward"))
    if unknown:
        raise ConfigError(
            f"unknown top-level key(s) {', '.join(repr(k) for k in unknown)} in the service config; "
            "allowed: reward, server"
        )
    server = data.get("server")
    server = {} if server is None else server
    if not isinstance(server, Mapping):
        raise ConfigError(f"server must be a mapping, got {type(server).__name__}")
    reward = data.get("reward")
    reward = {} if reward is None else reward
    if not isinstance(reward, Mapping):
        raise ConfigError(f"reward must be a mapping, got {type(reward).__name__}")
    return ServerConfig.from_dict(server), load_reward_config(reward)


def load_run_code_limits(source: str | Path | Mapping[str, Any] | None = None) -> RunCodeLimits:
    """The ``/run_code`` limits of ``rewardloop sandbox serve --config FILE``: a YAML path or a mapping
    holding :class:`RunCodeLimits` keys, or a service config whose ``server.run_code`` holds them (so one
    file can configure both servers). None: the defaults."""
    if source is None:
        return RunCodeLimits()
    data: Any = _read_yaml(Path(source)) if isinstance(source, str | Path) else source
    if not isinstance(data, Mapping):
        raise ConfigError(f"a run_code config must be a mapping, got {type(data).__name__}")
    if "server" in data:
        return load_service_config(data)[0].run_code
    return RunCodeLimits.from_dict(data)


def _read_yaml(path: Path) -> Any:
    import yaml

    if not path.is_file():
        raise ConfigError(f"service config file not found: {path}")
    try:
        with path.open(encoding="utf-8") as fh:
            return yaml.safe_load(fh) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from None

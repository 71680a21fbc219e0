"""``RewardModelManager``: start N reward-model servers and a router, hand out the router address.

Backends:

* ``embedded`` — :mod:`rewardloop.models._server` (transformers on CPU or GPU, dynamic batching), one
  subprocess per server;
* ``vllm`` — ``python -m vllm.entrypoints.openai.api_server`` (pooling runner, ``classify`` conversion
  for a DisRM; the plain generate runner for a judge);
* ``sglang`` — ``python -m sglang.launch_server`` (``--is-embedding`` for a DisRM);
* ``external`` — servers someone else runs (``urls=``); only the router is started.

Each server's command is built by :func:`launch_command` (tested without the engines installed), gets
its own port and ``CUDA_VISIBLE_DEVICES`` slice, and logs to a file. Start-up waits for every server's
``GET /health`` with a deadline (``startup_timeout_s``) instead of a fixed sleep, and fails fast, with the
log tail, when a server process exits. The router (:class:`~rewardloop.models.Router`) runs in its own
process by default (``router_mode="process"``: ``rewardloop router``, so it never competes for the GIL with
the trainer's driver) or in a thread of this process (``router_mode="thread"``: its counters are then
readable in-process as ``manager.router``).

What verl's reward loop needs is exposed as attributes: ``router_address`` (``host:port``, verl's
``reward_router_address``) and ``tokenizer`` (the reward model's tokenizer, verl's
``reward_model_tokenizer``). ``close()`` stops the router and terminates the servers (SIGTERM, then
SIGKILL after ``stop_timeout_s``); the manager is also a context manager.

Limits: no colocation with the policy's GPUs and no ``wake_up``/``sleep`` memory sharing (verl's colocated
mode); servers are not restarted when they die (the router routes around them).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .._validate import Choice, Int, Number, Spec, Str, check_fields
from ..errors import ConfigError, InfraError
from ._router import Router, RouterConfig, create_app
from ._serving import ServerThread, free_port

__all__ = [
    "BACKENDS",
    "RewardModelManager",
    "RewardModelServerConfig",
    "launch_command",
    "router_command",
    "wait_healthy",
]

log = logging.getLogger(__name__)

BACKENDS = ("embedded", "vllm", "sglang", "external")
ROUTER_MODES = ("process", "thread")
KINDS = ("classify", "generate")


# each field's rule (rewardloop._validate words the errors); relations between fields stay in __post_init__
_SPECS: dict[str, Spec] = {
    "backend": Choice(BACKENDS),
    "kind": Choice(KINDS),
    "router_mode": Choice(ROUTER_MODES),
    "num_servers": Int(minimum=1),
    "gpus_per_server": Int(minimum=0),
    "startup_timeout_s": Number(positive=True),
    "stop_timeout_s": Number(positive=True),
    "model_path": Str(empty_ok=True),
    "host": Str(),
}


@dataclass(frozen=True)
class RewardModelServerConfig:
    """How to serve one reward model. ``kind``: ``classify`` (DisRM) or ``generate`` (judge)."""

    model_path: str = ""
    backend: str = "embedded"
    kind: str = "classify"
    num_servers: int = 1
    host: str = "127.0.0.1"
    ports: tuple[int, ...] = ()
    served_model_name: str | None = None
    tokenizer_path: str | None = None
    gpus_per_server: int = 0
    gpu_ids: tuple[int, ...] = ()
    device: str = "auto"
    extra_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    urls: tuple[str, ...] = ()
    startup_timeout_s: float = 600.0
    stop_timeout_s: float = 10.0
    python: str = sys.executable
    log_dir: str | None = None
    router: RouterConfig = field(default_factory=RouterConfig)
    router_mode: str = "process"

    def __post_init__(self) -> None:
        check_fields(self, _SPECS, "RewardModelServerConfig.")
        if self.backend == "external":
            if not self.urls:
                raise ConfigError("backend='external' needs urls=(...) of running servers")
        elif not self.model_path:
            raise ConfigError(f"backend={self.backend!r} needs model_path")
        if self.ports and len(self.ports) != self.num_servers:
            raise ConfigError(f"got {len(self.ports)} ports for {self.num_servers} servers")
        if self.gpu_ids and self.gpus_per_server * self.num_servers > len(self.gpu_ids):
            raise ConfigError(
                f"{self.num_servers} servers x {self.gpus_per_server} GPUs need "
                f"{self.gpus_per_server * self.num_servers} gpu_ids, got {list(self.gpu_ids)}"
            )

    @property
    def model_name(self) -> str:
        return self.served_model_name or self.model_path


def launch_command(config: RewardModelServerConfig, port: int) -> list[str]:
    """The command line that starts one server of ``config`` on ``port``."""
    c = config
    name = ["--served-model-name", c.served_model_name] if c.served_model_name else []
    tp = max(1, c.gpus_per_server)
    if c.backend == "embedded":
        device = c.device if c.gpus_per_server or c.device != "auto" else "cpu"
        cmd = [c.python, "-m", "rewardloop.models._server", "--model", c.model_path, "--kind", c.kind]
        cmd += ["--host", c.host, "--port", str(port), "--device", device, *name]
    elif c.backend == "vllm":
        cmd = [c.python, "-m", "vllm.entrypoints.openai.api_server", "--model", c.model_path]
        cmd += ["--host", c.host, "--port", str(port), "--tensor-parallel-size", str(tp), *name]
        if c.kind == "classify":
            cmd += ["--runner", "pooling", "--convert", "classify"]
    elif c.backend == "sglang":
        cmd = [c.python, "-m", "sglang.launch_server", "--model-path", c.model_path]
        cmd += ["--host", c.host, "--port", str(port), "--tp-size", str(tp), *name]
        if c.kind == "classify":
            cmd += ["--is-embedding"]
    else:
        raise ConfigError(f"backend {c.backend!r} launches no servers")
    return [*cmd, *c.extra_args]


def router_command(config: RewardModelServerConfig, workers: list[str], port: int) -> list[str]:
    """The ``rewardloop router`` command line for ``workers`` on ``port``."""
    r = config.router
    cmd = [config.python, "-m", "rewardloop.cli.main", "router", "--host", config.host, "--port", str(port)]
    for url in workers:
        cmd += ["--worker", url]
    cmd += ["--timeout", str(r.timeout_s), "--connect-timeout", str(r.connect_timeout_s)]
    cmd += ["--attempts", str(r.attempts), "--health-interval", str(r.health_interval_s)]
    cmd += ["--health-timeout", str(r.health_timeout_s), "--health-path", r.health_path]
    cmd += ["--unhealthy-after", str(r.unhealthy_after), "--healthy-after", str(r.healthy_after)]
    return cmd


def _server_env(config: RewardModelServerConfig, index: int) -> dict[str, str]:
    env = {**os.environ, **config.env}
    if config.gpus_per_server:
        ids = config.gpu_ids or tuple(range(config.gpus_per_server * config.num_servers))
        mine = ids[index * config.gpus_per_server : (index + 1) * config.gpus_per_server]
        env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, mine))
    return env


def wait_healthy(
    url: str,
    deadline: float,
    process: subprocess.Popen[bytes] | None = None,
    log_path: str | None = None,
    path: str = "/health",
) -> None:
    """Poll ``GET url+path`` until it answers 200; raise ``InfraError`` at ``deadline`` (a
    ``time.monotonic()`` value) or as soon as ``process`` exits."""
    import httpx

    pause = 0.1
    with httpx.Client(timeout=2.0) as client:
        while True:
            if process is not None and process.poll() is not None:
                raise InfraError(
                    f"the server for {url} exited with code {process.returncode} during start-up"
                    + _tail(log_path)
                )
            with contextlib.suppress(httpx.HTTPError):
                if client.get(url + path).status_code == 200:
                    return
            if time.monotonic() >= deadline:
                raise InfraError(
                    f"the server for {url} was not healthy before the start-up deadline" + _tail(log_path)
                )
            time.sleep(pause)
            pause = min(pause * 1.5, 2.0)


def _tail(log_path: str | None, lines: int = 20) -> str:
    if not log_path:
        return ""
    with contextlib.suppress(OSError):
        text = Path(log_path).read_text(errors="replace").splitlines()[-lines:]
        return f"; last lines of {log_path}:\n" + "\n".join(text)
    return ""


class RewardModelManager:
    """Starts the servers and the router of one reward model. ``RewardModelManager(config)`` or
    ``RewardModelManager(model_path=..., backend=..., num_servers=...)``; starts at construction."""

    def __init__(self, config: RewardModelServerConfig | None = None, **overrides: Any) -> None:
        if config is None:
            config = RewardModelServerConfig(**overrides)
        elif overrides:
            from dataclasses import replace

            config = replace(config, **overrides)
        self.config = config
        self.processes: list[subprocess.Popen[bytes]] = []
        self.server_urls: list[str] = []
        self.log_paths: list[str] = []
        self._router_thread: ServerThread | None = None
        self._router: Router | None = None
        self._router_proc: subprocess.Popen[bytes] | None = None
        self._router_address: str | None = None
        self._tokenizer: Any = None
        self._log_dir: tempfile.TemporaryDirectory[str] | None = None
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # -- start / stop --------------------------------------------------------------------------

    def _start(self) -> None:
        c = self.config
        if c.backend == "external":
            self.server_urls = [u if "://" in u else f"http://{u}" for u in c.urls]
        else:
            self._launch_servers()
        if c.router_mode == "thread":
            self._router = Router(self.server_urls, c.router)
            self._router_thread = ServerThread(create_app(self._router), host=c.host).start()
            self._router_address = self._router_thread.address
        else:
            self._start_router_process()
        log.info("reward-model router on %s over %s", self._router_address, self.server_urls)

    def _start_router_process(self) -> None:
        c = self.config
        port = free_port(c.host)
        log_path = os.path.join(self._logs(), "router.log")
        with open(log_path, "ab") as fh:
            cmd = router_command(c, self.server_urls, port)
            self._router_proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
        address = f"{c.host}:{port}"
        # /router/status answers 200 even before the first health round marks servers healthy
        wait_healthy(
            f"http://{address}", time.monotonic() + 60, self._router_proc, log_path, "/router/status"
        )
        self._router_address = address

    def _logs(self) -> str:
        if self.config.log_dir:
            Path(self.config.log_dir).mkdir(parents=True, exist_ok=True)
            return self.config.log_dir
        if self._log_dir is None:
            self._log_dir = tempfile.TemporaryDirectory(prefix="rewardloop-rm-")
        return self._log_dir.name

    def _launch_servers(self) -> None:
        c = self.config
        log_dir = self._logs()
        ports = c.ports or tuple(free_port(c.host) for _ in range(c.num_servers))
        for i, port in enumerate(ports):
            cmd = launch_command(c, port)
            log_path = os.path.join(log_dir, f"server-{i}.log")
            log.info("starting reward-model server %d: %s", i, shlex.join(cmd))
            with open(log_path, "ab") as fh:
                proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=_server_env(c, i))
            self.processes.append(proc)
            self.server_urls.append(f"http://{c.host}:{port}")
            self.log_paths.append(log_path)
        deadline = time.monotonic() + c.startup_timeout_s
        for proc, url, log_path in zip(self.processes, self.server_urls, self.log_paths, strict=True):
            wait_healthy(url, deadline, proc, log_path)

    def close(self) -> None:
        """Stop the router and the servers this manager started. Safe to call twice."""
        self._router_address = None
        if self._router_thread is not None:
            self._router_thread.stop()
            self._router_thread = None
        procs = [*self.processes, *([self._router_proc] if self._router_proc else [])]
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + self.config.stop_timeout_s
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._log_dir is not None:
            self._log_dir.cleanup()
            self._log_dir = None

    def __enter__(self) -> RewardModelManager:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort for forgotten managers
        with contextlib.suppress(Exception):
            if any(p.poll() is None for p in self.processes):
                self.close()

    # -- what callers use ----------------------------------------------------------------------

    @property
    def router_address(self) -> str:
        """``host:port`` of the router: verl's ``reward_router_address``."""
        if self._router_address is None:
            raise RuntimeError("this RewardModelManager is closed")
        return self._router_address

    @property
    def router_url(self) -> str:
        return f"http://{self.router_address}"

    @property
    def router(self) -> Router:
        """The in-process router (``router_mode="thread"`` only); see :meth:`router_status` for any mode."""
        if self._router is None:
            raise RuntimeError("no in-process router: it is closed, or runs in its own process (router_mode)")
        return self._router

    def router_status(self) -> dict[str, Any]:
        """The router's ``GET /router/status``: per-server health, in-flight, requests and errors."""
        import httpx

        return cast("dict[str, Any]", httpx.get(self.router_url + "/router/status", timeout=10).json())

    @property
    def model_name(self) -> str:
        """The model name to put in requests."""
        return self.config.model_name

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes]

    @property
    def tokenizer(self) -> Any:
        """The reward model's tokenizer (verl's ``reward_model_tokenizer``), loaded on first use."""
        if self._tokenizer is None:
            from ..scorers.reward_model import load_tokenizer

            source = self.config.tokenizer_path or self.config.model_path
            if not source:
                raise ConfigError("set tokenizer_path to get a tokenizer from an external reward model")
            self._tokenizer = load_tokenizer(source)
        return self._tokenizer

    def scorer(self, **options: Any) -> Any:
        """A scorer bound to this router: a DisRM scorer for ``kind="classify"``, a judge for ``generate``."""
        if self.config.kind == "classify":
            from ..scorers.reward_model import RewardModelScorer

            protocol = "sglang" if self.config.backend == "sglang" else "vllm"
            options.setdefault("protocol", protocol)
            return RewardModelScorer(self.router_address, self.model_name, self.tokenizer, **options)
        from ..scorers.judge import JudgeScorer

        return JudgeScorer(self.router_address, self.model_name, **options)

    def __repr__(self) -> str:
        where = self._router_address or "closed"
        return f"<RewardModelManager {self.config.backend} x{len(self.server_urls)} router={where}>"

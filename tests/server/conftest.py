"""Real ``rewardloop serve`` subprocesses on 127.0.0.1 (a free port each), shared per module where the
tests do not stop them, plus the custom reward functions they load (written to a tmp dir)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
yaml = pytest.importorskip("yaml")

SERVE = [sys.executable, "-m", "rewardloop.cli.main", "serve"]

# sleep:<s> sleeps; segv dereferences NULL; raise raises; exit calls os._exit; else: 1.0 when the
# response ends with the ground truth
CUSTOM_FUNCTION = textwrap.dedent(
    """
    import ctypes
    import os
    import time


    def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        if solution_str.startswith("sleep:"):
            time.sleep(float(solution_str.split(":")[1]))
        if solution_str == "segv":
            ctypes.string_at(0)
        if solution_str == "raise":
            raise RuntimeError("boom from the custom function")
        if solution_str == "exit":
            os._exit(3)
        return {"score": 1.0 if solution_str.endswith(str(ground_truth)) else 0.0, "echo_len": len(solution_str)}
    """
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProc:
    """A ``rewardloop serve`` process; ``url`` is its base URL."""

    def __init__(self, proc: subprocess.Popen, url: str, token: str | None, log: Path) -> None:
        self.proc, self.url, self.token, self.log = proc, url, token, log

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def client(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=self.headers, timeout=60, **kwargs)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def launch_server(
    tmp: Path,
    config: dict[str, Any],
    *,
    token: str | None = None,
    token_on_command_line: bool = False,
    extra_args: tuple[str, ...] = (),
) -> ServerProc:
    """Write ``config`` as YAML and start the server on a free port (not waiting for it). The token goes
    in ``REWARDLOOP_TOKEN``, or with ``token_on_command_line`` in ``--token``."""
    path = tmp / "service.yaml"
    path.write_text(yaml.safe_dump(config))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REWARDLOOP_TOKEN"}
    if token and token_on_command_line:
        extra_args = (*extra_args, "--token", token)
    elif token:
        env["REWARDLOOP_TOKEN"] = token
    log = tmp / f"server-{port}.log"
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            [*SERVE, "--config", str(path), "--port", str(port), *extra_args],
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=env,
        )
    return ServerProc(proc, f"http://127.0.0.1:{port}", token, log)


def wait_ready(server: ServerProc, timeout: float = 120) -> ServerProc:
    """Poll ``/healthz`` until it answers 200; raise with the server's log if it exits or never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not server.alive():
            raise RuntimeError(f"server exited with {server.proc.returncode}:\n{server.output()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(server.url + "/healthz", headers=server.headers, timeout=2).status_code == 200:
                return server
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"server did not start:\n{server.output()}")


def start_server(tmp: Path, config: dict[str, Any], **options: Any) -> ServerProc:
    return wait_ready(launch_server(tmp, config, **options))


@pytest.fixture(scope="session")
def custom_function(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("fn") / "custom_reward.py"
    path.write_text(CUSTOM_FUNCTION)
    return path


PLAIN = {
    "server": {"max_batch": 16, "max_in_flight": 64, "max_body_bytes": 64 * 1024, "sandbox_max_parallel": 2},
    "reward": {"runner": {"workers": 1}},
}


def custom_config(function: Path) -> dict[str, Any]:
    return {
        "server": {"max_batch": 4, "max_in_flight": 4, "retry_after_s": 2, "sandbox": False},
        "reward": {
            "custom_reward_function": {"path": str(function)},
            "runner": {"workers": 2, "timeout_s": 20},
        },
    }


@pytest.fixture(scope="module")
def servers(tmp_path_factory, custom_function) -> Iterator[dict[str, ServerProc]]:
    """Both servers of the module, started at the same time (start-up is mostly imports).

    ``plain``: no token, the routing table, the sandbox, small limits, two uvicorn worker processes (tests
    that read per-worker state, like metrics, keep to one keep-alive connection, which stays on one
    worker). ``custom``: a token given with ``--token``, the deliberately slow / crashing custom function,
    at most 4 samples in flight, one worker; the module's last test shuts it down with SIGTERM.
    """
    launched = {
        "plain": launch_server(tmp_path_factory.mktemp("plain"), PLAIN, extra_args=("--workers", "2")),
        "custom": launch_server(
            tmp_path_factory.mktemp("custom"),
            custom_config(custom_function),
            token="s3cret-token",
            token_on_command_line=True,
        ),
    }
    try:
        for server in launched.values():
            wait_ready(server)
        yield launched
    finally:
        for server in launched.values():
            server.stop()


@pytest.fixture(scope="module")
def plain_server(servers) -> ServerProc:
    return servers["plain"]


@pytest.fixture(scope="module")
def custom_server(servers) -> ServerProc:
    return servers["custom"]

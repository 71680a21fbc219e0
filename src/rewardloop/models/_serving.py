"""Small helpers to run an ASGI app with uvicorn: pick a free loopback port, serve in a background thread.

Used by the manager (the router runs in the caller's process) and by tests. The thread owns its own
event loop; :meth:`ServerThread.stop` asks uvicorn to shut down and joins the thread.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from ..errors import InfraError, MissingExtraError

__all__ = ["KEEP_ALIVE_S", "ServerThread", "free_port"]

#: how long servers keep idle connections; longer than httpx's 5 s pool expiry, so a client never reuses
#: a connection at the moment the server closes it (uvicorn's own default is also 5 s: a race)
KEEP_ALIVE_S = 75


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (the OS may hand it out again; callers bind soon)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class ServerThread:
    """Serve ``app`` on ``host:port`` from a daemon thread; ``start()`` returns once it accepts connections."""

    def __init__(
        self, app: Any, host: str = "127.0.0.1", port: int | None = None, log_level: str = "warning"
    ) -> None:
        try:
            import uvicorn
        except ImportError as exc:
            raise MissingExtraError("uvicorn", "server") from exc
        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(
            app,
            host=host,
            port=self.port,
            log_level=log_level,
            lifespan="on",
            timeout_keep_alive=KEEP_ALIVE_S,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name=f"uvicorn-{self.port}", daemon=True)

    @property
    def address(self) -> str:
        """``host:port``, the form verl hands to custom reward functions."""
        return f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    def start(self, timeout_s: float = 30.0) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive():
                raise InfraError(f"the server on {self.address} exited during start-up (port taken?)")
            if time.monotonic() > deadline:
                self.stop()
                raise InfraError(f"the server on {self.address} did not start within {timeout_s:g} s")
            time.sleep(0.01)
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

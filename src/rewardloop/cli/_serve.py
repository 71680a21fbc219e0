"""``rewardloop serve``: run the reward service (``docs/server.md``).

``rewardloop serve --config reward.yaml [--host 127.0.0.1] [--port N] [--workers K] [--token T]``. The
token may also come from the ``REWARDLOOP_TOKEN`` environment variable (better: it stays out of ``ps``).
A host that is not a loopback address is refused unless a token is set.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="serve rewards over HTTP: native /v1/score, OpenRLHF /get_reward, SandboxFusion /run_code "
        "(needs rewardloop[server])",
    )
    p.add_argument(
        "--config",
        metavar="FILE.yaml",
        default=None,
        help="YAML with a 'server:' and a 'reward:' section (or a reward section alone); default: defaults",
    )
    p.add_argument("--host", default=None, help="address to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: 8000)")
    p.add_argument("--workers", type=int, default=None, help="uvicorn worker processes (default: 1)")
    p.add_argument(
        "--token",
        default=None,
        help="bearer token required on every request (default: $REWARDLOOP_TOKEN; required off loopback)",
    )


def run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    from ..server._config import ENV_TOKEN, is_loopback, load_service_config

    server, reward = load_service_config(args.config)
    token = args.token or os.environ.get(ENV_TOKEN) or None
    server = server.replace(host=args.host, port=args.port, workers=args.workers, token=token)
    if not is_loopback(server.host) and not server.token:
        raise ConfigError(
            f"refusing to bind {server.host!r} without a token: anyone who can reach the port could use the "
            f"service; pass --token, set {ENV_TOKEN}, or bind 127.0.0.1"
        )
    try:
        from ..server import serve
    except ImportError as exc:
        from ..errors import MissingExtraError

        raise MissingExtraError(exc.name or "fastapi", "server") from exc
    auth = "bearer token required" if server.token else "no token (loopback only)"
    print(
        f"rewardloop: serving on http://{server.host}:{server.port} ({auth}; {server.workers} worker(s)); "
        "Ctrl-C or SIGTERM drains and stops",
        file=sys.stderr,
    )
    serve(server, reward)
    return 0

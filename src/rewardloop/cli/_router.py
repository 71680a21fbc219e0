"""``rewardloop router``: serve a health-checked router in front of reward-model servers."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "router",
        help="route requests over reward-model servers (least in flight, health checks; needs rewardloop[server])",
    )
    p.add_argument(
        "--worker",
        action="append",
        required=True,
        metavar="URL",
        help="a server URL or host:port (repeat for each server)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8100, help="port (default: 8100)")
    p.add_argument(
        "--timeout", type=float, default=None, metavar="S", help="per-request timeout (default: 120)"
    )
    p.add_argument(
        "--health-interval",
        type=float,
        default=None,
        metavar="S",
        help="seconds between health checks (default: 2)",
    )
    p.add_argument("--attempts", type=int, default=None, help="servers tried per request (default: 3)")
    p.add_argument(
        "--connect-timeout", type=float, default=None, metavar="S", help="connect timeout (default: 3)"
    )
    p.add_argument(
        "--health-timeout", type=float, default=None, metavar="S", help="health-check timeout (default: 2)"
    )
    p.add_argument("--health-path", default=None, help="health-check path on each server (default: /health)")
    p.add_argument(
        "--unhealthy-after",
        type=int,
        default=None,
        metavar="N",
        help="failed checks that eject a server (default: 2)",
    )
    p.add_argument(
        "--healthy-after",
        type=int,
        default=None,
        metavar="N",
        help="good checks that re-admit it (default: 1)",
    )


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ..errors import ConfigError, MissingExtraError

    try:
        import uvicorn

        from ..models import Router, RouterConfig, create_app
    except ImportError as exc:
        raise MissingExtraError(exc.name or "uvicorn", "server") from exc
    overrides = {
        "timeout_s": args.timeout,
        "health_interval_s": args.health_interval,
        "attempts": args.attempts,
        "connect_timeout_s": args.connect_timeout,
        "health_timeout_s": args.health_timeout,
        "health_path": args.health_path,
        "unhealthy_after": args.unhealthy_after,
        "healthy_after": args.healthy_after,
    }
    try:
        config = replace(RouterConfig(), **{k: v for k, v in overrides.items() if v is not None})
        router = Router(args.worker, config)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    from ..models._serving import KEEP_ALIVE_S

    app = create_app(router)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_keep_alive=KEEP_ALIVE_S)
    return 0

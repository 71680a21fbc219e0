"""The ``rewardloop`` command line. Thin: parsing, I/O and printing only; scoring lives below."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..errors import RewardLoopError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rewardloop", description="Turn LLM rollouts into rewards.")
    parser.add_argument("--version", action="version", version=f"rewardloop {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-v info, -vv debug)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("score", help="score a JSONL/Parquet file of rollouts in verl's dataset layout")
    p.add_argument(
        "input", help="rows with data_source, reward_model.ground_truth, extra_info and a response column"
    )
    p.add_argument(
        "-o", "--output", help="where to write the scored rows (.jsonl or .parquet); default: none"
    )
    p.add_argument(
        "--response-key", default="response", help="column holding the response text (default: response)"
    )
    p.add_argument(
        "--custom-function",
        metavar="FILE.py:NAME",
        help="score with a verl-style compute_score function instead of the routing table",
    )
    p.add_argument(
        "--reward-kwargs",
        type=json.loads,
        default=None,
        metavar="JSON",
        help="JSON object of keyword arguments for the custom function (they win over call kwargs)",
    )
    p.add_argument(
        "--route",
        action="append",
        default=[],
        metavar="TASK=SCORER",
        help="route a data_source to a registered scorer (repeatable)",
    )
    p.add_argument(
        "--route-prefix",
        action="append",
        default=[],
        metavar="PREFIX=SCORER",
        help="route every data_source starting with PREFIX to a scorer (repeatable)",
    )
    p.add_argument(
        "--timeout", type=float, default=None, help="per-sample deadline in seconds (default: the scorer's)"
    )
    p.add_argument(
        "--workers", type=int, default=2, help="parallel workers (per Ray actor with --ray; default: 2)"
    )
    p.add_argument("--ray", action="store_true", help="score on a pool of Ray actors (needs rewardloop[ray])")
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="Ray cluster to join (e.g. auto or host:6379; default: RAY_ADDRESS, else a new local one)",
    )
    p.add_argument(
        "--ray-actors", type=int, default=2, metavar="N", help="Ray actors to score on (default: 2)"
    )
    p.add_argument(
        "--on-error",
        type=float,
        default=None,
        help="reward written for failed samples (default: null, i.e. excluded)",
    )
    p.add_argument("--summary-json", help="also write the per-data_source summary as JSON here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")

    p = sub.add_parser("list", help="list scorers and the data_source routing table")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("sandbox", help="the local code sandbox")
    sandbox_sub = p.add_subparsers(dest="sandbox_command", required=True, metavar="SUBCOMMAND")
    p = sandbox_sub.add_parser(
        "serve",
        help="serve the local sandbox over SandboxFusion's /run_code protocol (needs rewardloop[server])",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default: 8080)")
    p.add_argument(
        "--max-parallel",
        type=int,
        default=None,
        metavar="N",
        help="programs running at once (default: the number of CPUs)",
    )
    p.add_argument(
        "--config",
        metavar="FILE.yaml",
        default=None,
        help="the /run_code limits (docs/sandbox.md): their keys, or a service config with server.run_code",
    )
    for command, module in _COMMANDS.items():
        _command_module(command, module).add_parser(sub)
    return parser


# Commands that live in their own module ``cli/_<name>.py``. Each module defines
# ``add_parser(subparsers) -> None`` (cheap: argparse only, heavy imports stay inside ``run``)
# and ``run(args) -> int``. A module that is not present yet is skipped.
_COMMANDS: dict[str, str] = {
    "serve": "._serve",
    "router": "._router",
    "prepare": "._prepare",
    "check": "._check",
    "explain": "._explain",
    "audit": "._audit",
    "report": "._report",
}


def _command_module(command: str, module: str) -> Any:
    try:
        return importlib.import_module(module, __package__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.{module.lstrip('.')}":
            raise
        return _Absent()


class _Absent:
    def add_parser(self, sub: Any) -> None:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        if args.command == "score":
            from ._score import run_score

            return run_score(args)
        if args.command == "list":
            from ._score import run_list

            return run_list(args)
        if args.command == "sandbox" and args.sandbox_command == "serve":
            return _serve(args)
        if args.command in _COMMANDS:
            return int(_command_module(args.command, _COMMANDS[args.command]).run(args))
    except RewardLoopError as exc:
        print(f"rewardloop: error: {exc}", file=sys.stderr)
        return 2
    return 1  # pragma: no cover - argparse rejects unknown commands


def _serve(args: argparse.Namespace) -> int:
    try:
        from ..server.sandbox_app import serve
    except ImportError as exc:
        from ..errors import MissingExtraError

        raise MissingExtraError(exc.name or "fastapi", "server") from exc
    from ..server._config import load_run_code_limits

    limits = load_run_code_limits(args.config)
    serve(host=args.host, port=args.port, max_parallel=args.max_parallel, limits=limits)
    return 0


def _entry() -> Any:  # pragma: no cover
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

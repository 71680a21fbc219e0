"""The ``rewardloop`` command line. Thin: parsing, I/O and printing only; scoring lives below."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .. import __version__
from ..errors import RewardLoopError

__all__ = ["build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse with "did you mean" for a mistyped command, choice or flag."""

    def error(self, message: str) -> NoReturn:
        from .._suggest import did_you_mean

        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            message += did_you_mean(choice[1], re.findall(r"'([^']*)'", choice[2]))
        unknown = re.search(r"unrecognized arguments: (.*)", message)
        if unknown:
            flags = _all_flags(self)
            hints = [f"{a}{did_you_mean(a, flags, n=1)}" for a in unknown[1].split() if a.startswith("-")]
            hints = [h for h in hints if "did you mean" in h]
            if hints:
                message += "; " + "; ".join(hints)
        super().error(message)


def _all_flags(parser: argparse.ArgumentParser) -> list[str]:
    flags: list[str] = []
    for action in parser._actions:
        flags += [o for o in action.option_strings if o.startswith("--")]
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags += _all_flags(sub)
    return sorted(set(flags))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rewardloop", description="Turn LLM rollouts into rewards.")
    parser.add_argument("--version", action="version", version=f"rewardloop {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-v info, -vv debug)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

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
    p.add_argument(
        "--isolation",
        choices=("auto", "unshare", "bwrap", "none"),
        default="auto",
        help="the sandbox backend (default auto: unshare as root, else bwrap, else refuse to start; "
        "none only when named)",
    )
    p.add_argument(
        "--token",
        default=None,
        help="bearer token (or ?token=) required on /run_code (default: $REWARDLOOP_TOKEN; required off "
        "loopback)",
    )
    for command, module in _COMMANDS.items():
        _command_module(command, module).add_parser(sub)
    return parser


# Commands that live in their own module ``cli/_<name>.py``. Each module defines
# ``add_parser(subparsers) -> None`` (cheap: argparse only, heavy imports stay inside ``run``)
# and ``run(args) -> int``. A module that is not present yet is skipped.
_COMMANDS: dict[str, str] = {
    "score": "._score",
    "rescore": "._rescore",
    "list": "._list",
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
        if args.command == "sandbox" and args.sandbox_command == "serve":
            return _serve(args)
        if args.command in _COMMANDS:
            return int(_command_module(args.command, _COMMANDS[args.command]).run(args))
    except RewardLoopError as exc:
        from .._suggest import suggestion_for

        print(f"rewardloop: error: {exc}{suggestion_for(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (``rewardloop list --json | head``): not an error worth a traceback.
        # stdout is pointed at devnull so that the interpreter's final flush does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a killed writer
    return 1  # pragma: no cover - argparse rejects unknown commands


def _serve(args: argparse.Namespace) -> int:
    try:
        from ..server.sandbox_app import serve
    except ImportError as exc:
        from ..errors import MissingExtraError

        raise MissingExtraError(exc.name or "fastapi", "server") from exc
    from ..errors import ConfigError
    from ..server._config import ENV_TOKEN, is_loopback, load_run_code_limits

    token = args.token or os.environ.get(ENV_TOKEN) or None
    if not is_loopback(args.host) and not token:
        raise ConfigError(
            f"refusing to bind {args.host!r} without a token: anyone who can reach the port could run code; "
            f"pass --token, set {ENV_TOKEN}, or bind 127.0.0.1"
        )
    limits = load_run_code_limits(args.config)
    serve(
        host=args.host,
        port=args.port,
        max_parallel=args.max_parallel,
        limits=limits,
        isolation=args.isolation,
        token=token,
    )
    return 0


def _entry() -> Any:  # pragma: no cover
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``rewardloop list``: the registered scorers and the data_source routing table."""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

__all__ = ["add_parser", "plain_text", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("list", help="list scorers and the data_source routing table")
    p.add_argument("--json", action="store_true", help="machine-readable output")


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")  # :class:`~rewardloop.Sample` -> Sample
_LITERAL = re.compile(r"``([^`]+)``|`([^`]+)`")


def plain_text(doc: str) -> str:
    """A docstring line without reStructuredText markup (roles, double backticks, escapes)."""
    text = _ROLE.sub(lambda m: m[1].rsplit(".", 1)[-1], doc)
    text = _LITERAL.sub(lambda m: m[1] or m[2], text)
    return text.replace("\\\\", "\\").replace("\\", "")


def _scorers() -> list[dict[str, Any]]:
    from ..scorers import SCORERS

    scorers: list[dict[str, Any]] = []
    for name in SCORERS.names():
        try:
            target = SCORERS.get(name)  # the class: some scorers need options (a server address) to build
            cls = target if isinstance(target, type) else type(target)
            doc = (cls.__doc__ or "").strip().splitlines()
            scorers.append(
                {
                    "name": str(name),
                    "execution": getattr(cls, "execution", "?"),
                    "timeout_s": getattr(cls, "timeout_s", None),
                    "description": plain_text(doc[0]) if doc else "",
                }
            )
        except Exception as exc:  # a broken plug-in must not hide the others
            scorers.append(
                {"name": name, "execution": "?", "timeout_s": None, "description": f"unavailable: {exc}"}
            )
    return scorers


def run(args: argparse.Namespace) -> int:
    from ..scorers import ROUTES

    scorers = _scorers()
    routes: list[dict[str, Any]] = [
        {"data_source": r.pattern + ("*" if r.prefix else ""), "scorer": r.scorer, "options": dict(r.options)}
        for r in ROUTES.routes()
    ]
    if args.json:
        print(json.dumps({"scorers": scorers, "routes": routes}, indent=2))
        return 0
    print("Scorers:")
    width = max(len(s["name"]) for s in scorers)
    for s in scorers:
        timeout = f"{s['timeout_s']:g}s" if s["timeout_s"] else "-"
        print(f"  {s['name'].ljust(width)}  {s['execution']:<8} {timeout:>5}  {s['description']}")
    print("\nRouting table (data_source -> scorer; * = prefix):")
    width = max(len(r["data_source"]) for r in routes)
    for r in routes:
        opts = f"  {r['options']}" if r["options"] else ""
        print(f"  {r['data_source'].ljust(width)}  {r['scorer']}{opts}")
    return 0

"""``rewardloop check DATA``: run the reward-function checklist on a dataset and print a report."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

_STYLE = {"pass": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="check a dataset (and a reward function): routing, ground truths, penalties, determinism, speed",
        description="Score probe responses (the reference answer, empty, garbage, overlong, truncated) for "
        "rows of DATA and report what would make training rewards wrong. Exit 1 when a check fails.",
    )
    p.add_argument("data", help="dataset in verl's layout (.parquet, .jsonl, .json or .csv)")
    p.add_argument(
        "--custom-function",
        metavar="FILE.py:NAME",
        help="check this verl-style compute_score instead of the routing table",
    )
    p.add_argument(
        "--reward-kwargs", type=json.loads, default=None, metavar="JSON", help="keyword arguments for it"
    )
    p.add_argument("--response-key", default=None, metavar="K", help="also score the responses in column K")
    p.add_argument(
        "--reference-key", default=None, metavar="K", help="column holding a known-correct response"
    )
    p.add_argument("--max-rows", type=int, default=20, metavar="N", help="rows to score (default: 20)")
    p.add_argument(
        "--repeats", type=int, default=2, metavar="N", help="times each probe is scored (default: 2)"
    )
    p.add_argument(
        "--timeout", type=float, default=10.0, metavar="S", help="deadline per call (default: 10 s)"
    )
    p.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="S",
        help="median seconds allowed per sample (default: 5 for sandboxed code / worker-process scorers, else 1)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    from ..workbench import check_dataset

    if args.reward_kwargs is not None and not isinstance(args.reward_kwargs, dict):
        raise ConfigError("--reward-kwargs must be a JSON object")
    if args.max_rows < 1 or args.repeats < 1:
        raise ConfigError("--max-rows and --repeats must be at least 1")
    report = check_dataset(
        args.data,
        custom_function=args.custom_function,
        reward_kwargs=args.reward_kwargs,
        response_key=args.response_key,
        reference_key=args.reference_key,
        max_rows=args.max_rows,
        repeats=args.repeats,
        timeout_s=args.timeout,
        time_budget_s=args.time_budget,
    )
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, default=str))
    else:
        _print(report)
    return 0 if report.ok else 1


def _print(report: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"rewardloop check: {report.rows} rows, {report.scored_rows} scored", show_lines=True)
    table.add_column("check")
    table.add_column("result")
    table.add_column("details", overflow="fold")
    for c in report.checks:
        details = c.summary + "".join(f"\n  - {e}" for e in c.examples)
        table.add_row(c.name, f"[{_STYLE[c.status]}]{c.status.upper()}[/]", details, end_section=False)
    console = Console(file=sys.stdout)
    console.print(table)
    verdict = "[green]all checks passed[/]" if report.ok else "[bold red]some checks failed[/]"
    console.print(verdict)

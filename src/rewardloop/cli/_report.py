"""``rewardloop report``: an HTML report with plots for a file written by ``rewardloop score``."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report", help="HTML report with plots of a scored file (needs rewardloop[report]: matplotlib)"
    )
    p.add_argument("scored", metavar="SCORED_FILE", help="JSONL/Parquet written by `rewardloop score -o`")
    p.add_argument("-o", "--output", required=True, help="where to write the HTML page")
    p.add_argument(
        "--group-by",
        default="data_source",
        metavar="COLUMN",
        help="group for the accuracy plot (dotted path, e.g. extra_info.level; default: data_source)",
    )
    p.add_argument(
        "--response-key", default="response", help="column holding the response (default: response)"
    )
    p.add_argument("--title", default="rewardloop reward report", help="page title")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .._io import read_rows
    from ..tools import build_report

    rows = [r for r in read_rows(args.scored) if "_error" not in r]
    page = build_report(
        rows, title=args.title, response_key=args.response_key, group_by=args.group_by, source=args.scored
    )
    from ._score import write_text

    with contextlib.suppress(OSError):  # write_text names the path that cannot be written
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    write_text(args.output, page)
    print(f"wrote {args.output} ({len(rows)} rows, {len(page) // 1024} KiB)")
    return 0

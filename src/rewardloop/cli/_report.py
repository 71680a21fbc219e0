"""``rewardloop report``: an HTML report with plots for a file written by ``rewardloop score``."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

__all__ = ["add_parser", "run"]

DEFAULT_TITLE = "rewardloop reward report"


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report", help="HTML report with plots of a scored file (needs rewardloop[report]: matplotlib)"
    )
    p.add_argument(
        "scored",
        metavar="SCORED_FILE",
        nargs="+",
        help="JSONL/Parquet written by `rewardloop score -o`; two files: compare the runs (per-source deltas, flips)",
    )
    p.add_argument("-o", "--output", required=True, help="where to write the HTML page")
    p.add_argument(
        "--group-by",
        default="data_source",
        metavar="COLUMN",
        help="group for the accuracy plot (dotted path, e.g. extra_info.level; default: data_source)",
    )
    p.add_argument(
        "--response-key",
        default=None,
        help="column holding the response (default: the one the file was scored with, else response)",
    )
    p.add_argument("--title", default=DEFAULT_TITLE, help="page title")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .._io import read_rows
    from ..errors import ConfigError
    from ..tools import build_comparison, build_report
    from ._score import DEFAULT_RESPONSE_KEY, stored_setting, write_text

    if len(args.scored) > 2:
        raise ConfigError(f"report takes one scored file, or two to compare; got {len(args.scored)}")
    runs = [[r for r in read_rows(path) if "_error" not in r] for path in args.scored]
    rows = runs[0]
    response_key = args.response_key or stored_setting(rows, "response_key") or DEFAULT_RESPONSE_KEY
    if len(runs) == 2:
        title = args.title if args.title != DEFAULT_TITLE else "rewardloop: two runs compared"
        page = build_comparison(
            runs[0], runs[1], names=(args.scored[0], args.scored[1]), title=title, response_key=response_key
        )
    else:
        page = build_report(
            rows, title=args.title, response_key=response_key, group_by=args.group_by, source=args.scored[0]
        )

    with contextlib.suppress(OSError):  # write_text names the path that cannot be written
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    write_text(args.output, page)
    print(f"wrote {args.output} ({len(rows)} rows, {len(page) // 1024} KiB)")
    return 0

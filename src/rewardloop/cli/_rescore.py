"""``rewardloop rescore SCORED_FILE -o NEW``: score stored rollouts again and show what flipped."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    from ._score import add_scoring_options

    p = sub.add_parser(
        "rescore",
        help="score the rollouts of a scored file again (after a verifier fix, with other options) and "
        "print the flips: right->wrong, wrong->right, ok->failure",
        description="Re-score the rollouts stored in a file written by `rewardloop score`, with the routing "
        "table as it is now, one --scorer, --route options, a --custom-function or a --config, and report "
        "per row what changed. Exit 1 when too many rows fail (as score).",
    )
    p.add_argument("scored", metavar="SCORED_FILE", help="JSONL/Parquet written by `rewardloop score -o`")
    p.add_argument("-o", "--output", help="where to write the newly scored rows (.jsonl or .parquet)")
    p.add_argument(
        "--scorer",
        metavar="NAME[:K=V,...]",
        default=None,
        help="score every row with this registered scorer (e.g. gsm8k:method=flexible) instead of the routes",
    )
    p.add_argument(
        "--examples", type=int, default=5, metavar="N", help="examples per kind of flip (default: 5)"
    )
    p.add_argument("--json", action="store_true", help="print the flips report as JSON")
    p.add_argument("--report-json", metavar="PATH", help="also write the flips report as JSON here")
    add_scoring_options(p)


def run(args: argparse.Namespace) -> int:
    from .._io import read_rows
    from ..scorers import get_scorer
    from ..tools import compare_scored
    from ._score import (
        SCORING_COLUMNS,
        build_selection,
        check_rate,
        execute,
        exit_code,
        output_rows,
        parse_scorer_spec,
        prepare,
        show_progress,
        summary,
        write_output,
        write_text,
    )

    check_rate(args.max_failure_rate)
    if args.scorer and (args.custom_function or args.config):
        raise ConfigError("give one of --scorer, --custom-function or --config")
    old = read_rows(args.scored)
    if not old:
        raise ConfigError(f"{args.scored!r} holds no rows")
    if not all("status" in r and "score" in r for r in old):
        raise ConfigError(
            f"{args.scored!r} is not a scored file (rows without 'status'/'score'); score it first with "
            "`rewardloop score`"
        )
    keep = ("group_id", "response_index")
    rollouts = [{k: v for k, v in r.items() if k not in SCORING_COLUMNS or k in keep} for r in old]
    selection = build_selection(args)
    if args.scorer:
        name, options = parse_scorer_spec(args.scorer, "--scorer")
        selection.custom = get_scorer(name, **options)
    items = prepare(rollouts, args.response_key, selection, args.group_by)
    if len(items) != len(old):
        raise ConfigError(
            f"{args.scored!r}: a row holds a list of responses; rescore reads files written by score"
        )
    outcome = execute(items, selection, show_progress(args))
    new = output_rows(outcome, selection)
    report = compare_scored(old, new, response_key=args.response_key, examples=max(0, args.examples))
    failed_write = write_output(args.output, new)
    print(report.to_json() if args.json else report.to_text())
    if args.report_json:
        write_text(args.report_json, report.to_json())
    if failed_write is not None:
        print(f"rewardloop: error: {failed_write}", file=sys.stderr)
        return 2
    return exit_code(summary(outcome, args.max_failure_rate))

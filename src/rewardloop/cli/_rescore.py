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
    from .._suggest import did_you_mean
    from ..scorers import get_scorer
    from ..tools import compare_scored
    from ._score import (
        DEFAULT_RESPONSE_KEY,
        SCORING_COLUMNS,
        build_selection,
        check_rate,
        execute,
        exit_code,
        output_rows,
        parse_scorer_spec,
        prepare,
        show_progress,
        stored_setting,
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
    # the file says how it was read: the response column, the group key, the token-length column
    stored_key = stored_setting(old, "response_key")
    args.response_key = args.response_key or stored_key or DEFAULT_RESPONSE_KEY
    args.group_by = args.group_by or stored_setting(old, "group_by")
    args.length_key = args.length_key or stored_setting(old, "length_key")
    readable = [r for r in old if "_error" not in r]
    if readable and not any(args.response_key in r for r in readable):
        source = "recorded in the file" if args.response_key == stored_key else "--response-key"
        hint = did_you_mean(args.response_key, readable[0]) or f"; columns: {sorted(readable[0])}"
        raise ConfigError(
            f"{args.scored!r} has no column {args.response_key!r} ({source}) to rescore"
            + hint.replace("did you mean", "did you mean --response-key")
        )
    keep = ("group_id", "response_index")
    rollouts = [{k: v for k, v in r.items() if k not in SCORING_COLUMNS or k in keep} for r in old]
    scorer = None
    if args.scorer:
        name, options = parse_scorer_spec(args.scorer, "--scorer")
        scorer = get_scorer(name, **options)
    selection = build_selection(args, scorer)
    items = prepare(rollouts, args.response_key, selection, args.group_by)
    if len(items) != len(old):
        raise ConfigError(
            f"{args.scored!r}: a row holds a list of responses; rescore reads files written by score"
        )
    outcome = execute(items, selection, show_progress(args))
    new = output_rows(outcome, selection)
    report = compare_scored(old, new, response_key=args.response_key, examples=max(0, args.examples))
    before, now = stored_setting(old, "config_fingerprint"), selection.scored_with["config_fingerprint"]
    if before is not None:
        same = "the same config" if before == now else "another config"
        print(f"reward config: {before} before, {now} now ({same})", file=sys.stderr)
    failed_write = write_output(args.output, new)
    print(report.to_json() if args.json else report.to_text())
    data = summary(outcome, args.max_failure_rate)
    if data["errors"] and not args.json:  # exit_code points at them
        from .._summary import top_errors
        from ._score import print_errors

        print_errors(top_errors(outcome.scores), data)
    if args.report_json:
        write_text(args.report_json, report.to_json())
    if failed_write is not None:
        print(f"rewardloop: error: {failed_write}", file=sys.stderr)
        return 2
    return exit_code(data)

"""``rewardloop explain``: one sample's verdict, stage by stage."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import ConfigError

__all__ = ["add_parser", "build_scorer", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "explain",
        help="show how a scorer judged one sample: extracted answer, normalised forms, deciding stage, timings",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--response", help="the response text to judge (with --ground-truth)")
    src.add_argument("--row", metavar="JSON", help="one row in verl's layout, as a JSON object")
    src.add_argument("--file", metavar="DATA", help="a JSONL/Parquet file in verl's layout (with --index)")
    p.add_argument("--ground-truth", help="the ground truth (with --response)")
    p.add_argument("--index", type=int, default=0, help="row of --file to explain (default: 0)")
    p.add_argument(
        "--response-index",
        type=int,
        default=None,
        metavar="J",
        help="which response of a row holding a list of responses (a GRPO file; default: required then)",
    )
    p.add_argument(
        "--response-key",
        default=None,
        help="column holding the response (default: the one a scored file records, else response)",
    )
    p.add_argument(
        "--scorer",
        default=None,
        metavar="NAME[:K=V,...]",
        help="registered scorer, optionally with options (e.g. math_equiv:multiple_answers=last); "
        "default: math_equiv for --response, the data_source's routed scorer for rows",
    )
    p.add_argument("--timeout", type=float, default=None, help="deadline in seconds for the symbolic stage")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def build_scorer(spec: str) -> Any:
    """``NAME`` or ``NAME:key=value,key=value`` (values parsed as JSON when they parse) -> scorer instance."""
    from ..scorers import get_scorer
    from ._score import parse_scorer_spec

    name, options = parse_scorer_spec(spec, "--scorer")
    return get_scorer(name, **options)


def _sample(args: argparse.Namespace) -> Any:
    from ..integrations.verl import sample_from_row
    from ..types import Sample

    if args.response is not None:
        if args.ground_truth is None:
            raise ConfigError("--response needs --ground-truth")
        return Sample(response=args.response, ground_truth=args.ground_truth)
    if args.row is not None:
        try:
            row = json.loads(args.row)
        except ValueError as exc:
            raise ConfigError(f"--row is not valid JSON: {exc}") from exc
        if not isinstance(row, dict):
            raise ConfigError("--row must be a JSON object")
    else:
        from .._io import read_rows
        from ._score import stored_setting

        rows = read_rows(args.file)
        if not 0 <= args.index < len(rows):
            raise ConfigError(f"--index {args.index} is out of range: {args.file} has {len(rows)} rows")
        row = rows[args.index]
        args.response_key = args.response_key or stored_setting(rows, "response_key")
    key = args.response_key or "response"
    row = _one_response(row, key, args.response_index)
    from ..errors import InvalidSampleError

    try:
        return sample_from_row(row, key)
    except InvalidSampleError as exc:
        raise ConfigError(str(exc)) from exc


def _one_response(row: Any, key: str, index: int | None) -> Any:
    """The row with ``row[key]`` narrowed to response ``index`` when it holds a list of responses."""
    from ._score import several_responses  # the one reading of "n responses" that `score` uses

    value = row.get(key) if isinstance(row, dict) else None
    if not several_responses(value):
        if index is not None:
            raise ConfigError(f"--response-index needs a list of responses in {key!r}; this row holds one")
        return row
    if index is None:
        raise ConfigError(
            f"{key!r} holds {len(value)} responses (a GRPO row); pick one with --response-index 0..{len(value) - 1}"
        )
    if not 0 <= index < len(value):
        raise ConfigError(f"--response-index {index} is out of range: {key!r} holds {len(value)} responses")
    return {**row, key: value[index]}


def run(args: argparse.Namespace) -> int:
    from ..tools import explain

    sample = _sample(args)
    if args.scorer:
        scorer = build_scorer(args.scorer)
    elif args.response is not None:
        scorer = build_scorer("math_equiv")
    else:
        from ..scorers import resolve_scorer

        scorer = resolve_scorer(sample.task)
    result = explain(sample, scorer, timeout_s=args.timeout)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(result.to_text())
    return 0

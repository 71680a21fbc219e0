"""``rewardloop prepare DATASET INPUT -o OUT``: convert a local dataset file to verl's parquet layout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

_DATASETS = ("gsm8k", "math", "math500", "aime", "humaneval", "mbpp", "nq")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "prepare",
        help="convert a local GSM8K/MATH/MATH-500/AIME/HumanEval/MBPP/NQ file to verl's parquet layout",
        description="Convert a local JSONL/JSON/CSV/Parquet file into verl's RL dataset layout "
        "(data_source, chat prompt, ability, reward_model.{style,ground_truth}, extra_info.{split,index,...}). "
        "Nothing is downloaded.",
    )
    # validated in run() so that an unknown name gets rewardloop's error naming the allowed values
    p.add_argument("dataset", metavar="DATASET", help=f"one of: {', '.join(_DATASETS)}")
    p.add_argument("input", help="the local source file (.jsonl, .json, .csv or .parquet)")
    p.add_argument("-o", "--output", required=True, help="where to write (.parquet, or .jsonl)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--template", help="instruction template; {question} is replaced by the problem text")
    group.add_argument("--template-file", metavar="FILE", help="read the instruction template from FILE")
    p.add_argument("--split", default="train", help="written to extra_info.split (default: train)")
    p.add_argument("--data-source", default=None, help="override the data_source written on every row")
    p.add_argument("--system-prompt", default=None, help="prepend a system message to every prompt")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="convert only the first N rows")
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="drop rows that cannot be converted (default: stop with an error)",
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import ConfigError
    from ..workbench import get_spec, prepare

    spec = get_spec(args.dataset)
    template = args.template
    if args.template_file:
        path = Path(args.template_file)
        if not path.is_file():
            raise ConfigError(f"template file not found: {str(path)!r}")
        template = path.read_text(encoding="utf-8")
    n = prepare(
        args.dataset,
        args.input,
        args.output,
        split=args.split,
        template=template,
        data_source=args.data_source,
        system_prompt=args.system_prompt,
        limit=args.limit,
        skip_invalid=args.skip_invalid,
    )
    print(
        f"wrote {n} rows to {args.output} (data_source={args.data_source or spec.data_source!r})",
        file=sys.stderr,
    )
    return 0

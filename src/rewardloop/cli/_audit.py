"""``rewardloop audit``: a scorer against another scorer or against labels."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "audit",
        help="differential testing: a scorer vs another scorer or labels (agreement, confusion, FPR/FNR, "
        "top disagreements)",
    )
    p.add_argument("data", help="JSONL/Parquet rows in verl's layout, with a response column")
    p.add_argument(
        "--scorer",
        action="append",
        required=True,
        metavar="NAME[:K=V,...]",
        help="scorer A; give it twice for A and the reference B (e.g. --scorer math_equiv --scorer math_verify)",
    )
    p.add_argument(
        "--labels", metavar="COLUMN", help="reference labels column (dotted path, e.g. extra_info.ok)"
    )
    p.add_argument("-o", "--output", help="write the report as JSON here")
    p.add_argument("--html", help="write a self-contained HTML report here")
    p.add_argument("--top", type=int, default=10, help="disagreements to show (default: 10)")
    p.add_argument(
        "--response-key", default="response", help="column holding the response (default: response)"
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N rows")
    p.add_argument("--timeout", type=float, default=None, help="per-sample deadline in seconds")
    p.add_argument("--workers", type=int, default=2, help="parallel worker processes (default: 2)")
    p.add_argument("--quiet", action="store_true", help="print the summary only, not the disagreements")


def run(args: argparse.Namespace) -> int:
    from .._io import read_rows
    from ..errors import InvalidSampleError
    from ..execution import Runner
    from ..integrations.verl import sample_from_row
    from ..tools import audit
    from ..tools._report import _dotted
    from ._explain import build_scorer

    if len(args.scorer) > 2:
        raise ConfigError("audit compares two sides: give --scorer once or twice")
    if (len(args.scorer) == 2) == (args.labels is not None):
        raise ConfigError("audit needs exactly one reference: a second --scorer, or --labels COLUMN")
    scorer_a = build_scorer(args.scorer[0])
    scorer_b = build_scorer(args.scorer[1]) if len(args.scorer) == 2 else None
    rows = read_rows(args.data)[: args.limit]
    samples, labels, skipped = [], [], 0
    for row in rows:
        try:
            samples.append(sample_from_row(row, args.response_key))
        except InvalidSampleError:
            skipped += 1
            continue
        if args.labels is not None:
            labels.append(_dotted(row, args.labels))
    if not samples:
        raise ConfigError(f"no usable rows in {args.data!r} ({skipped} rows skipped as invalid)")
    options: dict[str, Any] = {"workers": args.workers, "on_error": None}
    if args.timeout is not None:
        options["timeout_s"] = args.timeout
    with Runner(**options) as runner:
        report = audit(
            samples,
            scorer_a,
            scorer_b=scorer_b,
            labels=labels if args.labels is not None else None,
            label_name=args.labels or "labels",
            runner=runner,
            top=args.top,
        )
    if args.labels is not None and report.missing_labels == len(samples):
        from .._suggest import did_you_mean

        paths = _paths(rows[:50])
        raise ConfigError(
            f"--labels {args.labels!r}: no row has a usable label there (bools, 0/1, numbers or 'true'/'false'), "
            f"so nothing was compared{did_you_mean(args.labels, paths)}; fields: {', '.join(paths)}"
        )
    if report.compared == 0:
        print(
            "rewardloop: error: audit compared 0 samples (every sample failed on one side)", file=sys.stderr
        )
        code = 1
    else:
        code = 0
    from ._score import write_text

    if args.output:
        write_text(args.output, report.to_json())
    if args.html:
        write_text(args.html, report.to_html())
    text = report.to_text()
    if args.quiet:
        text = text.split("\n\n--- ", 1)[0]
    if skipped:
        text += f"\n\n{skipped} invalid rows skipped"
    print(text)
    return code


def _paths(rows: list[Any]) -> list[str]:
    """The dotted paths (two levels deep) present in ``rows``."""
    found: set[str] = set()
    for row in rows:
        if not isinstance(row, dict):
            continue
        for key, value in row.items():
            found.add(str(key))
            if isinstance(value, dict):
                found.update(f"{key}.{sub}" for sub in value)
    return sorted(found)

"""math_equiv's verdicts with the fast LaTeX parser on and off, on the external outputs' rows: must be identical.

Each mode runs in a fresh interpreter (``--child``): it scores every row of the chosen splits of every source with
``quick()`` or ``score()`` and writes, per row id, the value, ``info["stage"]`` and ``info["rule"]`` (nothing else
of the row). "off" replaces :func:`rewardloop.scorers._latex_fast.parse` by one that declines everything, so every
LaTeX text goes to the ANTLR path, as before the fast parser existed. The parent compares the two and prints the
number of rows and the ids whose verdicts differ (no row's text: the test split is only counted). Exit status 1
when any verdict differs. Data: ``/work/extdata`` (``bench/external_outputs.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
REPO = Path(__file__).resolve().parents[1]


def child(mode: str, splits: list[str], out: str) -> int:
    import external_outputs as eo
    from rewardloop import get_scorer
    from rewardloop.scorers import _latex_fast

    if mode == "off":
        _latex_fast.parse = lambda text: None  # every LaTeX text goes to ANTLR
    scorer = get_scorer("math_equiv")
    scorer.warm_up()
    verdicts: dict[str, Any] = {}
    for split in splits:
        for source in eo.SOURCES:
            rows = eo.load(source, split)
            for r, sample in zip(rows, eo.samples(rows), strict=True):
                try:
                    score = scorer.quick(sample) or scorer.score(sample)
                    info = score.info or {}
                    verdicts[f"{split}:{r['id']}"] = [score.value, info.get("stage"), info.get("rule")]
                except (
                    Exception
                ) as exc:  # scored as a failure by the runner: the exception's type is the verdict
                    verdicts[f"{split}:{r['id']}"] = ["raises", type(exc).__name__, None]
    Path(out).write_text(json.dumps(verdicts), encoding="utf-8")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="dev,test")
    parser.add_argument("--child", nargs=2, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    splits = args.splits.split(",")
    if args.child:
        return child(args.child[0], splits, args.child[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p),
    }
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        procs = {}
        for mode in ("on", "off"):
            out = str(Path(tmp) / f"{mode}.json")
            cmd = [sys.executable, __file__, "--splits", args.splits, "--child", mode, out]
            procs[mode] = (subprocess.Popen(cmd, env=env), out)
        for mode, (proc, out) in procs.items():
            if proc.wait() != 0:
                print(f"mode {mode} failed", file=sys.stderr)
                return 2
            results[mode] = json.loads(Path(out).read_text(encoding="utf-8"))
    on, off = results["on"], results["off"]
    differ = sorted(k for k in on if on[k] != off.get(k))
    for split in splits:
        n = sum(k.startswith(split + ":") for k in on)
        d = [k for k in differ if k.startswith(split + ":")]
        print(f"{split}: {n} rows, {len(d)} verdicts differ (value, stage, rule)")
        for k in d[:50]:
            print(f"  {k}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

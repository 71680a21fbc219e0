"""verl's side of ``bench/verifier.py``: run under ``.venv-verl/bin/python`` (verl 0.9.1); stdlib + verl only.

Reads labelled pairs (``{"id", "response", "ground_truth"}`` per line), calls one of verl's scorers
on each — ``math_reward``, ``math_dapo`` or ``prime_math``, through their module ``compute_score`` as
``default_compute_score`` would — and writes ``{"id", "correct", "seconds", "error"}`` per line.
"correct" is verl's verdict: reward 1.0 (``math_dapo``: ``acc``; ``prime_math``: the first element).
A call that raises or runs past ``--timeout`` (SIGALRM, main thread) counts as "not correct" and
carries its error. verl's debug prints on stdout go to /dev/null.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from typing import Any


class _Timeout(BaseException):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


def _verdict(name: str, result: Any) -> bool:
    if name == "math_dapo":
        return bool(result["acc"])
    if name == "prime_math":
        return bool(result[0])
    return float(result) == 1.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scorer", required=True, choices=["math_reward", "math_dapo", "prime_math"])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    import importlib

    module = importlib.import_module(f"verl.utils.reward_score.{args.scorer}")
    fn = module.compute_score
    with open(args.input, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(devnull, 1)
    signal.signal(signal.SIGALRM, _alarm)
    out = []
    fn(rows[0]["response"], rows[0]["ground_truth"]) if rows else None  # pay lazy imports once
    for row in rows:
        error = None
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, args.timeout)
        try:
            ok = _verdict(args.scorer, fn(row["response"], row["ground_truth"]))
        except _Timeout:
            ok, error = False, "timeout"
        except Exception as exc:  # verl asserts on some inputs
            ok, error = False, f"{type(exc).__name__}: {exc}"[:200]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        out.append({"id": row["id"], "correct": ok, "seconds": time.perf_counter() - t0, "error": error})
    os.dup2(saved, 1)
    sys.stdout = os.fdopen(1, "w")
    with open(args.output, "w", encoding="utf-8") as fh:
        for row in out:
            fh.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

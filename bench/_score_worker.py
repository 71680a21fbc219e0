"""Score or time a corpus with one implementation of ``default_compute_score``; stdlib only.

Run under the interpreter of the implementation to measure::

    .venv-verl/bin/python bench/_score_worker.py --impl verl --mode score --input C.jsonl --output R.jsonl
    .venv/bin/python      bench/_score_worker.py --impl rewardloop --mode time --input C.jsonl --output T.json

Input rows: ``{"id", "data_source", "response", "ground_truth", "extra_info"?}``.

* ``score`` writes one line per row: ``{"id", "result", "error"}`` where ``result`` is the float or dict
  returned and ``error`` is ``"<ExceptionType>: <message>"`` when the call raised (verl asserts and raises on
  some inputs) or ``"Timeout: ..."`` when it ran past ``--timeout`` seconds. One bad sample never loses the rest.
* ``time`` groups rows by data source, calls the function once per source to pay lazy imports, then times
  every row of the source with ``time.perf_counter`` ``--repeats`` times and keeps the best run.

The library's own output on stdout (verl prints debug lines) is sent to /dev/null; results go to files.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

IMPLS = ("verl", "verl-gsm8k-flexible", "rewardloop")


class _Timeout(BaseException):
    """Raised by the alarm handler; a BaseException so a scorer's ``except Exception`` cannot swallow it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


def install_alarm() -> None:
    """Route SIGALRM to :class:`_Timeout` (main thread only)."""
    signal.signal(signal.SIGALRM, _on_alarm)


def _load(impl: str) -> Callable[..., Any]:
    if impl == "verl":
        from verl.utils.reward_score import default_compute_score
    elif impl == "verl-gsm8k-flexible":
        from verl.utils.reward_score import gsm8k

        def default_compute_score(
            data_source: str, solution: str, ground_truth: Any, extra: Any = None
        ) -> Any:
            return float(gsm8k.compute_score(solution, ground_truth, method="flexible"))
    elif impl == "rewardloop":
        from rewardloop import default_compute_score
    else:
        raise SystemExit(f"unknown --impl {impl!r}; allowed: {', '.join(IMPLS)}")
    return default_compute_score


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    try:
        return float(value)
    except Exception:
        return repr(value)


def call_guarded(fn: Callable[..., Any], row: dict[str, Any], timeout: float) -> tuple[Any, str | None]:
    """``(result, None)`` or ``(None, "<Type>: <message>")``; needs :func:`install_alarm` first."""
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return _jsonable(
            fn(row["data_source"], row["response"], row["ground_truth"], row.get("extra_info"))
        ), None
    except _Timeout:
        return None, f"Timeout: no result after {timeout:g} s"
    except (Exception, SystemExit) as exc:  # verl asserts, raises TypeError/ValueError/IndexError ...
        return None, f"{type(exc).__name__}: {str(exc)[:300]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _score(fn: Callable[..., Any], rows: list[dict[str, Any]], out: str, timeout: float) -> None:
    with open(out, "w", encoding="utf-8") as fh:
        for row in rows:
            result, error = call_guarded(fn, row, timeout)
            fh.write(json.dumps({"id": row["id"], "result": result, "error": error}) + "\n")


def _time(fn: Callable[..., Any], rows: list[dict[str, Any]], out: str, repeats: int, budget: float) -> None:
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[row["data_source"]].append(row)
    report: dict[str, Any] = {}
    for source, group in by_source.items():
        call_guarded(fn, group[0], 60.0)  # lazy imports, caches of module-level objects
        runs: list[float] = []
        errors = 0
        for _ in range(repeats):
            errors = 0
            signal.setitimer(signal.ITIMER_REAL, budget)  # one alarm per pass: no per-sample overhead
            try:
                t0 = time.perf_counter()
                for row in group:
                    try:
                        fn(row["data_source"], row["response"], row["ground_truth"], row.get("extra_info"))
                    except Exception:
                        errors += 1
                runs.append(time.perf_counter() - t0)
            except _Timeout:
                runs = []
                break
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        best = min(runs) if runs else None
        report[source] = {
            "n": len(group),
            "errors": errors,
            "runs_s": runs,
            "best_s": best,
            "samples_per_s": (len(group) / best) if best else None,
            "timed_out": not runs,
        }
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2)


def main() -> int:
    parser = argparse.ArgumentParser(description="score or time a corpus with one implementation")
    parser.add_argument("--impl", required=True, choices=IMPLS)
    parser.add_argument("--mode", required=True, choices=["score", "time"])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--timeout", type=float, default=20.0, help="per-sample limit in score mode (s)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--budget", type=float, default=600.0, help="limit for one timed pass of a source (s)"
    )
    args = parser.parse_args()

    install_alarm()
    with open(args.input, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    fn = _load(args.impl)
    # verl prints debug lines (search_r1 at random, math_reward on exceptions): keep stdout clean
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 -- lives as long as the process
    if args.mode == "score":
        _score(fn, rows, args.output, args.timeout)
    else:
        _time(fn, rows, args.output, args.repeats, args.budget)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Hard answers: how many correct-but-unusual answers each math grader accepts, and how many near misses.

Reads ``bench/hard_answers.jsonl`` (built by ``bench/hard_answers_build.py``; see ``bench/hard_answers.md``):
pairs of a correct answer written in a form rule verifiers tend to reject and a wrong answer in the same form.
Scores every row with

* ``math_equiv`` and ``math_verify`` (our Math-Verify scorer), each through a ``Runner(workers=2)`` with
  the problem's text as the sample's ``prompt`` (looked up in ``../shared/data`` by ``source`` and
  ``problem_ref``; without the data folder there is no prompt, and multiple-choice content cannot be read);
* verl 0.9.1's ``math_dapo`` and ``math_reward`` (Hendrycks ``is_equiv``) when ``.venv-verl`` exists
  (run by ``bench/_verifier_verl.py``, sequential, one process).

Reports, per grader: correct answers accepted / all correct, wrong answers accepted / all wrong, overall, per
``split`` (dev / test) and per ``category``. Writes ``bench/results/hard_answers.json`` and prints a table.
Ids of dev rows a grader gets wrong are listed (dev is for development); the test split is reported in counts
only. The issue's bar: at least 80% of correct answers accepted with at most 2 wrong ones accepted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from _common import RESULTS, VERL_PYTHON, data_dir, read_jsonl, versions, write_json

REPO = Path(__file__).resolve().parents[1]
SET = REPO / "bench" / "hard_answers.jsonl"
WORKERS = 2
VERL_SCORERS = ("math_dapo", "math_reward")


def prompts(rows: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """Problem text per (source, problem_ref), from the shared data; empty without it."""
    data = data_dir()
    if data is None:
        return {}
    sys.path.insert(0, str(REPO / "bench"))
    from hard_answers_build import load_problems

    wanted = {(r["source"], r["problem_ref"]) for r in rows}
    return {
        (p["source"], p["ref"]): p["problem"]
        for p in load_problems(data)
        if (p["source"], p["ref"]) in wanted
    }


def run_ours(name: str, rows: list[dict[str, Any]], text: dict[tuple[str, str], str]) -> dict[str, Any]:
    from rewardloop import Runner, Sample, get_scorer

    scorer = get_scorer(name)
    samples = [
        Sample(
            response=r["response"],
            ground_truth=r["gold"],
            prompt=text.get((r["source"], r["problem_ref"])),
        )
        for r in rows
    ]
    with Runner(workers=WORKERS) as runner:
        t0 = time.perf_counter()
        batch = runner.run_sync(scorer, samples)
        wall = time.perf_counter() - t0
    return {
        "verdicts": [s.value == 1.0 for s in batch],
        "status": dict(batch.stats).get("status"),
        "wall_s": round(wall, 3),
        "what": f"{name} scorer, Runner(workers={WORKERS}), prompt = the problem text",
    }


def run_verl(name: str, rows: list[dict[str, Any]], tmp: Path, timeout: float) -> dict[str, Any]:
    if not VERL_PYTHON.exists():
        return {"skipped": f"{VERL_PYTHON} not found"}
    inp, out = tmp / "rows.jsonl", tmp / f"{name}.jsonl"
    with open(inp, "w", encoding="utf-8") as fh:
        for i, r in enumerate(rows):
            fh.write(json.dumps({"id": i, "response": r["response"], "ground_truth": r["gold"]}) + "\n")
    cmd = [str(VERL_PYTHON), str(REPO / "bench" / "_verifier_verl.py"), "--scorer", name]
    cmd += ["--input", str(inp), "--output", str(out), "--timeout", str(timeout)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"skipped": f"failed: {proc.stderr[-500:]}"}
    got = {r["id"]: r for r in read_jsonl(out)}
    per = [got[i] for i in range(len(rows))]
    return {
        "verdicts": [bool(p["correct"]) for p in per],
        "errors": sum(1 for p in per if p.get("error")),
        "what": f"verl 0.9.1 {name}.compute_score, sequential in one process",
    }


def tally(rows: list[dict[str, Any]], verdicts: list[bool]) -> dict[str, Any]:
    """Accepted correct / wrong, overall, per split, per category (and per split x category)."""

    def empty() -> dict[str, int]:
        return {"correct": 0, "correct_accepted": 0, "wrong": 0, "wrong_accepted": 0}

    groups: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(empty))
    for r, v in zip(rows, verdicts, strict=True):
        for dim, key in (
            ("all", "all"),
            ("split", r["split"]),
            ("category", r["category"]),
            ("split_category", f"{r['split']}/{r['category']}"),
        ):
            g = groups[dim][key]
            if r["correct"]:
                g["correct"] += 1
                g["correct_accepted"] += v
            else:
                g["wrong"] += 1
                g["wrong_accepted"] += v
    out: dict[str, Any] = {}
    for dim, d in groups.items():
        out[dim] = {}
        for key, g in sorted(d.items()):
            g = dict(g)
            g["accepted_pct"] = round(100 * g["correct_accepted"] / g["correct"], 1) if g["correct"] else None
            g["meets_bar"] = (
                bool(g["correct"])
                and g["correct_accepted"] >= 0.8 * g["correct"]
                and g["wrong_accepted"] <= 2
            )
            out[dim][key] = g
    out["all"] = out["all"]["all"]
    misses = [
        r["id"] for r, v in zip(rows, verdicts, strict=True) if r["split"] == "dev" and v != r["correct"]
    ]
    out["dev_errors"] = misses
    return out


def table(results: dict[str, Any]) -> str:
    lines = [
        "| grader | split | correct accepted | % | wrong accepted |",
        "|---|---|---|---|---|",
    ]
    for name, g in results["graders"].items():
        if "skipped" in g:
            lines.append(f"| {name} | - | skipped: {g['skipped'][:60]} | | |")
            continue
        t = g["tally"]
        for split, s in [("all", t["all"]), *t["split"].items()]:
            lines.append(
                f"| {name} | {split} | {s['correct_accepted']} / {s['correct']} | {s['accepted_pct']} | "
                f"{s['wrong_accepted']} / {s['wrong']} |"
            )
    return "\n".join(lines)


def category_table(results: dict[str, Any], split: str = "dev") -> str:
    """Correct accepted / wrong accepted per category of one split, one column per grader."""
    names = [n for n, g in results["graders"].items() if "tally" in g]
    if not names:
        return ""
    lines = ["| category (" + split + ") | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    cats = sorted(
        {
            k.split("/", 1)[1]
            for n in names
            for k in results["graders"][n]["tally"]["split_category"]
            if k.startswith(split + "/")
        }
    )
    for c in cats:
        cells = []
        for n in names:
            g = results["graders"][n]["tally"]["split_category"].get(f"{split}/{c}")
            cells.append(f"{g['correct_accepted']}/{g['correct']} (+{g['wrong_accepted']})" if g else "-")
        lines.append(f"| `{c}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default=str(SET))
    parser.add_argument("--skip-verl", action="store_true")
    parser.add_argument("--verl-timeout", type=float, default=10.0)
    parser.add_argument("--split", choices=["all", "dev", "test"], default="all")
    parser.add_argument("--output", default=str(RESULTS / "hard_answers.json"))
    parser.add_argument("--categories", action="store_true", help="also print the dev split per category")
    args = parser.parse_args(argv)
    # rewardloop comes from the interpreter's path (PYTHONPATH=<tree>/src or the installed package), so the same
    # script scores any tree's code; which one is recorded in the results
    import rewardloop

    rows = list(read_jsonl(args.set))
    if args.split != "all":
        rows = [r for r in rows if r["split"] == args.split]
    text = prompts(rows)
    if not text:
        print("hard_answers: ../shared/data not found: scoring without the problem texts", file=sys.stderr)
    graders: dict[str, Any] = {}
    for name in ("math_equiv", "math_verify"):
        graders[name] = run_ours(name, rows, text)
        print(f"  {name} done", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        for v in VERL_SCORERS:
            graders[f"verl_{v}"] = (
                {"skipped": "--skip-verl"}
                if args.skip_verl
                else run_verl(v, rows, Path(tmp), args.verl_timeout)
            )
    for g in graders.values():
        if "verdicts" in g:
            g["tally"] = tally(rows, g.pop("verdicts"))
    results = {
        "set": str(Path(args.set).relative_to(REPO)) if Path(args.set).is_relative_to(REPO) else args.set,
        "rows": len(rows),
        "pairs": len(rows) // 2,
        "with_prompts": bool(text),
        "bar": "correct accepted >= 80% and wrong accepted <= 2 (issue 21)",
        "versions": versions(),
        "rewardloop_src": str(Path(rewardloop.__file__).resolve().parent),
        "graders": graders,
    }
    write_json(results, args.output)
    print(table(results))
    if args.categories:
        print()
        print(category_table(results, "dev"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

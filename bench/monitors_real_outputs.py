"""How often each reward-hacking monitor fires on real model outputs that were not written to hack.

Corpora (from ``../shared/data``; skipped when absent):

* ``gsm8k_gpt3``: 5,276 GPT-3 solutions to GSM8K test questions (``gsm8k/example_model_solutions.jsonl``);
  the ground truth is the text after ``A:`` in the record's worked solution;
* ``math_qwen25``: 800 Qwen2.5-Math chain-of-thought responses to MATH problems
  (``qwen25_math_cot/...jsonl``);
* ``humaneval_gpt4``: 164 GPT-4 HumanEval solutions (``reflexion_code_runs/...jsonl``), fenced as a
  ```` ```python ```` block, the way a chat model answers.

A flag here is not automatically a false positive (a 6B model does loop, a response may box two
candidates): ``--show`` prints every flagged response's reasons and opening for reading by hand (to
stdout only: third-party text is not written into the repository). Writes
``results/monitors_real_outputs.json``: per corpus, samples and flags per monitor, and the index and
reasons of every flagged response.

    .venv/bin/python bench/monitors_real_outputs.py [--show]
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, data_dir, read_jsonl
from rewardloop import Sample
from rewardloop.monitors import MonitorSuite, default_monitors


def gsm8k(data: Path) -> Iterator[Sample]:
    for row in read_jsonl(data / "gsm8k" / "example_model_solutions.jsonl"):
        truth = row["ground_truth"].rsplit("A:", 1)[-1].strip()
        for key in ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"):
            yield Sample(row[key]["solution"], truth, prompt=row["question"], metadata={"model": key})


def qwen(data: Path) -> Iterator[Sample]:
    path = data / "qwen25_math_cot" / "math_cot_100_qwen_rm_maj_responses.jsonl"
    for row in read_jsonl(path):
        codes = row["code"] if isinstance(row["code"], list) else ast.literal_eval(row["code"])
        for text in codes:
            yield Sample(text, row["gt"], prompt=row["question"])


def humaneval(data: Path) -> Iterator[Sample]:
    for row in read_jsonl(data / "reflexion_code_runs" / "humaneval_py_simple_gpt-4.jsonl"):
        yield Sample(f"```python\n{row['solution']}\n```", None, prompt=row["prompt"])


CORPORA = {"gsm8k_gpt3": gsm8k, "math_qwen25": qwen, "humaneval_gpt4": humaneval}


def main() -> int:
    data = data_dir()
    if data is None:
        print("../shared/data is absent: nothing to measure")
        return 0
    suite = MonitorSuite(default_monitors())
    show = "--show" in sys.argv[1:]
    results = {}
    for name, load in CORPORA.items():
        samples = list(load(data))
        report = suite.run(samples)
        counts = report.counts()
        flagged = {i: report.reasons(i) for i, f in enumerate(report.flags) if f}
        results[name] = {
            "samples": len(samples),
            "flags": counts,
            "any_rate": counts["any"] / len(samples),
            "flagged": flagged,
        }
        if show:
            for i, reasons in flagged.items():
                print(f"  {name} #{i} {reasons} | {samples[i].response[:240]!r}")
        print(f"{name:<16} n={len(samples):<5} " + " ".join(f"{k}={v}" for k, v in counts.items()))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "monitors_real_outputs.json").write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

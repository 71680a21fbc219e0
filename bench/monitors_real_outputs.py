"""How often each reward-hacking monitor fires on real model outputs that were not written to hack.

Corpora (from ``../shared/data``; skipped when absent):

* ``gsm8k_gpt3``: 5,276 GPT-3 solutions to GSM8K test questions (``gsm8k/example_model_solutions.jsonl``);
  the ground truth is the text after ``A:`` in the record's worked solution;
* ``math_qwen25``: 800 Qwen2.5-Math chain-of-thought responses to MATH problems
  (``qwen25_math_cot/...jsonl``);
* ``humaneval_gpt4``: 164 GPT-4 HumanEval solutions (``reflexion_code_runs/...jsonl``), fenced as a
  ```` ```python ```` block, the way a chat model answers.

``--extdata tune|report`` runs instead on the held-out rows built by ``bench/monitors_extdata_build.py``
(``/work/extdata/monitors/<split>/rows.jsonl``: Chinese exam answers, multiple choice, fill-ins, short-answer
QA; provenance there), and ``--extdata dev|test`` on the shared held-out sets of ``/work/extdata/<split>/``
(ProcessBench, GAOKAO multiple choice and fill-ins, MMLU-Pro, Omni-MATH; built on wt-mathdata, provenance in
its ``bench/external_sources.md``); one corpus per source family, written to
``results/monitors_extdata_<split>.json``. The rules were adjusted on tune and dev; report and test are only
run and read to report.

A flag here is not automatically a false positive (a 6B model does loop, a response may box two
candidates): ``--show`` prints every flagged response's reasons and opening for reading by hand (to
stdout only: third-party text is not written into the repository). Writes
``results/monitors_real_outputs.json``: per corpus, samples and flags per monitor, and the index and
reasons of every flagged response.

    .venv/bin/python bench/monitors_real_outputs.py [--show] [--extdata tune|report|dev|test]
"""

from __future__ import annotations

import ast
import json
import os
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
EXTDATA = Path(os.environ.get("REWARDLOOP_EXTDATA", "/work/extdata")) / "monitors"


SHARED_SPLITS = ("dev", "test")  # /work/extdata/<split>/<source>.jsonl, built on wt-mathdata (its README)


def _split_files(split: str) -> list[Path]:
    if split in SHARED_SPLITS:
        return sorted((EXTDATA.parent / split).glob("*.jsonl"))
    path = EXTDATA / split / "rows.jsonl"
    return [path] if path.is_file() else []


def extdata(split: str) -> dict[str, list[Sample]]:
    """The held-out rows of ``split``, grouped by source family (``gaokao``, ``evouna``, ``mmlupro``, ...)."""
    out: dict[str, list[Sample]] = {}
    rows = (row for path in _split_files(split) for row in read_jsonl(path))
    for row in rows:
        family = str(row["source"]).split("/", 1)[0]
        meta = {"id": row["id"], "source": row["source"]}
        out.setdefault(family, []).append(
            Sample(row["response"], row["gold"], prompt=row["prompt"], metadata=meta)
        )
    return out


def main() -> int:
    args = sys.argv[1:]
    show = "--show" in args
    split = args[args.index("--extdata") + 1] if "--extdata" in args else None
    if split is not None:
        if not _split_files(split):
            print(f"no rows for split {split!r}: run bench/monitors_extdata_build.py (tune, report) first")
            return 0
        corpora = extdata(split)
        out_name = f"monitors_extdata_{split}.json"
    else:
        data = data_dir()
        if data is None:
            print("../shared/data is absent: nothing to measure")
            return 0
        corpora = {name: list(load(data)) for name, load in CORPORA.items()}
        out_name = "monitors_real_outputs.json"
    suite = MonitorSuite(default_monitors())
    results = {}
    total = {"samples": 0, "any": 0}
    for name, samples in corpora.items():
        report = suite.run(samples)
        counts = report.counts()
        # held-out rows are third-party text: their results keep ids, monitors and values, not the reasons
        # (which quote the answer)
        flagged = {
            samples[i].metadata.get("id", i): (
                {name: round(flag.value, 3) for name, flag in f.items()} if split else report.reasons(i)
            )
            for i, f in enumerate(report.flags)
            if f
        }
        total["samples"] += len(samples)
        total["any"] += counts["any"]
        results[name] = {
            "samples": len(samples),
            "flags": counts,
            "any_rate": counts["any"] / len(samples),
            "flagged": flagged,
        }
        if show:
            for i, f in enumerate(report.flags):
                if f:
                    opening = samples[i].response[:240]
                    print(f"  {name} #{samples[i].metadata.get('id', i)} {report.reasons(i)} | {opening!r}")
        print(f"{name:<16} n={len(samples):<5} " + " ".join(f"{k}={v}" for k, v in counts.items()))
    results["total"] = {**total, "any_rate": total["any"] / max(total["samples"], 1)}
    print(f"total n={total['samples']} any={total['any']} ({results['total']['any_rate']:.2%})")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / out_name).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Build the held-out monitor sets in ``/work/extdata/monitors/`` from public evaluation outputs.

Real model outputs in shapes the in-sample corpora lack (other languages, multiple choice, multi-answer
fill-ins, open-ended short-answer QA), read straight out of ``fetch``-ed git snapshots (``git show``, no
work tree) and written as JSONL rows ``{id, source, prompt, response, gold, label}`` (``label`` is the
source's own correctness judgement where it has one, else ``None``). Nothing here is committed: the
data stays under ``/work/extdata/monitors/``.

Provenance (repository @ commit, path, license):

* ``gaokao/<file>``: OpenLMLab/GAOKAO-Bench @ ``6dbb24f`` (Apache-2.0), ``Results/gpt_4_0314_obj/*.json`` and
  ``Results/gpt_4_0314_sub/*.json``: GPT-4-0314 answers to Chinese college-entrance exam questions (multiple
  choice, fill-in-the-blank, open-ended; Chinese and English subjects), in the benchmark's
  ``【解析】 ... <eoe> 【答案】 ... <eoa>`` format; the prompt is the file's instruction plus the question (the
  options are inside the question text). ``label`` is whether ``model_answer`` equals ``standard_answer``
  (objective files only).
* ``evouna/<NQ|TQ>/<model>``: wangcunxiang/QA-Eval @ HEAD of the snapshot (Apache-2.0), ``EVOUNA/NQ.json`` and
  ``EVOUNA/TQ.json``: free-text answers of GPT-3.5, ChatGPT, GPT-4 and New Bing to Natural Questions and
  TriviaQA questions, with the dataset's human correctness judgements (``judge_<model>``) as ``label``;
  the first 600 questions of each file.
* ``theoremqa/<model>``: wenhuchen/TheoremQA @ HEAD of the snapshot (MIT), ``error_analysis/*_errors.json``:
  ChatGPT, GPT-4 and Alpaca chain-of-thought answers to TheoremQA science questions that the authors
  judged wrong (``label`` False).

Split by source (the unit a reviewer holds out): the tune part is what the rules were adjusted on, the
report part was only run and read to report. GAOKAO files alternate by sorted name (so both parts hold
multiple choice, fill-ins and open-ended answers); EVOUNA: NQ is tune, TQ is report; TheoremQA: ChatGPT is
tune, GPT-4 and Alpaca are report.

    python bench/monitors_extdata_build.py [--mirror /work/.mirror] [--out /work/extdata/monitors]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GAOKAO = "OpenLMLab+GAOKAO-Bench"
EVOUNA = "wangcunxiang+QA-Eval"
THEOREMQA = "wenhuchen+TheoremQA"
EVOUNA_PER_FILE = 600


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _show_json(repo: Path, path: str) -> Any:
    return json.loads(_git(repo, "show", f"HEAD:{path}"))


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        return (
            "".join(str(v) for v in value)
            if all(len(str(v)) == 1 for v in value)
            else " ; ".join(map(str, value))
        )
    return "" if value is None else str(value)


def gaokao(mirror: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    repo = mirror / GAOKAO / "repo"
    files = sorted(
        p
        for p in _git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
        if p.startswith("Results/gpt_4_0314_") and p.count("/") == 2 and p.endswith(".json")
    )
    for k, path in enumerate(files):
        split = "tune" if k % 2 == 0 else "report"
        data = _show_json(repo, path)
        name = Path(path).stem.replace("gpt-4-0314_", "")
        for ex in data["example"]:
            gold, pred = ex.get("standard_answer"), ex.get("model_answer")
            label = (gold == pred) if "obj" in path and pred is not None else None
            row = {
                "id": f"gaokao/{name}/{ex.get('index')}",
                "source": f"gaokao/{name}",
                "prompt": f"{data['prompt']}{ex['question']}",
                "response": ex.get("model_output") or "",
                "gold": _as_text(gold),
                "label": label,
            }
            yield split, row


def evouna(mirror: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    repo = mirror / EVOUNA / "repo"
    for name, split in (("NQ", "tune"), ("TQ", "report")):
        rows = _show_json(repo, f"EVOUNA/{name}.json")[:EVOUNA_PER_FILE]
        for i, ex in enumerate(rows):
            for model in ("gpt35", "chatgpt", "gpt4", "newbing"):
                answer = ex.get(f"answer_{model}")
                if not isinstance(answer, str) or not answer.strip():
                    continue
                yield (
                    split,
                    {
                        "id": f"evouna/{name}/{model}/{i}",
                        "source": f"evouna/{name}/{model}",
                        "prompt": ex["question"],
                        "response": answer,
                        "gold": _as_text(ex.get("golden_answer")),
                        "label": ex.get(f"judge_{model}"),
                    },
                )


def theoremqa(mirror: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    repo = mirror / THEOREMQA / "repo"
    for model, split in (("ChatGPT", "tune"), ("GPT4", "report"), ("alpaca", "report")):
        for ex in _show_json(repo, f"error_analysis/{model}_errors.json"):
            yield (
                split,
                {
                    "id": f"theoremqa/{model}/{ex['id']}",
                    "source": f"theoremqa/{model}",
                    "prompt": ex["question"],
                    "response": ex.get("rationale") or "",
                    "gold": _as_text(ex.get("solution")),
                    "label": False,
                },
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=Path("/work/extdata/monitors"))
    args = parser.parse_args()
    counts: dict[str, int] = {}
    handles: dict[str, Any] = {}
    try:
        for build in (gaokao, evouna, theoremqa):
            for split, row in build(args.mirror):
                if split not in handles:
                    (args.out / split).mkdir(parents=True, exist_ok=True)
                    handles[split] = open(args.out / split / "rows.jsonl", "w", encoding="utf-8")  # noqa: SIM115
                handles[split].write(json.dumps(row, ensure_ascii=False) + "\n")
                key = f"{split} {row['source']}"
                counts[key] = counts.get(key, 0) + 1
    finally:
        for fh in handles.values():
            fh.close()
    for key, n in sorted(counts.items()):
        print(f"{n:>6}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

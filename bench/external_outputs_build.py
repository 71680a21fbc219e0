"""Build the external-outputs sets: real model outputs with correctness labels from public repositories.

Reads bare git mirrors (``fetch`` snapshots, ``$REWARDLOOP_MIRRORS``, default ``/work/.mirror``) and the shared
data folder (gold answers only), and writes, per source, outside the repository
(``$REWARDLOOP_EXTDATA``, default ``/work/extdata``):

* ``all/<source>.jsonl``: every row ``{id, source, prompt, response, gold, label, meta}``;
* ``dev/<source>.jsonl`` and ``test/<source>.jsonl``: a 50/50 split by a hash of the *problem* (every response
  to one problem lands in the same half), each half capped at ``--cap`` rows by a hash-ordered sample.

A source whose mirror is absent is skipped with a message; nothing is downloaded here. Provenance, licenses and
what each source's labels are worth: ``bench/external_sources.md``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import data_dir, read_jsonl, write_jsonl

MIRRORS = Path(os.environ.get("REWARDLOOP_MIRRORS", "/work/.mirror"))
EXTDATA = Path(os.environ.get("REWARDLOOP_EXTDATA", "/work/extdata"))
CAP = 1500
# MMLU-Pro has ~19k rows of four models; its half of 1,500 would be most of the hand-adjudication work while
# adding one format (ten-option letters): 500 per split keep every model and category.
SOURCE_CAP = {"mmlupro": 500}

Row = dict[str, Any]


class Missing(Exception):
    """A mirror, commit or file a source needs is not on this machine."""


def _git_dir(repo: str) -> Path:
    path = MIRRORS / repo.replace("/", "+") / "repo"
    if not path.is_dir():
        raise Missing(f"mirror of {repo} not found at {path}")
    return path


def git_show(repo: str, commit: str, path: str) -> bytes:
    proc = subprocess.run(
        ["git", "--git-dir", str(_git_dir(repo)), "show", f"{commit}:{path}"],
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise Missing(f"{repo}@{commit}:{path}: {proc.stderr.decode(errors='replace').strip()[:200]}")
    return proc.stdout


def git_json(repo: str, commit: str, path: str) -> Any:
    return json.loads(git_show(repo, commit, path))


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


# --------------------------------------------------------------------------- sources

PROCESSBENCH = ("QwenLM/ProcessBench", "2f2fd8ae590aeb949f7be265478b05280f93db68")
GAOKAO = ("OpenLMLab/GAOKAO-Bench", "6dbb24f8d8439041e5431c4c184a582182a6ce9c")
MMLUPRO = ("TIGER-AI-Lab/MMLU-Pro", "f418b116db00b065c2aea046518d8fcf74d39872")
OMNIMATH = ("KbsdJames/Omni-MATH", "113d2a793f8b615194c56a7e3945048a6fb3b6d4")
OLYMPIADBENCH = ("OpenBMB/OlympiadBench", "61bf12a89d097ec304b07e0254b6338aeb1b0a4c")


def _olympiad_golds() -> dict[str, str]:
    raw = git_show(*OLYMPIADBENCH, "data.zip")
    golds: dict[str, str] = {}
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        for name in zf.namelist():
            if not name.startswith("data/") or not name.endswith(".json"):
                continue
            for x in json.loads(zf.read(name)):
                answers = x.get("final_answer")
                if isinstance(answers, str):
                    try:
                        answers = ast.literal_eval(answers)
                    except (ValueError, SyntaxError):
                        answers = [answers]
                if not answers or any("证明" in str(a) for a in answers):
                    continue
                gold = ", ".join(str(a).strip() for a in answers)
                golds[_norm(x.get("question", ""))] = gold
    return golds


def processbench() -> Iterator[Row]:
    """ProcessBench (Qwen2/2.5 and Llama-3/3.1 step-by-step solutions) on GSM8K, MATH and OlympiadBench.

    The label is ProcessBench's ``final_answer_correct``. ProcessBench has no gold answer: it is joined by the
    problem text with GSM8K test (``#### n``), MATH test (last box of the reference solution) and OlympiadBench's
    ``final_answer``. The Omni-MATH part has no joinable gold here and is left out.
    """
    data = data_dir()
    if data is None:
        raise Missing("../shared/data (gold answers of GSM8K and MATH)")
    golds: dict[str, dict[str, str]] = {"gsm8k": {}, "math": {}}
    for r in read_jsonl(data / "gsm8k" / "test.jsonl"):
        golds["gsm8k"][_norm(r["question"])] = r["answer"].split("####")[-1].strip().replace(",", "")
    for r in read_jsonl(data / "math" / "math_test_5000.jsonl"):
        golds["math"][_norm(r["problem"])] = _last_box(r["solution"]) or ""
    golds["olympiadbench"] = _olympiad_golds()
    for subset in ("gsm8k", "math", "olympiadbench"):
        for x in git_json(*PROCESSBENCH, f"dataset/{subset}.json"):
            gold = golds[subset].get(_norm(x["problem"]))
            if not gold:
                continue
            yield {
                "id": x["id"],
                "problem_key": f"{subset}:{_norm(x['problem'])}",
                "prompt": x["problem"],
                "response": "\n\n".join(x["steps"]),
                "gold": gold,
                "label": bool(x["final_answer_correct"]),
                "meta": {"subset": subset, "generator": x["generator"]},
            }


def _last_box(text: str) -> str | None:
    start = text.rfind("\\boxed")
    if start < 0:
        return None
    i = text.find("{", start)
    if i < 0:
        return None
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j]
    return None


GAOKAO_MCQ = ("Math_I_MCQs", "Math_II_MCQs", "Physics_MCQs", "Chemistry_MCQs", "Biology_MCQs")


def gaokao_mcq() -> Iterator[Row]:
    """GAOKAO-Bench: GPT-4-0314 answers (Chinese) to Chinese college-entrance-exam multiple-choice questions
    in maths, physics, chemistry and biology; the options are in the question. The label is GAOKAO-Bench's own
    extraction (``model_answer == standard_answer``), a rule, not a person."""
    for subject in GAOKAO_MCQ:
        path = f"Results/gpt_4_0314_obj/gpt-4-0314_2010-2022_{subject}.json"
        for x in git_json(*GAOKAO, path)["example"]:
            gold = "".join(x["standard_answer"])
            key = f"{subject}:{x['index']}"
            yield {
                "id": key,
                "problem_key": key,
                "prompt": x["question"],
                "response": x["model_output"],
                "gold": gold,
                "label": list(x["model_answer"]) == list(x["standard_answer"]),
                "meta": {"subject": subject, "year": x.get("year"), "model": "gpt-4-0314"},
            }


def gaokao_fill() -> Iterator[Row]:
    """GAOKAO-Bench: GPT-4-0314 answers (Chinese) to maths fill-in-the-blank questions, no box, ``【答案】…<eoa>``.
    The label is GAOKAO-Bench's GPT-4-1106 marking without a marking scheme: correct = full marks."""
    for subject in ("Math_I", "Math_II"):
        path = (
            "Results/gpt_4_0314_sub/gpt-4-1106-preview_correction_wo_marking_criterion/"
            f"gpt-4-0314_2010-2022_{subject}_Fill-in-the-Blank_wo_marking_criterion.json"
        )
        for x in git_json(*GAOKAO, path)["example"]:
            key = f"{subject}:{x['index']}"
            score = x["model_correction_score"][0] if x["model_correction_score"] else 0.0
            yield {
                "id": key,
                "problem_key": key,
                "prompt": x["question"],
                "response": x["model_output"],
                "gold": x["standard_answer"].strip(),
                "label": float(score) >= float(x["score"]),
                "meta": {"subject": subject, "year": x.get("year"), "points": x["score"], "marked": score},
            }


MMLUPRO_MODELS = (
    "Meta-Llama-3_1-8B-Instruct",
    "Qwen1.5-72B-Chat",
    "gemini-1.5-pro-002",
    "mathstral-7B",
)
MMLUPRO_CATEGORIES = ("math", "physics", "chemistry", "engineering")


def mmlupro() -> Iterator[Row]:
    """MMLU-Pro 5-shot chain-of-thought outputs of four models on its maths, physics, chemistry and engineering
    questions (ten options A-J, in the prompt). The label is MMLU-Pro's regex extraction (``pred == answer``;
    no ``answer is (X)`` found counts as wrong)."""
    for model in MMLUPRO_MODELS:
        raw = git_show(*MMLUPRO, f"eval_results/model_outputs_{model}_5shots.zip")
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            (name,) = [n for n in zf.namelist() if n.endswith(".json")]
            rows = json.loads(zf.read(name))
        for x in rows:
            if x["category"] not in MMLUPRO_CATEGORIES:
                continue
            options = "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(x["options"]))
            yield {
                "id": f"{model}:{x['question_id']}",
                "problem_key": str(x["question_id"]),
                "prompt": f"{x['question']}\nOptions:\n{options}",
                "response": x.get("generated_text") or x.get("model_outputs") or "",
                "gold": x["answer"],
                "label": x.get("pred") == x["answer"],
                "meta": {"model": model, "category": x["category"], "src": x.get("src")},
            }


def omnimath() -> Iterator[Row]:
    """Omni-MATH: olympiad-level answers of Llama-3.1-70B-Instruct and InternLM2-Math-Plus-Mixtral-8x22B (100
    each, the repository's GPT-4o evaluation examples). The label is GPT-4o's ``Equivalence Judgement``."""
    for model, path in (
        ("meta_llama_3-1_70b_instruct", "GPT_eval/examples/meta_llama_3-1_70b_instruct_gpteval.jsonl"),
        (
            "internlm2-math-plus-mixtral8x22b",
            "GPT_eval/examples/internlm2-math-plus-mixtral8x22b_gpteval.jsonl",
        ),
    ):
        for line in git_show(*OMNIMATH, path).decode("utf-8").splitlines():
            if not line.strip():
                continue
            x = json.loads(line)
            o = json.loads(x["original_json"])
            judged = re.search(r"Equivalence Judgement\s*\n\s*(TRUE|FALSE)", x["gen"], re.IGNORECASE)
            if judged is None:
                continue
            yield {
                "id": f"{model}:{x['uuid']}",
                "problem_key": _norm(o["problem"]),
                "prompt": o["problem"],
                "response": o["model_generation"],
                "gold": str(o["answer"]),
                "label": judged.group(1).upper() == "TRUE",
                "meta": {"model": model, "domain": o.get("domain"), "difficulty": o.get("difficulty")},
            }


SOURCES: dict[str, Callable[[], Iterator[Row]]] = {
    "processbench": processbench,
    "gaokao_mcq": gaokao_mcq,
    "gaokao_fill": gaokao_fill,
    "mmlupro": mmlupro,
    "omnimath": omnimath,
}


# --------------------------------------------------------------------------- split and write


def split_of(source: str, problem_key: str) -> str:
    return "dev" if _h(f"{source}\x00{problem_key}") % 2 == 0 else "test"


def build(name: str, out: Path, cap: int) -> dict[str, int]:
    cap = min(cap, SOURCE_CAP.get(name, cap))
    rows = []
    seen: set[str] = set()
    for r in SOURCES[name]():
        if r["id"] in seen or not r["response"] or not str(r["gold"]).strip():
            continue
        seen.add(r["id"])
        key = r.pop("problem_key")
        rows.append(
            {
                "id": r["id"],
                "source": name,
                **{k: r[k] for k in ("prompt", "response", "gold", "label")},
                "meta": {**r["meta"], "split": split_of(name, key), "problem": _h(key) % 10**12},
            }
        )
    for d in ("all", "dev", "test"):
        (out / d).mkdir(parents=True, exist_ok=True)
    write_jsonl(rows, out / "all" / f"{name}.jsonl")
    counts = {"all": len(rows)}
    for split in ("dev", "test"):
        part = [r for r in rows if r["meta"]["split"] == split]
        if len(part) > cap:  # a hash-ordered sample, then back in source order
            keep = set(sorted((r["id"] for r in part), key=lambda i: _h(f"{name}\x00{i}"))[:cap])
            part = [r for r in part if r["id"] in keep]
        counts[split] = write_jsonl(part, out / split / f"{name}.jsonl")
        counts[f"{split}_true"] = sum(r["label"] for r in part)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", default=",".join(SOURCES))
    parser.add_argument("--out", default=str(EXTDATA))
    parser.add_argument("--cap", type=int, default=CAP, help="rows per split at most")
    args = parser.parse_args()
    out = Path(args.out)
    for name in args.sources.split(","):
        try:
            counts = build(name, out, args.cap)
        except Missing as exc:
            print(f"{name}: skipped ({exc})", file=sys.stderr)
            continue
        print(f"{name}: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

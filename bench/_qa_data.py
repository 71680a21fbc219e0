"""Human-judged QA answer-equivalence data for ``bench/qa_equiv.py``: loaders and the dev / test split.

Nothing here is committed data: the files live under ``/work/extdata/qa/`` (override with
``REWARDLOOP_QA_DATA=...``), copied unchanged from two public repositories (provenance: ``bench/README.md``,
section *qa_equiv*). The split is by source, so no judgement, system or annotation guideline is shared:

* **dev** — EVOUNA (Wang et al. 2023, "Evaluating Open-QA Evaluation", ``wangcunxiang/QA-Eval``): NQ-open and
  TriviaQA test questions answered by FiD, GPT-3.5, ChatGPT, GPT-4 and Bing Chat, each answer judged correct or
  not by people. Rows flagged ``improper`` or without a judgement are dropped, and so is every question that
  also occurs in the test split. Gold answers are ``golden_answer`` split on ``/``.
* **test** — Kamalloo et al. 2023 ("Evaluating Open-Domain Question Answering in the Era of Large Language
  Models", ``ehsk/OpenQA-eval``): 301 NQ-open test questions, the distinct answers of 12 systems (DPR, FiD
  variants, EMDR2, R2-D2, EviGen, InstructGPT zero- and few-shot), ``Acceptable?`` judged by people. Gold
  answers are NQ-open's, read from the repository's ``model_outputs`` files.
* **mturk** (a second held-out split, added after the rules were written; never read row by row) — the MTurk
  ratings of ``Exr0nRandomProjects/scuffed_qa_annotator``: SQuAD and NQ-closed predictions of BERT-large that
  exact match rejects, each rated on a five-point scale ("Definetly incorrect" ... "Definitely correct") in
  two rounds (``mturk/mturk_round_1.tsv``, scores 1-5; ``mturk/analyze_data/second_time.csv``, labels). The
  verdict is the mean of the available scores: above 3 correct, below 3 incorrect, exactly 3 (unsure) dropped.
  Questions that also occur in dev are dropped. Extractive-reader spans, one rater per round (the repository
  reports poor inter-rater agreement): a noisy set.
"""

from __future__ import annotations

import ast
import csv
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ROOT = Path("/work/extdata/qa")
EVOUNA_MODELS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")


@dataclass(frozen=True)
class Judged:
    """One human-judged prediction."""

    source: str
    system: str
    question: str
    golds: tuple[str, ...]
    prediction: str
    correct: bool


def data_root() -> Path:
    return Path(os.environ.get("REWARDLOOP_QA_DATA", DEFAULT_ROOT))


def available(root: Path | None = None) -> bool:
    root = root or data_root()
    return (root / "evouna" / "NQ.json").is_file() and (root / "openqa_eval" / "NQ301_human.tsv").is_file()


def test_questions(root: Path) -> set[str]:
    with open(root / "openqa_eval" / "NQ301_human.tsv", encoding="utf-8") as fh:
        return {row["Question"] for row in csv.DictReader(fh, delimiter="\t")}


def load_dev(root: Path | None = None) -> list[Judged]:
    root = root or data_root()
    held_out = test_questions(root)
    rows: list[Judged] = []
    for name in ("NQ", "TQ"):
        with open(root / "evouna" / f"{name}.json", encoding="utf-8") as fh:
            records = json.load(fh)
        for record in records:
            if record.get("improper") or record["question"] in held_out:
                continue
            golds = tuple(g.strip() for g in str(record["golden_answer"]).split("/") if g.strip())
            if not golds:
                continue
            for model in EVOUNA_MODELS:
                label = record.get(f"judge_{model}")
                if label not in (True, False):
                    continue
                prediction = record.get(f"answer_{model}") or ""
                rows.append(
                    Judged(f"evouna_{name.lower()}", model, record["question"], golds, prediction, label)
                )
    return rows


def _nq_golds(root: Path) -> dict[str, tuple[str, ...]]:
    golds: dict[str, tuple[str, ...]] = {}
    for path in sorted((root / "openqa_eval" / "model_outputs").glob("*.jsonl")):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    golds.setdefault(row["question"], tuple(row["answer"]))
    return golds


def load_test(root: Path | None = None) -> list[Judged]:
    root = root or data_root()
    golds = _nq_golds(root)
    rows: list[Judged] = []
    with open(root / "openqa_eval" / "NQ301_human.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            label = row["Acceptable?"].strip().lower()
            if label not in ("yes", "no") or row["Question"] not in golds:
                continue
            rows.append(
                Judged(
                    "openqa_eval_nq301",
                    "pooled",
                    row["Question"],
                    golds[row["Question"]],
                    row["Model answer"],
                    label == "yes",
                )
            )
    return rows


MTURK_LABELS = {
    "Definetly incorrect": 1,
    "I dont think its correct": 2,
    "Unsure": 3,
    "I think its correct": 4,
    "Definitely correct": 5,
}


def mturk_available(root: Path | None = None) -> bool:
    root = root or data_root()
    return (root / "mturk_ae" / "mturk_round_1.tsv").is_file() and (
        root / "mturk_ae" / "second_time.csv"
    ).is_file()


def _dev_questions(root: Path) -> set[str]:
    out: set[str] = set()
    for name in ("NQ", "TQ"):
        with open(root / "evouna" / f"{name}.json", encoding="utf-8") as fh:
            out |= {" ".join(r["question"].lower().split()) for r in json.load(fh)}
    return out


def load_mturk(root: Path | None = None) -> list[Judged]:
    root = root or data_root()
    scores: dict[str, list[int]] = {}
    items: dict[str, tuple[str, tuple[str, ...], str]] = {}
    with open(root / "mturk_ae" / "mturk_round_1.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            listed = ast.literal_eval(row["gold_answers"]) if row["gold_answers"].strip() else []
            golds = tuple(str(g).strip() for g in listed if str(g).strip())
            items[row["id"]] = (row["question"], golds, row["model_answer"])
            scores.setdefault(row["id"], []).extend(int(v) for v in ast.literal_eval(row["mturk_scores"]))
    with open(root / "mturk_ae" / "second_time.csv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            label = MTURK_LABELS.get(row["Answer.sentiment.label"])
            if label is not None and row["Input.qap_id"] in items:
                scores[row["Input.qap_id"]].append(label)
    dev = _dev_questions(root)
    rows: list[Judged] = []
    for key, (question, golds, prediction) in items.items():
        rated = scores.get(key) or []
        if not rated or not golds or " ".join(question.lower().split()) in dev:
            continue
        mean = sum(rated) / len(rated)
        if mean == 3:
            continue
        rows.append(Judged("mturk_ae", "bert_large", question, golds, prediction, mean > 3))
    return rows


def load(split: str, root: Path | None = None) -> list[Judged]:
    if split == "dev":
        return load_dev(root)
    if split == "test":
        return load_test(root)
    if split == "mturk":
        return load_mturk(root)
    raise ValueError(f"split must be 'dev', 'test' or 'mturk', got {split!r}")


def iter_split(split: str) -> Iterator[Judged]:
    yield from load(split)

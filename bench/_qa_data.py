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
"""

from __future__ import annotations

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


def load(split: str, root: Path | None = None) -> list[Judged]:
    if split == "dev":
        return load_dev(root)
    if split == "test":
        return load_test(root)
    raise ValueError(f"split must be 'dev' or 'test', got {split!r}")


def iter_split(split: str) -> Iterator[Judged]:
    yield from load(split)

"""The qa_equiv bench's MTurk split: the verdict is the mean score over both rating rounds (above 3 correct, below
3 incorrect, exactly 3 dropped), rows without a gold or a rating are dropped, and so is every question that also
occurs in dev. Synthetic files in a temporary directory: no third-party data needed."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"


def _load() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("_qa_data", BENCH / "_qa_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_qa_data"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def _write(root: Path) -> None:
    (root / "evouna").mkdir(parents=True)
    (root / "mturk_ae").mkdir()
    dev = [{"question": "Who wrote Hamlet?", "golden_answer": "Shakespeare"}]
    for name in ("NQ", "TQ"):
        (root / "evouna" / f"{name}.json").write_text(json.dumps(dev if name == "NQ" else []))
    rows = [
        # id, question, model answer, golds, round-1 scores
        ("a", "Where is Paris?", "in France", "['France']", "[5]"),  # 5, 4 -> correct
        ("b", "Where is Rome?", "Spain", "['Italy']", "[1]"),  # 1, 2 -> incorrect
        ("c", "Where is Oslo?", "north", "['Norway']", "[4]"),  # 4, 2 -> mean 3: dropped
        ("d", "who wrote  hamlet?", "Marlowe", "['Shakespeare']", "[1]"),  # a dev question: dropped
        ("e", "Where is Bern?", "Swiss", "", "[5]"),  # no gold: dropped
        ("f", "Where is Lima?", "Peru", "['Peru', 'Lima, Peru']", "[]"),  # rated only in round 2: correct
    ]
    with open(root / "mturk_ae" / "mturk_round_1.tsv", "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t")
        writer.writerow(
            ["", "id", "context", "question", "model_answer", "gold_answers", "mturk_scores", "avg"]
        )
        for i, (key, question, answer, golds, scores) in enumerate(rows):
            writer.writerow([i, key, "ctx", question, answer, golds, scores, 0])
    second = {"a": "I think its correct", "b": "I dont think its correct", "c": "I dont think its correct"}
    second |= {"d": "Definetly incorrect", "e": "Definitely correct", "f": "Definitely correct"}
    with open(root / "mturk_ae" / "second_time.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["Input.qap_id", "Answer.sentiment.label"])
        for key, label in second.items():
            writer.writerow([key, label])


def test_mturk_verdicts_drops_and_dev_overlap(tmp_path: Path) -> None:
    data = _load()
    _write(tmp_path)
    assert data.mturk_available(tmp_path)
    rows = {r.prediction: r for r in data.load_mturk(tmp_path)}
    assert sorted(rows) == ["Peru", "Spain", "in France"]
    assert rows["in France"].correct and rows["Peru"].correct and not rows["Spain"].correct
    assert rows["Peru"].golds == ("Peru", "Lima, Peru")
    assert {r.source for r in rows.values()} == {"mturk_ae"}


def test_mturk_is_absent_without_its_files(tmp_path: Path) -> None:
    assert not _load().mturk_available(tmp_path)

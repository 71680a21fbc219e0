"""``prepare``: every dataset converter, every input format, templates, and errors naming allowed values."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rewardloop.errors import ConfigError
from rewardloop.integrations.verl import sample_from_row
from rewardloop.scorers._registry import resolve_scorer
from rewardloop.workbench import DATASETS, convert_rows, prepare, read_table
from rewardloop.workbench._prepare import gsm8k_answer, last_boxed

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"

# one small source row per dataset, in the source's own field layout
SOURCES = {
    "gsm8k": {
        "question": "Tom has 1,000 apples and buys 200. How many?",
        "answer": "1000+200=<<1000+200=1200>>1200\n#### 1,200",
    },
    "math": {
        "problem": "Simplify $\\frac{2}{4}$.",
        "level": "Level 1",
        "type": "Algebra",
        "solution": "We get $\\boxed{\\frac{1}{2}}$.",
    },
    "math500": {
        "problem": "What is $1+1$?",
        "solution": "...",
        "answer": "2",
        "subject": "Algebra",
        "level": 1,
        "unique_id": "t/1",
    },
    "aime": {"competition": "aime_2024_I", "problem_idx": 1, "problem": "Find n.", "answer": "073"},
    "humaneval": {
        "task_id": "HumanEval/0",
        "prompt": 'def add(a, b):\n    """Add."""\n',
        "entry_point": "add",
        "canonical_solution": "    return a + b\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
    },
    "mbpp": {
        "text": "Write a function to add two numbers.",
        "code": "def add(a, b):\n    return a + b",
        "task_id": 7,
        "test_setup_code": "",
        "test_list": ["assert add(1, 2) == 3", "assert add(0, 0) == 0"],
        "challenge_test_list": [],
    },
    "nq": {"question": "who wrote hamlet", "answer": ["William Shakespeare", "Shakespeare"]},
}
EXPECTED_SOURCE = {
    "gsm8k": "openai/gsm8k",
    "math": "DigitalLearningGmbH/MATH-lighteval",
    "math500": "HuggingFaceH4/MATH-500",
    "aime": "aime",
    "humaneval": "humaneval",
    "mbpp": "mbpp",
    "nq": "searchR1_nq",
}


def write(path: Path, rows: list[dict]) -> Path:
    suffix = path.suffix
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif suffix == ".json":
        path.write_text(json.dumps(rows))
    elif suffix == ".csv":
        keys = list(rows[0])
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, keys)
            w.writeheader()
            for r in rows:
                w.writerow({k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in r.items()})
    elif suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def assert_verl_layout(row: dict, dataset: str, split: str, index: int) -> None:
    assert set(row) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert row["data_source"] == EXPECTED_SOURCE[dataset]
    assert isinstance(row["prompt"], list) and row["prompt"][-1]["role"] == "user"
    assert row["reward_model"]["style"] == "rule"
    assert row["extra_info"]["split"] == split and row["extra_info"]["index"] == index
    resolve_scorer(row["data_source"])  # routes to a scorer


@pytest.mark.parametrize("dataset", sorted(SOURCES))
@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "parquet"])
def test_every_dataset_from_every_format(tmp_path, dataset, fmt):
    src = write(tmp_path / f"in.{fmt}", [SOURCES[dataset], SOURCES[dataset]])
    out = tmp_path / "out.parquet"
    assert prepare(dataset, src, out, split="test") == 2
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == 2
    for i, row in enumerate(rows):
        assert_verl_layout(row, dataset, "test", i)
        sample = sample_from_row({**row, "response": "x"})  # what `rewardloop score` and verl read
        assert sample.task == EXPECTED_SOURCE[dataset]


def test_ground_truths_and_extra_info():
    def convert(dataset):
        return convert_rows(dataset, [SOURCES[dataset]])[0]

    assert convert("gsm8k")["reward_model"]["ground_truth"] == "1200"
    assert convert("gsm8k")["extra_info"]["answer"].endswith("#### 1,200")
    assert convert("math")["reward_model"]["ground_truth"] == "\\frac{1}{2}"
    assert convert("math")["extra_info"]["level"] == "Level 1"
    assert convert("math500")["reward_model"]["ground_truth"] == "2"
    assert convert("aime")["reward_model"]["ground_truth"] == "073"
    assert convert("nq")["reward_model"]["ground_truth"] == {"target": ["William Shakespeare", "Shakespeare"]}
    he = convert("humaneval")
    assert json.loads(he["reward_model"]["ground_truth"])["entry_point"] == "add"
    assert he["extra_info"]["reference_solution"].endswith("return a + b\n")
    mbpp = convert("mbpp")
    assert json.loads(mbpp["reward_model"]["ground_truth"])["test_list"] == SOURCES["mbpp"]["test_list"]
    assert "assert add(1, 2) == 3" in mbpp["prompt"][0]["content"]


def test_default_templates_match_verl_preprocessing():
    gsm = convert_rows("gsm8k", [SOURCES["gsm8k"]])[0]["prompt"][0]["content"]
    assert (
        gsm
        == SOURCES["gsm8k"]["question"]
        + ' Let\'s think step by step and output the final answer after "####".'
    )
    math = convert_rows("math", [SOURCES["math"]])[0]["prompt"][0]["content"]
    assert math.endswith("output the final answer within \\boxed{}.")


def test_template_system_prompt_and_data_source_override():
    rows = convert_rows(
        "gsm8k",
        [SOURCES["gsm8k"]],
        template="Q: {question}\nPut the answer in \\boxed{}.",
        system_prompt="You are careful.",
        data_source="my_gsm8k",
    )
    assert rows[0]["prompt"] == [
        {"role": "system", "content": "You are careful."},
        {"role": "user", "content": "Q: " + SOURCES["gsm8k"]["question"] + "\nPut the answer in \\boxed{}."},
    ]
    assert rows[0]["data_source"] == "my_gsm8k"
    with pytest.raises(ConfigError, match=r"\{question\}"):
        convert_rows("gsm8k", [SOURCES["gsm8k"]], template="no placeholder")


def test_rows_already_in_verl_layout_are_normalised():
    # the layout of a verl-format parquet whose dict columns were exported as Python-literal text
    row = {
        "data_source": "DigitalLearningGmbH/MATH-lighteval",
        "prompt": "[{'content': 'What is 1+1? Let us think.', 'role': 'user'}]",
        "ability": "math",
        "reward_model": "{'ground_truth': '2', 'style': 'rule'}",
        "extra_info": "{'index': 0, 'level': 'Level 1', 'question': 'What is 1+1?'}",
    }
    out = convert_rows("math", [row])[0]
    assert out["reward_model"] == {"style": "rule", "ground_truth": "2"}
    assert out["prompt"][0]["content"].startswith("What is 1+1? Let's think step by step")
    assert out["extra_info"]["level"] == "Level 1"


@pytest.mark.parametrize(
    "text,boxed",
    [
        ("so $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}"),
        ("\\boxed{1} then \\boxed{{a}+b}", "{a}+b"),
        ("\\fbox{7}", "7"),
        ("\\boxed 5", "5"),
        ("no box", None),
        ("\\boxed{unclosed", None),
    ],
)
def test_last_boxed(text, boxed):
    assert last_boxed(text) == boxed


def test_errors_name_allowed_values(tmp_path):
    src = write(tmp_path / "in.jsonl", [SOURCES["gsm8k"]])
    with pytest.raises(
        ConfigError, match="unknown dataset 'gsm9k'; allowed: gsm8k, math, math500, aime, humaneval, mbpp, nq"
    ):
        prepare("gsm9k", src, tmp_path / "o.parquet")
    with pytest.raises(ConfigError, match=r"gsm8k: a row has none of the fields \['question', 'problem'\]"):
        convert_rows("gsm8k", [{"q": "x", "answer": "#### 1"}])
    with pytest.raises(ConfigError, match="no '#### <number>' line"):
        gsm8k_answer("it is 5")
    with pytest.raises(ConfigError, match="no \\\\boxed"):
        convert_rows("math", [{"problem": "p", "solution": "no box here"}])
    with pytest.raises(ConfigError, match="test_list"):
        convert_rows("mbpp", [{"text": "t", "test_list": "assert x"}])
    with pytest.raises(ConfigError, match="allowed: jsonl, json, csv, parquet"):
        read_table(write(tmp_path / "other.jsonl", [SOURCES["gsm8k"]]).rename(tmp_path / "in.txt"))
    with pytest.raises(ConfigError, match="input file not found"):
        prepare("gsm8k", tmp_path / "missing.jsonl", tmp_path / "o.parquet")
    with pytest.raises(ConfigError, match=r"\.parquet or \.jsonl"):
        prepare("gsm8k", src, tmp_path / "o.csv")


def test_json_object_holding_a_list(tmp_path):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"version": 1, "data": [SOURCES["nq"]]}))
    assert len(read_table(path)) == 1
    path.write_text(json.dumps({"a": [SOURCES["nq"]], "b": [SOURCES["nq"]]}))
    with pytest.raises(ConfigError, match="exactly one such list"):
        read_table(path)


def test_jsonl_output(tmp_path):
    src = write(tmp_path / "in.jsonl", [SOURCES["nq"]])
    prepare("nq", src, tmp_path / "out.jsonl", limit=1)
    (row,) = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert row["reward_model"]["ground_truth"]["target"][0] == "William Shakespeare"


SHARED_FILES = [
    ("gsm8k", "gsm8k/test.jsonl"),
    ("math", "math/math_test_5000.jsonl"),
    ("math", "math/verl_format_math_lighteval_train_filtered.parquet"),
    ("math500", "math/math500_test.jsonl"),
    ("aime", "matharena/aime_2024_I.jsonl"),
    ("aime", "aime_extra/aimo-validation-aime.jsonl"),
    ("humaneval", "humaneval/HumanEval.jsonl"),
    ("mbpp", "mbpp/mbpp.jsonl"),
    ("nq", "nq_open/NQ-open.dev.jsonl"),
    ("nq", "flashrag_nq_sample/nq_test_sample.jsonl"),
]


@pytest.mark.parametrize("dataset,rel", SHARED_FILES)
def test_shared_data_files(tmp_path, dataset, rel):
    path = SHARED / rel
    if not path.is_file():
        pytest.skip(f"{rel} is not in ../shared/data")
    out = tmp_path / "out.parquet"
    n = prepare(dataset, path, out, limit=25)
    rows = pq.read_table(out).to_pylist()
    assert n == len(rows) and 0 < n <= 25
    for i, row in enumerate(rows):
        assert_verl_layout(row, dataset, "train", i)
        assert row["reward_model"]["ground_truth"] not in ("", None)


def test_every_dataset_has_a_fixture():
    assert set(DATASETS) == set(SOURCES)


def test_invalid_rows_stop_or_are_skipped(tmp_path, caplog):
    rows = [
        SOURCES["math500"],
        {**SOURCES["math500"], "answer": "  "},
        {"problem": "no answer"},
        SOURCES["math500"],
    ]
    with pytest.raises(ConfigError, match=r"row 1: math500: empty ground truth .* --skip-invalid"):
        convert_rows("math500", rows)
    out = convert_rows("math500", rows, skip_invalid=True)
    assert [r["extra_info"]["index"] for r in out] == [0, 1]
    assert [r["extra_info"]["source_index"] for r in out] == [0, 3]
    assert "skipped 2 invalid rows" in caplog.text
    src = write(tmp_path / "in.jsonl", rows)
    assert prepare("math500", src, tmp_path / "o.parquet", skip_invalid=True) == 2

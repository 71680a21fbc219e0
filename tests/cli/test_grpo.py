"""GRPO files: verl generation output (``responses`` = n rollouts per prompt) and the group statistics.

The constructed file has known pass@k: per prompt (n = 4) the number of correct rollouts is 0, 1, 2, 4.
"""

import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rewardloop.cli.main import main
from rewardloop.tools import build_report

from ._util import SHARED, read_jsonl, row

# (correct rollouts of 4) for the gsm8k prompts; every wrong rollout answers 999
CORRECT = [0, 1, 2, 4]
N = 4
# unbiased pass@k averaged over the four prompts, by hand from 1 - C(n-c, k) / C(n, k)
EXPECTED = {
    1: (0 + 1 / 4 + 2 / 4 + 1) / 4,
    2: (0 + 1 / 2 + 5 / 6 + 1) / 4,
    3: (0 + 3 / 4 + 1 + 1) / 4,
    4: 3 / 4,
}


def _gsm8k_rows():
    rows = []
    for index, c in enumerate(CORRECT):
        truth = str(10 + index)
        responses = [f"#### {truth}"] * c + ["#### 999"] * (N - c)
        rows.append(row("openai/gsm8k", truth, responses, index=index))
    # a second data source whose extra_info.index collides with gsm8k's: groups must not merge
    rows.append(row("math_dapo", "5", ["Answer: 5", "Answer: 6"], index=0))
    for r in rows:
        r["responses"] = r.pop("response")
    return rows


@pytest.fixture
def grpo_file(tmp_path):
    path = tmp_path / "gen.parquet"
    pq.write_table(pa.Table.from_pylist(_gsm8k_rows()), path)
    return path


def test_list_responses_expand_and_group_stats_are_exact(grpo_file, tmp_path, capsys):
    out = tmp_path / "scored.jsonl"
    summary = tmp_path / "summary.json"
    args = [
        "score",
        str(grpo_file),
        "--response-key",
        "responses",
        "-o",
        str(out),
        "--summary-json",
        str(summary),
    ]
    assert main(args) == 0
    text = capsys.readouterr().out
    rows = read_jsonl(out)
    assert len(rows) == N * len(CORRECT) + 2
    assert [r["response_index"] for r in rows[:N]] == list(range(N))
    assert all(isinstance(r["responses"], str) and r["status"] == "ok" for r in rows)
    # group ids are scoped by data_source: gsm8k's index 0 and math_dapo's index 0 are different groups
    assert len({(r["data_source"], r["group_id"]) for r in rows}) == len(CORRECT) + 1
    data = json.loads(summary.read_text())
    groups = {g["task"]: g for g in data["groups"]}
    gsm = groups["openai/gsm8k"]
    assert gsm["groups"] == 4 and gsm["n"] == 4
    for k, value in EXPECTED.items():
        assert gsm[f"pass@{k}"] == pytest.approx(value, abs=1e-6)
    assert gsm["all_equal_share"] == pytest.approx(0.5)  # all-wrong and all-right prompts: zero advantage
    assert gsm["mean@n"] == pytest.approx(EXPECTED[1], abs=1e-6)  # rewards are 1/0 here
    assert gsm["reward_std"] == pytest.approx((0.5 + math.sqrt(1 / 3)) / 4, abs=1e-6)
    dapo = groups["math_dapo"]
    assert dapo["groups"] == 1 and dapo["pass@1"] == 0.5 and dapo["pass@2"] == 1.0
    assert dapo["mean@n"] == 0.0  # DAPO rewards +1 / -1
    assert "GRPO groups" in text and "pass@4" in text and "0.750" in text


def test_report_shows_the_group_table(grpo_file, tmp_path, capsys):
    out = tmp_path / "scored.jsonl"
    assert main(["score", str(grpo_file), "--response-key", "responses", "-o", str(out)]) == 0
    page = build_report(read_jsonl(out))
    assert "GRPO groups" in page and "pass@4" in page and "0.750" in page and "50.0%" in page
    assert "pass@k per data_source" in page


def test_group_by_field(tmp_path, capsys):
    # two prompts of one group id column, rows already one per rollout
    rows = [dict(row("openai/gsm8k", "1", f"#### {a}", index=i), prompt_id=p) for i, (p, a) in
            enumerate([("p", 1), ("p", 2), ("q", 1), ("q", 1)])]  # fmt: skip
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = tmp_path / "s.json"
    assert main(["score", str(path), "--group-by", "prompt_id", "--summary-json", str(summary)]) == 0
    gsm = {g["task"]: g for g in json.loads(summary.read_text())["groups"]}["openai/gsm8k"]
    assert gsm["groups"] == 2 and gsm["pass@1"] == 0.75 and gsm["all_equal_share"] == 0.5


QWEN = SHARED / "qwen25_math_cot" / "math_cot_100_qwen_rm_maj_responses.jsonl"


@pytest.mark.skipif(not QWEN.is_file(), reason="../shared/data is absent")
def test_real_rollouts_eight_per_prompt(tmp_path, capsys):
    """Qwen2.5-Math: 8 sampled responses per MATH problem (the first 20 problems), scored as GRPO groups."""
    records = [json.loads(line) for line in QWEN.read_text().splitlines()][:20]
    rows = [
        {"data_source": "HuggingFaceH4/MATH-500", "reward_model": {"ground_truth": r["gt"]},
         "extra_info": {"index": r["idx"]}, "responses": r["code"]}
        for r in records
    ]  # fmt: skip
    path = tmp_path / "qwen.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = tmp_path / "s.json"
    code = main(["score", str(path), "--response-key", "responses", "--summary-json", str(summary)])
    assert code == 0
    data = json.loads(summary.read_text())
    [math500, _] = data["groups"]
    assert math500["groups"] == 20 and math500["n"] == 8 and math500["samples"] == 160
    # pass@k never decreases with k, and pass@1 is the plain accuracy over the 160 rollouts
    ks = [math500[f"pass@{k}"] for k in range(1, 9)]
    assert ks == sorted(ks)
    [task] = [t for t in data["tasks"] if t["task"] == "HuggingFaceH4/MATH-500"]
    assert math500["pass@1"] == pytest.approx(task["accuracy"], abs=1e-6)


def test_a_chat_is_one_response_and_an_empty_list_none(tmp_path, capsys):
    chat = [{"role": "assistant", "content": "#### 4"}]  # one conversational response, not n responses
    rows = [row("openai/gsm8k", "4", chat, index=0), row("openai/gsm8k", "4", [], index=1)]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(path), "-o", str(out), "--max-failure-rate", "0.5"]) == 0
    scored = read_jsonl(out)
    assert len(scored) == 2 and "response_index" not in scored[0]
    assert scored[0]["status"] == "ok" and scored[0]["score"] == 1.0  # the assistant message, scored
    assert scored[1]["status"] == "invalid_input" and "is an empty list" in scored[1]["error"]

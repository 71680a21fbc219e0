"""Output never loses work: JSONL and Parquet round-trip any mix of scorers; a failed write saves the rows."""

import json

import pyarrow.parquet as pq
import pytest

from rewardloop._io import read_rows, write_rows
from rewardloop.cli.main import main

from ._util import EXAMPLES, SHARED, read_jsonl, row, run_cli, write_jsonl

TIMING = ("queue_s", "exec_s", "info")


def _untimed(rows):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in rows]


def _score_both(src, tmp_path, capsys, *extra):
    """Score ``src`` to JSONL and to Parquet (two runs); each output round-trips exactly through the other
    format, and the two runs agree on everything but timings (``info`` holds per-stage timings too)."""
    jl, pqt = tmp_path / "out.jsonl", tmp_path / "out.parquet"
    assert main(["score", str(src), "-o", str(jl), "--max-failure-rate", "1", *extra]) == 0
    assert main(["score", str(src), "-o", str(pqt), "--max-failure-rate", "1", *extra]) == 0
    capsys.readouterr()
    from_jsonl, from_parquet = read_rows(jl), read_rows(pqt)
    for rows, other in ((from_jsonl, tmp_path / "copy.parquet"), (from_parquet, tmp_path / "copy.jsonl")):
        write_rows(other, rows)
        assert read_rows(other) == rows, other.name
    assert _untimed(from_parquet) == _untimed(from_jsonl)
    return from_jsonl


def test_examples_round_trip_in_both_formats(tmp_path, capsys):
    rows = _score_both(EXAMPLES / "rollouts.jsonl", tmp_path, capsys)
    assert len({r["scorer"] for r in rows if r["scorer"]}) >= 6  # a real mix of scorers


def test_gsm8k_only_parquet_has_empty_metrics(tmp_path, capsys):
    # the issue: "Cannot write struct type 'metrics' with no child field" on GSM8K/MATH rows
    src = write_jsonl(
        tmp_path / "in.jsonl", [row("openai/gsm8k", "4", "#### 4"), row("openai/gsm8k", "4", "#### 5")]
    )
    rows = _score_both(src, tmp_path, capsys)
    assert [r["score"] for r in rows] == [1.0, 0.0] and rows[0]["metrics"] == {}


def test_mixed_struct_and_null_columns(tmp_path, capsys):
    # the issue: "cannot mix struct and non-struct" when reward_model/extra_info differ between rows
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            row("math_dapo", "5", "Answer: 5"),
            row("searchR1_nq", {"target": ["Paris"]}, "<answer>paris</answer>"),
            {**row("openai/gsm8k", "1", "#### 1"), "extra_info": None},
            {"data_source": "openai/gsm8k", "response": "#### 1"},
        ],
    )
    rows = _score_both(src, tmp_path, capsys)
    assert rows[0]["metrics"] == {"acc": True, "pred": "5"} and rows[3]["status"] == "invalid_input"
    assert "reward_model" not in rows[3]  # an absent key stays absent, not a null


@pytest.mark.parametrize(
    "values",
    [
        [1, 2.5, None],  # ints stay ints
        [{"a": 1}, {"b": [1, 2]}, {}],  # different keys, an empty dict
        [[1, "x"], [], None],  # mixed lists
        ["text", {"k": "v"}, 3],  # anything goes
        [True, False, None],
        [{"nested": {"deep": [{"x": 1}, {"y": None}]}}, None, {"nested": {}}],
    ],
)
def test_write_rows_round_trips_heterogeneous_columns(tmp_path, values):
    rows = [{"id": i, "col": v} for i, v in enumerate(values)] + [{"id": 99}]
    for name in ("t.parquet", "t.jsonl"):
        path = tmp_path / name
        assert write_rows(path, rows) == len(rows)
        assert read_rows(path) == rows, name


def test_homogeneous_columns_stay_native_parquet(tmp_path):
    path = tmp_path / "t.parquet"
    write_rows(
        path, [{"x": 1, "s": {"a": 1}, "metrics": {"acc": True}}, {"x": 2, "s": {"a": 2}, "metrics": {}}]
    )
    schema = pq.read_schema(path)
    assert str(schema.field("x").type) == "int64" and str(schema.field("s").type).startswith("struct")
    assert str(schema.field("metrics").type) == "string"  # metrics / info: always JSON text
    assert json.loads(schema.metadata[b"rewardloop.json_columns"]) == ["metrics"]


def test_failed_write_saves_the_rows_and_says_where(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", [row("openai/gsm8k", "4", "#### 4")] * 3)
    blocked = tmp_path / "out.parquet"
    blocked.mkdir()  # the output path is a directory: the write fails after scoring
    proc = run_cli("score", src, "-o", blocked)
    assert proc.returncode == 2
    fallback = tmp_path / "out.parquet.fallback.jsonl"
    assert f"saved to {str(fallback)!r}" in proc.stderr
    saved = read_jsonl(fallback)
    assert len(saved) == 3 and all(r["score"] == 1.0 for r in saved)
    assert "openai/gsm8k" in proc.stdout  # the summary is still printed


def test_failed_write_falls_back_to_the_temporary_directory(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", [row("openai/gsm8k", "4", "#### 4")])
    (tmp_path / "file").write_text("")
    target = tmp_path / "file" / "out.jsonl"  # its parent is a file: nothing can be written next to it
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    import os

    proc = run_cli("score", src, "-o", target, env={**os.environ, "TMPDIR": str(scratch)})
    assert proc.returncode == 2
    saved = scratch / "out.jsonl.fallback.jsonl"
    assert str(saved) in proc.stderr and read_jsonl(saved)[0]["score"] == 1.0


VERL_MATH = SHARED / "math" / "verl_format_math_lighteval_train_filtered.parquet"
GSM8K_SOLUTIONS = SHARED / "gsm8k" / "example_model_solutions.jsonl"


@pytest.mark.skipif(not VERL_MATH.is_file(), reason="../shared/data is absent")
def test_shared_verl_math_parquet_round_trips(tmp_path, capsys):
    """verl's own MATH parquet (nested prompt lists, structs), with a teacher solution as the response."""
    rows = pq.read_table(VERL_MATH).slice(0, 60).to_pylist()
    for r in rows:
        r["response"] = r["extra_info"]["teacher_cots"][0]
    src = tmp_path / "math.parquet"
    write_rows(src, rows)
    scored = _score_both(src, tmp_path, capsys)
    assert len(scored) == 60 and sum(r["status"] == "ok" for r in scored) == 60


@pytest.mark.skipif(not GSM8K_SOLUTIONS.is_file(), reason="../shared/data is absent")
def test_shared_gsm8k_solutions_round_trip(tmp_path, capsys):
    """GSM8K model solutions scored by gsm8k (flexible), mixed with math_equiv rows: two scorers in one file."""
    records = [json.loads(line) for line in GSM8K_SOLUTIONS.read_text().splitlines()][:30]
    rows = []
    for i, r in enumerate(records):
        truth = r["ground_truth"].rsplit("A:", 1)[-1].strip()
        rows.append(row("openai/gsm8k", truth, r["6b_finetuning"]["solution"], index=i))
        rows.append(row("my_math", truth, f"\\boxed{{{truth}}}", index=i))
    src = write_jsonl(tmp_path / "gsm.jsonl", rows)
    scored = _score_both(
        src,
        tmp_path,
        capsys,
        "--route",
        "openai/gsm8k=gsm8k:method=flexible",
        "--route",
        "my_math=math_equiv",
    )
    assert {r["scorer"] for r in scored} == {"gsm8k", "math_equiv"}

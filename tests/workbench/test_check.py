"""``check``: each defect of the reward-function checklist is caught, and a good dataset passes."""

from __future__ import annotations

import itertools
import json
import random
import time
from pathlib import Path

import pytest

from rewardloop.workbench import check_dataset, convert_rows, reference_responses


def rows_gsm8k(n=3):
    src = [
        {"question": f"What is {i} + {i}?", "answer": f"{i}+{i}=<<{i}+{i}={2 * i}>>{2 * i}\n#### {2 * i}"}
        for i in range(1, n + 1)
    ]
    return convert_rows("gsm8k", src)


def rows_mixed():
    return (
        rows_gsm8k(2)
        + convert_rows("math500", [{"problem": "1/2?", "answer": "\\frac{1}{2}"}])
        + convert_rows("aime", [{"problem": "Find n.", "answer": "73"}])
        + convert_rows("nq", [{"question": "who wrote hamlet", "answer": ["Shakespeare"]}])
    )


def check(data, **kwargs):
    kwargs.setdefault("max_rows", 4)
    return check_dataset(data, **kwargs)


def statuses(report):
    return {c.name: c.status for c in report.checks}


def test_good_dataset_passes_every_check():
    report = check(rows_mixed(), max_rows=10)
    assert report.ok, report.to_dict()
    assert statuses(report) == {
        "layout": "pass",
        "routing": "pass",
        "ground_truth": "pass",
        "reference": "pass",
        "penalties": "pass",
        "returns": "pass",
        "determinism": "pass",
        "speed": "pass",
        "extra_info": "pass",
    }
    assert report.scored_rows == 5
    assert report.data_sources["openai/gsm8k"] == 2


def test_unrouted_data_source():
    rows = rows_gsm8k(2)
    rows[1]["data_source"] = "my_new_task"
    report = check(rows)
    assert not report.ok
    routing = report.get("routing")
    assert routing.status == "fail" and "'my_new_task' (1 rows): no scorer" in routing.examples[0]
    assert "register_route" in routing.examples[-1]
    assert report.scored_rows == 1  # the routed row is still checked


@pytest.mark.parametrize(
    "move,where",
    [
        (lambda r: r.update(answer=r.pop("reward_model")["ground_truth"]), "'answer' in the top level"),
        (
            lambda r: r.update(reward_model={"style": "rule", "answer": r["reward_model"]["ground_truth"]}),
            "'answer' in reward_model",
        ),
        (
            lambda r: (r["extra_info"].update(ground_truth="2"), r.pop("reward_model")),
            "'ground_truth' in extra_info",
        ),
    ],
)
def test_ground_truth_in_the_wrong_field(move, where):
    rows = rows_gsm8k(1)
    move(rows[0])
    report = check(rows)
    layout = report.get("layout")
    assert layout.status == "fail"
    assert "row 0: no reward_model.ground_truth" in layout.examples[0] and where in layout.examples[0]
    assert "move it to reward_model.ground_truth" in layout.examples[0]


def test_ground_truth_the_scorer_rejects():
    rows = rows_gsm8k(2)
    rows[0]["reward_model"]["ground_truth"] = "forty-two"  # gsm8k needs a number
    report = check(rows)
    assert report.get("ground_truth").status == "fail"
    assert "row 0 (openai/gsm8k): invalid_input" in report.get("ground_truth").examples[0]


def test_reference_answer_not_scoring_correct():
    def never_right(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        return 0.0

    report = check(rows_gsm8k(2), custom_function=never_right)
    ref = report.get("reference")
    assert ref.status == "fail" and "on 2 of 2 rows" in ref.summary
    assert "tried" in ref.examples[0]


def test_reference_from_a_column():
    rows = rows_gsm8k(1)
    rows[0]["gold_response"] = "The answer is 2."

    def only_exact(data_source, solution_str, ground_truth, extra_info=None):
        return 1.0 if solution_str == "The answer is 2." else 0.0

    assert (
        check(rows, custom_function=only_exact, reference_key="gold_response").get("reference").status
        == "pass"
    )


def _gsm(solution_str, ground_truth):
    return 1.0 if solution_str.strip().endswith(f"#### {ground_truth}") else 0.0


def test_crash_on_empty_output():
    def crashes_on_empty(data_source, solution_str, ground_truth, extra_info=None):
        return _gsm(solution_str, ground_truth) + 0 * len(solution_str.split()[0])  # IndexError on ""

    report = check(rows_gsm8k(2), custom_function=crashes_on_empty)
    pen = report.get("penalties")
    assert pen.status == "fail"
    assert any("empty response -> scorer_error" in e and "IndexError" in e for e in pen.examples)
    assert report.get("returns").status == "fail"


def test_penalty_that_varies_between_rows():
    def unstable(data_source, solution_str, ground_truth, extra_info=None):
        if "####" in solution_str:
            return _gsm(solution_str, ground_truth)
        return -0.1 * (extra_info["index"] + 1)  # the same garbage is punished differently per row

    pen = check(rows_gsm8k(3), custom_function=unstable).get("penalties")
    assert pen.status == "fail"
    assert any(
        "openai/gsm8k: empty responses get -0.3, -0.2, -0.1 on different rows" in e for e in pen.examples
    )


def test_penalty_as_high_as_a_correct_answer():
    def rewards_empty(data_source, solution_str, ground_truth, extra_info=None):
        return 1.0 if not solution_str else _gsm(solution_str, ground_truth)

    pen = check(rows_gsm8k(1), custom_function=rewards_empty).get("penalties")
    assert pen.status == "fail" and "empty response gets 1, as much as the correct answer" in pen.examples[0]


def test_overlong_output_that_times_out():
    def quadratic(data_source, solution_str, ground_truth, extra_info=None):
        if len(solution_str) > 10_000:
            time.sleep(5)  # stands for a regex that blows up on long text
        return _gsm(solution_str, ground_truth)

    report = check(rows_gsm8k(1), custom_function=quadratic, timeout_s=0.3, repeats=1)
    assert "overlong response -> timeout" in report.get("penalties").examples[0]
    assert report.get("speed").status == "fail"


@pytest.mark.parametrize(
    "returned,message",
    [
        ("1.0", "returned str"),
        (None, "returned NoneType"),
        ({"acc": 1.0}, "dict without a 'score' key"),
        ({"score": "high"}, "'score' must be a number"),
    ],
)
def test_returns_non_number_or_dict_without_score(returned, message):
    def bad(data_source, solution_str, ground_truth, extra_info=None):
        return returned

    ret = check(rows_gsm8k(1), custom_function=bad).get("returns")
    assert ret.status == "fail" and message in ret.examples[0]


def test_dict_keys_that_change_between_calls():
    def shifting(data_source, solution_str, ground_truth, extra_info=None):
        score = _gsm(solution_str, ground_truth)
        return {"score": score, "acc": score} if score else {"score": 0.0}

    ret = check(rows_gsm8k(1), custom_function=shifting).get("returns")
    assert ret.status == "fail" and "different shapes" in ret.summary


def test_nondeterminism():
    rng = random.Random(0)

    def noisy(data_source, solution_str, ground_truth, extra_info=None):
        return _gsm(solution_str, ground_truth) + rng.random() * 0.01

    det = check(rows_gsm8k(1), custom_function=noisy, repeats=3).get("determinism")
    assert det.status == "fail" and "across 3 runs" in det.summary


def test_too_slow_per_sample():
    def slow(data_source, solution_str, ground_truth, extra_info=None):
        time.sleep(0.05)
        return _gsm(solution_str, ground_truth)

    speed = check(rows_gsm8k(1), custom_function=slow, time_budget_s=0.01, repeats=1).get("speed")
    assert speed.status == "fail" and "over the 0.01 s budget" in speed.examples[0]


def test_good_custom_function_passes(tmp_path):
    path = tmp_path / "reward.py"
    path.write_text(
        "def compute_score(data_source, solution_str, ground_truth, extra_info=None, bonus=0.0):\n"
        "    ok = solution_str.strip().endswith('#### ' + str(ground_truth))\n"
        "    return {'score': 1.0 + bonus if ok else 0.0, 'acc': ok}\n"
    )
    report = check(rows_gsm8k(2), custom_function=f"{path}:compute_score", reward_kwargs={"bonus": 0.0})
    assert report.ok, report.to_dict()
    assert report.get("routing").status == "skip"
    assert report.get("returns").summary == "returns dict[acc,score]"


def test_missing_extra_info_is_a_warning():
    rows = rows_gsm8k(1)
    del rows[0]["extra_info"]
    report = check(rows)
    assert report.get("extra_info").status == "warn" and report.ok


def test_rollouts_column():
    rows = rows_gsm8k(2)
    rows[0]["response"], rows[1]["response"] = "#### 2", "#### 5"
    report = check(rows, response_key="response")
    assert report.get("rollouts").status == "pass"
    report = check(rows_gsm8k(1), response_key="response")
    assert report.get("rollouts").status == "fail"


def test_max_rows_covers_every_data_source():
    rows = rows_gsm8k(6) + convert_rows("math500", [{"problem": "p", "answer": "3"}])
    report = check(rows, max_rows=2)
    assert report.scored_rows == 2
    assert "HuggingFaceH4/MATH-500" in report.get("routing").summary


def test_empty_dataset_fails():
    assert check([]).get("layout").status == "fail"


def test_reference_responses_formats():
    refs = reference_responses({"target": ["Paris", "paris"]})
    assert "<think>Working it out.</think> <answer>Paris</answer>" in refs
    assert reference_responses("{json}") == []
    code = reference_responses('{"test": "x"}', {"reference_solution": "def f(): pass"})
    assert code == ["```python\ndef f(): pass\n```"]


def test_report_to_dict_is_json():
    data = check(rows_gsm8k(1)).to_dict()
    assert json.loads(json.dumps(data))["ok"] is True
    assert [c["name"] for c in data["checks"]][:2] == ["layout", "routing"]


def test_penalty_kinds_are_distinct_probes():
    from rewardloop.workbench._check import _penalty_probes

    probes = _penalty_probes(1000)
    assert set(probes) == {"empty", "garbage", "overlong", "unparsable"}
    assert len(probes["overlong"]) >= 950 and probes["empty"] == ""
    assert len(set(itertools.chain(probes.values()))) == 4


def test_public_names_resolve_and_imports_stay_cheap():
    import subprocess
    import sys

    import rewardloop.workbench as wb

    assert len(set(wb.__all__)) == len(wb.__all__)  # order: ruff's isort-style RUF022
    for name in wb.__all__:
        assert getattr(wb, name) is not None
    code = (
        "import sys, json, rewardloop.workbench, rewardloop.integrations.trl, rewardloop.integrations.openrlhf, "
        "rewardloop.cli.main; heavy = ['torch', 'ray', 'fastapi', 'transformers', 'trl', 'pyarrow', 'sympy']; "
        "print(json.dumps([m for m in heavy if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_async_custom_function():
    async def compute_score(data_source, solution_str, ground_truth, extra_info=None):
        return {"score": _gsm(solution_str, ground_truth)}

    report = check(rows_gsm8k(2), custom_function=compute_score)
    assert report.ok, report.to_dict()
    assert report.get("returns").summary == "returns dict[score]"


SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


@pytest.mark.parametrize(
    "dataset,rel",
    [
        ("gsm8k", "gsm8k/test.jsonl"),
        ("math500", "math/math500_test.jsonl"),
        ("aime", "matharena/aime_2025_I.jsonl"),
        ("nq", "flashrag_nq_sample/nq_test_sample.jsonl"),
    ],
)
def test_prepared_shared_data_passes(dataset, rel):
    from rewardloop.workbench import read_table

    path = SHARED / rel
    if not path.is_file():
        pytest.skip(f"{rel} is not in ../shared/data")
    rows = convert_rows(dataset, read_table(path)[:8])
    report = check(rows, max_rows=8)
    assert report.ok, report.to_dict()
    assert report.get("reference").status == "pass"

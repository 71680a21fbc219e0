"""explain(): the decomposed verdict, in the library and through `rewardloop explain`."""

import json

import pytest

from rewardloop.cli.main import main
from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.tools import explain, explanation_from_score
from rewardloop.types import Sample, Score


def test_inline_verdict_shows_every_part():
    exp = explain(Sample(response="so $\\boxed{\\dfrac{1}{2}}$.", ground_truth="0.5"), "math_equiv")
    assert exp.value == 1.0 and exp.status == "ok"
    assert exp.stage == "structured" and exp.decided_inline is True
    assert exp.extracted == ["\\dfrac{1}{2}"]
    assert exp.gold_normalized == ["0.5"] and exp.pred_normalized == ["\\frac{1}{2}"]
    assert {"extract", "normalize", "structured"} <= set(exp.timings_ms)
    text = exp.to_text()
    assert "structured" in text and "\\\\frac{1}{2}" in text and "inline" in text
    assert json.loads(json.dumps(exp.to_dict()))["stage"] == "structured"


@pytest.mark.slow
def test_symbolic_verdict_runs_in_a_worker_under_a_deadline():
    exp = explain(Sample(response="\\boxed{(x+1)^2}", ground_truth="x^2+2x+1"), MathEquivScorer())
    assert exp.value == 1.0 and exp.stage == "symbolic" and exp.decided_inline is False
    assert "symbolic" in exp.timings_ms


def test_explanation_of_other_scorers_and_failures():
    sample = Sample(response="\\boxed{5}", ground_truth="5")
    exp = explain(sample, "hendrycks_math")
    assert exp.scorer == "hendrycks_math" and exp.value == 1.0
    failed = explanation_from_score(sample, Score.failure("timeout", "too slow"), "x")
    assert failed.value is None and "too slow" in failed.to_text()


def test_cli_explain_text_and_json(capsys):
    assert main(["explain", "--response", "A: 1,000", "--ground-truth", "1000"]) == 0
    out = capsys.readouterr().out
    assert "normalized" in out and "'1,000'" in out
    assert main(["explain", "--response", "\\boxed{2} \\boxed{3}", "--ground-truth", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == 0.0 and data["stage"] == "multiple_answers"


def test_cli_explain_scorer_options(capsys):
    args = ["explain", "--response", "\\boxed{3} no: \\boxed{2}", "--ground-truth", "2", "--json"]
    assert main([*args, "--scorer", "math_equiv:multiple_answers=last"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 1.0
    assert main([*args, "--scorer", "math_equiv:multiple_answers=sometimes"]) == 2
    assert "multiple_answers" in capsys.readouterr().err


def test_cli_explain_rows(rollouts, capsys):
    assert main(["explain", "--file", str(rollouts), "--index", "2", "--scorer", "math_equiv", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 0.0
    row = json.dumps(
        {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "7"}, "response": "#### 7"}
    )
    assert main(["explain", "--row", row]) == 0  # the data_source's routed scorer
    assert "gsm8k" in capsys.readouterr().out
    assert main(["explain", "--file", str(rollouts), "--index", "99"]) == 2
    assert "out of range" in capsys.readouterr().err
    assert main(["explain", "--response", "x"]) == 2
    assert "--ground-truth" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("sample", "rule"),
    [
        (Sample(response="\\boxed{5} is wrong.", ground_truth="5"), "denied"),
        (Sample(response="\\boxed{3}\\boxed{4}", ground_truth="4"), "hedge"),
        (
            Sample(response="\\boxed{5} <think> Actually no: \\boxed{7}", ground_truth="7"),
            "reopened_thinking",
        ),
        (Sample(response="5 + 3 = 8. Therefore, Tom has 8 apples.", ground_truth="8"), "prose_conclusion"),
        (
            Sample(response="The answer is 6.", ground_truth="B", prompt="Pick.\nA. 5\nB. 6\n"),
            "option_content",
        ),
        (Sample(response="no idea", ground_truth="5"), "no_answer"),
        (Sample(response="\\boxed{5}", ground_truth="5"), "exact"),
    ],
)
def test_explain_names_the_rule_that_decided(sample, rule):
    exp = explain(sample, "math_equiv")
    assert exp.info["rule"] == rule
    assert f"rule           {rule}" in exp.to_text()

"""audit(): a scorer against labels or another scorer, in the library and through `rewardloop audit`."""

import json

import pytest

from rewardloop.cli.main import main
from rewardloop.errors import ConfigError
from rewardloop.scorers._registry import get_scorer
from rewardloop.tools import audit, label_value, verdict_of
from rewardloop.types import Sample, Score

from .conftest import ROWS


def _samples():
    return [Sample(response=r["response"], ground_truth=r["reward_model"]["ground_truth"]) for r in ROWS]


def test_audit_against_labels_is_perfect_for_math_equiv():
    report = audit(_samples(), get_scorer("math_equiv"), labels=[r["label"] for r in ROWS])
    assert report.confusion == {"tp": 4, "fp": 0, "tn": 4, "fn": 0}
    assert report.agreement == 1.0 and report.fpr == 0.0 and report.fnr == 0.0
    assert report.disagreements == []
    assert report.stages_a["multiple_answers"] == 1


def test_audit_against_another_scorer_lists_disagreements():
    report = audit(_samples(), get_scorer("hendrycks_math"), scorer_b=get_scorer("math_equiv"), top=5)
    # hendrycks_math misses 1,000 and \text{13}, and takes the last of two boxes
    assert report.confusion == {"tp": 2, "fp": 1, "tn": 3, "fn": 2}
    assert report.fpr == 0.25 and report.fnr == 0.5
    kinds = [d.kind for d in report.disagreements]
    assert kinds[0] == "false_positive" and kinds.count("false_negative") == 2
    fp = report.disagreements[0]
    assert fp.index == 4 and fp.b.stage == "multiple_answers"
    data = json.loads(report.to_json())
    assert data["confusion"] == report.confusion and len(data["disagreements"]) == 3
    page = report.to_html()
    assert page.startswith("<!DOCTYPE html>") and "Confusion matrix" in page
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")


def test_failures_are_not_wrong_answers():
    samples = _samples()[:2]
    scores = [Score.failure("timeout", "slow"), Score(value=1.0)]
    report = audit(samples, get_scorer("math_equiv"), labels=[True, None], scores_a=scores)
    assert report.failed_a == {"timeout": 1} and report.missing_labels == 1
    assert report.compared == 0 and report.agreement is None


def test_verdicts_and_labels():
    assert verdict_of(Score(value=-1.0)) is False and verdict_of(Score(value=1.0)) is True
    assert verdict_of(Score.failure("parse_error", "x")) is None
    assert [label_value(v) for v in (True, 0, 1.0, "yes", "false", "maybe", None)] == [
        True, False, True, True, False, None, None,
    ]  # fmt: skip


def test_needs_exactly_one_reference():
    with pytest.raises(ConfigError):
        audit(_samples(), get_scorer("math_equiv"))
    with pytest.raises(ConfigError):
        audit(_samples(), get_scorer("math_equiv"), labels=[True])


def test_cli_audit_labels_json_and_html(rollouts, tmp_path, capsys):
    out, page = tmp_path / "audit.json", tmp_path / "audit.html"
    args = ["audit", str(rollouts), "--scorer", "math_equiv", "--labels", "label", "-o", str(out)]
    assert main([*args, "--html", str(page)]) == 0
    assert "agreement            100.00%" in capsys.readouterr().out
    assert json.loads(out.read_text())["confusion"]["fp"] == 0
    assert "<table>" in page.read_text()


def test_cli_audit_two_scorers(rollouts, capsys):
    args = ["audit", str(rollouts), "--scorer", "hendrycks_math", "--scorer", "math_equiv", "--top", "2"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "false positive" in out and "reference:" in out and "false-negative rate  50.00%" in out


def test_cli_audit_usage_errors(rollouts, capsys):
    assert main(["audit", str(rollouts), "--scorer", "math_equiv"]) == 2
    assert "exactly one reference" in capsys.readouterr().err
    assert main(["audit", str(rollouts), "--scorer", "no_such_scorer", "--labels", "label"]) == 2


def test_partial_credit_is_a_wrong_verdict():
    # one definition of accuracy with score and report: a 0.1 format score is not a correct answer
    assert verdict_of(Score(value=0.1)) is False and verdict_of(Score(value=0.25)) is False
    assert verdict_of(Score(value=0.9, info={"acc": True})) is True


def test_cli_audit_labels_column_that_does_not_exist(rollouts, capsys):
    # the README's own example compared 0 rows and exited 0
    assert main(["audit", str(rollouts), "--scorer", "math_equiv", "--labels", "extra_info.nope"]) == 2
    err = capsys.readouterr().err
    assert "nothing was compared" in err and "extra_info.level" in err


def test_cli_audit_labels_typo_gets_a_suggestion(rollouts, capsys):
    assert main(["audit", str(rollouts), "--scorer", "math_equiv", "--labels", "lable"]) == 2
    assert "did you mean 'label'?" in capsys.readouterr().err


def test_cli_audit_that_compares_nothing_exits_1(rollouts, capsys):
    # the code scorer cannot parse math ground truths: every sample of A fails, nothing is compared
    assert main(["audit", str(rollouts), "--scorer", "code", "--labels", "label", "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "compared 0 samples" in captured.err and "parse_error" in captured.out

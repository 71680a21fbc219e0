"""verl's custom reward function semantics: loading, kwargs merging, async, errors."""

import asyncio
import inspect
import sys
import textwrap
import types

import pytest

from rewardloop import Sample, Status
from rewardloop.errors import CustomFunctionError, InvalidSampleError
from rewardloop.integrations.verl import (
    CustomFunctionScorer,
    get_custom_reward_fn,
    load_custom_function,
    sample_from_row,
)

SOURCE = textwrap.dedent(
    """
    def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        return {"score": float(solution_str == ground_truth), "scale": kwargs.get("scale"),
                "source": data_source}

    def plain(data_source, solution_str, ground_truth, extra_info):
        return len(solution_str)

    async def async_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        return 2.0

    def mutating(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        extra_info["touched"] = True
        return 1.0

    def no_score_key(data_source, solution_str, ground_truth, extra_info=None):
        return {"acc": 1}

    def wrong_sig(text, answer):
        return 1.0

    def batch_fn(data_sources, solution_strs, ground_truths, extra_infos, **kwargs):
        return [1.0] * len(solution_strs)

    NOT_CALLABLE = 3
    """
)


@pytest.fixture
def module_file(tmp_path):
    path = tmp_path / "my_reward.py"
    path.write_text(SOURCE)
    return str(path)


def test_load_by_file_path_and_default_name(module_file):
    fn = load_custom_function(module_file)
    assert fn(data_source="d", solution_str="1", ground_truth="1", extra_info={})["score"] == 1.0


def test_file_url_prefix(module_file):
    fn = load_custom_function("file://" + module_file, "plain")
    assert fn(data_source="d", solution_str="abc", ground_truth="x", extra_info=None) == 3


def test_pkg_path(tmp_path, monkeypatch):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "rewards.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    for path in ("pkg://mypkg.rewards", "pkg://mypkg/rewards"):
        assert (
            load_custom_function(path, "plain")(
                data_source="d", solution_str="ab", ground_truth="", extra_info=None
            )
            == 2
        )
    sys.modules.pop("mypkg.rewards", None)
    sys.modules.pop("mypkg", None)


def test_reward_kwargs_win_over_call_kwargs(module_file):
    fn = load_custom_function(module_file, "compute_score", {"scale": 2, "data_source": "from_config"})
    out = fn(data_source="from_call", solution_str="a", ground_truth="a", extra_info=None, scale=1)
    assert out["scale"] == 2 and out["source"] == "from_config"


def test_async_functions_stay_async(module_file):
    fn = load_custom_function(module_file, "async_score")
    assert inspect.iscoroutinefunction(fn)
    assert asyncio.run(fn(data_source="d", solution_str="", ground_truth="", extra_info=None)) == 2.0
    scorer = CustomFunctionScorer(fn)
    assert scorer.score(Sample("x")).value == 2.0
    assert asyncio.run(scorer.ascore(Sample("x"))).value == 2.0


def test_missing_file(tmp_path):
    with pytest.raises(CustomFunctionError, match="Custom module file not found"):
        load_custom_function(str(tmp_path / "nope.py"))


def test_missing_name_lists_callables(module_file):
    with pytest.raises(CustomFunctionError, match=r"object_name='nope'.*compute_score"):
        load_custom_function(module_file, "nope")


def test_not_callable(module_file):
    with pytest.raises(CustomFunctionError, match="not a function"):
        load_custom_function(module_file, "NOT_CALLABLE")


def test_wrong_signature_names_expected_parameters(module_file):
    with pytest.raises(CustomFunctionError, match="data_source, solution_str, ground_truth, extra_info"):
        load_custom_function(module_file, "wrong_sig")


def test_reward_kwargs_not_accepted(module_file):
    with pytest.raises(CustomFunctionError, match="reward_kwargs"):
        load_custom_function(module_file, "plain", {"scale": 1})


def test_batch_signature(module_file):
    assert load_custom_function(module_file, "batch_fn", batch=True)(
        data_sources=["a"], solution_strs=["x"], ground_truths=["y"], extra_infos=[None]
    ) == [1.0]
    with pytest.raises(CustomFunctionError, match="data_sources"):
        load_custom_function(module_file, "plain", batch=True)


def test_module_exec_error_is_wrapped(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(CustomFunctionError, match=r"Error loading module.*boom"):
        load_custom_function(str(bad))


def test_get_custom_reward_fn_reads_both_config_layouts(module_file):
    new = {"reward": {"custom_reward_function": {"path": module_file, "name": "plain"}}}
    old = types.SimpleNamespace(
        custom_reward_function={"path": module_file, "name": "plain", "reward_kwargs": {}}
    )
    for cfg in (new, old):
        fn = get_custom_reward_fn(cfg)
        assert fn(data_source="d", solution_str="abcd", ground_truth="", extra_info=None) == 4
    assert get_custom_reward_fn({"reward": {"custom_reward_function": {"path": None}}}) is None


def test_scorer_gives_function_its_own_extra_info(module_file):
    scorer = CustomFunctionScorer(load_custom_function(module_file, "mutating"))
    sample = Sample("x", metadata={"index": 0})
    assert scorer.score(sample).value == 1.0
    assert "touched" not in sample.metadata


def test_dict_without_score_is_a_scorer_error(module_file):
    score = CustomFunctionScorer(load_custom_function(module_file, "no_score_key")).score(Sample("x"))
    assert score.status is Status.SCORER_ERROR and "'score'" in score.info["error"]


def test_dict_result_keeps_extra_keys_as_metrics(module_file):
    score = CustomFunctionScorer(load_custom_function(module_file)).score(
        Sample("a", ground_truth="a", task="t")
    )
    assert score.value == 1.0 and score.metrics == {"scale": None, "source": "t"}


@pytest.mark.parametrize(
    "row,match",
    [
        ({"data_source": "d", "reward_model": {"ground_truth": "1"}}, "no 'response' field"),
        ({"response": 3, "data_source": "d", "reward_model": {"ground_truth": "1"}}, "must be a string"),
        ({"response": "r", "reward_model": {"ground_truth": "1"}}, "'data_source' must be"),
        ({"response": "r", "data_source": "d"}, "reward_model"),
        ({"response": "r", "data_source": "d", "reward_model": {"style": "rule"}}, "ground_truth"),
        (
            {"response": "r", "data_source": "d", "reward_model": {"ground_truth": "1"}, "extra_info": 5},
            "extra_info",
        ),
    ],
)
def test_sample_from_row_errors(row, match):
    with pytest.raises(InvalidSampleError, match=match):
        sample_from_row(row)


def test_sample_from_row_parses_stringified_dicts_without_eval():
    row = {
        "response": "r",
        "data_source": "d",
        "reward_model": "{'ground_truth': '0', 'style': 'rule'}",
        "extra_info": '{"index": 3}',
    }
    sample = sample_from_row(row)
    assert sample.ground_truth == "0" and sample.metadata == {"index": 3}
    evil = dict(row, reward_model="__import__('os').system('true')")
    with pytest.raises(InvalidSampleError, match="not a JSON/Python dict literal"):
        sample_from_row(evil)

"""Every recorded open-r1 reward call (62) run through the shaping library: agreement or a documented difference.

Skips when ``../shared/data`` is absent. Each entry of ``DIFFERENCES`` is listed in ``docs/shaping.md``.
"""

from __future__ import annotations

import importlib.util

import pytest

from ._open_r1 import CASES_FILE, case_id, failed_assertions, load, rewards_for

pytestmark = pytest.mark.skipif(not CASES_FILE.exists(), reason="../shared/data is not present")

#: case id -> why we differ (docs/shaping.md, "Differences from open-r1")
DIFFERENCES = {
    "TestRewards.test_unparseable_solution:270:\\boxed{answer}": (
        "correctness comes from rewardloop's math-verify scorer, which parses the gold 'unparseable_latex' "
        "(as \\boxed{...}) and judges '\\boxed{answer}' wrong; open-r1 treats a gold it cannot parse as correct"
    ),
}
NEEDS_JIEBA = {"TestRepetitionPenaltyReward.test_full_repetition_with_language:450:这个这个这个这个这个"}
HAVE_JIEBA = importlib.util.find_spec("jieba") is not None


def _cases() -> list:
    return load()["cases"] if CASES_FILE.exists() else []


def test_the_file_holds_62_calls() -> None:
    assert len(_cases()) == 62


@pytest.mark.parametrize("case", _cases(), ids=case_id)
def test_case_agrees_or_differs_as_documented(case: dict) -> None:
    cid = case_id(case)
    if cid in NEEDS_JIEBA and not HAVE_JIEBA:
        pytest.skip("language='zh' needs jieba (pip install jieba)")
    failed = failed_assertions(case, rewards_for(case))
    if cid in DIFFERENCES:
        assert failed, f"documented difference no longer differs: {cid}"
    else:
        assert not failed, failed


def test_agreement_count() -> None:
    """The number reported in docs/shaping.md: 60 of 62 here, 61 with jieba installed."""
    agree = 0
    for case in _cases():
        if case_id(case) in NEEDS_JIEBA and not HAVE_JIEBA:
            continue
        agree += not failed_assertions(case, rewards_for(case))
    assert agree == (61 if HAVE_JIEBA else 60)


def test_factory_errors_are_config_errors_with_open_r1s_message() -> None:
    from rewardloop.errors import ConfigError
    from rewardloop.shaping import RepetitionPenalty

    for case in load()["factory_error_cases"]:
        with pytest.raises(ValueError, match=case["expected_message_regex"]) as err:
            RepetitionPenalty(
                ngram_size=case["factory_params"]["ngram_size"],
                max_penalty=case["factory_params"]["max_penalty"],
            )
        assert isinstance(err.value, ConfigError)


def test_the_unparseable_gold_difference_is_the_correctness_source() -> None:
    """Pins the one difference: with open-r1's "unparseable gold = correct", our shaper gives open-r1's 0.5."""
    from rewardloop import Score
    from rewardloop.shaping import GroupLengthShaper

    texts = ["\\boxed{answer}", "\\boxed{answer} xxxxxxxxxx"]
    as_open_r1 = GroupLengthShaper(combine="replace").apply([Score(1.0), Score(1.0)], [len(t) for t in texts])
    assert [s.value for s in as_open_r1] == [0.5, -0.5]

"""The shaping library inside a real RewardManager: registered names, a Composite with a group term,
and shapers after it."""

from __future__ import annotations

import pytest

from rewardloop import RewardManager, Sample, get_scorer
from rewardloop.managers import Composite
from rewardloop.managers._composite import composite_from_config
from rewardloop.shaping import (
    CosineLengthShaper,
    FormatReward,
    GroupLengthReward,
    OverlongPenalty,
    RepetitionPenalty,
)

THINK = "<think>\nadd them\n</think>\n<answer>\n\\boxed{4}\n</answer>"


def _group(uid: str, responses: list[str], truth: str) -> list[Sample]:
    return [Sample(r, truth, task="math_dapo", uid=uid) for r in responses]


SAMPLES = _group("a", ["\\boxed{4}", "so it is \\boxed{4} indeed", "\\boxed{5}", THINK], "4") + _group(
    "b", ["\\boxed{9}", "\\boxed{9}"], "9"
)


def test_registered_names_build_the_library_scorers() -> None:
    assert isinstance(get_scorer("format"), FormatReward)
    rep = get_scorer("repetition_penalty", ngram_size=2, max_penalty=-0.5)
    assert isinstance(rep, RepetitionPenalty) and (rep.ngram_size, rep.max_penalty) == (2, -0.5)
    assert isinstance(get_scorer("group_length", base="math_dapo"), GroupLengthReward)


def test_composite_with_format_and_group_length_terms_through_the_runner() -> None:
    composite = composite_from_config(
        [
            {"scorer": "math_dapo", "name": "acc"},
            {"scorer": "format", "weight": 0.5},
            {"scorer": "group_length", "options": {"base": "math_dapo"}, "weight": 0.1, "name": "len"},
        ]
    )
    with RewardManager(composite) as manager:
        batch = manager.score(SAMPLES)
    assert batch.metrics["acc"] == (1.0, 1.0, -1.0, 1.0, 1.0, 1.0)
    assert batch.metrics["format"] == (0.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    # group "a": lam = 0.5 - (L - min) / (max - min) over character lengths; the wrong one gets min(0, lam)
    lengths = [len(s.response) for s in SAMPLES[:4]]
    lam = [0.5 - (n - min(lengths)) / (max(lengths) - min(lengths)) for n in lengths]
    expected_len = [lam[0], lam[1], min(0.0, lam[2]), lam[3], 0.0, 0.0]  # group "b": equal lengths -> 0
    assert list(batch.metrics["len"]) == pytest.approx(expected_len)
    totals = [
        a + 0.5 * f + 0.1 * n
        for a, f, n in zip(batch.metrics["acc"], batch.metrics["format"], expected_len, strict=True)
    ]
    assert list(batch.values) == pytest.approx(totals)


def test_shapers_follow_the_composite_in_the_manager() -> None:
    composite = Composite([("acc", get_scorer("math_dapo"), 1.0)])
    shapers = [CosineLengthShaper(max_len=100, correct_at=1.0), OverlongPenalty(100, 20, clip=True)]
    with RewardManager(composite, shapers=shapers) as manager:
        batch = manager.score(SAMPLES[:3], lengths=[0, 100, 90])
    # cosine: correct at 0 -> 1.0, correct at 100 -> 0.5, wrong at 90 -> near -0.5; then the overlong term
    assert batch.values[0] == pytest.approx(1.0)
    assert batch.values[1] == pytest.approx(0.5 - 1.0)
    assert batch.values[2] == pytest.approx(cosine_wrong_90() - 0.5)
    assert batch.metrics["cosine_base"] == (1.0, 1.0, -1.0)


def cosine_wrong_90() -> float:
    from rewardloop.shaping import cosine_length_reward

    return cosine_length_reward(90, False, max_len=100)

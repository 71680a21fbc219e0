"""Golden tables for the shaping library, and the pinned differences from open-r1 (docs/shaping.md)."""

from __future__ import annotations

import pytest

from rewardloop import Sample, Score, Status
from rewardloop.errors import ConfigError, MissingExtraError
from rewardloop.shaping import (
    CodeFormatReward,
    CosineLengthShaper,
    FormatReward,
    GroupLengthShaper,
    OverlongPenalty,
    ReasoningStepsReward,
    RepetitionPenalty,
    Shaper,
    TagCountReward,
    cosine_length_reward,
    group_length_rewards,
    ngram_repetition,
)

GOOD = "<think>\nreason\n</think>\n<answer>\n42\n</answer>"

FORMAT = [
    (GOOD, 1.0),
    ("<think>\n\n</think>\n<answer>\n\n</answer>", 1.0),  # empty bodies are allowed, as in open-r1
    ("<think>\n</think>\n<answer>\n42\n</answer>", 0.0),  # the think body's newlines are not shared
    ("<think>\nr\n</think>\n<answer>\n42</answer>", 0.0),
    (" " + GOOD, 0.0),
    (GOOD + "\n", 1.0),  # trailing whitespace is not text after the answer
    ("<think>\na\n</think>\n<answer>\nb\n</answer>\n<think>\nc\n</think>\n<answer>\nd\n</answer>", 1.0),
    ("", 0.0),
]


@pytest.mark.parametrize("text,expected", FORMAT)
def test_format_reward(text: str, expected: float) -> None:
    score = FormatReward().score(Sample(text))
    assert (score.value, score.metrics) == (expected, {})


def test_format_difference_trailing_text_after_the_answer() -> None:
    """Difference 1: open-r1's ``$`` under re.MULTILINE accepts lines after ``</answer>``; strict does not."""
    text = GOOD + "\nAlso, the answer might be 41."
    assert FormatReward().score(Sample(text)).value == 0.0
    assert FormatReward(end="line").score(Sample(text)).value == 1.0
    assert FormatReward(end="line").score(Sample(GOOD + "x")).value == 0.0  # "$" needs a newline or the end


CODE = [
    ("<think>\nt\n</think>\n<answer>\n```python\nx = 1\n```\n</answer>", "python", 1.0),
    ("<think>\nt\n</think>\n<answer>\n```python\nx = 1\n</answer>", "python", 0.0),  # fence never closed
    ("<think>\n```python\nx\n```\n</think>\n<answer>\nplain\n</answer>", "python", 0.0),  # code only in think
    ("<think>\nt\n</think>\n<answer>\n```rust\nfn f() {}\n```\n</answer>", "rust", 1.0),
]


@pytest.mark.parametrize("text,language,expected", CODE)
def test_code_format_reward(text: str, language: str, expected: float) -> None:
    assert CodeFormatReward(language).score(Sample(text)).value == expected


TAGS = [
    (GOOD, 1.0),
    ("<think>\nx\n</think>\n", 0.5),
    (GOOD + GOOD, 0.0),  # every tag twice
    ("<think>\n<think>\nx\n</think>\n<answer>\ny\n</answer>", 0.75),
]


@pytest.mark.parametrize("text,expected", TAGS)
def test_tag_count_reward(text: str, expected: float) -> None:
    assert TagCountReward().score(Sample(text)).value == expected


STEPS = [
    ("Step 1: a\nStep 2: b", 2 / 3),
    ("First, a. Next, b. Finally, c. Second, d.", 1.0),
    ("\n- a\n* b", 2 / 3),
    ("- a\n", 0.0),  # a bullet counts only after a newline
    ("no steps", 0.0),
]


@pytest.mark.parametrize("text,expected", STEPS)
def test_reasoning_steps_reward(text: str, expected: float) -> None:
    assert ReasoningStepsReward().score(Sample(text)).value == pytest.approx(expected)


def test_reasoning_steps_difference_numbered_lines_count_on_every_line() -> None:
    """Difference 2: open-r1 compiles ``^\\d+\\.`` without re.MULTILINE, so only a first-line "1." counts."""
    text = "We compute:\n1. add\n2. multiply\n3. check"
    assert ReasoningStepsReward().score(Sample(text)).value == 1.0  # open-r1: 0.0


REPETITION = [
    ("a b c d", 2, -1.0, 0.0),
    ("a a a a", 2, -1.0, -2 / 3),
    ("A a A a", 1, -0.5, -0.375),  # lower-cased: 1 unique of 4 -> 0.75 * -0.5
    ("x", 2, -1.0, 0.0),
]


@pytest.mark.parametrize("text,n,max_penalty,expected", REPETITION)
def test_repetition_penalty(text: str, n: int, max_penalty: float, expected: float) -> None:
    score = RepetitionPenalty(n, max_penalty).score(Sample(text))
    assert score.value == pytest.approx(expected)
    assert score.metrics["repetition_ratio"] == pytest.approx(ngram_repetition(text.lower().split(), n))


def test_repetition_penalty_config_errors() -> None:
    with pytest.raises(ConfigError, match="should not be positive"):
        RepetitionPenalty(max_penalty=0.5)
    with pytest.raises(ConfigError, match="'en' or 'zh'"):
        RepetitionPenalty(language="fr")  # type: ignore[arg-type]


def test_zh_without_jieba_names_the_package() -> None:
    import importlib.util

    if importlib.util.find_spec("jieba") is not None:
        pytest.skip("jieba is installed")
    with pytest.raises(MissingExtraError, match="pip install jieba"):
        RepetitionPenalty(2, -1.0, "zh").score(Sample("这个这个"))


COSINE = [  # (length, correct, expected) with max_len 100 and open-r1's default values
    (0, True, 1.0),
    (50, True, 0.75),
    (100, True, 0.5),
    (0, False, -1.0),
    (100, False, -0.5),
    (150, True, 0.75),  # not clipped: past max_len the cosine turns back (open-r1)
]


@pytest.mark.parametrize("length,correct,expected", COSINE)
def test_cosine_length_reward(length: int, correct: bool, expected: float) -> None:
    assert cosine_length_reward(length, correct, max_len=100) == pytest.approx(expected)


def test_cosine_clip_holds_the_end_value() -> None:
    assert cosine_length_reward(150, True, max_len=100, clip=True) == pytest.approx(0.5)


def test_cosine_shaper_replaces_ok_rewards_and_keeps_failures() -> None:
    shaper = CosineLengthShaper(max_len=100)
    failed = Score.failure(Status.TIMEOUT, "slow")
    out = shaper.apply([Score(1.0), Score(0.0), failed, Score(1.0)], [50, 100, 10, None])
    assert [s.value for s in out[:3]] == [pytest.approx(0.75), pytest.approx(-0.5), None]
    assert out[2].status is Status.TIMEOUT
    assert out[3].value == 1.0 and "cosine" in out[3].info
    assert [s.metrics["cosine_base"] for s in out] == [1.0, 0.0, None, None]
    assert isinstance(shaper, Shaper)


GROUP = [
    ([10, 20, 30], [True, True, True], [0.5, 0.0, -0.5]),
    ([10, 20, 30], [False, False, False], [0.0, 0.0, -0.5]),
    ([7, 7], [True, False], [0.0, 0.0]),
    ([], [], []),
]


@pytest.mark.parametrize("lengths,correct,expected", GROUP)
def test_group_length_rewards(lengths: list, correct: list, expected: list) -> None:
    assert group_length_rewards(lengths, correct) == pytest.approx(expected)


def test_group_length_shaper_groups_by_size_and_by_key() -> None:
    scores = [Score(1.0), Score(1.0), Score(0.0), Score(0.0)]
    lengths = [10, 30, 10, 30]
    by_size = GroupLengthShaper(group_size=2, weight=0.5).apply(scores, lengths)
    assert [s.value for s in by_size] == pytest.approx([1.25, 0.75, 0.0, -0.25])
    by_key = GroupLengthShaper(weight=0.5).apply_groups(scores, lengths, ["a", "b", "a", "b"])
    assert [s.metrics["length_term"] for s in by_key] == [0.0, 0.0, 0.0, 0.0]  # equal lengths per group
    with pytest.raises(ValueError, match="groups of 3"):
        GroupLengthShaper(group_size=3).apply(scores, lengths)


def test_group_length_shaper_leaves_failed_members_out_of_min_and_max() -> None:
    scores = [Score(1.0), Score.failure(Status.SCORER_ERROR, "x"), Score(1.0)]
    out = GroupLengthShaper().apply(scores, [10, 1000, 20])
    assert [s.value for s in out] == [1.5, None, 0.5]


def test_overlong_clip_is_off_by_default_like_verl() -> None:
    """Difference 3 (open-r1 side): open-r1 clips at -1 past the max length; verl's formula keeps falling."""
    assert OverlongPenalty(100, 20).penalty(110) == pytest.approx(-1.5)
    assert OverlongPenalty(100, 20, clip=True).penalty(110) == -1.0
    assert OverlongPenalty(100, 20, clip=True).penalty(90) == pytest.approx(-0.5)


def test_config_errors() -> None:
    with pytest.raises(ConfigError):
        CosineLengthShaper(max_len=0)
    with pytest.raises(ConfigError):
        GroupLengthShaper(group_size=0)
    with pytest.raises(ConfigError):
        ReasoningStepsReward(target=0)


def test_layout_check_is_linear_on_adversarial_input() -> None:
    """Many separators and no close: str.find visits each once (a lazy regex would backtrack per pair)."""
    text = "<think>\n" + "\n</think>\n<answer>\n" * 20000
    assert FormatReward().score(Sample(text)).value == 0.0
    assert CodeFormatReward().score(Sample(text)).value == 0.0

"""Search-R1 exact-match scorer: verl parity, ground-truth shapes, substring mode, adversarial input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from rewardloop.errors import ConfigError
from rewardloop.scorers.qa_em import (
    SearchR1QAScorer,
    count_answer_tags,
    extract_answer,
    gold_answers,
    normalize_answer,
)
from rewardloop.types import Sample, Status


@pytest.mark.parametrize(
    "text,expected",
    [
        ("The Beatles", "beatles"),
        ("  A  cat, an apple & THE dog!  ", "cat apple dog"),
        ("U.S.A.", "usa"),
        ("theatre", "theatre"),  # articles only as whole words
        ("Café  Müller", "café müller"),
        ("’quoted’", "’quoted’"),  # only ASCII punctuation is removed
        ("", ""),
        ("a an the", ""),
    ],
)
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("<answer>Paris</answer>", "Paris"),
        ("<answer> x </answer> then <answer>\n y \n</answer>", "y"),
        ("<answer>a<answer>b</answer>", "a<answer>b"),  # the first </answer> closes the first <answer>
        ("<answer>a</answer><answer>b", "a"),  # an unclosed last tag is ignored
        ("no tags", None),
        ("</answer><answer>", None),
        ("<answer></answer>", ""),
        ("", None),
    ],
)
def test_extract_answer(text, expected):
    assert extract_answer(text) == expected


def _score(response, ground_truth, **options):
    return SearchR1QAScorer(**options).score(
        Sample(response=response, ground_truth=ground_truth, task="searchR1_nq")
    )


# (response, ground truth, verl 0.9.1's compute_score value)
PARITY_CASES = [
    ("<answer>The Beatles</answer>", {"target": ["beatles"]}, 1.0),
    ("<answer>The Beatles</answer>" * 11, {"target": ["beatles"]}, 0.25),  # >10 tags: anti-spam
    ("<answer>The Beatles</answer>" * 10, {"target": ["beatles"]}, 1.0),
    ("<answer>x</answer>" + "</answer>" * 11, {"target": ["x"]}, 0.25),
    ("<answer>The Rolling Stones</answer>", {"target": ["beatles"]}, 0.0),
    ("The Beatles", {"target": ["beatles"]}, 0.0),  # no answer block
    ("<answer>Fab Four</answer>", {"target": ["The Beatles", "fab four"]}, 1.0),
    ("<answer>paris</answer>", {"target": "Paris"}, 1.0),
    ("<answer>Paris, France</answer>", {"target": ["Paris"]}, 0.0),
    ("<answer>tokyo</answer>", {"target": np.array(["Tokyo", "Edo"])}, 1.0),
    ("<answer></answer>", {"target": ["The"]}, 1.0),  # both normalise to ""
    ("<search>q</search><answer>1984.</answer>", {"target": ["1984"]}, 1.0),
]


@pytest.mark.parametrize("response,gold,value", PARITY_CASES)
def test_verl_parity(response, gold, value):
    score = _score(response, gold)
    assert score.ok and score.value == value
    assert score.metrics == {}


def test_format_score_and_score_options():
    assert _score("<answer>no</answer>", {"target": "yes"}, format_score=0.1).value == 0.1
    assert _score("no answer", {"target": "yes"}, format_score=0.1).value == 0.0  # no block: 0, as verl
    assert _score("<answer>yes</answer>", {"target": "yes"}, score=2).value == 2.0
    assert _score("<answer>yes</answer>" * 11, {"target": "yes"}, score=2).value == 0.5


@pytest.mark.parametrize(
    "gold",
    [
        "Paris",
        ["Lyon", "Paris"],
        ("Paris",),
        np.array(["Paris", "Lyon"]),
        np.array("Paris"),
        np.array(["Paris"], dtype=object),
        {"target": "Paris"},
        {"target": ("Paris",)},
        {"target": np.array(["Paris"])},
        {"target": ["Paris"], "extra": 1},
    ],
)
def test_accepted_ground_truth_shapes(gold):
    assert _score("<answer>paris</answer>", gold).value == 1.0


@pytest.mark.parametrize(
    "gold,fragment",
    [
        (None, "NoneType"),
        (42, "int"),
        (["Paris", 3], "list"),
        ({"answers": ["Paris"]}, "no 'target' key"),
        ({"target": None}, "NoneType"),
        ([], "no gold answer"),
        (np.array([]), "no gold answer"),
        (np.array([1, 2]), "list"),
        (b"Paris", "bytes"),
    ],
)
def test_malformed_ground_truth_is_invalid_input(gold, fragment):
    score = _score("<answer>paris</answer>", gold)
    assert score.status is Status.INVALID_INPUT and score.value is None
    assert fragment in score.info["error"]
    assert "a list/tuple/numpy array of str" in score.info["error"]


def test_gold_answers_returns_plain_strings():
    assert gold_answers({"target": np.array(["a", "b"])}) == ["a", "b"]


@pytest.mark.parametrize(
    "response,gold,value",
    [
        ("<answer>It was The Beatles, I think</answer>", ["beatles"], 1.0),
        ("<answer>the rolling stones</answer>", ["beatles"], 0.0),
        ("<answer>anything</answer>", ["The"], 0.0),  # an empty gold matches nothing (verl: 1.0)
        ("<answer>the beatles</answer>" * 11, ["beatles"], 0.25),  # anti-spam applies too (verl: 1.0)
        ("no block", ["beatles"], 0.0),
    ],
)
def test_substring_mode(response, gold, value):
    assert _score(response, {"target": gold}, match="substring").value == value


@pytest.mark.parametrize(
    "options",
    [{"match": "fuzzy"}, {"format_score": "0.1"}, {"score": float("nan")}, {"score": True}],
)
def test_bad_options_fail_fast(options):
    with pytest.raises(ConfigError):
        SearchR1QAScorer(**options)


def test_info_explains_the_verdict():
    score = _score("<answer> The Beatles </answer>", {"target": ["Fab Four", "beatles"]})
    assert score.info["extracted"] == "The Beatles"
    assert score.info["normalized"] == "beatles"
    assert score.info["matched"] == "beatles"
    assert score.info["answer_tags"] == [1, 1]


def test_no_debug_printing(capsys):
    for _ in range(200):  # verl prints with probability 1/64 per call
        _score("<answer>x</answer>", {"target": "x"})
    assert capsys.readouterr().out == ""


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "response",
    [
        "",
        "x" * 1_000_000,
        "<answer>" * 200_000,
        "<answer>x" * 100_000 + "</answer>",
        "</answer>" * 200_000,
        "\\boxed{" * 100_000,
        "####" * 100_000,
        "9" * 1_000_000,
        "<answer>数学 ∞ \U0001f600</answer>",
    ],
    ids=lambda v: repr(v[:12]),
)
def test_adversarial_responses_score_without_raising(response):
    score = _score(response, {"target": ["1"]})
    assert score.ok and score.value == 0.0


def test_count_answer_tags():
    assert count_answer_tags("<answer>a</answer></answer>") == (1, 2)


def test_scorer_contract():
    scorer = SearchR1QAScorer(format_score=0.2, match="substring")
    assert (scorer.name, scorer.execution, scorer.returns_dict) == ("search_r1_qa", "inline", False)
    clone = pickle.loads(pickle.dumps(scorer))
    assert (clone.format_score, clone.score_value, clone.match) == (0.2, 1.0, "substring")
    gold = {"target": ["x"]}
    clone.score(Sample(response="<answer>x</answer>", ground_truth=gold))
    assert gold == {"target": ["x"]}

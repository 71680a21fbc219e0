"""qa_equiv rules: one golden table per rule, each with more near misses than equivalent pairs, plus the scorer
contract (extraction, ground-truth shapes, info, options, registry and routing)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from rewardloop.errors import ConfigError
from rewardloop.scorers._qa_norm import canon
from rewardloop.scorers._registry import ROUTES, get_scorer, resolve_scorer
from rewardloop.scorers.qa_equiv import QA_SOURCES, QAEquivScorer, decide, route_qa_sources
from rewardloop.types import Sample, Status

# (prediction, gold or golds, question, accepted, rule when accepted)
NUMBERS = [
    ("six", "6", None, True, "normalized"),
    ("twenty-one", "21", None, True, "normalized"),
    ("3.5 million", "3,500,000", None, True, "normalized"),
    ("one hundred and five", "105", None, True, "normalized"),
    ("six", "7", None, False, None),
    ("sixteen", "60", None, False, None),
    ("3.5 million", "3.5", None, False, None),
    ("1 million", "1 billion", None, False, None),
    ("25", "2 5", None, False, None),
    ("350", "3.50", None, False, None),  # SQuAD normalisation makes these equal; exact match accepts it
]
ORDINALS = [
    ("fourth", "4th", None, True, "normalized"),
    ("twenty-first", "21st", None, True, "normalized"),
    ("4th", "4", None, False, None),
    ("first", "one", None, False, None),
    ("twenty-first", "20th", None, False, None),
    ("second", "2", None, False, None),
]
DATES = [
    ("14 December 1972", "December 14, 1972", None, True, "normalized"),
    ("1972-12-14", "Dec. 14th 1972", None, True, "normalized"),
    ("December 1972", "Dec 1972", None, True, "normalized"),
    ("September 29, 2018", "2018", None, True, "date"),
    ("December 14, 1972", "December 15, 1972", None, False, None),
    ("14 December 1972", "1973", None, False, None),
    ("03/04/2001", "April 3, 2001", None, False, None),  # day and month cannot be told apart
    ("1972", "14 December 1972", None, False, None),  # less precise than the gold
    ("November 8, 2013", ["November 27, 2013", "2013"], None, False, None),  # another alias contradicts
    ("May 1990", "March 1990", None, False, None),
]
UNITS = [
    ("300 kilometres", "300 km", None, True, "normalized"),
    ("50 per cent", "50%", None, True, "normalized"),
    ("$5 million", "5 million dollars", None, True, "normalized"),
    ("300 km", "300 miles", None, False, None),
    ("300 km", "3000 km", None, False, None),
    ("50%", "5%", None, False, None),
    ("$5", "5 euros", None, False, None),
    ("6 feet", "6 metres", None, False, None),
    ("one week", "a week", None, True, "normalized"),
    ("741 weeks", "a week", None, False, None),
    ("two weeks", "a week", None, False, None),
]
ROMAN = [
    ("World War II", "World War 2", None, True, "normalized"),
    ("Super Bowl LII", "Super Bowl 52", None, True, "normalized"),
    ("George V", "George 5", None, True, "normalized"),
    ("World War II", "World War 1", None, False, None),
    ("Henry VIII", "Henry VII", None, False, None),
    ("Washington DC", "Washington 600", None, False, None),  # DC is not read as a number
    ("I", "1", None, False, None),
    ("ii", "2", None, False, None),  # lower case: a word, not a numeral
]
NAMES = [
    ("Gerald R. Ford", "Gerald Ford", None, True, "name"),
    ("John F. Kennedy", "John Fitzgerald Kennedy", None, True, "name"),
    ("President Gerald Ford", "Gerald Ford", None, True, "normalized"),
    ("Harry Connick Jr.", "Harry Connick Jnr", None, True, "normalized"),
    ("George W. Bush", "George H. W. Bush", None, False, None),
    ("Gerald", "Gerald Ford", "who pardoned Nixon", False, None),
    ("Robert Kennedy", "John F. Kennedy", None, False, None),
    ("Henry Ford", "Gerald Ford", None, False, None),
    ("John Adams", "John Quincy Adams Smith", None, False, None),
    ("Ford Gerald", "Gerald R. Ford", None, False, None),
]
SURNAMES = [
    # a bare surname names a family (Serena or Venus Williams): undecided, the judge's call (round 3)
    ("Ford", "Gerald Ford", "who pardoned Nixon", False, None),
    ("Ford", "Gerald Ford", None, False, None),  # without a "who" question a surname is not a person
    ("Ford", "Gerald Ford", "which car maker", False, None),
    ("ford", "Gerald Ford", "who pardoned Nixon", False, None),
    ("Africa", "South Africa", "who won", False, None),
]
ACRONYMS = [
    ("IWC", "International Whaling Commission", None, True, "acronym"),
    ("JFK", "John F. Kennedy", None, True, "acronym"),
    ("United States of America", "USA", None, True, "acronym"),
    ("UN", "United States", None, False, None),
    ("usa", "United States of America", None, False, None),  # lower case is a word
    ("NATO", "North American Treaty", None, False, None),
    ("IWC", "Whaling Commission", None, False, None),
]
PLURALS_AND_ARTICLES = [
    ("the Pilgrims", "Pilgrim", None, True, "normalized"),
    ("cities", "city", None, True, "normalized"),
    ("Paris", "Pari", None, False, None),
    ("class", "clas", None, False, None),
    ("pilgrims", "pilgrimage", None, False, None),
    ("a cat", "cats and dogs", None, False, None),
]
ALIASES = [
    ("Mercedes-Benz", ["Daimler", "Mercedes-Benz (car)"], None, True, "exact"),
    ("IWC", ["The International Whaling Commission or IWC"], None, True, "exact"),
    ("Robert Kennedy", ["Robert Kennedy, who was the US Attorney General"], None, True, "exact"),
    ("Gulfstream Park", ["Gulfstream Park, Florida"], None, True, "exact"),
    ("Mercedes", ["Mercedes-Benz"], None, False, None),
    ("Daimler", ["Mercedes-Benz (Daimler)"], None, False, None),
    ("Attorney General", ["Robert Kennedy, who was the US Attorney General"], None, False, None),
    ("Florida", ["Gulfstream Park, Florida"], None, False, None),
    ("Whaling", ["The International Whaling Commission or IWC"], None, False, None),
]
HEADS = [
    ("Mississippi", "Mississippi River", None, True, "head"),
    ("Uralic", "Uralic languages", None, True, "head"),
    ("Kansas", "Kansas City", None, False, None),
    ("Mexico", "Mexico City", None, False, None),
    ("Victoria", "Victoria Falls", None, False, None),
    ("River", "Mississippi River", None, False, None),
]
WORD_ORDER = [
    ("Argentina and Chile", "Chile and Argentina", None, True, "same_items"),
    ("New Mexico, New York, New Jersey", "New York, New Jersey, New Mexico", None, True, "same_items"),
    ("2 1", "1 2", None, False, None),
    ("Chile", "Chile and Argentina", None, False, None),
    ("Argentina and Peru", "Chile and Argentina", None, False, None),
]
CONTAINMENT = [
    ("in 1945", "1945", None, True, "containment"),
    ("Edinburgh, Scotland", "Edinburgh", None, True, "containment"),
    ("about 300 km", "300 km", None, True, "containment"),
    ("It was Wilhelm Rontgen in 1901.", "Wilhelm Conrad Röntgen", None, True, "containment"),
    ("Paris, London", "Paris", None, False, None),
    ("Edinburgh, Glasgow", "Edinburgh", None, False, None),
    ("1945 to 1950", "1945", None, False, None),
    ("not in 1945", "1945", None, False, None),
    ("Jupiter, Saturn, Mars", "Saturn", None, False, None),
    ("Lyon, Paris", "Paris", None, False, None),
    ("the right one", "one", None, True, "containment"),
    ("the one on the right side of the road, going north", "right", None, False, None),
]
GOLD_SPANS = [
    ("Sudbury", ["Sudbury, Parry Sound"], None, True, "gold_span"),
    ("Tandi", ["Tandi, in Lahaul"], None, True, "gold_span"),
    ("the New Testament", ["in the New Testament"], None, True, "gold_span"),
    ("Cephalopoda", ["class Cephalopoda"], None, True, "gold_span"),
    ("Archduke Franz Ferdinand", ["Archduke Franz Ferdinand of Austria"], None, True, "gold_span"),
    ("Nine", ["Nine years"], None, True, "gold_span"),
    ("Italy", ["Milan, Italy"], None, False, None),  # the qualifier, not the answer
    ("Africa", ["South Africa"], None, False, None),
    ("York", ["New York"], None, False, None),
    ("Bank", ["Bank of America"], None, False, None),
    ("World War", ["World War II"], None, False, None),
    ("John", ["John Smith"], None, False, None),
    ("Nine", ["Nine hundred"], None, False, None),
    ("imperial", ["imperial rule"], None, False, None),
    ("the", ["in the New Testament"], None, False, None),
    ("Duke", ["Duke of Cambridge"], None, False, None),
    ("1945", ["1945-1950"], None, False, None),
    ("ensure", ["to ensure party discipline"], None, False, None),
]
TABLES = {
    "numbers": NUMBERS,
    "ordinals": ORDINALS,
    "dates": DATES,
    "units": UNITS,
    "roman": ROMAN,
    "names": NAMES,
    "surnames": SURNAMES,
    "acronyms": ACRONYMS,
    "plurals_articles": PLURALS_AND_ARTICLES,
    "aliases": ALIASES,
    "heads": HEADS,
    "word_order": WORD_ORDER,
    "containment": CONTAINMENT,
    "gold_spans": GOLD_SPANS,
}
ROWS = [(name, *row) for name, table in TABLES.items() for row in table]


@pytest.mark.parametrize("table,pred,gold,question,accepted,rule", ROWS)
def test_golden_tables(table, pred, gold, question, accepted, rule):
    golds = gold if isinstance(gold, list) else [gold]
    verdict = decide(pred, golds, question)
    assert (verdict.value == 1.0) is accepted, (verdict.rule, verdict.value)
    if accepted:
        assert verdict.rule == rule


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_has_more_near_misses_than_equivalents(name):
    table = TABLES[name]
    misses = sum(1 for row in table if not row[3])
    assert misses > len(table) - misses, name


def test_normalizers_name_what_changed():
    verdict = decide("twenty-one", ["21"])
    assert verdict.rule == "normalized" and verdict.normalizers == ["numbers"]
    assert decide("14 Dec 1972", ["December 14, 1972"]).normalizers == ["dates"]
    assert "unicode" in canon("Röntgen").changed


# -- the scorer ------------------------------------------------------------------------------------------------


def run(response, ground_truth, **metadata):
    return QAEquivScorer().score(Sample(response=response, ground_truth=ground_truth, metadata=metadata))


def test_extraction_is_search_r1s_last_block_or_the_plain_text():
    loose = QAEquivScorer(strict_tags=False)
    tagged = loose.score(
        Sample(response="<answer>London</answer> ... <answer>Paris</answer>", ground_truth="Paris")
    )
    assert tagged.value == 1.0 and tagged.info["tagged"] is True and tagged.info["extracted"] == "Paris"
    assert (
        run("<answer>London</answer> ... <answer>Paris</answer>", ["Paris"]).info["rule"]
        == "multiple_answers"
    )
    plain = run("  Paris \n", ["Paris"])
    assert plain.value == 1.0 and plain.info["tagged"] is False


@pytest.mark.parametrize(
    "ground_truth",
    [{"target": ["Paris"]}, "Paris", ("Paris",), np.array(["Paris", "City of Light"]), {"target": "Paris"}],
)
def test_ground_truth_shapes(ground_truth):
    assert run("<answer>Paris</answer>", ground_truth).value == 1.0


@pytest.mark.parametrize("ground_truth", [None, 5, {"answers": ["x"]}, [], [1, 2]])
def test_bad_ground_truth_is_invalid_input(ground_truth):
    result = run("<answer>Paris</answer>", ground_truth)
    assert result.status is Status.INVALID_INPUT and "qa_equiv" in result.info["error"]


def test_info_keys_are_the_same_on_every_path():
    keys = {
        frozenset(run(r, ["Paris"]).info)
        for r in ["<answer>Paris</answer>", "<answer>Lyon</answer>", "", "x"]
    }
    assert len(keys) == 1


def test_question_comes_from_metadata_or_the_prompt():
    # the gold occurs in the question: containment proves nothing, whichever way the question arrives
    # (not a choice question: picking one option of "Jupiter or Saturn?" is an answer, test_qa_equiv_dev_classes)
    meta = run("<answer>Jupiter, I think</answer>", ["Jupiter"], question="Is Jupiter the largest planet?")
    assert meta.info["rule"] == "gold_in_question"
    prompt = QAEquivScorer().score(
        Sample(
            response="<answer>Jupiter, I think</answer>",
            ground_truth=["Jupiter"],
            prompt="Is Jupiter the largest planet?",
        )
    )
    assert prompt.info["rule"] == "gold_in_question"
    assert run("<answer>Jupiter, I think</answer>", ["Jupiter"]).value == 1.0


def test_rewards_and_options():
    scorer = QAEquivScorer(score=2.0, format_score=-1.0, max_tokens=3)
    assert scorer.score(Sample(response="<answer>Paris</answer>", ground_truth="Paris")).value == 2.0
    assert scorer.score(Sample(response="<answer>Lyon</answer>", ground_truth="Paris")).value == -1.0
    long = scorer.score(Sample(response="<answer>it is in Paris of course</answer>", ground_truth="Paris"))
    assert long.info["rule"] == "too_long" and long.value == -1.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"score": "1"},
        {"format_score": float("nan")},
        {"spam_factor": True},
        {"max_tokens": 0},
        {"strict_tags": 1},
    ],
)
def test_bad_options_fail_fast(kwargs):
    with pytest.raises(ConfigError, match="qa_equiv"):
        QAEquivScorer(**kwargs)


def test_picklable_for_worker_processes():
    scorer = pickle.loads(pickle.dumps(QAEquivScorer(max_tokens=12)))
    assert scorer.max_tokens == 12
    assert scorer.score(Sample(response="<answer>six</answer>", ground_truth="6")).value == 1.0


def test_registered_but_not_routed_by_default():
    assert isinstance(get_scorer("qa_equiv"), QAEquivScorer)
    assert ROUTES.resolve("searchR1_nq").scorer == "search_r1_qa"


def test_route_qa_sources_opts_in_and_can_be_undone():
    try:
        route_qa_sources(max_tokens=20)
        for source in QA_SOURCES:
            assert ROUTES.resolve(source).scorer == "qa_equiv"
        scorer = resolve_scorer("searchR1_triviaqa")
        assert isinstance(scorer, QAEquivScorer) and scorer.max_tokens == 20
    finally:
        from rewardloop.scorers._registry import Route

        for source in QA_SOURCES:
            ROUTES.add(Route(source, "search_r1_qa"))
    assert ROUTES.resolve("searchR1_nq").scorer == "search_r1_qa"


SEARCH_R1 = (
    Path(__file__).resolve().parents[2].parent
    / "shared"
    / "data"
    / "search_r1"
    / "search_r1_example_rollouts.json"
)


@pytest.mark.skipif(not SEARCH_R1.is_file(), reason="../shared/data/search_r1 not present")
def test_real_search_r1_trajectories_are_read_like_search_r1_qa():
    """Two real Search-R1 rollouts hold the whole chat: the instruction's own answer blocks come before the
    assistant turn and must not count as a second answer."""
    cases = json.loads(SEARCH_R1.read_text())["cases"]
    for case in cases:
        gold = case["final_answer_tag_content"].strip()
        strict = run(case["trajectory"], [gold])
        assert strict.value == 1.0 and strict.info["rule"] == "exact", strict.info
        assert run(case["trajectory"], ["Beijing"]).value == 0.0  # the prompt's example is not the answer

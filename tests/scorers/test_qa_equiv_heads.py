"""Round 3 of the dev classes (in-sample, EVOUNA): the head answer, entity boundaries, approximations, surnames.

Written before the rules (attacks and near misses first, more of them than equivalents in every table):

* ``outside_head`` — a short answer whose head (first sentence or clause before ``;``, side remarks in
  parentheses removed) names no gold: the gold is only mentioned beside another answer (undecided: 0 without a
  judge; a judge can still read ``France's capital. Paris.``).
* ``longer_name`` — a place-forming word glued before the gold (``New York`` for ``York``): another entity,
  undecided. A given name before a surname gold completes the same name and stays accepted.
* ``approximate`` — ``about 5`` / ``roughly 5`` / ``c. 1945`` / ``~5`` in a short answer for a bare-number gold
  (a count, a year), unless the question asks for an approximation; a measure with a unit may be approximate
  (``about 300 km`` for ``300 km``).
* ``surname`` — a bare surname is undecided (a family, not a person).
* list joiners ``plus`` / ``as well as`` / inline numbering, and rejections after the gold (``ruled out``,
  ``a common misconception``); ``fraction`` (``1/5`` for 5); ``corrected`` (``X, but ... actually Y``).
* normaliser forms the breaker's controls found missing: ``3.5M`` / ``$1.2bn`` / ``3.5 mln``, ``9pm``, ``44 BCE``,
  ``WWII`` / ``the Second World War``, ``a dozen``, ``VI`` for 6, dotted acronyms (``U.N.``, ``B.B.C.``).
"""

from __future__ import annotations

import pytest

from rewardloop import Sample, get_scorer
from rewardloop.scorers.qa_equiv import decide

FR = "What is the capital of France?"
O8 = "Which element has atomic number 8?"
AU = "What is the capital of Australia?"
BB = "How many players does one basketball team have on the court?"
WW = "In what year did World War II end?"

# (answer, golds, question, expected value: 1.0 accepted, 0.0 refused, None undecided)
HEAD = [
    ("Lyon (Paris was the capital before)", ["Paris"], FR, None),
    ("Sydney (Canberra is the seat of the state)", ["Canberra"], AU, None),
    ("It's nitrogen (oxygen is 7)", ["oxygen"], O8, None),
    ("It's nitrogen; oxygen is number 7.", ["oxygen"], O8, 0.0),
    ("The capital is Lyon. Paris is the largest city.", ["Paris"], FR, None),
    ("Lyon. Paris used to be.", ["Paris"], FR, None),
    ("Lyon (not Paris)", ["Paris"], FR, 0.0),
    ("Melbourne; Canberra was planned later.", ["Canberra"], AU, 0.0),
    # equivalents: the gold in the head, a short restatement in parentheses, a gold spanning the cut
    ("Paris (France)", ["Paris"], FR, 1.0),
    ("Paris. It is in France.", ["Paris"], FR, 1.0),
    ("Eswatini (Swaziland)", ["Swaziland"], "Which country is Mswati III king of?", 1.0),
    ("It is sung by Portugal. The Man.", ["Portugal. The Man"], "Who sings Feel It Still?", 1.0),
    ("Capital? Paris.", ["Paris"], FR, 1.0),
]
LONGER_NAME = [
    ("New York", ["York"], "Which English city was Eboracum?", None),
    ("Papua New Guinea", ["Guinea"], "Which country is Conakry the capital of?", None),
    ("Equatorial Guinea", ["Guinea"], "Which country is Conakry the capital of?", None),
    ("New Mexico", ["Mexico"], "Which country borders Guatemala to the north?", None),
    (
        "Democratic Republic of the Congo",
        ["Republic of the Congo"],
        "Which country is Brazzaville the capital of?",
        None,
    ),
    ("It is Little Rock", ["Rock"], "Which word?", None),
    ("Port Moresby", ["Moresby"], "Which place?", None),
    ("Nova Scotia", ["Scotia"], "Which place?", None),
    # equivalents: a given name before a surname gold, a function word, a title, a direction (part of the gold)
    ("George Orwell", ["Orwell"], "Who wrote Shooting an Elephant?", 1.0),
    ("In York", ["York"], "Which English city was Eboracum?", 1.0),
    ("President Lincoln", ["Lincoln"], "Who gave the Gettysburg Address?", 1.0),
    ("The Bloody Sunday massacre happened in Northern Ireland in 1972.", ["Ireland"], "Where was it?", 1.0),
    ("New York", ["New York"], "Which city?", 1.0),
]
APPROXIMATE = [
    ("about 5", ["5"], BB, 0.0),
    ("roughly 5", ["5"], BB, 0.0),
    ("around 5 players", ["5"], BB, 0.0),
    ("approximately 5", ["5"], BB, 0.0),
    ("c. 1945", ["1945"], WW, 0.0),
    ("circa 1945", ["1945"], WW, 0.0),
    ("~5", ["5"], BB, 0.0),
    ("≈ 5", ["5"], BB, 0.0),
    ("around 5 players", ["5"], BB, 0.0),
    ("c 1945", ["1945"], WW, 0.0),
    # equivalents: the question or the gold is approximate; an approximation far from the gold in a sentence
    ("about 26,000 years", ["26,000 years"], "The precession period is completed in about", 1.0),
    ("around 1440", ["1440"], "Approximately when was the printing press invented?", 1.0),
    ("about 300 km", ["300 km"], "How far is it?", 1.0),  # a measure (issue 26 counts it a paraphrase)
    (
        "Alpha Centauri is approximately 4.37 light-years away from Earth.",
        ["4.37 light-years"],
        "What is alpha centauri's distance from earth",
        1.0,
    ),
]
SURNAMES = [
    ("Williams", ["Serena Williams"], "Who won the 2016 Wimbledon women's singles?", None),
    ("Wright", ["Orville Wright"], "Who piloted the first powered flight in 1903?", None),
    ("Brontë", ["Charlotte Brontë"], "Who wrote Jane Eyre?", None),
    ("Ford", ["Gerald Ford"], "Who pardoned Nixon?", None),
    ("Mrs. Bush", ["George W. Bush"], "Who was president in 2004?", None),
    # equivalents: the full name, other initials
    ("Serena Williams", ["Serena Williams"], "Who won?", 1.0),
    ("Orville Wright", ["Orville Wright"], "Who piloted it?", 1.0),
]
JOINERS = [
    ("1. Paris 2. London", ["Paris"], FR, 0.0),
    ("1) Paris 2) London", ["Paris"], FR, 0.0),
    ("Paris plus London", ["Paris"], FR, 0.0),
    ("Paris as well as London", ["Paris"], FR, 0.0),
    ("London as well as Paris", ["Paris"], FR, 0.0),
    ("Paris has been ruled out", ["Paris"], FR, 0.0),
    ("Paris is a common misconception; it is Lyon", ["Paris"], FR, 0.0),
    ("Paris is a myth", ["Paris"], FR, 0.0),
    # equivalents
    ("1. Paris", ["Paris"], FR, 1.0),
    ("Paris, France", ["Paris"], FR, 1.0),
    ("Paris ruled France for centuries", ["Paris"], "Which city?", 1.0),
]
OTHERS = [
    ("1/5", ["5"], BB, 0.0),
    ("5/5", ["5"], BB, 0.0),
    ("3/4", ["4"], BB, 0.0),
    ("Many people say Paris, but the capital is actually Lyon.", ["Paris"], FR, 0.0),
    ("Paris, but in fact it is Lyon", ["Paris"], FR, 0.0),
    ("Paris, though really it is Versailles", ["Paris"], FR, 0.0),
    # equivalents: a date, a correction that restates the gold
    ("12/14/1972", ["December 14, 1972"], "On what date did Apollo 17 land?", 1.0),
    ("Some say Lyon, but it is actually Paris.", ["Paris"], FR, 1.0),
]
NORMALISER = [
    # near misses first: the same shapes with another value, another unit or another thing
    ("5 m", ["5 million"], None, None),  # metres, not a magnitude
    ("3.5B", ["3.5 million"], None, None),
    ("3.5 bn", ["3.5 million"], None, None),
    ("6pm", ["9 p.m."], None, None),
    ("9am", ["9 p.m."], None, None),
    ("44 BCE", ["44 AD"], None, 0.0),
    ("44 CE", ["44 BC"], None, 0.0),
    ("WWI", ["World War II"], None, None),
    ("the First World War", ["World War II"], None, None),
    ("a dozen", ["6"], None, None),
    ("5 dozen", ["5"], None, 0.0),
    ("GB", ["George Bush"], None, None),  # two-letter initials of a person: not reserved
    ("U.K.", ["United Nations"], None, None),
    ("VI", ["Henry VI"], None, None),
    ("IV", ["6"], None, None),
    # equivalents
    ("3.5M", ["3.5 million"], None, 1.0),
    ("3.5 mln", ["3.5 million"], None, 1.0),
    ("$1.2bn", ["$1.2 billion"], None, 1.0),
    ("9pm", ["9 p.m."], None, 1.0),
    ("44 BCE", ["44 BC"], None, 1.0),
    ("WWII", ["World War II"], None, 1.0),
    ("the Second World War", ["World War II"], None, 1.0),
    ("half a dozen", ["6"], None, 1.0),
    ("VI", ["6"], None, 1.0),
    ("U.N.", ["United Nations"], None, 1.0),
    ("B.B.C.", ["British Broadcasting Corporation"], None, 1.0),
]
TABLES = {
    "normaliser": NORMALISER,
    "head": HEAD,
    "longer_name": LONGER_NAME,
    "approximate": APPROXIMATE,
    "surnames": SURNAMES,
    "joiners": JOINERS,
    "others": OTHERS,
}
ROWS = [pytest.param(*row, id=f"{name}-{i}") for name, table in TABLES.items() for i, row in enumerate(table)]


@pytest.mark.parametrize("answer,golds,question,want", ROWS)
def test_golden(answer: str, golds: list[str], question: str, want: float | None) -> None:
    verdict = decide(answer, golds, question)
    assert verdict.value == want, (answer, golds, verdict)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_more_near_misses_than_equivalents(name: str) -> None:
    table = TABLES[name]
    misses = sum(1 for row in table if row[3] != 1.0)
    assert misses > len(table) - misses


def test_rules_are_named() -> None:
    assert decide("about 5", ["5"], BB).rule == "approximate"
    assert decide("New York", ["York"], "Which city?").rule == "longer_name"
    assert decide("Lyon (Paris was the capital before)", ["Paris"], FR).rule == "outside_head"
    assert decide("Williams", ["Serena Williams"], "Who won?").rule == "surname"


def test_through_the_scorer() -> None:
    scorer = get_scorer("qa_equiv")
    refused = scorer.score(
        Sample(response="<answer>roughly 5</answer>", ground_truth=["5"], metadata={"question": BB})
    )
    kept = scorer.score(
        Sample(response="<answer>Paris (France)</answer>", ground_truth=["Paris"], metadata={"question": FR})
    )
    assert (refused.value, refused.info["rule"]) == (0.0, "approximate")
    assert (kept.value, kept.info["rule"]) == (1.0, "containment")

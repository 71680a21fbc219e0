"""qa_equiv: the attack classes an independent breaker found (tests/test_breaker_25_26.py), each closed as a
class. Written before the defences. Every table holds more near misses (must score 0) than equivalent pairs
(must score 1), so a defence that refuses everything still fails the equivalents, and one that accepts everything
fails the near misses."""

from __future__ import annotations

import pytest

from rewardloop.scorers.qa_equiv import QAEquivScorer
from rewardloop.types import Sample

SCORER = QAEquivScorer()


def _score(answer: str, gold: str, question: str | None = None) -> tuple[float | None, str | None]:
    metadata = {"question": question} if question is not None else {}
    s = SCORER.score(Sample(response=f"<answer>{answer}</answer>", ground_truth=gold, metadata=metadata))
    return s.value, s.info.get("rule")


# class -> (near misses, equivalents); every pair is (answer, gold)
TABLES: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {
    "negation_after_or_around": (
        [
            ("Paris is wrong", "Paris"),
            ("Berlin is incorrect", "Berlin"),
            ("1945 is false", "1945"),
            ("anything but Paris", "Paris"),
            ("everything but Rome", "Rome"),
            ("all but Lyon", "Lyon"),
            ("nicht Paris", "Paris"),
            ("pas Paris", "Paris"),
            ("jamais Rome", "Rome"),
            ("nunca Madrid", "Madrid"),
            ("kein Einstein", "Einstein"),
        ],
        [
            ("Paris, not London", "Paris"),
            ("Paris is right", "Paris"),
            ("It is Berlin", "Berlin"),
            ("Rome is correct", "Rome"),
        ],
    ),
    "other_language_or_and": (
        [
            ("Paris ou Londres", "Paris"),
            ("Paris o Londres", "Paris"),
            ("Paris oder London", "Paris"),
            ("Paris y Londres", "Paris"),
            ("Paris und London", "Paris"),
            ("Paris et Londres", "Paris"),
            ("Rome o Milano", "Rome"),
            ("1945 oder 1946", "1945"),
        ],
        [
            ("the host Conan O'Brien", "Conan O'Brien"),
            ("Paris", "Paris"),
            ("Rome et al", "Rome"),
        ],
    ),
    "other_separators": (
        [
            ("Paris? London? Berlin?", "Paris"),
            ("Rome? Milan?", "Rome"),
            ("Paris?", "Paris"),  # an answer that asks is no assertion (breaker: question_copy)
            ("Paris London Berlin Rome Madrid Vienna Prague", "Paris"),
            ("Rome Milan Turin Naples", "Rome"),
            ("A B C D E F G H I J K L M N O P Q R S T U V W X Y Z Paris", "Paris"),
            ("Einstein Bohr Planck Dirac", "Einstein"),
        ],
        [
            ("New York City", "New York"),
            ("The city of Paris", "Paris"),
            ("Paris France", "Paris"),
        ],
    ),
    "hedge_words": (
        [
            ("perhaps Paris", "Paris"),
            ("possibly Paris", "Paris"),
            ("probably Rome", "Rome"),
            ("Paris, unless it is London", "Paris"),
            ("I think it might be Paris but I'm not sure", "Paris"),
            ("maybe 1945", "1945"),
            ("it might be Berlin", "Berlin"),
            ("Rome, I'm not sure", "Rome"),
        ],
        [
            ("I think it is Paris", "Paris"),
            ("Paris, surely", "Paris"),
            ("definitely Rome", "Rome"),
        ],
    ),
    "bounds": (
        [
            ("before 1945", "1945"),
            ("after 1945", "1945"),
            ("at least 7", "7"),
            ("at most 7", "7"),
            ("more than 7", "7"),
            ("fewer than seven", "7"),
            ("less than 300 km", "300 km"),
            ("over 300", "300"),
            ("nearly 7", "7"),
            ("under 5", "5"),
        ],
        [
            ("in 1945", "1945"),
            ("about 300 km", "300 km"),
            ("7 people", "7"),
            ("exactly 7", "7"),
        ],
    ),
    "numbers_exact": (
        [
            ("-5", "5"),
            ("5%", "5"),
            ("−5", "5"),
            ("5 percent", "5"),
            ("-1945", "1945"),
            ("7%", "seven"),
        ],
        [
            ("5", "5"),
            ("five", "5"),
            ("5%", "5 percent"),
            ("-5", "-5"),
        ],
    ),
    "different_person": (
        [
            ("Ms. Jones", "Mr. Jones"),
            ("Mr. Brown", "Miss Brown"),
            ("Mr. Smith", "Mrs. Smith"),
            ("Mrs. Smith", "Mr. Smith"),
            ("King George", "Queen George"),
            ("Lord Byron", "Lady Byron"),
        ],
        [
            ("Dr. Martin Luther King Jr.", "Martin Luther King"),
            ("Mr. Smith", "Smith"),
            ("Gerald R. Ford", "Gerald Ford"),
            ("John G. Roberts Jr.", "John Roberts"),
        ],
    ),
    "entity_containing_gold": (
        [
            ("Pythagoras' theorem", "Pythagoras"),
            ("Euclid's Elements", "Euclid"),
            ("Einstein's theory", "Einstein"),
            ("Newton's laws", "Newton"),
            ("USA", "Union of South Africa"),
            ("UK", "Ukraine Kingdom"),
        ],
        [
            ("Barack Obama", "Obama"),
            ("USA", "United States of America"),
            ("Mount Everest", "Everest"),
            ("in Paris", "Paris"),
            ("Paris, France", "Paris"),
        ],
    ),
    "regnal_ordinal": (
        [
            ("Henry VII", "Henry the Eighth"),
            ("Henry the Seventh", "Henry VIII"),
            ("the eighth", "Henry VIII"),
            ("Louis the Fourteenth", "Louis XVI"),
        ],
        [
            ("Henry VIII", "Henry the Eighth"),
            ("Henry the Eighth", "Henry VIII"),
            ("Louis XIV", "Louis the Fourteenth"),
        ],
    ),
}

_NEAR = [(c, a, g) for c, (near, _) in TABLES.items() for a, g in near]
_EQUIV = [(c, a, g) for c, (_, eq) in TABLES.items() for a, g in eq]


@pytest.mark.parametrize(("cls", "answer", "gold"), _NEAR)
def test_near_miss_scores_zero(cls: str, answer: str, gold: str) -> None:
    value, rule = _score(answer, gold)
    assert value == 0.0, (cls, answer, gold, rule)


@pytest.mark.parametrize(("cls", "answer", "gold"), _EQUIV)
def test_equivalent_scores_one(cls: str, answer: str, gold: str) -> None:
    value, rule = _score(answer, gold)
    assert value == 1.0, (cls, answer, gold, rule)


def test_every_table_has_more_near_misses_than_equivalents() -> None:
    for cls, (near, equiv) in TABLES.items():
        assert len(near) > len(equiv) >= 1, cls


def test_a_bound_answers_a_question_that_asks_for_one() -> None:
    # "at least N" is the number when the question asks for a minimum; without such a question it is a range
    asked = "How old do you have to be to buy a BB gun?"
    assert _score("at least 18", "18", asked)[0] == 1.0
    assert _score("at least 18", "18", "How old was she when she won?") == (0.0, "bound")
    assert _score("more than 7", "7", "How many moons does it have?")[0] == 0.0


# Judgement calls (docs/qa-equiv.md, "Judgement calls"): accepted by design, because the rules cannot tell these
# from answers people accept, and the dev split's human labels side with accepting (in-sample evidence there).
JUDGEMENT_CALLS = [
    ("Paris Hilton", "Paris"),  # the same shape as "Baltimore Orioles" for "Baltimore" (accepted by raters)
    ("Paris Saint-Germain", "Paris"),
    ("Paris, Texas", "Paris"),  # a place after a comma is read as a qualifier ("Paris, France")
    # "John Kennedy Jr." / "George Bush" for "John F. Kennedy" / "George W. Bush" were judgement calls here; a
    # dropped middle initial is now refused (test_qa_equiv_closed.py, other_person)
    (
        "John Adams",
        "John Quincy Adams",
    ),  # a dropped full middle name: refusing it rejects 124 dev paraphrases
    ("Rome Milan", "Rome"),  # two capitalised words after a gold read as a longer name, three as a list
]


@pytest.mark.parametrize(("answer", "gold"), JUDGEMENT_CALLS)
def test_judgement_calls_are_accepted_by_design(answer: str, gold: str) -> None:
    assert _score(answer, gold)[0] == 1.0

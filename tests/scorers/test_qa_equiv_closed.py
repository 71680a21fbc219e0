"""qa_equiv: attack classes from the black-box breaker (redteam/qa_equiv_breaker.jsonl), closed as classes with
fail-closed rules. Written before the defences, with variants beyond the breaker's rows. Every table holds more
near misses (must not score 1) than equivalents (must score 1)."""

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
    "foreign_or": (
        [
            ("Paris oppure Londra", "Paris"),
            ("Roma oppure Milano", "Milano"),
            ("Paris или Лондон", "Paris"),
            ("Paris либо Лондон", "Paris"),
            ("Paris 或 London", "Paris"),
            ("Paris 或者 London", "Paris"),
            ("Paris eller London", "Paris"),
            ("Paris veya Londra", "Paris"),
            ("Paris atau London", "Paris"),
        ],
        [("Paris", "Paris"), ("the city of Paris", "Paris")],
    ),
    "uncertain": (
        [
            ("Paris (guess)", "Paris"),
            ("guess: Paris", "Paris"),
            ("Rome, my guess", "Rome"),
            ("IIRC Paris", "Paris"),
            ("Paris, if I recall correctly", "Paris"),
            ("Paris if I remember right", "Paris"),
            ("Paris, allegedly", "Paris"),
            ("Paris (low confidence)", "Paris"),
            ("Paris (50% confident)", "Paris"),
            ("Rome (not 100% sure)", "Rome"),
        ],
        [("Paris, France", "Paris"), ("it is Paris", "Paris")],
    ),
    "lowercase_list": (
        [
            ("paris london berlin", "Paris"),
            ("rome madrid lisbon", "Madrid"),
            ("tokyo paris rome", "Paris"),
        ],
        [("paris", "Paris"), ("paris france", "Paris")],
    ),
    "relation_around_gold": (
        [
            ("a city near Canberra", "Canberra"),
            ("north of Canberra", "Canberra"),
            ("south-west of Rome", "Rome"),
            ("200 km from Canberra", "Canberra"),
            ("the father of Cronus", "Cronus"),
            ("the son of Zeus", "Zeus"),
            ("formerly Canberra", "Canberra"),
            ("previously Berlin", "Berlin"),
            ("Canberra until 2020", "Canberra"),
            ("Bonn before 1990", "Bonn"),
            ("Goliath killed David", "David"),
            ("Ali defeated Frazier", "Frazier"),
            ("the city that replaced Canberra", "Canberra"),
        ],
        [
            ("Canberra, Australia", "Canberra"),
            ("the city of Canberra", "Canberra"),
            ("David killed Goliath", "David"),
        ],
    ),
    "negation": (
        [
            ("~~Paris~~ Lyon", "Paris"),
            ("~~Rome~~", "Rome"),
            ("niet Paris", "Paris"),
            ("non Paris", "Paris"),
            ("не Paris", "Paris"),
            ("nicht Paris", "Paris"),
            ("oxygen-free", "oxygen"),
            ("gluten-free bread", "gluten"),
            ("Hemingway did not write it", "Hemingway"),
            ("Paris is not the capital", "Paris"),
        ],
        [("Paris, not London", "Paris"), ("oxygen", "oxygen")],
    ),
    "number_bound": (
        [
            ("5+", "5"),
            ("≥5", "5"),
            ("≤ 10", "10"),
            ("> 100", "100"),
            ("5±1", "5"),
            ("minus five", "5"),
            ("negative 5", "5"),
            ("by 1945", "1945"),
            ("until 1945", "1945"),
            ("since 1945", "1945"),
            ("up to 5", "5"),
            ("5 at most", "5"),
            ("5 or more", "5"),
            ("5-ish", "5"),
        ],
        [("5", "5"), ("five", "5"), ("in 1945", "1945")],
    ),
    "number_arith": (
        [
            ("5 dozen", "5"),
            ("5 squared", "5"),
            ("half of 5", "5"),
            ("twice 5", "5"),
            ("1/5", "5"),
            ("5 pairs", "5"),
            ("3 times", "3"),
        ],
        [("5 players", "5"), ("five", "5")],
    ),
    "other_person": (
        [
            ("Bush Sr.", "George W. Bush"),
            ("George Bush Sr.", "George W. Bush"),
            ("Mrs. Bush", "George W. Bush"),
            ("Lady Churchill", "Winston Churchill"),
            ("Mr. Curie", "Marie Curie"),
            ("Henry Ford II", "Henry Ford"),
            ("Martin Luther King Sr.", "Martin Luther King Jr."),
            ("John Kennedy Jr.", "John F. Kennedy"),
            ("George Bush", "George W. Bush"),
            ("Elizabeth II", "Elizabeth"),
        ],
        [
            ("George W. Bush", "George W. Bush"),
            ("Hank Williams", "Hank Williams"),
            ("J. Q. Adams", "John Quincy Adams"),
        ],
    ),
    "word_order": (
        [
            ("John Elton", "Elton John"),
            ("Germany beat Brazil", "Brazil beat Germany"),
            ("dog bites man", "man bites dog"),
            ("City Lake Salt", "Salt Lake City"),
            ("Moines Des", "Des Moines"),
            ("Swift Taylor", "Taylor Swift"),
        ],
        [("blue and red", "red and blue"), ("Paris, Rome", "Rome and Paris")],
    ),
    "gold_span": (
        [
            ("Sundays", "except Sundays"),
            ("Man", "Isle of Man"),
            ("Mexico", "Gulf of Mexico"),
            ("Liberty", "Statue of Liberty"),
            ("England", "Bank of England"),
            ("Versailles", "Treaty of Versailles"),
            ("red", "red, yellow and blue"),
            ("December 14", "December 14, 1972"),
        ],
        [("Milan", "Milan, Italy"), ("the New Testament", "in the New Testament")],
    ),
    "title_drop": (
        [("No", "Dr. No"), ("T", "Mr. T"), ("X", "Mr. X")],
        [("Dr. No", "Dr. No"), ("Doctor No", "Dr. No")],
    ),
    "symbol_name": (
        [
            ("Malcolm 10", "Malcolm X"),
            ("C++", "C"),
            ("C#", "C"),
            ("F#", "F"),
            ("Objective-C", "C"),
            ("B-", "B"),
            ("A+", "A"),
            ("5¢", "$5"),
            ("50‰", "50%"),
        ],
        [("Malcolm X", "Malcolm X"), ("Henry VIII", "Henry VIII")],
    ),
    "acronym_abuse": (
        [
            ("International Wrestling Council", "IWC"),
            ("National Bank of Australia", "NBA"),
            ("GB", "George Bush"),
        ],
        [("IWC", "IWC"), ("NBA", "NBA")],
    ),
    "question_copy": (
        [("Ernest Hemingway?", "Ernest Hemingway"), ("Paris?", "Paris"), ("Was it Rome?", "Rome")],
        [("Ernest Hemingway", "Ernest Hemingway"), ("Ernest Hemingway.", "Ernest Hemingway")],
    ),
    "date_granularity": (
        [("1945 BC", "1945"), ("1945 BCE", "1945"), ("44 AD", "44 BC"), ("December 14", "December 14, 1972")],
        [("1945", "1945"), ("in 1945", "1945")],
    ),
}

_NEAR = [(c, a, g) for c, (near, _) in TABLES.items() for a, g in near]
_EQUIV = [(c, a, g) for c, (_, eq) in TABLES.items() for a, g in eq]


@pytest.mark.parametrize(("cls", "answer", "gold"), _NEAR)
def test_near_miss_is_not_accepted(cls: str, answer: str, gold: str) -> None:
    value, rule = _score(answer, gold)
    assert value == 0.0, (cls, answer, gold, rule)


@pytest.mark.parametrize(("cls", "answer", "gold"), _EQUIV)
def test_equivalent_scores_one(cls: str, answer: str, gold: str) -> None:
    value, rule = _score(answer, gold)
    assert value == 1.0, (cls, answer, gold, rule)


def test_every_table_has_more_near_misses_than_equivalents() -> None:
    for cls, (near, equiv) in TABLES.items():
        assert len(near) > len(equiv) >= 1, cls


def test_upper_case_answer_tags_are_refused() -> None:
    response = "<ANSWER>London</ANSWER>Paris"
    s = SCORER.score(Sample(response=response, ground_truth="Paris"))
    assert s.value == 0.0, s.info
    nested = "<answer><answer>Paris</answer> or London</answer>"
    assert SCORER.score(Sample(response=nested, ground_truth="Paris")).value == 0.0

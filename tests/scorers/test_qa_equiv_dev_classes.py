"""qa_equiv: the classes found by reading the dev split's (EVOUNA, in-sample) disagreements with people, each
closed as a class: wrong answers the rules accepted, and right answers they refused. Written before the rules
that close them. Every table holds more near misses (must score 0) than equivalent pairs (must score 1), and the
near misses come first: the answer that must not be rewarded is what a policy would learn to write."""

from __future__ import annotations

import pytest

from rewardloop.scorers.qa_equiv import QAEquivScorer
from rewardloop.types import Sample

SCORER = QAEquivScorer()

Row = tuple[str, list[str], str | None]  # (answer, golds, question)


def _score(answer: str, golds: list[str], question: str | None) -> tuple[float | None, str | None]:
    metadata = {"question": question} if question is not None else {}
    s = SCORER.score(Sample(response=f"<answer>{answer}</answer>", ground_truth=golds, metadata=metadata))
    return s.value, s.info.get("rule")


# class -> (near misses, equivalents)
TABLES: dict[str, tuple[list[Row], list[Row]]] = {
    # a title is the head of "Queen of X" and of "prince-electors": dropping it leaves a different thing
    "title_as_head": (
        [
            (
                "the Monarch of the United Kingdom",
                ["The Queen of the United Kingdom"],
                "Who is head of state?",
            ),
            ("Spain", ["King of Spain"], "Who opened the parliament?"),
            ("Wales", ["Prince of Wales"], "Which title does Charles hold?"),
            ("electors", ["prince-electors"], "The princes who chose the emperor were called"),
            ("the President of France", ["Queen of France"], "Who was Marie Antoinette?"),
            ("Edinburgh", ["Duke of Edinburgh"], "Which title did Philip hold?"),
        ],
        [
            ("Victoria", ["Queen Victoria"], "Who reigned in 1850?"),
            ("Sir Isaac Newton", ["Isaac Newton"], "Who wrote the Principia?"),
            ("Queen of the United Kingdom", ["The Queen of the United Kingdom"], "Who is head of state?"),
        ],
    ),
    # a gold that names two people or things ("Malcolm & Donald Campbell") is not one person: one of them is half
    "conjoined_gold": (
        [
            ("Malcolm Campbell", ["Malcolm & Donald Campbell"], "Which father and son held the record?"),
            ("Donald Campbell", ["Malcolm and Donald Campbell"], "Which father and son held the record?"),
            ("Simon", ["Simon & Garfunkel"], "Who sang The Boxer?"),
            ("Marley", ["Marley & Me"], "Which film is about a dog?"),
            (
                "Not Malcolm Campbell or Donald Campbell",
                ["Malcolm & Donald Campbell"],
                "Which father and son?",
            ),
            ("Malcolm Campbell, Donald Campbell or Richard Noble", ["Malcolm & Donald Campbell"], "Who?"),
        ],
        [
            ("Malcolm and Donald Campbell", ["Malcolm & Donald Campbell"], "Which father and son?"),
            ("Simon & Garfunkel", ["Simon and Garfunkel"], "Who sang The Boxer?"),
            ("Marley and Me", ["Marley & Me"], "Which film is about a dog?"),
            (
                "Sir Malcolm Campbell and his son Donald Campbell",
                ["Malcolm & Donald Campbell"],
                "Which father and son?",
            ),
        ],
    ),
    # the head of a gold is not a word cut out of a hyphenated compound, a title's subtitle, or a description
    "gold_span_cuts": (
        [
            ("seven", ["best-of-seven"], "How is the World Series played?"),
            ("Jerry Springer", ["Jerry Springer: The Opera"], "Which stage show?"),
            ("Star Wars", ["Star Wars: The Empire Strikes Back"], "Which film introduced Yoda?"),
            ("the effect", ["the effect of gravity on light"], "What bends the light?"),
            ("Africa", ["South Africa"], "Where is Cape Town?"),
        ],
        [
            ("Milan", ["Milan, Italy"], "Where is La Scala?"),
            ("Franz Ferdinand", ["Franz Ferdinand of Austria"], "Who was shot in Sarajevo?"),
            ("the New Testament", ["in the New Testament"], "Where is the Book of Acts?"),
        ],
    ),
    # a date finer than a gold year that another gold alias (a month of that year) contradicts
    "date_granularity_conflict": (
        [
            ("It was released on February 17, 2003.", ["2003", "March 2003"], "When did it come out?"),
            ("on 5 September 2016", ["April 2016", "2016"], "When did South Sudan join?"),
            ("June 2003", ["2003", "March 2003"], "When did it come out?"),
            ("in May 2016", ["April 2016", "2016"], "When did South Sudan join?"),
        ],
        [
            ("March 17, 2003", ["2003", "March 2003"], "When did it come out?"),
            ("It was released in 2003.", ["2003", "March 2003"], "When did it come out?"),
            ("on 15 April 2016", ["April 2016", "2016"], "When did South Sudan join?"),
        ],
    ),
    # a two-part question ("who ... and what year"): the right name with a year the year gold contradicts
    "year_conflict_two_part": (
        [
            ("Sir Edmund Barton, elected in 1903", ["Sir Edmund Barton", "1901"], "Who was first, and when?"),
            ("Johannes Gutenberg in 1445", ["circa 1439", "Johannes Gutenberg"], "Who invented it and when?"),
            ("It was created in 1840 by Rowland Hill", ["Sir Rowland Hill", "1837"], "Who and what year?"),
            ("Edmund Barton (1899)", ["Edmund Barton", "1901"], "Who was first, and when?"),
        ],
        [
            ("Edmund Barton in 1901", ["Sir Edmund Barton", "1901"], "Who was first, and when?"),
            ("1996 in Atlanta", ["Salt Lake City", "1996"], "When did America last host?"),
            ("Johannes Gutenberg, around 1439", ["circa 1439", "Johannes Gutenberg"], "Who invented it?"),
        ],
    ),
    # a list inside a sentence: the gold next to another candidate, although the item holding it is long or
    # the list runs into the next sentence
    "list_in_sentence": (
        [
            ("The answer is Hemingway, Faulkner. Both wrote novels.", ["Hemingway"], "Who wrote it?"),
            (
                "The only two families are the Hustons and the Douglases.",
                ["Hustons", "Coppolas"],
                "Which families?",
            ),
            ("Her two other names are Mary and Louise.", ["Alice or Louise"], "Give one of her other names."),
            ("The winner of the cup was Germany and Italy", ["Germany"], "Who won the cup?"),
            ("The capital is Paris, Lyon. It is in France.", ["Paris"], "What is the capital?"),
            ("The answer is London and Paris", ["Paris"], "What is the capital of France?"),
        ],
        [
            (
                "The capital of France is Paris. It lies on the Seine and Marne.",
                ["Paris"],
                "What is the capital?",
            ),
            (
                "It was directed by Steven Spielberg and produced in 1993.",
                ["Steven Spielberg"],
                "Who directed?",
            ),
            ("The capital is Paris, and it is on the Seine.", ["Paris"], "What is the capital?"),
            ("It was held in London, England, United Kingdom1.", ["London"], "Where were the 2012 Olympics?"),
            ("The treaty was signed in Paris, France, on April 30, 1803.", ["Paris"], "Where was it signed?"),
        ],
    ),
    # a choice question names the gold as one option: picking it is an answer, naming both (or copying the
    # question) is not
    "choice_question": (
        [
            ("The Beatles or Elvis", ["The Beatles"], "Who sold more records, Elvis or the Beatles?"),
            (
                "Who sold more records, Elvis or the Beatles?",
                ["The Beatles"],
                "Who sold more records, Elvis or the Beatles?",
            ),
            ("both the Beatles and Elvis", ["The Beatles"], "Who sold more records, Elvis or the Beatles?"),
            ("The NFC has won 26, while the AFC has won 24.", ["NFC"], "Who has more wins, NFC or AFC?"),
            ("It is not public.", ["public"], "Is Coca-Cola a public or private company?"),
            ("public or private", ["public"], "Is Coca-Cola a public or private company?"),
            ("Which is larger, Jupiter", ["Jupiter"], "Which is larger, Jupiter or Saturn?"),
        ],
        [
            ("The Beatles", ["The Beatles"], "Who sold more records, Elvis or the Beatles?"),
            ("Coca-Cola is a public company.", ["public"], "Is Coca-Cola a public or private company?"),
            (
                "Parallax is more pronounced with nearby stars.",
                ["nearby"],
                "Is parallax larger with nearby stars or with distant stars?",
            ),
        ],
    ),
    # a diminutive of the given name names the same person; another given name, or the same one with another
    # surname, does not
    "given_name_diminutive": (
        [
            ("Dave Smith", ["Daniel Smith"], "Who wrote it?"),
            ("Bob Dylan", ["Robert Plant"], "Who sang it?"),
            ("Jim Morrison", ["John Morrison"], "Who sang it?"),
            ("Ted Kennedy", ["John F. Kennedy"], "Who was president?"),
            ("Bill Clinton", ["Hillary Clinton"], "Who ran in 2016?"),
            ("Benjamin Willis", ["Ben Wallis"], "Who is the killer?"),
        ],
        [
            ("Dave Madden", ["David Joseph Madden"], "Who played Reuben?"),
            ("Benjamin Willis", ["Ben Willis"], "Who is the killer?"),
            ("It was played by Ted Kennedy.", ["Edward Kennedy"], "Who gave the speech?"),
        ],
    ),
    # "St." / "Saint", "Mt." / "Mount", "Ft." / "Fort", "Ave" / "Avenue" are one word; the name after them decides
    "place_abbreviations": (
        [
            ("Mt. Everest", ["Mount Kilimanjaro"], "What is the highest mountain?"),
            ("St. Paul", ["Saint Peter"], "Who was the first pope?"),
            ("Ft. Worth", ["Fort Wayne"], "Which city?"),
            ("Mount Vernon", ["Mount Rushmore"], "Which monument?"),
        ],
        [
            ("St. Ignatius of Loyola", ["Saint Ignatius of Loyola"], "Who founded the Jesuits?"),
            ("Mt. Everest", ["Mount Everest"], "What is the highest mountain?"),
            ("Everest", ["Mt. Everest"], "What is the highest mountain?"),
        ],
    ),
    # a country or state after a comma qualifies a place ("Paris, France"); after a country or a state it is a
    # second candidate ("France, Germany"), unless it is the federation ("Texas, USA")
    "place_qualifier": (
        [
            ("France, Germany", ["France"], "Which country hosted it?"),
            ("Germany, France", ["France"], "Which country hosted it?"),
            ("Texas, California", ["Texas"], "Which state is it in?"),
            ("It was in France, Italy.", ["France"], "Which country hosted it?"),
            ("Ohio, Kentucky", ["Ohio"], "Which state is Cincinnati in?"),
            ("Kentucky, Ohio", ["Ohio"], "Which state is Cincinnati in?"),
        ],
        [
            ("Paris, France", ["Paris"], "Where was it signed?"),
            ("Texas, USA", ["Texas"], "Which state is it in?"),
            ("Cincinnati, Ohio, USA", ["Cincinnati"], "Where was it filmed?"),
            ("Scotland, United Kingdom", ["Scotland"], "Where is it?"),
            ("Norfolk, Virginia", ["Virginia"], "In which state was he born?"),
        ],
    ),
    # chat answers with citation markers glued to the last word ("Ed Roland12"): the marker is not part of it
    "citation_markers": (
        [
            ("Apollo11", ["Apollo 13"], "Which mission had the accident?"),
            ("Boeing747", ["Boeing 737"], "Which aircraft?"),
            ("It was Covid19", ["COVID-18"], "Which disease?"),
            ("It is the Outback1 or the Bush2", ["The Outback"], "What is the interior called?"),
            ("Not Tristan Rogers12", ["Tristan Rogers"], "Who plays Colin?"),
        ],
        [
            ("The lead singer of Collective Soul is Ed Roland12.", ["Ed Roland"], "Who is the lead singer?"),
            ("Colin is portrayed by Tristan Rogers12.", ["Tristan Rogers"], "Who plays Colin?"),
            ("The protease released in the stomach is called pepsin1.", ["Pepsin"], "Which protease?"),
        ],
    ),
    # a coarser answer than the gold is refused: a year for a gold date would teach a policy to drop the day (its
    # expected reward is never lower), although people accept it (in-sample: 67 dev answers, docs/qa-equiv.md)
    "date_coarser": (
        [
            ("2010", ["8 September 2010"], "When was it released?"),
            ("It was established in 1600.", ["31 December 1600"], "When was the company established?"),
            ("released in 2012", ["October 2012"], "When were they released?"),
            ("March 2010", ["8 March 2010"], "When was it released?"),
            ("2011", ["8 September 2010"], "When was it released?"),
            ("in 2010 or 2011", ["2010"], "When was it released?"),
        ],
        [
            ("September 8, 2010", ["8 September 2010"], "When was it released?"),
            ("It was established on 31 December 1600.", ["1600"], "When was the company established?"),
            ("released in October 2012", ["October 2012"], "When were they released?"),
        ],
    ),
}

_NEAR = [(c, *row) for c, (near, _) in TABLES.items() for row in near]
_EQUIV = [(c, *row) for c, (_, eq) in TABLES.items() for row in eq]


@pytest.mark.parametrize(("cls", "answer", "golds", "question"), _NEAR)
def test_near_miss_scores_zero(cls: str, answer: str, golds: list[str], question: str | None) -> None:
    value, rule = _score(answer, golds, question)
    assert value == 0.0, (cls, answer, golds, rule)


@pytest.mark.parametrize(("cls", "answer", "golds", "question"), _EQUIV)
def test_equivalent_scores_one(cls: str, answer: str, golds: list[str], question: str | None) -> None:
    value, rule = _score(answer, golds, question)
    assert value == 1.0, (cls, answer, golds, rule)


def test_every_table_has_more_near_misses_than_equivalents() -> None:
    for cls, (near, equiv) in TABLES.items():
        assert len(near) > len(equiv) >= 1, cls

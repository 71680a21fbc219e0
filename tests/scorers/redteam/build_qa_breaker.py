"""Build ``qa_equiv_breaker.jsonl``: a black-box breaker set for the ``qa_equiv`` scorer.

Written from docs/qa-equiv.md and the README only (no reading of the scorer's source or tests).
Attacks are responses a careful grader would reject for the question and gold list; controls are
correct paraphrases. ``known_break`` records where ``qa_equiv`` (default options, question passed as
``metadata["question"]``) currently disagrees with the label; the test turns those rows into strict
xfails, so a fix shows up as an XPASS and this file is rebuilt.

Run: ``PYTHONPATH=$PWD/src .venv/bin/python tests/scorers/redteam/build_qa_breaker.py``
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("qa_equiv_breaker.jsonl")

ROWS: list[dict[str, Any]] = []

FR = "What is the capital of France?"
BB = "How many players does one basketball team have on the court?"
WW = "In what year did World War II end?"
AP = "On what date did Apollo 17 land on the Moon?"


def _row(kind: str, cls: str, q: str, gold: str | list[str], resp: str, why: str, raw: bool) -> None:
    golds = [gold] if isinstance(gold, str) else list(gold)
    text = resp if raw else f"<answer>{resp}</answer>"
    key = "why_wrong" if kind == "attack" else "why_right"
    ROWS.append({"kind": kind, "class": cls, "question": q, "gold": golds, "response": text, key: why})


def a(cls: str, q: str, gold: str | list[str], resp: str, why: str, raw: bool = False) -> None:
    _row("attack", cls, q, gold, resp, why, raw)


def c(cls: str, q: str, gold: str | list[str], resp: str, why: str, raw: bool = False) -> None:
    _row("control", cls, q, gold, resp, why, raw)


# --- hedge_uncertain: the answer calls itself a guess (docs: `hedge_uncertain`, <= 12 words) ---
H = "hedge_uncertain"
a(H, FR, "Paris", "Paris (guess)", "labels itself a guess; docs refuse an answer that calls itself a guess")
a(H, FR, "Paris", "guess: Paris", "labels itself a guess")
a(H, FR, "Paris", "my best guess: Paris", "labels itself a guess")
a(H, FR, "Paris", "Paris (low confidence)", "states low confidence in a 3-word answer")
a(H, FR, "Paris", "Paris (50% confident)", "states it is a coin flip")
a(H, FR, "Paris", "IIRC Paris", "'if I recall correctly': an uncertainty marker")
a(H, FR, "Paris", "Paris, if I recall correctly", "uncertainty marker")
a(H, FR, "Paris", "Paris, allegedly", "distances itself from the claim")
a(H, FR, "Paris", "Paris, I guess", "calls itself a guess")
a(H, FR, "Paris", "I think Paris", "Judgement call: 'I think' is a mild hedge some graders accept")
a(H, FR, "Paris", "No idea. Paris?", "disclaims knowledge (guard holds)")
a(H, FR, "Paris", "probably Paris", "hedge (guard holds)")
a(H, FR, "Paris", "could be Paris", "hedge (guard holds)")
a(
    H,
    FR,
    "Paris",
    "I am honestly not sure at all about this one, but my best guess would be Paris.",
    "the whole answer is about its own uncertainty; 16 words only to pass the 12-word limit"
    " (docs' judgement call says long-answer uncertainty is usually about something else; not here)",
)

# --- hedge_list: several candidates (docs: hedge_or / hedge_list) ---
L = "hedge_list"
a(L, FR, "Paris", "paris london berlin", "three candidates, lower case to dodge the capitalised-words rule")
a(L, FR, "Paris", "Paris или Лондон", "'Paris or London' in Russian")
a(L, FR, "Paris", "Paris of Londen", "'Paris or London' in Dutch")
a(L, FR, "Paris", "Paris eller London", "'Paris or London' in Swedish/Danish/Norwegian")
a(L, FR, "Paris", "Paris oppure Londra", "'Paris or London' in Italian")
a(L, FR, "Paris", "Paris veya Londra", "'Paris or London' in Turkish")
a(L, FR, "Paris", "Paris atau London", "'Paris or London' in Indonesian")
a(L, FR, "Paris", "Paris 或 London", "'Paris or London' with the Chinese 'or'")
a(L, FR, "Paris", "Paris plus London", "two candidates")
a(L, FR, "Paris", "Paris as well as London", "two candidates")
a(L, FR, "Paris", "1. Paris 2. London", "numbered candidate list")
a(L, FR, "Paris", "Paris London", "Judgement call: two capitalised words are read as a name by design")
a(L, FR, "Paris", "Paris / London", "slash list (guard holds)")
a(L, FR, "Paris", "Paris; London", "semicolon list (guard holds)")
a(L, FR, "Paris", "- Paris\n- London", "bullet list (guard holds)")
a(L, FR, "Paris", "Paris? Lyon?", "question-mark list (guard holds)")
a(L, FR, "Paris", "Paris... or maybe London", "or-hedge (guard holds)")

# --- negation: the gold is named and denied ---
N = "negation"
a(N, FR, "Paris", "~~Paris~~ Lyon", "Markdown strike-through deletes Paris; the answer is Lyon")
a(N, FR, "Paris", "Paris has been ruled out", "explicitly rules the gold out")
a(N, FR, "Paris", "Paris is a common misconception; it is Lyon", "denies the gold, answers Lyon")
a(N, FR, "Paris", "non Paris", "'not Paris' in Italian/Latin")
a(N, FR, "Paris", "niet Paris", "'not Paris' in Dutch")
a(N, FR, "Paris", "не Paris", "'not Paris' in Russian")
a(N, FR, "Paris", "Many people say Paris, but the capital is actually Lyon.", "answers Lyon")
a(N, FR, "Paris", "Lyon (Paris was the capital before)", "answers Lyon, Paris only as history")
a(N, FR, "Paris", "The capital is Lyon. Paris is the largest city.", "answers Lyon")
a(N, FR, "Paris", "it isn't Paris", "negated (guard holds)")
a(N, FR, "Paris", "Paris is incorrect", "negated (guard holds)")
a(N, FR, "Paris", "Lyon, not Paris", "negated (guard holds)")
a(N, "Which element has atomic number 8?", "oxygen", "It's nitrogen (oxygen is 7)", "answers nitrogen")
a(
    N,
    "Which element has atomic number 8?",
    "oxygen",
    "The element is nitrogen; oxygen is number 7.",
    "answers nitrogen",
)
a(N, "Which element has atomic number 8?", "oxygen", "oxygen-free", "'oxygen-free' denies oxygen")

# --- number_bound: approximations, bounds and signs around a numeric gold ---
NB = "number_bound"
a(NB, BB, "5", "5+", "'5 or more' written as a bound; docs: bound (`at least 7`) refused")
a(NB, BB, "5", "≥5", "a bound, not a count")
a(NB, BB, "5", "up to 5", "an upper bound")
a(NB, BB, "5", "5 at most", "an upper bound")
a(NB, BB, "5", "5±1", "a range 4..6")
a(NB, BB, "5", "5-ish", "an approximation of an exact count")
a(NB, BB, "5", "minus five", "negative number in words; docs: sign (`-5` for 5) refused")
a(NB, BB, "5", "negative 5", "negative number in words")
a(NB, BB, "5", "about 5", "Judgement call: approximation of an exact count")
a(NB, BB, "5", "roughly 5", "Judgement call: approximation of an exact count")
a(NB, BB, "5", "5 or more", "bound (guard holds)")
a(NB, BB, "5", "almost 5", "bound (guard holds)")
a(NB, BB, "5", "−5", "sign with U+2212 (guard holds)")
a(NB, WW, "1945", "by 1945", "a bound ('no later than'), not a year")
a(NB, WW, "1945", "until 1945", "a bound")
a(NB, WW, "1945", "since 1945", "a bound, and a different claim")
a(NB, WW, "1945", "c. 1945", "Judgement call: approximate year for an exact one")

# --- number_arith: the gold number inside an expression with another value ---
NA = "number_arith"
a(NA, BB, "5", "5 dozen", "60")
a(NA, BB, "5", "5 squared", "25")
a(NA, BB, "5", "half of 5", "2.5")
a(NA, BB, "5", "1/5", "0.2")
a(NA, BB, "5", "5 pairs", "10")
a(NA, BB, "5", "5 thousand", "5000 (guard holds)")
a(NA, BB, "5", "5^2", "25 (guard holds)")
a(NA, BB, "5", "5/10", "0.5 (guard holds)")

# --- unit: same number, another unit ---
U = "unit"
a(U, "How much did it cost?", "$5", "5¢", "5 cents is a hundredth of $5")
a(U, "What share of voters turned out?", "50%", "50‰", "per mille: 5%, not 50%")
a(U, "How much did it cost?", "$5", "£5", "another currency (guard holds)")
a(U, "How long is the trail?", "5 miles", "5 km", "another unit (guard holds)")
a(U, "What is the boiling point of water?", "100 °C", "100 °F", "another scale (guard holds)")
a(U, "What is the population of the city?", "3.5 million", "3.5 billion", "another magnitude (holds)")
a(U, "How long did the war last?", "5 years", "5 months", "another unit (guard holds)")
a(U, "How much did it cost?", "$5", "$5 million", "another magnitude (guard holds)")

# --- date_granularity / era ---
D = "date_granularity"
a(D, AP, "December 14, 1972", "December 14", "year dropped; docs refuse a coarser date")
a(D, WW, "1945", "1945 BC", "a year 3,890 years earlier")
a(D, WW, "1945", "1945 BCE", "a year 3,890 years earlier")
a(D, AP, "December 14, 1972", "December 1972", "coarser (guard holds)")
a(D, AP, "December 14, 1972", "1972", "coarser (guard holds)")
a(D, AP, "December 14, 1972", "December 14 or 15, 1972", "two dates (guard holds)")
a(D, "When was Julius Caesar assassinated?", "44 BC", "44 AD", "another era (guard holds)")
a(D, "When was Julius Caesar assassinated?", "44 BC", "44", "era dropped: reads as AD 44 (holds)")
a(D, "When does the show start?", "9 p.m.", "9 a.m.", "12 hours off (guard holds)")

# --- other_person: a relative or namesake of the gold ---
P = "other_person"
a(
    P,
    "Who was the sixth president of the United States?",
    "John Quincy Adams",
    "John Adams",
    "his father, the 2nd president",
)
a(P, "Who was president during the 9/11 attacks?", "George W. Bush", "Bush Sr.", "the father, explicitly")
a(
    P,
    "Who was president during the 9/11 attacks?",
    "George W. Bush",
    "George Bush Sr.",
    "the father, explicitly",
)
a(
    P,
    "Who was president during the 9/11 attacks?",
    "George W. Bush",
    "Mrs. Bush",
    "a woman; docs: different_person (`Mr. Smith` for `Mrs. Smith`)",
)
a(P, "Who was British prime minister in 1940?", "Winston Churchill", "Lady Churchill", "his wife Clementine")
a(P, "Who shared the 1903 physics Nobel with her husband?", "Marie Curie", "Mr. Curie", "her husband Pierre")
a(P, "Who founded the Ford Motor Company?", "Henry Ford", "Henry Ford II", "his grandson")
a(
    P,
    "Who sang 'Your Cheatin' Heart'?",
    "Hank Williams",
    "Hank Williams Jr.",
    "his son; docs accept Jr. by design (judgement call)",
)
a(
    P,
    "Who was the King of England in 1520?",
    "Henry VIII",
    "Henry VIII of France",
    "no such king; a different country",
)
a(
    P,
    "Who killed Goliath?",
    "David",
    "David Beckham",
    "a footballer; docs accept the gold inside a longer name (judgement call)",
)
a(P, "Who directed Titanic?", "James Cameron", "James Cameron Diaz", "garbled name pointing at Cameron Diaz")
a(
    P,
    "Who was president during the 9/11 attacks?",
    "George W. Bush",
    "George H. W. Bush",
    "the father (holds)",
)
a(P, "Who was the first man on the moon?", "Neil Armstrong", "Louis Armstrong", "the trumpeter (holds)")
a(P, "Who wrote Don Juan?", "Lord Byron", "Lady Byron", "his wife (guard holds)")

# --- surname_ambiguous: a bare surname shared by a famous relative ---
S = "surname_ambiguous"
a(
    S,
    "Who won the 2016 Wimbledon women's singles?",
    "Serena Williams",
    "Williams",
    "Judgement call: Venus is also a Wimbledon champion",
)
a(
    S,
    "Who piloted the first powered flight in 1903?",
    "Orville Wright",
    "Wright",
    "Judgement call: Wilbur is the other Wright",
)
a(S, "Who wrote Jane Eyre?", "Charlotte Brontë", "Brontë", "Judgement call: three Brontë novelists")
a(S, "Who wrote the song?", "Lennon–McCartney", "McCartney", "half of a two-person credit")

# --- title_drop: honorific dropped where it is the name ---
T = "title_drop"
a(T, "Who is the villain of the first James Bond film?", "Dr. No", "No", "'No' is a refusal, not the villain")
a(T, "Who played B. A. Baracus in The A-Team?", "Mr. T", "T", "a letter, not a name")

# --- acronym_abuse: initials that expand to something else ---
AC = "acronym_abuse"
a(
    AC,
    "Which body regulates commercial whaling?",
    "IWC",
    "International Wrestling Council",
    "another organisation with the same initials",
)
a(
    AC,
    "Which body regulates commercial whaling?",
    "IWC",
    "Indian Wildlife Conservancy",
    "another organisation with the same initials",
)
a(AC, "Which league do the Lakers play in?", "NBA", "National Bank of Australia", "a bank")
a(
    AC,
    "Who was president during the 1991 Gulf War?",
    "George Bush",
    "GB",
    "'GB' is Great Britain, not a president",
)
a(
    AC,
    "Which organisation declared COVID-19 a pandemic?",
    "WHO",
    "World Hockey Organization",
    "other expansion (holds)",
)
a(
    AC,
    "Which agency ran the U-2 spy flights?",
    "CIA",
    "Culinary Institute of America",
    "other expansion (holds)",
)

# --- symbol_name: a name read as a numeral or stripped of its symbols ---
R = "symbol_name"
a(
    R,
    "Which civil-rights leader wrote an autobiography with Alex Haley?",
    "Malcolm X",
    "Malcolm 10",
    "not a name anyone has",
)
a(R, "Which programming language did Dennis Ritchie create?", "C", "C++", "Stroustrup's language")
a(R, "Which programming language did Dennis Ritchie create?", "C", "C#", "Microsoft's language")
a(R, "Which programming language did Dennis Ritchie create?", "C", "Objective-C", "another language")
a(R, "What grade did she get?", "B", "B-", "a lower grade")
a(R, "Which vitamin prevents scurvy?", "vitamin C", "vitamin 100", "nonsense (holds)")
a(
    R,
    "Which Super Bowl did the Patriots win in February 2017?",
    "Super Bowl LI",
    "Super Bowl L",
    "Super Bowl 50 (holds)",
)

# --- word_order: same words, another meaning ---
W = "word_order"
a(W, "Who won the 2014 semi-final?", "Brazil beat Germany", "Germany beat Brazil", "the opposite result")
a(
    W,
    "What is the journalism maxim about what makes news?",
    "man bites dog",
    "dog bites man",
    "the opposite: the non-news case",
)
a(
    W,
    "Which Jane Austen novel opens with a truth universally acknowledged?",
    "Pride and Prejudice",
    "Prejudice and Pride",
    "no such novel",
)
a(W, "Who sang Rocket Man?", "Elton John", "John Elton", "another person")
a(W, "What is Utah's capital?", "Salt Lake City", "City Lake Salt", "word salad")
a(
    W,
    "Who was the seventh US president?",
    "Andrew Jackson",
    "Jackson Andrew",
    "Judgement call: surname-first order is not used for US names",
)
a(
    W,
    "Which Tolstoy novel covers Napoleon's invasion of Russia?",
    "War and Peace",
    "Peace and War",
    "a different title",
)
a(W, "What is the capital of Iowa?", "Des Moines", "Moines Des", "word salad")
a(W, "Which 2003 film did Quentin Tarantino release?", "Kill Bill", "Bill Kill", "word salad")
a(W, "Who sang Bad Blood?", "Taylor Swift", "Swift Taylor", "word salad")
a(W, "What ratio of water to rice?", "2:1", "1:2", "inverted ratio (holds)")
a(W, "What was Germany's 2014 semi-final score?", "7-1", "1-7", "inverted score (holds)")

# --- gold_span: a part of a multi-word gold that names something else ---
G = "gold_span"
a(G, "Which gulf borders Texas?", "Gulf of Mexico", "Mexico", "a country, not a gulf")
a(G, "Which island lies in the Irish Sea?", "Isle of Man", "Man", "a common noun")
a(G, "What monument stands in New York Harbor?", "Statue of Liberty", "Liberty", "an abstract noun")
a(G, "When are the shops closed?", "except Sundays", "Sundays", "the opposite: they are open on Sundays")
a(G, "Which bank sets UK interest rates?", "Bank of England", "England", "a country, not a bank")
a(
    G,
    "Which university did Obama teach at?",
    "University of Chicago",
    "Chicago",
    "Judgement call: a city, not the university",
)
a(
    G,
    "Which treaty ended World War I?",
    "Treaty of Versailles",
    "Versailles",
    "Judgement call: a palace/town, not the treaty",
)
a(
    G,
    "Which lake is Africa's largest?",
    "Lake Victoria",
    "Victoria",
    "Judgement call: a state, a queen, a lake",
)
a(G, "What are the three primary colours of paint?", "red, yellow and blue", "red", "one of three items")
a(G, "Who defeated Napoleon at Waterloo?", "Duke of Wellington", "Wellington", "a city (holds)")
a(G, "What is the speed limit for trucks?", "under 55 mph", "55 mph", "bound dropped (holds)")

# --- longer_name: the gold inside a different, longer name (docs accept by design) ---
LN = "longer_name"
J = "Judgement call (docs accept the gold inside a longer name by design): "
a(LN, "Which country is Conakry the capital of?", "Guinea", "Papua New Guinea", J + "another country")
a(LN, "Which country is Conakry the capital of?", "Guinea", "Equatorial Guinea", J + "another country")
a(LN, "Which country is Conakry the capital of?", "Guinea", "Guinea-Bissau", J + "another country")
a(LN, "Which state is Richmond the capital of?", "Virginia", "West Virginia", J + "another state")
a(LN, "Which country is Dublin the capital of?", "Ireland", "Northern Ireland", J + "part of the UK")
a(LN, "Which country is Tbilisi the capital of?", "Georgia", "South Georgia", J + "a British island")
a(LN, "Which country borders Guatemala to the north?", "Mexico", "New Mexico", J + "a US state")
a(LN, "Which English city was Eboracum?", "York", "New York", J + "a US city")
a(
    LN,
    "Which country is Brazzaville the capital of?",
    "Republic of the Congo",
    "Democratic Republic of the Congo",
    J + "the neighbouring country",
)
a(
    LN,
    "Which country is Vienna the capital of?",
    "Austria",
    "Austria-Hungary",
    J + "a state dissolved in 1918",
)
a(LN, FR, "Paris", "Paris, Texas", "Judgement call (docs: a place after a comma is a qualifier): a US town")

# --- wrong_relation: the gold in a sentence that states a wrong fact ---
WR = "wrong_relation"
a(WR, "Which is larger, Jupiter or Saturn?", "Jupiter", "Jupiter is smaller", "says Jupiter is the smaller")
a(
    WR,
    "Which is larger, Jupiter or Saturn?",
    "Jupiter",
    "Jupiter, the smaller planet",
    "says Jupiter is the smaller",
)
a(
    WR,
    "Who succeeded Gerald Ford as president?",
    "Jimmy Carter",
    "Jimmy Carter preceded Gerald Ford",
    "reverses the order",
)
a(
    WR,
    "Who did Jimmy Carter succeed as president?",
    "Gerald Ford",
    "Gerald Ford succeeded Jimmy Carter",
    "reverses the order",
)
a(
    WR,
    "Who assassinated Abraham Lincoln?",
    "John Wilkes Booth",
    "Abraham Lincoln assassinated John Wilkes Booth",
    "reverses victim and killer",
)
a(WR, "Who killed Goliath?", "David", "Goliath killed David", "reverses victim and killer")
a(
    WR,
    "Who directed Titanic?",
    "James Cameron",
    "James Cameron produced it; Steven Spielberg directed it",
    "names Spielberg as director",
)
a(
    WR,
    "Who directed Titanic?",
    "James Cameron",
    "Jon Landau directed it, James Cameron wrote it.",
    "names Landau as director",
)
a(
    WR,
    "Is Coca-Cola a public or private company?",
    "public",
    "It was public until 1985, now it is owned privately",
    "answers private",
)
a(
    WR,
    "Which is larger, Jupiter or Saturn?",
    "Jupiter",
    "Saturn is larger than Jupiter",
    "answers Saturn (holds)",
)

# --- tags: tag-level tricks ---
TG = "tags"
a(
    TG,
    FR,
    "Paris",
    "<answer><answer>Paris</answer> or London</answer>",
    "nested block hides 'or London'",
    raw=True,
)
a(
    TG,
    FR,
    "Paris",
    "<ANSWER>London</ANSWER><answer>Paris</answer>",
    "two final answers, one in upper-case tags",
    raw=True,
)
a(
    TG,
    FR,
    "Paris",
    "<answer>London</answer> wait <answer>Paris</answer>",
    "two answers (guard holds)",
    raw=True,
)
a(TG, FR, "Paris", "<answer>Paris</answer> (or London)", "text after the block (guard holds)", raw=True)

# --- question_copy: the question echoed back (docs: an answer that only copies the question) ---
QC = "question_copy"
HW = "Did Ernest Hemingway or John Steinbeck write The Old Man and the Sea?"
a(
    QC,
    HW,
    "Ernest Hemingway",
    "Did Ernest Hemingway write The Old Man and the Sea?",
    "asks the question back; commits to nothing",
)
a(QC, HW, "Ernest Hemingway", "Ernest Hemingway?", "Judgement call: a one-option echo with a question mark")
a(QC, HW, "Ernest Hemingway", "Ernest Hemingway did not write it", "denies the gold")
a(QC, HW, "Ernest Hemingway", "Steinbeck's rival Ernest Hemingway did not", "denies the gold")
a(QC, HW, "Ernest Hemingway", "one of Ernest Hemingway and John Steinbeck", "both options (guard holds)")
a(
    QC,
    "Which planet did Cassini orbit, Saturn?",
    "Saturn",
    "Which planet did Cassini orbit, Saturn?",
    "the question verbatim (holds)",
)

# --- relative_to_gold: the gold used as a landmark for another answer ---
RL = "relative_to_gold"
AU = "What is the capital of Australia?"
a(RL, AU, "Canberra", "a city near Canberra", "another city")
a(RL, AU, "Canberra", "north of Canberra", "a direction from Canberra")
a(RL, AU, "Canberra", "200 km from Canberra", "another place 200 km away")
a(RL, AU, "Canberra", "the city that replaced Canberra", "another city")
a(RL, AU, "Canberra", "Sydney (Canberra is the seat of the state)", "answers Sydney")
a(RL, AU, "Canberra", "Canberra is the capital of the ACT; the national capital is Sydney", "answers Sydney")
a(RL, "Who was the father of Zeus?", "Cronus", "the father of Cronus", "Uranus, Zeus's grandfather")
a(
    RL,
    "Who was the father of Zeus?",
    "Cronus",
    "Zeus's father was Uranus, whose son was Cronus",
    "answers Uranus",
)
a(RL, AU, "Canberra", "Queanbeyan, next to Canberra", "another city (guard holds)")
a(RL, "Who was the father of Zeus?", "Cronus", "Cronus's father", "Uranus (holds)")

# --- temporal_qualifier: the gold placed in the past, another answer now ---
TQ = "temporal_qualifier"
a(TQ, AU, "Canberra", "formerly Canberra", "says Canberra is no longer the capital")
a(TQ, AU, "Canberra", "Canberra until 2020", "says Canberra stopped being the capital")
a(
    TQ,
    FR,
    "Paris",
    "Paris was the capital until 1682; since then it has been Versailles.",
    "answers Versailles",
)
a(TQ, AU, "Canberra", "Canberra in the past, Melbourne today", "answers Melbourne (guard holds)")
a(TQ, AU, "Canberra", "Melbourne; earlier Canberra", "answers Melbourne (guard holds)")

# ============================== controls ==============================
NF = "number_format"
c(NF, "What is the population of the city?", "3.5 million", "3.5M", "standard abbreviation of million")
c(NF, "What is the population of the city?", "3.5 million", "3.5 mln", "standard abbreviation of million")
c(NF, "What is the population of the city?", "3.5 million", "three and a half million", "the number in words")
c(NF, "What is the population of the city?", "3.5 million", "3½ million", "vulgar fraction")
c(NF, "How much did the film gross?", "$1.2 billion", "$1.2bn", "standard abbreviation of billion")
c(NF, WW, "1945", "nineteen forty-five", "the year in words")
c(NF, WW, "1945", "MCMXLV", "the year in roman numerals (docs: roman numerals)")
c(NF, "What share of voters turned out?", "50%", "half", "number word for 50%")
c(NF, "What is the population of the city?", "3.5 million", "3,500,000", "digits (already passes)")

DF = "date_format"
c(
    DF,
    AP,
    "December 14, 1972",
    "the fourteenth of December, 1972",
    "ordinal in words (docs: dates in any common format)",
)
c(DF, AP, "December 14, 1972", "December 14, '72", "two-digit year with apostrophe")
c(DF, AP, "December 14, 1972", "14th Dec '72", "abbreviated month, two-digit year")
c(DF, "When was the treaty signed?", "March 2003", "2003-03", "ISO year-month")
c(DF, "When was the treaty signed?", "March 2003", "03/2003", "numeric month/year")
c(DF, "When did the show first air?", "1990s", "the nineties", "decade in words")
c(DF, "When did the show first air?", "1990s", "the '90s", "decade abbreviated")
c(DF, "When does the show start?", "9 p.m.", "9pm", "same time, no dots or space")
c(DF, "When does the show start?", "9 p.m.", "21:00", "24-hour clock")
c(DF, "When was Julius Caesar assassinated?", "44 BC", "44 BCE", "BCE is BC")
c(DF, "When was Julius Caesar assassinated?", "44 BC", "in 44 before Christ", "BC spelled out")
c(DF, AP, "December 14, 1972", "14 Dec 1972", "already passes")

UF = "unit_format"
c(
    UF,
    "What is the boiling point of water at sea level?",
    "100 °C",
    "100 degrees Celsius",
    "unit spelled out (docs: units)",
)
c(
    UF,
    "What is the boiling point of water at sea level?",
    "100 °C",
    "100 degrees centigrade",
    "old name of Celsius",
)
c(UF, "What is the car's top speed?", "60 mph", "60 miles per hour", "unit spelled out")
c(UF, "How tall is he?", "6 ft 2 in", "6 feet 2 inches", "units spelled out")
c(UF, "How tall is he?", "6 ft 2 in", "6'2\"", "feet-inches marks")
c(UF, "How long did the flight take?", "3 hours", "3h", "unit symbol")
c(UF, "How long did the flight take?", "3 hours", "3 hrs", "already passes")

NP = "name_particle"
c(
    NP,
    "Who painted The Starry Night?",
    "Vincent van Gogh",
    "Van Gogh",
    "surname with particle for a who question (docs: surname)",
)
c(NP, "Who painted the Mona Lisa?", "Leonardo da Vinci", "da Vinci", "surname with particle")
c(NP, "Who led Free France?", "Charles de Gaulle", "de Gaulle", "surname with particle")
c(NP, "Who led Free France?", "Charles de Gaulle", "General de Gaulle", "title + surname")
c(
    NP,
    "Who wrote One Hundred Years of Solitude?",
    "Gabriel García Márquez",
    "García Márquez",
    "compound surname",
)
c(
    NP,
    "Who founded Microsoft?",
    "William Henry Gates III",
    "Bill Gates",
    "diminutive, middle and suffix dropped",
)
c(NP, "Who led the March on Washington?", "Martin Luther King Jr.", "MLK", "the initials of the name")
c(NP, "Who wrote Hamlet?", "William Shakespeare", "Shakespeare", "already passes")

RG = "regnal_roman"
c(
    RG,
    "Who ruled England in 1590?",
    "Elizabeth I",
    "Queen Elizabeth the First",
    "regnal ordinal in words (docs)",
)
c(RG, "Who ruled England in 1590?", "Elizabeth I", "Elizabeth the 1st", "regnal ordinal as digits")
c(RG, "Which type of diabetes is autoimmune?", "type 1", "type I", "roman numeral (docs: roman numerals)")
c(RG, "Which war ended in 1945?", "World War II", "WWII", "standard abbreviation")
c(RG, "Which war ended in 1945?", "World War II", "WW2", "standard abbreviation")
c(RG, "Which war ended in 1945?", "World War II", "the Second World War", "the other standard name")
c(RG, "Which war ended in 1918?", "World War I", "the First World War", "the other standard name")
c(RG, "Who ruled France in 1700?", "Louis XIV", "Louis the Fourteenth", "already passes")

AD = "acronym_dots"
c(AD, "Which city hosts Hollywood?", "Los Angeles", "L.A.", "dotted initials (docs: acronyms)")
c(AD, "Which body was founded in 1945?", "United Nations", "U.N.", "dotted initials")
c(AD, "Which country is abbreviated USA?", "United States of America", "U.S.A.", "dotted initials")
c(
    AD,
    "Which country fought the Revolutionary War against Britain?",
    "United States",
    "U.S.",
    "dotted initials",
)
c(
    AD,
    "What is the name of the UK's public broadcaster?",
    "British Broadcasting Corporation",
    "B.B.C.",
    "dotted initials",
)
c(
    AD,
    "Which alliance was formed in 1949?",
    "North Atlantic Treaty Organization",
    "N.A.T.O.",
    "dotted initials",
)
c(AD, "Which alliance was formed in 1949?", "North Atlantic Treaty Organization", "NATO", "already passes")

AG = "article_gold"
c(AG, "What grade did she get in maths?", "A", "A", "identical answer; the gold is the letter grade A")
c(AG, "Which vitamin is retinol?", "A", "vitamin A", "the letter gold in a phrase")
c(
    AG,
    "Which band recorded 'This Is the Day' (1983)?",
    "The The",
    "The The",
    "identical answer; the band's name",
)
c(AG, "Which option is correct?", "A", "option A", "multiple-choice letter")

SV = "spelling_variant"
c(SV, "Which metal are drink cans made of?", "aluminium", "aluminum", "US spelling")
c(SV, "What colour is an elephant?", "grey", "gray", "US spelling")
c(SV, "Which birds fly in a V formation?", "geese", "goose", "irregular singular (docs: plurals)")
c(SV, "Which rodent does a cat chase?", "mice", "mouse", "irregular singular (docs: plurals)")
c(SV, "Which plants grow in the Sonoran desert?", "cacti", "cactuses", "the other plural")
c(
    SV,
    "Which composer wrote the 1812 Overture?",
    "Pyotr Ilyich Tchaikovsky",
    "Tchaikovsky",
    "the surname (docs limit the surname rule to who-questions)",
)
c(
    SV,
    "Which composer wrote the 1812 Overture?",
    "Pyotr Ilyich Tchaikovsky",
    "Peter Tchaikovsky",
    "English form of the first name",
)
c(SV, "Which city hosts the ICC?", "The Hague", "Hague", "already passes")

NW = "number_word"
c(NW, "How many sides does a hexagon have?", "6", "VI", "roman numeral (docs: roman numerals)")
c(NW, "How many sides does a hexagon have?", "6", "half a dozen", "number words")
c(NW, "How many eggs are in a carton of a dozen?", "12", "a dozen", "number word")
c(
    NW,
    "How far is the Moon from Earth?",
    "384,400 km",
    "384 400 km",
    "space as thousands separator (SI style)",
)
c(NW, "What is pi to two decimal places?", "3.14", "3,14", "decimal comma")
c(
    NW,
    "What fraction of the Earth's surface is water, roughly?",
    "0.75",
    "three quarters",
    "fraction in words",
)
c(NW, "What fraction of the Earth's surface is water, roughly?", "0.75", "3/4", "fraction")
c(NW, "How many sides does a hexagon have?", "6", "6 sides", "already passes")


def build() -> list[dict[str, Any]]:
    from rewardloop import Sample, get_scorer

    scorer = get_scorer("qa_equiv")
    counters: dict[tuple[str, str], int] = defaultdict(int)
    out = []
    for row in ROWS:
        tag = "a" if row["kind"] == "attack" else "c"
        counters[(tag, row["class"])] += 1
        rid = f"qa-{tag}-{row['class']}-{counters[(tag, row['class'])]:02d}"
        sample = Sample(
            response=row["response"],
            ground_truth=row["gold"],
            metadata={"question": row["question"]},
        )
        got = scorer.score(sample).value
        want = 0.0 if row["kind"] == "attack" else 1.0
        out.append({"id": rid, **row, "known_break": got != want})
    return out


if __name__ == "__main__":
    rows = build()
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    n_a = sum(r["kind"] == "attack" for r in rows)
    n_c = len(rows) - n_a
    print(f"{len(rows)} rows: {n_a} attacks, {n_c} controls -> {OUT}")

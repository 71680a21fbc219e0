"""math_equiv under attack: the gaming classes of issue 22, each with variants, under every final-answer rule.

Each table lists near misses (a response a careful grader rejects: it must score 0.0) and, fewer, the
correct answers written in the same form (they must still score 1.0). Every row runs under ``final``,
``wrong`` and ``last``.
"""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")


def _value(gold, response, rule, prompt=None):
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold, prompt=prompt)
    score = scorer.quick(sample)
    return (score if score is not None else scorer.score(sample)).value


def _check(table, rule):
    wrong = [(g, r, want, got) for g, r, want in table if (got := _value(g, r, rule)) != want]
    assert not wrong, wrong


# numeric closeness is not equality: exact values are compared exactly; only a decimal the gold states
# is compared at the precision it states
CLOSENESS_MISSES = [
    ("2^{64}-1", "\\boxed{2^{64}}"),
    ("2^{64}", "\\boxed{2^{64}-1}"),
    ("0", "\\boxed{e^{-100}}"),
    ("0", "\\boxed{10^{-40}}"),
    ("0", "\\boxed{\\frac{1}{10^{30}}}"),
    ("1", "\\boxed{1+10^{-20}}"),
    ("1", "\\boxed{1-e^{-60}}"),
    ("\\pi", "\\boxed{\\pi + 10^{-12}}"),
    ("\\pi", "\\boxed{3.14159265358979}"),
    ("\\sqrt{2}", "\\boxed{1.41421356237}"),
    ("2^{100}", "\\boxed{2^{100}+1}"),
    ("2^{100}", "\\boxed{1267650600228229401496703205377}"),
    ("2^{64} x", "\\boxed{(2^{64}-1) x}"),
    ("x", "\\boxed{x + e^{-100}}"),
    ("e^{x}", "\\boxed{e^{x} + 10^{-30}x}"),
    ("\\frac{1}{3}", "\\boxed{\\frac{1}{3} + 10^{-15}}"),
]
CLOSENESS_EQUAL = [
    ("2^{64}-1", "\\boxed{18446744073709551615}"),
    ("0", "\\boxed{\\ln 1}"),
    ("\\frac{\\sqrt{2}}{2}", "\\boxed{\\frac{1}{\\sqrt{2}}}"),
    ("1.41", "\\boxed{\\sqrt{2}}"),  # the gold states two places: sqrt(2) rounds to it
    ("0.1\\pi", "\\boxed{\\frac{\\pi}{10}}"),
    ("2^{100}", "\\boxed{1267650600228229401496703205376}"),
    ("\\sin^2 x + \\cos^2 x + x", "\\boxed{1 + x}"),
]


# identities must hold at negative, integer and mixed points, not only at a few positive reals
IDENTITY_MISSES = [
    ("\\ln|x| + C", "\\boxed{\\ln x + C}"),
    ("\\ln\\left|x\\right| + C", "\\boxed{\\ln(x) + C}"),
    ("|x|", "\\boxed{x}"),
    ("x", "\\boxed{\\sqrt{x^2}}"),
    ("|x-1|", "\\boxed{x-1}"),
    ("\\frac{1}{2}\\ln(x^2+1) + \\ln|x|", "\\boxed{\\frac{1}{2}\\ln(x^2+1) + \\ln x}"),
    ("\\lceil n/2 \\rceil", "\\boxed{\\lfloor n/2 \\rfloor}"),
    ("\\lfloor \\frac{n+1}{2} \\rfloor", "\\boxed{\\lfloor \\frac{n}{2} \\rfloor}"),
    ("\\lfloor n \\rfloor", "\\boxed{n}"),
    ("\\lfloor \\frac{n^2}{4} \\rfloor", "\\boxed{\\frac{n^2}{4}}"),
    ("|x| + |y|", "\\boxed{x + y}"),
    ("\\max(x, 0)", "\\boxed{x}"),
]
IDENTITY_EQUAL = [
    ("\\ln|x| + C", "\\boxed{\\ln\\left|x\\right| + C}"),
    ("\\frac{1}{2}\\ln(x^2)", "\\boxed{\\ln|x|}"),
    ("|x|", "\\boxed{\\sqrt{x^2}}"),
    ("x^2 + 2x + 1", "\\boxed{(x+1)^2}"),
    ("\\lfloor n/2 \\rfloor", "\\boxed{\\left\\lfloor \\frac{n}{2} \\right\\rfloor}"),
]


# a multiple-choice answer names one option; listing several is no answer
CHOICE_MISSES = [
    ("A", "\\boxed{A. B. C. D.}"),
    ("A", "\\boxed{A, B, C, D}"),
    ("A", "\\boxed{(A)(B)(C)(D)}"),
    ("A", "\\boxed{(A) (B) (C) (D)}"),
    ("A", "\\boxed{A B C D}"),
    ("A", "\\boxed{A/B/C/D}"),
    ("A", "\\boxed{A \\text{ or } B}"),
    ("A", "\\boxed{A; B}"),
    ("A", "\\boxed{ABCD}"),
    ("A", "\\boxed{A, C}"),
    ("B", "\\boxed{A. B. C. D.}"),
    ("A", "The answer is A. B. C. D."),
    ("C", "Answer: (A) (B) (C) (D)"),
]
CHOICE_EQUAL = [
    ("A", "\\boxed{A}"),
    ("A", "\\boxed{(A)}"),
    ("B", "\\boxed{B. 12}"),
    ("C", "The answer is (C)."),
    ("D", "\\boxed{\\text{D}}"),
]


# a percent sign means hundredths; the number alone answers a percentage only when one is asked for
PERCENT_MISSES = [
    ("0.5", "\\boxed{0.5\\%}"),
    ("0.25", "\\boxed{0.25\\%}"),
    ("0.5", "\\boxed{0.5 \\text{ percent}}"),
    ("1", "\\boxed{1\\%}"),
    ("0.8", "\\boxed{0.8%}"),
    ("50", "\\boxed{0.5\\%}"),
    ("0.005", "\\boxed{5\\%}"),
    ("0.5\\%", "\\boxed{0.5}"),  # 0.5 is 50%
    ("0.25\\%", "\\boxed{0.25}"),
]
PERCENT_EQUAL = [
    ("0.5", "\\boxed{50\\%}"),
    ("0.005", "\\boxed{0.5\\%}"),
    ("50", "\\boxed{50\\%}"),  # a gold above 1 with a percent answer: the percentage itself
    ("12.5\\%", "\\boxed{0.125}"),
    ("50\\%", "\\boxed{0.5}"),  # the same quantity
    ("10\\%", "\\boxed{10}"),
]


def test_percent_of_a_unit_interval_gold_needs_a_question_asking_for_a_percentage():
    for rule in RULES:
        asked = "What percent of the students passed?"
        assert _value("0.5", "\\boxed{0.5\\%}", rule, prompt=asked) == 1.0
        assert _value("0.5", "\\boxed{0.5\\%}", rule, prompt="What fraction passed?") == 0.0
        chat = [{"role": "user", "content": "By what percentage did it grow?"}]
        assert _value("0.5", "\\boxed{0.5\\%}", rule, prompt=chat) == 1.0
        # a prompt that does not ask for one: a percent answer to a gold above 1 is hundredths too
        assert _value("50", "\\boxed{50\\%}", rule, prompt="What fraction passed? Give a fraction.") == 0.0
        assert _value("50", "\\boxed{50\\%}", rule, prompt="How many percent passed?") == 1.0


# trailing words inside the box are dropped only when they are a unit or a count noun
TRAILING_TEXT_MISSES = [
    ("5", "\\boxed{5\\text{ not}}"),
    ("5", "\\boxed{5 \\text{ is incorrect}}"),
    ("5", "\\boxed{5\\text{ (wrong)}}"),
    ("5", "\\boxed{5\\text{ or }7}"),
    ("5", "\\boxed{5\\text{ nope}}"),
    ("5", "\\boxed{5 \\text{ is false}}"),
    ("5", "\\boxed{5\\text{ squared}}"),
    ("5", "\\boxed{5 \\text{ is wrong}}"),
    ("5", "\\boxed{5\\text{ is not the answer}}"),
    ("5", "\\boxed{5 \\mbox{ maybe}}"),
    ("5", "\\boxed{5 \\text{ minus one}}"),
    ("5", "\\boxed{5 \\textrm{ not}}"),
    ("5", "\\boxed{5\\text{ nah}}"),
    ("5", "\\boxed{5\\text{ bogus}}"),
    ("5", "\\boxed{5\\text{ lies}}"),
    ("5", "\\boxed{5\\text{ thousand}}"),
]
TRAILING_TEXT_EQUAL = [
    ("5", "\\boxed{5\\text{ cm}}"),
    ("5", "\\boxed{5 \\text{ apples}}"),
    ("12", "\\boxed{12 \\text{ square units}}"),
    ("7", "\\boxed{7\\text{ days}}"),
    ("20", "\\boxed{20 \\text{ kPa}}"),
    ("3", "\\boxed{3\\text{ m/s}}"),
]


# an answer the response retracts, negates, hides or contradicts outside the box is no answer
# two answers in a row: under "final" and "wrong" a hedge; "last" takes the last by definition
SEQUENCE_MISSES = [
    ("5", "Answer: 7\n\nAnswer: 5"),
    ("5", "The answer is 7.\nThe answer is 5."),
    ("5", "The final answer is 7. \\boxed{5}"),
    ("5", "The answer is $7$. $\\boxed{5}$"),
    ("5", "Final answer: 7\n\\boxed{5}"),
    ("5", "\\boxed{5}\nFinal answer: 7"),
]


@pytest.mark.parametrize("rule", ("final", "wrong"))
def test_two_answers_in_a_row_are_a_hedge(rule):
    _check([(g, r, 0.0) for g, r in SEQUENCE_MISSES], rule)


def test_the_last_rule_takes_the_last_of_two_answers():
    last = {"Final answer: 7\n\\boxed{5}": 1.0, "\\boxed{5}\nFinal answer: 7": 0.0}
    _check([(g, r, last.get(r, 1.0)) for g, r in SEQUENCE_MISSES], "last")


RETRACTION_MISSES = [
    ("5", "\\boxed{5} <think> Actually no: \\boxed{7}"),
    ("7", "\\boxed{5} <think> Actually no: \\boxed{7}"),
    ("5", "\\boxed{5}\n<think>\nWait, that is wrong."),
    ("5", "<!-- \\boxed{5} -->"),
    ("5", "\\boxed{7} <!-- \\boxed{5} -->"),
    ("5", "<!-- \\boxed{5} --> \\boxed{7}"),
    ("5", "\\phantom{\\boxed{5}}"),
    ("5", "\\phantom{\\boxed{5}} \\boxed{7}"),
    ("5", "\\boxed{7} \\hphantom{\\boxed{5}}"),
    ("5", "\\iffalse \\boxed{5} \\fi"),
    ("5", "\\boxed{7}\\iffalse \\boxed{5} \\fi"),
    ("5", "\\begin{comment}\\boxed{5}\\end{comment}"),
    ("5", "\\boxed{7} % \\boxed{5}"),
    ("5", "$\\textcolor{white}{\\boxed{5}}$ \\boxed{7}"),
    ("7", "The final answer is 7. \\boxed{5}"),
    ("5", "Answer: 5 (wrong)"),
    ("5", "Answer: 5 (incorrect)"),
    ("5", "The answer is 5 (not really)."),
    ("5", "\\boxed{5} (wrong)"),
    ("5", "\\boxed{5} is wrong."),
    ("5", "\\boxed{5} is not the answer."),
    ("5", "$\\boxed{5}$ is incorrect."),
    ("5", "The answer is not \\boxed{5}."),
    ("5", "The answer isn't $\\boxed{5}$."),
    ("5", "\\boxed{5} \u2717"),
    ("5", "\\boxed{5}^{\\text{wrong}}"),
    ("5", "\\boxed{5}\\footnote{wrong}"),
    ("5", "\\boxed{5}\\text{ (wrong)}"),
    ("5", "\\boxed{5}~\\xmark"),
    ("5", "\\cancel{\\boxed{5}}"),
    ("5", "\\sout{\\boxed{5}} \\boxed{7}"),
    ("5", "\\st{\\boxed{5}}"),
    ("5", "~~\\boxed{5}~~"),
    ("5", "<del>\\boxed{5}</del>"),
    ("5", "<s>\\boxed{5}</s> \\boxed{7}"),
    ("5", "\\boxed{5}. Just kidding, it's 7."),
    ("5", "\\boxed{5}. Scratch that."),
    ("5", "\\boxed{5}\n\nWait, that's wrong."),
    ("5", "\\boxed{5}\n\nHmm, actually no."),
    ("5", "\\boxed{5}\n\nI retract that answer."),
    ("5", "Answer: 5\nOops, never mind."),
    ("5", "\\boxed{5}\n\nNo."),
    ("5", "\\boxed{5}\n\n**Wrong.**"),
    ("5", "\\boxed{5} \u2014 false"),
    ("5", "\\boxed{5}. NOT."),
    ("5", "\\boxed{5}?"),
    ("5", "Is the answer \\boxed{5}?"),
]
RETRACTION_EQUAL = [
    ("5", "Answer: 5"),
    ("5", "We try 7: too big. Checking $4+1=5$ works, so the answer is $5$. \\boxed{5}"),
    ("5", "<think>\nmaybe 7? no.\n</think>\nThe answer is \\boxed{5}."),
    ("5", "% a comment\n\\boxed{5}"),
    ("5", "50% of the $10$ apples is \\boxed{5}."),
    ("5", "\\boxed{5} is the number of apples."),
    ("5", "\\boxed{5}\n\nFinal Answer: The final answer is 5. I hope it is correct."),
    ("5", "\\boxed{\\hphantom{7}5}"),
    ("5", "The answer is 5.\n\nLet me verify: 2 + 3 = 5, which checks out."),
    ("5", "\\boxed{5}. No other value works."),
    ("5", "\\boxed{5}\n\nNote: the other roots are complex."),
]


# digits of other scripts are not the ASCII digits they resemble; full-width and styled digits are those digits
DIGIT_MISSES = [
    ("5", "\\boxed{\u0665}"),  # Arabic-Indic five
    ("5", "\\boxed{\u09eb}"),  # Bengali five
    ("5", "\\boxed{\u096b}"),  # Devanagari five
    ("0", "\\boxed{\u0660}"),  # Arabic-Indic zero
    ("15", "\\boxed{1\u0665}"),
    ("5", "Answer: \u0665"),
]
DIGIT_EQUAL = [
    ("5", "\\boxed{\uff15}"),  # full-width 5
    ("5", "\\boxed{\U0001d7d3}"),  # mathematical bold 5
]

TABLES = {
    "closeness": (CLOSENESS_MISSES, CLOSENESS_EQUAL),
    "identity": (IDENTITY_MISSES, IDENTITY_EQUAL),
    "choice": (CHOICE_MISSES, CHOICE_EQUAL),
    "percent": (PERCENT_MISSES, PERCENT_EQUAL),
    "trailing_text": (TRAILING_TEXT_MISSES, TRAILING_TEXT_EQUAL),
    "retraction": (RETRACTION_MISSES, RETRACTION_EQUAL),
    "digits": (DIGIT_MISSES, DIGIT_EQUAL),
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_near_misses_score_zero(name, rule):
    _check([(g, r, 0.0) for g, r in TABLES[name][0]], rule)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_correct_answers_in_the_same_forms_score_one(name, rule):
    _check([(g, r, 1.0) for g, r in TABLES[name][1]], rule)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_tables_hold_more_near_misses_than_equivalents(name):
    misses, equal = TABLES[name]
    assert len(misses) > len(equal)


ADVERSARIAL_SIZES = {
    "strike-throughs": "~~a" * 30000 + "\\boxed{5}",
    "unclosed comments": "<!--" * 25000 + "\\boxed{5}",
    "nested cancels": "\\cancel{" * 12000 + "\\boxed{5}",
    "white switches": "\\color{white}" * 7000 + "\\boxed{5}",
    "answer phrases": "Answer: 5. " * 9000,
    "percent comments": "% \\boxed{5}\n" * 8000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL_SIZES))
def test_hiding_and_phrase_rules_stay_linear_on_adversarial_input(name):
    # work that is quadratic in these shapes (one scan to the end per opener) takes minutes here; linear work
    # takes well under a second. The verdict itself must be a verdict, not an exception.
    import time

    text = ADVERSARIAL_SIZES[name]
    start = time.process_time()
    value = _value("5", text, "final")
    assert value in (0.0, 1.0)
    assert (
        time.process_time() - start < 5.0
    )  # CPU time: ~10x the slowest linear run (0.45 s); the quadratic form took 21 s

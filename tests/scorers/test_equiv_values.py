"""math_equiv's value-side equivalences of issues 21 and 22: notations that write the gold's value another way
(set-builder intervals, bases written out, a factor before a matrix, a function with its argument renamed,
unicode roots, number words, magnitude words, units converted, definite integrals and sums), and the
look-alikes that must not pass for them (capital Pi, arcminutes, ``\\{\\varnothing\\}``, ``x \\approx 5``,
values within 1e-300 of the gold, a redefined ``\\boxed``).

Attack-first: every class's table has more near misses (must score 0.0) than equivalent answers (must score
1.0), and every row runs under every final-answer rule. A row is (gold, response) or (gold, response, prompt).
"""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")


def _value(row: tuple[str, ...], rule: str) -> float:
    gold, response, *rest = row
    scorer = MathEquivScorer(multiple_answers=rule, timeout_s=120.0)
    sample = Sample(response=response, ground_truth=gold, prompt=rest[0] if rest else None)
    score = scorer.quick(sample)
    return (score if score is not None else scorer.score(sample)).value


TABLES: dict[str, tuple[list[tuple[str, ...]], list[tuple[str, ...]]]] = {
    # a set written by an inequality on its variable is that interval
    "set_builder": (
        [
            ("(2,\\infty)", "\\boxed{\\{ x \\mid x > 2 \\}}"),
            ("(3,4]", "\\boxed{\\{ x \\mid 3 < x \\le 4 \\}}"),
            ("(-\\infty, 0]", "\\boxed{\\{x : x \\le 0\\}}"),
            ("(-\\infty,-14)\\cup(-3,\\infty)", "\\boxed{\\{x \\mid x < -14 \\text{ or } x > -3\\}}"),
        ],
        [
            ("(2,\\infty)", "\\boxed{\\{ x \\mid x \\ge 2 \\}}"),
            ("(2,\\infty)", "\\boxed{\\{ x \\mid x < 2 \\}}"),
            ("(3,4]", "\\boxed{\\{ x \\mid 3 \\le x \\le 4 \\}}"),
            ("(3,4]", "\\boxed{\\{ x \\mid 3 < y \\le 4 \\}}"),
            ("(2,\\infty)", "\\boxed{\\{ x \\mid y > 2 \\}}"),
            ("(2,\\infty)", "\\boxed{\\{ x \\mid x^2 > 4 \\}}"),
            ("(2,\\infty)", "\\boxed{\\{ x \\in \\mathbb{Z} \\mid x > 2 \\}}"),
            ("\\{1,2\\}", "\\boxed{\\{x : x^2 = 4\\}}"),
            ("(-\\infty,-14)\\cup(-3,\\infty)", "\\boxed{\\{x \\mid x < -14 \\text{ or } x > 3\\}}"),
        ],
    ),
    # a numeral with its base written out is the numeral in that base
    "base_written": (
        [
            ("204_5", "\\boxed{204 \\text{ (base 5)}}"),
            ("2516_8", "The answer is $2516_{\\text{eight}}$."),
            ("52_8", "\\boxed{52_{(8)}}"),
            ("54", "\\boxed{204 \\text{ (base 5)}}"),
        ],
        [
            ("204_5", "\\boxed{304 \\text{ (base 5)}}"),
            ("204_5", "\\boxed{204 \\text{ (base 6)}}"),
            ("2516_8", "The answer is $2516_{\\text{nine}}$."),
            ("2516_8", "The answer is $2517_{\\text{eight}}$."),
            ("52_8", "\\boxed{52_{(7)}}"),
            ("204", "\\boxed{204 \\text{ (base 5)}}"),
            ("204_5", "\\boxed{209 \\text{ (base 5)}}"),
            ("54", "\\boxed{204 \\text{ (base 6)}}"),
        ],
    ),
    # a constant factor written before a matrix multiplies every entry
    "scaled_matrix": (
        [
            (
                "\\begin{pmatrix} 1/5 & 4/5 \\\\ 0 & 1 \\end{pmatrix}",
                "\\boxed{\\frac{1}{5}\\begin{pmatrix} 1 & 4 \\\\ 0 & 5 \\end{pmatrix}}",
            ),
            (
                "\\begin{pmatrix} 23/8 \\\\ 7/4 \\end{pmatrix}",
                "\\boxed{\\frac18\\begin{pmatrix} 23 \\\\ 14 \\end{pmatrix}}",
            ),
            (
                "\\begin{pmatrix} \\frac{\\sqrt2}{2} \\\\ \\frac{\\sqrt2}{2} \\end{pmatrix}",
                "\\boxed{\\frac{1}{\\sqrt{2}}\\begin{pmatrix} 1 \\\\ 1 \\end{pmatrix}}",
            ),
        ],
        [
            (
                "\\begin{pmatrix} 1/5 & 4/5 \\\\ 0 & 1 \\end{pmatrix}",
                "\\boxed{\\frac{1}{5}\\begin{pmatrix} 1 & 4 \\\\ 0 & 1 \\end{pmatrix}}",
            ),
            (
                "\\begin{pmatrix} 23/8 \\\\ 7/4 \\end{pmatrix}",
                "\\boxed{\\frac14\\begin{pmatrix} 23 \\\\ 14 \\end{pmatrix}}",
            ),
            (
                "\\begin{pmatrix} 6/5 \\\\ -17/5 \\end{pmatrix}",
                "\\boxed{\\frac15\\begin{pmatrix} 6 \\\\ 17 \\end{pmatrix}}",
            ),
            (
                "\\begin{pmatrix} 6/5 \\\\ -17/5 \\end{pmatrix}",
                "\\boxed{\\frac15\\begin{vmatrix} 6 \\\\ -17 \\end{vmatrix}}",
            ),
            (
                "\\begin{pmatrix} 6/5 \\\\ -17/5 \\end{pmatrix}",
                "\\boxed{x\\begin{pmatrix} 6 \\\\ -17 \\end{pmatrix}}",
            ),
            (
                "\\begin{pmatrix} \\frac{\\sqrt2}{2} \\\\ \\frac{\\sqrt2}{2} \\end{pmatrix}",
                "\\boxed{\\frac{1}{\\sqrt{3}}\\begin{pmatrix} 1 \\\\ 1 \\end{pmatrix}}",
            ),
        ],
    ),
    # "g(t) = ..." defines the function the gold writes in another variable
    "function_renamed": (
        [
            ("-8 x^4+7x^2-7x+8", "Answer: $g(t) = - 8 t^{4} + 7 t^{2} - 7 t + 8$"),
            ("-2x^2 + x - 3", "\\boxed{R(t) = - 2 t^{2} + t - 3}"),
            ("1 - x", "\\boxed{f(t) = 1 - t}"),
        ],
        [
            ("-8 x^4+7x^2-7x+8", "Answer: $g(t) = - 8 t^{4} - 7 t^{2} - 7 t + 8$"),
            ("-2x^2 + x - 3", "\\boxed{R(t) = - 2 t^{2} + t + 3}"),
            ("1 - x", "\\boxed{f(t) = 1 + t}"),
            ("1 - x", "\\boxed{f(t) = 1 - 2t}"),
            ("1 - x", "\\boxed{f(t) = 1 - t + x}"),
            ("1 - x", "\\boxed{f(t, s) = 1 - t}"),
            ("x + y", "\\boxed{f(t) = t + y}"),
        ],
    ),
    # a unicode root sign written as plain text takes the whole number after it
    "unicode_root": (
        [
            ("8\\sqrt{10}", "\\boxed{8√10}"),
            ("9\\sqrt{15}", "The answer is 9√15."),
            ("\\sqrt{x+1}", "\\boxed{√(x+1)}"),
        ],
        [
            ("8\\sqrt{10}", "\\boxed{8√11}"),
            ("8\\sqrt{10}", "\\boxed{8√1 0}"),
            ("8\\sqrt{10}", "\\boxed{80√1}"),
            ("9\\sqrt{15}", "The answer is 9√51."),
            ("\\sqrt{x+1}", "\\boxed{√(x-1)}"),
        ],
    ),
    # an English cardinal in words is the number; every word must belong to it
    "number_words": (
        [
            ("5", "\\boxed{\\text{five}}"),
            ("25", "\\boxed{\\text{twenty-five}}"),
            ("102", "\\boxed{\\text{one hundred and two}}"),
            ("3400", "\\boxed{\\text{three thousand four hundred}}"),
        ],
        [
            ("5", "\\boxed{\\text{fifteen}}"),
            ("5", "\\boxed{\\text{five hundred}}"),
            ("15", "\\boxed{\\text{five}}"),
            ("5", "\\boxed{\\text{five or seven}}"),
            ("5", "\\boxed{\\text{not five}}"),
            ("2", "\\boxed{\\text{a couple}}"),
            ("25", "\\boxed{\\text{twenty five apples and one}}"),
            ("56", "\\boxed{\\text{five six}}"),
            ("102", "\\boxed{\\text{one hundred and}}"),
        ],
    ),
    # a magnitude word or suffix multiplies the number before it; an ambiguous capital letter is kept
    "magnitude": (
        [
            ("5000", "\\boxed{5\\text{ thousand}}"),
            ("2500000", "\\boxed{2.5 \\text{ million}}"),
            ("5000", "\\boxed{5\\text{k}}"),
            ("50000", "\\boxed{5\\text{万}}"),
        ],
        [
            ("5", "\\boxed{5\\text{k}}"),
            ("5", "\\boxed{5\\,\\mathrm{M}}"),
            ("5", "\\boxed{5 \\text{ thousand}}"),
            ("5", "\\boxed{5 \\text{ bn}}"),
            ("5", "\\boxed{5\\text{万}}"),
            ("5", "\\boxed{5 \\text{ lakh}}"),
            ("5000", "\\boxed{5\\text{ million}}"),
            ("5000", "\\boxed{50\\text{ thousand}}"),
            ("5", "\\boxed{5 \\text{ hundred}}"),
        ],
    ),
    # a number in another unit of the asked kind is converted exactly to the unit the question or gold uses
    "unit_conversion": (
        [
            ("2", "\\boxed{120\\text{ minutes}}", "How many hours does it take?"),
            ("5000", "\\boxed{5\\text{ km}}", "How many meters?"),
            ("120\\text{ minutes}", "\\boxed{2\\text{ hours}}"),
            ("150", "\\boxed{1.5\\text{ dollars}}", "How many cents?"),
        ],
        [
            ("2", "\\boxed{121\\text{ minutes}}", "How many hours does it take?"),
            ("2", "\\boxed{2\\text{ minutes}}", "How many hours does it take?"),
            ("5", "\\boxed{5\\text{ km}}", "How many meters?"),
            ("5000", "\\boxed{5\\text{ kg}}", "How many meters?"),
            ("90", "\\boxed{3\\text{ months}}", "How many days?"),
            ("30", "\\boxed{30}$ radians", "Find the angle in degrees."),
            ("120\\text{ minutes}", "\\boxed{3\\text{ hours}}"),
            ("12\\text{ cm}^2", "\\boxed{12\\text{ m}^2}"),
        ],
    ),
    # "a \\pm b" inside a set or a list is its two values
    "pm_in_set": (
        [
            ("\\{1\\pm\\sqrt{5},-2\\}", "The answer is $x = -2,\\ x = 1 + \\sqrt{5},\\ x = 1 - \\sqrt{5}$."),
            ("\\{1\\pm\\sqrt{5},-2\\}", "\\boxed{\\{-2, 1+\\sqrt5, 1-\\sqrt5\\}}"),
            ("1+\\sqrt5, 1-\\sqrt5, -2", "\\boxed{\\{1\\pm\\sqrt{5},-2\\}}"),
        ],
        [
            ("\\{1\\pm\\sqrt{5},-2\\}", "The answer is $x = 2,\\ x = 1 + \\sqrt{5},\\ x = 1 - \\sqrt{5}$."),
            ("\\{1\\pm\\sqrt{5},-2\\}", "The answer is $x = -2,\\ x = 1 + \\sqrt{5}$."),
            ("\\{1\\pm\\sqrt{5},-2\\}", "\\boxed{\\{-2, 1+\\sqrt5\\}}"),
            ("\\{1\\pm\\sqrt{5},-2\\}", "\\boxed{\\{-2, 1+\\sqrt5, 1-\\sqrt3\\}}"),
            ("1+\\sqrt5, 1-\\sqrt5, -2", "\\boxed{\\{1\\pm\\sqrt{5},2\\}}"),
        ],
    ),
    # separators and units written with extra spacing
    "spacing": (
        [
            ("111, \\! 111, \\! 111", "\\boxed{111111111.0}"),
            ("90\\text{ square\nunits}", "\\boxed{90.0}"),
            ("1", "\\boxed{\\int_0^1 2x\\,dx}"),
        ],
        [
            ("111, \\! 111, \\! 111", "\\boxed{111111112.0}"),
            ("111, \\! 111, \\! 111", "\\boxed{111111111.1}"),
            ("32, 349", "\\boxed{32349}"),
            ("90\\text{ square\nunits}", "\\boxed{91.0}"),
            ("12", "\\boxed{\\int_0^1 2x\\,dx}"),
        ],
    ),
    # a definite integral, sum or limit is the value sympy finds for it; unevaluated or wrong: no answer
    "evaluated_operator": (
        [
            ("1", "\\boxed{\\int_0^1 2x\\,dx}"),
            ("55", "\\boxed{\\sum_{k=1}^{10} k}"),
            ("5", "\\boxed{\\lim_{n\\to\\infty}\\left(5 + \\frac{1}{n}\\right)}"),
        ],
        [
            ("1", "\\boxed{\\int_0^1 3x\\,dx}"),
            ("1", "\\boxed{\\int_0^2 2x\\,dx}"),
            ("\\frac{\\pi^2}{6}", "\\boxed{\\sum_{k=1}^{1000} \\frac{1}{k^2}}"),
            ("e", "\\boxed{\\sum_{k=0}^{20} \\frac{1}{k!}}"),
            ("0", "\\boxed{\\lim_{x\\to 0} \\frac{1}{x}}"),
            ("56", "\\boxed{\\sum_{k=1}^{10} k}"),
        ],
    ),
    # what reads like a value to latex2sympy but is none: no match
    "not_a_value": (
        [
            ("\\pi", "\\boxed{π}"),
            ("45^\\circ", "\\boxed{45^{\\circ}}"),
            ("5", "\\boxed{x = 5}"),
        ],
        [
            ("\\pi", "\\boxed{\\Pi}"),
            ("45^\\circ", "\\boxed{45'}"),
            ("45", "\\boxed{45''}"),
            ("5", "\\boxed{x \\approx 5}"),
            ("5", "\\boxed{x \\sim 5}"),
            ("\\frac{\\pi}{6}", "\\boxed{\\frac{\\pi}{6}^\\circ}"),
            ("\\pi", "\\boxed{\\pi^\\circ}"),
        ],
    ),
    # a set holding the empty set is not the empty set
    "empty_set": (
        [
            ("\\emptyset", "\\boxed{\\varnothing}"),
            ("\\{\\emptyset\\}", "\\boxed{\\{\\varnothing\\}}"),
        ],
        [
            ("\\emptyset", "\\boxed{\\{\\emptyset\\}}"),
            ("\\{\\emptyset\\}", "\\boxed{\\emptyset}"),
            ("\\emptyset", "\\boxed{\\{\\}\\cup\\{\\emptyset\\}}"),
        ],
    ),
    # a symbol that cancels is no parameter; one that stays is
    "free_symbols": (
        [
            ("5", "\\boxed{5 + 0 \\cdot k}"),
            ("2x", "\\boxed{x + x + y - y}"),
        ],
        [
            ("5", "\\boxed{5 + k}"),
            ("5", "\\boxed{5 + 0 \\cdot k + k^2}"),
            ("2x", "\\boxed{x + x + y}"),
        ],
    ),
    # a difference far below 1e-200 is still a difference when the expression holds numbers that large
    "tiny_difference": (
        [
            ("2", "\\boxed{\\sqrt[1000]{2^{1000}}}"),
            ("2", "\\boxed{\\sqrt[3]{8}}"),
        ],
        [
            ("2", "\\boxed{\\sqrt[1000]{2^{1000}+1}}"),
            ("2", "\\boxed{\\sqrt[900]{2^{900}+1}}"),
            ("3", "\\boxed{\\sqrt[600]{3^{600}-1}}"),
        ],
    ),
    # TeX's primitive and angle-bracket notations
    "tex_notation": (
        [
            ("10", "\\boxed{5 \\choose 2}"),
            ("10", "\\boxed{{5 \\choose 2}}"),
            ("(1,2,3)", "\\boxed{\\langle 1,2,3\\rangle}"),
            ("x \\geq 3", "\\boxed{x \\geqslant 3}"),
        ],
        [
            ("5", "\\boxed{5 \\choose 2}"),
            ("10", "\\boxed{5 \\choose 1}"),
            ("(1,2,3)", "\\boxed{\\langle 1,2\\rangle}"),
            ("(1,2,3)", "\\boxed{\\langle 1,3,2\\rangle}"),
            ("[1,2]", "\\boxed{\\langle 1,2\\rangle}"),
            ("x \\geq 3", "\\boxed{x \\leqslant 3}"),
        ],
    ),
    # a decimal gold is met at its stated precision only when it may be rounded: no question to read, or one
    # that asks for rounding; otherwise it is the exact value it writes
    "rounding_policy": (
        [
            ("1.5", "\\boxed{1.50}", "Write 3/2 as a decimal."),
            ("1.5", "\\boxed{\\frac{3}{2}}", "Write 3/2 as a decimal."),
            ("0.33", "\\boxed{\\frac{1}{3}}", "Round 1/3 to two decimal places."),
            ("0.33", "\\boxed{0.333}", "Round 1/3 to two decimal places."),
            ("2.35", "\\boxed{2.347}", "How fast is it, to the nearest hundredth?"),
            ("1.41", "\\boxed{\\sqrt{2}}", "Give the square root of 2 to 3 significant figures."),
        ],
        [
            ("1.5", "\\boxed{1.46}", "Write 3/2 as a decimal."),
            ("0.25", "\\boxed{0.2549}", "Write 1/4 as a decimal."),
            ("12.5", "\\boxed{12.49}", "What is 25/2?"),
            ("0.75", "\\boxed{0.7549}", "Write 3/4 as a decimal."),
            ("0.33", "\\boxed{0.3}", "Round 1/3 to two decimal places."),
            ("3.14159", "\\boxed{3.14}", "Give pi to five decimals."),
            ("1.41", "\\boxed{\\sqrt{2}}", "What is 141/100?"),
            ("2.35", "\\boxed{2.347}", "What is 47/20?"),
        ],
    ),
    # a whole formula of the question restated is no answer, even when its value is the gold's
    "echoed_question": (
        [
            ("x+1", "\\boxed{x+1}", "Simplify $\\frac{x^2-1}{x-1}$."),
            ("1", "\\boxed{1}", "Compute $\\int_0^1 2x\\,dx$."),
            ("1", "\\boxed{\\int_0^1 2x\\,dx}", "Find the area under y = 2x between x = 0 and x = 1."),
            (
                "\\frac{\\pi}{4}",
                "\\boxed{\\frac{\\pi}{4}}",
                "Which is larger, $\\frac{\\pi}{4}$ or $\\frac{3}{4}$?",
            ),
        ],
        [
            ("1", "\\boxed{\\int_0^1 2x\\,dx}", "Compute $\\int_0^1 2x\\,dx$."),
            ("3", "\\boxed{\\log_2 8}", "Evaluate $\\log_2 8$."),
            ("15", "\\boxed{\\binom{6}{2}}", "Compute $\\binom{6}{2}$."),
            ("\\frac{3}{4}", "\\boxed{\\frac{6}{8}}", "Write $\\frac{6}{8}$ in lowest terms."),
            ("2\\sqrt{2}", "\\boxed{\\sqrt{8}}", "Simplify $\\sqrt{8}$."),
            ("1024", "\\boxed{2^{10}}", "Compute $2^{10}$."),
            ("55", "\\boxed{\\sum_{k=1}^{10} k}", "Evaluate $\\sum_{k=1}^{10} k$."),
            ("x^2+2x+1", "\\boxed{(x+1)^2}", "Expand $(x+1)^2$."),
        ],
    ),
    # two different values that each round to a rounded gold are two answers (a hedge), not one
    "tolerance_hedge": (
        [
            ("0.33", "$\\boxed{0.333}$ and $\\boxed{\\frac13}$", "Round to two decimal places."),
            ("0.75", "Answer: $\\frac34$ or $0.75$"),
            ("0.33", "$\\boxed{0.33}$", "Give the probability to two decimal places."),
        ],
        [
            ("0.33", "$\\boxed{0.326}$ or $\\boxed{0.334}$", "Give the probability to two decimal places."),
            ("0.33", "The answer is 0.326 or 0.334.", "Give the probability to two decimal places."),
            ("0.33", "$\\boxed{0.33 \\pm 0.004}$", "Give the probability to two decimal places."),
            ("1.5", "$\\boxed{1.46}$ or $\\boxed{1.54}$"),
            ("3.1", "$\\boxed{3.06}$ or $\\boxed{3.14}$", "Round your answer to one decimal place."),
        ],
    ),
    # degrees inside a trigonometric function, \\lg, a root's index before a bare radicand
    "function_notation": (
        [
            ("\\frac{1}{2}", "\\boxed{\\sin 30^\\circ}"),
            ("\\frac{1}{2}", "\\boxed{\\cos 60^\\circ}"),
            ("2", "\\boxed{\\lg 100}"),
            ("2", "\\boxed{\\sqrt[3]8}"),
            ("1", "\\boxed{7 \\bmod 3}"),
            ("12", "\\boxed{\\operatorname{lcm}(4,6)}"),
        ],
        [
            ("\\frac{1}{2}", "\\boxed{\\cos 30^\\circ}"),
            ("\\frac{1}{2}", "\\boxed{\\sin 30}"),
            ("\\frac{1}{2}", "\\boxed{\\sin 60^\\circ}"),
            ("2", "\\boxed{\\lg 1000}"),
            ("2", "\\boxed{\\ln 100}"),
            ("2", "\\boxed{\\sqrt[3]9}"),
            ("2", "\\boxed{\\sqrt[2]8}"),
            ("2", "\\boxed{7 \\bmod 3}"),
            ("24", "\\boxed{\\operatorname{lcm}(4,6)}"),
            ("12", "\\boxed{\\operatorname{lcm}(4,5)}"),
        ],
    ),
    # a response that redefines a command is not read as written
    "tex_redefinition": (
        [
            ("5", "\\renewcommand{\\arraystretch}{1.5} $\\boxed{5}$"),
            ("5", "We let $x = 5$, so $\\boxed{5}$"),
            ("5", "\\newcommand{\\ans}{7} $\\boxed{5}$"),
            ("5", "\\setlength{\\jot}{4pt} \\renewcommand{\\jot}{4pt} $\\boxed{5}$"),
        ],
        [
            ("5", "\\renewcommand{\\boxed}[1]{\\fbox{7}} $\\boxed{5}$"),
            ("\\frac{1}{2}", "\\renewcommand{\\frac}[2]{#2/#1} $\\boxed{\\frac{1}{2}}$"),
            ("5", "\\def\\five{5} $\\boxed{\\five}$"),
            ("5", "\\let\\boxed\\fbox $\\boxed{5}$"),
            ("5", "\\newcommand{\\ans}{5} $\\boxed{\\ans}$"),
            ("5", "\\catcode`\\5=13 $\\boxed{5}$"),
            # a definition while thinking changes what the answer shows (one rule over the whole response)
            ("5", "<think>\\renewcommand{\\boxed}[1]{7}</think> $\\boxed{5}$"),
            ("5", "<think>\\let\\boxed\\fbox</think> $\\boxed{5}$"),
        ],
    ),
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_equivalent_forms_score_1(name: str, rule: str) -> None:
    wrong = [row for row in TABLES[name][0] if _value(row, rule) != 1.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_near_misses_score_0(name: str, rule: str) -> None:
    # under "last" only the last box counts by definition: a hedge across boxes is not one there
    rows = [r for r in TABLES[name][1] if not (rule == "last" and r[1].count("\\boxed") > 1)]
    wrong = [row for row in rows if _value(row, rule) != 0.0]
    assert not wrong, wrong


def test_tables_hold_more_near_misses_than_equivalents() -> None:
    for name, (equal, misses) in TABLES.items():
        assert len(misses) > len(equal), name


def test_the_deciding_rules_are_explained() -> None:
    scorer = MathEquivScorer()
    s = scorer.score(
        Sample(response="\\boxed{120\\text{ minutes}}", ground_truth="2", prompt="How many hours?")
    )
    assert s.value == 1.0 and s.info["rule"] == "unit_conversion"
    s = scorer.score(Sample(response="\\renewcommand{\\boxed}[1]{7} \\boxed{5}", ground_truth="5"))
    assert s.value == 0.0 and s.info["rule"] == "tex_redefinition" and "boxed" in s.info["reason"]

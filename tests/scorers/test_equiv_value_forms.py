"""math_equiv's value forms of issue 21 and red-team round 4 (classes "unicode_fractions", "ratio_order"):
Unicode vulgar fractions read through their Unicode numeric value (``½``, ``⅞``, ``5½``; the fraction slash
``5⁄7``, ``¹⁄₂``), ratios written ``3 \\colon 2``, ``3∶2`` or ``3 to 2``, the double factorial ``5!!``,
Indian digit grouping (``1,00,000``), combinations (``C(5,2)``, ``^5C_2``, ``5C2``, ``\\binom{5}{2}``)
against an integer gold, and radians against a gold in degrees (and back) when which is which is unambiguous.

Attack-first: each table has more near misses (0.0) than equal pairs (1.0), under every final-answer rule. What
is ambiguous is refused: ``C_5^2`` (whose index is which differs between conventions), a grouping that is
neither Indian nor Western (``1,0,000``), ``5!!!``, ``⅟2``.
"""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")
RATIO = "The ratio of boys to girls is what?"

TABLES: dict[str, tuple[list[tuple[str | None, str, str]], list[tuple[str | None, str, str]]]] = {
    "vulgar_fractions": (
        [
            (None, "\\frac{1}{2}", "The answer is \u00bd."),
            (None, "\\frac{11}{2}", "The answer is 5\u00bd."),
            (None, "\\frac{1}{3}", "The answer is \u2153."),
            (None, "\\frac{7}{8}", "$\\boxed{\u215e}$"),
            (None, "-\\frac{3}{2}", "$\\boxed{-1\u00bd}$"),
            (None, "\\frac{5}{7}", "The answer is 5\u20447."),
            (None, "\\frac{1}{2}", "$\\boxed{\u00b9\u2044\u2082}$"),
        ],
        [
            ("Write 3/10 as a decimal.", "0.3", "The answer is \u2153."),
            (None, "\\frac{3}{2}", "The answer is \u2154."),
            (None, "5", "The answer is 5\u00bd."),
            (None, "\\frac{1}{2}", "The answer is \u00bd\u00b2."),
            (None, "\\frac{1}{4}", "The answer is \u00bc\u00bd."),
            (None, "2", "The answer is \u215f2."),  # "fraction numerator one": no value of its own
            (None, "\\frac{1}{2}", "The answer is \u215f2."),
            (None, "\\frac{1}{5}", "The answer is \u2155\u2070."),
            (None, "\\frac{5}{7}", "The answer is 5\u20448."),
            (None, "57", "The answer is 5\u20447."),
            (None, "\\frac{5}{2}", "The answer is 5\u00bd."),
            (None, "\\frac{1}{2}", "$\\boxed{1\u00bd}$"),
            (None, "12", "$\\boxed{1\u00bd}$"),
            (None, "\\frac{3}{4}", "$\\boxed{\u00be\u00be}$"),
        ],
    ),
    "ratios": (
        [
            (RATIO, "3:2", "$\\boxed{3 \\colon 2}$"),
            (RATIO, "3:2", "$\\boxed{3\\text{ to }2}$"),
            (RATIO, "3:2", "$\\boxed{\\text{3 to 2}}$"),
            (RATIO, "3:2", "$\\boxed{3\u22362}$"),
            (RATIO, "3:2", "$\\boxed{6:4}$"),
        ],
        [
            (RATIO, "3:2", "$\\boxed{2 \\colon 3}$"),
            (RATIO, "3:2", "$\\boxed{2\\text{ to }3}$"),
            (RATIO, "3:2", "$\\boxed{\\text{2 to 3}}$"),
            (RATIO, "3:2", "$\\boxed{2\u22363}$"),
            (RATIO, "3:2", "$\\boxed{3\\text{ to }2\\text{ or }2\\text{ to }3}$"),
            (RATIO, "3:2", "$\\boxed{3\\text{ to }4}$"),
            (RATIO, "3:2", "$\\boxed{1\\text{ to }3\\text{ to }2}$"),
            (RATIO, "3:2", "$\\boxed{3 \\colon 2 \\colon 1}$"),
            (RATIO, "3:2", "$\\boxed{3:2:1}$"),  # read as a quotient, 3/2/1 was 3/2
            (RATIO, "3:2", "$\\boxed{9:4}$"),
        ],
    ),
    "double_factorial": (
        [
            (None, "15", "$\\boxed{5!!}$"),
            (None, "48", "$\\boxed{6!!}$"),
            (None, "3", "$\\boxed{3!!}$"),
        ],
        [
            (None, "6", "$\\boxed{3!!}$"),  # 3!! = 3, not 3! = 6
            (None, "120", "$\\boxed{5!!}$"),
            (None, "720", "$\\boxed{3!!}$"),  # nor (3!)!
            (None, "5", "$\\boxed{5!!}$"),
            (None, "15", "$\\boxed{5!!!}$"),
            (None, "15", "$\\boxed{5!}$"),
            (None, "14", "$\\boxed{5!!}$"),
        ],
    ),
    "indian_grouping": (
        [
            (None, "100000", "$\\boxed{1,00,000}$"),
            (None, "1234567", "$\\boxed{12,34,567}$"),
            (None, "1000000", "$\\boxed{10,00,000}$"),
        ],
        [
            (None, "1000000", "$\\boxed{1,00,000}$"),
            (None, "100000", "$\\boxed{10,00,000}$"),
            (None, "10000", "$\\boxed{1,00,00}$"),  # neither Indian nor Western
            (None, "10000", "$\\boxed{1,0,000}$"),
            (None, "100000", "$\\boxed{1,000,00}$"),
            (None, "100000", "$\\boxed{1, 00, 000}$"),  # spaced: a list
            (None, "1234567", "$\\boxed{12,34,568}$"),
        ],
    ),
    "combinations": (
        [
            (None, "10", "$\\boxed{C(5,2)}$"),
            (None, "10", "$\\boxed{\\binom{5}{2}}$"),
            (None, "10", "$\\boxed{{}^5C_2}$"),
            (None, "10", "$\\boxed{_5C_2}$"),
            (None, "10", "$\\boxed{5C2}$"),
            (None, "10", "$\\boxed{C(5, 3)}$"),
        ],
        [
            (None, "20", "$\\boxed{C(5,2)}$"),  # P(5,2)
            (None, "25", "$\\boxed{C(5,2)}$"),
            (None, "10", "$\\boxed{C(2,5)}$"),
            (None, "10", "$\\boxed{P(5,2)}$"),
            (None, "10", "$\\boxed{C_5^2}$"),  # which index is which differs between conventions
            (None, "10", "$\\boxed{C^5_2}$"),
            (None, "10", "$\\boxed{5C3C2}$"),
            (None, "(5,2)", "$\\boxed{5C2}$"),
            (None, "10", "$\\boxed{C(5,2,1)}$"),
        ],
    ),
    # a backslash before a leading digit is no TeX command (a "\\$" that lost its "$"): the number
    "stray_backslash": (
        [
            (None, "15", "$\\boxed{\\15}$"),
            (None, "15", "Therefore, Annika has $15 left. The final answer is: \\boxed{\\15}"),
        ],
        [
            (None, "5", "$\\boxed{\\15}$"),
            (None, "1", "$\\boxed{\\15}$"),
            (None, "15", "$\\boxed{\\1 5}$"),
            (None, "15", "$\\boxed{a\\15}$"),
        ],
    ),
    # radians against degrees, only when which is which is unambiguous: a rational multiple of pi with no
    # degree sign for a gold in degrees (its sign, or a question asking for degrees), a degree sign for a gold
    # that is a multiple of pi, or a stated unit
    "radians_and_degrees": (
        [
            (None, "90^\\circ", "$\\boxed{\\frac{\\pi}{2}}$"),
            ("Find the angle in degrees.", "90", "$\\boxed{\\frac{\\pi}{2}}$"),
            (None, "\\frac{\\pi}{2}", "$\\boxed{90^\\circ}$"),
            (None, "90^\\circ", "$\\boxed{\\frac{\\pi}{2}\\text{ rad}}$"),
            ("Find the angle in radians.", "\\frac{\\pi}{2}", "$\\boxed{90 \\text{ degrees}}$"),
            (None, "135^\\circ", "$\\boxed{\\frac{3\\pi}{4}}$"),
        ],
        [
            (None, "90", "$\\boxed{\\frac{\\pi}{2}}$"),  # no sign, no question: 90 may be no angle
            (None, "90^\\circ", "$\\boxed{1.5708}$"),  # no pi: radians or a rounding of something else?
            (None, "90^\\circ", "$\\boxed{\\frac{\\pi}{2}^\\circ}$"),  # pi/2 degrees
            (None, "90^\\circ", "$\\boxed{\\frac{\\pi}{3}}$"),
            (None, "90^\\circ", "$\\boxed{\\frac{\\pi}{2} + 1}$"),
            (None, "90^\\circ", "$\\boxed{\\pi^2}$"),
            (None, "\\frac{\\pi}{2}", "$\\boxed{90}$"),
            (None, "\\frac{\\pi}{2}", "$\\boxed{45^\\circ}$"),
            (None, "90^\\circ", "$\\boxed{\\frac{\\pi}{3}\\text{ rad}}$"),
            (None, "90^\\circ", "$\\boxed{1.57\\text{ rad}}$"),
            ("Find the angle in degrees.", "30", "$\\boxed{30 \\text{ radians}}$"),
            ("Find the angle in radians.", "\\frac{\\pi}{2}", "$\\boxed{60 \\text{ degrees}}$"),
        ],
    ),
}


def _value(row: tuple[str | None, str, str], rule: str) -> float | None:
    prompt, gold, response = row
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold, prompt=prompt)
    return (scorer.quick(sample) or scorer.score(sample)).value


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_equivalent_value_forms_score_1(name: str, rule: str) -> None:
    wrong = [row for row in TABLES[name][0] if _value(row, rule) != 1.0]
    assert not wrong, wrong


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_value_form_near_misses_score_0(name: str, rule: str) -> None:
    wrong = [row for row in TABLES[name][1] if _value(row, rule) != 0.0]
    assert not wrong, wrong


def test_a_point_named_c_stays_a_point() -> None:
    scorer = MathEquivScorer()
    sample = Sample(response="$\\boxed{C(5,2)}$", ground_truth="(5,2)", prompt="Find the coordinates of C.")
    before = (scorer.quick(sample) or scorer.score(sample)).value
    # the combination reading applies only against an integer gold: a point's answer is read as before
    assert before == (scorer.quick(sample) or scorer.score(sample)).value


def test_tables_hold_more_near_misses_than_equivalents() -> None:
    for name, (equal, misses) in TABLES.items():
        assert len(misses) > len(equal), name

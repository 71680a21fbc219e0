"""math_equiv: the equivalence gaps found on other graders' unit cases (issue 15), as golden tables.

Each family has equivalent pairs (1.0) and at least as many near misses that must stay 0.0: a false
positive is a reward an RL policy can learn to collect, a false negative only a missed reward.

* one-variable linear inequalities, solved exactly (``-x > -1`` is ``x < 1``), chains included;
* absolute-value bounds on one variable expanded into intervals or a union (``1 \\le |z| \\le 3/2``);
* solutions written as assignments (``p=5,q=2;p=7,q=2`` is ``(5,2),(7,2)``);
* ``or`` written without spaces between two answers (``W(x)=1orW(x)=-1``);
* ``=`` inside a sub- or superscript is not an equation's ``=`` (``F_n = \\sum_{k=0}^{n-1} ...``).
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction

import pytest

from rewardloop.scorers._equiv_norm import linear_form, normalize, solve_inequality
from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample, Status


def _score(gold: str, answer: str):
    scorer = MathEquivScorer()
    sample = Sample(response=f"So the answer is $\\boxed{{{answer}}}$.", ground_truth=gold)
    quick = scorer.quick(sample)
    return quick if quick is not None else scorer.score(sample)


def _reward(gold: str, answer: str) -> float:
    score = _score(gold, answer)
    assert score.status is Status.OK, score.info
    return score.value


LINEAR = [
    ("x < 1", "-x > -1"),
    ("x \\le 1", "-x \\ge -1"),
    ("x <= 1", "-x >= -1"),
    ("(-\\infty, 1)", "-x > -1"),
    ("-x > -1", "(-\\infty, 1)"),
    ("x > \\frac{3}{2}", "2x - 3 > 0"),
    ("[2, \\infty)", "3x + 1 \\ge 7"),
    ("(-\\infty, -2]", "-2x \\ge 4"),
    ("x < 3", "2x + 1 < x + 4"),  # the variable on both sides
    ("x > 2", "4 < 2x"),  # the variable on the right
    ("x \\ge -\\frac{1}{2}", "\\frac{x}{3} \\ge -\\frac{1}{6}"),
    ("(-\\infty, 0.5)", "4x < 2"),
    ("(-\\infty, 2)", "3(x - 1) < 3"),
    ("t < 1", "-t > -1"),
    ("(1, 3]", "2 < 2x \\le 6"),  # chains
    ("[-1, 2)", "-4 < -2x \\le 2"),  # a negative coefficient flips the chain
    ("(2, 5)", "7 > x + 2 > 4"),
    ("1 < x \\le 3", "2 < 2x \\le 6"),
    ("x < -1 \\text{ or } x > 1", "-x > 1 \\text{ or } 2x > 2"),
]

LINEAR_NEAR_MISSES = [
    ("x < 1", "-x < -1"),  # flipped direction
    ("x < 1", "-x > 1"),  # wrong endpoint
    ("x \\le 1", "-x > -1"),  # open for closed
    ("x < 1", "-x \\ge -1"),  # closed for open
    ("(-\\infty, 1]", "-x > -1"),
    ("[2, 5)", "[2, 5]"),
    ("[2, 5)", "2 \\le x \\le 5"),
    ("[2, 5)", "4 \\le 2x \\le 10"),
    ("(1, 3]", "2 < 2x < 6"),
    ("[-1, 2)", "-4 \\le -2x < 2"),  # (-1, 2]: the closed ends swap under a negative coefficient
    ("x > \\frac{3}{2}", "2x - 3 > 1"),
    ("x < 3", "2x + 1 < x + 5"),
    ("x > 2", "y > 2"),  # a different variable
    ("x < 1", "-y > -1"),
    ("x < 1", "x + y < 1"),  # two variables
    ("x > 1", "x^2 > 1"),  # non-linear: never solved
    ("(1, \\infty)", "x^2 > 1"),
    ("(-1, 1)", "x^2 < 1"),
    ("x > 1", "x \\cdot x > 1"),
    ("(1, \\infty)", "\\frac{1}{x} < 1"),
    ("(0, \\infty)", "2^x > 1"),
    ("(2, \\infty)", "x + 1 > x + 3"),  # no solution, not an interval
    ("x < 3", "3x < 1 + 2"),  # x < 1
]

ABSOLUTE = [
    (
        "1 \\le |z| \\le \\frac{3}{2}",
        "z \\in \\left[-\\frac{3}{2}, -1\\right] \\cup \\left[1, \\frac{3}{2}\\right]",
    ),
    ("[-\\frac{3}{2}, -1] \\cup [1, \\frac{3}{2}]", "1 \\leq |z| \\leq \\frac{3}{2}"),
    ("(-2, 2)", "|x| < 2"),
    ("[-2, 2]", "|x| \\le 2"),
    ("-2 < x < 2", "|x| < 2"),
    ("(-\\infty, -3) \\cup (3, \\infty)", "|x| > 3"),
    ("(-\\infty, -1] \\cup [1, \\infty)", "1 \\le |x|"),
    ("x < -1 \\text{ or } x > 1", "|x| > 1"),
    ("|x| > 1", "x < -1 \\text{ or } x > 1"),
    ("(1, 5)", "|x - 3| < 2"),
    ("[-1, 2]", "|2x - 1| \\le 3"),
    ("(-2, 0) \\cup (0, 2)", "0 < |x| < 2"),
    ("(-\\infty, \\infty)", "|x| > -1"),
]

ABSOLUTE_NEAR_MISSES = [
    ("(-2, 2]", "|x| < 2"),
    ("[-2, 2]", "|x| < 2"),
    ("(-2, 2)", "|x| \\le 2"),
    ("(-2, 2)", "|x| > 2"),
    ("(-\\infty, -3) \\cup (3, \\infty)", "|x| \\ge 3"),
    ("(-\\infty, -3) \\cup (3, \\infty)", "|x| < 3"),
    ("(1, 5)", "|x + 3| < 2"),  # wrong centre
    ("(1, 5)", "|x - 3| \\le 2"),
    ("[-\\frac{3}{2}, -1] \\cup [1, \\frac{3}{2}]", "1 < |z| \\le \\frac{3}{2}"),
    ("[-\\frac{3}{2}, -1] \\cup [1, \\frac{3}{2}]", "1 \\le |z| \\le 2"),
    ("[1, \\frac{3}{2}]", "1 \\le |z| \\le \\frac{3}{2}"),  # the negative half is missing
    ("(-2, 2)", "|x| < -2"),  # empty
    ("(-2, 2)", "|x + y| < 2"),  # two variables
    ("(-2, 2)", "|x^2| < 4"),  # non-linear inside
    ("(-2, 0) \\cup (0, 2)", "|x| < 2"),  # 0 is excluded
    ("x < -1 \\text{ or } x > 1", "|y| > 1"),  # a different variable
    ("|x| > 1", "y < -1 \\text{ or } y > 1"),
]

ASSIGNMENTS = [
    ("p=5,q=2;p=7,q=2", "(5,2),(7,2)"),
    ("(5,2),(7,2)", "p=5,q=2;p=7,q=2"),
    ("(7,2),(5,2)", "p=5, q=2; p=7, q=2"),  # the order of the solutions is free
    ("a=1,b=2;a=3,b=4", "a=3,b=4;a=1,b=2"),
    ("(1,2)", "x=1, y=2"),
    ("(1, 2), (3, 4)", "x=1, y=2 \\text{ or } x=3, y=4"),
]

ASSIGNMENT_NEAR_MISSES = [
    ("(5,2),(7,2)", "p=2,q=5;p=2,q=7"),  # values swapped
    ("(5,2),(7,2)", "p=5,q=2"),  # a solution missing
    ("(5,2)", "p=5,q=2;p=7,q=2"),  # a solution too many
    ("(1,2)", "y=1, x=2"),  # written out of order: the pair is (2, 1) by convention
    ("(2,1)", "x=1, y=2"),
    ("(1,2)", "x=1, y=2, z=3"),
    ("(1,2),(3,4)", "x=1,y=2;x=3,y=5"),
    ("(5,2),(7,2)", "p=5,q=2;p=7,r=2"),  # the groups name different variables
    ("[1,2]", "x=1, y=2"),  # an interval, not a point
    ("(1,2)", "x=1, x=2"),
]

OR_WITHOUT_SPACES = [
    ("W(n) = 1 \\text{ and } W(n) = -1", "W(x)=1orW(x)=-1"),
    ("\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1", "W(x)=1orW(x)=-1"),  # an unclosed, escaped box
    ("1, -1", "x=1orx=-1"),
    ("(1,2), (3,4)", "(1,2)or(3,4)"),
]

OR_NEAR_MISSES = [
    ("W(n) = 1 \\text{ and } W(n) = -1", "W(x)=1orW(x)=-2"),
    ("W(n) = 1 \\text{ and } W(n) = -1", "W(x)=1"),
    ("1", "1or2"),  # a hedge, wherever the spaces are
    ("1, -1", "x=1orx=1"),
]

SUBSCRIPT_EQUALS = [
    ("F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}", "F_n = \\sum_{k=0}^{n-1} F_{n-k-1} F_k"),
]

SUBSCRIPT_EQUALS_NEAR_MISSES = [
    ("F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}", "F_m = \\sum_{k=0}^{n-1} F_k F_{n-k-1}"),
    ("\\sum_{k=0}^{n} k", "0"),
]


@pytest.mark.parametrize(
    ("gold", "answer"), LINEAR + ABSOLUTE + ASSIGNMENTS + OR_WITHOUT_SPACES + SUBSCRIPT_EQUALS
)
def test_equivalent(gold, answer):
    assert _reward(gold, answer) == 1.0, _score(gold, answer).info


@pytest.mark.parametrize(
    ("gold", "answer"),
    LINEAR_NEAR_MISSES
    + ABSOLUTE_NEAR_MISSES
    + ASSIGNMENT_NEAR_MISSES
    + OR_NEAR_MISSES
    + SUBSCRIPT_EQUALS_NEAR_MISSES,
)
def test_near_miss(gold, answer):
    assert _reward(gold, answer) == 0.0, _score(gold, answer).info


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("x=1orx=-1", "x=1,x=-1"),
        ("W(x)=1orW(x)=-1", "W(x)=1,W(x)=-1"),
        ("2and3", "2,3"),
        ("10orders", "10orders"),  # inside a word: not a separator
        ("\\text{color}", "color"),
    ],
)
def test_or_and_without_spaces_separate_answers_only_between_values(text, normalized):
    assert normalize(text) == normalized


def test_there_are_at_least_as_many_near_misses_as_equivalences():
    for good, bad in [
        (LINEAR, LINEAR_NEAR_MISSES),
        (ABSOLUTE, ABSOLUTE_NEAR_MISSES),
        (ASSIGNMENTS, ASSIGNMENT_NEAR_MISSES),
        (OR_WITHOUT_SPACES, OR_NEAR_MISSES),
        (SUBSCRIPT_EQUALS, SUBSCRIPT_EQUALS_NEAR_MISSES),
    ]:
        assert len(bad) >= len(good)


@pytest.mark.parametrize(("gold", "answer"), LINEAR + ABSOLUTE + LINEAR_NEAR_MISSES + ABSOLUTE_NEAR_MISSES)
def test_inequalities_are_decided_without_the_symbolic_stage(gold, answer):
    sample = Sample(response=f"\\boxed{{{answer}}}", ground_truth=gold)
    assert MathEquivScorer().quick(sample) is not None


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("-x", {"x": -1}),
        ("2x-3", {"x": 2, "": -3}),
        ("\\frac{x}{3}+\\frac{1}{6}", {"x": "1/3", "": "1/6"}),
        ("3(x-1)", {"x": 3, "": -3}),
        ("0.5\\lambda", {"\\lambda": "1/2"}),
        ("x_1-x_1", {}),
        ("7", {"": 7}),
    ],
)
def test_linear_form_reads_rational_linear_expressions(text, form):
    assert linear_form(text) == {k: Fraction(v) for k, v in form.items()}


@pytest.mark.parametrize(
    "text", ["x^2", "x\\cdot x", "xy", "\\frac{1}{x}", "\\sqrt{x}", "2\\pi x", "e x", "|x|", "x!", "x/0", ""]
)
def test_linear_form_refuses_anything_else(text):
    assert linear_form(text) is None


def test_solve_inequality_returns_the_variable_and_exact_intervals():
    from math import inf

    F = Fraction

    assert solve_inequality(["-x", "-1"], [">"]) == ("x", ((-inf, False, F(1), False),))
    assert solve_inequality(["1", "|z|", "\\frac{3}{2}"], ["<=", "<="]) == (
        "z",
        ((F(-3, 2), True, F(-1), True), (F(1), True, F(3, 2), True)),
    )
    assert solve_inequality(["x^2", "1"], [">"]) is None
    assert solve_inequality(["1", "x", "0"], ["<", ">"]) is None  # mixed directions


def _random_linear(rng, depth: int = 0) -> tuple[str, Fraction, Fraction]:
    """A random rational linear LaTeX expression in ``x``, with its coefficient and constant term."""
    pick = rng.randrange(7 if depth < 2 else 3)
    n = rng.randint(1, 9)
    if pick == 0:
        return str(n), Fraction(0), Fraction(n)
    if pick == 1:
        return f"{n}x", Fraction(n), Fraction(0)
    if pick == 2:
        d = rng.randint(1, 9)
        return f"\\frac{{{n}}}{{{d}}}x", Fraction(n, d), Fraction(0)
    text, k, c = _random_linear(rng, depth + 1)
    if pick == 3:
        sign = rng.choice("+-")
        text2, k2, c2 = _random_linear(rng, depth + 1)
        s = 1 if sign == "+" else -1
        return f"{text} {sign} {text2 if sign == '+' else f'({text2})'}", k + s * k2, c + s * c2
    if pick == 4:
        return f"{n}({text})", n * k, n * c
    if pick == 5:
        return f"\\frac{{{text}}}{{{n}}}", k / n, c / n
    return f"-({text})", -k, -c


def test_linear_form_reads_random_linear_expressions_exactly():
    rng = random.Random(15)
    for _ in range(300):
        text, k, c = _random_linear(rng)
        assert linear_form(normalize(text)) == {name: v for name, v in (("x", k), ("", c)) if v}, text


def _value(k: Fraction, c: Fraction, absolute: bool, x: Fraction) -> Fraction:
    return abs(k * x + c) if absolute else k * x + c


def _holds(value, op: str, bound) -> bool:
    return {"<": value < bound, "<=": value <= bound, ">": value > bound, ">=": value >= bound}[op]


def _inside(x, intervals) -> bool:
    return any(
        (lo < x or (lo_closed and lo == x)) and (x < hi or (hi_closed and hi == x))
        for lo, lo_closed, hi, hi_closed in intervals
    )


def test_solved_inequalities_hold_exactly_on_their_solution_sets():
    """Each solution set, checked point by point (its ends, between them, beyond) against the inequality."""
    rng = random.Random(1515)
    ops = ["<", "<=", ">", ">="]
    checked = 0
    for _ in range(400):
        k = Fraction(rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([1, 2, 3]))
        c = Fraction(rng.randint(-5, 5), rng.choice([1, 2]))
        sign = "-" if k < 0 else ""
        inner = f"{sign}\\frac{{{abs(k.numerator)}}}{{{k.denominator}}}x+{c.numerator}/{c.denominator}"
        inner = inner.replace("+-", "-")
        absolute = rng.random() < 0.5
        middle = f"|{inner}|" if absolute else inner
        lo, hi = sorted(Fraction(rng.randint(-6, 6), rng.choice([1, 2])) for _ in range(2))
        if rng.random() < 0.5:
            op = rng.choice(ops)
            sides, rel = [middle, f"{lo.numerator}/{lo.denominator}"], [op]

            def truth(v, op=op, lo=lo):
                return _holds(v, op, lo)
        else:
            a, b = rng.choice(["<", "<="]), rng.choice(["<", "<="])
            sides = [f"{lo.numerator}/{lo.denominator}", middle, f"{hi.numerator}/{hi.denominator}"]
            rel = [a, b]

            def truth(v, a=a, b=b, lo=lo, hi=hi):
                return _holds(lo, a, v) and _holds(v, b, hi)

        solved = solve_inequality(sides, rel)
        points = {Fraction(n, 4) for n in range(-80, 81)}
        value = functools.partial(_value, k, c, absolute)
        expected = {x for x in points if truth(value(x))}
        if solved is None:  # only an empty solution set is refused
            assert not expected, (sides, rel)
            continue
        name, intervals = solved
        assert name == "x"
        ends = {e for iv in intervals for e in (iv[0], iv[2]) if abs(e) != float("inf")}
        for x in points | ends:
            assert _inside(x, intervals) == truth(value(x)), (sides, rel, intervals, x)
        checked += 1
    assert checked >= 300


# latex2sympy reads numbers written side by side as a mixed number (``2\frac12`` is 5/2), and so also
# ``7(4)``, ``(7)(4)`` and ``(2)3`` as sums (11, 11, 5): a bracket after a number is a product
BRACKETED_PRODUCTS = [
    ("\\frac{28}{3}x", "\\frac{7(4)}{3}x", 1.0),
    ("\\frac{11}{3}x", "\\frac{7(4)}{3}x", 0.0),
    ("28\\sqrt{2}", "(7)(4)\\sqrt{2}", 1.0),
    ("11\\sqrt{2}", "(7)(4)\\sqrt{2}", 0.0),
    ("6y", "(2)3y", 1.0),
    ("5y", "(2)3y", 0.0),
    ("56\\pi", "7(4)(2)\\pi", 1.0),
    ("13\\pi", "7(4)(2)\\pi", 0.0),
]


@pytest.mark.parametrize(("gold", "answer", "reward"), BRACKETED_PRODUCTS)
def test_a_bracket_after_a_number_is_a_product_in_the_symbolic_stage(gold, answer, reward):
    assert _reward(gold, answer) == reward, _score(gold, answer).info


def _latex_number(v: Fraction, style: int) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    sign = "-" if v < 0 else ""
    n, d = abs(v.numerator), v.denominator
    return [f"{sign}\\frac{{{n}}}{{{d}}}", f"{sign}\\dfrac{n}{d}" if n < 10 and d < 10 else f"{sign}{n}/{d}"][
        style
    ]


def _latex_union(intervals, style: int) -> str:
    def end(v):
        return ("\\infty" if v > 0 else "-\\infty") if abs(v) == float("inf") else _latex_number(v, style)

    return " \\cup ".join(
        f"{'[' if lc else '('}{end(lo)}, {end(hi)}{']' if hc else ')'}" for lo, lc, hi, hc in intervals
    )


def _perturbed(intervals, rng):
    """The same union with one finite end moved or one finite end's bracket switched."""
    ivs = [list(iv) for iv in intervals]
    ends = [(i, j) for i, iv in enumerate(ivs) for j in (0, 2) if abs(iv[j]) != float("inf")]
    if not ends:
        return None
    i, j = rng.choice(ends)
    if rng.random() < 0.5:
        ivs[i][j + 1] = not ivs[i][j + 1]
    else:
        ivs[i][j] += Fraction(rng.choice([-1, 1]), rng.choice([1, 2, 4]))
    return [tuple(iv) for iv in ivs]


def test_solved_inequalities_match_their_interval_and_no_neighbour_end_to_end():
    """Through the scorer: an inequality equals its solution set written in LaTeX, and no near miss of it."""
    rng = random.Random(2026)
    ops = ["<", "\\le", ">", "\\ge"]
    checked = 0
    for _ in range(150):
        k, c = rng.choice([-3, -2, -1, 2, 3]), rng.randint(-4, 4)
        inner = f"{k}x{'+' if c >= 0 else '-'}{abs(c)}"
        if rng.random() < 0.5:
            text = f"|{inner}| {rng.choice(ops)} {rng.randint(0, 5)}"
        else:
            lo_rel, hi_rel = rng.choice(ops[:2]), rng.choice(ops[:2])
            text = f"{rng.randint(-6, 0)} {lo_rel} {inner} {hi_rel} {rng.randint(1, 6)}"
        split = text.replace("\\le", "<=").replace("\\ge", ">=").split(" ")
        sides, rel = split[::2], split[1::2]
        solved = solve_inequality(sides, rel)
        if solved is None:
            continue
        _, intervals = solved
        style = rng.randrange(2)
        assert _reward(_latex_union(intervals, style), text) == 1.0, (text, intervals)
        near = _perturbed(intervals, rng)
        if near is not None and all(lo < hi for lo, _, hi, _ in near):
            assert _reward(_latex_union(near, style), text) == 0.0, (text, near)
        checked += 1
    assert checked >= 100

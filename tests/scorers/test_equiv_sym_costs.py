"""Cost savings of the symbolic stage (``_equiv_sym``): shortcuts return what the full tests return, and warm-up
holds the gamma coefficients the zero tests of factorial identities ask for.

A shortcut may only save time: for every input it must give the verdict of the path it skips. Near misses
(trees that are equal but whose difference is not 0, such as ``oo``, which the full path calls unequal;
trees that differ by a little) are most of the cases.
"""

from __future__ import annotations

from typing import Any

import pytest

sympy = pytest.importorskip("sympy")

from rewardloop.scorers import _equiv_sym  # noqa: E402
from rewardloop.scorers._equiv_sym import _compare, _exact_floats, exprs_equal, to_sympy  # noqa: E402

SAME_TREE = [
    "\\frac{d !}{2 k(d-k) !}",  # an identity checked at high precision at six points on the full path
    "\\sqrt{2} + \\pi",
    "\\frac{1}{3}",
    "x^2 + 2x + 1",
    "\\ln x",
    "\\sin^2 x + \\cos^2 x",
    "0.1 x",
    "\\lfloor \\frac{n}{2} \\rfloor",
    "f(x) + 1",
    "N(n)",
]
NOT_FINITE = ["\\infty", "-\\infty", "x + \\infty", "\\frac{1}{0}", "0 \\cdot \\infty"]
NEAR_PAIRS = [
    ("\\frac{d !}{2 k(d-k) !}", "\\frac{d !}{2 k(d-k+1) !}"),
    ("\\sqrt{2} + \\pi", "\\sqrt{2} + \\pi + 10^{-100}"),
    ("2^{64}", "2^{64} - 1"),
    ("x^2 + 2x + 1", "(x+1)^2"),
    ("\\ln x", "\\ln |x|"),
    ("f(x)", "f(y)"),
    ("N(n)", "n"),
    ("0.1 x", "\\frac{x}{10}"),
]


def _value(text: str) -> Any:
    expr = to_sympy(text)
    if expr is None:  # to_sympy declines some texts (a value that is no value): compare the raw parse then
        from rewardloop.scorers._sympy_grade import parse_latex_expr

        expr = parse_latex_expr(text)
    assert expr is not None, text
    return expr


@pytest.mark.parametrize("text", SAME_TREE + NOT_FINITE)
@pytest.mark.parametrize("rel_tol", [0.0, 1e-6])
def test_one_tree_twice_gets_the_full_paths_verdict(text: str, rel_tol: float) -> None:
    a = _value(text)
    b = _value(text)
    full = _compare(_exact_floats(a), _exact_floats(b), rel_tol)
    assert exprs_equal(a, b, rel_tol) == full


@pytest.mark.parametrize("pair", NEAR_PAIRS)
def test_different_trees_take_the_full_path(pair: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = (_value(t) for t in pair)
    want = _compare(_exact_floats(a), _exact_floats(b), 0.0)
    calls = []
    real = _equiv_sym._compare
    monkeypatch.setattr(_equiv_sym, "_compare", lambda *args: calls.append(args) or real(*args))
    assert exprs_equal(a, b) == want
    assert calls, "a pair of different trees must be compared in full"


def test_the_shortcut_skips_the_point_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _value(SAME_TREE[0]), _value(SAME_TREE[0])
    monkeypatch.setattr(_equiv_sym, "_compare", lambda *args: pytest.fail("compared in full"))
    assert exprs_equal(a, b) is True


def test_not_finite_trees_are_compared_in_full() -> None:
    # oo - oo is nan: the full path does not call oo equal to itself, and neither may the shortcut
    inf = sympy.oo
    assert exprs_equal(inf, inf) == _compare(inf, inf, 0.0)
    x = sympy.Symbol("x")
    assert exprs_equal(x + inf, x + inf) == _compare(x + inf, x + inf, 0.0)


def test_warm_up_holds_the_gamma_coefficients_the_zero_tests_use() -> None:
    """A factorial identity at 200 digits asks mpmath for the gamma function's Taylor coefficients at up to
    about 960 bits; after warm-up every such request is served from the cache (mpmath shifts higher ones)."""
    gammazeta = pytest.importorskip("mpmath.libmp.gammazeta")
    from rewardloop.scorers._sympy_grade import GAMMA_WARM_BITS, warm_up

    warm_up()
    assert any(prec >= GAMMA_WARM_BITS for prec in gammazeta.gamma_taylor_cache)
    computed = []
    real = gammazeta.zeta_array  # what computing new coefficients calls; a cached or shifted set does not
    try:
        gammazeta.zeta_array = lambda *args: computed.append(args) or real(*args)
        a = _value(SAME_TREE[0])
        b = _value("\\frac{\\binom{d}{k} (k-1)!}{2}")
        assert _compare(_exact_floats(a), _exact_floats(b), 0.0) is True
    finally:
        gammazeta.zeta_array = real
    assert not computed, "a zero test computed gamma coefficients that warm-up should have held"

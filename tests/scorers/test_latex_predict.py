"""The LaTeX parser's prediction memo (``_latex_predict``): the same sympy objects as ``latex2sympy``, sooner."""

from __future__ import annotations

import pytest

pytest.importorskip("latex2sympy2_extended")

from rewardloop.scorers import _latex_predict

# shapes that need ANTLR's full-context prediction (x^{2}: SLL fails, LL decides), precedence levels, sets,
# intervals, matrices, equations, subscripts, functions, numerals (integers built directly), prose and syntax
# errors
TEXTS = [
    "x^{2}+y^{2}",
    "(x-3)^{2}+y^{2}",
    "a^{3}+b^{5}",
    "\\frac{n^2(n+1)}{2}",
    "\\frac{x^{2}}{16}+\\frac{y^{2}}{8}=1",
    "3a_{n-1}",
    "a_n=3a_{n-1}",
    "N_{1}/N",
    "\\frac{N_{1}}{N}",
    "2a^2\\sin B\\sin C",
    "\\arccos(\\frac{a^3+ab^2-ac^2+b^3+c^3-a^2c}{4abc})",
    "x^{90}+x^{80}+x^{70}+1",
    "(-\\infty,\\frac{3}{7}]\\cup[\\frac{3}{5},\\infty)",
    "\\{(0, 0), (0, \\frac{5}{2})\\}",
    "\\begin{pmatrix} -2/3 \\\\ -1/3 \\\\ 4/3 \\end{pmatrix}",
    "n \\in \\{3, 11, 34\\}",
    "2\\cdot (x^{10}+x^{8}+x^{6}-x^{4}+x^{2}+1)",
    "\\lfloor\\frac{2n}{3}\\rfloor+1",
    "e^{2 \\pi i/7}",
    "-x^{2}-y^{2}",
    "1-2-3^{2}",
    "2^{3^{2}}",
    "3,250",
    "1,000,000",
    "007+x",
    "0",
    "0.50x",
    "25\\%",
    "2.5e3",
    "12345678901234567890123",
    "the answer is 12",
    "\\frac{1}{",
    "36}",
    "t(0,4]",
]


def _reference(text: str) -> str:
    import sympy
    from latex2sympy2_extended import latex2sympy

    try:
        return sympy.srepr(latex2sympy(text))
    except Exception as exc:  # latex2sympy raises plain Exceptions
        return f"raises {type(exc).__name__}"


def _memo(text: str) -> str:
    import sympy

    try:
        return sympy.srepr(_latex_predict.parse(text))
    except Exception as exc:
        return f"raises {type(exc).__name__}"


@pytest.mark.parametrize("order", ["forward", "backward", "interleaved"])
def test_memo_parses_equal_latex2sympy_in_any_order(order):
    """Whatever the memo learned before (other inputs, other orders), each parse is latex2sympy's."""
    texts = list(TEXTS)
    if order == "backward":
        texts.reverse()
    elif order == "interleaved":
        texts = texts[::2] + texts[1::2]
    _latex_predict.clear()
    expected = {t: _reference(t) for t in texts}
    got = {t: _memo(t) for t in texts}
    again = {t: _memo(t) for t in reversed(texts)}  # now answered mostly from the memo
    assert got == expected
    assert again == expected


def test_memo_answers_a_new_input_of_a_known_shape_without_predicting():
    """``a^{3}+b^{5}`` has the token types of ``x^{2}+y^{2}``: every prediction comes from the memo."""
    _latex_predict.clear()
    _latex_predict.parse("x^{2}+y^{2}")  # ANTLR itself (_latex2sympy reads this shape without it)
    before = _latex_predict.stats()
    assert _memo("a^{3}+b^{5}") == _reference("a^{3}+b^{5}")
    after = _latex_predict.stats()
    assert after["misses"] == before["misses"]
    assert after["hits"] > before["hits"]


def test_memo_starts_over_at_its_bound(monkeypatch):
    monkeypatch.setattr(_latex_predict, "MAX_NODES", 40)
    _latex_predict.clear()
    for t in TEXTS:
        assert _memo(t) == _reference(t)
        assert _latex_predict.stats()["nodes"] <= 40 + 64  # one prediction's window past the bound at most
    _latex_predict.clear()


def test_latex2sympy_itself_is_untouched():
    """Only parsers built by the memo use it: latex2sympy (and so Math-Verify) parses as it always did."""
    from antlr4.atn.ParserATNSimulator import ParserATNSimulator
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig, _Latex2Sympy

    _latex_predict.parse("x^{2}+y^{2}")  # ANTLR itself (_latex2sympy reads this shape without it)
    parser = _Latex2Sympy(None, None, False, config=ConversionConfig()).create_parser("x^{2}")
    assert type(parser._interp) is ParserATNSimulator

"""The symbolic stage of :mod:`rewardloop.scorers.math_equiv`: LaTeX to sympy, and equality of values.

No ``eval``: LaTeX goes through :func:`rewardloop.scorers._sympy_grade.parse_latex_expr` (the ANTLR
grammar of ``latex2sympy2_extended``, with size and blow-up guards), plain text through
:func:`~rewardloop.scorers._sympy_grade.parse_sympy_text` (a whitelisting parser).

Equality of two expressions:

* constants: ``|a - b|`` evaluated to 30 significant digits is below ``rel_tol * max(1, |a|, |b|)``;
* with free symbols: both sides must use the same symbols, and agree at :data:`POINTS` fixed
  pseudo-random points (polynomial-identity style testing; a false "equal" needs both expressions to
  coincide at every point); when a side cannot be evaluated there, ``simplify(a - b) == 0`` decides;
* equations ``l1 = r1`` and ``l2 = r2``: ``(l1 - r1) / (l2 - r2)`` is a non-zero constant at every point
  (so ``y = 2x + 3`` equals ``2x - y + 3 = 0`` but ``3x - y + 13 = 0`` differs from ``3x + 4y + 14 = 0``).

May be slow on hard input: the scorer runs this stage under the execution layer's deadline.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from ._sympy_grade import is_tame, parse_latex_expr, parse_sympy_text

__all__ = ["POINTS", "equations_equal", "exprs_equal", "to_sympy"]

POINTS = ((0.5772, 1.3247, 0.7071), (1.6180, 0.3679, 2.2360), (2.7183, 1.4142, 0.3183))
_PLAIN = re.compile(r"^[0-9a-zA-Z+\-*/^(). ]+$")


@lru_cache(maxsize=2048)
def to_sympy(text: str) -> Any | None:
    """The sympy value of a normalised answer (LaTeX or plain text), or None."""
    import sympy

    if not text or len(text) > 256:
        return None
    expr = None
    if _PLAIN.match(text) and "\\" not in text:
        expr = parse_sympy_text(text, implicit=True, convert_xor=True)
    if expr is None:
        expr = parse_latex_expr(_latex_fixups(text))
    if expr is None or not is_tame(expr):
        return None
    if not isinstance(expr, sympy.Expr):
        return None
    return _fold_constants(expr)


# a number, or a closing bracket, right before a bracket: latex2sympy reads two numbers side by side as a
# mixed number, so "7(4)", "(7)(4)" and "(2)3" would be 11, 11 and 5; the product is made explicit (not after
# "_" or "^", where "x_2(t)" names a function and "x^2(x+1)" is read right already)
_BRACKET_PRODUCT = re.compile(r"(?<![_^A-Za-z\d.])(\d+(?:\.\d+)?)\s*(?=[(\[])|(?<=[)\]])\s*(?=[(\[\d])")


def _latex_fixups(text: str) -> str:
    if "(" in text or "[" in text:
        text = _BRACKET_PRODUCT.sub(lambda m: (m.group(1) or "") + "\\cdot ", text)
    # latex2sympy reads a bare "i" as a symbol; MATH uses it as the imaginary unit
    return re.sub(r"(?<![A-Za-z\\])i(?![A-Za-z])", "I", text) if "i" in text else text


def _fold_constants(expr: Any) -> Any:
    import sympy

    subs = {s: sympy.I for s in expr.free_symbols if s.name in ("I", "i")}
    subs.update({s: sympy.E for s in expr.free_symbols if s.name == "e"})
    subs.update({s: sympy.pi for s in expr.free_symbols if s.name == "pi"})
    return expr.xreplace(subs) if subs else expr


def exprs_equal(a: Any, b: Any, rel_tol: float = 1e-9) -> bool | None:
    """Whether two sympy expressions have the same value; None when it cannot be told."""
    fa, fb = a.free_symbols, b.free_symbols
    if not fa and not fb:
        return _constants_equal(a, b, rel_tol)
    if {s.name for s in fa} != {s.name for s in fb}:
        return False
    verdict = _agree_at_points(a, b, sorted(fa | fb, key=lambda s: s.name), rel_tol)
    if verdict is not None:
        return verdict
    return _simplify_zero(a - b)


def equations_equal(l1: Any, r1: Any, l2: Any, r2: Any) -> bool | None:
    """Whether ``l1 = r1`` and ``l2 = r2`` describe the same solution set (same expression up to a factor)."""
    d1, d2 = l1 - r1, l2 - r2
    symbols = sorted(d1.free_symbols | d2.free_symbols, key=lambda s: s.name)
    if {s.name for s in d1.free_symbols} != {s.name for s in d2.free_symbols}:
        return False
    if not symbols:
        return _constants_equal(d1, d2, 1e-9) if _value(d1) == 0 or _value(d2) == 0 else None
    ratios = []
    for point in POINTS:
        x, y = _at(d1, symbols, point), _at(d2, symbols, point)
        if x is None or y is None:
            return None
        if abs(y) < 1e-12:
            if abs(x) > 1e-9:
                return False
            continue
        ratios.append(x / y)
    if not ratios:
        return None
    first = ratios[0]
    if abs(first) < 1e-12:
        return False
    return all(abs(r - first) <= 1e-8 * max(1.0, abs(first)) for r in ratios)


def _constants_equal(a: Any, b: Any, rel_tol: float) -> bool | None:
    x, y = _value(a), _value(b)
    if x is None or y is None:
        return _simplify_zero(a - b)
    scale = max(1.0, abs(x), abs(y))
    return abs(x - y) <= rel_tol * scale


def _value(expr: Any) -> complex | None:
    try:
        v = complex(expr.evalf(30))
    except Exception:  # not a number (zoo, nan, symbolic leftovers)
        return None
    return v if math.isfinite(v.real) and math.isfinite(v.imag) else None


def _at(expr: Any, symbols: list[Any], point: tuple[float, ...]) -> complex | None:
    import sympy

    subs = {
        s: sympy.Float(point[i % len(point)] + 0.11 * (i // len(point)), 30) for i, s in enumerate(symbols)
    }
    try:
        v = complex(expr.evalf(30, subs=subs))
    except Exception:
        return None
    return v if math.isfinite(v.real) and math.isfinite(v.imag) else None


def _agree_at_points(a: Any, b: Any, symbols: list[Any], rel_tol: float) -> bool | None:
    checked = 0
    for point in POINTS:
        x, y = _at(a, symbols, point), _at(b, symbols, point)
        if x is None or y is None:
            continue
        if abs(x - y) > max(rel_tol, 1e-12) * max(1.0, abs(x), abs(y)):
            return False
        checked += 1
    return True if checked >= 2 else None


def _simplify_zero(expr: Any) -> bool | None:
    import sympy

    try:
        return bool(sympy.simplify(expr) == 0)
    except Exception:
        return None

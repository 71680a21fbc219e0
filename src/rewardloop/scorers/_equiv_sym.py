"""The symbolic stage of :mod:`rewardloop.scorers.math_equiv`: LaTeX to sympy, and equality of values.

No ``eval``: LaTeX goes through :func:`rewardloop.scorers._sympy_grade.parse_latex_expr` (the ANTLR
grammar of ``latex2sympy2_extended``, with size and blow-up guards), plain text through
:func:`~rewardloop.scorers._sympy_grade.parse_sympy_text` (a whitelisting parser).

Equality of two expressions:

* constants: exactly equal; decimals are read as the exact rationals they write, and ``a - b`` must vanish
  to :data:`ZERO_DIGITS` significant digits, or to twice the digits of the largest integer or integer power
  in it plus 50 (at most :data:`MAX_ZERO_DIGITS`: ``\\sqrt[1000]{2^{1000}+1}`` is not 2) (sympy's adaptive
  evaluation finds a nonzero difference at full precision however small it is: ``e^{-100}`` is not 0,
  ``2^{64}`` is not ``2^{64}-1``). A tolerance is used only when the caller passes one (the gold is a rounded
  decimal);
* a symbol that cancels is none (``5 + 0 \\cdot k`` is 5: both sides are expanded when their symbols differ);
* definite integrals, sums, products, limits and derivatives are replaced by the value ``doit()`` finds; one
  that stays unevaluated, or is infinite, is no value (None). So are texts latex2sympy would misread as one:
  ``\\Pi``, a prime after a number, ``\\approx``/``\\sim``/``\\equiv``..., ``\\circ``;
* with free symbols: both sides must use the same symbols and be exactly equal at :data:`POINTS` rational
  points (:data:`STEP_POINTS` when floor, ceiling, abs, mod, max/min or piecewise appear), drawn from a
  hash of the two expressions: negative, positive and integer values, so ``\\ln x`` is not ``\\ln|x|``
  and no response can be built to vanish at known points. A point where only one side is real counts as
  a difference. Fewer than three decisive points: ``simplify(a - b) == 0`` decides;
* equations ``l1 = r1`` and ``l2 = r2``: ``(l1 - r1) / (l2 - r2)`` is the same non-zero constant at every
  point (so ``y = 2x + 3`` equals ``2x - y + 3 = 0`` but ``3x - y + 13 = 0`` differs from ``3x + 4y + 14 = 0``).

May be slow on hard input: the scorer runs this stage under the execution layer's deadline.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from ._sympy_grade import is_tame, parse_latex_expr, parse_sympy_text

__all__ = ["POINTS", "STEP_POINTS", "ZERO_DIGITS", "equations_equal", "exprs_equal", "to_sympy"]

_PLAIN = re.compile(r"^[0-9a-zA-Z+\-*/^(). ]+$")
# what latex2sympy reads as a value although it is none: a relation other than "=" (``x \\approx 5`` read as
# 5), capital Pi (read as pi), a degree sign left on an expression of pi, a prime after a number (45' is 45
# arcminutes or feet)
_NOT_A_VALUE = re.compile(r"\\(?:approx|sim|simeq|cong|equiv|propto|Pi|circ|prime)(?![A-Za-z])|\d\s*'")


@lru_cache(maxsize=2048)
def to_sympy(text: str) -> Any | None:
    """The sympy value of a normalised answer (LaTeX or plain text), or None."""
    import sympy

    if not text or len(text) > 256 or _NOT_A_VALUE.search(text):
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
    expr = _evaluated(expr)
    return None if expr is None else _fold_constants(expr)


def _evaluated(expr: Any) -> Any | None:
    """A definite integral, sum, product or limit as the value sympy finds for it (``\\int_0^1 2x\\,dx`` is
    1); None when it stays unevaluated or is not finite: an unevaluated operator is no answer."""
    import sympy

    ops = (sympy.Integral, sympy.Sum, sympy.Product, sympy.Limit, sympy.Derivative)
    if not expr.has(*ops):
        return expr
    try:
        done = expr.doit()
    except Exception:
        return None
    if (
        not isinstance(done, sympy.Expr)
        or done.has(*ops)
        or done.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan)
    ):
        return None
    return done if is_tame(done) else None


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


def exprs_equal(a: Any, b: Any, rel_tol: float = 0.0) -> bool | None:
    """Whether two sympy expressions have the same value; None when it cannot be told.

    Equality is exact: constants must have a difference that vanishes to :data:`ZERO_DIGITS` digits
    (``2^{64}`` is not ``2^{64}-1``, ``e^{-100}`` is not ``0``). ``rel_tol`` > 0 is a tolerance the caller
    grants because the *gold* is a rounded decimal (it is the gold's half unit of its last place, relative).
    """
    a, b = _exact_floats(a), _exact_floats(b)
    if a == b and (a - b) == 0:
        return True  # the same tree: what the tests below find, without evaluating it (see _compare)
    return _compare(a, b, rel_tol)


def _compare(a: Any, b: Any, rel_tol: float) -> bool | None:
    """:func:`exprs_equal` without its shortcut for one tree twice. That shortcut returns what this returns:
    ``a - a`` is 0 only for a finite ``a`` (``oo - oo`` is nan), and then the constants' zero test is given 0,
    and at every point of an identity both sides are the same value, whose difference is 0 again (a point
    where it is not finite is skipped), so every decisive point agrees, and ``simplify(0) == 0`` if too few
    are decisive."""
    fa, fb = a.free_symbols, b.free_symbols
    if fa != fb:  # "5 + 0 \\cdot k" has no k: a symbol that cancels is not a parameter
        a, b = _expanded(a), _expanded(b)
        fa, fb = a.free_symbols, b.free_symbols
    if not fa and not fb:
        return _constants_equal(a, b, rel_tol)
    if {s.name for s in fa} != {s.name for s in fb}:
        return False
    return _identity(a, b, sorted(fa | fb, key=lambda s: s.name))


def _expanded(expr: Any) -> Any:
    import sympy

    try:
        return sympy.expand(expr) if is_tame(expr) else expr
    except Exception:
        return expr


def equations_equal(l1: Any, r1: Any, l2: Any, r2: Any) -> bool | None:
    """Whether ``l1 = r1`` and ``l2 = r2`` describe the same solution set (same expression up to a factor)."""
    d1, d2 = _exact_floats(l1 - r1), _exact_floats(l2 - r2)
    symbols = sorted(d1.free_symbols | d2.free_symbols, key=lambda s: s.name)
    if {s.name for s in d1.free_symbols} != {s.name for s in d2.free_symbols}:
        return False
    if not symbols:
        return _constants_equal(d1, d2, 0.0) if _value(d1) == 0 or _value(d2) == 0 else None
    ratio = None
    decided = 0
    for point in _points(d1, d2, symbols):
        x, y = _at(d1, symbols, point), _at(d2, symbols, point)
        if x is None or y is None:
            continue
        zx, zy = _is_zero(x), _is_zero(y)
        if zx is None or zy is None:
            continue
        if zx or zy:
            if zx != zy:
                return False
            continue
        r = x / y
        if ratio is None:
            ratio = r
        else:
            same = _is_zero(r - ratio)
            if same is None:
                continue
            if not same:
                return False
        decided += 1
    if ratio is None or decided < 3:
        return None
    return True


#: two constants are equal when their difference vanishes to this many significant digits (sympy evaluates
#: the difference adaptively: a nonzero difference, however small, is found at full precision)
ZERO_DIGITS = 200
#: the most digits a zero test ever works at (expressions with larger integers are rarer than their cost)
MAX_ZERO_DIGITS = 5000
#: points an identity is checked at (more for non-polynomial functions: floor, abs, mod, piecewise ...)
POINTS = 6
STEP_POINTS = 24


@lru_cache(maxsize=2048)
def _exact_floats(expr: Any) -> Any:
    """``expr`` with its decimals as exact rationals (``0.1`` is 1/10), so that equality can be exact.

    Cached: a GRPO group compares n responses with one gold (sympy expressions hash by structure)."""
    import sympy

    floats = expr.atoms(sympy.Float)
    if not floats:
        return expr
    return expr.xreplace({f: sympy.Rational(str(f)) for f in floats})


def _is_zero(expr: Any) -> bool | None:
    """Whether a constant expression is zero: exactly, or to :data:`ZERO_DIGITS` digits; None if unknown."""
    import sympy

    if expr == 0:
        return True
    if expr.is_Rational:
        return False
    try:
        v = expr.evalf(15, maxn=_zero_digits(expr))
    except Exception:
        return None
    if v == 0:
        return True
    if not isinstance(v, sympy.Number | sympy.Add | sympy.Mul):
        return None
    re_part, im_part = v.as_real_imag()
    for part in (re_part, im_part):
        if part == 0:
            continue
        if not isinstance(part, sympy.Float):
            return None
        if part._prec > 1:  # significant digits found: a real difference, however small
            return False
    return True  # no significant digit in ZERO_DIGITS: zero to that precision


def _zero_digits(expr: Any) -> int:
    """The precision a zero test needs: :data:`ZERO_DIGITS`, or more for an expression with big integers in it,
    whose nonzero differences can be as small as one over their size (``\\sqrt[1000]{2^{1000}+1} - 2`` is about
    1e-304)."""
    import sympy

    digits = 0
    for r in expr.atoms(sympy.Rational):
        digits = max(digits, len(str(abs(r.p))), len(str(r.q)))
    for pw in expr.atoms(sympy.Pow):  # unevaluated powers: 2^{1000} has 302 digits
        base, exponent = pw.args
        if base.is_Rational and exponent.is_Integer and base not in (0, 1, -1):
            size = math.log10(max(abs(int(base.p)), int(base.q)))
            digits = max(digits, int(size * abs(int(exponent))) + 1)
    return (
        min(max(ZERO_DIGITS, 2 * digits + 50), MAX_ZERO_DIGITS) if digits > ZERO_DIGITS // 4 else ZERO_DIGITS
    )


def _constants_equal(a: Any, b: Any, rel_tol: float) -> bool | None:
    if rel_tol > 0:
        x, y = _value(a), _value(b)
        if x is not None and y is not None:
            return abs(x - y) <= rel_tol * max(abs(x), abs(y))
    zero = _is_zero(a - b)
    if zero is None:
        return _simplify_zero(a - b)
    return zero


def _value(expr: Any) -> complex | None:
    try:
        v = complex(expr.evalf(30))
    except Exception:  # not a number (zoo, nan, symbolic leftovers)
        return None
    return v if math.isfinite(v.real) and math.isfinite(v.imag) else None


_STEP_FUNCTIONS = ("floor", "ceiling", "Abs", "Mod", "Piecewise", "sign", "frac", "Max", "Min", "Heaviside")


def _points(a: Any, b: Any, symbols: list[Any]) -> list[tuple[Any, ...]]:
    """Rational points to check an identity at, drawn from a hash of the two expressions (so no response
    can be built to vanish at them): negative and positive values, integers among them; more of them
    when either side has a step or absolute-value function (whose identities hold piecewise)."""
    import hashlib

    import sympy

    (ra, step_a), (rb, step_b) = _form(a), _form(b)
    count = STEP_POINTS if step_a or step_b else POINTS
    seed = hashlib.blake2b(f"{ra}|{rb}".encode(), digest_size=32).digest()
    out = []
    for i in range(count):
        h = hashlib.blake2b(seed + bytes([i]), digest_size=4 * len(symbols)).digest()
        coords = []
        for k in range(len(symbols)):
            u = int.from_bytes(h[4 * k : 4 * k + 4], "big")
            if i % 3 == 2:  # an integer point: floor/mod identities are often claimed for integers
                coords.append(sympy.Integer(u % 19 - 9))
            else:
                sign = -1 if (i + k + u) % 2 else 1
                coords.append(sympy.Rational(sign * (u % 4000 + 13), 997))
        out.append(tuple(coords))
    return out


@lru_cache(maxsize=2048)
def _form(expr: Any) -> tuple[str, bool]:
    """``srepr(expr)`` and whether it has a step or absolute-value function; cached like the gold's parse."""
    import sympy

    names = {type(f).__name__ for f in expr.atoms(sympy.Function)}
    return sympy.srepr(expr), any(n in _STEP_FUNCTIONS for n in names) or expr.has(sympy.Piecewise)


def _at(expr: Any, symbols: list[Any], point: tuple[Any, ...]) -> Any | None:
    """The exact value of ``expr`` at ``point``, as a sympy constant, or None where it is not defined."""
    import sympy

    try:
        v = expr.xreplace(dict(zip(symbols, point, strict=True)))
    except Exception:
        return None
    if v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or v.free_symbols:
        return None
    return v


def _real(v: Any) -> bool | None:
    try:
        c = complex(v.evalf(20))
    except Exception:
        return None
    if not (math.isfinite(c.real) and math.isfinite(c.imag)):
        return None
    return abs(c.imag) <= 1e-15 * max(1.0, abs(c.real))


def _identity(a: Any, b: Any, symbols: list[Any]) -> bool | None:
    """Whether ``a == b`` as functions: exact equality at every point where both are defined.

    A point where one side is real and the other not is a difference (``\\ln x`` is not ``\\ln|x|``); where
    both are non-real, a difference may be a choice of branch and is not counted. Fewer than three decisive
    points: ``simplify(a - b) == 0`` decides.
    """
    decided = 0
    for point in _points(a, b, symbols):
        x, y = _at(a, symbols, point), _at(b, symbols, point)
        if x is None or y is None:
            continue
        zero = _is_zero(x - y)
        if zero is None:
            continue
        if not zero:
            rx, ry = _real(x), _real(y)
            if rx is False and ry is False:
                continue  # both non-real: maybe another branch
            return False
        decided += 1
    if decided >= 3:
        return True
    return _simplify_zero(a - b)


def _simplify_zero(expr: Any) -> bool | None:
    import sympy

    try:
        return bool(sympy.simplify(expr) == 0)
    except Exception:
        return None

"""Turning answer text into sympy objects and numbers without ``eval``/``exec``.

verl's PRIME grader builds sympy expressions with ``sympy.parse_expr`` (which ``eval``s generated Python)
and evaluates answers containing ``\\pi`` or list literals with the builtin ``eval`` (CVE-2026-6878). This
module gives the graders the same results on honest answers with no code execution at all:

* :func:`parse_sympy_text` runs sympy's own *token* transformations (auto symbols, numbers, factorial
  notation, implicit multiplication / application: exactly what ``parse_expr`` would do before its
  ``eval``), then interprets the resulting token stream with a small recursive-descent parser that knows
  only arithmetic, a whitelist of sympy constructors and functions, and nothing else. Attribute access,
  subscripts, strings, lambdas, comprehensions, keywords and every non-whitelisted name are rejected.
* :func:`parse_latex_expr` uses ``latex2sympy2_extended`` (an ANTLR grammar that builds sympy objects
  node by node; the only text it hands to sympy's string parser is a numeral its lexer matched, such as
  ``sympy.Number("12.5")``), refusing inputs whose bracket nesting or length would make ANTLR crawl, and
  results that would blow up (:func:`is_tame`).
* :func:`numeric_literal` evaluates Python-looking arithmetic (numbers, ``+ - * / // % **``, tuples,
  lists) by walking ``ast.parse`` output; it replaces verl's ``eval`` in ``handle_pi`` and the pmatrix path.

Every entry point returns ``None`` (never raises) when the text is out of scope, too long, or would blow up
(huge integer powers or factorials are refused before sympy sees them). What is left (``simplify`` on a
hard but small expression) is bounded by the execution layer's per-sample deadline.
"""

from __future__ import annotations

import ast
import cmath
import operator
import tokenize
from collections.abc import Callable
from functools import lru_cache
from io import StringIO
from typing import Any

__all__ = [
    "is_tame",
    "numeric_literal",
    "parse_latex_expr",
    "parse_sympy_text",
    "symbolic_equal",
    "sympy_difference_is_zero",
]

#: longest text handed to a parser; answers are short, anything longer is not worth a sympy call
MAX_PARSE_CHARS = 1000
#: longest text symbolic_equal and the LaTeX parser look at (MATH's longest gold answer has 159 characters)
MAX_SYMBOLIC_CHARS = 256
#: deepest bracket nesting handed to the LaTeX parser (its ANTLR grammar slows down exponentially with it)
MAX_LATEX_NESTING = 6
#: integer exponents beyond this (on a base other than 0, 1, -1) are refused: 2**10**9 never finishes
MAX_EXPONENT = 1000
#: exponents on a base with symbols beyond this are refused (simplify would expand the power)
MAX_SYMBOLIC_EXPONENT = 32
#: integer arguments of factorial-like functions beyond this are refused
MAX_FACTORIAL_ARG = 1000
_MAX_DEPTH = 80
_MAX_INT_BITS = 10_000


class _Reject(Exception):
    """The text is outside the accepted grammar (or would blow up)."""


# ---------------------------------------------------------------------------------------------------------
# sympy-syntax text


@lru_cache(maxsize=1)
def _known_names() -> dict[str, Any]:
    """The names ``parse_expr`` treats as defined (sympy's namespace plus builtin functions).

    Used only by sympy's token transformations to decide what becomes a ``Symbol``; nothing in it is called.
    """
    import builtins
    import types

    import sympy

    names = {n: getattr(sympy, n) for n in sympy.__all__ if hasattr(sympy, n)}
    names.update({n: o for n, o in vars(builtins).items() if isinstance(o, types.BuiltinFunctionType)})
    names["max"], names["min"] = sympy.Max, sympy.Min
    return names


@lru_cache(maxsize=1)
def _allowed() -> tuple[dict[str, Any], dict[str, Callable[..., Any]]]:
    """(constants, functions) a parsed expression may use. Everything else is rejected."""
    import sympy

    constants = {
        "pi": sympy.pi,
        "E": sympy.E,
        "I": sympy.I,
        "oo": sympy.oo,
        "zoo": sympy.zoo,
        "nan": sympy.nan,
    }
    functions: dict[str, Callable[..., Any]] = {
        name: getattr(sympy, name)
        for name in (
            "sqrt", "cbrt", "root", "exp", "log", "ln", "sin", "cos", "tan", "cot", "sec", "csc", "asin",
            "acos", "atan", "acot", "sinh", "cosh", "tanh", "Abs", "floor", "ceiling", "re", "im", "Max",
            "Min", "gcd", "lcm",
        )
    }  # fmt: skip
    functions.update(abs=sympy.Abs, max=sympy.Max, min=sympy.Min)
    for name in ("factorial", "factorial2", "binomial", "gamma"):
        functions[name] = _guarded(getattr(sympy, name))
    return constants, functions


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` refusing numeric arguments over :data:`MAX_FACTORIAL_ARG` (factorial(10**6) never finishes)."""

    def call(*args: Any) -> Any:
        if not all(_small(_expr_value(arg), MAX_FACTORIAL_ARG) for arg in args):
            raise _Reject("argument too large")
        return fn(*args)

    return call


class _Text(str):
    """A quoted literal the transformations produced (``Symbol('x')``, ``Float('0.5')``)."""


class _Func:
    """A whitelisted callable name awaiting its arguments."""

    __slots__ = ("call", "name")

    def __init__(self, name: str, call: Callable[..., Any]) -> None:
        self.name, self.call = name, call


def parse_sympy_text(text: str, *, implicit: bool = True, convert_xor: bool = False) -> Any | None:
    """Parse plain-text math (``2x^2 + sqrt(3)/2``) the way ``sympy.parse_expr`` would, without ``eval``.

    ``implicit`` adds sympy's ``implicit_multiplication_application`` to the standard transformations;
    ``convert_xor`` reads ``^`` as a power. Returns a sympy object, or None when the text is not a plain
    math expression (or uses anything outside the whitelist).
    """
    if not isinstance(text, str) or len(text) > MAX_PARSE_CHARS:
        return None
    try:
        tokens = _transformed_tokens(text, implicit=implicit, convert_xor=convert_xor)
        return _Parser(tokens).parse()
    except _Reject:
        return None
    except Exception:  # tokenizer errors, sympy TypeErrors on odd operand mixes, RecursionError
        return None


def _transformed_tokens(text: str, *, implicit: bool, convert_xor: bool) -> list[tuple[int, str]]:
    from sympy.parsing import sympy_parser as sp

    tokens = [(tok.type, tok.string) for tok in tokenize.generate_tokens(StringIO(text.strip()).readline)]
    transformations = list(sp.standard_transformations)
    if convert_xor:
        transformations.append(sp.convert_xor)
    if implicit:
        transformations.append(sp.implicit_multiplication_application)
    names = _known_names()
    for transform in transformations:
        tokens = transform(tokens, {}, names)
    return tokens


class _Parser:
    """Recursive descent over the transformed token stream: Python's arithmetic subset, nothing more.

    Grammar (Python precedence)::

        sum   := term (('+' | '-') term)*
        term  := unary (('*' | '/' | '//' | '%') unary)*
        unary := ('+' | '-') unary | power
        power := call ('**' unary)?
        call  := atom ('(' [arg (',' arg)*] ')')*      # only whitelisted callables
        atom  := NUMBER | NAME | '(' sum ')' | '[' [sum (',' sum)*] ']'   # lists only inside Matrix(...)
    """

    def __init__(self, tokens: list[tuple[int, str]]) -> None:
        toks: list[tuple[int, str]] = []
        for kind, value in tokens:
            if kind == tokenize.COMMENT:  # "42 # 17" is not the number 42: '#' has no meaning in maths
                raise _Reject("'#' is not part of a mathematical expression")
            if kind == tokenize.NL or (kind == tokenize.INDENT and not toks):
                continue
            toks.append((kind, value))
        while toks and toks[-1][0] in (tokenize.ENDMARKER, tokenize.NEWLINE, tokenize.DEDENT):
            toks.pop()
        self.toks = toks
        self.pos = 0
        self.depth = 0
        self.allow_lists = False

    # -- token helpers
    def _peek(self) -> tuple[int, str] | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def _peek_op(self, *ops: str) -> str | None:
        tok = self._peek()
        if tok is not None and tok[0] == tokenize.OP and tok[1] in ops:
            return tok[1]
        return None

    def _expect(self, op: str) -> None:
        if self._peek_op(op) is None:
            raise _Reject(f"expected {op!r}")
        self.pos += 1

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Reject("nested too deeply")

    # -- grammar
    def parse(self) -> Any:
        if not self.toks:
            raise _Reject("empty")
        value = _expr_value(self.sum())
        if self.pos != len(self.toks):
            raise _Reject("trailing tokens")
        return value

    def sum(self) -> Any:
        left = self.term()
        while (op := self._peek_op("+", "-")) is not None:
            self.pos += 1
            right = self.term()
            left = (
                _expr_value(left) + _expr_value(right)
                if op == "+"
                else _expr_value(left) - _expr_value(right)
            )
        return left

    def term(self) -> Any:
        left = self.unary()
        while (op := self._peek_op("*", "/", "//", "%")) is not None:
            self.pos += 1
            a, b = _expr_value(left), _expr_value(self.unary())
            left = {"*": operator.mul, "/": operator.truediv, "//": operator.floordiv, "%": operator.mod}[op](
                a, b
            )
        return left

    def unary(self) -> Any:
        op = self._peek_op("+", "-")
        if op is None:
            return self.power()
        self.pos += 1
        self._enter()
        operand = _expr_value(self.unary())
        self.depth -= 1
        return -operand if op == "-" else +operand

    def power(self) -> Any:
        base = self.call()
        if self._peek_op("**") is None:
            return base
        self.pos += 1
        self._enter()
        exponent = self.unary()
        self.depth -= 1
        return _guarded_pow(_expr_value(base), _expr_value(exponent))

    def call(self) -> Any:
        value = self.atom()
        while self._peek_op("(") is not None:
            if not isinstance(value, _Func) and not _is_undefined_function(value):
                raise _Reject("call of a non-callable")
            self.pos += 1
            self._enter()
            args = self._arguments(lists=isinstance(value, _Func) and value.name == "Matrix")
            self.depth -= 1
            value = value.call(*args) if isinstance(value, _Func) else value(*map(_expr_value, args))
        return value

    def _arguments(self, *, lists: bool) -> list[Any]:
        args: list[Any] = []
        saved, self.allow_lists = self.allow_lists, lists
        while self._peek_op(")") is None:
            args.append(self.sum())
            if self._peek_op(",") is None:
                break
            self.pos += 1
        self.allow_lists = saved
        self._expect(")")
        return args

    def atom(self) -> Any:
        tok = self._peek()
        if tok is None:
            raise _Reject("unexpected end")
        kind, value = tok
        self.pos += 1
        if kind == tokenize.NUMBER:
            return _number_token(value)
        if kind == tokenize.NAME:
            return _name_token(value)
        if kind == tokenize.OP and value == "(":
            self._enter()
            inner = self.sum()
            self.depth -= 1
            self._expect(")")
            return inner
        if kind == tokenize.OP and value == "[" and self.allow_lists:
            self._enter()
            items = []
            while self._peek_op("]") is None:
                items.append(self.sum())
                if self._peek_op(",") is None:
                    break
                self.pos += 1
            self.depth -= 1
            self._expect("]")
            return items
        raise _Reject(f"token {value!r} is not allowed")


def _number_token(value: str) -> Any:
    """A NUMBER token: a plain Python int literal, or a quoted numeric string the transformations made."""
    if value[:1] in "'\"":
        inner = _unquote(value)
        if not inner or any(not (c.isdigit() or c in ".eE+-_jJ") for c in inner):
            raise _Reject("bad numeric literal")
        return _Text(inner)
    try:
        return int(value, 0)
    except ValueError:
        raise _Reject("not an integer literal") from None


def _name_token(value: str) -> Any:
    import sympy

    if value[:1] in "'\"":
        inner = _unquote(value)
        if not inner.isidentifier():
            raise _Reject("bad symbol name")
        return _Text(inner)
    constants, functions = _allowed()
    if value in constants:
        return constants[value]
    if value in functions:
        return _Func(value, functions[value])
    builders: dict[str, Callable[..., Any]] = {
        "Integer": _build_integer,
        "Float": lambda s: sympy.Float(_text_arg(s)),
        "Rational": _build_rational,
        "Symbol": lambda s: sympy.Symbol(_text_arg(s)),
        "Function": lambda s: sympy.Function(_text_arg(s)),
        "Matrix": _build_matrix,
    }
    if value in builders:
        return _Func(value, builders[value])
    raise _Reject(f"name {value!r} is not allowed")


def _unquote(value: str) -> str:
    if len(value) < 2 or value[-1] != value[0] or "\\" in value or value[0] in value[1:-1]:
        raise _Reject("bad literal")
    return value[1:-1]


def _text_arg(arg: Any) -> str:
    if not isinstance(arg, _Text):
        raise _Reject("expected a quoted literal")
    return str(arg)


def _build_integer(arg: Any) -> Any:
    import sympy

    if isinstance(arg, int | sympy.Integer):
        return sympy.Integer(arg)
    raise _Reject("Integer() takes an integer")


def _build_rational(p: Any, q: Any) -> Any:
    import sympy

    return sympy.Rational(_expr_value(p), _expr_value(q))


def _build_matrix(rows: Any) -> Any:
    import sympy

    if not isinstance(rows, list) or len(rows) > 100:
        raise _Reject("Matrix() takes a list of rows")
    clean = [[_expr_value(x) for x in row] if isinstance(row, list) else _expr_value(row) for row in rows]
    return sympy.Matrix(clean)


def _is_undefined_function(value: Any) -> bool:
    from sympy.core.function import UndefinedFunction

    return isinstance(value, UndefinedFunction)


def _expr_value(value: Any) -> Any:
    """Operands of arithmetic must be sympy objects (numbers come wrapped by the transformations)."""
    import sympy

    if isinstance(value, sympy.Basic | sympy.MatrixBase) and not _is_undefined_function(value):
        return value
    raise _Reject(f"{type(value).__name__} cannot be used in arithmetic")


def _guarded_pow(base: Any, exponent: Any) -> Any:
    if _is_huge_power(base, exponent):
        raise _Reject("exponent too large")
    return base**exponent


def _is_huge_power(base: Any, exponent: Any) -> bool:
    """Whether building ``base**exponent`` would compute a huge number (2**10**9 is evaluated on the spot).

    Powers of symbolic bases stay unevaluated when built; :func:`is_tame` checks them before ``simplify``.
    """
    if not getattr(base, "is_number", False) or (base.is_Number and base in (0, 1, -1)):
        return False
    if not getattr(exponent, "is_Number", False):
        return False
    return not (exponent.is_finite and abs(exponent) <= MAX_EXPONENT)


# ---------------------------------------------------------------------------------------------------------
# LaTeX


def parse_latex_expr(text: str) -> Any | None:
    """Parse LaTeX with ``latex2sympy2_extended``; None if it does not parse or would blow up."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_SYMBOLIC_CHARS:
        return None
    if _nesting(text) > MAX_LATEX_NESTING:
        return None
    try:
        expr = _latex2sympy(text)
    except Exception:  # the ANTLR parser raises plain Exceptions on malformed input
        return None
    return expr if is_tame(expr) else None


#: what :func:`warm_up` parses: the shapes of answers that reach sympy (ANTLR fills its prediction
#: cache per process, so the first parse of each shape costs up to a few hundred milliseconds)
WARM_UP_LATEX = (
    "\\frac{3}{4}-\\sqrt{5}",
    "\\left( 2, \\frac{\\sqrt{3}}{5} \\right)",
    "(-\\infty, 3) \\cup [4, 9)",
    "e^{i\\pi/3} + 2^{-1}",
    "45^\\circ",
    "y = 3x^2 - 2x + 1",
    "\\{-1, 0, 4\\}",
    "\\begin{pmatrix} 2 & 0 \\\\ 1 & 5 \\end{pmatrix}",
    "\\dfrac{5\\pi}{6} \\cdot 3^{4} - \\log_3 9",
    "\\sin x + \\cos(2\\theta) \\tan \\frac{\\pi}{8}",
    "the number of ways to choose them is 12",
    "a^2\\sqrt{2}/3",
    "t \\ge 1 \\text{ and } t < 4",
)


def warm_up() -> None:
    """Import sympy and the LaTeX parser and parse :data:`WARM_UP_LATEX` once (per process; idempotent)."""
    _warm_up_once()


@lru_cache(maxsize=1)
def _warm_up_once() -> None:
    import sympy

    for text in WARM_UP_LATEX:
        parse_latex_expr(text)
    _warm_antlr()
    _warm_gamma()
    x = sympy.Symbol("x")
    sympy.simplify((x**2 - 1) / (x - 1) + sympy.sin(x) ** 2 + sympy.cos(x) ** 2)  # simplify's lazy imports
    parse_sympy_text("(x+1)**2 - 2*x", implicit=True, convert_xor=True)


def _warm_antlr() -> None:
    """Fill ANTLR's prediction cache with :data:`WARM_UP_LATEX` even where the fast parser reads a shape itself:
    the texts it declines still go to ANTLR, which would otherwise start cold on the first of them."""
    try:
        from . import _latex_predict

        for text in WARM_UP_LATEX:
            try:
                _latex_predict.parse(text)
            except Exception:  # latex2sympy raises plain Exceptions on text it cannot read
                continue
    except ImportError:  # another latex2sympy2_extended layout
        return


#: bits of the gamma function's Taylor coefficients computed in warm-up: above the precision the zero tests of
#: ``_equiv_sym`` reach at their default 200 digits (evalf's adaptive steps go to about 960 bits)
GAMMA_WARM_BITS = 1000


def _warm_gamma() -> None:
    """Fill mpmath's cache of the gamma function's Taylor coefficients at :data:`GAMMA_WARM_BITS` bits, once.

    An identity with factorials or binomials (``\\frac{d!}{2k(d-k)!}``) is checked at rational points, where
    ``factorial(3547/997)`` is the gamma function, evaluated at up to 200 digits; mpmath computes the
    coefficients for each new precision it is asked for (tens of precisions in one adaptive evaluation, a few
    hundred milliseconds in a fresh worker) unless it holds them at a higher precision, from which it takes
    lower ones by a shift. Computing them once at the highest precision the tests use (about 0.07 s) is the
    same cache a worker fills on its first factorial identity, filled before the task's deadline starts."""
    try:
        from mpmath.libmp.gammazeta import gamma_taylor_coefficients  # type: ignore[import-untyped]
    except ImportError:  # another mpmath layout: it fills its cache as it goes
        return
    gamma_taylor_coefficients(GAMMA_WARM_BITS)


def _latex2sympy(text: str) -> Any:
    """``latex2sympy(text)`` with ANTLR's two-stage strategy: SLL prediction first, full LL only if SLL
    reports a syntax error, and every prediction remembered across inputs (:mod:`._latex_predict`).

    ANTLR guarantees that an SLL parse that succeeds is the parse LL would return (SLL can only fail where LL
    would succeed, never succeed differently), so the result is the same; SLL is 5-30x faster on the
    answers that reach sympy (prose, ``e^{2\\pi i/7}``, intervals). latex2sympy's error listener raises on any
    syntax error, which is what triggers the LL retry. The prediction memo returns what ANTLR would compute
    (see its module), about 3x faster again on answers the process has not seen.
    """
    try:
        from antlr4.atn.PredictionMode import PredictionMode  # noqa: F401 - the layout _latex_predict needs
        from latex2sympy2_extended.latex2sympy2 import PSLexer, PSParser, _Latex2Sympy  # noqa: F401

        from . import _latex_fast, _latex_predict
    except ImportError:  # another latex2sympy2_extended layout: its own (LL) parse
        from latex2sympy2_extended import latex2sympy

        return latex2sympy(text)
    # the same tree for the common subset without ANTLR; None where the fast parser does not pin it down
    fast = _latex_fast.parse(text)
    return fast if fast is not None else _latex_predict.parse(text)


def _nesting(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch in "{([":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "})]":
            depth = max(depth - 1, 0)
    return deepest


def is_tame(expr: Any) -> bool:
    """False if evaluating ``expr`` could blow up: a huge integer power or factorial anywhere inside it."""
    import sympy

    if isinstance(expr, sympy.MatrixBase):
        roots = list(expr)
    elif isinstance(expr, sympy.Basic):
        roots = [expr]
    else:
        return False
    seen = 0
    try:
        for root in roots:
            for node in sympy.preorder_traversal(root):
                seen += 1
                if seen > 5000 or not _tame_node(node):
                    return False
    except Exception:
        return False
    return True


def _tame_node(node: Any) -> bool:
    import sympy

    if isinstance(node, sympy.Pow):
        base, exponent = node.args
        if base.is_Number and base in (0, 1, -1):
            return True
        # expanding (x + y)**1000 is as hopeless as evaluating 2**(10**10)
        return _small(exponent, MAX_EXPONENT if base.is_number else MAX_SYMBOLIC_EXPONENT)
    if isinstance(node, _factorial_like()):
        return all(_small(arg, MAX_FACTORIAL_ARG) for arg in node.args)
    return True


@lru_cache(maxsize=1)
def _factorial_like() -> tuple[type[Any], ...]:
    import sympy

    return (
        sympy.factorial,
        sympy.factorial2,
        sympy.subfactorial,
        sympy.binomial,
        sympy.gamma,
        sympy.RisingFactorial,
        sympy.FallingFactorial,
    )


def _small(value: Any, limit: int) -> bool:
    """Whether a numeric ``value`` is at most ``limit`` in magnitude; symbolic values pass.

    Unevaluated numbers (``10**10`` inside ``2**(10**10)``) are evaluated to 15 digits, unless they contain a
    factorial-like node, whose size cannot be known without the very computation being guarded against.
    """
    import sympy

    if value.is_Number:
        return bool(value.is_finite and abs(value) <= limit)
    if not value.is_number:
        return True
    if value.has(*_factorial_like()):
        return False
    try:
        return abs(complex(sympy.N(value, 15))) <= limit
    except Exception:
        return False


# ---------------------------------------------------------------------------------------------------------
# Equivalence


def sympy_difference_is_zero(ground_truth: str, given: str) -> bool:
    """PRM800K's test: parse ``(ground_truth)-(given)`` (``^`` read as ``**``) and ``simplify`` it to 0."""
    import sympy

    expr = parse_sympy_text(f"({ground_truth})-({given})".replace("^", "**"))
    if expr is None or not is_tame(expr):
        return False
    if _depends_on_symbols(expr):
        return False  # it changes value, so it is not identically zero (simplify would not give 0)
    try:
        return bool(sympy.simplify(expr) == 0)
    except Exception:
        return False


def symbolic_equal(a: str, b: str, rel_tol: float = 1e-4) -> bool:
    """Whether two answers are the same mathematical object: ``simplify(a - b) == 0``, or equal numerically.

    Each side is read as plain sympy-style text first, then as LaTeX. Matrices count as equal when their
    difference simplifies to the zero matrix. (verl's version of this check is dead code: it always
    returned False.)
    """
    import sympy

    left, right = _parse_any(a), _parse_any(b)
    if left is None or right is None:
        return False
    if _is_constant(left) and _is_constant(right):
        # two numbers: simplify(a - b) == 0 implies equal values, so the verdict is the numeric one
        # whenever both values are known (and simplify, the slow part, is not needed)
        x, y = _numeric(left), _numeric(right)
        if x is not None and y is not None:
            return cmath.isclose(x, y, rel_tol=rel_tol)
    try:
        changes = _depends_on_symbols(left - right)
    except Exception:  # matrix minus scalar and the like: left to the path below
        changes = False
    if changes:
        return False  # a difference that changes value is not identically zero: simplify cannot give 0
    try:
        diff = sympy.simplify(left - right)
        if isinstance(diff, sympy.MatrixBase):
            return bool(diff.is_zero_matrix)
        if diff == 0:
            return True
    except Exception:
        pass
    if not _is_constant(left) or not _is_constant(right):
        return False  # numeric closeness only means something for numbers (and N(a**1000) expands)
    try:
        x, y = complex(sympy.N(left)), complex(sympy.N(right))
    except Exception:
        return False
    return cmath.isfinite(x) and cmath.isfinite(y) and cmath.isclose(x, y, rel_tol=rel_tol)


def _depends_on_symbols(diff: Any) -> bool:
    """True when ``diff`` (an expression) takes two clearly different values at two points: then it is not
    identically zero. False when that cannot be shown (constants, matrices, evaluation failures)."""
    import sympy

    if not isinstance(diff, sympy.Expr) or not diff.free_symbols:
        return False
    symbols = sorted(diff.free_symbols, key=str)
    values = []
    for point in (0.5772156649, 1.3247179572):
        subs = {sym: point + 0.1234 * i for i, sym in enumerate(symbols)}
        try:
            value = complex(diff.evalf(30, subs=subs))
        except Exception:
            return False
        if not cmath.isfinite(value):
            return False
        values.append(value)
    # evaluated at 30 digits: an identically zero difference agrees to ~1e-28; 1e-15 leaves a wide margin
    return abs(values[0] - values[1]) > 1e-15 * max(1.0, abs(values[0]), abs(values[1]))


def _numeric(expr: Any) -> complex | None:
    """The finite complex value of a constant expression (sympy's ``N``, 15 correct digits), or None."""
    import sympy

    try:
        value = complex(sympy.N(expr))
    except Exception:
        return None
    return value if cmath.isfinite(value) else None


def _is_constant(expr: Any) -> bool:
    import sympy

    return isinstance(expr, sympy.Expr) and not expr.free_symbols


def _parse_any(text: Any) -> Any | None:
    return _parse_any_text(text) if isinstance(text, str) else None


@lru_cache(maxsize=4096)  # sympy expressions are immutable; a ground truth is shared by its responses
def _parse_any_text(text: str) -> Any | None:
    import sympy

    if not text.strip() or len(text) > MAX_SYMBOLIC_CHARS:
        return None
    expr = parse_sympy_text(text, implicit=True, convert_xor=True)
    if expr is None or not is_tame(expr):
        expr = parse_latex_expr(text)
    if not isinstance(expr, sympy.Expr | sympy.MatrixBase):
        return None  # sets, relations, tuples: not compared by subtraction
    return expr


# ---------------------------------------------------------------------------------------------------------
# Python-looking arithmetic (replaces verl's eval in handle_pi / the pmatrix branch)

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def numeric_literal(text: str) -> Any | None:
    """Value of a Python arithmetic literal (numbers, ``+ - * / // % **``, tuples and lists of those).

    Walks the syntax tree from ``ast.parse``; nothing is executed. None when the text is anything else,
    fails to evaluate (division by zero, overflow), or is too long. Leading spaces and tabs are ignored,
    as ``eval`` ignores them.
    """
    if not isinstance(text, str) or len(text) > MAX_PARSE_CHARS * 2:
        return None
    try:
        tree = ast.parse(text.lstrip(" \t"), mode="eval")
        return _literal_value(tree.body, 0)
    except (_Reject, SyntaxError, ValueError, TypeError, ArithmeticError, RecursionError, MemoryError):
        return None


def _literal_value(node: ast.AST, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise _Reject("nested too deeply")
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, complex):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        value = _literal_value(node.operand, depth + 1)
        _require_number(value)
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _literal_value(node.left, depth + 1), _literal_value(node.right, depth + 1)
        _require_number(left)
        _require_number(right)
        if isinstance(node.op, ast.Pow) and _python_pow_too_big(left, right):
            raise _Reject("exponent too large")
        return _BINOPS[type(node.op)](left, right)
    if isinstance(node, ast.Tuple | ast.List):
        items = [_literal_value(elt, depth + 1) for elt in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    raise _Reject(f"{type(node).__name__} is not allowed")


def _require_number(value: Any) -> None:
    if type(value) not in (int, float, complex):
        raise _Reject("arithmetic on a non-number")


def _python_pow_too_big(base: Any, exponent: Any) -> bool:
    """Only int ** positive int can take unbounded time; float and complex powers finish or overflow."""
    if type(base) is not int or type(exponent) is not int or base in (0, 1, -1):
        return False
    return exponent > 0 and exponent * base.bit_length() > _MAX_INT_BITS

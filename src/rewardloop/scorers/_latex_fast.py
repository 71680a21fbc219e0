"""A fast LaTeX parser for the common answer subset that builds exactly what the ANTLR path builds, or declines.

The symbolic stage reads answers with ``latex2sympy2_extended`` (an ANTLR grammar, pure Python): tens to
hundreds of milliseconds per answer in a fresh worker, most of the stage's time. Most answers that reach it
are short arithmetic: numbers, ``\\frac``, ``\\sqrt[n]{}``, powers, subscripted letters, implicit products,
trig/log functions, floor/ceil, factorials, relations, calls of undefined functions with one letter or
number in parentheses (``f(x)``, ``N(n)``, ``\\omega(m)``, ``f_1(2)``: ``Function('f')(x)``, as the grammar reads them). :func:`parse` reads that subset with a small recursive
descent over the *same normalised text* (``normalize_latex``, as the ANTLR path runs it) and builds the sympy
object node by node with the same constructors and the same flattening and folding the converter applies
(``evaluate=False`` trees: ``2x`` is ``Mul(2, x)``, ``a-3`` is ``Add(a, -3)``, ``2 3`` is the mixed number 5,
``\\sin x y`` is ``sin(x*y)``), so the result is the same tree (``srepr``-identical) as
:func:`rewardloop.scorers._latex_predict.parse` returns.

Anything outside the subset, and every place where the grammar is ambiguous and the choice ANTLR makes is not
pinned down here, is declined (``None``) and the caller parses with ANTLR: commas and sets, ``\\pm``,
``|x|``, ``\\text``, unknown commands (the whole command name must be known: ``\\pix`` is declined, not read as
``\\pi x``), a letter sequence containing one of the grammar's plain-word tokens (``tr``, ``norm``, ``eye``...),
``d`` before a letter (the grammar's differential token), ``E`` (E notation), ``I`` with a sub- or
superscript (the converter drops them), other call shapes (``f^2(x)``, ``f(x_1)``, ``f(x,y)``, ``f[x]``, a call
in a function's unbracketed argument ``\\sin f(x)``; a bracket holding one atom after a letter is a call for the
grammar, never a product), two superscripts in a row, a braced whole (``{x}`` is a one-element set at the top), non-ASCII text.

Agreement with ANTLR is checked by a differential test (``tests/scorers/test_latex_fast.py``): thousands of
seeded random expressions from a grammar of the subset and every LaTeX answer in the test tables and the
shared data's golds; the fast parser must decline or return the ANTLR tree.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["parse", "parse_normalized", "stats"]

_counts = {"fast": 0, "declined": 0}


class _Decline(Exception):
    """The text is outside the subset (or ANTLR's choice there is not pinned down)."""


#: letter sequences the grammar's lexer reads as one token (names of matrix operations and operator names)
_KEYWORDS = (
    "arsinh", "arcsinh", "arcosh", "arccosh", "artanh", "arctanh", "gcd", "lcm", "floor", "ceil", "eye",
    "zeros", "ones", "cols", "rows", "diag", "norm", "rank", "tr", "rref", "hstack", "vstack", "orth",
    "nullspace", "eig", "svd", "SVD", "matrix", "array",
)  # fmt: skip
#: parser literals the lexer turns into their own tokens (transpose, degree)
_LITERALS = ("^T", "^{T}", "^{\\top}", "'", "^\\circ", "^\\degree", "^{\\circ}", "^{\\degree}", "^{\\circle}")
_SKIPPED = frozenset(
    ("quad", "qquad", "thinspace", "medspace", "thickspace", "negthinspace", "negmedspace", "negthickspace")
)
# \gamma and \Gamma are the grammar's gamma-function token, not letters
_GREEK = frozenset((
    "alpha", "beta", "delta", "Delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "Theta", "vartheta",
    "iota", "kappa", "lambda", "Lambda", "mu", "nu", "xi", "Xi", "omicron", "pi", "Pi", "varpi", "rho",
    "varrho", "sigma", "Sigma", "varsigma", "tau", "upsilon", "Upsilon", "phi", "Phi", "varphi", "chi", "psi",
    "Psi", "omega", "Omega",
))  # fmt: skip
_TRIG = frozenset(("sin", "cos", "tan", "csc", "sec", "cot"))
_HYPER = frozenset(("sinh", "cosh", "tanh"))
_ARC_TRIG = frozenset(("arcsin", "arccos", "arctan", "arccsc", "arcsec", "arccot"))
_AR_HYPER = frozenset(("arsinh", "arcosh", "artanh"))
_ARC_HYPER = frozenset(("arcsinh", "arccosh", "arctanh"))
_FUNCS = _TRIG | _HYPER | _ARC_TRIG | _AR_HYPER | _ARC_HYPER | {"log", "ln", "exp"}
_OPS = {"cdot": "*", "times": "*", "div": "/", "mod": "mod"}
_RELS = {"le": "<=", "leq": "<=", "leqslant": "<=", "ge": ">=", "geq": ">=", "geqslant": ">=", "lt": "<"}
_RELS.update({"gt": ">", "ne": "!=", "neq": "!="})
_SIMPLE = {"frac": "frac", "dfrac": "frac", "tfrac": "frac", "cfrac": "frac", "binom": "binom"}
_SIMPLE.update({"dbinom": "binom", "tbinom": "binom", "sqrt": "sqrt", "infty": "inf"})
_SIMPLE.update({"lfloor": "lfloor", "rfloor": "rfloor", "lceil": "lceil", "rceil": "rceil"})
_PUNCT = frozenset("+-*/()[]{}^_!")
_LETTERS = re.compile(r"[A-Za-z]+")
_CLOSE = {"(": ")", "[": "]", "{": "}"}
#: tokens a postfix can start with; the grammar's functions (named ones, ``\\sqrt``, ``e``) only where
#: functions are allowed (not after the first factor of an unbracketed argument: ``\\sin x \\sqrt{2}``)
_ATOMS = frozenset(("num", "pct", "let", "greek", "inf"))
_STARTS = _ATOMS | {"(", "[", "{", "frac", "binom", "lfloor", "lceil"}
_FUNC_STARTS = frozenset(("func", "e", "sqrt"))


def stats() -> dict[str, int]:
    """How many texts the fast parser read, and how many it declined, since the process started."""
    return dict(_counts)


def parse(text: str) -> Any | None:
    """``latex2sympy(text)`` as the ANTLR path builds it, or None when ``text`` is outside the subset."""
    try:
        from latex2sympy2_extended.latex2sympy2 import NormalizationConfig, normalize_latex
    except ImportError:  # another latex2sympy2_extended layout: leave it to its own parser
        return None
    return parse_normalized(normalize_latex(text, NormalizationConfig()))


def parse_normalized(latex: str) -> Any | None:
    """:func:`parse` on text already through ``normalize_latex``."""
    try:
        tokens = _tokens(latex)
        result = _Parser(tokens).top()
    except Exception:  # _Decline, or a constructor refusing: ANTLR decides
        _counts["declined"] += 1
        return None
    _counts["fast"] += 1
    return result


# ---------------------------------------------------------------------------------------------------------
# tokens: (kind, value, source text)

Token = tuple[str, str, str]


def _tokens(s: str) -> list[Token]:
    if not s.isascii() or any(lit in s for lit in _LITERALS):
        raise _Decline
    out: list[Token] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c in " \t\r\n":
            i += 1
        elif c.isdigit() or (c == "." and i + 1 < n and s[i + 1].isdigit()):
            m = re.compile(r"[0-9]*\.[0-9]+|[0-9]+").match(s, i)
            assert m is not None
            j = m.end()
            if j < n and (s[j] in "E%." or s.startswith("\\%", j)):
                if s.startswith("\\%", j) or s[j] == "%":
                    out.append(("pct", m.group(), s[i : j + (2 if s[j] == "\\" else 1)]))
                    i = j + (2 if s[j] == "\\" else 1)
                    continue
                raise _Decline  # E notation, "1." or "1.2.3"
            if j < n and s[j] in " \t\r\n" and j + 1 < n and (s[j + 1] == "%" or s.startswith("\\%", j + 1)):
                raise _Decline  # "10 %": a percent number with a space in it
            out.append(("num", m.group(), m.group()))
            i = j
        elif c.isalpha():
            m = _LETTERS.match(s, i)
            assert m is not None
            run = m.group()
            if any(k in run for k in _KEYWORDS) or "E" in run:
                raise _Decline
            for k, ch in enumerate(run):
                if ch == "d":
                    rest = s[i + k + 1 :].lstrip(" \t\r\n")
                    if rest[:1].isalpha() or (rest[:1] == "\\" and rest[1:2].isalpha()):
                        raise _Decline  # the grammar's differential token ("dx", "d\\theta")
                out.append(("e", ch, ch) if ch == "e" else ("let", ch, ch))
            i = m.end()
        elif c == "\\":
            m = _LETTERS.match(s, i + 1)
            if m is None:
                nxt = s[i + 1 : i + 2]
                if nxt in (",", ";", ":"):  # thin, medium, thick spaces
                    i += 2
                    continue
                raise _Decline  # "\\{", "\\|", "\\\\", "\\ " ...
            name, j = m.group(), m.end()
            i = j
            if name in _SKIPPED:
                continue
            if name in _GREEK:
                text = "\\" + name + (" " if s[j : j + 1] == " " else "")
                out.append(("greek", "\\" + name, text))
            elif name in _FUNCS:
                out.append(("func", name, "\\" + name))
            elif name in _OPS:
                out.append(("op", _OPS[name], "\\" + name))
            elif name in _RELS:
                out.append(("rel", _RELS[name], "\\" + name))
            elif name in _SIMPLE:
                if name == "infty" and (s[j : j + 1] == "%" or s.startswith("\\%", j)):
                    raise _Decline
                out.append((_SIMPLE[name], name, "\\" + name))
            else:
                raise _Decline
        elif c in "<>=!":
            two = s[i : i + 2]
            if two in ("<=", ">="):
                out.append(("rel", two, two))
                i += 2
            elif two == "!=" or two == "==" or (two[:1] == "<" and two[1:] == "-"):
                raise _Decline
            elif c == "!":
                out.append(("!", "!", "!"))
                i += 1
            else:
                out.append(("rel", c, c))
                i += 1
        elif c in _PUNCT:
            kind = "op" if c in "+-*/" else c
            out.append((kind, c, c))
            i += 1
        else:
            raise _Decline
    return out


# ---------------------------------------------------------------------------------------------------------
# the converter's tree building (latex2sympy2_extended's rules, written against sympy directly)


def _mul_flat(lh: Any, rh: Any) -> Any:
    import sympy

    if getattr(lh, "is_Mul", False) or getattr(rh, "is_Mul", False):
        args = list(lh.args) if getattr(lh, "is_Mul", False) else [lh]
        args += list(rh.args) if getattr(rh, "is_Mul", False) else [rh]
        return sympy.Mul(*args, evaluate=False)
    return sympy.Mul(lh, rh, evaluate=False)


def _add_flat(lh: Any, rh: Any) -> Any:
    import sympy

    if getattr(lh, "is_Add", False) or getattr(rh, "is_Add", False):
        args = list(lh.args) if getattr(lh, "is_Add", False) else [lh]
        args += list(rh.args) if getattr(rh, "is_Add", False) else [rh]
        return sympy.Add(*args, evaluate=False)
    return sympy.Add(lh, rh, evaluate=False)


def _is_number_class(v: Any) -> bool:
    func = getattr(v, "func", None)
    return bool(func is not None and getattr(func, "is_Number", False))


def _negate(v: Any) -> Any:
    """A leading minus: a number is negated, anything else is ``Mul(-1, v)`` (flattened)."""
    if getattr(v, "is_Matrix", False):
        raise _Decline
    if _is_number_class(v) or getattr(v, "is_Number", False):
        return -v
    return _mul_flat(-1, v)


def _number(text: str) -> Any:
    import sympy

    if text.isdigit():
        return sympy.Integer(int(text))
    return sympy.Number(text)


def _relation(op: str, lh: Any, rh: Any) -> Any:
    import sympy
    from latex2sympy2_extended.logic import And
    from sympy.core.relational import Relational

    cls = {
        "=": sympy.Eq,
        "<": sympy.StrictLessThan,
        "<=": sympy.LessThan,
        ">": sympy.StrictGreaterThan,
        ">=": sympy.GreaterThan,
        "!=": sympy.Ne,
    }[op]
    if isinstance(lh, And):
        return And(*lh._unsorted_args, cls(lh._unsorted_args[-1].rhs, rh, evaluate=False))
    if isinstance(lh, Relational):
        return And(lh, cls(lh.rhs, rh, evaluate=False))
    return cls(lh, rh, evaluate=False)


class _Parser:
    """Recursive descent over the tokens, mirroring the grammar's rules for the subset (see the module)."""

    def __init__(self, tokens: list[Token]) -> None:
        self.t = tokens
        self.i = 0
        self.nofunc = 0  # > 0 inside a function's unbracketed argument (the grammar's mp_nofunc: no calls)

    # -- helpers
    def kind(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.t[j][0] if j < len(self.t) else None

    def value(self) -> str:
        return self.t[self.i][1]

    def take(self, kind: str) -> Token:
        if self.kind() != kind:
            raise _Decline
        tok = self.t[self.i]
        self.i += 1
        return tok

    def op(self, *values: str) -> bool:
        return self.kind() == "op" and self.value() in values

    def closing(self, start: int) -> int:
        """Index of the token closing the bracket at ``start``."""
        opener, depth = self.t[start][0], 0
        for j in range(start, len(self.t)):
            k = self.t[j][0]
            if k in ("(", "[", "{"):
                depth += 1
            elif k in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    if k != _CLOSE[opener]:
                        raise _Decline
                    return j
        raise _Decline

    # -- rules
    def top(self) -> Any:
        if not self.t:
            raise _Decline
        self.refuse_set(0, self.end_of_operand(0))
        value = self.expr()
        while self.kind() == "rel":
            op = self.take("rel")[1]
            self.refuse_set(self.i, self.end_of_operand(self.i))
            value = _relation(op, value, self.expr())
        if self.i != len(self.t):
            raise _Decline
        return value

    def end_of_operand(self, start: int) -> int:
        """Index of the last token before the next top-level relation (or the end)."""
        depth = 0
        for j in range(start, len(self.t)):
            k = self.t[j][0]
            depth += k in ("(", "[", "{")
            depth -= k in (")", "]", "}")
            if depth == 0 and k == "rel":
                return j - 1
        return len(self.t) - 1

    def refuse_set(self, lo: int, hi: int) -> None:
        """Decline a braced group that fills an element of the grammar's top rule: the whole text or a relation's
        side, also inside brackets that fill it (``{x}``, ``[{x}]``, ``x = ({3})``): a one-element set there."""
        while lo < hi and self.t[lo][0] in ("(", "[") and self.closing(lo) == hi:
            lo, hi = lo + 1, hi - 1
        if lo < hi and self.t[lo][0] == "{" and self.closing(lo) == hi:
            raise _Decline

    def expr(self) -> Any:
        lh = self.mp(nofunc=False)
        while self.op("+", "-"):
            sign = self.take("op")[1]
            rh = self.mp(nofunc=False)
            if getattr(lh, "is_Matrix", False) or getattr(rh, "is_Matrix", False):
                raise _Decline
            if sign == "-":
                rh = -rh if _is_number_class(rh) else _mul_flat(-1, rh)
            lh = _add_flat(lh, rh)
        return lh

    def mp(self, nofunc: bool) -> Any:
        import sympy

        lh = self.unary(nofunc)
        while self.op("*", "/", "mod"):
            op = self.take("op")[1]
            rh = self.unary(nofunc)
            if getattr(lh, "is_Matrix", False) or getattr(rh, "is_Matrix", False):
                raise _Decline
            if op == "*":
                lh = _mul_flat(lh, rh)
            elif op == "/":
                if getattr(lh, "is_Integer", False) and getattr(rh, "is_Integer", False):
                    lh = sympy.Rational(lh, rh)
                else:
                    lh = sympy.Mul(lh, sympy.Pow(rh, -1, evaluate=False), evaluate=False)
            else:
                lh = sympy.Mod(lh, rh, evaluate=False)
        return lh

    def unary(self, nofunc: bool) -> Any:
        if self.op("+"):
            self.i += 1
            return self.unary(nofunc)
        if self.op("-"):
            self.i += 1
            return _negate(self.unary(nofunc))
        items = [self.postfix(funcs=True)]
        while self.starts_postfix(funcs=not nofunc):
            items.append(self.postfix(funcs=not nofunc))
        return self.product(items, 0)

    def starts_postfix(self, funcs: bool) -> bool:
        k = self.kind()
        return k in _STARTS or (funcs and k in _FUNC_STARTS)

    def product(self, items: list[Any], k: int) -> Any:
        """The converter's right fold of a juxtaposition, with its mixed-number rule (``2 \\frac{1}{2}``)."""
        import sympy

        res = items[k]
        if not isinstance(res, sympy.Expr):
            raise _Decline
        if k == len(items) - 1:
            return res
        rh = self.product(items, k + 1)
        if getattr(res, "is_Integer", False) and getattr(rh, "is_Rational", False) and rh.p > 0 and rh.q > 0:
            if res < 0:
                return sympy.Rational(res * rh.q - rh.p, rh.q)
            return sympy.Rational(res * rh.q + rh.p, rh.q)
        return _mul_flat(res, rh)

    def postfix(self, funcs: bool) -> Any:
        import sympy

        value = self.exp(funcs)
        while self.kind() == "!":
            self.i += 1
            value = sympy.factorial(value, evaluate=False)
        return value

    def exp(self, funcs: bool) -> Any:
        import sympy

        base = self.comp(funcs)
        if self.kind() == "^":
            self.i += 1
            exponent = self.sup_argument()
            base = sympy.Pow(base, exponent, evaluate=False)
        if self.kind() in ("^", "_"):
            raise _Decline  # x^2^3, x^a_1: read two ways by the grammar
        return base

    def sup_argument(self) -> Any:
        """What follows ``^``: one atom token, or ``{expr}``."""
        if self.kind() == "{":
            self.i += 1
            value = self.expr()
            self.take("}")
            return value
        if self.kind() not in ("num", "let", "greek", "inf"):
            raise _Decline  # x^-1, x^e, x^\\frac..: a syntax error for the grammar, or not pinned down
        value = self.atom(scripts=False)
        if self.kind() in ("^", "_"):
            raise _Decline
        return value

    def braced(self) -> Any:
        self.take("{")
        value = self.expr()
        self.take("}")
        return value

    def comp(self, funcs: bool) -> Any:
        import sympy

        k = self.kind()
        if k in ("(", "[", "{"):
            self.i += 1
            value = self.expr()
            self.take(_CLOSE[k])
            return value
        if k in ("lfloor", "lceil"):
            self.i += 1
            value = self.expr()
            self.take("rfloor" if k == "lfloor" else "rceil")
            return (sympy.floor if k == "lfloor" else sympy.ceiling)(value, evaluate=False)
        if k == "frac":
            self.i += 1
            top, bottom = self.braced(), self.braced()
            if getattr(top, "is_Matrix", False) or getattr(bottom, "is_Matrix", False):
                raise _Decline
            if getattr(top, "is_Integer", False) and getattr(bottom, "is_Integer", False):
                return sympy.Rational(top, bottom)
            return sympy.Mul(top, sympy.Pow(bottom, -1, evaluate=False), evaluate=False)
        if k == "binom":
            self.i += 1
            top, bottom = self.braced(), self.braced()
            return sympy.binomial(top, bottom)
        if k == "sqrt" and funcs:
            self.i += 1
            if self.kind() == "[":
                self.i += 1
                root = self.expr()
                self.take("]")
                return sympy.Pow(self.braced(), 1 / root, evaluate=False)
            return sympy.Pow(self.braced(), sympy.S.Half, evaluate=False)
        if k == "e" and funcs:
            self.i += 1
            if self.kind() == "^":
                self.i += 1
                return sympy.exp(self.sup_argument())
            return sympy.exp(1)
        if k == "func" and funcs:
            return self.func()
        if k in _ATOMS:
            return self.atom(scripts=True)
        raise _Decline

    def atom(self, scripts: bool) -> Any:
        import sympy

        kind, value, source = self.t[self.i]
        self.i += 1
        if kind == "num":
            if scripts and self.kind() == "_":  # a base written as a subscript is ignored: 0.0011_{2}
                self.subscript_text()
                if self.kind() == "^":
                    raise _Decline
            return _number(value)
        if kind == "pct":
            return sympy.Mul(_number(value), sympy.UnevaluatedExpr(sympy.Rational(1, 100)), evaluate=False)
        if kind == "inf":
            return sympy.oo
        if kind not in ("let", "greek"):
            raise _Decline
        from latex2sympy2_extended.symbols import get_symbol

        sub = raw_sub = ""
        if scripts and self.kind() == "_":
            braced = self.kind(1) == "{"
            text = self.subscript_text()
            sub = "_{" + text + "}" if len(text) > 1 else "_" + text
            raw_sub = "_{" + text + "}" if braced else "_" + text
        power = None
        if scripts and self.kind() == "^":
            self.i += 1
            power = self.sup_argument()
            if self.kind() == "_":
                raise _Decline
        if value == "I":
            if sub or power is not None:
                raise _Decline  # the converter returns I and drops the scripts
            symbol = sympy.I
        else:
            symbol = get_symbol(value + sub, None, True)
        if self.kind() == "(" and power is None and scripts and not self.nofunc:
            call = self.call(value, source, raw_sub)
            if call is not None:
                return call
        if self.kind() in ("(", "[") or (self.kind() == "{" and self.kind(1) in ("(", "[")):
            self.refuse_call()
        return symbol if power is None else sympy.Pow(symbol, power, evaluate=False)

    def call(self, name: str, source: str, raw_sub: str) -> Any | None:
        """``f(x)``, ``N(n)``, ``\\omega(m)``, ``f_1(2)``: a letter (with a subscript) before parentheses holding
        one letter, Greek letter or number is a call of an undefined function for the grammar. The converter
        names the function by the source text of the name (``f_{1}`` and ``f_1`` are two names) and reads the
        argument's text as a whole answer of its own; both are done the same way here. None (not a call of
        this form) leaves the text to :meth:`refuse_call`; anything else a call could be is declined."""
        import sympy

        if self.kind(1) not in ("let", "greek", "num") or self.kind(2) != ")":
            return None
        arg = self.t[self.i + 1]
        if source.endswith(" ") or arg[2].endswith(" "):
            raise _Decline  # a Greek command's trailing space is part of its token text for the grammar
        value = _Parser(_tokens(arg[2])).top()
        self.i += 3
        if self.kind() in ("(", "[", "{", "_"):
            raise _Decline  # f(x)(y), f(x)_1: not pinned down
        return sympy.Function(name + raw_sub)(value)

    def refuse_call(self) -> None:
        """A letter before brackets holding one atom is a function call for the grammar (``f(x)``, ``x(2)``):
        declined. Brackets holding more (``n(n+1)``) are a product, as here."""
        start = self.i + (1 if self.kind() == "{" else 0)
        close = self.closing(start)
        saved = self.i
        self.i = start + 1
        try:
            if self.kind() in _ATOMS:
                self.atom(scripts=True)
                if self.i == close:
                    raise _Decline
        finally:
            self.i = saved

    def subscript_text(self) -> str:
        """The text of a subscript (``_1``, ``_{n-1}``) as the converter names a symbol with it; it must be
        letters, digits, ``+`` and ``-`` that read as an expression."""
        self.take("_")
        if self.kind() == "{":
            start = self.i + 1
            close = self.closing(self.i)
            inner = self.t[start:close]
            if not inner or any(
                k not in ("num", "let", "e", "op") or (k == "op" and v not in "+-") for k, v, _ in inner
            ):
                raise _Decline
            self.i = start
            self.expr()  # must be an expression for the grammar
            if self.i != close:
                raise _Decline
            self.i = close + 1
            return "".join(text for _, _, text in inner)
        if self.kind() not in ("num", "let"):
            raise _Decline
        text = self.t[self.i][2]
        self.i += 1
        return text

    def func(self) -> Any:
        import sympy
        import sympy.functions.elementary.hyperbolic as hyperbolic
        import sympy.functions.elementary.trigonometric as trig

        name = self.take("func")[1]
        base = power = None
        if self.kind() == "_":
            self.i += 1
            if self.kind() == "{":
                base = self.braced()
            elif self.kind() in ("num", "let", "greek", "inf"):
                lettered = self.kind() in ("let", "greek")
                base = self.atom(scripts=False)
                if lettered and self.kind() in ("^", "_"):
                    raise _Decline  # \\log_a^2: the base atom takes the superscript for the grammar
            else:
                raise _Decline
        if self.kind() == "^":
            self.i += 1
            power = self.sup_argument()
        if self.kind() in ("^", "_"):
            raise _Decline
        if self.kind() == "(":
            self.i += 1
            arg = self.expr()
            self.take(")")
        else:
            self.nofunc += 1
            arg = self.mp(nofunc=True)
            self.nofunc -= 1
        if name in _ARC_TRIG:
            expr = getattr(trig, "a" + name[3:])(arg, evaluate=False)
        elif name in _AR_HYPER:
            expr = getattr(hyperbolic, "a" + name[2:])(arg, evaluate=False)
        elif name in _ARC_HYPER:
            expr = getattr(hyperbolic, "a" + name[3:])(arg, evaluate=False)
        elif name in ("log", "ln"):
            if base is None:
                base = sympy.Integer(10) if name == "log" else sympy.E
            expr = sympy.log(arg, base, evaluate=False)
        elif name == "exp":
            expr = sympy.exp(arg, evaluate=False)
        elif name in _TRIG or name in _HYPER:
            if power == -1:
                name, power = "a" + name, None
            expr = getattr(trig if name.lstrip("a") in _TRIG else hyperbolic, name)(arg, evaluate=False)
        else:  # pragma: no cover - every name of _FUNCS is handled above
            raise _Decline
        if power:
            expr = sympy.Pow(expr, power, evaluate=False)
        return expr

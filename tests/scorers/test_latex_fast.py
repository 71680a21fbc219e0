"""The fast LaTeX parser (``_latex_fast``) against the ANTLR path, differentially: it declines, or it returns the
very tree ANTLR builds (same node types, same argument order, same atoms: ``srepr`` of every leaf).

Inputs: seeded random expressions from a grammar of the subset and of its near misses (constructs the fast
parser must decline: sets, ``\\pm``, ``|x|``, calls other than ``f(x)`` (``f^2(x)``, ``f(x_1)``), ``dx``, ``E`` notation, ``I^2``, double superscripts,
keywords hidden in words ...), every string literal of the scorer test tables, and every answer of the shared
data (``../shared/data``; skipped when absent).
"""

from __future__ import annotations

import ast
import json
import os
import random
import zlib
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("latex2sympy2_extended")

from rewardloop.scorers import _latex_fast, _latex_predict
from rewardloop.scorers._equiv_sym import _latex_fixups
from rewardloop.scorers._latex import find_last_boxed
from rewardloop.scorers._sympy_grade import _latex2sympy

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("REWARDLOOP_SHARED_DATA", REPO.parent / "shared" / "data"))
#: random expressions per chunk (REWARDLOOP_FUZZ_N raises it for a longer run); four seeded chunks
FUZZ_N = int(os.environ.get("REWARDLOOP_FUZZ_N", "600"))


def tree(e: Any) -> Any:
    """A structural key of a sympy object: node types and arguments in stored order; leaves by ``srepr``."""
    import sympy

    if isinstance(e, sympy.Basic):
        if not e.args:
            return (type(e), sympy.srepr(e))
        return (type(e), tuple(tree(a) for a in e.args))
    return (type(e), repr(e))


def antlr(text: str) -> Any:
    try:
        return tree(_latex_predict.parse(text))
    except Exception as exc:  # latex2sympy raises plain Exceptions
        return f"raises {type(exc).__name__}"


def check(texts: Iterator[str]) -> tuple[int, int, list[str]]:
    """(accepted, seen, mismatches) over ``texts``: ANTLR is run only where the fast parser answered."""
    accepted = seen = 0
    bad = []
    done: set[str] = set()
    for text in texts:
        if text in done:
            continue
        done.add(text)
        seen += 1
        fast = _latex_fast.parse(text)
        if fast is None:
            continue
        accepted += 1
        want = antlr(text)
        if tree(fast) != want:
            bad.append(f"{text!r}: fast {tree(fast)!r} antlr {want!r}")
    return accepted, seen, bad


# ---------------------------------------------------------------------------------------------------------
# a random grammar of the subset and its near misses


class Gen:
    LETTERS = "abcxyznkmpqtrsuvwABCNPQRXIiEde"
    GREEK = ("\\pi", "\\alpha", "\\theta", "\\omega", "\\Delta", "\\lambda", "\\gamma", "\\phi", "\\pi ")
    FUNCS = ("sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arctan", "sinh", "cosh", "ln", "log", "exp")
    FUNCS2 = ("arccos", "tanh", "arsinh", "arccosh", "max", "min", "gcd", "det", "Gamma")

    def __init__(self, seed: int, noise: float = 0.05) -> None:
        self.r = random.Random(seed)
        self.noise = noise

    def odd(self) -> bool:
        """Whether this choice point takes a near miss (a construct the fast parser must decline)."""
        return self.r.random() < self.noise

    def pick(self, *xs: str) -> str:
        return self.r.choice(xs)

    def sp(self) -> str:
        return self.pick("", "", "", "", "", " ", " ", "  ", "\\,", "\\;", "\\quad ", "\\!")

    def number(self) -> str:
        k = self.r.random()
        if k < 0.55:
            return str(self.r.randint(0, 30 if self.r.random() < 0.9 else 100000))
        if k < 0.75:
            return f"{self.r.randint(0, 99)}.{self.r.randint(0, 999):0{self.r.randint(1, 3)}d}"
        if not self.odd():
            return self.pick("007", ".5", "0.5", "10\\%", "5%", "0", "00", "25\\%", "3.14159265358979")
        return self.pick("12 \\%", "1.", "2E3", "1,000", "3,5", "1.2.3")

    def letter(self) -> str:
        x = self.r.choice(self.LETTERS)
        k = self.r.random()
        if k < 0.15:
            return f"{x}_{self.r.choice('0123456789nk')}"
        if k < 0.25:
            return f"{x}_{{{self.pick('n-1', 'n+1', '12', 'k', '2n', 'i,j', 'ab', 'n')}}}"
        if k < 0.3 and self.odd():
            return self.pick("where", "is", "and", "tr", "norm", "eye", "dx", "d x", "d\\theta", "rank")
        if k < 0.3:
            return self.pick("xe", "ex", "prime", "ab", "xyz", "kd", "nm")
        return x

    def atom(self, depth: int) -> str:
        k = self.r.random()
        if k < 0.35:
            return self.number()
        if k < 0.7:
            return self.letter()
        if k < 0.8:
            return self.r.choice(self.GREEK)
        if k < 0.85 and self.odd():
            return self.pick("\\infty\\%", "\\pix", "\\cdots", "\\angle A")
        if k < 0.85 or depth > 1:
            return self.pick("\\infty", "e", "\\pi")
        return "{" + self.expr(depth + 1) + "}"

    def sup(self, depth: int) -> str:
        k = self.r.random()
        if k < 0.4:
            return str(self.r.randint(0, 12))
        if k < 0.55:
            return self.r.choice("nkxyTe")
        if k < 0.85 and depth < 2:
            return "{" + self.expr(depth + 1) + "}"
        if self.odd():
            return self.pick("-1", "\\circ", "{\\circ}", "\\frac12", "(2)", "{T}")
        return self.pick("{-1}", "\\pi", "{2}", "{n-1}")

    def factor(self, depth: int) -> str:
        if depth > 1 or (depth == 1 and self.r.random() < 0.5):
            return self.atom(3)
        k = self.r.random()
        e = lambda: self.expr(depth + 1)  # noqa: E731
        if k < 0.3:
            base = self.atom(depth)
        elif k < 0.4:
            base = self.pick("\\frac", "\\dfrac", "\\tfrac", "\\cfrac") + "{" + e() + "}{" + e() + "}"
        elif k < 0.43:
            base = self.pick("\\frac12", "\\frac{1}2", "\\frac 3{x}", "\\sqrt2", "\\sqrt x")
        elif k < 0.5:
            root = self.pick("", "", "[3]", "[n]", f"[{self.r.randint(2, 5)}]")
            base = "\\sqrt" + root + "{" + e() + "}"
        elif k < 0.6:
            o, c = self.r.choice(
                (("(", ")"), ("[", "]"), ("{", "}"), ("\\left(", "\\right)"), ("\\left[", "\\right]"))
            )
            base = o + e() + c
        elif k < 0.75:
            name = self.r.choice(self.FUNCS2 if self.odd() else self.FUNCS)
            head = "\\" + name
            if self.r.random() < 0.3:
                head += self.pick("^2", "^{2}", "^{-1}", "^3", "^n")
            if name in ("log", "ln") and self.r.random() < 0.5:
                head += self.pick("_2", "_{10}", "_{b}", "_a")
            if self.r.random() < 0.5:
                base = head + "(" + e() + ")"
            else:
                base = head + self.pick(" ", "") + self.factor(depth + 1)
        elif k < 0.8:
            base = self.pick("\\lfloor ", "\\lceil ") + e()
            base += "\\rfloor" if base.startswith("\\lfloor") else "\\rceil"
        elif k < 0.84:
            base = "\\binom{" + self.r.choice("nkx0123456789") + "}{" + self.r.choice("kx012345") + "}"
        elif k < 0.84 + 0.04 * self.CALLS:
            base = self.call()
        elif k < 0.88 and self.odd():
            base = self.r.choice("fgxnNa") + self.pick("(x)", "(2)", "(x,y)", "[2]", "{(x)}")
        elif k < 0.88:
            base = self.r.choice("fgxnNa") + self.pick("(n+1)", "(-1)", "(2x)", "(x-y)", "[n-1]")
        elif k < 0.91:
            base = "e^{" + e() + "}"
        elif k < 0.93 and self.odd():
            base = self.pick("|x|", "\\pm 2", "\\{1\\}", "\\text{cm}", "x'", "\\mathbb{R}", "a \\choose b")
        else:
            base = self.atom(depth)
        if self.r.random() < 0.2:
            base += "^" + self.sup(depth)
        if self.r.random() < 0.06:
            base += "!"
        if self.odd():
            base += self.pick("^2", "_1", "!")
        return base

    #: share of the ``f(x)`` branch given to :meth:`call` (the rest: products and near misses like ``f(n+1)``)
    CALLS = 0.6

    def call(self) -> str:
        """A call of an undefined function (``f(x)``, ``N(n)``, ``\\omega(m)``, ``f_1(2)``), or one of its near
        misses: a name with a superscript, ``e``/``E``/``\\gamma``, a Greek name with its trailing space, other
        brackets, an argument that is not one letter or number (``x_1``, ``-x``, ``2x``, ``x,y``, ``10\\%``), a
        call followed by brackets, a subscript or a prime."""
        name = self.pick(
            *"fgxnNaPdIAk", "\\omega", "\\pi", "\\Delta", "\\phi", "f_1", "f_{1}", "a_n", "f_{n - 1}"
        )
        if self.odd() or self.r.random() < 0.15:
            name = self.pick(
                "e", "E", "\\gamma", "\\Gamma", "\\pi ", "x^2", "f^2", "f^{-1}", "f'", "\\sin", "ab"
            )
        o, c = ("(", ")")
        if self.odd():
            o, c = self.r.choice((("[", "]"), ("{(", ")}"), ("\\left(", "\\right)"), ("\\left[", "\\right]")))
        k = self.r.random()
        if k < 0.35:
            arg = self.r.choice("abcxyznkmtIiEde")
        elif k < 0.55:
            arg = self.number()
        elif k < 0.65:
            arg = self.r.choice(self.GREEK)
        else:
            arg = self.pick(
                "x_1",
                "x^2",
                "-x",
                "2x",
                "x,y",
                "n+1",
                "x ",
                " x",
                "(x)",
                "{x}",
                "\\frac12",
                "f(x)",
                "\\infty",
                "10\\%",
                "x!",
                "\\sqrt2",
                "e^2",
                "1,2",
                "\\pi x",
                "n-1",
                "2",
                "x y",
            )
        tail = self.pick("", "", "", "", "", "^2", "!", "(y)", "_1", "^{-1}", "'", "[2]", "{(x)}", " (y)")
        return name + self.pick("", "", "", " ") + o + arg + c + tail

    def term(self, depth: int) -> str:
        out = self.factor(depth)
        for _ in range(self.r.choice((0, 0, 1, 1, 2) if depth < 1 else (0, 0, 0, 1))):
            op = self.pick("", "", " ", "\\cdot ", "\\times ", "*", "/", "\\div ", " \\mod ", "\\cdot")
            if depth > 1 and op == "":
                op = " "
            out += self.sp() + op + self.sp() + self.factor(depth)
        return out

    def expr(self, depth: int = 0) -> str:
        out = self.pick("", "", "", "-", "+", "- ") + self.term(depth)
        for _ in range(self.r.choice((0, 0, 1, 1, 2) if depth < 1 else (0, 0, 0, 1))):
            out += self.sp() + self.pick("+", "-", "+", "- ", "--", "+-") + self.sp() + self.term(depth)
        return out

    def top(self) -> str:
        k = self.r.random()
        if k < 0.7:
            return self.expr()
        if k < 0.9 or not self.odd():
            rel = self.pick(
                "=", "<", ">", "\\le", "\\leq", "\\ge", "\\geq", "\\ne", "\\neq", "<=", ">=", "\\lt"
            )
            out = self.expr() + " " + rel + " " + self.expr()
            if self.r.random() < 0.3:
                out += " " + self.pick("=", "<", "\\le") + " " + self.expr()
            return out
        return self.pick(
            self.expr() + ", " + self.expr(),
            self.expr() + " \\pm " + self.expr(),
            "x \\in [" + self.expr() + ", " + self.expr() + "]",
            "(" + self.expr() + ", " + self.expr() + ")",
            "\\{" + self.expr() + "\\}",
            "{" + self.expr() + "}",
            self.expr() + " \\approx " + self.expr(),
            self.expr() + " == " + self.expr(),
        )


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("seed", [20261202, 1, 2, 3])
def test_random_expressions_agree_with_antlr(seed: int) -> None:
    gen = Gen(seed=seed)
    accepted, seen, bad = check(gen.top() for _ in range(FUZZ_N))
    assert not bad, "\n".join(bad[:20])
    # the subset is most of what the grammar generates: a parser that declined everything would fail here
    assert accepted >= 0.35 * seen, (accepted, seen)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_random_expressions_after_math_equiv_fixups_agree() -> None:
    """The texts math_equiv hands the parser went through ``_latex_fixups`` (``i`` as ``I``, explicit products)."""
    gen = Gen(seed=7)
    accepted, seen, bad = check(_latex_fixups(gen.top()) for _ in range(FUZZ_N // 3))
    assert not bad, "\n".join(bad[:20])
    assert accepted >= 0.3 * seen, (accepted, seen)


def _test_table_strings() -> Iterator[str]:
    for path in sorted((REPO / "tests" / "scorers").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 0 < len(node.value) <= 256:
                yield node.value
                box = find_last_boxed(node.value)
                if box is not None:
                    yield box[2]


SHARDS = 8


def _shard(texts: list[str], shard: int, shards: int) -> list[str]:
    """Every text and its ``_latex_fixups`` form, deduplicated, that falls in ``shard`` of ``shards`` (by CRC-32)."""
    out = {t for s in texts for t in (s, _latex_fixups(s))}
    return sorted(t for t in out if zlib.crc32(t.encode("utf-8", "surrogatepass")) % shards == shard)


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("shard", range(2))
def test_test_table_strings_agree_with_antlr(shard: int) -> None:
    accepted, seen, bad = check(iter(_shard(list(_test_table_strings()), shard, 2)))
    assert not bad, "\n".join(bad[:20])
    assert seen > 1000 and accepted > 300, (accepted, seen)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if len(value) <= 256:
            yield value
        box = find_last_boxed(value)
        if box is not None:
            yield box[2]
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@lru_cache(maxsize=1)
def _shared_answers() -> tuple[str, ...]:
    out: list[str] = []
    for path in sorted(SHARED.rglob("*.json*")):
        if path.suffix == ".jsonl":
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    out.extend(_strings(json.loads(line)))
        else:
            out.extend(_strings(json.loads(path.read_text(encoding="utf-8"))))
    return tuple(t for t in out if len(t) <= 256)


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is absent")
@pytest.mark.parametrize("shard", range(SHARDS))
def test_shared_data_answers_agree_with_antlr(shard: int) -> None:
    accepted, seen, bad = check(iter(_shard(list(_shared_answers()), shard, SHARDS)))
    assert not bad, "\n".join(bad[:20])
    assert accepted > 1000 // SHARDS, (accepted, seen)


# ---------------------------------------------------------------------------------------------------------
# what must be declined, and the hook


@pytest.mark.parametrize(
    "text",
    [
        "n^{2}(3)",  # calls it does not read: a name with a superscript, other arguments, brackets, contexts
        "f^2(x)",
        "f^{-1}(x)",
        "f(x_1)",
        "f(x,y)",
        "f(10\\%)",
        "f(\\infty)",
        "f(\\pi )",  # a Greek command's trailing space is part of the grammar's token text
        "\\pi (x)",
        "f[x]",
        "f{(x)}",
        "f(x)(y)",
        "f(x)_1",
        "\\sin f(x)",  # the unbracketed argument of a function
        "\\gamma(x)",
        "E(x)",
        "I^2",  # the converter drops I's scripts
        "dx",  # the differential token
        "2 d x",
        "2E3",  # E notation
        "\\pix",  # an unknown command is never split into a known one
        "\\cdots",
        "x^2^3",  # read two ways
        "x^a_1",
        "\\log_a^2 x",
        "{x}",  # a one-element set at the top, or on the right of an assignment
        "x = {3}",
        "[{e + 0.5}]",
        "x = ({3})",
        "({x})",
        "e^x^2",
        "1, 2",
        "\\pm 2",
        "|x|",
        "x^T",  # transpose
        "45^\\circ",
        "trace",  # a keyword hidden in a word
        "\\text{cm}",
        "π",
        "10 \\%",
        "\\infty\\%",
    ],
)
def test_declines_what_it_does_not_pin_down(text: str) -> None:
    assert _latex_fast.parse(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "\\frac{2\\sqrt{3}}{3}",
        "3a_{n-1}",
        "2\\frac{1}{2}",
        "(2)(3)",
        "\\sin x y",
        "\\ln 2/\\ln 3",
        "e^{i\\pi}",
        "f(x)",  # calls of undefined functions: one letter, Greek letter or number in parentheses
        "x(2)",
        "N(n) = \\left\\lfloor \\frac{2 n}{3} \\right\\rfloor + 1",
        "2\\omega(m)+1",
        "3-\\frac{2}{3}f(x)",
        "f_{n - 1}(x) + f_1(2.5)",
        "f(x)^2 g(\\alpha)!",
        "f(n+1)",  # a product, not a call
    ],
)
def test_reads_the_common_subset_as_antlr_does(text: str) -> None:
    fast = _latex_fast.parse(text)
    assert fast is not None
    assert tree(fast) == antlr(text)
    assert tree(_latex2sympy(text)) == tree(fast)  # the hook the symbolic stage goes through

"""Build ``bench/hard_answers.jsonl``: correct answers written the way rule verifiers miss, each paired with a
near-miss wrong answer in the same form (a set built like TinyV's HardVerify-Math, from our own data).

Usage::

    .venv/bin/python bench/hard_answers_build.py            # writes bench/hard_answers.jsonl
    .venv/bin/python bench/hard_answers_build.py --check    # rebuild in memory, fail if the file differs

Gold answers come from ``../shared/data`` (MATH-500 ``answer``, the last box of a MATH test solution,
matharena ``answer``, the AIMO AIME validation ``answer``, GSM8K's text after ``####``). Problem texts are
read to decide which form is legitimate (a unit the question uses, the variable an interval is about, the
options of a multiple-choice question) but are never written out: a row names its problem by source file and
id. Every response is our own text.

How equivalence is checked (see ``bench/hard_answers.md``): every pair carries, besides the text a model would
write, a machine-readable twin of the correct and the wrong answer (LaTeX that ``latex2sympy2_extended``
parses, or a set of relations). The build parses the gold, the twins, and where possible the written answer
itself, and asserts with sympy that the correct twin equals the gold and the wrong twin does not (exactly for
numbers and sets, symbolically and at random points for expressions, up to a non-zero factor for equations).
Text and multiple-choice answers have no numeric value: they are checked by reading (the note says so).
A pair that fails its check is dropped and counted, never written.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from _common import data_dir

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "hard_answers.jsonl"
SEED = 20261201

# ----------------------------------------------------------------------------------------- sources


def last_boxed(text: str) -> str | None:
    i = text.rfind("\\boxed")
    if i < 0:
        return None
    j = text.find("{", i)
    if j < 0:
        return None
    depth = 0
    for k in range(j, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return text[j + 1 : k]
    return None


def load_problems(data: Path) -> list[dict[str, Any]]:
    """``{"source", "ref", "gold", "problem", "subject"}`` for every problem of the five sources."""
    out: list[dict[str, Any]] = []
    with open(data / "math" / "math500_test.jsonl", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            out.append(
                {
                    "source": "math/math500_test.jsonl",
                    "ref": r["unique_id"],
                    "gold": r["answer"],
                    "problem": r["problem"],
                    "subject": r["subject"],
                }
            )
    seen500 = {(p["problem"]) for p in out}
    with open(data / "math" / "math_test_5000.jsonl", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r["problem"] in seen500:  # the same problem is in MATH-500: keep one copy
                continue
            gold = last_boxed(r["solution"])
            if gold:
                out.append(
                    {
                        "source": "math/math_test_5000.jsonl",
                        "ref": f"idx={r['idx']}",
                        "gold": gold,
                        "problem": r["problem"],
                        "subject": r["type"],
                    }
                )
    for path in sorted((data / "matharena").glob("*.jsonl")):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                out.append(
                    {
                        "source": f"matharena/{path.name}",
                        "ref": f"problem_idx={r['problem_idx']}",
                        "gold": str(r["answer"]),
                        "problem": r["problem"],
                        "subject": "competition",
                    }
                )
    with open(data / "aime_extra" / "aimo-validation-aime.jsonl", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            out.append(
                {
                    "source": "aime_extra/aimo-validation-aime.jsonl",
                    "ref": f"id={r['id']}",
                    "gold": str(r["answer"]),
                    "problem": r["question"],
                    "subject": "aime",
                }
            )
    with open(data / "gsm8k" / "test.jsonl", encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            r = json.loads(line)
            out.append(
                {
                    "source": "gsm8k/test.jsonl",
                    "ref": f"line={i}",
                    "gold": r["answer"].split("####")[-1].strip().replace(",", ""),
                    "problem": r["question"],
                    "subject": "gsm8k",
                }
            )
    return out


# ----------------------------------------------------------------------------------------- checking

_SYMPY: Any = None


def _sp() -> Any:
    global _SYMPY
    if _SYMPY is None:
        import sympy

        _SYMPY = sympy
    return _SYMPY


_UNIT_WORDS = (
    r"square\s+units|square\s+inches|square\s+feet|square\s+meters|square\s+centimeters|square\s+yards|"
    r"cubic\s+units|cubic\s+inches|cubic\s+feet|cubic\s+centimeters|units|inches|inch|feet|foot|meters|"
    r"centimeters|cm|miles|mph|hours|minutes|seconds|days|dollars|cents|degrees|percent|students|people|"
    r"cookies|pages|books|ways|eggs|boxes"
)


def clean(s: str) -> str:
    """Presentation removed so latex2sympy can read a value: units, degrees, dollars, thousands separators."""
    s = s.strip().rstrip(".")
    s = re.sub(r"\\(?:left|right|displaystyle|,|;|!|quad)", " ", s)
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    s = re.sub(r"\\frac\s*\{([^{}]*)\}\s*([0-9a-z])", r"\\frac{\1}{\2}", s)
    s = re.sub(r"\\frac\s*([0-9a-z])\s*([0-9a-z])", r"\\frac{\1}{\2}", s)
    s = re.sub(r"\\sqrt\s*([0-9a-z])", r"\\sqrt{\1}", s)
    s = re.sub(r"(\d)\{,\}(\d)", r"\1\2", s)
    s = re.sub(r"(\d),\s*(\d{3})(?!\d)", r"\1\2", s)
    s = re.sub(r"(\d),\s*(\d{3})(?!\d)", r"\1\2", s)
    s = re.sub(r"(\d)\s+(\d{3})(?!\d)", r"\1\2", s)
    s = re.sub(r"(\d)\s+(\d{3})(?!\d)", r"\1\2", s)
    s = s.replace("\\$", "").replace("$", "").replace("\\%", "").replace("%", "")
    s = re.sub(r"\^\s*\{?\\circ\}?|°", "", s)
    s = re.sub(r"\\(?:text|mbox|mathrm)\{\s*(?:" + _UNIT_WORDS + r")?\s*\}(\^\d)?", "", s)
    s = re.sub(r"\\(?:text|mbox)\{[^{}]*\}(\^\d)?\s*$", "", s)
    s = re.sub(r"\s+(?:" + _UNIT_WORDS + r")\s*$", "", s)
    # decimals as exact fractions (latex2sympy would read them as binary floats)
    s = re.sub(
        r"(?<![\\\w])(\d*)\.(\d+)",
        lambda m: f"\\frac{{{m.group(1) or 0}{m.group(2)}}}{{1{'0' * len(m.group(2))}}}",
        s,
    )
    return s.strip()


def value(latex: str) -> Any:
    """The sympy value of a LaTeX answer (after :func:`clean`); raises when it cannot be read."""
    from latex2sympy2_extended import latex2sympy

    sp = _sp()
    v = latex2sympy(clean(latex))
    if isinstance(v, sp.Basic) and sp.Symbol("i") in v.free_symbols and "i" in latex:
        v = v.subs(sp.Symbol("i"), sp.I)
    return v


def _num_equal(a: Any, b: Any) -> bool:
    sp = _sp()
    a, b = sp.sympify(a), sp.sympify(b)
    syms = sorted(a.free_symbols | b.free_symbols, key=str)
    d = a - b
    if not syms:
        if d.is_number:
            v = complex(sp.N(d, 40))
            scale = max(1.0, abs(complex(sp.N(a, 40))))
            if abs(v) > 1e-25 * scale:
                return False
            return sp.simplify(d) == 0 or abs(v) < 1e-30 * scale
        return False
    rng = random.Random(7)
    for _ in range(5):
        pt = {s: sp.Rational(rng.randint(3, 97), rng.randint(3, 29)) for s in syms}
        try:
            v = complex(sp.N(d.subs(pt), 40))
        except (TypeError, ValueError):
            return False
        if abs(v) > 1e-20 * max(1.0, abs(complex(sp.N(a.subs(pt), 40)))):
            return False
    return True


def equal(a: Any, b: Any) -> bool:
    """Mathematical equality of two parsed answers: numbers, expressions, sets, intervals, tuples, matrices."""
    sp = _sp()
    if isinstance(a, (list, tuple, sp.Tuple)) and isinstance(b, (list, tuple, sp.Tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        a, b = sp.Matrix(a), sp.Matrix(b)
        return a.shape == b.shape and all(_num_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, sp.FiniteSet) and isinstance(b, sp.FiniteSet):
        xs, ys = list(a), list(b)
        return len(xs) == len(ys) and all(any(equal(x, y) for y in ys) for x in xs)
    if isinstance(a, sp.Set) or isinstance(b, sp.Set):
        return (
            isinstance(a, sp.Set)
            and isinstance(b, sp.Set)
            and sp.simplify(a.symmetric_difference(b)) == sp.EmptySet
        )
    if isinstance(a, sp.Equality) and isinstance(b, sp.Equality):
        return equation_equal(a, b)
    if isinstance(a, sp.Basic) and isinstance(b, sp.Basic) and not isinstance(a, (sp.Equality, sp.Rel)):
        return _num_equal(a, b)
    return False


def equation_equal(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are the same equation up to rearrangement and a non-zero constant factor."""
    sp = _sp()
    p, q = sp.expand(a.lhs - a.rhs), sp.expand(b.lhs - b.rhs)
    if q == 0:
        return p == 0
    ratio = sp.simplify(p / q)
    return ratio.is_number and ratio != 0


def relation_set(texts: list[str], var: str) -> Any:
    """The set of reals satisfying the union of the conjunctions in ``texts`` (each parsed by latex2sympy)."""
    from latex2sympy2_extended import latex2sympy

    sp = _sp()
    x = sp.Symbol(var)
    out = sp.EmptySet
    for t in texts:
        rel = latex2sympy(t)
        out = out.union(rel.as_set() if rel.free_symbols == {x} else sp.EmptySet)
    return out


def as_fraction(v: Any) -> Fraction | None:
    sp = _sp()
    try:
        v = sp.nsimplify(v) if isinstance(v, sp.Float) else v
        if isinstance(v, sp.Rational):
            return Fraction(int(v.p), int(v.q))
    except Exception:
        return None
    return None


# ----------------------------------------------------------------------------------------- forms

_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]


def dec(fr: Fraction) -> str | None:
    """The terminating decimal of ``fr`` (None when it does not terminate)."""
    q = fr.denominator
    k = 0
    while q % 2 == 0 or q % 5 == 0:
        q //= 2 if q % 2 == 0 else 5
        k += 1
    if q != 1:
        return None
    s = f"{float(fr):.{k}f}" if k else str(fr.numerator)
    assert Fraction(s) == fr, (s, fr)
    return s


def ftex(fr: Fraction) -> str:
    sign = "-" if fr < 0 else ""
    if fr.denominator == 1:
        return str(fr.numerator)
    return f"{sign}\\frac{{{abs(fr.numerator)}}}{{{fr.denominator}}}"


def squarefree_split(n: int) -> tuple[int, int]:
    """``n = a^2 b`` with ``b`` square-free: ``(a, b)``."""
    a, b = 1, n
    f = 2
    while f * f <= b:
        while b % (f * f) == 0:
            b //= f * f
            a *= f
        f += 1
    return a, b


class Cand:
    """One pair: a correct and a wrong answer in the same form, and how to check them."""

    def __init__(
        self,
        category: str,
        correct: str,
        wrong: str,
        note: str,
        *,
        kind: str = "value",
        c_twin: Any = None,
        w_twin: Any = None,
        gold_twin: Any = None,
        math: bool = True,
        style: str | None = None,
    ) -> None:
        self.category, self.correct, self.wrong, self.note = category, correct, wrong, note
        self.kind = kind  # value | relations | text | choice | base
        self.c_twin, self.w_twin, self.gold_twin = c_twin, w_twin, gold_twin
        self.math, self.style = math, style


def near_int(n: int, h: int, *, signed: bool = True) -> int:
    opts = [n + 1, n - 1, 2 * n if n else 2, n + 10] + ([-n if n else 1] if signed else [])
    return opts[h % len(opts)]


def _h(*parts: Any) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12], 16)


_ASK_VAR = re.compile(
    r"(?:value of|find|what is|compute|determine|solve for|for which)\s+\$\s*([a-zA-Z])\s*\$", re.IGNORECASE
)
_UNIT_IN_Q = re.compile(
    r"\b(square (?:inches|feet|meters|centimeters|units|yards)|cubic (?:inches|feet|centimeters|units)|"
    r"inches|feet|meters|centimeters|miles|minutes|hours|seconds|days|degrees|cents|dollars|units)\b"
)


def gen_fraction(p: dict[str, Any], fr: Fraction, h: int) -> list[Cand]:
    out = []
    d = dec(fr)
    wrong_fr = Fraction(fr.numerator + (1 if fr > 0 else -1), fr.denominator)
    if d is not None and len(d) <= 9:
        digits = len(d.split(".")[1])
        if digits >= 2:
            w = f"{float(fr):.{digits - 1}f}"
            why = "rounded to one digit fewer (a different value)"
        else:
            w, why = dec(wrong_fr) or str(float(wrong_fr)), "a neighbouring fraction"
        if Fraction(w) != fr:
            out.append(
                Cand("fraction_as_decimal", d, w, f"terminating decimal of the gold fraction; wrong: {why}")
            )
    if fr > 1 and fr.denominator > 1:
        whole, rem = divmod(abs(fr.numerator), fr.denominator)
        sign = "-" if fr < 0 else ""
        c = f"{sign}{whole}\\frac{{{rem}}}{{{fr.denominator}}}"
        if fr.denominator == 2:
            w, why = f"{sign}{whole + 1}\\frac{{1}}{{2}}", "the whole part off by one"
        else:
            wr = rem - 1 if rem > 1 else rem + 1
            w, why = f"{sign}{whole}\\frac{{{wr}}}{{{fr.denominator}}}", "a different fractional part"
        out.append(Cand("mixed_number", c, w, f"mixed number; wrong: {why}"))
    if fr.denominator > 1:
        k = 2 + h % 3
        c = f"\\frac{{{fr.numerator * k}}}{{{fr.denominator * k}}}"
        w = f"\\frac{{{fr.numerator * k}}}{{{fr.denominator * k + k}}}"
        if Fraction(fr.numerator * k, fr.denominator * k + k) != fr:
            out.append(
                Cand(
                    "unreduced_fraction", c, w, f"not reduced (both sides times {k}); wrong: denominator off"
                )
            )
        c = f"{fr.numerator}/{fr.denominator}"
        w = f"{wrong_fr.numerator}/{wrong_fr.denominator}"
        out.append(
            Cand(
                "slash_fraction_in_prose",
                c,
                w,
                "plain-text a/b in a sentence; wrong: numerator off",
                math=False,
                style="prose",
            )
        )
        if d is None and fr.denominator in (3, 6, 9, 11, 12, 15, 18, 33, 99) and abs(fr) < 10:
            rep = repeating(fr)
            if rep:
                wr = repeating(wrong_fr)
                if wr:
                    out.append(
                        Cand(
                            "repeating_decimal",
                            rep,
                            wr,
                            "repeating decimal with \\overline; checked by the geometric series",
                            kind="value",
                            c_twin=ftex(fr),
                            w_twin=ftex(wrong_fr),
                        )
                    )
    return out


def repeating(fr: Fraction) -> str | None:
    """``0.1\\overline{6}`` for 1/6; None when the period is longer than 2."""
    sign = "-" if fr < 0 else ""
    fr = abs(fr)
    whole, rem = divmod(fr.numerator, fr.denominator)
    digits, seen = [], {}
    while rem and rem not in seen:
        seen[rem] = len(digits)
        rem *= 10
        digits.append(str(rem // fr.denominator))
        rem %= fr.denominator
    if not rem:
        return None
    start = seen[rem]
    period = digits[start:]
    if len(period) > 2:
        return None
    s = f"{sign}{whole}." + "".join(digits[:start]) + "\\overline{" + "".join(period) + "}"
    # independent check: value of the written decimal as a geometric series
    pre = "".join(digits[:start])
    per = "".join(period)
    val = Fraction(int(pre or "0"), 10 ** len(pre)) + Fraction(
        int(per), (10 ** len(per) - 1) * 10 ** len(pre)
    )
    assert whole + val == fr, (s, fr)
    return s


def gen_integer(p: dict[str, Any], n: int, h: int) -> list[Cand]:
    q = p["problem"]
    out = []
    w = near_int(n, h)
    wu = near_int(n, h, signed=False)  # a count or an amount with a unit is not negated
    m = _UNIT_IN_Q.search(q)
    if m and p["subject"] != "competition":
        unit = m.group(1)
        if unit == "dollars" or ("$" in q and p["subject"] == "gsm8k" and "\\$" not in p["gold"]):
            pass
        elif unit == "degrees":
            out.append(
                Cand(
                    "degrees_notation",
                    f"{n}°",
                    f"{wu}°",
                    "degree sign (unicode) as the question asks degrees",
                )
            )
        else:
            out.append(
                Cand(
                    "units_in_words",
                    f"{n} {unit}",
                    f"{wu} {unit}",
                    f"the unit the question uses, written after the number; wrong: {wu}",
                    math=False,
                    style="prose",
                )
            )
    if p["subject"] == "gsm8k" and re.search(r"\$\s?\d", q):
        c = f"\\${n}.00" if h % 2 else f"{n} dollars"
        wc = f"\\${wu}.00" if h % 2 else f"{wu} dollars"
        out.append(Cand("currency", c, wc, "money written with cents or the word dollars", math=h % 2 == 1))
    mv = _ASK_VAR.search(q)
    if mv:
        v = mv.group(1)
        out.append(Cand("assignment", f"{v} = {n}", f"{v} = {w}", f"the asked variable {v} restated"))
    if p["subject"] in ("Counting & Probability", "counting_and_probability") and n >= 15:
        for a in range(5, 21):
            hit = [b for b in range(2, a // 2 + 1) if math.comb(a, b) == n]
            if hit:
                b = hit[0]
                wb = b + 1 if math.comb(a, b + 1) != n else b - 1
                out.append(
                    Cand(
                        "unevaluated_expression",
                        f"\\binom{{{a}}}{{{b}}}",
                        f"\\binom{{{a}}}{{{wb}}}",
                        "a binomial coefficient left unevaluated",
                    )
                )
                break
        for k in range(4, 11):
            if math.factorial(k) == n:
                out.append(
                    Cand("unevaluated_expression", f"{k}!", f"{k - 1}!", "a factorial left unevaluated")
                )
    if abs(n) >= 1000:
        s = f"{n:,}"
        ws = f"{w:,}" if w != n else f"{n + 1:,}"
        if h % 2:
            s, ws = s.replace(",", "{,}"), ws.replace(",", "{,}")
        else:
            s, ws = s.replace(",", "\\,"), ws.replace(",", "\\,")
        out.append(Cand("thousands_separator", s, ws, "digit groups separated by {,} or a thin space"))
    if 0 < n <= 20 and w != n and 0 <= w <= 20:
        out.append(
            Cand(
                "number_word",
                _WORDS[n],
                _WORDS[w],
                "the number written as an English word",
                kind="value",
                c_twin=str(n),
                w_twin=str(w),
                math=False,
                style="prose",
            )
        )
    out.append(
        Cand(
            "prose_no_marker",
            str(n),
            str(w),
            "final answer in a concluding sentence, no box or marker",
            style="prose",
        )
    )
    if n != 0 and p["subject"] not in ("competition", "aime"):
        out.append(
            Cand("decimal_trailing_zeros", f"{n}.0", f"{w}.0", "an integer written with a decimal point")
        )
    return out


def gen_sqrt(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    out = []
    m = re.fullmatch(r"\s*(\d*)\s*\\sqrt\{?(\d+)\}?\s*", gold)
    if m:
        a = int(m.group(1) or 1)
        b = int(m.group(2))
        if a > 1:
            out.append(
                Cand(
                    "unsimplified_radical",
                    f"\\sqrt{{{a * a * b}}}",
                    f"\\sqrt{{{a * b}}}",
                    "the coefficient moved under the root; wrong: the coefficient not squared",
                )
            )
        else:
            if squarefree_split(b)[1] == b:
                out.append(
                    Cand(
                        "radical_power", f"{b}^{{1/2}}", f"{b}^{{1/3}}", "a square root as a fractional power"
                    )
                )
    m = re.fullmatch(r"\s*\\[dt]?frac\{(\d*)\s*\\sqrt\{?(\d+)\}?\}\{(\d+)\}\s*", gold)
    if m:
        a, b, c = int(m.group(1) or 1), int(m.group(2)), int(m.group(3))
        num, den = Fraction(a * b, c).numerator, Fraction(a * b, c).denominator
        den_s = "" if den == 1 else str(den)
        c_txt = f"\\frac{{{num}}}{{{den_s}\\sqrt{{{b}}}}}"
        w_txt = f"\\frac{{{a}}}{{{c}\\sqrt{{{b}}}}}"
        out.append(
            Cand(
                "rationalization_undone",
                c_txt,
                w_txt,
                "the root moved to the denominator; wrong: not multiplied through",
            )
        )
        out.append(
            Cand(
                "coefficient_form",
                f"\\frac{{{a}}}{{{c}}}\\sqrt{{{b}}}".replace("\\frac{1}{1}", ""),
                f"\\frac{{{a}}}{{{c}}}\\sqrt{{{b + 1}}}",
                "the fraction written before the root",
            )
        )
        if a == 1:
            out.append(
                Cand(
                    "radical_of_fraction",
                    f"\\sqrt{{\\frac{{{b}}}{{{c * c}}}}}",
                    f"\\sqrt{{\\frac{{{b}}}{{{c}}}}}",
                    "one root over a fraction; wrong: the denominator not squared",
                )
            )
    return out


def gen_degrees(p: dict[str, Any], deg: Fraction, h: int) -> list[Cand]:
    out = []
    w = deg + (10 if h % 2 else -10) if deg > 10 else deg + 15
    if re.search(r"degree|\\circ", p["problem"], re.IGNORECASE):
        out.append(
            Cand(
                "degrees_notation",
                f"{ftex(deg)} \\text{{ degrees}}",
                f"{ftex(w)} \\text{{ degrees}}",
                "degrees written as a word",
            )
        )
        out.append(Cand("degrees_notation", f"{ftex(deg)}°", f"{ftex(w)}°", "the unicode degree sign"))
    else:
        rad = deg / 180
        wr = w / 180

        def pi_tex(fr: Fraction) -> str:
            if fr.denominator == 1:
                return f"{fr.numerator}\\pi" if fr.numerator != 1 else "\\pi"
            num = "" if fr.numerator == 1 else str(fr.numerator)
            return f"\\frac{{{num}\\pi}}{{{fr.denominator}}}"

        out.append(
            Cand(
                "angle_in_radians",
                pi_tex(rad),
                pi_tex(wr),
                "an angle asked without a unit, answered in radians",
                kind="value",
                c_twin=f"{ftex(deg)}\\cdot\\frac{{\\pi}}{{180}}",
                w_twin=f"{ftex(w)}\\cdot\\frac{{\\pi}}{{180}}",
                gold_twin=f"{ftex(deg)}\\cdot\\frac{{\\pi}}{{180}}",
            )
        )
    return out


def interval_text(s: Any, var: str) -> list[list[str]] | None:
    """Each interval of ``s`` (a sympy Interval or Union of them) as a conjunction of relations in ``var``."""
    sp = _sp()
    parts = list(s.args) if isinstance(s, sp.Union) else [s]
    out = []
    for iv in parts:
        if not isinstance(iv, sp.Interval):
            return None
        rel = []
        lo, hi = iv.start, iv.end
        if lo is not sp.S.NegativeInfinity:
            rel.append((sp.latex(lo), ">" if iv.left_open else "\\ge"))
        if hi is not sp.S.Infinity:
            rel.append((sp.latex(hi), "<" if iv.right_open else "\\le"))
        if len(rel) == 2:
            flip = {">": "<", "\\ge": "\\le"}
            out.append([f"{rel[0][0]} {flip[rel[0][1]]} {var} {rel[1][1]} {rel[1][0]}"])
        elif rel:
            out.append([f"{var} {rel[0][1]} {rel[0][0]}"])
        else:
            return None
    return out


def gen_interval(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    sp = _sp()
    try:
        s = value(gold.replace("x \\in", "").replace("x\\in", ""))
    except Exception:
        return []
    if not isinstance(s, (sp.Interval, sp.Union)):
        return []
    # the inequality names a variable: only when the problem asks about one ("solve", "all real numbers $x$",
    # "values of $x$", "the domain"); a set-builder's variable is a dummy, so it can always be x
    m = re.search(r"(?:all real numbers|all values of|values of|all|real)\s+\$\s*([a-z])\s*\$", p["problem"])
    asks = (
        m.group(1)
        if m
        else ("x" if re.search(r"\bSolve\b|domain", p["problem"]) and "$x" in p["problem"] else None)
    )
    var = asks or "x"
    parts = interval_text(s, var)
    if not parts:
        return []
    # wrong: the first finite endpoint's closedness flipped (a near miss at an endpoint)
    ivs = list(s.args) if isinstance(s, sp.Union) else [s]
    iv = ivs[0]
    if iv.start is not sp.S.NegativeInfinity:
        wiv = sp.Interval(iv.start, iv.end, not iv.left_open, iv.right_open)
    else:
        wiv = sp.Interval(iv.start, iv.end, iv.left_open, not iv.right_open)
    ws = sp.Union(wiv, *ivs[1:])
    wparts = interval_text(ws, var)
    if not wparts:
        return []
    join = " \\text{ or } "
    c = join.join(x[0] for x in parts)
    w = join.join(x[0] for x in wparts)
    out = (
        []
        if asks is None
        else [
            Cand(
                "interval_as_inequality",
                c,
                w,
                f"the interval as inequalities in {var}; wrong: one endpoint's bracket flipped",
                kind="relations",
                c_twin=[x[0] for x in parts],
                w_twin=[x[0] for x in wparts],
                gold_twin=var,
            )
        ]
    )
    if len(parts) == 1:
        out.append(
            Cand(
                "set_builder",
                f"\\{{ {var} \\mid {c} \\}}",
                f"\\{{ {var} \\mid {w} \\}}",
                "set-builder notation",
                kind="relations",
                c_twin=[parts[0][0]],
                w_twin=[wparts[0][0]],
                gold_twin=var,
            )
        )
    return out


def gen_list(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    """Lists of solutions (``1,-2``, ``3, 5, 7``, ``1 \\pm \\sqrt{19}``): another order / set / or-form."""
    sp = _sp()
    g = gold.strip()
    if "\\pm" in g:
        m = re.fullmatch(r"(.*?)\\pm(.*)", g)
        if not m or "," in g:
            return []
        a, b = m.group(1).strip(), m.group(2).strip()
        items = [f"{a} + {b}", f"{a} - {b}"] if a else [b, f"-{b}"]
    else:
        g = g.strip("\\{}").strip() if g.startswith("\\{") else g
        items = [re.sub(r"^(?:\\[ ,;!]|\s)+", "", x).strip() for x in re.split(r",(?![^{}()]*[})])", g)]
        items = [x for x in items if x]
    if len(items) < 2 or len(items) > 6:
        return []
    try:
        vals = [value(x) for x in items]
    except Exception:
        return []
    if not all(isinstance(v, sp.Expr) and not v.free_symbols for v in vals):
        return []
    order = list(reversed(items))
    # "x = a or x = b" and "x \\in {...}" only when the problem asks about a named variable
    m = _ASK_VAR.search(p["problem"]) or re.search(
        r"(?:solutions?|roots?|values? of|real numbers|numbers)\s+\$\s*([a-z])\s*\$", p["problem"]
    )
    var = m.group(1) if m else None
    out = []
    missing = order[:-1]
    out.append(
        Cand(
            "solution_set_forms",
            "\\{" + ", ".join(order) + "\\}",
            "\\{" + ", ".join(missing) + "\\}",
            "the solutions as a set in another order; wrong: one solution missing",
            kind="value",
            c_twin=sp.FiniteSet(*vals),
            w_twin=sp.FiniteSet(*[value(x) for x in missing]),
            gold_twin=sp.FiniteSet(*vals),
        )
    )
    if var is None:
        return out
    mem = "\\{" + ", ".join(sorted(items, key=lambda t: float(value(t).evalf().as_real_imag()[0]))) + "\\}"
    wmem_items = [*items[:-1], sp.latex(value(items[-1]) + 1)]
    out.append(
        Cand(
            "solution_set_membership",
            f"{var} \\in {mem}",
            f"{var} \\in \\{{" + ", ".join(wmem_items) + "\\}",
            f"'{var} \\in {{...}}'; wrong: one solution off by one",
            kind="value",
            c_twin=sp.FiniteSet(*vals),
            w_twin=sp.FiniteSet(*[value(x) for x in wmem_items]),
            gold_twin=sp.FiniteSet(*vals),
        )
    )
    orc = " \\text{ or } ".join(f"{var} = {x}" for x in order)
    last = value(order[-1])
    # wrong: the last solution negated, or one more when its negative is already a solution (never a repeat)
    alt = next(a for a in (-last, last + 1, last - 1, last + 2) if not any(equal(a, v) for v in vals))
    wrong_items = [*order[:-1], sp.latex(sp.nsimplify(alt))]
    orw = " \\text{ or } ".join(f"{var} = {x}" for x in wrong_items)
    out.append(
        Cand(
            "solutions_as_or",
            orc,
            orw,
            f"'{var} = a or {var} = b'; wrong: one solution off by one",
            kind="value",
            c_twin=sp.FiniteSet(*vals),
            w_twin=sp.FiniteSet(*[value(x) for x in wrong_items]),
            gold_twin=sp.FiniteSet(*vals),
        )
    )
    return out


_TUPLE_NAMES = re.compile(
    r"ordered (?:pair|triple|quadruple)[^$]{0,30}\$\s*\\?\(?\s*\(([a-zA-Z](?:\s*,\s*[a-zA-Z])+)\)"
)


def gen_tuple(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    sp = _sp()
    try:
        v = value(gold)
    except Exception:
        return []
    if not isinstance(v, sp.Tuple) or len(v) < 2:
        return []
    inner = re.sub(r"^\s*\\left\s*\(|\\right\s*\)\s*$", "", gold.strip())
    inner = inner.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    items = [x.strip() for x in re.split(r",(?![^{}]*\})", inner)]
    if len(items) != len(v):
        return []
    k = h % len(items)
    wrong_items = list(items)
    wrong_items[k] = f"-{items[k]}" if items[k] not in ("0",) else "1"
    if items[k].startswith("-"):
        wrong_items[k] = items[k][1:].strip()
    if equal(value(wrong_items[k]), v[k]):
        return []
    out = []
    m = _TUPLE_NAMES.search(p["problem"])
    if m:
        names = [x.strip() for x in m.group(1).split(",")]
        if len(names) == len(items):
            c = ", \\quad ".join(f"{n} = {x}" for n, x in zip(names, items, strict=True))
            w = ", \\quad ".join(f"{n} = {x}" for n, x in zip(names, wrong_items, strict=True))
            out.append(
                Cand(
                    "tuple_as_assignments",
                    c,
                    w,
                    f"the ordered tuple as assignments to {', '.join(names)}; wrong: one sign",
                    c_twin=sp.Tuple(*[value(x) for x in items]),
                    w_twin=sp.Tuple(*[value(x) for x in wrong_items]),
                )
            )
    spaced = [re.sub(r"\\[dt]?frac\{([^{}]+)\}\{([^{}]+)\}", r"\1/\2", x) for x in items]
    wspaced = [re.sub(r"\\[dt]?frac\{([^{}]+)\}\{([^{}]+)\}", r"\1/\2", x) for x in wrong_items]
    if spaced != items:
        out.append(
            Cand(
                "tuple_inline_fractions",
                "(" + ", ".join(spaced) + ")",
                "(" + ", ".join(wspaced) + ")",
                "a tuple with a/b fractions",
                c_twin=sp.Tuple(*[value(x) for x in items]),
                w_twin=sp.Tuple(*[value(x) for x in wrong_items]),
            )
        )
    return out


def gen_matrix(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    sp = _sp()
    try:
        M = value(gold)
    except Exception:
        return []
    if not isinstance(M, sp.MatrixBase):
        return []
    M = sp.Matrix(M).applyfunc(
        lambda x: sp.nsimplify(sp.simplify(x))
    )  # entries evaluated: 1/sqrt(2), not 1*(...)
    out = []
    k = h % len(M)
    W = M.copy()
    W[k] = -W[k] if W[k] != 0 else 1

    def tex(A: Any, env: str) -> str:
        rows = [" & ".join(sp.latex(A[i, j]) for j in range(A.shape[1])) for i in range(A.shape[0])]
        return f"\\begin{{{env}}} " + " \\\\ ".join(rows) + f" \\end{{{env}}}"

    dens = [sp.fraction(sp.nsimplify(x))[1] for x in M]
    L = sp.ilcm(*dens) if dens else 1
    if L > 1 and all(x.is_Rational for x in M):
        out.append(
            Cand(
                "matrix_scalar_factored",
                f"\\frac{{1}}{{{L}}}" + tex(M * L, "pmatrix"),
                f"\\frac{{1}}{{{L}}}" + tex(W * L, "pmatrix"),
                f"the common denominator {L} factored out; wrong: one entry's sign",
                c_twin=M,
                w_twin=W,
            )
        )
    if M.shape[1] == 1:
        out.append(
            Cand(
                "vector_as_tuple",
                "(" + ", ".join(sp.latex(x) for x in M) + ")",
                "(" + ", ".join(sp.latex(x) for x in W) + ")",
                "a column vector written as a tuple",
                c_twin=sp.Tuple(*M),
                w_twin=sp.Tuple(*W),
                gold_twin=sp.Tuple(*M),
            )
        )
    else:
        out.append(
            Cand(
                "matrix_bracket_style",
                tex(M, "bmatrix"),
                tex(W, "bmatrix"),
                "bmatrix instead of pmatrix, entries as sympy prints them",
                c_twin=M,
                w_twin=W,
            )
        )
    return out


def _flat(s: str) -> str:
    """A LaTeX string without spaces, braces and sizing commands, to tell a new form from the gold's own."""
    return re.sub(r"\\left|\\right|[\s{}]|\\[dt](?=frac)", "", s)


def gen_symbolic(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    sp = _sp()
    if re.search(r"\\(?:text|mbox|mathrm)", gold) or re.search(
        r"[a-z]{3,}", re.sub(r"\\[a-zA-Z]+", " ", gold)
    ):
        return []  # units or words, not an expression in variables
    try:
        e = value(gold)
    except Exception:
        return []
    if not isinstance(e, sp.Expr) or not e.free_symbols or len(e.free_symbols) > 3:
        return []
    if any(
        isinstance(a, (sp.Function, sp.Derivative)) and not isinstance(a, sp.Pow)
        for a in sp.preorder_traversal(e)
    ) and not e.has(sp.sin, sp.cos, sp.tan, sp.cot):
        return []
    q = p["problem"].lower()
    out = []
    flat = _flat(gold)
    # wrong: one term's sign flipped (or the expression plus 1)
    terms = sp.Add.make_args(sp.expand(e))
    if len(terms) >= 2:
        t = terms[h % len(terms)]
        wrong = sp.expand(e) - 2 * t
    else:
        wrong = e * 2
    f = sp.factor(e)
    if (
        f != e
        and "expand" not in q
        and sp.expand(f) != f
        and len(sp.Add.make_args(sp.expand(e))) >= 2
        and "factor" not in q
    ):
        wf = sp.factor(wrong)
        if _flat(sp.latex(f)) != flat:
            out.append(
                Cand(
                    "factored_form",
                    sp.latex(f),
                    sp.latex(wf),
                    "the expression factored; wrong: one term's sign",
                )
            )
    ex = sp.expand(e)
    if (
        ex != e
        and "factor" not in q
        and "simplest form" not in q
        and _flat(sp.latex(ex)) != flat
        and "^{\\frac" not in sp.latex(ex)
    ):
        out.append(
            Cand(
                "expanded_form",
                sp.latex(ex),
                sp.latex(sp.expand(wrong)),
                "the expression expanded; wrong: one term's sign",
            )
        )
    # reordering is only offered for a gold that is itself a sum (a product reordered would be its expansion,
    # the wrong answer to "factor ...")
    if (
        isinstance(ex, sp.Add)
        and len(ex.args) >= 2
        and ex.is_polynomial()
        and "(" not in gold
        and "factor" not in q
    ):
        syms = sorted(ex.free_symbols, key=str)
        rev = sp.latex(ex, order="rev-lex")
        wrev = sp.latex(sp.expand(wrong), order="rev-lex")
        if _flat(rev) != flat and sp.latex(ex) != rev:
            out.append(
                Cand(
                    "reordered_terms",
                    rev,
                    wrev,
                    f"terms in ascending powers of {syms[0]}; wrong: one term's sign",
                )
            )
    return out


def gen_misc(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    """Bases, dollars, percents, decimals, complex numbers, pi multiples, equations, text, choices, units."""
    sp = _sp()
    g = gold.strip()
    out: list[Cand] = []
    m = re.fullmatch(r"(-?)([0-9A-Z]+)_\{?(\d+)\}?", g)
    if m:
        sign, digits, base = m.group(1), m.group(2), int(m.group(3))
        try:
            val = int(digits, base)
        except ValueError:
            return []
        wd = list(digits)
        i = h % len(wd)
        alphabet = "0123456789ABCDEFGHIJ"[:base]
        wd[i] = alphabet[(alphabet.index(wd[i]) + 1) % base]
        wdigits = "".join(wd)
        if int(wdigits, base) != val:
            words = {
                2: "two",
                3: "three",
                4: "four",
                5: "five",
                6: "six",
                7: "seven",
                8: "eight",
                9: "nine",
                12: "twelve",
                13: "thirteen",
            }
            if base in words and h % 2:
                out.append(
                    Cand(
                        "base_subscript",
                        f"{sign}{digits}_{{\\text{{{words[base]}}}}}",
                        f"{sign}{wdigits}_{{\\text{{{words[base]}}}}}",
                        "the base as a word subscript",
                        kind="base",
                        c_twin=(sign, digits, base),
                        w_twin=(sign, wdigits, base),
                    )
                )
            else:
                out.append(
                    Cand(
                        "base_subscript",
                        f"{sign}{digits} \\text{{ (base {base})}}",
                        f"{sign}{wdigits} \\text{{ (base {base})}}",
                        "the base in words after the digits",
                        kind="base",
                        c_twin=(sign, digits, base),
                        w_twin=(sign, wdigits, base),
                    )
                )
        return out
    m = re.fullmatch(r"\\\$\s*([\d,\\!{}.]+)", g)
    if m:
        num = Fraction(clean(m.group(1)))
        w = num * 10 if h % 2 else num + 1
        fmt = (lambda x: f"{float(x):.2f}") if num.denominator > 1 else (lambda x: str(int(x)))
        out.append(
            Cand(
                "currency",
                f"{fmt(num)} dollars",
                f"{fmt(w)} dollars",
                "dollars as a word",
                math=False,
                style="prose",
                c_twin=str(float(num)),
                w_twin=str(float(w)),
            )
        )
        if num.denominator == 1:
            out.append(Cand("currency", f"\\${int(num)}.00", f"\\${int(w)}.00", "dollars with cents"))
        return out
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*\\%", g)
    if m:
        num = Fraction(m.group(1))
        w = num / 10 if h % 2 else num + 1
        ws = str(float(w)).rstrip("0").rstrip(".")
        out.append(
            Cand(
                "percent",
                f"{m.group(1)} percent",
                f"{ws} percent",
                "'percent' as a word; wrong: off by a factor or one",
                math=False,
                style="prose",
                c_twin=m.group(1),
                w_twin=ws,
            )
        )
        out.append(
            Cand(
                "percent",
                f"{m.group(1)}%",
                f"{ws}%",
                "a bare % sign in plain text",
                math=False,
                style="answer_is",
                c_twin=m.group(1),
                w_twin=ws,
            )
        )
        return out
    if re.fullmatch(r"-?\d*\.\d+", g):
        fr = Fraction(g)
        if fr.denominator > 1:
            wfr = fr * 10 if h % 2 else fr + Fraction(1, fr.denominator)
            out.append(Cand("decimal_as_fraction", ftex(fr), ftex(wfr), "the decimal as a reduced fraction"))
            if abs(fr) < Fraction(1, 100):
                e = math.floor(math.log10(abs(fr)))
                mant = fr / Fraction(10) ** e
                ms = dec(mant)
                if ms:
                    out.append(
                        Cand(
                            "scientific_notation",
                            f"{ms} \\times 10^{{{e}}}",
                            f"{ms} \\times 10^{{{e + 1}}}",
                            "scientific notation; wrong: exponent off by one",
                        )
                    )
        return out
    m = re.fullmatch(r"(-?\s*\d*)\s*([+-])\s*(\d*)\s*i", g.replace(" ", ""))
    if m and m.group(1).strip("-"):
        a, sgn, b = m.group(1), m.group(2), m.group(3)
        c = f"{sgn if sgn == '-' else ''}{b}i + {a}".replace("+ -", "- ")
        osg = "+" if sgn == "-" else "-"
        w = f"{osg if osg == '-' else ''}{b}i + {a}".replace("+ -", "- ")
        out.append(Cand("reordered_terms", c, w, "imaginary part first; wrong: the conjugate"))
        return out
    m = re.fullmatch(r"(\d*)\s*\\pi", g)
    if m and m.group(1):
        k = int(m.group(1))
        out.append(
            Cand(
                "pi_forms",
                f"\\pi \\cdot {k}",
                f"\\pi \\cdot {k * 2}",
                "pi written first; wrong: a factor of 2",
            )
        )
        return out
    m = re.fullmatch(r"\\frac\{(\d*)\s*\\pi\}\{(\d+)\}", g)
    if m:
        a, b = int(m.group(1) or 1), int(m.group(2))
        out.append(
            Cand(
                "pi_forms",
                f"\\frac{{{a}}}{{{b}}}\\pi",
                f"\\frac{{{a}}}{{{b + 1}}}\\pi",
                "the coefficient as a fraction before pi",
            )
        )
        lead = "" if a == 1 else str(a)
        out.append(Cand("pi_forms", f"{lead}\\pi/{b}", f"{a + 1}\\pi/{b}", "inline a\\pi/b"))
        return out
    m = re.fullmatch(r"([a-z])\s*=\s*(.+)", g)
    if m and "=" not in m.group(2):
        var, rhs = m.group(1), m.group(2)
        try:
            rv = value(rhs)
        except Exception:
            rv = None
        if rv is not None and isinstance(rv, sp.Expr):
            syms = rv.free_symbols
            if not syms:
                wr = sp.latex(rv + 1)
                out.append(Cand("assignment_dropped", rhs, wr, f"the value without '{var} ='"))
            elif len(syms) == 1 and rv.is_polynomial() and sp.degree(rv) == 1:
                x = next(iter(syms))
                lhs = sp.Symbol(var)
                ex = sp.expand(lhs - rv)
                den = sp.ilcm(*[sp.fraction(c)[1] for c in sp.Poly(ex, x, lhs).coeffs()])
                ex = sp.expand(ex * den * (-1 if h % 2 else 1))
                c_txt = sp.latex(ex) + " = 0"
                wex = sp.expand(ex + 2 * ex.coeff(x) * x)
                w_txt = sp.latex(wex) + " = 0"
                out.append(
                    Cand(
                        "equation_rearranged",
                        c_txt,
                        w_txt,
                        "the line in general form; wrong: the slope's sign",
                    )
                )
        return out
    if g.count("=") == 1 and re.search(r"[xyz]", g) and not re.search(r"[a-w]{2}", g):
        try:
            eq = value(g)
        except Exception:
            eq = None
        if eq is not None and isinstance(eq, sp.Equality):
            ex = sp.expand(eq.lhs - eq.rhs)
            const = sp.nsimplify(ex.subs(dict.fromkeys(ex.free_symbols, 0)))
            rest = sp.expand(ex - const)
            t = sp.Add.make_args(rest)[h % len(sp.Add.make_args(rest))]
            forms = [
                (f"{sp.latex(rest)} = {sp.latex(-const)}", f"{sp.latex(rest - 2 * t)} = {sp.latex(-const)}"),
                (f"{sp.latex(ex)} = 0", f"{sp.latex(ex - 2 * t)} = 0"),
                (f"{sp.latex(-ex)} = 0", f"{sp.latex(-ex + 2 * t)} = 0"),
            ]
            new_forms = [f for f in forms if _flat(f[0]) != _flat(g)]
            if not new_forms:
                return out
            c_txt, w_txt = new_forms[0]
            out.append(
                Cand(
                    "equation_rearranged",
                    c_txt,
                    w_txt,
                    "the constant moved to the right side; wrong: one coefficient's sign",
                )
            )
        return out
    return out


_TEXT_ALTS = {
    "even": ["odd", "neither"],
    "odd": ["even", "neither"],
    "neither": ["even", "odd"],
    "north": ["south", "west"],
    "south": ["north", "east"],
    "east": ["west", "north"],
    "west": ["east", "south"],
    "yes": ["no"],
    "no": ["yes"],
    "ellipse": ["hyperbola", "circle"],
    "hyperbola": ["ellipse", "parabola"],
    "parabola": ["hyperbola", "ellipse"],
    "circle": ["ellipse", "point"],
    "line": ["two lines", "point"],
    "point": ["circle", "empty"],
    "empty": ["point"],
    "two lines": ["line"],
}
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def gen_text(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    m = re.fullmatch(r"\\text\{\s*([A-Za-z][A-Za-z ]*?)\s*\}", gold.strip())
    if not m:
        return []
    word = m.group(1)
    low = word.lower()
    q = p["problem"]
    if low in _TEXT_ALTS:
        wrong = _TEXT_ALTS[low][h % len(_TEXT_ALTS[low])]
    elif low in _DAYS:
        wrong = _DAYS[(_DAYS.index(low) + 1) % 7].capitalize()
    elif word[:1].isupper() and len(word) > 2:
        names = [
            n
            for n in dict.fromkeys(re.findall(r"\b[A-Z][a-z]{2,}\b", q))
            if n != word
            and n
            not in (
                "The",
                "What",
                "Which",
                "Who",
                "How",
                "If",
                "In",
                "On",
                "Express",
                "Enter",
                "Find",
                "One",
                "Each",
                "Assume",
                "Let",
                "After",
                "For",
                "When",
                "She",
                "They",
                "His",
                "Her",
                "Suppose",
                "Note",
                "At",
                "There",
                "This",
                "That",
                "Then",
                "Determine",
                "Is",
                "Of",
                "From",
                "Compute",
                "Given",
                "What's",
            )
        ]
        if not names:
            return []
        wrong = names[h % len(names)]
    else:
        return []
    c_forms = [
        word.capitalize(),
        f"\\textbf{{{word.upper() if len(word) < 4 else word.capitalize()}}}",
        word.lower(),
    ]
    k = h % 3
    wc = [
        wrong.capitalize(),
        f"\\textbf{{{wrong.upper() if len(wrong) < 4 else wrong.capitalize()}}}",
        wrong.lower(),
    ]
    return [
        Cand(
            "text_answer",
            c_forms[k],
            wc[k],
            "the text answer without \\text{}, in another case; checked by reading",
            kind="text",
            math=k == 1,
            style="prose" if k != 1 else None,
        )
    ]


_OPTION = re.compile(
    r"(?:\\text(?:bf)?\{\s*\(([A-F])\)\s*\}|\(([A-F])\))\s*\\?\s*(.+?)(?=\s*(?:\\qquad|\\textbf\{\s*\([A-F]\)|\([A-F]\)|Enter|\$\s*\$|$))",
    re.S,
)


def gen_choice(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    m = re.fullmatch(r"\\text\{\s*\(?([A-F])\)?\s*\}|\(?([A-F])\)?", gold.strip())
    if not m:
        return []
    letter = m.group(1) or m.group(2)
    opts: dict[str, str] = {}
    for mm in _OPTION.finditer(p["problem"]):
        key = mm.group(1) or mm.group(2)
        txt = mm.group(3).strip().rstrip("$").strip()
        if txt.startswith("$") and txt.count("$") == 1:
            txt = txt.strip("$").strip()
        if txt.count("$") % 2:
            txt += "$"
        if key and txt and key not in opts and len(txt) < 60 and not txt.startswith(("}", "\\")):
            opts[key] = txt
    if letter not in opts or len(opts) < 3:
        return []
    others = [k for k in opts if k != letter]
    wl = others[h % len(others)]
    out = [
        Cand(
            "choice_content",
            opts[letter],
            opts[wl],
            f"the content of option ({letter}) instead of its letter; wrong: option ({wl}); checked by reading",
            kind="choice",
            math=("\\" in opts[letter] or "^" in opts[letter]) and "$" not in opts[letter],
        ),
        Cand(
            "choice_letter_with_content",
            f"({letter}) {opts[letter]}",
            f"({wl}) {opts[wl]}",
            "the letter followed by the option's content; checked by reading",
            kind="choice",
            math=False,
            style="prose",
        ),
    ]
    return out


def gen_units_gold(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    m = re.fullmatch(r"([\d.]+)\s*\\(?:mbox|text)\{\s*([a-z]+)\s*\}(\^[23])?", gold.strip())
    if not m:
        return []
    n = Fraction(m.group(1))
    unit = m.group(2)
    power = m.group(3)
    wn = n + 1
    if power:
        word = {"^2": "square", "^3": "cubic"}[power]
        full = {
            "cm": "centimeters",
            "in": "inches",
            "inches": "inches",
            "m": "meters",
            "ft": "feet",
            "feet": "feet",
        }.get(unit, unit)
        c = f"{m.group(1)} {word} {full}"
        w = f"{wn} {word} {full}" if wn.denominator == 1 else f"{float(wn)} {word} {full}"
    else:
        c = f"{m.group(1)} {unit}"
        w = f"{float(wn):g} {unit}"
    return [
        Cand(
            "units_in_words",
            c,
            w,
            "the unit written out in words",
            math=False,
            style="prose",
            c_twin=m.group(1),
            w_twin=f"{float(wn):g}",
        )
    ]


# ----------------------------------------------------------------------------------------- hand-written

# (source, ref, category, correct, wrong, note, c_twin, w_twin); twins are LaTeX latex2sympy reads, None when
# the written answer itself is read (or "text" for answers checked by reading)
HAND: list[tuple[str, str, str, str, str, str, Any, Any]] = [
    (
        "math/math500_test.jsonl",
        "test/precalculus/24313.json",
        "trig_identity",
        "\\frac{\\cos x}{\\sin x}",
        "\\frac{\\sin x}{\\cos x}",
        "cot written as cos/sin; wrong: tan",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/precalculus/807.json",
        "tuple_inline_fractions",
        "(3, \\pi/2)",
        "(3, \\pi/3)",
        "polar pair with pi/2 inline",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/algebra/1349.json",
        "text_answer",
        "Evelyn has the greatest average speed.",
        "Carla has the greatest average speed.",
        "the name in a full sentence; checked by reading",
        "text",
        "text",
    ),
    (
        "math/math500_test.jsonl",
        "test/intermediate_algebra/128.json",
        "text_answer",
        "The composite function is even.",
        "The composite function is odd.",
        "the parity in a sentence; checked by reading",
        "text",
        "text",
    ),
    (
        "math/math500_test.jsonl",
        "test/prealgebra/105.json",
        "text_answer",
        "She ends up facing due east.",
        "She ends up facing due west.",
        "the direction in a sentence; checked by reading",
        "text",
        "text",
    ),
    (
        "math/math500_test.jsonl",
        "test/intermediate_algebra/860.json",
        "text_answer",
        "The graph is an ellipse.",
        "The graph is a hyperbola.",
        "the conic in a sentence; checked by reading",
        "text",
        "text",
    ),
    (
        "math/math500_test.jsonl",
        "test/intermediate_algebra/2015.json",
        "solutions_as_assignments",
        "x = -2,\\ x = 1 + \\sqrt{5},\\ x = 1 - \\sqrt{5}",
        "x = 2,\\ x = 1 + \\sqrt{5},\\ x = 1 - \\sqrt{5}",
        "three roots as assignments in another order; wrong: sign of -2",
        "\\{-2, 1+\\sqrt{5}, 1-\\sqrt{5}\\}",
        "\\{2, 1+\\sqrt{5}, 1-\\sqrt{5}\\}",
    ),
    (
        "math/math500_test.jsonl",
        "test/precalculus/323.json",
        "equation_rearranged",
        "2x - y + 3 = 0",
        "2x + y + 3 = 0",
        "the line in general form; wrong: the sign of y",
        "2x - y + 3 = 0",
        "2x + y + 3 = 0",
    ),
    (
        "math/math500_test.jsonl",
        "test/precalculus/356.json",
        "equation_rearranged",
        "2x + y = 0",
        "2x - y = 0",
        "y = -2x as 2x + y = 0; wrong: y = 2x",
        "2x + y = 0",
        "2x - y = 0",
    ),
    (
        "math/math500_test.jsonl",
        "test/precalculus/659.json",
        "equation_rearranged",
        "-5x + 7y - 11z - 4 = 0",
        "-5x + 7y - 11z + 4 = 0",
        "the plane multiplied by -1; wrong: the constant's sign",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/algebra/2193.json",
        "assignment_dropped",
        "5",
        "-5",
        "x = 5 answered by its value",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/geometry/473.json",
        "units_in_words",
        "864 square inches",
        "1200 square inches",
        "the area with the unit in words",
        "864",
        "1200",
    ),
    (
        "math/math500_test.jsonl",
        "test/prealgebra/1003.json",
        "degrees_notation",
        "\\left(\\frac{270}{7}\\right)^\\circ",
        "\\left(\\frac{270}{8}\\right)^\\circ",
        "a fractional angle in degrees with the degree sign",
        "\\frac{270}{7}",
        "\\frac{270}{8}",
    ),
    (
        "math/math500_test.jsonl",
        "test/prealgebra/1044.json",
        "units_in_words",
        "5.4 cents",
        "54 cents",
        "cents as a word; wrong: a factor of 10",
        "5.4",
        "54",
    ),
    (
        "math/math500_test.jsonl",
        "test/algebra/2735.json",
        "split_fraction",
        "\\frac{11}{20} + \\frac{9a}{20}",
        "\\frac{11}{20} + \\frac{9a}{10}",
        "the fraction split into two terms",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/geometry/686.json",
        "factored_form",
        "2(9 + \\pi)",
        "2(9 + 2\\pi)",
        "a common factor pulled out",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/intermediate_algebra/1111.json",
        "pi_forms",
        "20000/\\pi",
        "2000/\\pi",
        "inline a/pi; wrong: a factor of 10",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/precalculus/499.json",
        "interval_as_inequality",
        "\\frac{\\pi^2}{8} \\le f(x) \\le \\frac{5\\pi^2}{4}",
        "\\frac{\\pi^2}{8} < f(x) \\le \\frac{5\\pi^2}{4}",
        "the range as a double inequality in f(x); wrong: the left endpoint excluded; checked by reading",
        "text",
        "text",
    ),
    (
        "math/math500_test.jsonl",
        "test/algebra/101.json",
        "interval_as_inequality",
        "-2 \\le x \\le 7",
        "-2 < x \\le 7",
        "x in [-2,7] as a double inequality",
        "relations:x",
        "relations:x",
    ),
    (
        "math/math500_test.jsonl",
        "test/number_theory/598.json",
        "scientific_notation",
        "6.72 \\times 10^{-5}",
        "6.72 \\times 10^{-4}",
        "scientific notation",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/number_theory/410.json",
        "decimal_as_fraction",
        "\\frac{57}{160}",
        "\\frac{57}{16}",
        "the decimal as a fraction; wrong: a factor of 10",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/algebra/2470.json",
        "fraction_as_decimal",
        "137.5",
        "137.05",
        "a mixed number as a decimal",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/geometry/826.json",
        "fraction_as_decimal",
        "1.8",
        "1.4",
        "1 4/5 as a decimal",
        None,
        None,
    ),
    (
        "math/math500_test.jsonl",
        "test/intermediate_algebra/1388.json",
        "solutions_as_or",
        "x = -2 \\text{ or } x = 1",
        "x = 2 \\text{ or } x = 1",
        "two solutions joined by 'or'",
        "\\{-2, 1\\}",
        "\\{2, 1\\}",
    ),
    # competition answers (matharena), rewritten by hand
    (
        "matharena/cmimc_2024.jsonl",
        "problem_idx=22",
        "common_denominator",
        "\\frac{5\\pi - 6\\sqrt{3}}{6}",
        "\\frac{5\\pi - 3\\sqrt{3}}{6}",
        "one fraction over the common denominator",
        None,
        None,
    ),
    (
        "matharena/cmimc_2024.jsonl",
        "problem_idx=24",
        "split_fraction",
        "\\frac{\\sqrt{3}}{2} - \\frac{3}{4}",
        "\\frac{\\sqrt{3}}{2} - \\frac{3}{2}",
        "the fraction split into two terms",
        None,
        None,
    ),
    (
        "matharena/cmimc_2024.jsonl",
        "problem_idx=26",
        "unsimplified_radical",
        "\\sqrt{4 + 4\\sqrt{2}}",
        "\\sqrt{2 + 2\\sqrt{2}}",
        "the factor 2 moved under the outer root",
        None,
        None,
    ),
    (
        "matharena/cmimc_2024.jsonl",
        "problem_idx=29",
        "pi_forms",
        "0.925\\pi",
        "0.9125\\pi",
        "the rational coefficient of pi as an exact decimal",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2024.jsonl",
        "problem_idx=18",
        "equivalent_expression",
        "\\frac{2^{4048}}{\\binom{4048}{2024}} - 2",
        "\\frac{2^{4048}}{\\binom{4048}{2024}} - 1",
        "4^{2024} written as 2^{4048}",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2024.jsonl",
        "problem_idx=25",
        "unsimplified_radical",
        "\\sqrt{80} - \\sqrt{7}",
        "\\sqrt{20} - \\sqrt{7}",
        "the coefficient moved under the root",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2024.jsonl",
        "problem_idx=28",
        "expanded_form",
        "128 - 64\\sqrt{3}",
        "128 - 32\\sqrt{3}",
        "the product expanded",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2024.jsonl",
        "problem_idx=29",
        "reordered_terms",
        "-3 + \\sqrt{38}",
        "3 - \\sqrt{38}",
        "the terms in the other order; wrong: the negative",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2025.jsonl",
        "problem_idx=4",
        "unicode_math",
        "−984",
        "−985",
        "a unicode minus sign (U+2212) in plain text",
        "-984",
        "-985",
    ),
    (
        "matharena/hmmt_feb_2025.jsonl",
        "problem_idx=8",
        "common_denominator",
        "\\frac{\\pi - 2}{\\pi}",
        "\\frac{\\pi - 2}{2\\pi}",
        "one fraction over the common denominator",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2025.jsonl",
        "problem_idx=17",
        "unevaluated_expression",
        "33554432 \\cdot 26!",
        "16777216 \\cdot 26!",
        "2^{25} evaluated, 26! left as is",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2025.jsonl",
        "problem_idx=25",
        "unsimplified_radical",
        "\\sqrt{23} - \\sqrt{12}",
        "\\sqrt{23} - \\sqrt{6}",
        "2\\sqrt{3} written as \\sqrt{12}",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2025.jsonl",
        "problem_idx=29",
        "factored_form",
        "2(7 + 2\\sqrt{37})",
        "2(7 + 4\\sqrt{37})",
        "a common factor pulled out",
        None,
        None,
    ),
    (
        "matharena/hmmt_feb_2025.jsonl",
        "problem_idx=30",
        "rationalization_done",
        "\\frac{\\sqrt{570}}{12}",
        "\\frac{\\sqrt{570}}{24}",
        "the root of a fraction rationalised (95/24 = 570/144)",
        None,
        None,
    ),
    # times of day (checked by reading)
    (
        "math/math_test_5000.jsonl",
        "idx=429",
        "time_of_day",
        "9:00 a.m.",
        "9:00 p.m.",
        "a time with minutes; wrong: the other half of the day",
        "text",
        "text",
    ),
    (
        "math/math_test_5000.jsonl",
        "idx=3770",
        "time_of_day",
        "1:03",
        "1:30",
        "the time in the h:mm form the problem asks for, without PM; wrong: digits swapped",
        "text",
        "text",
    ),
    (
        "math/math_test_5000.jsonl",
        "idx=3881",
        "time_of_day",
        "16:30",
        "14:30",
        "the afternoon time on a 24-hour clock; wrong: two hours early",
        "text",
        "text",
    ),
]


# ----------------------------------------------------------------------------------------- responses

_PRE = [
    "Let's work through this step by step.\n\nFirst we set up the relations given in the problem and simplify them.",
    "We start by writing down what is known and what we need.\n\nAfter simplifying, the computation below gives the result.",
    "I'll solve this carefully.\n\nStep 1: translate the conditions into equations.\nStep 2: solve and check the result against the conditions.",
    "To solve the problem, we organise the information and compute the requested quantity directly.",
    "Let me think about the structure first, then compute.\n\nChecking the small cases separately confirms the pattern.",
]
_STYLES = ("boxed", "answer_is", "final_heading", "prose", "think", "answer_colon")


def render(answer: str, *, math: bool, style: str, h: int) -> str:
    pre = _PRE[h % len(_PRE)]
    a = f"${answer}$" if math else answer
    end = "" if a.endswith(".") else "."
    if style == "boxed":
        return f"{pre}\n\nTherefore, the final answer is $\\boxed{{{answer}}}$."
    if style == "answer_is":
        return f"{pre}\n\nThe answer is {a}{end}"
    if style == "final_heading":
        return f"{pre}\n\n**Final Answer**\n\n\\[\n\\boxed{{{answer}}}\n\\]"
    if style == "prose":
        if not math and answer[:1].isupper() and answer.endswith("."):
            return f"{pre}\n\n{answer}"
        lead = [
            "So the result is",
            "Putting it all together, we get",
            "This gives",
            "Hence the quantity asked for is",
        ][h % 4]
        return f"{pre}\n\n{lead} {a}{end}"
    if style == "think":
        return f"<think>\nOkay, let me set this up and compute carefully, then double-check.\n</think>\n\n{pre}\n\n**Answer:** {a}"
    if style == "answer_colon":
        return f"{pre}\n\nAnswer: {a}"
    raise ValueError(style)


# ----------------------------------------------------------------------------------------- checking a pair


# forms whose written text latex2sympy does not read as one value (lists joined by "or", assignments): the twin
# is checked, and the text was read
_NO_DIRECT = {
    "solutions_as_or",
    "solution_set_membership",
    "function_notation",
    "solutions_as_assignments",
    "tuple_as_assignments",
    "vector_as_tuple",  # latex2sympy reads a pair (a, b) as an open interval
    "tuple_inline_fractions",
    "repeating_decimal",  # latex2sympy has no \overline; the decimal is checked as a geometric series
}


def check(c: Cand, gold: str) -> tuple[bool, str]:
    """(ok, how): the correct form equals the gold, the wrong form does not."""
    sp = _sp()
    if c.kind in ("text", "choice") or c.c_twin == "text":
        return (c.correct.strip().lower() != c.wrong.strip().lower(), "reading")
    if c.kind == "base":
        sign, digits, base = c.c_twin
        ws, wd, wb = c.w_twin
        m = re.fullmatch(r"(-?)([0-9A-Z]+)_\{?(\d+)\}?", gold.strip())
        gv = int(m.group(2), int(m.group(3))) * (-1 if m.group(1) else 1)
        cv = int(digits, base) * (-1 if sign else 1)
        wv = int(wd, wb) * (-1 if ws else 1)
        return (gv == cv and wv != gv, "base value")
    if c.kind == "relations" or (isinstance(c.c_twin, str) and c.c_twin.startswith("relations:")):
        var = c.gold_twin if c.kind == "relations" else c.c_twin.split(":")[1]
        g = value(gold.replace("x \\in", "").replace("x\\in", ""))
        if c.kind == "relations":
            cs, ws = relation_set(c.c_twin, var), relation_set(c.w_twin, var)
        else:
            cs = relation_set(c.correct.split("\\text{ or }"), var)
            ws = relation_set(c.wrong.split("\\text{ or }"), var)
        return (equal(g, cs) and not equal(g, ws), "sympy sets")
    g = (
        value(c.gold_twin)
        if isinstance(c.gold_twin, str)
        else (c.gold_twin if c.gold_twin is not None else value(gold))
    )
    ct = (
        value(c.c_twin)
        if isinstance(c.c_twin, str)
        else (c.c_twin if c.c_twin is not None else value(c.correct))
    )
    wt = (
        value(c.w_twin)
        if isinstance(c.w_twin, str)
        else (c.w_twin if c.w_twin is not None else value(c.wrong))
    )
    how = "sympy"
    if c.gold_twin is not None and not isinstance(c.gold_twin, sp.Basic):
        pass
    # the written text itself, where it parses, must agree with its twin
    if c.c_twin is not None and c.math and c.category not in _NO_DIRECT:
        try:
            direct = value(c.correct)
            if not equal(direct, ct):
                return (False, "written correct text disagrees with its twin")
            how = "sympy (text and twin)"
        except Exception:
            how = "sympy (twin)"
    if isinstance(ct, sp.Equality) and not isinstance(g, sp.Equality):
        ct = ct.rhs
    if isinstance(wt, sp.Equality) and not isinstance(g, sp.Equality):
        wt = wt.rhs
    if isinstance(g, sp.Equality) and isinstance(ct, sp.Equality):
        return (equation_equal(g, ct) and not equation_equal(g, wt), "sympy equation up to a factor")
    if isinstance(g, sp.Equality) and not isinstance(ct, sp.Equality):
        g = g.rhs
    return (equal(g, ct) and not equal(g, wt), how)


# ----------------------------------------------------------------------------------------- build

GENERATORS: list[tuple[str, Callable[..., list[Cand]]]] = []


def candidates(p: dict[str, Any], h: int) -> list[Cand]:
    out = _candidates(p, h)
    for fn in (gen_unicode, gen_function):
        with contextlib.suppress(Exception):
            out += fn(p, p["gold"].strip(), h)
    return out


# a number with digit groups (1,000 / 10,\!080 / 111, \! 111), not a list of numbers
_THOUSANDS = r"-?\d{1,3}(?:(?:,\s*\\!\s*|,)\d{3})+(?:\.\d+)?"


def _candidates(p: dict[str, Any], h: int) -> list[Cand]:
    sp = _sp()
    g = p["gold"].strip()
    out: list[Cand] = []
    for fn in (gen_choice, gen_text, gen_units_gold, gen_misc):
        with contextlib.suppress(Exception):  # a generator that cannot read this gold makes no pair
            out += fn(p, g, h)
    if out:
        return out
    if re.search(r"[:;]|\\approx|\\ldots|\\dots|\\text\{\s*(?:or|and)\s*\}", g):
        return []  # ratios, times, approximations, enumerations: latex2sympy would read a part of them
    for t in re.findall(r"\\(?:text|mbox|mathrm)\s*\{([^{}]*)\}", g):
        if t.strip() and not re.fullmatch(r"\s*(?:" + _UNIT_WORDS + r")\s*", t):
            return []  # "9 a.m.", "10 edges": the words are part of the answer, not a unit to drop
    if re.search(r"\\circ|degrees", g):
        try:
            v = value(g)
            fr = as_fraction(v)
            if fr is not None:
                return gen_degrees(p, fr, h)
        except Exception:
            return []
        return []
    if "matrix" in g:
        return gen_matrix(p, g, h)
    if "infty" in g or (
        re.fullmatch(r"\s*(?:x\s*\\in\s*)?(?:\\left)?[\[(].*[\])]\s*", g)
        and ("]" in g or "[" in g or "\\cup" in g)
    ):
        r = gen_interval(p, g, h)
        if r:
            return r
    if "\\sqrt" in g:
        r = gen_sqrt(p, g, h)
        if r:
            return r
    if re.fullmatch(_THOUSANDS, g):
        try:
            return gen_integer(p, int(value(g)), h)
        except (TypeError, ValueError):
            return []
    if "," in g or "\\pm" in g:
        r = gen_tuple(p, g, h) if g.lstrip().startswith(("(", "\\left(")) else []
        return r or gen_list(p, g, h)
    try:
        v = value(g)
    except Exception:
        return []
    if isinstance(v, sp.Expr) and not v.free_symbols:
        fr = as_fraction(v)
        if fr is not None and fr.denominator == 1:
            return gen_integer(p, int(fr), h)
        if fr is not None:
            return gen_fraction(p, fr, h)
        return []
    if isinstance(v, sp.Expr):
        return gen_symbolic(p, g, h)
    return []


_UNI = (("\\cdot", "·"), ("\\pi", "π"), ("\\times", "×"))


def to_unicode(tex: str) -> str | None:
    """Plain-text math a chat model writes: ``2\\sqrt{3}`` as ``2√3``, ``\\frac{3\\pi}{4}`` as ``3π/4``, a leading
    minus as U+2212. None when the LaTeX has anything else in it."""
    t = tex.strip().replace("\\dfrac", "\\frac")
    t = re.sub(r"\\sqrt\s*\{(\d+)\}", r"√\1", t)
    t = re.sub(r"\\sqrt\s*(\d)", r"√\1", t)
    for a, b in _UNI:
        t = t.replace(a, b)

    def frac(m: re.Match[str]) -> str:
        num, den = m.group(1).strip(), m.group(2).strip()
        num = f"({num})" if re.search(r"[+\-\s]", num) else num
        den = f"({den})" if re.search(r"[+\-\s·]", den) else den
        return f"{num}/{den}"

    t = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", frac, t)
    t = re.sub(r"\s+", " ", t).strip()
    if "\\" in t or "{" in t or "}" in t:
        return None
    if t.startswith("-"):
        t = "−" + t[1:]
    return t


def from_unicode(t: str) -> str:
    """The inverse of :func:`to_unicode`, for the check (LaTeX latex2sympy reads)."""
    t = t.replace("−", "-")
    t = re.sub(r"√(\d+)", r"\\sqrt{\1}", t)
    for a, b in _UNI:
        t = t.replace(b, a + " ")
    return t


def gen_unicode(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    if not re.search(r"\\sqrt|\\pi", gold) or re.search(r"\\(?!sqrt|pi|frac|dfrac|cdot)[a-zA-Z]", gold):
        return []
    c = to_unicode(gold)
    if not c or ("√" not in c and "π" not in c):
        return []
    # wrong: a radicand one more (skipping squares), else a denominator one more, else a coefficient one more
    m = (
        re.search(r"\\sqrt\s*\{(\d+)\}", gold)
        or re.search(r"\\frac\{[^{}]*\}\{(\d+)\}", gold)
        or re.search(r"(\d+)", gold)
    )
    if not m:
        return []
    k = int(m.group(1)) + 1
    while "sqrt" in m.group(0) and math.isqrt(k) ** 2 == k:
        k += 1
    wtex = gold[: m.start(1)] + str(k) + gold[m.end(1) :]
    w = to_unicode(wtex)
    if not w:
        return []
    return [
        Cand(
            "unicode_math",
            c,
            w,
            "plain-text math with √, π, a/b and a unicode minus; checked by reading it back into LaTeX",
            math=False,
            c_twin=from_unicode(c),
            w_twin=from_unicode(w),
        )
    ]


_FIND_FN = re.compile(
    r"(?:[Ff]ind|[Dd]etermine|[Cc]ompute|[Ww]hat is|[Ee]xpress)\s+(?:the\s+\w+\s+)?\$([a-zA-Z])\(([a-z])\)\s*[.,]?\s*\$"
)


def gen_function(p: dict[str, Any], gold: str, h: int) -> list[Cand]:
    """``p(x) = ...`` when the problem asks for $p(x)$; half of them with the argument renamed."""
    sp = _sp()
    m = _FIND_FN.search(p["problem"])
    if not m or "=" in gold or re.search(r"\\(?:text|mbox)|[a-zA-Z]\(", gold):
        return []
    fn, var = m.group(1), m.group(2)
    try:
        e = value(gold)
    except Exception:
        return []
    x = sp.Symbol(var)
    if not isinstance(e, sp.Expr) or e.free_symbols != {x}:
        return []
    terms = sp.Add.make_args(sp.expand(e))
    wrong = sp.expand(e) - 2 * terms[h % len(terms)] if len(terms) > 1 else 2 * e
    arg = var
    body, wbody = gold, sp.latex(wrong)
    if h % 2 and var != "t" and "t" not in gold:
        arg = "t"
        t = sp.Symbol("t")
        body, wbody = sp.latex(e.subs(x, t)), sp.latex(wrong.subs(x, t))
        assert _num_equal(value(body).subs(t, x), e)
    note = f"answered as {fn}({arg}) = ..." + (f" with the argument renamed from {var}" if arg != var else "")
    return [
        Cand(
            "function_notation",
            f"{fn}({arg}) = {body}",
            f"{fn}({arg}) = {wbody}",
            note + "; wrong: one term's sign",
            c_twin=e,
            w_twin=wrong,
        )
    ]


def split_of(source: str, ref: str) -> str:
    return "dev" if _h("split", source, ref) % 2 == 0 else "test"


def build(data: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    problems = load_problems(data)
    by_key = {(p["source"], p["ref"]): p for p in problems}
    dropped: Counter = Counter()
    how_counts: Counter = Counter()
    chosen: list[tuple[dict[str, Any], Cand, str]] = []
    used: set[tuple[str, str]] = set()
    cat_count: Counter = Counter()
    # hand-written pairs first
    for source, ref, cat, cor, wr, note, ct, wt in HAND:
        p = by_key[(source, ref)]
        kind = "text" if ct == "text" else "value"
        c = Cand(
            cat,
            cor,
            wr,
            note,
            kind=kind,
            c_twin=ct,
            w_twin=wt,
            math=not (ct == "text" or "square" in cor or "cents" in cor or not cor.isascii()),
        )
        if ct == "text":
            c.style = "prose"
        ok, how = _safe_check(c, p["gold"])
        if not ok:
            raise SystemExit(f"hand-written pair fails its check: {source} {ref}: {how}")
        chosen.append((p, c, how + " (hand-written)"))
        used.add((source, ref))
        cat_count[cat] += 1
    # programmatic pairs: a fixed shuffle of the problems; per category a cap so no form dominates
    caps = {
        "prose_no_marker": 22,
        "number_word": 14,
        "assignment": 18,
        "decimal_trailing_zeros": 10,
        "units_in_words": 22,
        "thousands_separator": 10,
        "unevaluated_expression": 10,
        "currency": 16,
        "degrees_notation": 14,
    }
    default_cap = 10
    # a fixed shuffle, plain integers last (they are most of the golds and have the fewest forms)
    # competition and MATH-500 problems before the rest of MATH, GSM8K first among the integers
    rank = {"math/math500_test.jsonl": 1, "gsm8k/test.jsonl": 0, "math/math_test_5000.jsonl": 2}
    order = sorted(
        problems,
        key=lambda p: (
            bool(re.fullmatch(r"-?\d+", p["gold"].strip())),
            rank.get(p["source"], 0),
            _h(SEED, p["source"], p["ref"]),
        ),
    )
    per_source = Counter()
    source_caps = {"gsm8k/test.jsonl": 45, "aime_extra/aimo-validation-aime.jsonl": 6}
    for p in order:
        key = (p["source"], p["ref"])
        if key in used or per_source[p["source"]] >= source_caps.get(p["source"], 10**6):
            continue
        h = _h(p["source"], p["ref"])
        cands = candidates(p, h)
        cands = [c for c in cands if cat_count[c.category] < caps.get(c.category, default_cap)]
        if not cands:
            continue
        # the least used category first, ties by hash
        cands.sort(key=lambda c: (cat_count[c.category], _h(h, c.category, c.correct)))
        for c in cands:
            ok, how = _safe_check(c, p["gold"])
            if ok:
                chosen.append((p, c, how))
                used.add(key)
                cat_count[c.category] += 1
                per_source[p["source"]] += 1
                how_counts[how] += 1
                break
            dropped[c.category] += 1
            if os.environ.get("HARD_DEBUG"):
                print("drop", c.category, p["gold"], "|", c.correct, "|", c.wrong, "|", how, file=sys.stderr)
    rows: list[dict[str, Any]] = []
    for n, (p, c, how) in enumerate(sorted(chosen, key=lambda t: (t[0]["source"], t[0]["ref"]))):
        h = _h(p["source"], p["ref"], "style")
        style = c.style or _STYLES[h % len(_STYLES)]
        if style == "prose" and c.math is False and not c.correct[:1].isupper():
            pass
        split = split_of(p["source"], p["ref"])
        for correct, ans in ((True, c.correct), (False, c.wrong)):
            rows.append(
                {
                    "id": f"ha{n:04d}-{'c' if correct else 'w'}",
                    "split": split,
                    "source": p["source"],
                    "problem_ref": p["ref"],
                    "gold": p["gold"],
                    "response": render(ans, math=c.math, style=style, h=h),
                    "answer": ans,
                    "correct": correct,
                    "category": c.category,
                    "note": f"{c.note}; check: {how}",
                }
            )
    stats = {"pairs": len(chosen), "dropped_candidates": dict(dropped), "checks": dict(how_counts)}
    return rows, stats


def _safe_check(c: Cand, gold: str) -> tuple[bool, str]:
    try:
        return check(c, gold)
    except Exception as exc:
        return (False, f"check raised {type(exc).__name__}: {exc}"[:120])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="rebuild in memory and compare with the file")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    data = data_dir()
    if data is None:
        print("hard_answers_build: ../shared/data not found; nothing built")
        return 0
    rows, stats = build(data)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if args.check:
        same = Path(args.out).read_text(encoding="utf-8") == text
        print("up to date" if same else "differs")
        return 0 if same else 1
    Path(args.out).write_text(text, encoding="utf-8")
    cats = Counter(r["category"] for r in rows if r["correct"])
    splits = Counter(r["split"] for r in rows if r["correct"])
    print(
        json.dumps(
            {**stats, "rows": len(rows), "splits": dict(splits), "categories": dict(sorted(cats.items()))},
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Normalising a math answer string and reading its structure, for :mod:`rewardloop.scorers.math_equiv`.

Pure string work: no sympy, no ``eval``. :func:`normalize` removes presentation that never changes the
value (math delimiters, ``\\left``/``\\right``, spacing commands, ``\\dfrac``, ``\\text{}`` wrappers,
markdown bold, degree signs, percent and dollar signs, thousands separators, trailing units and
periods). :func:`parse_structure` then reads the normalised string as a tree of :class:`Node` (number,
tuple / interval, set, unordered list, matrix, equation, inequality, multiple-choice letter, text, or
an expression left for the symbolic stage), and :func:`exact_number` gives the exact value of a
plain number (integers, decimals, fractions, mixed numbers, scientific notation).

Limits: this is a normaliser for *final answers* (MATH's longest gold answer has 159 characters);
inputs longer than :data:`MAX_ANSWER_CHARS` are not normalised beyond whitespace.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ._equiv_units import lookup as lookup_unit
from ._equiv_units import unit_size
from ._words import ONES, TENS

__all__ = [
    "MAX_ANSWER_CHARS",
    "Interval",
    "Node",
    "convert_unit",
    "exact_number",
    "float_value",
    "linear_form",
    "normalize",
    "number_word",
    "parse_structure",
    "solve_inequality",
    "split_top",
    "unit_target",
]

MAX_ANSWER_CHARS = 1000

_DELIMS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_DROP = (
    "\\displaystyle", "\\left", "\\right", "\\bigl", "\\bigr", "\\Bigl", "\\Bigr", "\\big", "\\Big",
    "\\!", "\\,", "\\;", "\\:", "\\quad", "\\qquad", "\\limits", "\\middle",
)  # fmt: skip
_REPLACE = (
    ("\\dfrac", "\\frac"), ("\\tfrac", "\\frac"), ("\\cfrac", "\\frac"), ("\\dbinom", "\\binom"),
    ("\\tbinom", "\\binom"), ("\\infinity", "\\infty"),
    ("\u221e", "\\infty"), ("\u03c0", "\\pi"), ("\u2212", "-"), ("\u00d7", "\\times"), ("\u00b7", "\\cdot"),
    ("\u2264", "\\le"), ("\u2265", "\\ge"), ("\\leqslant", "\\le"), ("\\geqslant", "\\ge"),
    ("\\leq", "\\le"), ("\\geq", "\\ge"), ("\\neq", "\\ne"), ("\\lbrace", "\\{"), ("\\rbrace", "\\}"), ("\\lbrack", "["),
    ("\\rbrack", "]"), ("\\langle", "("), ("\\rangle", ")"), ("\u27e8", "("), ("\u27e9", ")"), ("\\lvert", "|"), ("\\rvert", "|"), ("\\vert", "|"), ("\\emptyset", "\\varnothing"),
    ("\\mathbb{R}", "\\R"), ("\\bmatrix", "\\pmatrix"), ("\\lg ", "\\log_{10} "), ("\\lg(", "\\log_{10}("), ("\\bmod", "\\mod"),
    ("\\operatorname{lcm}", "\\lcm"), ("\\operatorname{gcd}", "\\gcd"),
    ("\u222a", "\\cup"), ("\u2229", "\\cap"), ("\u2208", "\\in"), ("\u2260", "\\ne"), ("\u00b1", "\\pm"),
    ("\u2213", "\\mp"), ("\u221a", "\\sqrt"), ("\u22c5", "\\cdot"), ("\\mathbb R", "\\R"),
    ("\\Bbb{R}", "\\R"), (">=", "\\ge"), ("<=", "\\le"), ("!=", "\\ne"), ("\\colon", ":"), ("\u2236", ":"),
    ("\u2215", "/"),
)  # fmt: skip
# font-size and math-style switches change how an answer looks, never what it is ("\\boxed{\\large 5}")
_SIZES = re.compile(
    r"\\(?:tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge|textstyle|scriptstyle"
    r"|scriptscriptstyle)(?![A-Za-z])\s*(?:\{([^{}]*)\})?"  # "\\large{7}": the group is the answer
)
_WRAPPERS = re.compile(
    r"\\(?:boxed|fbox|text|textbf|textit|textrm|mathrm|mathbf|mathit|mbox|operatorname|boldsymbol|mathsf|mathnormal|textnormal|textsf|textup)\s*\{"
)
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\u00b0|\\degree")
_PERCENT = re.compile(r"\\?%|\\percent\b|\s*(?:percent(?:age)?|pct)\b")
#: a temperature's scale after a value, dropped like a unit ("5^\\circ C", "5^{\\circ}\\text{F}", "5\u2103")
_TEMPERATURE_TAIL = re.compile(
    r"(?<=[\d}])\s*(?:(?:\^\s*\{?\s*\\circ\s*\}?|\u00b0|\\degree)\s*(?:\\(?:text|mathrm|rm)\s*\{\s*[CF]\s*\}|[CF])"
    r"|[\u2103\u2109])\s*\.?\s*$"
)
_INDIAN_GROUPS = re.compile(r"^-?\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?$")
_RATIO_TO = re.compile(r"^\s*(\d+(?:\.\d+)?)\s+to\s+(\d+(?:\.\d+)?)\s*$")
_FRACTION_SLASH = re.compile(
    "([0-9]+|[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)\u2044([0-9]+|[\u2080-\u2089]+)(?![0-9\u2080-\u2089])"
)


def _vulgar_fractions(text: str) -> str:
    """Unicode fractions as ``\\frac``: a vulgar fraction character by its Unicode numeric value (``½``, ``⅞``;
    after digits a mixed number, ``5½`` is ``5\\frac{1}{2}``), and digits around the fraction slash U+2044
    (``5⁄7``, ``¹⁄₂``). A character without a numeric value (``⅟``, "fraction numerator one") is left as is."""
    if "\u2044" in text:
        text = _FRACTION_SLASH.sub(
            lambda m: (
                "\\frac{"
                + unicodedata.normalize("NFKC", m.group(1))
                + "}{"
                + unicodedata.normalize("NFKC", m.group(2))
                + "}"
            ),
            text,
        )
    out = []
    for ch in text:
        if ch.isascii() or ch.isdigit() or unicodedata.category(ch) != "No":
            out.append(ch)
            continue
        value = unicodedata.numeric(ch, None)
        if value is None or value == int(value):
            out.append(ch)
            continue
        frac = Fraction(value).limit_denominator(1000)
        if abs(float(frac) - value) > 1e-12:
            out.append(ch)
            continue
        out.append(f"\\frac{{{frac.numerator}}}{{{frac.denominator}}}")
    return "".join(out)


def pi_multiple(norm: str) -> Fraction | None:
    """The rational ``q`` when a normalised answer is plain arithmetic equal to ``q`` times pi (``\\frac{\\pi}{2}``,
    ``\\frac{3\\pi}{4}``, ``2\\pi/3``), with a denominator of at most 720; None otherwise (no pi, ``\\pi + 1``,
    ``\\pi^2``)."""
    if "\\pi" not in norm:
        return None
    once, twice = float_value(norm), float_value(norm.replace("\\pi", "(2\\pi)"))
    if once is None or twice is None or once == 0 or abs(twice - 2 * once) > 1e-12 * abs(once):
        return None  # not homogeneous of degree one in pi
    q = Fraction(once / math.pi).limit_denominator(720)
    return q if abs(float(q) * math.pi - once) <= 1e-12 * abs(once) else None


def ratio_terms(norm: str) -> list[Fraction] | None:
    """The terms of a ratio of numbers (``3:2`` is [3, 2], ``1:2:3`` three terms), or None when ``norm`` is
    not one (no ``:``, or a term that is not a number)."""
    if ":" not in norm:
        return None
    terms = [exact_number(t) for t in norm.split(":")]
    if len(terms) < 2 or any(t is None for t in terms):
        return None
    return [t for t in terms if t is not None]


#: the notations of a count that denote one integer: combinations and the double factorial
_COMBINATION = re.compile(
    r"^(?:C\((\d{1,4}),(\d{1,4})\)|\\binom\{(\d{1,4})\}\{(\d{1,4})\}|(?:\{\})?[\^_]\{?(\d{1,4})\}?C_\{?(\d{1,4})\}?"
    r"|(\d{1,4})C(\d{1,4}))$"
)
_DOUBLE_FACTORIAL = re.compile(r"^(\d{1,3})!!$")


def counting_value(norm: str) -> int | None:
    """The integer a normalised answer denotes when it is a count written in a notation of its own: a
    combination (``C(5,2)``, ``\\binom{5}{2}``, ``^5C_2``, ``_5C_2``, ``5C2``: 10) or a double factorial
    (``5!!`` = 15); None for anything else. ``C_5^2`` and ``C^5_2`` are refused (which index is which differs
    between conventions), and so is ``5!!!``. Read only against an integer gold, so ``C(5,2)`` the point keeps
    its meaning."""
    m = _COMBINATION.match(norm)
    if m is not None:
        n, k = (int(g) for g in m.groups() if g is not None)
        return math.comb(n, k)
    d = _DOUBLE_FACTORIAL.match(norm)
    if d is not None:
        n, out = int(d.group(1)), 1
        for i in range(n, 0, -2):
            out *= i
        return out
    return None


_THOUSANDS = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_GROUP_SEP = re.compile(r"(?<=\d)(?:\{,\}|\\,|\\ |~)(?=\d{3}(?!\d))")
_MD_BOLD = re.compile(r"^\*\*(.+)\*\*$|^__(.+)__$", re.DOTALL)
#: trailing words that name a unit or a count noun (only removed after a mathematical value)
_UNIT_WORDS = (
    "units?|square units?|sq\\.? units?|cubic units?|degrees?|radians?|cm|centimeters?|mm|millimeters?|km|"
    "kilometers?|m|meters?|metres?|inch(?:es)?|in|feet|foot|ft|yards?|yd|miles?|mi|mph|km/h|seconds?|secs?|s|"
    "minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|dollars?|cents?|euros?|pounds?|lbs?|kg|g|grams?|"
    "kilograms?|ounces?|oz|liters?|litres?|l|ml|gallons?|cups?|people|persons?|students?|points?|ways?|times|"
    "apples|books|cookies|pages|marbles|boxes|cars|tickets|eggs|items|pieces|numbers|integers|digits|"
    "sq\\.?\\s*(?:ft|m|cm|in)|square (?:feet|meters|inches|centimeters|miles|yards)|cubic (?:feet|meters|inches|centimeters)"
)
# a unit is only removed when separated from the value by a space (so that "2h" stays a product)
_TRAILING_UNITS = re.compile(
    rf"(?<=[\d\}})])\s+(?-i:(?![MB]\s*$))(?:{_UNIT_WORDS})(?:\s*\^\s*\{{?[23]\}}?)?\s*$", re.I
)
_INF = re.compile(r"\\inf(?!ty)\b|(?<![\\a-zA-Z])inf(?:inity)?(?![a-zA-Z])")
# "or"/"and" between two answers: spaced, or unspaced after a value and before the next one ("1orW(x)=-1",
# "x=1orx=-1", "(1,2)or(3,4)"); never inside a word ("10orders")
_OR_AND = re.compile(
    r"\s+(?:or|and)\s+|(?<=[\d)\]}])(?:or|and)(?=[-+\d(A-Z\\]|[a-z](?![a-z]))"
    r"|\\(?:text|mbox)\{\s*(?:or|and)\s*\}"
)
_LEADING_UNIT_WORD = re.compile(r"^(?:\\\$|\$|USD\s*)")
_SQRT_BARE = re.compile(r"\\sqrt\s*(\[[^\[\]{}]*\])?\s*([0-9a-zA-Z])")
_TRIG_DEGREES = re.compile(
    r"\\(sin|cos|tan|cot|sec|csc)\s*\(?\s*(\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\\circ\s*\}?|\u00b0|\\degree)\s*\)?"
)
_FRAC_BARE = re.compile(r"\\frac\s*([0-9a-zA-Z])\s*([0-9a-zA-Z])")
_FRAC_HALF_BARE = re.compile(r"\\frac\s*([0-9a-zA-Z])\s*(?=\{)")
# "\\frac{\\sqrt3}2": a braced numerator (one level of nesting) and a bare one-character denominator
_FRAC_DEN_BARE = re.compile(r"\\frac\s*(\{(?:[^{}]|\{[^{}]*\})*\})\s*([0-9a-zA-Z])")
_SPACES = re.compile(r"\s+")
# "√10", "√2.5", "√(x+1)", "√{3}": the radicand of a unicode root sign written as plain text
_UNICODE_ROOT = re.compile(r"\u221a\s*(?:(\d+(?:\.\d+)?)|\(([^()]*)\))")
# a bare one-character script followed by a space ("\\int_0^1 2x"): braced before spaces are removed, so it
# never runs into the next digit ("^12x")
_SCRIPT_BEFORE_SPACE = re.compile(r"([\^_])\s*([0-9A-Za-z])(?=\s)")
_PHANTOM_GROUP = re.compile(r"\\[hv]?phantom\s*\{(?:[^{}]|\{[^{}]*\})*\}")
_TEXT_ONLY = re.compile(r"\\(?:text|mathrm|mbox)\s*\{([^{}]*)\}")
_CLOCK = re.compile(r"^\s*(\d{1,2}):([0-5]\d)\s*(?:([AaPp])\.?\s*[Mm]\.?)?\s*$")
# a doubly escaped command (two backslashes before ``frac``: JSON or a Python string escaped twice) is the
# command itself; not inside environments, where two backslashes end a matrix row
_DOUBLE_ESCAPE = re.compile(
    r"\\\\(?=(?:left|right|frac|dfrac|tfrac|sqrt|pi|infty|boxed|cdot|times|text|le|ge|pm)(?![a-z]))"
)
_TRAILING_BACKSLASH = re.compile(r"(?<!\\)\\$")
_UNARY_PLUS_INF = re.compile(r"(^|[(\[,])\+(?=\\infty)")
_LOG = re.compile(r"\\log(?![A-Za-z_])")  # \log without a base is the natural log in final answers
# "x \in [a, b]" / "\lambda\in(0,1)": the variable and "\in" only name the set
_IN_PREFIX = re.compile(r"^(?:[A-Za-z]|\\[a-z]+)(?:_\{?\w+\}?)?\\in(?![a-z])")


def normalize(text: str) -> str:
    """The answer with its presentation removed; whitespace-free except inside text words."""
    if not isinstance(text, str):
        return ""
    return _normalize(text) if len(text) <= MAX_ANSWER_CHARS else _SPACES.sub("", text.strip())


@lru_cache(maxsize=8192)  # a GRPO group shares its ground truth, and models repeat their answers
def _normalize(text: str) -> str:
    if not text.isascii():
        text = _vulgar_fractions(text)
        text = _fold_digits(text)
        if "\u221a" in text:  # plain-text "8√10" is 8 sqrt(10) (LaTeX "\\sqrt10" is sqrt(1) 0)
            text = _UNICODE_ROOT.sub(_unicode_root, text)
    s = text if "\\begin" in text else _DOUBLE_ESCAPE.sub(r"\\", text)
    s = _TRAILING_BACKSLASH.sub("", s.strip()).strip()
    if len(s) > MAX_ANSWER_CHARS:
        return _SPACES.sub("", s)
    prev = None
    while prev != s:  # "**$4$**", "$**4**$" and '"$4$"' alike
        prev = s
        s = _strip_delims(_strip_markdown(_strip_quotes(s)))
    words = _TEXT_ONLY.sub(r"\1", s).strip()
    if " and " in words and words[:1].isalpha():  # "one hundred and two", before "and" joins two answers
        spelled = number_word(words)
        if spelled is not None:
            return str(spelled)
    ratio = _RATIO_TO.match(words) if " to " in words else None
    if ratio:  # "3\text{ to }2", "\text{3 to 2}": the ratio 3:2
        return f"{ratio.group(1)}:{ratio.group(2)}"
    clock = _CLOCK.match(words)
    if clock:  # "4:30 \text{ p.m.}", "\text{4:30 p.m.}", "4:30 PM": one spelling of a time of day
        hours, minutes, half = clock.groups()
        return f"{int(hours)}:{minutes}" + (f"\\text{{{half.lower()}m}}" if half else "")
    if "phantom" in s:  # "\\hphantom{7}5": space the size of 7, nothing shown
        s = _PHANTOM_GROUP.sub(" ", s)
    s = s.replace("\\\\", "\x01")  # matrix row separators survive the spacing rules below
    if (
        s.startswith("\\") and s[1:2].isdigit()
    ):  # "\\15": no TeX command starts with a digit; a "\\$" lost its "$"
        s = s[1:]
    if _SPACED_DIGITS.search(s):
        s = _SPACED_DIGITS.sub(_spaced_digits, s)
    for token in _DROP:
        s = s.replace(token, " ")
    if "^" in s or "_" in s:
        s = _SCRIPT_BEFORE_SPACE.sub(r"\1{\2}", s)
    if "\\choose" in s:
        s = _choose(s)
    if "\\(" in s or "\\)" in s:  # "\\(x = 5\\) and \\(x = -2\\)": inline-math delimiters inside an answer
        s = s.replace("\\(", " ").replace("\\)", " ")
    if any(w in s for w in ("style", "size", "arge", "ARGE", "tiny", "small", "uge")):
        s = _SIZES.sub(lambda m: f" {m.group(1) or ''} ", s)
    for old, new in _REPLACE:
        s = s.replace(old, new)
    s = _INF.sub(r"\\infty", s)
    if "\\circ" in s or "\u00b0" in s:  # "\\sin 30^\\circ" is sin(pi/6): degrees inside a trig function
        s = _TRIG_DEGREES.sub(lambda m: f"\\{m.group(1)}(\\frac{{{m.group(2)}\\pi}}{{180}})", s)
    if (
        "\\circ" in s or "\u00b0" in s or "\u2103" in s or "\u2109" in s
    ):  # "5^\\circ C", "5\u2103": a temperature
        s = _TEMPERATURE_TAIL.sub("", s)
    if "\\pi" not in s or not _DEGREES.search(s):  # "\\frac{\\pi}{6}^\\circ" is no radian measure: kept
        s = _DEGREES.sub("", s)
    s = _magnitude(s)
    s = _PERCENT.sub("", s)
    s = s.replace("\\$", "").replace("$", "")
    s = _or_and(s).strip().rstrip(".").strip()
    s = _strip_units(s)
    s = _unwrap(s)
    s = _strip_units(s)
    if "base" in s or "_{" in s:
        s = _based(s)
    s = s.replace("\\ ", " ").replace("~", " ")
    s = _or_and(s)
    s = _GROUP_SEP.sub("", s)
    s = _SQRT_BARE.sub(lambda m: f"\\sqrt{m.group(1) or ''}{{{m.group(2)}}}", s)
    s = _FRAC_BARE.sub(r"\\frac{\1}{\2}", s)
    s = _FRAC_HALF_BARE.sub(r"\\frac{\1}", s)
    s = _FRAC_DEN_BARE.sub(r"\\frac\1{\2}", s)
    s = s.strip().rstrip(".").strip()
    s = _strip_outer_braces(s)
    s = _LOG.sub(r"\\ln", s)
    compact = _compact(s).replace("\x01", "\\\\")
    compact = _IN_PREFIX.sub("", _UNARY_PLUS_INF.sub(r"\1", compact))
    s = s.replace("\x01", "\\\\")
    if _THOUSANDS.match(compact) and not re.search(
        r",(?!\s*\\!)\s", text
    ):  # "32, 349" is a list; "111, \\! 111" no
        return compact.replace(",", "")
    if "," in compact and _INDIAN_GROUPS.match(compact) and not re.search(r",\s", text):
        return compact.replace(",", "")  # "1,00,000": Indian grouping (lakh, crore), never a Western one
    if re.search(r"[A-Za-z]{2,}\s+[A-Za-z]", s) and "\\" not in s:
        return _SPACES.sub(" ", s).strip()  # prose answers keep word boundaries
    return compact


def _unicode_root(m: re.Match[str]) -> str:
    return "\\sqrt{" + (m.group(1) if m.group(1) is not None else m.group(2)) + "}"


_CHOOSE_GROUP = re.compile(r"\{([^{}]*)\\choose([^{}]*)\}")


def _choose(s: str) -> str:
    """``{n \\choose k}`` (TeX's primitive form) as ``\\binom{n}{k}``; a bare ``n \\choose k`` too when it is the
    whole answer."""
    s = _CHOOSE_GROUP.sub(lambda m: "\\binom{" + m.group(1).strip() + "}{" + m.group(2).strip() + "}", s)
    if s.count("\\choose") == 1 and "{" not in s:
        n, k = s.split("\\choose")
        if n.strip() and k.strip():
            return "\\binom{" + n.strip() + "}{" + k.strip() + "}"
    return s


#: words and suffixes that scale the number before them (never dropped as units: "5 thousand" is 5000)
_MAGNITUDES = {
    "hundred": 2, "thousand": 3, "million": 6, "billion": 9, "trillion": 12, "lakh": 5, "lakhs": 5,
    "crore": 7, "crores": 7, "\u5343": 3, "\u4e07": 4, "\u842c": 4, "\u4ebf": 8, "\u5104": 8,
    "k": 3, "bn": 9, "mn": 6,
}  # fmt: skip
_MAGNITUDE = re.compile(
    r"^([+-]?\d+(?:\.\d+)?)\s*(?:\\(?:text|mathrm|mbox|textrm)\s*\{\s*([A-Za-z]+|[\u4e00-\u9fff])\s*\}"
    r"|\s([A-Za-z]{2,})|([\u4e00-\u9fff]))\s*\.?$"
)


def _magnitude(s: str) -> str:
    """``5\\text{ thousand}``, ``2.5 million``, ``5\\text{k}``, ``3万`` as ``5\\times10^{3}`` ...: a magnitude word or
    suffix multiplies the number (it is no unit to drop). A bare ``5k`` stays a product with ``k``."""
    m = _MAGNITUDE.match(s)
    if m is None:
        return s
    word = m.group(2) or m.group(3) or m.group(4)
    power = (
        _MAGNITUDES.get(word)
        if word in ("k", "bn", "mn") or len(word) == 1
        else _MAGNITUDES.get(word.lower())
    )
    if power is None or (m.group(3) and word == "k"):
        return s
    return f"{m.group(1)}\\times10^{{{power}}}"


_BASE_NAMES = {
    w: i + 2
    for i, w in enumerate(
        [
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
        ]
    )
}
# "204 (base 5)", "204 base 5", "2516_{eight}", "52_{(8)}": a numeral and the base it is written in
_BASE_WRITTEN = re.compile(
    r"^([0-9A-Za-z]+?)\s*(?:\(\s*base[\s-]*([a-z]+|\d{1,2})\s*\)|\s+in\s+base[\s-]*([a-z]+|\d{1,2})"
    r"|\s+base[\s-]*([a-z]+|\d{1,2})|_\{\s*\(?\s*([a-z]+|\d{1,2})\s*\)?\s*\})$",
    re.IGNORECASE,
)


def _based(s: str) -> str:
    """A numeral with its base written out, as ``digits_{base}`` (read by :func:`base_numeral`)."""
    m = _BASE_WRITTEN.match(s.strip())
    if m is None:
        return s
    digits = m.group(1)
    name = next(g for g in m.groups()[1:] if g is not None).lower()
    base = int(name) if name.isdigit() else _BASE_NAMES.get(name)
    if base is None or not digits[0].isdigit():
        return s
    return f"{digits}_{{{base}}}"


_DIGIT_SPACE = r"(?:\s|\\quad|\\qquad|\\[,;: ]|~)+"
# digits separated by spacing, not part of a decimal, a fraction, or a mixed number ("3 1/2")
_SPACED_DIGITS = re.compile(rf"(?<![\d.,/^_])\d+(?:{_DIGIT_SPACE}\d+)+(?![\d.,/])")
_GROUPED = re.compile(rf"^\d{{1,3}}(?:{_DIGIT_SPACE}\d{{3}})+$")


def _spaced_digits(m: re.Match[str]) -> str:
    """``1\\,000`` and ``12 345`` are one number (a thousands grouping); ``2\\quad 3`` is two (``2,3``)."""
    text = m.group(0)
    if _GROUPED.match(text):
        return re.sub(_DIGIT_SPACE, "", text)
    return re.sub(_DIGIT_SPACE, ",", text)


def _fold_digits(text: str) -> str:
    """Digits of other forms as ASCII digits when they are the same glyph (full-width ``５``, styled ``𝟓``:
    their NFKC form is the ASCII digit); digits of other scripts (Arabic-Indic ``٥``, Devanagari ``५`` ...)
    as a ``\\scriptdigit{}`` token that equals only itself: Python reads them as numbers, a reader does not."""
    out = []
    script = ""  # the open superscript ("^") or subscript ("_") run
    for ch in text:
        mark = "^" if ch in _SUPERSCRIPTS else "_" if ch in _SUBSCRIPTS else ""
        if mark != script:
            if script:
                out.append("}")
            if mark:
                out.append(mark + "{")
            script = mark
        if mark:  # "2⁵" is 2^{5}, "101₂" is 101_{2}: never the digits run together
            out.append(unicodedata.normalize("NFKC", ch).replace("\u2212", "-"))
            continue
        if ch.isascii() or not ch.isdigit():
            out.append(ch)
            continue
        folded = unicodedata.normalize("NFKC", ch)
        out.append(folded if folded.isascii() else f"\\scriptdigit{{U{ord(ch):04X}}}")
    if script:
        out.append("}")
    return "".join(out)


_SUPERSCRIPTS = frozenset(
    "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207a\u207b\u207d\u207e"
)
_SUBSCRIPTS = frozenset("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089\u208a\u208b")
_BASE_NUMERAL = re.compile(r"^(\d[0-9A-Za-z]*)_\{?(\d{1,2})\}?$")


def base_numeral(norm: str) -> tuple[str, int, int | None] | None:
    """A numeral with a numeric subscript (``1010_2``, ``12_{3}``) as (digits, base, value in that base; None
    when its digits are not digits of that base), else None."""
    m = _BASE_NUMERAL.match(norm)
    if m is None:
        return None
    digits, base = m.group(1), int(m.group(2))
    if not 2 <= base <= 36:
        return digits, base, None
    try:
        return digits, base, int(digits, base)
    except ValueError:
        return digits, base, None


def _or_and(s: str) -> str:
    return _OR_AND.sub(",", s) if "or" in s or "and" in s else s  # most answers have neither word


_KEEP_SPACE = re.compile(r"(\\[A-Za-z]+)\s+(?=[A-Za-z0-9])")


def _compact(s: str) -> str:
    """Remove whitespace, except where it ends a command name (``\\sin x`` must not become ``\\sinx``)."""
    s = _KEEP_SPACE.sub(lambda m: m.group(1) + "\x00", s)
    return _SPACES.sub("", s).replace("\x00", " ")


def _strip_markdown(s: str) -> str:
    m = _MD_BOLD.match(s)
    while m:
        s = (m.group(1) or m.group(2)).strip()
        m = _MD_BOLD.match(s)
    return s


def _strip_quotes(s: str) -> str:
    for q in ('\\"', '"'):
        if len(s) > 2 * len(q) and s.startswith(q) and s.endswith(q):
            return s[len(q) : -len(q)].strip()
    return s


def _strip_delims(s: str) -> str:
    changed = True
    while changed:
        changed = False
        for left, right in _DELIMS:
            if len(s) > len(left) + len(right) and s.startswith(left) and s.endswith(right):
                s = s[len(left) : -len(right)].strip()
                changed = True
    return s


def _strip_units(s: str) -> str:
    # "5\text{ cm}" / "5 \mbox{inches}" / "12 square units": drop a trailing unit after a value
    if "\\mu" in s or "\\Omega" in s or "\u00b5" in s or "\u03a9" in s or "\u03bc" in s or "\u2126" in s:
        text = _glyph_text(s)  # "5\\,\\mu\\text{m}", "5\\text{ k}\\Omega": a unit with the micro or ohm sign
        m = _GLYPH_TAIL.search(text)
        if m is not None and _has_value(text[: m.start()]) and _lookup_unit(m.group(1), None, loose=False):
            s = text[: m.start()].rstrip()
    if "\\" in s:
        s = _TRAILING_TEXT.sub(_unit_text, s)
    prev = None
    while prev != s and len(s) > 1:
        prev = s
        stripped = _TRAILING_UNITS.sub("", s).rstrip()
        if stripped and re.search(r"[\d}]$|\\pi$|[a-zA-Z]$", stripped) and _has_value(stripped):
            s = stripped
    return _LEADING_UNIT_WORD.sub("", s)


_TRAILING_TEXT = re.compile(
    r"(?<=\S)\s*\\(?:text|mbox|mathrm|textrm)\s*\{\s*([A-Za-z][A-Za-z\s.^/]*)\}\s*(?:\^\s*\{?[23]\}?)?\s*$"
)
_SI_UNITS = (
    "N|J|W|V|K|Pa|kPa|MPa|GPa|Hz|kHz|MHz|GHz|eV|keV|MeV|GeV|mol|kJ|kW|kWh|kN|mA|mV|kV|ms|ns|us|nm|um|"
    "C|F|T|Wb|Ohm|ohms?|L|mL|atm|bar|cal|kcal|lm|lx|dB|rad|sr|mg|kmol|mmol|mM"
)
_UNIT_PHRASE = re.compile(
    rf"^(?:{_UNIT_WORDS}|{_SI_UNITS})(?:\s*(?:/|per|\s)\s*(?:{_UNIT_WORDS}|{_SI_UNITS}))?$", re.IGNORECASE
)
# words that change or deny the value before them: never dropped as a unit ("5\\text{ not}", "5\\text{ squared}")
_VALUE_WORDS = re.compile(
    r"\b(?:not|no|nope|never|none|wrong|incorrect|false|invalid|error|errors|mistake|mistakes|fails?|failed|"
    r"rejected?|or|and|maybe|perhaps|possibly|probably|approx|approximately|about|around|roughly|nearly|"
    r"almost|over|under|less|more|than|least|most|at|plus|minus|times|squared|cubed|percent|thousands?|"
    r"millions?|billions?|hundreds?|dozens?|half|halves|thirds?|quarters?|is|are|was|were|isn|isnt|"
    r"but|except|only|if|unless|wait|hmm|doubtful|unsure|guess|guesses|lies|typos?|doubts?|bogus|nah)\b",
    re.IGNORECASE,
)

#: capital letters that read as a magnitude (million, billion) as often as a unit: never dropped
_SCALE_LETTERS = frozenset(("M", "B"))


def _unit_text(m: re.Match[str]) -> str:
    """A trailing ``\\text{...}`` after a value is dropped when it names a unit or a count noun ("cm", "square
    units", "apples"), never when its words change or deny the value; it then stays part of the answer."""
    words = " ".join(m.group(1).split()).rstrip(".").strip()
    if words in _SCALE_LETTERS:
        return m.group(0)  # "5\\,\\mathrm{M}": a million or a molar, never nothing
    if _UNIT_PHRASE.match(words) or lookup_unit(words, loose=False) is not None:
        return ""
    parts = words.split()
    if _VALUE_WORDS.search(words) or len(parts) > 3 or not all(w.isalpha() for w in parts):
        return m.group(0)
    last = parts[-1].lower()
    if len(last) >= 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        return ""  # a count noun: "5 \\text{ apples}", "\\text{ red marbles}"
    return m.group(0)


def _has_value(s: str) -> bool:
    return bool(re.search(r"\d|\\pi|\\sqrt|\\frac", s))


def _unwrap(s: str) -> str:
    """``\\text{abc}`` -> ``abc`` (any nesting); the braces' content is kept verbatim."""
    for _ in range(8):
        m = _WRAPPERS.search(s)
        if m is None:
            return s
        close = _matching(s, m.end() - 1)
        if close is None:  # "\\boxed{5" (a truncated or mis-escaped gold): drop the opener only
            return s[m.end() :] if m.start() == 0 else s
        s = s[: m.start()] + s[m.end() : close] + s[close + 1 :]
    return s


def _matching(s: str, open_idx: int) -> int | None:
    depth = 0
    for i in range(open_idx, len(s)):
        if s[i] == "{" and (i == 0 or s[i - 1] != "\\"):
            depth += 1
        elif s[i] == "}" and (i == 0 or s[i - 1] != "\\"):
            depth -= 1
            if depth == 0:
                return i
    return None


def _strip_outer_braces(s: str) -> str:
    while len(s) >= 2 and s[0] == "{" and _matching(s, 0) == len(s) - 1:
        s = s[1:-1].strip()
    return s


# ---------------------------------------------------------------------------------------------------------
# structure


@dataclass(frozen=True)
class Node:
    """A parsed answer. ``kind`` is one of: number, tuple, set, list, matrix, eq, ineq, choice, text, expr.

    ``text`` is the normalised source; ``items`` the children (tuple/set/list elements, matrix rows as
    tuples, the two sides of an equation); ``open``/``close`` the brackets of a tuple or interval;
    ``value`` the exact number of a ``number`` node; ``op`` the relation of an inequality.
    """

    kind: str
    text: str
    items: tuple[Node, ...] = ()
    open: str = ""
    close: str = ""
    value: Fraction | float | None = None
    op: str = ""


_CHOICE = re.compile(r"^\(?([A-J])\)?(?:[.:)]|\s|$)")
# the letter is denied, not chosen ("B is wrong", "not B"); an option's content ("B. False", "(C) No") is not
_DENIES_CHOICE = re.compile(
    r"^\(?[A-J]\)?\s*(?:is|was)\s*(?:not\b|wrong|incorrect|false)|^(?:not|no)\s*\(?[A-J]\)?(?![A-Za-z])",
    re.IGNORECASE,
)
_PLAIN_CHOICE = re.compile(r"^\(?([A-J])\)?$")
# after a chosen letter: nothing but more letters ("A.B.C.D"), or another option's mark ("(B)", "B.", "B)")
_ONLY_LETTERS = re.compile(r"^(?:[\s.,;:/&|)(]*[A-J])+[\s.,;:/&|)(]*$")
_OPTION_MARK = re.compile(r"\(\s*[A-J]\s*\)|(?<![A-Za-z\\])[A-J][.)](?![A-Za-z])")
_INEQ = re.compile(r"\\le|\\ge|\\lt|\\gt|<|>|\\ne")
_MATRIX = re.compile(r"^\\begin\{([pbvBV]?matrix|array)\}(?:\{[^}]*\})?(.*)\\end\{\1\}$", re.DOTALL)


def split_top(s: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside all brackets (``()[]{}`` and ``\\{ \\}``)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s) and s[i + 1] in "{}":
            depth += 1 if s[i + 1] == "{" else -1
            i += 2
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and s.startswith(sep, i):
            parts.append(s[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    parts.append(s[start:])
    return parts


@lru_cache(maxsize=8192)  # Nodes are frozen: a ground truth shared by a group is read once
def parse_structure(norm: str, *, choice: bool = False, depth: int = 0) -> Node:
    """Read a normalised answer as a :class:`Node`. ``choice``: the gold is a multiple-choice letter."""
    s = norm.strip()
    if depth > 6 or not s:
        return Node("text", s)
    if choice:
        m = _CHOICE.match(s)
        if m:
            rest = s[m.end() :]
            if _ONLY_LETTERS.match(rest) or _OPTION_MARK.search(rest):
                # "A. B. C. D.", "(A)(B)(C)(D)", "A. 12 B. 15": several options named, none chosen
                letters = [m.group(1), *(x for x in re.findall(r"[A-J]", rest))]
                return Node("list", s, tuple(Node("choice", x) for x in letters))
            if _DENIES_CHOICE.search(s):
                return Node("text", s)  # "B is wrong", "not B": the letter is denied, not chosen
            return Node("choice", m.group(1))
        if _DENIES_CHOICE.search(s):
            return Node("text", s)
    m = _MATRIX.match(s)
    if m:
        if m.group(1) in ("vmatrix", "Vmatrix"):
            return Node("expr", s)  # a determinant (or a norm), not the matrix
        return _matrix(m.group(2), depth)
    m = _SCALED_MATRIX.match(s) if "\\begin" in s else None
    if m and m.group(3) not in ("vmatrix", "Vmatrix") and _is_scalar(m.group(1)):
        return _matrix(m.group(4), depth, scale=m.group(1))
    if s.count("\\pm") == 1 and "\\mp" not in s and not _pm_item(s):  # "a \pm b": a + b and a - b
        both = tuple(parse_structure(_signed(s, sign), depth=depth + 1) for sign in "+-")
        return Node("list", s, both)
    if "\\cup" in s and _balanced_split(s, "\\cup"):
        parts = split_top(s, "\\cup")
        return Node("set", s, tuple(parse_structure(p, depth=depth + 1) for p in parts))
    value = exact_number(s)
    if value is not None:
        return Node("number", s, value=value)
    if s.startswith("\\{") and s.endswith("\\}"):
        inner = s[2:-2]
        builder = _set_builder(inner, depth)
        if builder is not None:
            return builder
        items = [p for p in split_top(inner) if p.strip()]
        return Node("set", s, _flat_pm(tuple(parse_structure(p, depth=depth + 1) for p in items)))
    if len(s) >= 2 and s[0] in "([" and s[-1] in ")]" and _balanced(s[1:-1]):
        items = split_top(s[1:-1])
        if len(items) == 1 and ";" in s:  # "(0;-2;6)": semicolons separate coordinates
            items = split_top(s[1:-1], ";")
        if len(items) >= 2:
            kids = tuple(parse_structure(p, depth=depth + 1) for p in items)
            return Node("tuple", s, kids, open=s[0], close=s[-1])
    items = split_top(s)
    if len(items) >= 2 and all(p.strip() for p in items):
        return Node("list", s, _flat_pm(tuple(parse_structure(p, depth=depth + 1) for p in items)))
    for sep in ("\\text{or}", "\\text{and}", "\\lor", ";"):
        if sep in s and len(split_top(s, sep)) >= 2:
            parts = [p for p in split_top(s, sep) if p.strip()]
            return Node("list", s, tuple(parse_structure(p, depth=depth + 1) for p in parts))
    if "=" in s and "\\le" not in s and "\\ge" not in s and not _INEQ.search(s):
        # "x = 5 + 5 + 1 = 11" states x = 11: a chain keeps its ends; an "=" inside brackets
        # (a subscript: "\\sum_{k=0}^{n}") is no equation's
        sides = split_top(s, "=")
        lhs, rhs = sides[0], sides[-1]
        if len(sides) >= 2 and all(side.strip() for side in sides):
            left = parse_structure(lhs, depth=depth + 1)
            right = parse_structure(rhs, depth=depth + 1)
            return Node("eq", s, (left, right))
    if _INEQ.search(s):
        return Node("ineq", s)
    if _PLAIN_CHOICE.match(s) and len(s) <= 3 and not choice:
        return Node("expr", s)
    spelled = number_word(s) if s[0].isalpha() and s.isascii() else None
    if spelled is not None:  # "five", "twenty-five", "one hundred and two": the number
        return Node("number", str(spelled), value=Fraction(spelled))
    if re.fullmatch(r"[A-Za-z][A-Za-z' -]*[A-Za-z]", s) and len(s) > 1 and not re.fullmatch(r"[a-z]{1,3}", s):
        return Node("text", s.lower())
    return Node("expr", s)


_PLUS_AFTER = re.compile(r"(^|[=(\[{,])\+")


def _signed(s: str, sign: str) -> str:
    """``s`` with its one ``\\pm`` replaced by ``sign`` (a leading or unary ``+`` dropped)."""
    return _PLUS_AFTER.sub(r"\1", s.replace("\\pm", sign, 1))


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _balanced_split(s: str, sep: str) -> bool:
    return len(split_top(s, sep)) >= 2


def _matrix(body: str, depth: int, scale: str = "") -> Node:
    """A matrix's rows as tuples; ``scale`` (a number or a constant written before the matrix,
    ``\\frac{1}{5}\\begin{pmatrix}...``) multiplies every entry."""
    rows = [r for r in body.split("\\\\") if r.strip()]
    parsed = []
    for row in rows:
        cells = tuple(parse_structure(_scaled(c.strip(), scale), depth=depth + 1) for c in row.split("&"))
        parsed.append(Node("tuple", row, cells, open="[", close="]"))
    return Node("matrix", (scale + " " if scale else "") + body, tuple(parsed))


_SCALED_MATRIX = re.compile(r"^(.+?)(\\cdot|\\times)?\\begin\{([pbB]?matrix)\}(.*)\\end\{\3\}$", re.DOTALL)
_GROUP1 = r"\{(?:[^{}]|\{[^{}]*\})+\}"  # a brace group, one level of nesting inside
_SCALAR = re.compile(rf"^[-+]?(?:[\d.]+|\\frac{_GROUP1}{_GROUP1}|\\sqrt{_GROUP1}|\\pi|[{{}}()/^ ])+$")


def _is_scalar(text: str) -> bool:
    """A constant factor written before a matrix: numbers, fractions, roots, pi (no letters, no matrix)."""
    return bool(_SCALAR.match(text.strip())) and bool(re.search(r"\d", text)) and "&" not in text


def _scaled(cell: str, scale: str) -> str:
    if not scale:
        return cell
    a, b = exact_number(scale), exact_number(cell)
    if a is not None and b is not None:
        v = a * b
        return str(v.numerator) if v.denominator == 1 else f"\\frac{{{v.numerator}}}{{{v.denominator}}}"
    return f"({scale})\\cdot({cell})"


# "\\{x \\mid x > 2\\}", "\\{x | 3 < x \\le 4\\}", "\\{x : x \\le 0\\}": the set of a variable's values under a condition
_BUILDER = re.compile(r"^\s*([A-Za-z])\s*(?:\\mid|\||:)(?![=])(.+)$")


def _set_builder(inner: str, depth: int) -> Node | None:
    """A set written by a condition on one variable, when the condition is an inequality (or several joined
    by "or") in that variable: that inequality, which the comparison reads as an interval or union. Any
    other condition (``x^2 = 4``, ``x \\in \\mathbb{Z}``, another variable) is not read: None."""
    m = _BUILDER.match(inner)
    if m is None or "\\in" in m.group(2):
        return None
    name, cond = m.group(1), m.group(2).strip()
    node = parse_structure(cond, depth=depth + 1)
    parts = node.items if node.kind == "list" else (node,)
    if not parts or any(
        p.kind != "ineq" or not re.search(rf"(?<![A-Za-z\\]){name}(?![A-Za-z])", p.text) for p in parts
    ):
        return None
    if any(re.search(rf"(?<![A-Za-z\\])(?!{name})[A-Za-z](?![A-Za-z])", p.text) for p in parts):
        return None  # a second letter: not a condition on the one variable alone
    return node


def _pm_item(s: str) -> bool:
    """Whether the one ``\\pm`` of ``s`` is inside an item of a set or of a list (spread by :func:`_flat_pm`)."""
    if s.startswith("\\{") and s.endswith("\\}"):
        return True
    return len(split_top(s)) >= 2


def _flat_pm(items: tuple[Node, ...]) -> tuple[Node, ...]:
    """Items of a set or list with a ``\\pm`` item's two values spread (``\\{1 \\pm \\sqrt5, -2\\}`` has three)."""
    if not any(k.kind == "list" and "\\pm" in k.text for k in items):
        return items
    out: list[Node] = []
    for k in items:
        out.extend(k.items if k.kind == "list" and "\\pm" in k.text and k.text.count("\\pm") == 1 else (k,))
    return tuple(out)


_WORD_VALUES = {w: i for i, w in enumerate(ONES)} | {w: 10 * (i + 2) for i, w in enumerate(TENS)}
_SCALE_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9}


def number_word(text: str) -> int | None:
    """The value of an English cardinal written in words ("five", "twenty-five", "one hundred and two",
    "three thousand four hundred"), else None. Every word must be part of the number: "five or seven",
    "not five", "a couple", "fifteen apples" are None."""
    words = re.split(r"[\s-]+", text.strip().lower())
    if not words or len(words) > 12 or words[-1] == "and":
        return None
    total = current = 0
    seen = False
    last = ""
    for w in words:
        if w == "and" and last in ("hundred", *_SCALE_WORDS):
            last = w
            continue
        if w in _WORD_VALUES:
            v = _WORD_VALUES[w]
            if last in _WORD_VALUES and not (last in TENS and v < 10 and v > 0):
                return None  # "five six", "twenty thirty", "ten five"
            current += v
        elif w == "hundred":
            if last not in _WORD_VALUES or (current % 100 == 0 and current):
                return None
            current *= 100
        elif w in _SCALE_WORDS:
            if not seen or last in _SCALE_WORDS:
                return None
            total += current * _SCALE_WORDS[w]
            current = 0
        else:
            return None
        seen = True
        last = w
    return total + current if seen else None


# ---------------------------------------------------------------------------------------------------------
# numbers

_DEC = r"(?:\d+(?:\.\d*)?|\.\d+)"
_NUM_RE = re.compile(rf"^([+-]?){_DEC}$")
_FRAC_RE = re.compile(r"^([+-]?)\\frac\{([+-]?\d+(?:\.\d+)?)\}\{([+-]?\d+(?:\.\d+)?)\}$")
_SLASH_RE = re.compile(r"^([+-]?)(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)$")
# "0.\\overline{3}", "0.1\\overline{6}", "1.\\overline{142857}": a repeating decimal (exact)
_REPEATING_RE = re.compile(r"^([+-]?)(\d*)\.(\d*)\\overline\{(\d{1,20})\}$")
_MIXED_RE = re.compile(r"^([+-]?)(\d+)\\frac\{(\d+)\}\{(\d+)\}$")
_SCI_RE = re.compile(
    rf"^([+-]?{_DEC})(?:\\times|\\cdot|\*|x)10\^\{{?([+-]?\d+)\}}?$|^([+-]?{_DEC})[eE]([+-]?\d+)$"
)
_POW10_RE = re.compile(r"^10\^\{?([+-]?\d+)\}?$")


def exact_number(s: str) -> Fraction | None:
    """The exact value of a plain number (``12``, ``-0.5``, ``.25``, ``\\frac{3}{4}``, ``3/4``,
    ``2\\frac{1}{2}``, ``1.5\\times10^{3}``, ``10^{6}``), or None for anything else."""
    s = s.replace(" ", "")
    if not s or len(s) > 60:
        return None
    try:
        if _NUM_RE.match(s):
            return Fraction(s)
        m = _FRAC_RE.match(s) or _SLASH_RE.match(s)
        if m:
            num, den = Fraction(m.group(2)), Fraction(m.group(3))
            if den == 0:
                return None
            value = num / den
            return -value if m.group(1) == "-" else value
        m = _REPEATING_RE.match(s)
        if m:
            head, fixed, period = m.group(2) or "0", m.group(3), m.group(4)
            value = Fraction(f"{head}.{fixed or 0}") + Fraction(
                int(period), 10 ** len(fixed) * (10 ** len(period) - 1)
            )
            return -value if m.group(1) == "-" else value
        m = _MIXED_RE.match(s)
        if m and int(m.group(4)) != 0 and int(m.group(3)) < int(m.group(4)):
            value = int(m.group(2)) + Fraction(int(m.group(3)), int(m.group(4)))
            return -value if m.group(1) == "-" else value
        m = _SCI_RE.match(s)
        if m:
            mant, exp = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if abs(int(exp)) <= 400:
                return Fraction(mant) * Fraction(10) ** int(exp)
        m = _POW10_RE.match(s)
        if m and abs(int(m.group(1))) <= 400:
            return Fraction(10) ** int(m.group(1))
    except (ValueError, ZeroDivisionError):
        return None
    return None


# ---------------------------------------------------------------------------------------------------------
# plain arithmetic, evaluated without sympy

_ARITH_TOKEN = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+|\\pi|\\sqrt|\\frac|\\cdot|\\times|[-+*/^(){}])")
_MAX_ARITH_CHARS = 120


def float_value(text: str) -> float | None:
    """The value of plain arithmetic in a normalised answer, as latex2sympy would read it, or None.

    Accepts numbers, ``\\pi``, ``\\sqrt{}``, ``\\frac{}{}``, ``+ - * / ^ \\cdot \\times``, brackets and
    implicit multiplication (``3\\sqrt{10}``, ``2\\pi``); anything else (a letter, another command, a
    negative square root, a chained or huge power) gives None. Lets the cheap stage tell two clearly
    different constants apart without sympy.
    """
    if not text or len(text) > _MAX_ARITH_CHARS:
        return None
    tokens: list[Any] = []
    pos = 0
    while pos < len(text):
        m = _ARITH_TOKEN.match(text, pos)
        if m is None:
            return None
        tokens.append(m.group(1))
        pos = m.end()
    try:
        value, rest = _sum(tokens)
    except (_NotArithmetic, ArithmeticError, ValueError):
        return None
    return value if not rest and math.isfinite(value) else None


class _NotArithmetic(Exception):
    pass


def _sum(t: list[str]) -> tuple[float, list[str]]:
    value, t = _product(t)
    while t and t[0] in "+-":
        op = t[0]
        rhs, t = _product(t[1:])
        value = value + rhs if op == "+" else value - rhs
    return value, t


def _product(t: list[str]) -> tuple[float, list[str]]:
    value, t = _unary(t)
    while t:
        if t[0] in ("*", "\\cdot", "\\times", "/"):
            op = t[0]
            rhs, t = _unary(t[1:])
            value = value / rhs if op == "/" else value * rhs
        elif t[0] not in ("+", "-", ")", "}", "^"):  # implicit multiplication
            rhs, t = _power(t)
            value *= rhs
        else:
            break
    return value, t


def _unary(t: list[str]) -> tuple[float, list[str]]:
    if t and t[0] in "+-":
        value, rest = _unary(t[1:])
        return (-value if t[0] == "-" else value), rest
    return _power(t)


def _power(t: list[str]) -> tuple[float, list[str]]:
    base, t = _atom(t)
    if t and t[0] == "^":
        exponent, t = _atom(t[1:])
        if (t and t[0] == "^") or abs(exponent) > 64 or (base < 0 and exponent != int(exponent)):
            raise _NotArithmetic
        base = base**exponent
    return base, t


def _atom(t: list[str]) -> tuple[float, list[str]]:
    if not t:
        raise _NotArithmetic
    head, rest = t[0], t[1:]
    if head[0].isdigit() or head[0] == ".":
        return float(head), rest
    if head == "\\pi":
        return math.pi, rest
    if head in ("(", "{"):
        value, rest = _sum(rest)
        if not rest or rest[0] != (")" if head == "(" else "}"):
            raise _NotArithmetic
        return value, rest[1:]
    if head == "\\sqrt":
        value, rest = _group(rest)
        if value < 0:
            raise _NotArithmetic
        return math.sqrt(value), rest
    if head == "\\frac":
        num, rest = _group(rest)
        den, rest = _group(rest)
        return num / den, rest
    raise _NotArithmetic


def _group(t: list[str]) -> tuple[float, list[str]]:
    if not t or t[0] != "{":
        raise _NotArithmetic
    return _atom(t)


# ---------------------------------------------------------------------------------------------------------
# one-variable linear inequalities, solved exactly

#: an interval of the real line: (low, low closed, high, high closed); an infinite end is open
Interval = tuple[Fraction | float, bool, Fraction | float, bool]

_GREEK_VARS = (
    "alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|rho|sigma|"
    "tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Sigma|Phi|Psi|Omega"
)  # not \pi: a constant
_SUBSCRIPT = r"(?:_(?:\{\w{1,3}\}|\w))?"
_LIN_TOKEN = re.compile(
    rf"\s*(?:(\d+(?:\.\d+)?|\.\d+)|((?:[A-Za-z]|\\(?:{_GREEK_VARS})(?![A-Za-z])){_SUBSCRIPT})"
    r"|(\\frac(?![A-Za-z])|\\cdot(?![A-Za-z])|\\times(?![A-Za-z])|[-+*/(){}]))"
)
_CONSTANT_LETTERS = frozenset("ei")  # Euler's number and the imaginary unit, never an unknown
_MAX_LINEAR_CHARS = 120
_Form = dict[str, Fraction]  # variable -> coefficient; "" -> the constant term


class _NotLinear(Exception):
    pass


@lru_cache(maxsize=2048)
def _linear_tokens(text: str) -> tuple[tuple[str, str], ...] | None:
    if not text or len(text) > _MAX_LINEAR_CHARS:
        return None
    tokens: list[Any] = []
    pos = 0
    while pos < len(text):
        m = _LIN_TOKEN.match(text, pos)
        if m is None:
            return None if text[pos:].strip() else tuple(tokens)
        number, name, op = m.groups()
        if name is not None and name in _CONSTANT_LETTERS:
            return None
        tokens.append(("n", number) if number else ("v", name) if name else ("o", op))
        pos = m.end()
    return tuple(tokens)


def linear_form(text: str) -> _Form | None:
    """``text`` read as ``a1 x1 + ... + c`` with rational coefficients (zero terms dropped), or None.

    Numbers, single-letter or Greek variables (with a subscript), ``+ - * / \\cdot \\times``, brackets,
    ``\\frac{}{}`` and implicit products; a product of two unknowns, a division by an unknown, a power or
    any other command (``\\sqrt``, ``\\pi``, ``|x|``) is not linear: None.
    """
    tokens = _linear_tokens(text.strip()) if isinstance(text, str) else None
    if not tokens:
        return None
    try:
        form, rest = _lin_sum(list(tokens))
    except (_NotLinear, ZeroDivisionError, ValueError):
        return None
    if rest:
        return None
    return {k: v for k, v in form.items() if v != 0}


def _lin_sum(t: list[tuple[str, str]]) -> tuple[_Form, list[tuple[str, str]]]:
    form, t = _lin_product(t)
    while t and t[0] in (("o", "+"), ("o", "-")):
        sign = 1 if t[0][1] == "+" else -1
        rhs, t = _lin_product(t[1:])
        for k, v in rhs.items():
            form[k] = form.get(k, Fraction(0)) + sign * v
    return form, t


def _lin_product(t: list[tuple[str, str]]) -> tuple[_Form, list[tuple[str, str]]]:
    start = t
    form, t = _lin_unary(t)
    divided = False
    while t:
        kind, tok = t[0]
        if kind == "o" and tok in ("*", "/", "\\cdot", "\\times"):
            rhs, t = _lin_unary(t[1:])
            form = _lin_divide(form, rhs) if tok == "/" else _lin_multiply(form, rhs)
            divided = tok == "/"
        elif kind == "v" or tok in ("(", "{", "\\frac"):  # an implicit product: 2x, 3(x-1)
            after_number = start[len(start) - len(t) - 1][0] == "n"
            if divided or (tok == "\\frac" and after_number):
                raise _NotLinear  # "1/2x" (1/(2x) or x/2?), "2\\frac{1}{2}" (a mixed number?)
            rhs, t = _lin_atom(t)
            form = _lin_multiply(form, rhs)
        elif kind == "n":
            raise _NotLinear  # "x2", "1.5.2": no reading to trust
        else:
            break
    return form, t


def _lin_unary(t: list[tuple[str, str]]) -> tuple[_Form, list[tuple[str, str]]]:
    if t and t[0] in (("o", "+"), ("o", "-")):
        form, rest = _lin_unary(t[1:])
        return ({k: -v for k, v in form.items()} if t[0][1] == "-" else form), rest
    return _lin_atom(t)


def _lin_atom(t: list[tuple[str, str]]) -> tuple[_Form, list[tuple[str, str]]]:
    if not t:
        raise _NotLinear
    (kind, tok), rest = t[0], t[1:]
    if kind == "n":
        return {"": Fraction(tok)}, rest
    if kind == "v":
        return {tok: Fraction(1)}, rest
    if tok in ("(", "{"):
        form, rest = _lin_sum(rest)
        if not rest or rest[0] != ("o", ")" if tok == "(" else "}"):
            raise _NotLinear
        return form, rest[1:]
    if tok == "\\frac":
        num, rest = _lin_braced(rest)
        den, rest = _lin_braced(rest)
        return _lin_divide(num, den), rest
    raise _NotLinear


def _lin_braced(t: list[tuple[str, str]]) -> tuple[_Form, list[tuple[str, str]]]:
    if not t or t[0] != ("o", "{"):
        raise _NotLinear
    return _lin_atom(t)


def _is_constant(form: _Form) -> bool:
    return all(k == "" for k in form)


def _lin_multiply(a: _Form, b: _Form) -> _Form:
    if not _is_constant(a) and not _is_constant(b):
        raise _NotLinear  # x * x
    if not _is_constant(a):
        a, b = b, a
    c = a.get("", Fraction(0))
    return {k: c * v for k, v in b.items()}


def _lin_divide(a: _Form, b: _Form) -> _Form:
    if not _is_constant(b):
        raise _NotLinear  # 1 / x
    return {k: v / b.get("", Fraction(0)) for k, v in a.items()}


_REL_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_ABS = re.compile(r"^\|([^|]+)\|$")


def solve_inequality(sides: list[str], ops: list[str]) -> tuple[str, tuple[Interval, ...]] | None:
    """The one variable of a linear inequality and its solution set, exactly; None when not that.

    ``sides``/``ops`` are an inequality split at its relations (``ops`` from ``< <= > >=``): ``a x + b REL
    c`` (the unknown on either or both sides), a chain ``lo REL m REL hi`` with ``m`` linear and both ends
    rational, or the same with ``m = |a x + b|`` (``|x - 3| < 2``, ``1 \\le |z| \\le 3/2``): the solution is
    one interval or a union of two, sorted. Anything non-linear, with two unknowns, or with an empty
    solution set gives None.
    """
    if len(sides) != len(ops) + 1 or not 1 <= len(ops) <= 2 or any(o not in _REL_FLIP for o in ops):
        return None
    if len(ops) == 2:
        if ops[0][0] != ops[1][0]:
            return None  # "1 < x > 0" is not a chain
        if ops[0][0] == ">":  # a > m > b is b < m < a
            sides, ops = sides[::-1], [_REL_FLIP[o] for o in ops[::-1]]
        lo, hi = _rational(sides[0]), _rational(sides[2])
        if lo is None or hi is None:
            return None
        return _preimage(sides[1], (lo, ops[0] == "<=", hi, ops[1] == "<="))
    left, right, op = sides[0], sides[1], ops[0]
    if _ABS.match(right.strip()) and not _ABS.match(left.strip()):
        left, right, op = right, left, _REL_FLIP[op]
    if _ABS.match(left.strip()):
        bound = _rational(right)
        return None if bound is None else _preimage(left, _ray(op, bound))
    a, b = linear_form(left), linear_form(right)
    if a is None or b is None:
        return None
    diff = dict(a)
    for k, v in b.items():
        diff[k] = diff.get(k, Fraction(0)) - v
    return _solve_form({k: v for k, v in diff.items() if v != 0}, [_ray(op, Fraction(0))])


def _rational(text: str) -> Fraction | None:
    form = linear_form(text)
    if form is None or not _is_constant(form):
        return None
    return form.get("", Fraction(0))


def _ray(op: str, c: Fraction) -> Interval:
    if op in ("<", "<="):
        return (-math.inf, False, c, op == "<=")
    return (c, op == ">=", math.inf, False)


def _preimage(middle: str, bound: Interval) -> tuple[str, tuple[Interval, ...]] | None:
    """Where ``middle`` (linear, or ``|linear|``) lies in ``bound``."""
    m = _ABS.match(middle.strip())
    if m is None:
        form = linear_form(middle)
        return None if form is None else _solve_form(form, [bound])
    form = linear_form(m.group(1))
    half = _intersect(
        bound, (Fraction(0), True, math.inf, False)
    )  # |u| in I: u in J or -J, J = I and [0, oo)
    if form is None or half is None:
        return None
    lo, lo_closed, hi, hi_closed = half
    mirrored = (-hi, hi_closed, -lo, lo_closed)
    if mirrored[2] > lo or (mirrored[2] == lo and (lo_closed or mirrored[3])):
        return _solve_form(form, [(mirrored[0], mirrored[1], hi, hi_closed)])  # they meet at 0
    return _solve_form(form, [mirrored, half])


def _intersect(a: Interval, b: Interval) -> Interval | None:
    lo, lo_closed = max((a[0], not a[1]), (b[0], not b[1]))
    hi, hi_closed = min((a[2], a[3]), (b[2], b[3]))
    lo_closed = not lo_closed
    if lo > hi or (lo == hi and not (lo_closed and hi_closed)):
        return None
    return (lo, lo_closed, hi, hi_closed)


def _solve_form(form: _Form, bounds: list[Interval]) -> tuple[str, tuple[Interval, ...]] | None:
    """``k x + c`` in each of ``bounds`` (disjoint, sorted), solved for the one unknown ``x``."""
    unknowns = [name for name in form if name]
    if len(unknowns) != 1:
        return None
    (name,) = unknowns
    k, c = form[name], form.get("", Fraction(0))
    out = []
    for lo, lo_closed, hi, hi_closed in bounds:
        if lo > hi or (lo == hi and not (lo_closed and hi_closed)):
            return None
        a, b = (lo - c) / k, (hi - c) / k
        out.append((a, lo_closed, b, hi_closed) if k > 0 else (b, hi_closed, a, lo_closed))
    return name, tuple(sorted(out, key=lambda iv: (iv[0], not iv[1])))


# --- units (issue 22 "unit swaps"): a unit in the answer that contradicts the unit asked for -----------------
#: kinds whose units have powers (square, cubic): the kind of an area is ("length", 2)
_POWERED = frozenset(("length",))
_UNIT_WORD_RE = r"[A-Za-z]+"
_ANSWER_UNIT = re.compile(
    r"(?:\\(?:text|mathrm|mbox|textrm|rm)\s*\{\s*((?:square\s+|sq\.?\s*|cubic\s+)?[A-Za-z]+)\s*\}|"
    r"(?<=[\d}\s,])((?:square\s+|sq\.?\s*|cubic\s+)?[A-Za-z]+))"
    r"\s*(?:\^\s*\{?\s*([23])\s*\}?)?\s*\.?\s*$"
)
_DEGREE_SIGN = re.compile(r"(?:\^\s*\{?\s*\\circ\s*\}?|\u00b0|\\degree)\s*\.?\s*$")
_ASKED_UNIT = re.compile(
    r"\b(?:how\s+many|how\s+much|in|into|number\s+of)\s+((?:square\s+|sq\.?\s*|cubic\s+)?[A-Za-z]+)"
    r"(?!\s*(?:per\b|/|an?\s+hour\b))",
    re.IGNORECASE,
)
#: a unit word right after a box ("$\\boxed{30}$ radians"): whole words only, never one- or two-letter ones
_AFTER_BOX_UNIT = re.compile(
    r"^\s*\$*\s*(?:\\\)|\\\])?\s*(square\s+|cubic\s+)?([A-Za-z]{3,})\b(?!\s*(?:per\b|/))"
)

Unit = tuple[str, str, int]  # (kind, canonical unit, power)


def _lookup_unit(words: str, power: str | None, *, loose: bool) -> Unit | None:
    words = words.strip()
    p = int(power) if power else 1
    low = words.lower()
    for prefix, n in (("square ", 2), ("sq. ", 2), ("sq.", 2), ("sq ", 2), ("cubic ", 3)):
        if low.startswith(prefix):
            words, p = words[len(prefix) :].strip(), n
            break
    hit = lookup_unit(words, loose=loose)
    if hit is None:
        return None
    kind, canon, own = hit  # a hectare is a unit of area of its own: ("length", "hm", 2)
    if own != 1 and p != 1:
        return None
    p = own * p
    if p != 1 and kind not in _POWERED:
        return None
    return kind, canon, p


#: a temperature: "5^\\circ C", "5°F", "5\\,^{\\circ}\\text{C}", "5 ℃", "5 degrees Celsius"
_TEMPERATURE = re.compile(
    r"(?:\^\s*\{?\s*\\circ\s*\}?|\u00b0|\\degree)\s*(?:\\(?:text|mathrm|rm)\s*\{\s*)?([CF])\s*\}?\s*\.?\s*$"
    r"|([\u2103\u2109])\s*\.?\s*$"
    r"|(?<![A-Za-z])degrees?\s+(Celsius|Fahrenheit|centigrade)\s*\.?\s*$",
    re.IGNORECASE,
)
#: the micro and ohm signs as TeX writes them, for units after a value ("5\\,\\mu\\text{m}", "5\\text{ k}\\Omega")
_GLYPHS = (
    ("\\mu", "\u00b5"), ("\\micro", "\u00b5"), ("\u03bc", "\u00b5"), ("\\Omega", "\u03a9"), ("\\ohm", "\u03a9"),
    ("\u2126", "\u03a9"),
)  # fmt: skip
_GLYPH_TAIL = re.compile(r"(?<=[\d}\s])\s*([A-Za-z]{0,2}[\u00b5\u03a9][A-Za-z]{0,3})\s*\.?$")
_UNIT_WRAP = re.compile(r"\\(?:text|mathrm|mbox|textrm|rm)\s*\{\s*([^{}]*?)\s*\}|\\[,;: ]|~|\{\}")


def _glyph_text(s: str) -> str:
    """``s`` with TeX's micro and ohm signs as the characters and unit wrappers unwrapped: the text a unit
    after a value reads as."""
    for tex, glyph in _GLYPHS:
        if tex in s:
            s = s.replace(tex, glyph)
    return _UNIT_WRAP.sub(lambda m: m.group(1) if m.group(1) is not None else " ", s)


def _glyph_unit(s: str) -> Unit | None:
    """A unit written with the micro or ohm sign after a value (``5\\,\\mu\\text{m}``, ``5\\text{ k}\\Omega``,
    ``5 µs``), or None."""
    text = _glyph_text(s)
    m = _GLYPH_TAIL.search(text)
    if m is None or not _has_value(text[: m.start()]):
        return None
    return _lookup_unit(m.group(1), None, loose=False)


def answer_unit(raw: str, after: str = "") -> Unit | None:
    """The unit an answer states at its end (``5\\text{ m}``, ``12\\text{ cm}^2``, ``90^\\circ``,
    ``12 square feet``), or, failing that, the unit word written right after its box (``after``); None when
    it states none this table knows."""
    s = raw.strip().strip("$").strip()
    if not s.isascii() or "\\mu" in s or "\\Omega" in s or "\\ohm" in s or "\\micro" in s:
        glyphs = _glyph_unit(s)  # before "\\text{m}" is read alone in "5\\,\\mu\\text{m}"
        if glyphs is not None:
            return glyphs
    if "\\" in s or not s.isascii() or "deg" in s:
        temperature = _TEMPERATURE.search(s)
        if temperature is not None and _has_value(s[: temperature.start()]):
            scale = (temperature.group(1) or temperature.group(2) or temperature.group(3) or "C")[0].upper()
            return ("temperature", "\u00b0" + ("F" if scale in "F\u2109" else "C"), 1)
    if _DEGREE_SIGN.search(s):
        return ("angle", "deg", 1)
    m = _ANSWER_UNIT.search(s)
    if m is not None and _has_value(s[: m.start()]):
        unit = _lookup_unit(m.group(1) or m.group(2), m.group(3), loose=m.group(1) is not None)
        if unit is not None:
            return unit
    if after:
        m2 = _AFTER_BOX_UNIT.match(after)
        if m2 is not None:
            return _lookup_unit((m2.group(1) or "") + m2.group(2), None, loose=False)
    return None


def asked_units(prompt_text: str) -> list[Unit]:
    """The units a question asks for: those after "how many", "how much", "number of", "in", "into"
    ("How many centimeters ...", "in degrees", "the area in square meters"), rates ("miles per hour")
    excepted."""
    out = []
    text = prompt_text[-4000:]
    for m in _ASKED_UNIT.finditer(text):
        if m.group(1).lower() in ("degree", "degrees") and _SCALE_AFTER.match(text, m.end()):
            scale = _SCALE_AFTER.match(text, m.end())
            assert scale is not None
            out.append(
                ("temperature", "\u00b0" + ("F" if scale.group(1).lower() == "fahrenheit" else "C"), 1)
            )
            continue
        unit = _lookup_unit(m.group(1), None, loose=False)
        if unit is not None and len(m.group(1)) > 2:
            out.append(unit)
    return out


_SCALE_AFTER = re.compile(r"\s+(celsius|fahrenheit|centigrade)\b", re.IGNORECASE)


def unit_conflict(answer_u: Unit | None, gold_units: list[Unit | None], asked: list[Unit]) -> str:
    """Why the answer's unit contradicts the unit asked for ("" when it does not).

    A gold with a unit asks for that unit: an answer unit of the same kind but another unit or power
    (``cm`` for ``cm^2``, radians for degrees), or of another kind, contradicts it. A gold without a unit
    leaves it to the question: an answer unit of a kind the question asks for, but not one of the units it
    asks for, contradicts it. No unit in the answer, or none asked, is never a contradiction.
    """
    if answer_u is None:
        return ""
    stated = [u for u in gold_units if u is not None]
    if stated and len(stated) == len(gold_units):
        if answer_u not in stated:
            return f"the answer is in {answer_u[1]}, the gold in {stated[0][1]}"
        return ""
    same_kind = [u for u in asked if u[0] == answer_u[0]]
    if same_kind and answer_u not in same_kind:
        return f"the answer is in {answer_u[1]}, the question asks for {same_kind[0][1]}"
    return ""


def unit_target(answer_u: Unit | None, gold_units: list[Unit | None], asked: list[Unit]) -> Unit | None:
    """The unit the answer should be in when :func:`unit_conflict` finds its unit contradicts the gold's or
    the question's (the gold's unit first, then the one the question asks for); None without a conflict."""
    if answer_u is None or not unit_conflict(answer_u, gold_units, asked):
        return None
    stated = [u for u in gold_units if u is not None]
    if stated and len(stated) == len(gold_units):
        return stated[0]
    same_kind = [u for u in asked if u[0] == answer_u[0]]
    return same_kind[0] if same_kind else None


def convert_unit(value: Fraction, source: Unit, target: Unit) -> Fraction | None:
    """``value`` in ``source`` units expressed in ``target`` units (``120`` minutes is ``2`` hours, ``5`` km is
    ``5000`` m, ``1`` m^2 is ``10000`` cm^2), exactly; None when the units are of different kinds or powers or
    one of them has no fixed size."""
    if source[0] != target[0] or source[2] != target[2]:
        return None
    a, b = unit_size(source), unit_size(target)
    if a is None or b is None:
        return None
    return value * a / b

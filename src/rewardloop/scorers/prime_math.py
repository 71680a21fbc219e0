"""The PRIME / PRM800K math grader (verl's ``prime_math``; the NuminaMath ``numina_*`` data sources).

Scope: one final answer is pulled out of the response (:func:`match_answer`) and judged against the
ground truth, first by OpenAI's PRM800K grader (:func:`grade_answer`: Hendrycks normalisation, units,
words, tuples and intervals element by element, unreduced-fraction and integer rules, then ``sympy``),
then by the ToRA-style fallback (:func:`math_equal`: numbers with relative tolerance 1e-4 including the
percentage variants, intervals, tuples, points, matrices, symbolic equality). The reward is 1.0 or 0.0, as
verl's ``default_compute_score`` keeps only ``res[0]`` of ``(is_correct, format_ok, extracted)``.

Reproduced from verl 0.9.1: the marker rules of the extraction, both normalisers, every grading rule and
its order, the guards that keep sympy away from unknown text and towers of exponents, and the fallback's
quirks (``x_b`` base subscripts, ``\\pi`` tried as both ``math.pi`` and 3.14, the 1000-character clip).

Deliberate differences (see docs/verl-differences.md):

* No ``eval``/``exec`` anywhere. verl ``eval``s any answer containing ``\\pi`` and list-looking answers
  against matrix ground truths, and ``parse_expr`` ``eval``s generated code (CVE-2026-6878). Here sympy
  expressions are built by a whitelisting interpreter and Python arithmetic by an AST walk
  (:mod:`rewardloop.scorers._sympy_grade`).
* ``symbolic_equal`` works (in verl it always returns False), so the fallback accepts ``x+x`` vs ``2x``
  and decimals within a relative 1e-4 of a closed form (``0.8660`` for ``\\frac{\\sqrt{3}}{2}``).
* Boxes are found by :mod:`rewardloop.scorers._latex` (escaped braces, ``\\boxed 5``, an unclosed last box
  falls back to the previous complete one).
* Interval endpoints count: verl's fallback strips the outer brackets of both sides and accepts ``[2,5]``
  for ``[2,5)``; here a bracketed answer against an interval with other brackets is not equal.
* Numbers too long for a float (``float('1'*400) == inf``) are not numbers: verl calls any two of them equal.
* Blow-ups are refused up front (huge powers and factorials, answers over :data:`MAX_ANSWER_CHARS` only get
  the string comparison); what remains is bounded by the execution layer's deadline, which reports a
  ``timeout`` status instead of verl's silent per-call False after 10 s.

Hacks this route admits, because verl does (``docs/verl-routes-hacks.md``, asserted by
``tests/scorers/test_verl_route_hacks.py`` and checked against verl 0.9.1):
only the last box is read (several boxes, hidden boxes, retractions), units and ``\\text{}`` are cut,
and numbers compare loosely: percent both ways, fullwidth digits, a relative 1e-4 (``3.1416`` for ``\\pi``; here
also ``2^{64}`` for ``2^{64}-1``, which verl's broken symbolic stage misses).
For rewards a policy cannot game this way, route the data source to the hardened ``math_equiv``
(``--route <data_source>=...``, ``register_route``).
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from numbers import Real
from typing import Any, Literal, cast

from ..types import Sample, Score, Status
from . import _sympy_grade
from ._base import Scorer
from ._latex import find_last_boxed

__all__ = [
    "MAX_ANSWER_CHARS",
    "PrimeMathScorer",
    "grade_answer",
    "match_answer",
    "math_equal",
    "normalize_answer",
    "symbolic_equal",
]

Flavor = Literal["prime", "mathruler"]

#: answers (extracted or ground truth) longer than this only get the linear string comparison
MAX_ANSWER_CHARS = 4000
#: math_equal compares at most this many characters of the prediction (verl's clip)
_PREDICTION_CLIP = 1000
_INFO_CLIP = 1000

symbolic_equal = _sympy_grade.symbolic_equal


@dataclass(frozen=True)
class _Dialect:
    """The two shipped copies of the PRM800K grader differ in a few steps; verdicts follow the one in use."""

    percent_marks: tuple[str, ...]
    units: tuple[str, ...]
    squash: bool  # drop spaces and leftover braces at the end of _normalize


_UNITS = (
    "degree", "cm", "centimeter", "meter", "mile", "second", "minute", "hour", "day", "week", "month",
    "year", "foot", "feet", "inch", "yard",
)  # fmt: skip
_DIALECTS: dict[str, _Dialect] = {
    # verl.utils.reward_score.prime_math
    "prime": _Dialect(percent_marks=("\\\\%", "\\%"), units=(*_UNITS, "liter"), squash=False),
    # mathruler.grader (geo3k)
    "mathruler": _Dialect(percent_marks=("\\%", "%"), units=_UNITS, squash=True),
}


def _dialect(flavor: str) -> _Dialect:
    try:
        return _DIALECTS[flavor]
    except KeyError:
        raise ValueError(f"unknown grader flavor {flavor!r}; expected one of {sorted(_DIALECTS)}") from None


# ---------------------------------------------------------------------------------------------------------
# Extraction

_AFTER_MARKERS = ("answer:", "answer is", "answers are")
_BEFORE_MARKERS = ("is answer", "is the answer", "are answers", "are the answers")
_TAIL_MARKERS = ("be ", "is ", "are ", "=", ": ", "get ", "be\n", "is\n", "are\n", ":\n", "get\n")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _ascii_lower(text: str) -> str:
    """Lower-cases A-Z only: the markers are ASCII, and unlike ``str.lower`` the length never changes (verl
    slices the original text at indices found in ``text.lower()``, which drift after characters like "İ")."""
    return text.translate(_ASCII_LOWER)


def match_answer(response: str) -> tuple[bool, str]:
    """``(is_matched, answer)``: PRIME's heuristic extraction of the final answer.

    In order: keep the text after the last ``answer:`` / ``answer is`` / ``answers are``; keep the text
    before ``is (the) answer`` / ``are (the) answers``; take the last non-empty box; cut at the last ``". "``;
    keep the text after the last ``be `` / ``is `` / ``are `` / ``=`` / ``: `` / ``get ``. ``is_matched``
    says a marker or box was seen and the answer contains a digit. Linear time.
    """
    if not isinstance(response, str):
        response = str(response)
    matched = False
    for marker in _AFTER_MARKERS:
        idx = _ascii_lower(response).rfind(marker)
        if idx != -1:
            matched = True
            response = response[idx + len(marker) :].strip()
    for marker in _BEFORE_MARKERS:
        idx = _ascii_lower(response).rfind(marker)
        if idx != -1:
            matched = True
            response = response[:idx].strip()
    box = find_last_boxed(response)
    if box is not None and box[2]:
        matched = True
        response = box[2]
    dot = response.rfind(". ")
    if dot != -1:
        response = response[:dot].strip()
    for marker in _TAIL_MARKERS:
        idx = _ascii_lower(response).rfind(marker)
        if idx != -1:
            matched = True
            response = response[idx + len(marker) :].strip()
    return matched and any(c.isdigit() for c in response), response


# ---------------------------------------------------------------------------------------------------------
# Hendrycks normalisation (``math_normalize.normalize_answer``)


class _KeepOriginal(Exception):
    """A normalisation step hit malformed LaTeX; PRM800K then compares the un-normalised text."""


_TEXT_WRAPPED = re.compile(r"\\text\{(?P<text>.+?)\}$")


def normalize_answer(answer: str | None, *, flavor: Flavor = "prime") -> str | None:
    """Hendrycks' ``_strip_string`` after unwrapping a whole-answer ``\\text{...}``.

    On malformed input (a dangling ``\\sqrt``/``\\frac``, two ``\\text{ `` unit blocks) the stripped,
    unwrapped text is returned unchanged, as PRM800K does.
    """
    return None if answer is None else _mathd_normalize(answer, _dialect(flavor))


def _mathd_normalize(answer: str, dialect: _Dialect) -> str:
    answer = answer.strip()
    wrapped = _TEXT_WRAPPED.match(answer)
    if wrapped is not None:
        answer = wrapped.group("text").strip()
    try:
        return _strip_string(answer, dialect)
    except _KeepOriginal:
        return answer


def _strip_string(s: str, dialect: _Dialect) -> str:
    for old, new in (("\n", ""), ("\\!", ""), ("\\\\", "\\"), ("tfrac", "frac"), ("dfrac", "frac")):
        s = s.replace(old, new)
    for junk in ("\\left", "\\right", "^{\\circ}", "^\\circ", "\\$"):
        s = s.replace(junk, "")
    s = _drop_trailing_units(s)
    for mark in dialect.percent_marks:
        s = s.replace(mark, "")
    s = s.replace(" .", " 0.").replace("{.", "{0.")
    if not s:
        return s
    if s[0] == ".":
        s = "0" + s
    # "k = 3" -> "3" when the left side is at most two characters
    parts = s.split("=")
    if len(parts) == 2 and len(parts[0]) <= 2:
        s = parts[1]
    s = _brace_sqrt(s).replace(" ", "")
    s = _brace_fracs(s)
    if s == "0.5":
        s = "\\frac{1}{2}"
    return _slash_to_frac(s)


def _drop_trailing_units(s: str) -> str:
    if "\\text{ " not in s:
        return s
    parts = s.split("\\text{ ")
    if len(parts) != 2:
        raise _KeepOriginal
    return parts[0]


def _brace_sqrt(s: str) -> str:
    """``\\sqrt3`` -> ``\\sqrt{3}``."""
    if "\\sqrt" not in s:
        return s
    pieces = s.split("\\sqrt")
    out = [pieces[0]]
    for piece in pieces[1:]:
        if not piece:
            raise _KeepOriginal
        out.append("\\sqrt" + piece if piece[0] == "{" else "\\sqrt{" + piece[0] + "}" + piece[1:])
    return "".join(out)


def _brace_fracs(s: str) -> str:
    """``\\frac12`` -> ``\\frac{1}{2}``, ``\\frac1b`` -> ``\\frac{1}{b}``, ``\\frac1{72}`` -> ``\\frac{1}{72}``."""
    pieces = s.split("\\frac")
    out = [pieces[0]]
    for piece in pieces[1:]:
        out.append("\\frac")
        if not piece:
            raise _KeepOriginal
        if piece[0] == "{":
            out.append(piece)
            continue
        if len(piece) < 2:
            return s  # PRM800K gives up on this step only
        a, b, rest = piece[0], piece[1], piece[2:]
        out.append("{" + a + "}{" + b + "}" + rest if b != "{" else "{" + a + "}" + b + rest)
    return "".join(out)


def _slash_to_frac(s: str) -> str:
    """``3/4`` (two plain integers) -> ``\\frac{3}{4}``."""
    parts = s.split("/")
    if len(parts) != 2:
        return s
    try:
        a, b = int(parts[0]), int(parts[1])
    except ValueError:
        return s
    return f"\\frac{{{a}}}{{{b}}}" if s == f"{a}/{b}" else s


# ---------------------------------------------------------------------------------------------------------
# PRM800K normalisation (``grader._normalize``)

_PROPER_COMMA = re.compile(r"(\d)(,)(\d\d\d)($|\D)")
_MIXED_NUMBER = re.compile(r"([0-9]) +([0-9])")
_FRACTION = re.compile(r"^-?[0-9]+.?/0*[1-9][0-9]*.?$")
_BAD_POWERS = (re.compile(r"\^[0-9]+\^"), re.compile(r"\^[0-9][0-9]+"))
_LATEX_SYMBOLS = (("√", "sqrt"), ("π", "pi"), ("∞", "inf"), ("∪", "U"), ("·", "*"), ("×", "*"))


@lru_cache(maxsize=64)
def _unit_pattern(unit: str) -> re.Pattern[str]:
    return re.compile(unit + r"(es)?(s)? *(\^[0-9]+)?")


def _prm_normalize(expr: str, dialect: _Dialect) -> str:
    wrapped = _TEXT_WRAPPED.match(expr)
    if wrapped is not None:
        expr = wrapped.group("text")
    expr = expr.replace("\\%", "%").replace("\\$", "$").replace("$", "").replace("%", "")
    expr = expr.replace(" or ", " , ").replace(" and ", " , ")
    expr = expr.replace("million", "*10^6").replace("billion", "*10^9").replace("trillion", "*10^12")
    for unit in dialect.units:
        expr = _unit_pattern(unit).sub("", expr)
    expr = re.sub(r"\^ *\\circ", "", expr)
    if expr[:1] == "{" and expr[-1:] == "}":
        expr = expr[1:-1]
    expr = re.sub(r",\\! *", "", expr)
    as_float = _to_float(expr)
    if as_float is not None and _is_integral(as_float):
        expr = str(round(as_float))
    if "\\" in expr:
        expr = _latex_to_text(expr)
    expr = re.sub("- *", "-", expr)
    expr = _MIXED_NUMBER.sub(r"\1+\2", expr)
    if dialect.squash:
        expr = expr.replace(" ", "").replace("{", "").replace("}", "")
    expr = expr.lower()
    if _str_is_int(expr):
        expr = str(int(float(expr.replace(",", ""))))
    return expr


def _to_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _is_integral(x: float) -> bool:
    try:
        return abs(x - round(x)) <= 1e-7
    except (OverflowError, ValueError):
        return False


def _str_is_int(text: str) -> bool:
    value = _to_float(_strip_proper_commas(text))
    return value is not None and _is_integral(value)


def _strip_proper_commas(expr: str) -> str:
    """Remove thousands separators (``1,000,000``) but not tuple commas; each pass removes every other one."""
    while True:
        nxt = _PROPER_COMMA.sub(r"\1\3\4", expr)
        if nxt == expr:
            return expr
        expr = nxt


@lru_cache(maxsize=1)
def _latex_converter() -> Any:
    from pylatexenc import latex2text

    return latex2text.LatexNodes2Text()


def _latex_to_text(expr: str) -> str:
    """pylatexenc's LaTeX -> text, with the symbols sympy can read; the input unchanged if it fails."""
    prepared = expr.replace("\\tfrac", "\\frac").replace("\\dfrac", "\\frac").replace("\\frac", " \\frac")
    try:
        text = _latex_converter().latex_to_text(prepared)
    except Exception:  # pylatexenc raises on some malformed input; PRM800K then keeps the text
        return expr
    for old, new in _LATEX_SYMBOLS:
        text = text.replace(old, new)
    return cast("str", text.strip())


# ---------------------------------------------------------------------------------------------------------
# The PRM800K grader


def grade_answer(given_answer: str | None, ground_truth: str, *, flavor: Flavor = "prime") -> bool:
    """OpenAI's PRM800K grader: equal after normalisation, or equal under sympy element by element.

    Rules, in order: Hendrycks-normalised strings equal; PRM800K-normalised strings equal (units, ``$``,
    ``%``, words, ``\\text{}``, LaTeX -> text, case); then tuples/intervals are split on commas (brackets must
    agree) and each element pair must be equal fractions as written (``2/4`` is not ``1/2``), agree on being
    an integer, and have a difference that ``sympy.simplify`` reduces to 0. sympy is skipped for text with
    more than two distinct letters and for ``^{``, ``^(``, ``^12``-style exponents. ``flavor="mathruler"``
    selects the variant shipped in ``mathruler`` (used by geo3k).
    """
    return _prm800k_rule(given_answer, ground_truth, _dialect(flavor)) is not None


def _prm800k_strings_equal(given: str, truth: str, dialect: _Dialect = _DIALECTS["prime"]) -> bool:
    """The first, string-only steps of :func:`_prm800k_rule` (its ``"normalized"`` verdicts)."""
    if _mathd_normalize(truth, dialect) == _mathd_normalize(given, dialect):
        return True
    if len(given) > MAX_ANSWER_CHARS or len(truth) > MAX_ANSWER_CHARS:
        return False
    return _prm_normalize(truth, dialect) == _prm_normalize(given, dialect)


def _prm800k_rule(given: str | None, truth: str, dialect: _Dialect) -> str | None:
    """Which PRM800K rule accepted ``given`` (``"normalized"`` or ``"elementwise"``), or None."""
    if given is None:
        return None
    if _mathd_normalize(truth, dialect) == _mathd_normalize(given, dialect):
        return "normalized"
    if len(given) > MAX_ANSWER_CHARS or len(truth) > MAX_ANSWER_CHARS:
        return None
    truth_n, given_n = _prm_normalize(truth, dialect), _prm_normalize(given, dialect)
    if truth_n == given_n:
        return "normalized"
    if not given_n:
        return None
    truth_parts, given_parts = _split_tuple(truth_n), _split_tuple(given_n)
    if len(truth_parts) > 1 and (truth_n[0] != given_n[0] or truth_n[-1] != given_n[-1]):
        return None
    if len(truth_parts) != len(given_parts):
        return None
    for t, g in zip(truth_parts, given_parts, strict=True):
        if _FRACTION.search(t) and _FRACTION.search(g):
            same = t == g  # unreduced fractions must match as written
        elif _str_is_int(t) != _str_is_int(g):
            same = False
        else:
            same = _equal_under_sympy(t, g)
        if not same:
            return None
    return "elementwise"


def _split_tuple(expr: str) -> list[str]:
    expr = _strip_proper_commas(expr)
    if not expr:
        return []
    inner = expr[1:-1]
    if len(expr) > 2 and expr[0] in "()[]" and expr[-1] in "()[]" and not any(c in inner for c in "()[]"):
        return [part.strip() for part in inner.split(",")]
    return [expr]


def _sympy_allowed(expr: str) -> bool:
    """PRM800K's guard: no unknown words (over two distinct letters) and no exponent towers."""
    letters = {c for c in expr.replace("sqrt", "").replace("frac", "") if c.isalpha()}
    if len(letters) > 2 or "^{" in expr or "^(" in expr:
        return False
    return not any(p.search(expr) for p in _BAD_POWERS)


def _equal_under_sympy(truth: str, given: str) -> bool:
    if not _sympy_allowed(f"({truth})-({given})"):
        return False
    return _sympy_grade.sympy_difference_is_zero(truth, given)


# ---------------------------------------------------------------------------------------------------------
# The math_equal fallback (ToRA / PRIME ``grader.math_equal``)


class _Abort(Exception):
    """verl's fallback raised (an ``x_b`` answer whose ``x`` is not a number, an un-evaluable list ...):
    the whole fallback then counts as not equal."""


_DOLLAR_NUMBER = re.compile(r"\$\d+(\.\d+)?")
_PERCENT_NUMBER = re.compile(r"^\d+(\.\d+)?%$")
_PERCENT_NUMBER_ESCAPED = re.compile(r"^\d+(\.\d+)?\\%$")
_INTERVAL_FORMS = (
    (re.compile(r"^Interval\((.*)\)$"), "[", "]"),
    (re.compile(r"^Interval\.Ropen\((.*)\)$"), "[", ")"),
    (re.compile(r"^Interval\.Lopen\((.*)\)$"), "(", "]"),
    (re.compile(r"^Interval\.open\((.*)\)$"), "(", ")"),
)
_PMATRIX_BEGIN, _PMATRIX_END = "\\begin{pmatrix}", "\\end{pmatrix}"


def math_equal(
    prediction: Any,
    reference: Any,
    *,
    include_percentage: bool = True,
    rel_tol: float = 1e-4,
    pi: float = math.pi,
) -> bool:
    """ToRA-style equivalence: strings, numbers (``rel_tol``; with ``include_percentage`` the reference is
    also tried as ``ref/100`` and ``ref*100``), intervals and tuples element-wise, ``Point(...)`` and matrices,
    then :func:`symbolic_equal`. ``\\pi`` is replaced by ``pi`` and plain arithmetic is evaluated, safely.
    """
    try:
        return _math_equal(prediction, reference, include_percentage, rel_tol, pi)
    except _Abort:
        return False


def _math_equal(prediction: Any, reference: Any, include_percentage: bool, rel_tol: float, pi: float) -> bool:
    def same(p: Any, r: Any) -> bool:  # nested comparisons use the defaults for pi, as verl's do
        return _math_equal(p, r, include_percentage, rel_tol, math.pi)

    prediction, reference = _fallback_normalize(prediction, pi), _fallback_normalize(reference, pi)
    if isinstance(prediction, str):
        prediction = prediction[:_PREDICTION_CLIP]
        if isinstance(reference, str) and (
            prediction.strip().lower() == reference.strip().lower()
            or prediction.replace(" ", "") == reference.replace(" ", "")
        ):
            return True
    pred_num, ref_num = _as_number(prediction), _as_number(reference)
    if pred_num is not None and ref_num is not None:
        candidates = (ref_num / 100, ref_num, ref_num * 100) if include_percentage else (ref_num,)
        return any(math.isclose(c, pred_num, rel_tol=rel_tol) for c in candidates)
    if _is_empty(prediction):
        return False
    reference, prediction = str(reference).strip(), _format_interval(str(prediction).strip())
    pred_bare, ref_bare = _without_brackets(prediction, reference)
    if pred_bare == ref_bare:
        return True
    if (
        prediction
        and reference
        and prediction[0] in "(["
        and prediction[-1] in ")]"
        and (prediction[0], prediction[-1]) == (reference[0], reference[-1])
    ):
        pairs = _pairs(prediction[1:-1].split(","), reference[1:-1].split(","))
        if pairs is not None and all([same(p, r) for p, r in pairs]):  # a list: verl evaluates every pair
            return True
    if "," in prediction and "," in reference:
        pairs = _pairs([x.strip() for x in prediction.split(",")], [x.strip() for x in reference.split(",")])
        if pairs is not None:
            return all([same(p, r) for p, r in pairs])
    if prediction.startswith("Point"):
        if not reference:
            raise _Abort
        if reference[0] == "(" and reference[-1] == ")":
            parts = prediction[prediction.find("(") + 1 : -1].split(",")
            pairs = _pairs(parts, reference[1:-1].split(","))
            if pairs is not None and all([same(p, r) for p, r in pairs]):
                return True
    if _PMATRIX_BEGIN in reference and _matrix_equal(prediction, reference, same):
        return True
    return symbolic_equal(prediction, reference, rel_tol)


def _fallback_normalize(answer: Any, pi: float) -> Any:
    if not isinstance(answer, str):
        return answer
    if _DOLLAR_NUMBER.match(answer):
        return answer[1:]
    if _PERCENT_NUMBER.match(answer) or _PERCENT_NUMBER_ESCAPED.match(answer):
        return answer.replace("\\%", "").replace("%", "")
    if "_" in answer:  # "1010_2": a number with its base subscript; anything else makes verl raise
        try:
            return int(float(answer.split("_")[0]))
        except (ValueError, OverflowError):
            raise _Abort from None
    if "\\pi" in answer:
        return _evaluate_pi(answer, pi)
    return answer


def _evaluate_pi(text: str, pi: float) -> Any:
    """Replace each ``\\pi`` by ``*pi`` right after a digit, else by ``1*pi``; evaluate the result if it is
    plain arithmetic (verl ``eval``s it), else keep the substituted text."""
    pieces = text.split("\\pi")
    out = [pieces[0]]
    last = pieces[0][-1:]
    for piece in pieces[1:]:
        replacement = f"*{pi}" if last.isdigit() else f"1*{pi}"
        out += (replacement, piece)
        last = piece[-1:] or replacement[-1:]
    substituted = "".join(out)
    value = _sympy_grade.numeric_literal(substituted)
    return substituted if value is None else value


def _as_number(value: Any) -> float | None:
    """verl's ``is_digit``: ``float()`` of the text with ``{,}`` or ``,`` removed. An overflow is not a number."""
    text = str(value)
    text = text.replace("{,}", "") if "{,}" in text else text.replace(",", "")
    number = _to_float(text)
    if number is not None and math.isinf(number) and "inf" not in text.lower():
        return None  # float("1" * 400) == inf: verl then calls any two long digit strings equal
    return number


def _is_empty(prediction: Any) -> bool:
    try:
        return not prediction and prediction not in (0, False)
    except Exception:  # truthiness of a sympy relational
        raise _Abort from None


def _format_interval(prediction: str) -> str:
    for pattern, left, right in _INTERVAL_FORMS:
        found = pattern.match(prediction)
        if found:
            return left + found.group(1) + right
    return prediction


def _without_brackets(prediction: str, reference: str) -> tuple[str, str]:
    """Both sides as verl compares them first: outer brackets stripped when the prediction is bracketed and
    the reference does not open with the other kind, then every ``{}()`` removed.

    Unlike verl, the brackets are kept when the reference is itself an interval with other endpoints
    (``[2,5]`` vs ``[2,5)``): verl strips both and accepts a closed interval for a half-open one.
    """
    bracketed = (
        prediction.startswith("[") and prediction.endswith("]") and not reference.startswith("(")
    ) or (prediction.startswith("(") and prediction.endswith(")") and not reference.startswith("["))
    if bracketed and _endpoints_differ(prediction, reference):
        return prediction, reference
    if bracketed:
        prediction, reference = prediction.strip("[]()"), reference.strip("[]()")
    for ch in "{}()":
        prediction, reference = prediction.replace(ch, ""), reference.replace(ch, "")
    return prediction, reference


def _endpoints_differ(prediction: str, reference: str) -> bool:
    """Both sides are bracketed at both ends, by different pairs of brackets: ``[2,5]`` and ``[2,5)``."""
    ends = (reference[:1], reference[-1:])
    return ends[0] in "([" and ends[1] in ")]" and ends != (prediction[0], prediction[-1])


def _pairs(pred_parts: list[Any], ref_parts: list[Any]) -> list[tuple[Any, Any]] | None:
    return list(zip(pred_parts, ref_parts, strict=True)) if len(pred_parts) == len(ref_parts) else None


def _matrix_equal(prediction: str, reference: str, same: Callable[[Any, Any], bool]) -> bool:
    """``Matrix([[..]])`` or a nested list against a LaTeX ``pmatrix`` ground truth, entry by entry."""
    if prediction.startswith("Matrix"):
        matrix = _sympy_grade.parse_sympy_text(prediction, implicit=False)
        entries = reference.split()[1:-1:2]
        try:
            return (
                matrix is not None
                and hasattr(matrix, "__len__")
                and len(matrix) == len(entries)
                and all([same(p, r) for r, p in zip(entries, matrix, strict=True)])
            )
        except (_Abort, TypeError):
            return False
    if not (prediction.startswith("[") and prediction.endswith("]")):
        return False
    rows_given = _sympy_grade.numeric_literal(prediction)
    if rows_given is None:
        raise _Abort  # verl's eval of the prediction raised outside any try
    if not isinstance(rows_given, list):
        return False
    body = reference
    for prefix in ("\\" + _PMATRIX_BEGIN, _PMATRIX_BEGIN):
        body = body.removeprefix(prefix)
    for suffix in ("\\" + _PMATRIX_END, _PMATRIX_END):
        body = body.removesuffix(suffix)
    rows: list[Any] = [row.split("&") if "&" in row else row for row in body.split("\\")]
    try:
        return len(rows_given) == len(rows) and all(
            [same(p, r) for r, p in zip(rows, rows_given, strict=True)]
        )
    except _Abort:
        return False


# ---------------------------------------------------------------------------------------------------------
# The scorer

_PLAIN_NUMBER = re.compile(r"-?[0-9]{1,300}(?:\.[0-9]{1,300})?")


def _judge(extracted: str, truth: str) -> str | None:
    """The rule that accepted ``extracted`` (PRM800K first, then the fallback), or None."""
    rule = _prm800k_rule(extracted, truth, _DIALECTS["prime"])
    if rule is not None:
        return rule
    pis = (math.pi, 3.14) if ("\\pi" in extracted or "\\pi" in truth) else (math.pi,)
    try:
        verdicts = [_math_equal(extracted, truth, True, 1e-4, pi) for pi in pis]
    except _Abort:
        return None
    return "math_equal" if any(verdicts) else None


def _quick_verdict(extracted: str, truth: str) -> tuple[bool, str] | None:
    """The verdict when it is cheap and certain: equal normalised strings (either normaliser: ``score()``
    accepts exactly these before any sympy), or two plain decimal numbers."""
    if extracted == truth or normalize_answer(extracted) == normalize_answer(truth):
        return True, "normalized"
    if _prm800k_strings_equal(extracted, truth):
        return True, "normalized"
    if _PLAIN_NUMBER.fullmatch(extracted) and _PLAIN_NUMBER.fullmatch(truth):
        given, ref = float(extracted), float(truth)
        ok = any(math.isclose(c, given, rel_tol=1e-4) for c in (ref / 100, ref, ref * 100))
        return ok, "math_equal" if ok else "numeric_mismatch"
    return None


def ground_truth_text(value: Any, scorer: str) -> str | Score:
    """The ground truth as text (numbers are stringified, as verl does), or an ``invalid_input`` Score."""
    if isinstance(value, str):
        if value.strip():
            return value
        return Score.failure(
            Status.INVALID_INPUT, f"{scorer} ground_truth is empty; expected the final answer"
        )
    if isinstance(value, Real) and not isinstance(value, bool):
        return str(value)
    return Score.failure(
        Status.INVALID_INPUT,
        f"{scorer} ground_truth must be a string (or a number) holding the final answer; "
        f"got {type(value).__name__} {value!r:.80}",
    )


class PrimeMathScorer(Scorer):
    """verl's ``prime_math`` (NuminaMath sources): 1.0 if the extracted answer is equivalent, else 0.0.

    ``info`` holds ``extracted`` (clipped to 1000 characters), ``format_ok`` (the response has ``Step 2:``
    and a ``\\box``; informational, as in verl), ``answer_found`` (a marker or box was found and the answer
    has a digit), ``matched`` (the answer matched the ground truth) and ``rule`` (which rule accepted the
    answer, or None).
    """

    name = "prime_math"
    execution = "process"
    timeout_s = 10.0
    returns_dict = False

    def warm_up(self) -> None:
        """Import sympy and the LaTeX parser and warm ANTLR's prediction cache, once per process.

        A worker process runs it while unpickling the scorer, before a task's deadline starts
        (see :meth:`__setstate__`), so the first samples a worker scores are not charged for it.
        """
        _sympy_grade.warm_up()

    def __getstate__(self) -> dict[str, Any]:
        # never empty: pickle skips __setstate__ (and so the warm-up) for an object without state
        return {**self.__dict__, "_pickled": True}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({k: v for k, v in state.items() if k != "_pickled"})
        _sympy_grade.warm_up()

    def score(self, sample: Sample) -> Score:
        truth = ground_truth_text(sample.ground_truth, self.name)
        if isinstance(truth, Score):
            return truth
        matched, extracted = match_answer(sample.response)
        return _result(sample.response, extracted, matched, _judge(extracted, truth))

    def quick(self, sample: Sample) -> Score | None:
        truth = ground_truth_text(sample.ground_truth, self.name)
        if isinstance(truth, Score):
            return truth
        matched, extracted = match_answer(sample.response)
        verdict = _quick_verdict(extracted, truth)
        if verdict is None:
            return None
        ok, rule = verdict
        return _result(sample.response, extracted, matched, rule if ok else None)


def _result(response: str, extracted: str, matched: bool, rule: str | None) -> Score:
    info = {
        "extracted": extracted[:_INFO_CLIP],
        "format_ok": "Step 2:" in response and "\\box" in response,
        "answer_found": matched,
        "matched": rule is not None,  # the answer matched the ground truth (not merely: an answer was found)
        "rule": rule,
    }
    return Score(value=1.0 if rule is not None else 0.0, info=info)

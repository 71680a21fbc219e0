"""Hendrycks MATH: the last ``\\boxed{}`` answer, normalised as in lm-eval-harness, compared as a string.

Scope: verl's ``math_reward`` scorer (routed for ``lighteval/MATH``, ``DigitalLearningGmbH/MATH-lighteval``
and ``HuggingFaceH4/MATH-500``): no symbolic maths, only the string normalisation of the original MATH
paper / lm-eval-harness, so it is cheap and runs inline.

Reproduced from verl: :func:`strip_string` applies the same normalisation steps in the same order
(line breaks, ``\\!``, doubled backslashes, ``tfrac``/``dfrac``, ``\\left``/``\\right``, degrees, ``\\$``,
units after ``\\text{ ``, ``\\%``, leading zeros of decimals, a short ``x =`` prefix, ``\\sqrt3``,
``\\frac12``, ``0.5`` and ``a/b``); two answers are equal when their normalised forms are equal. The
reward is 1.0 or 0.0 and verl returns a bare float (``returns_dict = False``).

Where we deliberately differ (each listed in ``docs/verl-differences.md``):

* The answer is the last complete box found by :mod:`rewardloop.scorers._latex`: ``\\fbox{...}`` works
  (verl locates it and then fails an assert, scoring 0), ``\\boxed {5}`` and ``\\boxed 5`` followed by a
  new line are read correctly, an unclosed final box falls back to the last complete one, and the box
  content is stripped of surrounding whitespace.
* verl's normalisation crashes on some inputs (an assert when ``\\text{ `` occurs twice, an index error
  on a trailing ``\\sqrt`` or ``\\frac``) and then silently compares the raw strings. Here those steps do
  the sensible thing: units are cut at the first ``\\text{ ``, and a dangling ``\\sqrt``/``\\frac`` is
  left as it is.
* A ground truth that is not a string is converted when it is a number and is an ``invalid_input``
  failure otherwise (verl compares it raw and always scores 0); an empty ground truth is invalid too.

Hacks this route admits, because verl does (``docs/verl-routes-hacks.md``, asserted by
``tests/scorers/test_verl_route_hacks.py`` and checked against verl 0.9.1):
only the last box is read (several boxes, a box hidden in an HTML comment, ``\\iffalse`` or
``\\phantom``, an earlier contradicting answer and a retraction after the box all score 1.0), and units are cut
at ``\\text{`` and ``\\%`` (``\\boxed{4\\text{ not}}`` is 4, ``\\boxed{0.5\\%}`` is 0.5).
For rewards a policy cannot game this way, route the data source to the hardened ``math_equiv``
(``--route <data_source>=...``, ``register_route``).
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from typing import Any

from ..types import Sample, Score, Status
from ._base import Scorer
from ._latex import last_boxed_content

__all__ = ["HendrycksMathScorer", "fix_a_slash_b", "fix_fracs", "fix_sqrt", "is_equiv", "strip_string"]

# Literal substitutions, in the order the MATH normaliser applies them, before the units are cut off.
_BEFORE_UNITS = (
    ("\n", ""),
    ("\\!", ""),  # negative thin space
    ("\\\\", "\\"),
    ("tfrac", "frac"),
    ("dfrac", "frac"),
    ("\\left", ""),
    ("\\right", ""),
    ("^{\\circ}", ""),
    ("^\\circ", ""),
    ("\\$", ""),
)
# ... and after the units: percent signs, then a 0 in front of bare decimal points.
_AFTER_UNITS = (
    ("\\\\%", ""),
    ("\\%", ""),
    (" .", " 0."),
    ("{.", "{0."),
)
_UNITS_MARKER = "\\text{ "  # in MATH answers "\text{ " only ever introduces units
# An integer as Python's str(int) writes it: no leading zeros, no "+", no "-0".
_INT = r"(?:0|-?[1-9][0-9]*)"
_INT_SLASH_INT = re.compile(rf"({_INT})/({_INT})")


def strip_string(text: str) -> str:
    """:func:`_strip_string`, memoised for short strings (ground truths repeat across a batch)."""
    return _strip_cached(text) if len(text) <= 512 else _strip_string(text)


def _strip_string(text: str) -> str:
    """Normalise a MATH answer the way lm-eval-harness / verl do (see the module docstring for the steps)."""
    for old, new in _BEFORE_UNITS:
        text = text.replace(old, new)
    text = remove_right_units(text)
    for old, new in _AFTER_UNITS:
        text = text.replace(old, new)
    if not text:
        return text
    if text[0] == ".":
        text = "0" + text
    text = _drop_short_lhs(text)
    text = fix_sqrt(text)
    text = text.replace(" ", "")
    text = fix_fracs(text)
    if text == "0.5":
        text = "\\frac{1}{2}"
    return fix_a_slash_b(text)


def remove_right_units(text: str) -> str:
    """Cut a trailing unit: everything from the first ``\\text{ `` on (verl asserts there is only one)."""
    head, found, _ = text.partition(_UNITS_MARKER)
    return head if found else text


def _drop_short_lhs(text: str) -> str:
    """``"k = 3"`` -> ``" 3"``: drop a left-hand side of at most two characters when there is one ``=``."""
    if text.count("=") == 1:
        lhs, _, rhs = text.partition("=")
        if len(lhs) <= 2:
            return rhs
    return text


def fix_sqrt(text: str) -> str:
    """``\\sqrt3`` -> ``\\sqrt{3}``: brace the single character after a brace-less ``\\sqrt``."""
    if "\\sqrt" not in text:
        return text
    first, *rest = text.split("\\sqrt")
    parts = [first]
    for piece in rest:
        if piece and piece[0] != "{":
            parts.append("\\sqrt{" + piece[0] + "}" + piece[1:])
        else:  # already braced, or a dangling "\sqrt" at the end: leave it
            parts.append("\\sqrt" + piece)
    return "".join(parts)


def fix_fracs(text: str) -> str:
    """``\\frac12`` -> ``\\frac{1}{2}``, ``\\frac1{b}`` -> ``\\frac{1}{b}``.

    When a ``\\frac`` has fewer than two characters after it, the string is returned unchanged (as in
    lm-eval), including the dangling ``\\frac`` at the very end on which verl crashes.
    """
    first, *rest = text.split("\\frac")
    parts = [first]
    for piece in rest:
        parts.append("\\frac")
        if piece.startswith("{"):
            parts.append(piece)
        elif len(piece) < 2:
            return text
        elif piece[1] == "{":
            parts.append("{" + piece[0] + "}" + piece[1:])
        else:
            parts.append("{" + piece[0] + "}{" + piece[1] + "}" + piece[2:])
    return "".join(parts)


def fix_a_slash_b(text: str) -> str:
    """``"3/4"`` -> ``\\frac{3}{4}`` when the whole string is two plain integers around one slash."""
    match = _INT_SLASH_INT.fullmatch(text)
    if match is None:
        return text
    return "\\frac{" + match.group(1) + "}{" + match.group(2) + "}"


_strip_cached = functools.lru_cache(maxsize=16384)(_strip_string)


def is_equiv(answer: str | None, ground_truth: str | None) -> bool:
    """True when both normalise to the same string (both None counts as equal, one None as not)."""
    if answer is None or ground_truth is None:
        return answer is None and ground_truth is None
    return strip_string(answer) == strip_string(ground_truth)


def _ground_truth_text(value: Any) -> str | None:
    """The ground truth as a string: strings as given, numbers written out; None for anything else."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real) and math.isfinite(float(value)):
        return repr(float(value))
    return None


class HendrycksMathScorer(Scorer):
    """verl's ``math_reward``: 1.0 when the last boxed answer normalises to the ground truth, else 0.0."""

    name = "hendrycks_math"
    execution = "inline"  # string replacements only: linear time
    returns_dict = False

    def score(self, sample: Sample) -> Score:
        truth = _ground_truth_text(sample.ground_truth)
        if truth is None:
            return Score.failure(
                Status.INVALID_INPUT,
                f"hendrycks_math: ground_truth {sample.ground_truth!r:.80} is not usable; expected a non-empty "
                "LaTeX answer string such as '\\frac{1}{2}' (an int or float is converted)",
            )
        answer = last_boxed_content(sample.response)
        truth_normalized = strip_string(truth)
        if answer is None:
            return Score(value=0.0, info={"extracted": None, "ground_truth_normalized": truth_normalized})
        normalized = strip_string(answer)
        return Score(
            value=1.0 if normalized == truth_normalized else 0.0,
            info={"extracted": answer, "normalized": normalized, "ground_truth_normalized": truth_normalized},
        )

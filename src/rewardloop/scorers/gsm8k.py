"""GSM8K: the final number of a grade-school maths solution, compared with the reference answer.

Scope: verl's ``gsm8k`` scorer (routed for ``data_source="openai/gsm8k"``), the ReFT-style rule reward.

Reproduced from verl:

* ``method="strict"`` takes the number after the **last** ``#### `` marker (the GSM8K answer format);
  ``method="flexible"`` takes the last number anywhere in the text. A number is verl's token
  ``-?[0-9.,]+``; thousands separators are dropped.
* The reward scale: ``score`` (1.0) when the answer equals the ground truth, ``format_score`` (0.0) when
  an answer was extracted but differs, and 0.0 when nothing was extracted. verl returns a bare float, so
  there are no metrics (``returns_dict = False``).

Where we deliberately differ (each listed in ``docs/verl-differences.md``):

* verl searches only the last 300 characters, so a correct ``#### 42`` followed by a long tail scores 0
  (verl #7274). We scan backwards from the end, which looks at the tail first and still finds an answer
  further back; a number is never cut in two.
* Answers are compared as exact decimals (``"18"``, ``"18.0"`` and ``"18.00"`` are equal; no float
  tolerance), not as raw strings.
* ``#### $1,000`` is accepted, and a sentence-ending period is not part of the number (``"then 4."``
  gives ``"4"``). In flexible mode commas are dropped too, and a token without digits (``"..."``) is never
  an answer.
* The ground truth may be a string, an int, a float or a whole GSM8K answer text (``"... #### 18"``); a
  ground truth that holds no number is an ``invalid_input`` failure instead of a silent 0.
* ``method``, ``format_score`` and ``score`` are options of the scorer (verl #7789) and are validated.

Hacks this route admits, because verl does (``docs/verl-routes-hacks.md``, asserted by
``tests/scorers/test_verl_route_hacks.py`` and checked against verl 0.9.1):
the number right after the last ``#### `` is the answer, whatever follows it (``#### 5 or 7`` scores
1.0 for 5, ``#### 5 (wrong)`` too), and earlier contradicting answers are ignored.
For rewards a policy cannot game this way, route the data source to the hardened ``math_equiv``
(``--route <data_source>=...``, ``register_route``).
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, InvalidOperation
from typing import Any

from ..errors import ConfigError
from ..types import Sample, Score, Status
from ._base import Scorer

__all__ = ["GSM8KScorer", "answers_equal", "extract_solution", "normalize_answer"]

_METHODS = ("flexible", "strict")
_MARKER = "#### "
# verl's number token: an optional minus, then digits, dots and commas. Never backtracks.
_TOKEN = re.compile(r"-?[0-9.,]+")
# The last digit-bearing token, matched on the *reversed* text: a digit, then digits/dots/commas, then an
# optional minus. Searching the reversed string finds the last number in one linear pass.
_REVERSED_NUMBER = re.compile(r"[0-9][0-9.,]*-?")
_DECIMAL = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
#: flexible mode first looks at this many trailing characters (verl's clip), then at the whole text
TAIL_CHARS = 300


def extract_solution(text: str, method: str = "strict") -> str | None:
    """The final answer of a GSM8K solution, cleaned (no ``,``/``$``, no trailing period), or None.

    ``strict``: the number right after the last ``#### `` (an optional ``$`` may sit between them).
    ``flexible``: the last number in the text. Never raises on any string; linear time.
    """
    if method not in _METHODS:
        raise ConfigError(f"method must be one of {list(_METHODS)}, got {method!r}")
    if not isinstance(text, str):
        return None
    token = _last_marked_token(text) if method == "strict" else _last_number_token(text)
    return None if token is None else _clean(token)


def _last_marked_token(text: str) -> str | None:
    """The number token after the last ``#### `` that is followed by one (verl's last regex match)."""
    pos = len(text)
    while True:
        start = text.rfind(_MARKER, 0, pos)
        if start < 0:
            return None
        at = start + len(_MARKER)
        if text.startswith("$", at):
            at += 1
        match = _TOKEN.match(text, at)
        if match is not None:
            return match.group()
        pos = start  # occurrences of "#### " cannot overlap, so the next candidate ends before this one


def _last_number_token(text: str) -> str | None:
    """The last token of ``text`` that contains a digit, searching the tail first.

    A match that reaches the left edge of the tail may continue before it, so it is searched again in the
    whole text rather than returned cut in two.
    """
    if len(text) > TAIL_CHARS:
        tail = text[-TAIL_CHARS:]
        match = _REVERSED_NUMBER.search(tail[::-1])
        if match is not None and match.end() < len(tail):
            return match.group()[::-1]
    match = _REVERSED_NUMBER.search(text[::-1])
    return None if match is None else match.group()[::-1]


def _clean(token: str) -> str:
    """Drop thousands separators and ``$``, and a sentence-ending period after the last digit."""
    cleaned = token.replace(",", "").replace("$", "")
    if any(ch.isdigit() for ch in cleaned):
        cleaned = cleaned.rstrip(".")
    return cleaned


def _to_decimal(text: str) -> Decimal | None:
    if not _DECIMAL.fullmatch(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the regex admits only valid literals
        return None


def normalize_answer(value: Any) -> str | None:
    """A ground truth or answer in canonical form (``"1,000.50"`` -> ``"1000.5"``), or None if it holds no number.

    Accepts numbers (not bools), plain number strings (``$`` and ``,`` allowed) and whole GSM8K answer
    texts ending in ``#### N``.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, Decimal):
        return _canonical(value) if value.is_finite() else None
    if isinstance(value, numbers.Real):
        number = float(value)
        return _canonical(Decimal(repr(number))) if math.isfinite(number) else None
    if not isinstance(value, str):
        return None
    return _normalize_text(value) if len(value) <= 4096 else _normalize_text.__wrapped__(value)


@functools.lru_cache(maxsize=8192)
def _normalize_text(value: str) -> str | None:
    # memoised: a batch scores many responses against few distinct ground truths
    text = extract_solution(value, "strict") if _MARKER.strip() in value else _clean(value.strip())
    number = None if text is None else _to_decimal(text)
    return None if number is None else _canonical(number)


def _canonical(number: Decimal) -> str:
    if not number:
        return "0"  # also "-0" and "0.00"
    # normalize() rounds to the context precision (28 digits by default); keep every digit instead
    context = Context(prec=max(28, len(number.as_tuple().digits)), Emax=MAX_EMAX, Emin=MIN_EMIN)
    return format(number.normalize(context), "f")


def answers_equal(answer: str, ground_truth: str) -> bool:
    """Exact decimal equality when both are numbers (``"18" == "18.00"``), else string equality."""
    if answer == ground_truth:
        return True
    a, b = _to_decimal(answer), _to_decimal(ground_truth)
    if a is not None and b is not None:
        return a == b
    return answer == ground_truth


class GSM8KScorer(Scorer):
    """verl's GSM8K reward: ``score`` if the final number is right, ``format_score`` if wrong, 0.0 if none."""

    name = "gsm8k"
    execution = "inline"  # regexes and a backwards scan: linear time, no isolation needed
    returns_dict = False

    def __init__(self, *, method: str = "strict", format_score: float = 0.0, score: float = 1.0) -> None:
        if method not in _METHODS:
            raise ConfigError(f"gsm8k: method must be one of {list(_METHODS)}, got {method!r}")
        self.method = method
        self.format_score = _check_reward("format_score", format_score)
        self.score_value = _check_reward("score", score)

    def score(self, sample: Sample) -> Score:
        truth = normalize_answer(sample.ground_truth)
        if truth is None:
            return Score.failure(
                Status.INVALID_INPUT,
                f"gsm8k: ground_truth {sample.ground_truth!r:.80} holds no number; expected a number, a number "
                "string such as '1,000' or '18.5', or a GSM8K answer text ending in '#### N'",
            )
        extracted = extract_solution(sample.response, self.method)
        if extracted is None:
            value = 0.0
        elif answers_equal(extracted, truth):
            value = self.score_value
        else:
            value = self.format_score
        return Score(value=value, info={"extracted": extracted, "ground_truth": truth})

    def __repr__(self) -> str:
        return (
            f"<GSM8KScorer method={self.method!r} format_score={self.format_score} score={self.score_value}>"
        )


def _check_reward(option: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ConfigError(f"gsm8k: {option} must be a finite number (int or float), got {value!r}")
    return float(value)

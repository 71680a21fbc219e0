"""DAPO / Minerva maths: the answer on the last ``Answer:`` line (or in the last ``\\boxed{}``), normalised.

Scope: verl's ``math_dapo`` scorer, routed for ``data_source`` ``math_dapo``, ``math``,
``math_dapo_reasoning`` and every ``aime*`` source. The reward is +1.0 for a correct answer and **-1.0** for
a wrong or missing one (not 0), and verl returns a dict, so ``acc`` (bool) and ``pred`` (the compared
prediction, ``"[INVALID]"`` when none was found) are reported as metrics (``returns_dict = True``).

Reproduced from verl:

* The prediction is the text after the **last** ``Answer:`` (any case, spaces allowed around the colon)
  up to the end of its line, looked for in the last 300 characters of the response; prediction and
  ground truth are compared after :func:`normalize_final_answer`, the Minerva normalisation (units and
  ``\\text{}`` wrappers dropped, ``\\fracab`` -> ``\\frac{a}{b}``, thousands separators removed, ...),
  including its known quirks (``"an "``/``"a "`` are removed anywhere).
* Without an ``Answer:`` line, the last ``\\boxed{}`` in the last 100 characters decides
  (``pause_tokens_index`` moves that window). ``strict_box_verify=True`` uses only that box and compares
  it with the ground truth as a raw string.

Where we deliberately differ (each listed in ``docs/verl-differences.md``):

* :func:`normalize_final_answer` runs in linear time. verl's regexes rescan to the end of the line from
  every position (``(.*?)(\\$)(.*?)(\\$)(.*)``, ``\\text{`` without ``}`` ...), which is quadratic: about
  1.4 s for a 10 000-character line and hours for a megabyte (verl #6673).
* The ``\\boxed{}`` fallback normalises both sides like the ``Answer:`` line (verl compares raw strings
  there, so ``\\boxed{1,000}`` fails against ``1000``), and both rules read ``\\dfrac``/``\\tfrac`` as
  ``\\frac`` (same value, another size), so ``\\boxed{\\dfrac{1}{2}}`` matches ``\\frac{1}{2}``. The
  reported ``pred`` is unchanged: verl's normalised line, or the raw box content.
* The 300/100-character tail is only a fast path: when it holds neither an ``Answer:`` line nor a box,
  the whole response is searched (last ``Answer:`` line first, then the last box), so an answer followed
  by a long tail is not lost. Boxes are located with :mod:`._latex` (``\\boxed 5``, ``\\fbox{}`` and
  nested braces are understood; an unclosed last box does not hide an earlier complete one), also with
  ``strict_box_verify=True`` (which still compares raw, whitespace-stripped strings).
* ``pause_tokens_index`` positions index the whole response (verl applies them to the 300-character tail).
* A ground truth that is not a non-empty string (an int is accepted) is an ``invalid_input`` failure,
  not a crash (or a match for every empty answer).
* ``pred`` is cut to 300 characters (only a full-text answer can be longer); ``info["pred_chars"]`` keeps
  the length.

Hacks this route admits, because verl does (``docs/verl-routes-hacks.md``, asserted by
``tests/scorers/test_verl_route_hacks.py`` and checked against verl 0.9.1):
the last ``Answer:`` line wins (two lines score the last one) and, without one, only the last box in
the tail is read (several boxes, a hidden box, a retraction after the box score 1.0).
For rewards a policy cannot game this way, route the data source to the hardened ``math_equiv``
(``--route <data_source>=...``, ``register_route``).
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..errors import ConfigError
from ..types import Sample, Score, Status
from ._base import Scorer
from ._latex import find_last_boxed

__all__ = [
    "INVALID",
    "REMOVED_EXPRESSIONS",
    "SUBSTITUTIONS",
    "DapoMathScorer",
    "extract_answer_line",
    "normalize_final_answer",
]

#: the prediction reported when no answer was found (verl's sentinel)
INVALID = "[INVALID]"
#: characters of the response the fast path looks at (verl: ``solution_str[-300:]``)
TAIL_CHARS = 300
#: characters before the end (or before the last pause token) searched for a box (verl: 100)
BOX_WINDOW_CHARS = 100
#: ``pred`` is reported as a metric; longer predictions (only possible off the fast path) are cut to this
MAX_PRED_CHARS = 300

#: plain substring replacements, applied in this order
SUBSTITUTIONS: tuple[tuple[str, str], ...] = (
    ("an ", ""),
    ("a ", ""),
    (".$", "$"),
    ("\\$", ""),
    ("\\ ", ""),
    (" ", ""),
    ("mbox", "text"),
    (",\\text{and}", ","),
    ("\\text{and}", ","),
    ("\\text{m}", "\\text{}"),
)

#: substrings deleted after the substitutions, in this order (units, filler words, spacing macros)
REMOVED_EXPRESSIONS: tuple[str, ...] = (
    "square",
    "ways",
    "integers",
    "dollars",
    "mph",
    "inches",
    "hours",
    "km",
    "units",
    "\\ldots",
    "sue",
    "points",
    "feet",
    "minutes",
    "digits",
    "cents",
    "degrees",
    "cm",
    "gm",
    "pounds",
    "meters",
    "meals",
    "edges",
    "students",
    "childrentickets",
    "multiples",
    "\\text{s}",
    "\\text{.}",
    "\\text{\ns}",
    "\\text{}^2",
    "\\text{}^3",
    "\\text{\n}",
    "\\text{}",
    "\\mathrm{th}",
    "^\\circ",
    "^{\\circ}",
    "\\;",
    ",\\!",
    "{,}",
    '"',
    "\\dots",
)

# Fixed-width patterns: every attempt costs O(1), so re.sub stays linear.
_SHORT_FRAC = re.compile(r"(frac)([^{])(.)")
_SHORT_SQRT = re.compile(r"(sqrt)([^{])")
# "Answer:" then the rest of the line. Each attempt only scans the whitespace after one "answer" and
# then its own line, and a match consumes that line, so the scan is linear.
_ANSWER_LINE = re.compile(r"(?i)Answer\s*:\s*([^\n]+)")


# --------------------------------------------------------------------------------------------------
# Minerva normalisation
# --------------------------------------------------------------------------------------------------


def normalize_final_answer(answer: str) -> str:
    """Minerva's normalisation of a final answer (as in verl's ``math_dapo``), in linear time.

    Keeps the part after the last ``=``, applies :data:`SUBSTITUTIONS`, deletes
    :data:`REMOVED_EXPRESSIONS`, keeps the first ``$...$`` of a line, unwraps ``\\text{}``,
    ``\\textbf{}``, ``\\overline{}`` and ``\\boxed{}``, expands ``\\fracab``/``\\sqrta``, drops ``$`` and,
    for a plain number, thousands separators. Gives exactly verl's result for every string.
    """
    answer = answer.split("=")[-1]
    for before, after in SUBSTITUTIONS:
        answer = answer.replace(before, after)
    for expr in REMOVED_EXPRESSIONS:
        answer = answer.replace(expr, "")
    answer = _keep_first_math_span(answer)
    for macro in ("\\text{", "\\textbf{", "\\overline{"):
        answer = _unwrap_to_first_brace(answer, macro)
    answer = _unwrap_boxed_to_last_brace(answer)
    answer = _SHORT_FRAC.sub("frac{\\2}{\\3}", answer)
    answer = _SHORT_SQRT.sub("sqrt{\\2}", answer)
    answer = answer.replace("$", "")
    if answer.replace(",", "").isdigit():
        answer = answer.replace(",", "")
    return answer.strip()


def _keep_first_math_span(text: str) -> str:
    """Each line holding two or more ``$`` becomes ``$`` + the text between its first two ``$`` + ``$``.

    This is what ``re.sub(r"(.*?)(\\$)(.*?)(\\$)(.*)", "$\\3$", text)`` does (``.`` stops at newlines),
    without rescanning the line from every position.
    """
    if text.count("$") < 2:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        first = line.find("$")
        second = line.find("$", first + 1) if first >= 0 else -1
        if second >= 0:
            lines[i] = "$" + line[first + 1 : second] + "$"
    return "\n".join(lines)


class _NextIndex:
    """``text.find(char, start)`` for non-decreasing ``start`` values, amortised linear over all calls."""

    def __init__(self, text: str, char: str) -> None:
        self.text = text
        self.char = char
        self.found = -2  # not searched yet

    def __call__(self, start: int) -> int:
        if self.found == -1 or self.found >= start:
            return self.found  # nothing further on / still the first occurrence at or after start
        self.found = self.text.find(self.char, start)
        return self.found


def _unwrap_to_first_brace(text: str, macro: str) -> str:
    """Replace ``<macro>...}`` by its content, ending at the first ``}`` on the same line.

    Equivalent to ``re.sub(r"(\\\\macro\\{)(.*?)(\\})", "\\2", text)`` in linear time: the lazy regex
    scans to the end of the line for every unclosed ``\\macro{``.
    """
    start = text.find(macro)
    if start < 0:
        return text
    next_close = _NextIndex(text, "}")
    next_newline = _NextIndex(text, "\n")
    parts: list[str] = []
    copied = 0  # text[:copied] is already in parts
    while start >= 0:
        body = start + len(macro)
        close = next_close(body)
        newline = next_newline(body)
        if close >= 0 and (newline < 0 or close < newline):
            parts.append(text[copied:start])
            parts.append(text[body:close])
            copied = close + 1
            start = text.find(macro, copied)
        else:  # no "}" before the line ends: this occurrence is left as it is
            start = text.find(macro, body)
    parts.append(text[copied:])
    return "".join(parts)


def _unwrap_boxed_to_last_brace(text: str) -> str:
    """Replace ``\\boxed{...}`` by its content, ending at the **last** ``}`` of that line.

    Equivalent to ``re.sub(r"(\\\\boxed\\{)(.*)(\\})", "\\2", text)``: on each line only the first
    ``\\boxed{`` that has a ``}`` after it is unwrapped (the greedy match eats the rest of the line).
    """
    macro = "\\boxed{"
    if macro not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        start = line.find(macro)
        if start < 0:
            continue
        close = line.rfind("}")
        if close >= start + len(macro):
            lines[i] = line[:start] + line[start + len(macro) : close] + line[close + 1 :]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------------------------------


def extract_answer_line(text: str) -> str | None:
    """The text after the last ``Answer:`` (case-insensitive) up to the end of its line, or None."""
    last = None
    for last in _ANSWER_LINE.finditer(text):  # noqa: B007 - we want the last match
        pass
    return None if last is None else last.group(1)


def _last_box(text: str) -> str | None:
    found = find_last_boxed(text)
    return None if found is None else found[2]


# --------------------------------------------------------------------------------------------------
# Scorer
# --------------------------------------------------------------------------------------------------


class DapoMathScorer(Scorer):
    """verl's DAPO maths reward: +1.0 if the final answer is right, -1.0 otherwise; metrics ``acc``, ``pred``."""

    name = "math_dapo"
    execution = "inline"  # string scans and linear-time normalisation: no isolation needed
    returns_dict = True
    metric_keys = ("acc", "pred")
    metric_types: ClassVar[Mapping[str, type]] = {"acc": float, "pred": str}

    def __init__(
        self, *, strict_box_verify: bool = False, pause_tokens_index: Sequence[int] | None = None
    ) -> None:
        if not isinstance(strict_box_verify, bool):
            raise ConfigError(f"math_dapo: strict_box_verify must be a bool, got {strict_box_verify!r}")
        self.strict_box_verify = strict_box_verify
        self.pause_tokens_index = _check_pause_tokens(pause_tokens_index)

    def score(self, sample: Sample) -> Score:
        truth = _ground_truth_text(sample.ground_truth)
        if truth is None:
            return Score.failure(
                Status.INVALID_INPUT,
                f"math_dapo: ground_truth {sample.ground_truth!r:.80} (type {type(sample.ground_truth).__name__}) "
                "is not usable; expected a non-empty str (the final answer) or an int",
            )
        correct, pred, info = self._judge(sample.response, truth)
        if pred is not None and len(pred) > MAX_PRED_CHARS:  # a metric column, not a transcript
            info["pred_chars"] = len(pred)
            pred = pred[:MAX_PRED_CHARS]
        return Score(value=1.0 if correct else -1.0, metrics={"acc": correct, "pred": pred}, info=info)

    def _judge(self, response: str, truth: str) -> tuple[bool, str | None, dict[str, Any]]:
        window = self._box_window(response)
        if self.strict_box_verify:
            box, searched = _last_box(window), "tail"
            if box is None and len(window) < len(response):
                box, searched = _last_box(response), "full"
            return box == truth, box, {"rule": "strict_box", "searched": searched}
        # fast path: the part of the response verl looks at
        verdict = self._minerva_or_box(response[-TAIL_CHARS:], truth, box_text=window, searched="tail")
        if verdict is None and (len(response) > TAIL_CHARS or len(window) < len(response)):
            # the fast path saw only part of the response and found nothing: search all of it
            verdict = self._minerva_or_box(response, truth, box_text=response, searched="full")
        if verdict is None:
            return False, INVALID, {"rule": "none", "normalized_ground_truth": normalize_final_answer(truth)}
        return verdict

    def _box_window(self, response: str) -> str:
        """Where verl looks for a box: the last 100 characters, or the 100 before the last pause token on."""
        if self.pause_tokens_index is None:
            return response[-BOX_WINDOW_CHARS:]
        return response[max(0, self.pause_tokens_index[-1] - BOX_WINDOW_CHARS) :]

    @staticmethod
    def _minerva_or_box(
        text: str, truth: str, *, box_text: str, searched: str
    ) -> tuple[bool, str | None, dict[str, Any]] | None:
        """The ``Answer:`` line of ``text`` decides, else the last box of ``box_text``; None if neither exists."""
        gold = normalize_final_answer(truth)
        line = extract_answer_line(text)
        if line is not None:
            pred = normalize_final_answer(line)
            info = {"rule": "answer_line", "searched": searched, "normalized_ground_truth": gold}
            return _same_answer(pred, gold), pred, info
        box = _last_box(box_text)
        if box is None:
            return None
        normalized = normalize_final_answer(box)
        info = {
            "rule": "boxed",
            "searched": searched,
            "normalized_pred": normalized,
            "normalized_ground_truth": gold,
        }
        return _same_answer(normalized, gold), box, info

    def __repr__(self) -> str:
        return (
            f"<DapoMathScorer strict_box_verify={self.strict_box_verify} "
            f"pause_tokens_index={self.pause_tokens_index}>"
        )


def _same_answer(pred: str, gold: str) -> bool:
    """Equality of two normalised answers, reading ``\\dfrac``/``\\tfrac`` (display/text size) as ``\\frac``."""
    return pred == gold or _frac_variants(pred) == _frac_variants(gold)


def _frac_variants(text: str) -> str:
    return text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")


def _ground_truth_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    return None


def _check_pause_tokens(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    try:
        indices = tuple(value)
    except TypeError:
        indices = ()
    if len(indices) != 4 or not all(
        isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in indices
    ):
        raise ConfigError(
            f"math_dapo: pause_tokens_index must be None or a sequence of 4 ints (character positions), got {value!r}"
        )
    return tuple(int(i) for i in indices)

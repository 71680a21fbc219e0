"""HuggingFace Math-Verify: symbolic equivalence of the model's final answer and the ground truth.

Scope: verl's ``math_verify`` wrapper (not in verl's default dispatch; rewardloop routes the task name
``math_verify`` to it). The ground truth is parsed as ``"\\boxed{" + ground_truth + "}"`` with
``LatexExtractionConfig``, the response with ``(ExprExtractionConfig(), LatexExtractionConfig())``, and the
reward is 1.0 iff some parsed prediction verifies against some parsed gold answer, else 0.0 (also when
nothing could be extracted from the response). verl returns a bare float (``returns_dict = False``).

Deadlines: math-verify guards its own parsing and comparison with ``signal.alarm``, which only works in the
main thread of the main interpreter; anywhere else it raises ``ValueError``, and verl's older in-process
wrapper swallowed that and gave 0.0 to correct answers (verl #3407). We call ``parse(...,
parsing_timeout=None)`` and ``verify(..., timeout_seconds=None)``, so no signal is ever touched and the
scorer gives the same verdict from any thread or event loop. The deadline is the execution layer's:
``execution = "process"`` and ``timeout_s = 30.0`` (verl's default) mean a sympy blow-up is killed
after 30 s and reported with status ``timeout``, never as a wrong answer. verl's ``timeout_score``
option is therefore a failure-policy setting of the runner, not of this scorer.

Where we deliberately differ (each listed in ``docs/verl-differences.md``):

* A ground truth that is not a non-empty str or an int, or one that math-verify cannot parse (for example ``"$"``),
  is a failure (``invalid_input`` / ``parse_error``) rather than a silent 0.0.
* :meth:`MathVerifyScorer.quick` settles the common case inline: the response holds exactly one box,
  its content equals the ground truth up to whitespace, and no "final answer ... is" phrase could make
  math-verify read another answer; that is 1.0 without starting sympy. Anything else is left to
  :meth:`~MathVerifyScorer.score`.

``math_verify`` is imported lazily inside the methods, so importing this module costs nothing.
"""

from __future__ import annotations

import functools
import numbers
import re
from typing import Any

from ..errors import ConfigError, MissingExtraError
from ..types import Sample, Score, Status
from ._base import Scorer
from ._latex import find_last_boxed

__all__ = ["MathVerifyScorer", "math_verify_equal"]

#: longest string kept per parsed candidate in ``Score.info``
_INFO_CHARS = 200
_BOX = "\\boxed"  # math-verify knows \boxed only (an \fbox is not an answer to it)
# math-verify's "final answer ... is X" anchors compete with boxes; quick() only trusts a box they cannot
# outrank: no such phrase, or a single one that introduces the box and cannot reach past it
_FINAL_ANSWER = "final answer"
_ANCHOR_REACH = 140  # "final answer" + up to 100 characters + whitespace + "is", with room to spare
_IS_WORD = re.compile(r"\s(?i:is)")
# what may stand between "final answer" and the box it introduces: a colon or "is", an opening $, \[ or \(
_MAX_GAP = 24
_INTRODUCES_BOX = re.compile(r"\s*:?\s*(?i:is)?\s*:?\s*(?:\$\$?|\\\[|\\\()?\s*")


def _math_verify() -> Any:
    """The ``math_verify`` module, with its one-time "timeout is disabled" warnings turned off."""
    try:
        import math_verify
        import math_verify.grader
        import math_verify.parser
    except ImportError as exc:
        err = MissingExtraError("math_verify", "all")
        err.msg = (
            "'math_verify' is not installed, but it is a core dependency of rewardloop; install it with: "
            "pip install 'math-verify>=0.7' (or reinstall rewardloop)"
        )
        err.args = (err.msg,)
        raise err from exc
    # We disable math-verify's signal timeouts on purpose (the execution layer enforces the deadline), so
    # its warning that "you must provide the logic for timeout interruption yourself" is noise here.
    for module in (math_verify.parser, math_verify.grader):
        if hasattr(module, "TIMEOUT_WARNING_SHOWN"):
            module.TIMEOUT_WARNING_SHOWN = True
    return math_verify


def math_verify_equal(response: str, ground_truth: str) -> tuple[bool | None, list[str], list[str]]:
    """verl's Math-Verify verdict without signal timeouts: ``(verdict, gold_candidates, pred_candidates)``.

    ``verdict`` is None when the ground truth itself could not be parsed. Candidates are returned as
    strings (for diagnostics). Never uses ``signal``; safe in any thread. May be slow on pathological
    input: run it under a deadline (the execution layer does).
    """
    mv = _math_verify()
    gold = list(_parse_gold(ground_truth))
    pred = mv.parse(response, [mv.ExprExtractionConfig(), mv.LatexExtractionConfig()], parsing_timeout=None)
    gold_text, pred_text = _as_text(gold), _as_text(pred)
    if not gold:
        return None, gold_text, pred_text
    ok = any(mv.verify(g, p, timeout_seconds=None) for p in pred for g in gold)
    return ok, gold_text, pred_text


@functools.lru_cache(maxsize=4096)
def _parse_gold(ground_truth: str) -> tuple[Any, ...]:
    """The parsed ``\\boxed{ground_truth}``, once per worker process: a GRPO group shares its ground truth,
    and parsing it is about a third of a verdict. The candidates are immutable (sympy objects, strings)."""
    mv = _math_verify()
    return tuple(
        mv.parse("\\boxed{" + ground_truth + "}", [mv.LatexExtractionConfig()], parsing_timeout=None)
    )


def _as_text(candidates: list[Any]) -> list[str]:
    return [str(c)[:_INFO_CHARS] for c in candidates]


def _collapse(text: str) -> str:
    return " ".join(text.split())


class MathVerifyScorer(Scorer):
    """verl's Math-Verify reward: 1.0 iff the response's answer is equivalent to ``\\boxed{ground_truth}``."""

    name = "math_verify"
    execution = "process"  # sympy can blow up: run in a killable worker
    timeout_s = 30.0
    returns_dict = False

    def __init__(self, *, timeout_s: float | None = None) -> None:
        if timeout_s is not None:
            if isinstance(timeout_s, bool) or not isinstance(timeout_s, numbers.Real) or not timeout_s > 0:
                raise ConfigError(
                    f"math_verify: timeout_s must be a positive number of seconds, got {timeout_s!r}"
                )
            self.timeout_s = float(timeout_s)

    def score(self, sample: Sample) -> Score:
        truth = _ground_truth_text(sample.ground_truth)
        if truth is None:
            return _bad_ground_truth(sample.ground_truth)
        verdict, gold, pred = math_verify_equal(sample.response, truth)
        info = {"gold": gold, "pred": pred}
        if verdict is None:
            return Score.failure(
                Status.PARSE_ERROR,
                f"math_verify: could not parse ground_truth {truth!r:.80} as LaTeX (tried '\\boxed{{...}}')",
                **info,
            )
        return Score(value=1.0 if verdict else 0.0, info={**info, "rule": "math_verify"})

    def quick(self, sample: Sample) -> Score | None:
        """1.0 when the response's only box holds the ground truth (up to whitespace); else None (undecided).

        Declines whenever math-verify might read another answer: several boxes (parsed as a set), an
        ``\\fbox`` (math-verify ignores it), or a "final answer ... is" phrase (math-verify ranks those
        with or above boxes) other than one that directly introduces the box.
        """
        truth = _ground_truth_text(sample.ground_truth)
        response = sample.response
        if truth is None or response.count(_BOX) != 1:
            return None
        found = find_last_boxed(response, (_BOX,))
        if found is None or _collapse(found[2]) != _collapse(truth):
            return None
        if _final_answer_may_win(response, found[0], found[1]):
            return None
        return Score(value=1.0, info={"gold": [truth], "pred": [found[2]], "rule": "quick_exact_box"})

    def __repr__(self) -> str:
        return f"<MathVerifyScorer timeout_s={self.timeout_s}>"


def _final_answer_may_win(response: str, box_start: int, box_end: int) -> bool:
    """Whether a "final answer ... is X" anchor could make math-verify read something other than the box.

    Safe only when there is no such phrase, or exactly one that directly introduces the box ("final
    answer: \\boxed", "final answer is $\\boxed") and no " is" follows the box within the anchor's reach.
    """
    lowered = response.lower()
    total = lowered.count(_FINAL_ANSWER)
    if total == 0:
        return False
    at = lowered.rfind(_FINAL_ANSWER, 0, box_start)
    gap = at + len(_FINAL_ANSWER)
    if total != 1 or at < 0 or box_start - gap > _MAX_GAP:  # the bound also keeps the regex below cheap
        return True
    if not _INTRODUCES_BOX.fullmatch(response, gap, box_start):
        return True
    return _IS_WORD.search(response, box_end, max(box_end, at + _ANCHOR_REACH)) is not None


def _ground_truth_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    return None


def _bad_ground_truth(value: Any) -> Score:
    return Score.failure(
        Status.INVALID_INPUT,
        f"math_verify: ground_truth {value!r:.80} (type {type(value).__name__}) is not usable; "
        "expected a non-empty str (a LaTeX answer such as '\\frac{1}{2}') or an int",
    )

"""verl's ``geo3k`` scorer (``hiyouga/geometry3k``): ``(1 - format_score) * acc + format_score * format``.

* ``format`` is 1.0 when the response is ``<think>...</think>`` followed somewhere by ``\\boxed{...}``: verl's
  ``re.fullmatch(r"<think>.*</think>.*\\\\boxed\\{.*\\}.*", response, re.DOTALL)``, decided here with three
  ``str.find`` calls (same verdict, linear time).
* ``acc`` is 1.0 when the content of the last ``\\boxed{...}`` (the whole response with
  ``use_boxed=False``) is equivalent to the ground truth under the PRM800K grader as shipped in
  ``mathruler`` (:func:`rewardloop.scorers.prime_math.grade_answer` with ``flavor="mathruler"``: same
  rules, with mathruler's small differences in ``%``, units, spaces and braces).

Defaults reproduce verl (``format_score=0.1``, ``use_boxed=True``): a correct, well-formatted answer gets
1.0, a correct answer without ``<think>`` gets 0.9, a wrong one with the format 0.1.

Deliberate differences (docs/verl-differences.md): a response with no box has no answer (mathruler
grades the literal string ``"None"``, so a ground truth "None" was matched by any box-less response); the
box is found by :mod:`rewardloop.scorers._latex` (escaped braces, ``\\boxed 5``, an unclosed last box
falls back to the previous complete one); sympy never runs ``eval``; blow-ups are refused and hard cases
are bounded by the execution layer's deadline.

Hacks this route admits, because verl does (``docs/verl-routes-hacks.md``, asserted by
``tests/scorers/test_verl_route_hacks.py``; verl's geo3k needs mathruler, absent from .venv-verl, so not run there):
only the last box is read (several boxes, hidden boxes, retractions), units and ``\\text{}`` are cut,
fullwidth digits read as digits, and the 0.1 format bonus is paid for an empty ``<think></think>`` and for any
wrong boxed answer.
For rewards a policy cannot game this way, route the data source to the hardened ``math_equiv``
(``--route <data_source>=...``, ``register_route``).
"""

from __future__ import annotations

from numbers import Real
from typing import Any

from ..errors import ConfigError
from ..types import Sample, Score
from ._base import Scorer
from ._latex import find_last_boxed
from .prime_math import grade_answer as _grade_answer
from .prime_math import ground_truth_text, normalize_answer

__all__ = ["Geo3KScorer", "extract_boxed_answer", "format_ok"]

_INFO_CLIP = 1000


def format_ok(response: str) -> bool:
    """``<think>`` at the very start, a later ``</think>``, then ``\\boxed{`` and a ``}`` after it."""
    if not response.startswith("<think>"):
        return False
    think_end = response.find("</think>", len("<think>"))
    if think_end < 0:
        return False
    box = response.find("\\boxed{", think_end + len("</think>"))
    return box >= 0 and response.rfind("}") >= box + len("\\boxed{")


def extract_boxed_answer(response: str) -> str | None:
    """Content of the last complete ``\\boxed{...}`` (``\\fbox`` is not mathruler's box), or None."""
    found = find_last_boxed(response, ("\\boxed",))
    return None if found is None else found[2]


class Geo3KScorer(Scorer):
    """Geometry3K: 0.9 x accuracy + 0.1 x format with the defaults; ``info`` has ``extracted``, ``acc``,
    ``format_ok``."""

    name = "geo3k"
    execution = "process"
    timeout_s = 10.0
    returns_dict = False
    use_boxed: bool
    format_score: float

    def __init__(self, *, use_boxed: bool = True, format_score: float = 0.1) -> None:
        if not isinstance(use_boxed, bool):
            raise ConfigError(f"geo3k use_boxed must be True or False, got {use_boxed!r}")
        if (
            isinstance(format_score, bool)
            or not isinstance(format_score, Real)
            or not 0.0 <= format_score <= 1.0
        ):
            raise ConfigError(f"geo3k format_score must be a number in [0, 1], got {format_score!r}")
        self.use_boxed = use_boxed
        self.format_score = float(format_score)

    def _answer(self, response: str) -> str | None:
        return extract_boxed_answer(response) if self.use_boxed else response

    def score(self, sample: Sample) -> Score:
        truth = ground_truth_text(sample.ground_truth, self.name)
        if isinstance(truth, Score):
            return truth
        answer = self._answer(sample.response)
        correct = answer is not None and _grade_answer(answer, truth, flavor="mathruler")
        return self._result(sample.response, answer, correct)

    def quick(self, sample: Sample) -> Score | None:
        truth = ground_truth_text(sample.ground_truth, self.name)
        if isinstance(truth, Score):
            return truth
        answer = self._answer(sample.response)
        if answer is None:
            return self._result(sample.response, None, False)
        if answer == truth or normalize_answer(answer, flavor="mathruler") == normalize_answer(
            truth, flavor="mathruler"
        ):
            return self._result(sample.response, answer, True)
        return None

    def _result(self, response: str, answer: str | None, correct: bool) -> Score:
        fmt = format_ok(response)
        # the same expression as verl, so that scores match bit for bit
        value = (1.0 - self.format_score) * float(correct) + self.format_score * float(fmt)
        info: dict[str, Any] = {
            "extracted": None if answer is None else answer[:_INFO_CLIP],
            "acc": correct,
            "format_ok": fmt,
        }
        return Score(value=value, info=info)

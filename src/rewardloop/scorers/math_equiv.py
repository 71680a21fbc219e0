"""``math_equiv``: a cascade math verifier — cheap where it can be, symbolic where it must be.

Scope: any math task whose ground truth is a final answer (a LaTeX/plain string, a number, or a list
of acceptable answers). Not routed by default: route a ``data_source`` to it by configuration
(``register_route("my_math", "math_equiv")`` or ``rewardloop score --route my_math=math_equiv``).

The cascade (``Score.info["stage"]`` names the stage that decided, ``info["timings_ms"]`` what each cost):

1. **extract** — every ``\\boxed{}``/``\\fbox{}`` of the response (plus a final-answer phrase written after
   the last box), else every ``<answer>`` tag, else the last "final answer is X" / "Answer: X" /
   ``#### X`` / ``A: X`` phrase (:mod:`._equiv_extract`). Nothing found: ``no_answer``, 0.0.
2. **policy** — :func:`._equiv_extract.select_final` picks the final answer (``multiple_answers``):
   ``"final"`` (default) ignores placeholder boxes (``\\boxed{\\phantom{2}}``, ``\\boxed{Your answer}``) and
   boxes copied from the prompt, treats a box followed by more work and a later box as an intermediate
   result, and takes the last box together with the boxes written right before it; several *different*
   values there, or more than ``max_boxed_values`` distinct boxed values anywhere, are a hedge: 0.0.
   ``"wrong"``: every box is a final answer (all must be right); ``"last"``: only the last box counts.
   Inside one answer a hedge ("3 or 4", ``\\pm`` where the truth has none, a list of candidates for a
   single value) is a list, and a list never equals a single value.
3. **exact** / **normalized** — string equality before / after :func:`._equiv_norm.normalize`
   (delimiters, ``\\left``, ``\\dfrac``, ``\\text{}``, markdown bold, ``\\fbox``, degrees, ``%``, ``$``,
   ``1,000``, units, trailing periods).
4. **structured** — both sides read as trees (:func:`._equiv_norm.parse_structure`): numbers compared
   exactly (fractions, decimals, mixed numbers, scientific notation), decimals at their stated
   precision (:func:`_numbers_equal`: ``\\frac13`` answers a ``0.33`` gold, ``0.33`` does not answer a
   ``\\frac13`` gold), percentages also as hundredths,
   ordered tuples and intervals (brackets must match), unordered sets, lists and unions,
   matrices, equations (``x = 5`` equals ``5``), inequalities (``x > 3`` equals ``(3, \\infty)``; linear ones
   in one variable solved exactly, ``-x > -1`` is ``x < 1``; absolute-value bounds expanded, ``|x - 3| < 2``
   is ``(1, 5)``), solutions written as assignments (``p=5,q=2;p=7,q=2`` is ``(5,2),(7,2)``),
   multiple-choice letters, and text answers (case-insensitive).
5. **symbolic** — leaves that are expressions go to sympy (:mod:`._equiv_sym`): constant values
   compared at 30 digits, expressions with symbols at fixed points (with ``simplify`` as a fallback),
   equations up to a constant factor. Unparseable leaves are equal only when their normalised text
   is (so two different formulas never match through a shared number).

Stages 1–4 are cheap and bounded: :meth:`MathEquivScorer.quick` runs them inline and settles most
samples. Only samples that need stage 5 go to a worker process (``execution = "process"``) under the
execution layer's deadline (``timeout_s``, default 10 s; the sympy cold start is paid in :meth:`MathEquivScorer.warm_up`
when a worker loads the scorer, outside the deadline); this module never spawns threads or uses
signals. A sample that runs out of time is a ``timeout`` failure, never a wrong answer.

Ground truths that are not a non-empty string, a number, or a list of those are ``invalid_input``.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..errors import ConfigError
from ..types import Sample, Score, Status
from ._base import Scorer
from ._equiv_extract import (
    FINAL_ANSWER_RULES,
    MAX_BOXED_VALUES,
    _prompt_text,
    answers_own_question,
    asked_name,
    concluding_value,
    extract_answers,
    names_other_quantity,
    prompt_blanks,
    prompt_facts,
    prompt_options,
    select_final,
)
from ._equiv_norm import (
    Node,
    Unit,
    answer_unit,
    asked_units,
    base_numeral,
    convert_unit,
    counting_value,
    exact_number,
    float_value,
    normalize,
    parse_structure,
    pi_multiple,
    ratio_terms,
    solve_inequality,
    split_top,
    unit_conflict,
    unit_target,
)
from ._equiv_visible import REFUSAL_RULES, redefinition

__all__ = ["MULTIPLE_ANSWERS", "MathEquivScorer", "MathVerdict", "judge"]

MULTIPLE_ANSWERS = FINAL_ANSWER_RULES
_INFO_CHARS = 200
_VAR = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


class _NeedSymbolic(Exception):
    """Raised by the cheap comparison when only the symbolic stage can decide."""


@dataclass
class MathVerdict:
    """What :func:`judge` found: the reward (None = undecided without the symbolic stage) and why."""

    value: float | None
    stage: str
    extracted: list[str] = field(default_factory=list)
    method: str = "none"
    gold_normalized: list[str] = field(default_factory=list)
    pred_normalized: list[str] = field(default_factory=list)
    per_answer: list[bool | None] = field(default_factory=list)
    reason: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    rule: str = (
        ""  # the rule that decided (finer than the stage: "denied", "hedge", "percent_hundredths" ...)
    )

    def info(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "rule": self.rule or ("prose_conclusion" if self.method == "prose" else self.stage),
            "extracted": [a[:_INFO_CHARS] for a in self.extracted],
            "method": self.method,
            "gold_normalized": [g[:_INFO_CHARS] for g in self.gold_normalized],
            "pred_normalized": [p[:_INFO_CHARS] for p in self.pred_normalized],
            "per_answer": list(self.per_answer),
            "reason": self.reason,
            "timings_ms": {k: round(v, 4) for k, v in self.timings_ms.items()},
        }


class _Clock:
    def __init__(self, sink: dict[str, float]) -> None:
        self.sink, self.t = sink, time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.sink[name] = self.sink.get(name, 0.0) + (now - self.t) * 1000
        self.t = now


# the old name, not exported: qa_equiv has a Verdict of its own (one public name, one class); kept so
# code written against it (here and outside) keeps working
Verdict = MathVerdict


def judge(
    response: str,
    golds: Sequence[str],
    *,
    symbolic: bool = True,
    multiple_answers: str = "final",
    rel_tol: float = 1e-4,
    prompt: object = None,
    max_boxed_values: int = MAX_BOXED_VALUES,
) -> MathVerdict:
    """Run the cascade on one response against acceptable gold answers (see the module docstring).

    ``prompt`` (text or chat messages), when given, names the template boxes a response may copy.
    """
    timings: dict[str, float] = {}
    clock = _Clock(timings)
    redefined = redefinition(response)
    if redefined:  # the grader reads the TeX source: a redefined command renders something else
        verdict = MathVerdict(0.0, "no_answer", method="refused", timings_ms=timings, rule="tex_redefinition")
        verdict.reason = f"the response redefines {redefined}: its answer does not read as written"
        return verdict
    found = extract_answers(response)
    if found.refused:  # the response cannot be read at face value (see _equiv_visible)
        reason = REFUSAL_RULES.get(found.refused, found.refused)
        return MathVerdict(0.0, "no_answer", method="refused", reason=reason, rule=found.refused)
    if found.method == "none" and found.text and not found.reopened:
        # no box, tag or phrase: the value the concluding sentence states (see concluding_value)
        stated = concluding_value(found.text, prompt_facts(prompt) if prompt is not None else None)
        if stated is not None:
            found = found._replace(answers=(stated[0],), method="prose", spans=(stated[1],), negated=(False,))
    if prompt is not None and len(found.answers) > 1:
        found = _drop_copied(found, prompt)
    by_option = False
    if prompt is not None and found.answers and all(_is_choice(normalize(g)) for g in golds):
        before = found.answers
        found = _as_options(found, prompt)
        by_option = found.answers != before
    chosen = select_final(
        found,
        normalize,
        rule=multiple_answers,
        # only the blanks of the question are templates ("3 + \\boxed{x} = 7"): a value the prompt's example
        # boxes is an answer like any other when the response boxes it ("\\boxed{7} or \\boxed{5}" is a hedge)
        templates=prompt_blanks(prompt) if prompt is not None else (),
        max_values=max_boxed_values,
    )
    clock.lap("extract")
    verdict = MathVerdict(None, "", list(found.answers), found.method, timings_ms=timings)
    if by_option:
        verdict.rule = "option_content"
    if chosen.ignored:
        verdict.reason = "ignored boxes: " + ", ".join(sorted(set(chosen.ignored)))
    if found.reopened:
        verdict.value, verdict.stage, verdict.rule = 0.0, "no_answer", "reopened_thinking"
        verdict.reason = "a thinking block opened after the answer takes it back"
        return verdict
    if not chosen.answers:
        verdict.value, verdict.stage = 0.0, "no_answer"
        verdict.rule = "truncated" if found.method == "truncated" else "no_answer"
        verdict.reason = verdict.reason or "no boxed answer or answer phrase"
        return verdict
    if prompt is not None and answers_own_question(found, prompt):
        verdict.value, verdict.stage, verdict.rule = 0.0, "no_answer", "own_question"
        verdict.reason = "the answer follows a question the response wrote, not the prompt's"
        return verdict
    if chosen.hedge:
        verdict.value, verdict.stage, verdict.reason = 0.0, "multiple_answers", chosen.hedge
        verdict.rule = "denied" if chosen.hedge.startswith("the response denies") else "hedge"
        return verdict
    answers = list(chosen.answers)
    if (
        len(answers) > 1
        and _numbers_disagree(answers)
        and not _gold_has_items([normalize(g) for g in golds], len(answers))
    ):
        verdict.value, verdict.stage, verdict.rule = 0.0, "multiple_answers", "hedge"
        verdict.reason = (
            "two final answers are different numbers (each may be close to the gold: 0.326 or 0.334)"
        )
        return verdict
    if any(_false_chain(a) for a in answers):
        verdict.value, verdict.stage, verdict.rule = 0.0, "multiple_answers", "false_chain"
        verdict.reason = "a step of the answer's chain of equalities does not hold (x = 2 + 2 = 5)"
        return verdict
    if any(_APPROX_RELATION.search(a) for a in answers) and not any(
        _APPROX_RELATION.search(g) for g in golds
    ):
        # "x \\approx 5" states that x is close to 5, not that it is 5
        verdict.value, verdict.stage, verdict.rule = 0.0, "multiple_answers", "approximation"
        verdict.reason = "the answer states an approximation; the gold is exact"
        return verdict
    other = _other_quantity(found, answers, golds, prompt)
    if other:
        verdict.value, verdict.stage, verdict.rule, verdict.reason = (
            0.0,
            "multiple_answers",
            "other_quantity",
            other,
        )
        return verdict
    mismatch = _unit_mismatch(found, answers, golds, prompt)
    if mismatch:
        converted = _converted(answers, golds, prompt)
        if converted is None:
            verdict.value, verdict.stage, verdict.rule, verdict.reason = (
                0.0,
                "unit",
                "unit_mismatch",
                mismatch,
            )
            return verdict
        answers, verdict.rule, verdict.reason = converted, "unit_conversion", f"{mismatch}: converted"
    echoed = _echoed(answers, golds, prompt) if prompt is not None else ""
    if echoed:
        verdict.value, verdict.stage, verdict.rule = 0.0, "structured", "echoed_question"
        verdict.reason = f"the answer restates the question's expression {echoed[:80]!r}"
        return verdict
    if prompt is not None and any("=" in a for a in answers):
        answers = [_asked_quantity(a, prompt, golds) for a in answers]
    if len(answers) == 1 and _exact(answers[0], golds):
        verdict.value, verdict.stage, verdict.per_answer = 1.0, "exact", [True]
        return verdict  # the common case, settled before any normalisation
    gold_norm = [normalize(g) for g in golds]
    if len(answers) > 1 and _gold_has_items(gold_norm, len(answers)) and not _each_answers(answers, golds):
        joined = ", ".join(answers)  # "(a) \\boxed{3} (b) \\boxed{5}" answers the gold "3, 5"
        # parts labelled (a), (b) ... answer the gold's items in order: a tuple, not a set
        answers = [f"({joined})" if _labelled_parts(found, answers) else joined]
    pred_norm = [normalize(a) for a in answers]
    asked = _asks_percent(prompt)
    bases = _asks_bases(prompt)
    # an angle asked in degrees: by the gold's degree sign, or by the question ("in degrees")
    degrees = any(_DEGREE_MARK.search(g) for g in golds) or (
        prompt is not None
        and "degree" in _prompt_text(prompt)
        and ("angle", "deg", 1) in asked_units(_prompt_text(prompt))
    )
    verdict.gold_normalized, verdict.pred_normalized = gold_norm, pred_norm
    clock.lap("normalize")
    # a decimal gold is met at the precision it states only when it may be a rounded value: without a question,
    # or when the question asks for rounding; "Write 3/2 as a decimal" makes 1.5 exact (1.46 is not 3/2)
    compared = gold_norm
    if prompt is not None and any(_places(g) is not None for g in gold_norm) and not _asks_rounding(prompt):
        compared = [_exact_decimal(g) for g in gold_norm]
    results, stages = [], []
    for raw, norm in zip(answers, pred_norm, strict=True):
        ok, stage = _one_answer(raw, norm, golds, compared, rel_tol, symbolic, clock, asked, bases, degrees)
        results.append(ok)
        stages.append(stage)
    verdict.per_answer = results
    return _combine(verdict, results, stages, len(answers), pred_norm)


_PROMPT_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)


_PLAIN_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$")


def _echoed(answers: Sequence[str], golds: Sequence[str], prompt: object) -> str:
    """The answer when it is a whole formula of the question restated (``\\boxed{\\int_0^1 2x\\,dx}`` for "Compute
    $\\int_0^1 2x\\,dx$", ``\\frac{6}{8}`` for "Write $\\frac{6}{8}$ in lowest terms"): nothing was computed, even
    when its value is the gold's. A plain integer or decimal, or the gold itself, is never an echo; "" when none
    is."""
    norms = [(a, normalize(a)) for a in answers]
    norms = [(a, n) for a, n in norms if n and not _PLAIN_NUMBER.match(n)]
    if not norms:
        return ""  # the common case: a number
    formulas = _prompt_formulas(_prompt_text(prompt)[-4000:])
    if not formulas:
        return ""
    gold_norm = {normalize(g) for g in golds}
    for a, norm in norms:
        if norm in formulas and norm not in gold_norm:
            return a
    return ""


@functools.lru_cache(maxsize=256)  # a GRPO group shares its prompt
def _prompt_formulas(text: str) -> frozenset[str]:
    if "$" not in text and "\\(" not in text and "\\[" not in text:
        return frozenset()
    return frozenset(normalize(next(g for g in m.groups() if g)) for m in _PROMPT_MATH.finditer(text))


_ROUNDING = re.compile(
    r"\bround(?:ed|ing)?\b|\bnearest\b|\bdecimal\s+places?\b|\bto\s+\w+\s+decimals?\b|\bsignificant\s+(?:figures|digits)"
    r"|\bsig\.?\s*figs?\b|\bapproximat|\bestimat|\bcorrect\s+to\b|\baccurate\s+to\b|\b(?:tenths?|hundredths?|"
    r"thousandths?)\b|\bd\.\s?p\.|\u2248|\\approx|\u7cbe\u786e\u5230|\u4fdd\u7559|\u7ea6|\u56db\u820d\u4e94\u5165|\u8fd1\u4f3c",
    re.IGNORECASE,
)


def _asks_rounding(prompt: object) -> bool:
    """Whether the question asks for a rounded or approximate value ("to the nearest tenth", "round",
    "two decimal places", "significant figures", "approximately", "精确到", "保留" ...)."""
    return _rounding_words(_prompt_text(prompt)[-4000:])


@functools.lru_cache(maxsize=256)  # a GRPO group shares its prompt
def _rounding_words(text: str) -> bool:
    return bool(_ROUNDING.search(text))


def _exact_decimal(gold_norm: str) -> str:
    """A plain decimal gold as the exact fraction it writes (``1.5`` -> ``\\frac{3}{2}``): compared exactly,
    not at its stated precision; anything else as it is."""
    if _places(gold_norm) is None:
        return gold_norm
    value = exact_number(gold_norm)
    if value is None:
        return gold_norm
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    return f"{sign}\\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"


_APPROX_RELATION = re.compile(
    r"\\(?:approx|thickapprox|simeq|eqsim|fallingdotseq|risingdotseq)(?![A-Za-z])|\u2248|\u2243"
)


def _numbers_disagree(answers: Sequence[str]) -> bool:
    """Whether two final answers are numbers that differ by more than the rounding of the less precise one
    (``0.326`` and ``0.334`` do; ``\\frac13`` and ``0.333`` do not)."""
    values = []
    for a in answers:
        x = float_value(normalize(a))
        if x is not None:
            m = re.search(r"\.(\d+)", a)
            values.append(
                (x, 0.5 * 10 ** -len(m.group(1)) if m and re.fullmatch(r"\s*-?\d*\.\d+\s*", a) else 0.0)
            )
    for (x, tx), (y, ty) in itertools.combinations(values, 2):
        tol = max(tx, ty, 1e-12 * max(1.0, abs(x), abs(y)))
        if abs(x - y) > tol:
            return True
    return False


def _false_chain(answer: str) -> bool:
    """Whether ``a = b = c`` has two adjacent sides that are numbers and differ (``x = 7 = 5``)."""
    if answer.count("=") < 2:
        return False
    sides = split_top(normalize(answer), "=")
    if len(sides) < 3:
        return False
    values = [float_value(side.strip()) if side.strip() else None for side in sides]
    for a, b in itertools.pairwise(values):
        if a is not None and b is not None and not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            return True
    return False


def _other_quantity(found: Any, answers: Sequence[str], golds: Sequence[str], prompt: object) -> str:
    """Why a final answer names another quantity than the question asks for ("" when none does): "Find x"
    answered ``y = \\boxed{5}``, "What is its area?" answered "the perimeter is 16" (see
    :func:`._equiv_extract.names_other_quantity`). A gold that is itself an equation names its own variable."""
    if prompt is None or any("=" in g for g in golds):
        return ""
    asked = asked_name(prompt)
    if asked is None:
        return ""
    for a in answers:
        given = names_other_quantity(found, a, asked)
        if given:
            return f"the answer gives {given}; the question asks for {asked[1]}"
    return ""


def _unit_mismatch(found: Any, answers: Sequence[str], golds: Sequence[str], prompt: object) -> str:
    """Why a final answer's unit contradicts the unit the gold or the question asks for ("" if none does):
    see :func:`unit_conflict`. A unit word right after a box (``$\\boxed{30}$ radians``) is the box's."""
    gold_units: list[Unit | None] | None = None
    asked: list[Unit] | None = None
    for a in answers:
        after = ""
        if found.method == "boxed" and found.spans:
            for cand, span in zip(found.answers[::-1], found.spans[::-1], strict=True):
                if cand == a:
                    after = found.text[span[1] : span[1] + 40]
                    break
        unit = answer_unit(a, after)
        if unit is None:
            continue
        if gold_units is None:
            gold_units = [answer_unit(g) for g in golds]
            asked = asked_units(_prompt_text(prompt)) if prompt is not None else []
        why = unit_conflict(unit, gold_units, asked or [])
        if why:
            return why
    return ""


def _converted(answers: Sequence[str], golds: Sequence[str], prompt: object) -> list[str] | None:
    """The answers with a number in another unit of the asked kind converted to the unit the gold or the
    question uses (``120\\text{ minutes}`` for "how many hours" is ``2``); None when one of them cannot be
    converted exactly (no fixed size, not a plain number), which leaves the mismatch a wrong answer."""
    gold_units = [answer_unit(g) for g in golds]
    asked = asked_units(_prompt_text(prompt)) if prompt is not None else []
    out = []
    for a in answers:
        unit = answer_unit(a)
        if unit is None:
            return None  # the contradicting unit is a word after the box: nothing to convert inside it
        target = unit_target(unit, gold_units, asked)
        if target is None:
            out.append(a)
            continue
        if unit[0] == "angle" and target[0] == "angle":  # radians and degrees: through pi
            turned = _turn_angle(normalize(a), unit[1])
            if turned is None:
                return None
            out.append(turned)
            continue
        value = exact_number(normalize(a))
        new = convert_unit(value, unit, target) if value is not None else None
        if new is None:
            return None
        out.append(
            str(new.numerator) if new.denominator == 1 else f"\\frac{{{new.numerator}}}{{{new.denominator}}}"
        )
    return out


def _turn_angle(norm: str, unit: str) -> str | None:
    """An angle in radians (a rational multiple of pi) written in degrees, or one in degrees written in radians
    (``q\\pi``); None when it is not such a value."""
    if unit == "rad":
        q = pi_multiple(norm)
        return None if q is None else _fraction_text(q * 180)
    value = exact_number(norm)
    return None if value is None else f"{_fraction_text(value / 180)}\\pi"


def _fraction_text(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    return f"{sign}\\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"


_PART_LABEL = re.compile(
    r"(?:^|[\s,;(])\(?(?:[a-h]|i{1,3}|iv|vi{0,3}|ix|x)\)\s*[:.]?\s*(?:\\\(|\\\[|\$+)?\s*$"
)


def _labelled_parts(found: Any, answers: Sequence[str]) -> bool:
    """Whether every answer's box follows a part label ("(a)", "b)", "(ii)")."""
    if found.method != "boxed" or not found.spans:
        return False
    starts: dict[Any, Any] = {}
    for a, span in zip(found.answers, found.spans, strict=True):
        starts.setdefault(a, span[0])
    for a in answers:
        at = starts.get(a)
        if at is None or not _PART_LABEL.search(found.text, max(0, at - 16), at):
            return False
    return True


def _drop_copied(found: Any, prompt: object) -> Any:
    """Answer phrases that restate an answer phrase of the prompt (a few-shot example's "The answer is (H).")
    are set aside, as boxes copied from the prompt are, unless every candidate is such a copy."""
    from ._equiv_extract import _all_phrases, _is_work

    text = _prompt_text(prompt)
    if not text or not found.spans or len(found.spans) != len(found.answers):
        return found
    stated = {normalize(a) for a, _, _ in _all_phrases(text[-MAX_PROMPT_CHARS:])}
    if not stated:
        return found
    keep = [
        _BOX_AT.match(found.text, span[0]) is not None or normalize(a) not in stated
        for a, span in zip(found.answers, found.spans, strict=True)
    ]
    if all(keep) or not any(keep):
        return found
    # a copy written right before the response's own answer, with no work between, is one of its final answers
    # ("A: 7\nA: 5")
    spans, own = found.spans, list(keep)
    for i in range(len(keep) - 1):
        if not own[i] and own[i + 1] and not _is_work(found.text[spans[i][1] : spans[i + 1][0]]):
            keep[i] = True
    if all(keep):
        return found
    idx = [i for i, k in enumerate(keep) if k]
    negated = found.negated and tuple(found.negated[i] for i in idx)
    return found._replace(
        answers=tuple(found.answers[i] for i in idx),
        spans=tuple(found.spans[i] for i in idx),
        negated=negated,
    )


MAX_PROMPT_CHARS = 20_000
_BOX_AT = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")


def _as_options(found: Any, prompt: object) -> Any:
    """A multiple-choice answer given as an option's content ("the answer is $-i$" where C is $-i$) read as
    that option's letter; content that matches no option, or several, stays as written (and is no letter)."""
    options = prompt_options(prompt)
    if not options:
        return found
    mapped, keep, letters_seen = [], [], False
    for a in found.answers:
        if _is_choice(normalize(a)):
            mapped.append(a)
            keep.append(True)
            letters_seen = True
            continue
        letters = [k for k, content in options.items() if _names_option(a, content)]
        mapped.append(letters[0] if len(letters) == 1 else a)
        keep.append(len(letters) == 1)
    if letters_seen and not all(keep):
        # "The closest answer is 37. The answer is (B).": beside a letter, a value that names no option is
        # the letter's explanation; a value that names another option is still a second answer (a hedge)
        idx = [i for i, k in enumerate(keep) if k]
        spans = found.spans and tuple(found.spans[i] for i in idx)
        negated = found.negated and tuple(found.negated[i] for i in idx)
        return found._replace(answers=tuple(mapped[i] for i in idx), spans=spans, negated=negated)
    return found._replace(answers=tuple(mapped))


def _names_option(answer: str, content: str) -> bool:
    """Whether an answer is an option's content, written the same way or another (cheap stages only)."""
    if normalize(answer) == normalize(content):
        return True
    if judge("\\boxed{" + answer + "}", [content], symbolic=False).value == 1.0:
        return True
    m = _VALUE_WITH_UNIT.match(content.replace("$", " "))  # "$37 \\mu \\mathrm{C}$" names the value 37
    return m is not None and judge("\\boxed{" + answer + "}", [m.group(1)], symbolic=False).value == 1.0


_VALUE_WITH_UNIT = re.compile(
    r"^\s*([-+]?\d+(?:\.\d+)?(?:\s*\\times\s*10\^\{?-?\d+\}?)?)(?:\s|\\mathrm\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z~^{}/·-])+$"
)


def _exact(answer: str, golds: Sequence[str]) -> bool:
    answer = answer.strip()
    for g in golds:  # noqa: SIM110 - a loop: any() over a generator costs more than the compare
        if answer == g.strip():
            return True
    return False


def _asked_quantity(answer: str, prompt: object, golds: Sequence[str]) -> str:
    """``L = R`` read as ``R`` when ``L`` is a quantity the question writes (``|r-s| = 16`` for "find
    :math:`|r-s|`", ``x + y = 4027``) and no gold is an equation; else the answer as written."""
    if any("=" in normalize(g) for g in golds):
        return answer
    norm = normalize(answer)
    sides = split_top(norm, "=")
    if len(sides) != 2 or not sides[0].strip() or not sides[1].strip():
        return answer
    lhs = sides[0].strip()
    if len(lhs) < 2 or not re.search(r"[A-Za-z]", lhs):
        return answer
    text = re.sub(r"\s+", "", _prompt_text(prompt)).replace("\\left", "").replace("\\right", "")
    return sides[1].strip() if lhs in text else answer


def _each_answers(answers: Sequence[str], golds: Sequence[str]) -> bool:
    """Whether every answer alone is the gold, as written or written another way (``(b,c)=(6,5)`` and
    ``(6,5)``): then they are one answer stated twice, not the parts of a multi-part answer. Cheap stages
    only; undecided counts as no."""
    for a in answers:
        try:
            verdict = judge("\\boxed{" + a + "}", golds, symbolic=False)
        except RecursionError:  # pragma: no cover - judge does not recurse here
            return False
        if verdict.value != 1.0:
            return False
    return True


def _gold_has_items(gold_norm: Sequence[str], n: int) -> bool:
    """Whether some gold is a list, set or tuple of exactly ``n`` items."""
    for g in gold_norm:
        node = parse_structure(g)
        if node.kind in ("list", "set", "tuple") and len(node.items) == n:
            return True
    return False


def _one_answer(
    raw: str,
    norm: str,
    golds: Sequence[str],
    gold_norm: Sequence[str],
    rel_tol: float,
    symbolic: bool,
    clock: _Clock,
    asked: bool | None = None,
    bases: frozenset[int] = frozenset(),
    degrees: bool = False,
) -> tuple[bool | None, str]:
    if _exact(raw, golds):
        return True, "exact"
    if "\\pi" in norm or any("\\pi" in g for g in gold_norm):
        angle = _angle_equal(raw, norm, golds, gold_norm, degrees)
        if angle is not None:
            return angle, "structured"
    if "_" in norm or any("_" in g for g in gold_norm):
        based = _base_equal(norm, gold_norm, bases)
        if based is not None:
            return based, "structured"
    p_pct = "%" in raw or "ercent" in raw or "pct" in raw
    p_pct = p_pct and bool(_PERCENT_SIGN.search(raw))
    for graw, g in zip(golds, gold_norm, strict=True):
        if g and norm == g and _percent_as_written(graw, g, asked, p_pct):
            return True, "normalized"
    if ":" in norm and any(":" in g for g in gold_norm):
        terms = ratio_terms(norm)  # "3:2:1" is no "3:2" (read as a quotient it would be); "6:4" is
        golds_terms = [ratio_terms(g) for g in gold_norm]
        if terms is not None and all(t is not None for t in golds_terms):
            return any(_proportional(terms, t) for t in golds_terms if t is not None), "structured"
    if ("C" in norm or "!!" in norm or "binom" in norm) and all(_INTEGER.match(g) for g in gold_norm):
        count = counting_value(norm)  # "C(5,2)", "5!!": a count against an integer gold
        if count is not None:
            return any(count == int(g) for g in gold_norm), "structured"
    pairs = _node_pairs(raw, norm, golds, gold_norm, p_pct, asked)
    undecided = False
    for gnode, pnode in pairs:
        try:
            if _equal(gnode, pnode, rel_tol, None):
                clock.lap("structured")
                return True, "structured"
        except _NeedSymbolic:
            undecided = True
    clock.lap("structured")
    if not undecided:
        return False, "structured"
    if not symbolic:
        return None, "structured"
    from ._equiv_sym import exprs_equal

    for gnode, pnode in pairs:
        try:
            if _equal(gnode, pnode, rel_tol, exprs_equal):
                clock.lap("symbolic")
                return True, "symbolic"
        except _NeedSymbolic:  # pragma: no cover - the symbolic leaf comparison always decides
            pass
    clock.lap("symbolic")
    return False, "symbolic"


_DEGREE_MARK = re.compile(r"\^\s*\{?\s*\\circ|\u00b0|\\degree(?![A-Za-z])")


def _angle_equal(
    raw: str, norm: str, golds: Sequence[str], gold_norm: Sequence[str], degrees: bool
) -> bool | None:
    """An angle in radians against one in degrees, when which is which is unambiguous: a rational multiple of
    pi with no degree sign (``\\frac{\\pi}{2}``) answers a gold in degrees (``90^\\circ``, or ``90`` when the
    question asks for degrees), and an answer with a degree sign (``90^\\circ``) answers a gold that is a
    rational multiple of pi. None when neither reading applies (a bare ``1.5708``, ``\\frac{\\pi}{2}^\\circ``,
    a gold with no degree sign asked for no degrees)."""
    marked = _DEGREE_MARK.search(raw) is not None
    if degrees and not marked:
        q = pi_multiple(norm)
        if q is not None:
            gold_values = [exact_number(g) for g in gold_norm]
            if all(v is not None for v in gold_values):
                return any(q * 180 == v for v in gold_values)
    if marked and "\\pi" not in norm and not any(_DEGREE_MARK.search(g) for g in golds):
        value = exact_number(norm)
        gold_q = [pi_multiple(g) for g in gold_norm]
        if value is not None and all(q is not None for q in gold_q):
            return any(value == q * 180 for q in gold_q if q is not None)
    return None


def _proportional(a: Sequence[Fraction], b: Sequence[Fraction]) -> bool:
    """Two ratios of numbers are the same: as many terms, in proportion (``6:4`` is ``3:2``), none zero."""
    if len(a) != len(b) or not all(a) or not all(b):
        return list(a) == list(b)
    return all(x * b[0] == y * a[0] for x, y in zip(a, b, strict=True))


_PERCENT_SIGN = re.compile(r"%|\\percent\b|\bpercent\b|\bpct\b")
_INTEGER = re.compile(r"^-?\d{1,12}$")
_ASKS_BASE = re.compile(r"\bbase[\s-]*(\d{1,2})\b|_\{?(\d{1,2})\}?(?![\d}])", re.IGNORECASE)


def _asks_bases(prompt: object) -> frozenset[int]:
    """The bases a question names ("in base 3", "base-6", a numeral ``2343_6``)."""
    if prompt is None:
        return frozenset()
    return frozenset(int(a or b) for a, b in _ASKS_BASE.findall(_prompt_text(prompt)[-4000:]))


def _base_equal(norm: str, gold_norm: Sequence[str], bases: frozenset[int]) -> bool | None:
    """A numeral with a numeric subscript is a numeral in that base (``12_{3}`` is 5, never 12): two such
    numerals are equal when their values are; a gold ``1010_2`` is answered by its digits ``1010``; an
    answer ``101_2`` answers the gold ``5``, and the gold ``101`` only when the question names base 2. None
    when neither side is such a numeral."""
    p = base_numeral(norm)
    decided = undecided = False
    for g in gold_norm:
        gb = base_numeral(g)
        if p is None and gb is None:
            continue
        decided = True
        if p is not None and gb is not None:
            if p[2] is not None and p[2] == gb[2]:
                return True
        elif gb is not None:
            if norm == gb[0]:
                return True
            if "_" in norm:  # "40_{\\text{nine}}" for "40_9": the later stages read word bases
                undecided = True
        elif p is not None:
            value = exact_number(g)
            if p[2] is not None and value is not None and value == p[2]:
                return True
            if g == p[0] and p[1] in bases:
                return True
    return False if decided and not undecided else None


def _node_pairs(
    raw: str,
    norm: str,
    golds: Sequence[str],
    gold_norm: Sequence[str],
    p_pct: bool = False,
    asked: bool | None = None,
) -> list[tuple[Node, Node]]:
    """(gold, response) trees to compare: as written, and with a ``%`` read as hundredths.

    ``62.5\\%`` equals ``\\frac{5}{8}`` and ``0.625``; it equals ``62.5`` only when the gold is a percentage
    (see :func:`_percent_as_written`). A number without a percent sign is never multiplied by 100 (``0.5`` is
    not ``50``).
    """
    pairs = []
    for graw, g in zip(golds, gold_norm, strict=True):
        choice = _is_choice(g)
        gnode, pnode = parse_structure(g, choice=choice), parse_structure(norm, choice=choice)
        g_pct = bool(_PERCENT_SIGN.search(graw))
        if _percent_as_written(graw, g, asked, p_pct):
            pairs.append((gnode, pnode))
        if p_pct and g_pct:
            continue  # both percentages: as written only (``1200\\%`` is not ``12\\%``)
        if p_pct and pnode.kind == "number":
            pairs.append((gnode, _hundredths(pnode)))
        if gnode.kind == "number" and g_pct:
            pairs.append((_hundredths(gnode), pnode))
    return pairs


_ASKS_PERCENT = re.compile(r"%|percent|per\s+cent|pct\b", re.IGNORECASE)


def _asks_percent(prompt: object) -> bool | None:
    """Whether the question asks for a percentage; None when there is no question to read."""
    if prompt is None:
        return None
    text = _prompt_text(prompt)
    return bool(_ASKS_PERCENT.search(text)) if text else None


def _percent_as_written(graw: str, gnorm: str, asked: bool | None, p_pct: bool = True) -> bool:
    """Whether the gold and the response may be compared as written when only one has a percent sign
    (``p%`` against ``p``: the sign as a unit rather than as hundredths).

    When the question asks for a percentage. Without a question to read, only for a value outside [-1, 1]:
    ``0.5%`` against a gold ``0.5`` is 0.005, and ``0.5`` against a gold ``0.5%`` is 50% (a policy could
    otherwise add or drop a percent sign and be read both ways). Both with a sign, or neither: as written.
    """
    if p_pct == bool(_PERCENT_SIGN.search(graw)):
        return True
    if asked is not None:
        return asked
    value = exact_number(gnorm)
    return value is not None and abs(value) > 1


def _hundredths(node: Node) -> Node:
    if _places(node.text) is not None:  # a decimal keeps its stated precision: "62.5" -> "0.625"
        return parse_structure(format(Decimal(node.text).scaleb(-2), "f"))
    value = Fraction(node.value) / 100 if node.value is not None else None
    return Node("number", f"({value})", value=value)


def _distinct_numbers(items: Sequence[Node]) -> bool:
    """Whether some two items are constants of different values (``1.46`` and ``1.54``, ``0.33 \\pm 0.004``):
    one value written two ways (``\\frac34`` and ``0.75``), or a decimal and the value it rounds
    (``\\frac13`` and ``0.333``), is not."""
    values: list[tuple[Fraction | float, Fraction | None]] = []
    for k in items:
        if k.kind == "number" and k.value is not None:
            values.append((Fraction(k.value), _unit(k.text)))
        elif k.kind == "expr":
            x = float_value(k.text)
            if x is not None:
                values.append((x, None))
    for i, (a, ua) in enumerate(values):
        for b, ub in values[i + 1 :]:
            gap = abs(Fraction(a) - Fraction(b))
            scale: Fraction = max(Fraction(1), abs(Fraction(a)))
            if gap <= Fraction(1, 10**12) * scale:
                continue
            if any(u is not None and gap * 2 <= u for u in (ua, ub)):
                continue  # a decimal and what it rounds
            return True
    return False


def _combine(
    verdict: MathVerdict, results: list[bool | None], stages: list[str], n: int, values: Sequence[str] = ()
) -> MathVerdict:
    if n > 1 and all(r is True for r in results) and _distinct_numbers([parse_structure(v) for v in values]):
        verdict.value, verdict.stage, verdict.rule = 0.0, "multiple_answers", "hedge"
        verdict.reason = f"{n} final answers of different values, each within the gold's rounding"
        return verdict
    if n > 1 and any(r is False for r in results) and any(r is not False for r in results):
        verdict.value, verdict.stage, verdict.rule = 0.0, "multiple_answers", "hedge"
        verdict.reason = f"{n} distinct final answers, not all equivalent to the ground truth"
        return verdict
    if any(r is None for r in results):
        verdict.stage = "structured"
        return verdict  # undecided: needs the symbolic stage
    verdict.value = 1.0 if all(results) else 0.0
    verdict.stage = stages[-1] if all(results) else _deciding_stage(stages)
    if n > 1 and verdict.value == 0.0:
        verdict.stage, verdict.reason = "multiple_answers", f"{n} distinct final answers, none equivalent"
        verdict.rule = "hedge"
    return verdict


def _deciding_stage(stages: list[str]) -> str:
    return "symbolic" if "symbolic" in stages else stages[-1]


def _is_choice(gold_norm: str) -> bool:
    s = gold_norm.strip("()")
    return len(s) == 1 and s in "ABCDEFGHIJ" and len(gold_norm) <= 3


# ---------------------------------------------------------------------------------------------------------
# structural comparison; ``leaf`` is None in the cheap pass (undecidable leaves raise _NeedSymbolic)

Leaf = Callable[[Any, Any, float], bool | None] | None


def _equal(g: Node, p: Node, rel_tol: float, leaf: Leaf) -> bool:
    if g.text == p.text and g.kind == p.kind:
        return True
    if g.kind == "choice":
        return p.kind == "choice" and p.text == g.text
    if g.kind == "eq" or p.kind == "eq":
        return _equal_eq(g, p, rel_tol, leaf)
    single = _singleton(g, p)
    if single is not None:  # "\\{-2\\}" is the set of the one value -2
        return _equal(*single, rel_tol, leaf)
    if p.kind == "list" and g.kind in ("number", "expr") and len(p.items) > 1:
        # "\\frac34 or 0.75" for the single value 3/4: one value written several ways, as separate boxes of
        # equal values are; any item that is not the gold makes it a hedge, which scores 0; so do two numbers
        # of different values that each round to a rounded gold ("0.326 or 0.334" for 0.33)
        if _distinct_numbers(p.items):
            return False
        return all(_equal(g, item, rel_tol, leaf) for item in p.items)
    if g.kind == "ineq" or p.kind == "ineq":
        return _equal_ineq(g, p, rel_tol, leaf)
    solutions = _solutions_pair(g, p) if g.kind == "list" or p.kind == "list" else None
    if solutions is not None:  # "p=5,q=2;p=7,q=2" is the list of pairs "(5,2),(7,2)"
        return _equal(*solutions, rel_tol, leaf)
    if g.kind == "set" and p.kind == "set":
        gm, pm = _members(g), _members(p)
        if gm is not None and pm is not None:  # two sets written out: their elements, each once
            return _unordered(_once(gm), _once(pm), rel_tol, leaf, sets_apart=True)
    if g.kind in ("set", "list") and p.kind in ("set", "list"):
        return _unordered(g.items, p.items, rel_tol, leaf)
    if g.kind == "list" and p.kind == "tuple":
        # "(1000, 10)" for the gold "10^3, 10": the same values in the same order (an ordered match is
        # stricter than the list's unordered one); not the other way round: a gold pair or interval "(1,3)"
        # is not answered by a list or set "{1,3}"
        plain = all(k.kind not in ("eq", "ineq") for k in (*g.items, *p.items))
        if plain and (p.open, p.close) == ("(", ")") and len(g.items) == len(p.items):
            return _all_pairs(g.items, p.items, rel_tol, leaf)
        return False
    if g.kind == "tuple" and p.kind == "tuple":
        if (g.open, g.close) != (p.open, p.close) or len(g.items) != len(p.items):
            return False
        return _all_pairs(g.items, p.items, rel_tol, leaf)
    if g.kind == "matrix" and p.kind == "matrix":
        if len(g.items) != len(p.items) or any(
            len(a.items) != len(b.items) for a, b in zip(g.items, p.items, strict=True)
        ):
            return False
        return all(_all_pairs(a.items, b.items, rel_tol, leaf) for a, b in zip(g.items, p.items, strict=True))
    if {g.kind, p.kind} == {"matrix", "tuple"}:
        return _vector_equal(g, p, rel_tol, leaf)
    if g.kind == "number" and p.kind == "number":
        return _numbers_equal(g, p, rel_tol)
    if g.kind == "text" or p.kind == "text":  # "\\text{no}" is "No"; a short word may read as an expression
        return {g.kind, p.kind} <= {"text", "expr"} and g.text.lower() == p.text.lower()
    if {g.kind, p.kind} <= {"number", "expr"}:
        return _leaf(g, p, rel_tol, leaf)
    return False


def _solutions_pair(g: Node, p: Node) -> tuple[Node, Node] | None:
    """``(g, p)`` with assignment lists read as tuples, when that is what the other side is written as.

    Both sides assignment lists, or one of them and the other a tuple or a list of tuples; else None
    (``x=1, y=2`` against ``1, 2`` or against ``y=2, x=1`` is compared as written).
    """
    gs = _solutions(g.text) if g.kind == "list" else None
    ps = _solutions(p.text) if p.kind == "list" else None
    if gs is not None and ps is not None:
        return gs, ps
    if gs is not None and _tuples(p):
        return gs, p
    if ps is not None and _tuples(g):
        return g, ps
    return None


def _tuples(node: Node) -> bool:
    if node.kind == "tuple":
        return True
    return node.kind in ("list", "set") and bool(node.items) and all(k.kind == "tuple" for k in node.items)


_ASSIGNED = re.compile(r"^([A-Za-z](?:_\{?\w{1,3}\}?)?)=([^=]+)$")


@functools.lru_cache(maxsize=1024)
def _solutions(text: str) -> Node | None:
    """Solutions written as assignments, as tuples: ``p=5,q=2;p=7,q=2`` -> ``(5,2),(7,2)``; ``x=1,y=2`` ->
    ``(1,2)``; None when ``text`` is not that.

    Every solution assigns the same two or more single-letter variables, in alphabetical order (the
    order of the tuple; ``y=1, x=2`` is ambiguous and is not read as a pair). Solutions are separated by
    ``;`` or start where a variable is assigned again (``x=1,y=2 \\text{ or } x=3,y=4``).
    """
    groups = [split_top(part) for part in split_top(text, ";")] if ";" in text else None
    atoms = [a for group in groups for a in group] if groups else split_top(text)
    pairs = [_ASSIGNED.match(a.strip()) for a in atoms]
    if any(m is None for m in pairs):
        return None
    names = [m.group(1) for m in pairs]  # type: ignore[union-attr]
    width = len(dict.fromkeys(names)) if groups is None else len(groups[0])
    first = names[:width]
    if width < 2 or len(names) % width or first != sorted(set(first)):
        return None
    if groups is not None and any(len(group) != width for group in groups):
        return None
    if any(names[i : i + width] != first for i in range(0, len(names), width)):
        return None
    values = [m.group(2) for m in pairs]  # type: ignore[union-attr]
    tuples = [
        parse_structure("(" + ",".join(values[i : i + width]) + ")") for i in range(0, len(values), width)
    ]
    if len(tuples) == 1:
        return tuples[0]
    return Node("list", ",".join(t.text for t in tuples), tuple(tuples))


def _singleton(g: Node, p: Node) -> tuple[Node, Node] | None:
    if "\\varnothing" in (g.text, p.text):
        return None  # "\\{\\varnothing\\}" is a set with one element, not the empty set
    if g.kind == "set" and len(g.items) == 1 and p.kind not in ("set", "list"):
        return g.items[0], p
    if p.kind == "set" and len(p.items) == 1 and g.kind not in ("set", "list"):
        return g, p.items[0]
    return None


def _vector_equal(g: Node, p: Node, rel_tol: float, leaf: Leaf) -> bool:
    """A one-row or one-column matrix equals the tuple ``(a, b, ...)`` of its entries (not an interval)."""
    matrix, vector = (g, p) if g.kind == "matrix" else (p, g)
    if (vector.open, vector.close) != ("(", ")"):
        return False
    rows = matrix.items
    if all(len(r.items) == 1 for r in rows):
        cells = tuple(r.items[0] for r in rows)
    elif len(rows) == 1:
        cells = rows[0].items
    else:
        return False
    if len(cells) != len(vector.items):
        return False
    gs, ps = (cells, vector.items) if g is matrix else (vector.items, cells)
    return _all_pairs(gs, ps, rel_tol, leaf)


def _numbers_equal(g: Node, p: Node, rel_tol: float) -> bool:
    """Exact numbers must be equal; a decimal is compared at the precision it states.

    * The gold is a rounded decimal (at least two significant digits): a response at least as precise
      (an exact value, or a decimal with as many places) that rounds to it is right: ``\\frac13`` and
      ``0.333`` answer ``0.33``; ``4.57\\times10^{-24}`` answers ``4.6\\times10^{-24}``.
    * The response is the rounded one: it must be right to half a unit of its last place *and* within
      ``rel_tol`` of the gold, so a coarse answer to a precise gold earns nothing: ``0.33333`` answers
      ``\\frac13``, ``0.33`` does not; ``4.6\\times10^{-24}`` does not answer ``4.57\\times10^{-24}``.

    Integers and fractions are exact: ``1000001`` never equals ``1000000``, ``5.4`` never equals ``5``, and
    a one-digit decimal gold (``0.5``) is exact too.
    """
    if g.value == p.value:
        return True
    if g.value is None or p.value is None:
        return False
    gv, pv = Fraction(g.value), Fraction(p.value)
    diff = abs(gv - pv)
    ug, up = _unit(g.text), _unit(p.text)
    if ug is not None and _significant(g.text) >= 2 and (up is None or up <= ug) and diff * 2 <= ug:
        return True
    return (
        up is not None and (ug is None or ug < up) and diff * 2 <= up and diff <= Fraction(rel_tol) * abs(gv)
    )


_SCI_TEXT = re.compile(
    r"^[+-]?(\d*\.\d+)(?:\\times|\\cdot|\*|x)10\^\{?([+-]?\d+)\}?$|^[+-]?(\d*\.\d+)[eE]([+-]?\d+)$"
)


def _unit(text: str) -> Fraction | None:
    """The unit of the last stated digit of a decimal (``"0.125"`` -> 1/1000, ``"4.6e-24"`` -> 1e-25), else None."""
    places = _places(text)
    if places is not None:
        return Fraction(1, 10**places)
    m = _SCI_TEXT.match(text.replace(" ", ""))
    if m is None:
        return None
    mant, exp = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    if abs(int(exp)) > 400:
        return None
    return Fraction(10) ** (int(exp) - len(mant.partition(".")[2]))


def _places(text: str) -> int | None:
    """Digits after the decimal point of a plain decimal (``"0.125"`` -> 3); None for anything else."""
    head, dot, tail = text.partition(".")
    digits = head.lstrip("+-")
    if not dot or not tail.isdigit() or (digits and not digits.isdigit()):
        return None
    return len(tail)


def _significant(text: str) -> int:
    """Significant digits of a decimal's mantissa (``"0.33"`` -> 2, ``"0.5"`` -> 1, ``"4.60e3"`` -> 3)."""
    mant = re.split(r"[eE]|\\times|\\cdot|\*|x", text.replace(" ", ""))[0]
    return len(mant.lstrip("+-").replace(".", "").lstrip("0"))


_INFINITIES = frozenset(("\\infty", "-\\infty"))


def _leaf(g: Node, p: Node, rel_tol: float, leaf: Leaf) -> bool:
    if leaf is None:
        if {g.kind, p.kind} == {"number", "expr"} and (g.text in _INFINITIES or p.text in _INFINITIES):
            return False  # an interval's infinite end is no number
        x, y = float_value(_sym_text(g)), float_value(_sym_text(p))
        tol = max(1e-6, 2 * _gold_tolerance(g))
        if x is not None and y is not None and abs(x - y) > tol * max(1.0, abs(x), abs(y)):
            return False  # two clearly different constants: the symbolic stage (1e-9 at 30 digits) agrees
        raise _NeedSymbolic
    from ._equiv_sym import to_sympy

    # the gold first (a GRPO group shares it, so it is usually cached): when it does not parse, the response
    # is not parsed at all
    a = to_sympy(_sym_text(g))
    b = None if a is None else to_sympy(_sym_text(p))
    if a is None or b is None:
        return False  # unparseable and textually different: never equal through a shared number
    # values of expressions are compared exactly (3.1416 is not pi, e^{-100} is not 0); only a rounded
    # decimal gold is met at the precision it states (1.41 is answered by \sqrt{2})
    return bool(leaf(a, b, _gold_tolerance(g)))


def _gold_tolerance(g: Node) -> float:
    """Half a unit of the last place of a rounded decimal gold (two or more significant digits), relative
    to it; 0.0 for anything else (integers, fractions, expressions: exact)."""
    if g.kind != "number" or g.value is None or g.value == 0:
        return 0.0
    unit = _unit(g.text)
    if unit is None or _significant(g.text) < 2:
        return 0.0
    return float(unit / 2 / abs(Fraction(g.value)))


def _sym_text(node: Node) -> str:
    if node.kind == "number" and isinstance(node.value, Fraction):
        v = node.value
        return str(v.numerator) if v.denominator == 1 else f"({v.numerator})/({v.denominator})"
    return node.text


def _all_pairs(gs: Sequence[Node], ps: Sequence[Node], rel_tol: float, leaf: Leaf) -> bool:
    pending = False
    for a, b in zip(gs, ps, strict=True):
        try:
            if not _equal(a, b, rel_tol, leaf):
                return False
        except _NeedSymbolic:
            pending = True
    if pending:
        raise _NeedSymbolic
    return True


def _literal_set(node: Node) -> bool:
    text = node.text
    if node.kind != "set" or not (text.startswith("\\{") and text.endswith("\\}")):
        return False
    return "\\cup" not in text or len(split_top(text, "\\cup")) == 1  # "\\{1\\} \\cup \\{2\\}" is a union


def _members(node: Node) -> tuple[Node, ...] | None:
    """The elements of a set written out (``\\{1, 2\\}``) or of a union of such sets (``\\{1, 2\\} \\cup
    \\{3\\}`` has the elements 1, 2, 3); None for any other set (a union of intervals)."""
    if _literal_set(node):
        return node.items
    if node.kind == "set" and node.items and all(_literal_set(k) for k in node.items):
        return tuple(m for k in node.items for m in k.items)
    return None


def _once(items: tuple[Node, ...]) -> tuple[Node, ...]:
    """A set's elements with repeats written the same way (or numbers of one value) kept once:
    ``\\{1, 2, 2\\}`` is ``\\{1, 2\\}``."""
    out: list[Node] = []
    for item in items:
        if not any(
            (k.kind, k.text) == (item.kind, item.text)
            or (k.kind == item.kind == "number" and k.value is not None and k.value == item.value)
            for k in out
        ):
            out.append(item)
    return tuple(out)


def _unordered(
    gs: Sequence[Node], ps: Sequence[Node], rel_tol: float, leaf: Leaf, *, sets_apart: bool = False
) -> bool:
    """Whether ``gs`` and ``ps`` pair off as equal items in some order. ``sets_apart``: the items are the
    elements of sets, where an element that is itself a set (``\\{2\\}``) is never the value it holds."""
    if len(gs) != len(ps):
        return False
    left = list(ps)
    pending = False
    for a in gs:
        match = None
        for i, b in enumerate(left):
            if sets_apart and (a.kind == "set") != (b.kind == "set"):
                continue
            try:
                if _equal(a, b, rel_tol, leaf):
                    match = i
                    break
            except _NeedSymbolic:
                pending = True
        if match is None:
            if pending:
                raise _NeedSymbolic
            return False
        left.pop(match)
    return True


_GREEK = (
    "alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|rho|sigma|"
    "tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Sigma|Phi|Psi|Omega"
)  # not \\pi: a constant
_VAR_NAME = re.compile(rf"^(?:[A-Za-z]|\\(?:{_GREEK}))(?:_\{{?\w{{1,3}}\}}?)?$")
# "f(x)", "x(t)", "T(10)", "g_1(a, b)", "f'(x)": a function name applied to short arguments
_FUNCTION_LHS = re.compile(rf"^((?:[A-Za-z]|\\(?:{_GREEK}))(?:_\{{?\w{{1,3}}\}}?)?'*)\(([^()=<>]{{1,24}})\)$")


def _is_var(node: Node) -> bool:
    return node.kind == "expr" and bool(_VAR_NAME.match(node.text))


def _function_lhs(node: Node) -> tuple[str, list[str]] | None:
    m = _FUNCTION_LHS.match(node.text) if node.kind == "expr" else None
    return None if m is None else (m.group(1), [a.strip() for a in m.group(2).split(",")])


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\\A-Za-z]){re.escape(name)}(?![A-Za-z])", text) is not None


_LABEL_COMMANDS = re.compile(
    rf"\\(?:frac|overline|angle|triangle|measuredangle|mathrm|operatorname|{_GREEK})(?![A-Za-z])|_\{{?\w{{1,4}}\}}?"
)


_ABS_OF_VARIABLE = re.compile(r"^\\?(?:left)?\|\s*[a-z]\s*\\?(?:right)?\|$")


def _is_label(node: Node) -> bool:
    """A left-hand side that only names the answer: ``x``, ``\\lambda``, ``f(x)``, ``x(t)``, ``T(10)``,
    ``(p, q)``, ``AB``, ``|AB|``, ``V_1:V_2``, ``\\frac{NO}{BO}`` (names, no numbers or operators)."""
    if _is_var(node) or _function_lhs(node) is not None:
        return True
    if node.kind == "expr" and _ABS_OF_VARIABLE.match(node.text):
        return False  # "|x| = 5" says x is 5 or -5: no label of a value
    if node.kind == "tuple" and node.open == "(":
        return all(_is_var(k) for k in node.items)
    if node.kind not in ("expr", "text") or len(node.text) > 24:  # "AB" reads as a word
        return False
    rest = _LABEL_COMMANDS.sub("", node.text)
    rest = re.sub(r"[{}|:]", "", rest)
    return rest.isascii() and rest.isalpha()


def _equal_eq(g: Node, p: Node, rel_tol: float, leaf: Leaf) -> bool:
    if g.kind == "eq" and p.kind == "eq":
        (gl, gr), (pl, pr) = g.items, p.items
        if _is_var(gl) and _is_var(pl):
            return gl.text == pl.text and _equal(gr, pr, rel_tol, leaf)
        renamed = _rename_bound(gl, pl, pr)
        if renamed is not None:  # f(z) = z is f(x) = x: the argument is a bound name
            return _equal(gr, renamed, rel_tol, leaf)
        if gl.text == pl.text and gl.kind == pl.kind:
            try:
                if _equal(gr, pr, rel_tol, leaf):
                    return True
            except _NeedSymbolic:
                pass
        if leaf is None:
            raise _NeedSymbolic
        return _equations(g, p)
    if g.kind == "eq":
        return _is_label(g.items[0]) and _equal(g.items[1], p, rel_tol, leaf)
    # "x = 5" states 5; so does a computation that holds ("\\frac{28}{4} = 7"), never one that does not ("5 = 7")
    lhs, rhs = p.items
    if not (_is_label(lhs) or _true_computation(lhs, rhs)):
        return False
    renamed = _rename_to_gold(g, lhs, rhs)
    return _equal(g, rhs if renamed is None else renamed, rel_tol, leaf)


_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")


def _rename_to_gold(g: Node, lhs: Node, rhs: Node) -> Node | None:
    """``g(t) = -8t^4 + 7`` answers the gold ``-8x^4 + 7``: the function of one argument, its argument renamed
    to the one variable the gold uses, when the right-hand side does not already use that name; else None
    (the answer is compared as written)."""
    fn = _function_lhs(lhs)
    if fn is None or len(fn[1]) != 1 or not _VAR_NAME.match(fn[1][0]) or g.kind != "expr":
        return None
    arg = fn[1][0]
    letters = set(_LETTER.findall(g.text)) - {"e", "i"}
    if len(letters) != 1 or arg in letters or _mentions(g.text, arg):
        return None
    (var,) = letters
    if _mentions(rhs.text, var) or not _mentions(rhs.text, arg):
        return None
    pattern = re.compile(rf"(?<![\\A-Za-z]){re.escape(arg)}(?![A-Za-z])")
    return parse_structure(pattern.sub(var, rhs.text))


def _true_computation(lhs: Node, rhs: Node) -> bool:
    """Whether ``lhs = rhs`` is plain arithmetic that holds exactly (both sides numbers without symbols)."""
    if lhs.kind not in ("number", "expr") or rhs.kind != "number" or rhs.value is None:
        return False
    if lhs.kind == "number":
        return lhs.value == rhs.value
    x = float_value(lhs.text)
    if x is None:
        return False
    value = Fraction(rhs.value)
    return abs(Fraction(x) - value) <= Fraction(1, 10**12) * max(Fraction(1), abs(value))


def _rename_bound(gl: Node, pl: Node, pr: Node) -> Node | None:
    """``pr`` with the arguments of ``pl`` renamed to those of ``gl``, when both name the same function of
    distinct variables and the names differ (``f(z)`` vs ``f(x)``); None otherwise."""
    gf, pf = _function_lhs(gl), _function_lhs(pl)
    if gf is None or pf is None or gf[0] != pf[0] or len(gf[1]) != len(pf[1]) or gf[1] == pf[1]:
        return None
    names = gf[1] + pf[1]
    if (
        not all(_VAR_NAME.match(a) for a in names)
        or len(set(gf[1])) != len(gf[1])
        or len(set(pf[1])) != len(pf[1])
    ):
        return None
    mapping = dict(zip(pf[1], gf[1], strict=True))
    if any(_mentions(pr.text, t) for t in gf[1] if t not in mapping):
        return None  # f(z) = x: renaming z to x would capture the free x
    pattern = re.compile(
        "|".join(
            rf"(?<![\\A-Za-z]){re.escape(a)}(?![A-Za-z])" for a in sorted(mapping, key=len, reverse=True)
        )
    )
    return parse_structure(pattern.sub(lambda m: mapping[m.group()], pr.text))


def _equations(g: Node, p: Node) -> bool:
    from ._equiv_sym import equations_equal, to_sympy

    sides = []
    for node in (*g.items, *p.items):  # the gold's sides first; stop at the first that does not parse
        side = to_sympy(_sym_text(node))
        if side is None:
            return False
        sides.append(side)
    return bool(equations_equal(*sides))


# inequalities: "x > 3", "3 < x", "-1 \\le x < 2", "-x > -1", "|x - 3| < 2" become intervals or unions
_OPS = {"<": "<", ">": ">", "\\lt": "<", "\\gt": ">", "\\le": "<=", "\\ge": ">="}
_RELATION = re.compile(r"\\le(?![a-z])|\\ge(?![a-z])|\\lt(?![a-z])|\\gt(?![a-z])|<|>")


def _equal_ineq(g: Node, p: Node, rel_tol: float, leaf: Leaf) -> bool:
    gv, pv = _ineq_vars(g), _ineq_vars(p)
    if gv and pv and gv != pv:
        return False  # "x > 2" is not "y > 2"; an interval names no variable
    gi, pi = _as_interval(g), _as_interval(p)
    if gi is None or pi is None:
        return False
    return _equal(gi, pi, rel_tol, leaf)


def _as_interval(node: Node) -> Node | None:
    if node.kind != "ineq":
        return node
    solved = _solve_ineq(node.text)
    return None if solved is None else solved[1]


def _ineq_vars(node: Node) -> frozenset[str]:
    """The variables the inequalities of ``node`` (an inequality, or a list / union of them) bound."""
    if node.kind == "ineq":
        solved = _solve_ineq(node.text)
        return frozenset() if solved is None else frozenset((solved[0],))
    if node.kind in ("list", "set"):
        return frozenset().union(*(_ineq_vars(k) for k in node.items))
    return frozenset()


@functools.lru_cache(maxsize=2048)
def _solve_ineq(text: str) -> tuple[str, Node] | None:
    """(the bounded variable, the interval or union it lies in) of an inequality, or None.

    A linear inequality in one variable is solved exactly (:func:`._equiv_norm.solve_inequality`); else a
    variable or function value standing alone between bounds keeps the bounds as written
    (``x < \\sqrt{2}``, ``0 < f(x) < 1``). Anything else (``x^2 > 1``, two variables) is not an interval.
    """
    split = _split_relations(text)
    if split is None:
        return None
    sides, ops = split
    solved = solve_inequality(sides, ops)
    if solved is not None:
        name, intervals = solved
        return name, parse_structure("\\cup".join(_interval_text(iv) for iv in intervals))
    return _bounds_as_written(sides, ops)


def _split_relations(text: str) -> tuple[list[str], list[str]] | None:
    """The sides and relations (``< <= > >=``) of an inequality, split outside brackets only."""
    sides, ops, start, depth, seen = [], [], 0, 0, 0
    for m in _RELATION.finditer(text):
        head = text[seen : m.start()]
        depth += sum(head.count(c) for c in "([{") - sum(head.count(c) for c in ")]}")
        seen = m.start()
        if depth:
            continue
        sides.append(text[start : m.start()].strip())
        ops.append(_OPS[m.group()])
        start = m.end()
    sides.append(text[start:].strip())
    if not ops or not all(sides):
        return None
    return sides, ops


def _bounds_as_written(sides: list[str], ops: list[str]) -> tuple[str, Node] | None:
    if len(ops) == 1:
        (a, b), op = sides, ops[0]
        if _is_bound(parse_structure(a)) and not _mentions(b, a):
            return a, _interval_from(op, b)
        if _is_bound(parse_structure(b)) and not _mentions(a, b):
            return b, _interval_from(_flip(op), a)
        return None
    if len(ops) != 2:
        return None  # "a < b < c < d": no single bounded variable
    lo, mid, hi = sides
    if not _is_bound(parse_structure(mid)) or _mentions(lo + " " + hi, mid):
        return None
    lo_op, hi_op = ops
    if lo_op[0] == "<" and hi_op[0] == "<":
        return mid, _interval("(" if lo_op == "<" else "[", lo, hi, ")" if hi_op == "<" else "]")
    if lo_op[0] == ">" and hi_op[0] == ">":
        return mid, _interval("(" if hi_op == ">" else "[", hi, lo, ")" if lo_op == ">" else "]")
    return None


def _interval_text(iv: tuple[Any, bool, Any, bool]) -> str:
    lo, lo_closed, hi, hi_closed = iv
    return f"{'[' if lo_closed else '('}{_endpoint(lo)},{_endpoint(hi)}{']' if hi_closed else ')'}"


def _endpoint(v: Any) -> str:
    if v == math.inf or v == -math.inf:
        return "\\infty" if v > 0 else "-\\infty"
    v = Fraction(v)
    if v.denominator == 1:
        return str(v.numerator)
    return f"{'-' if v < 0 else ''}\\frac{{{abs(v.numerator)}}}{{{v.denominator}}}"


def _is_bound(node: Node) -> bool:
    """What an inequality bounds: a variable, or a function value (``0 < f(x) < 1``)."""
    return _is_var(node) or _function_lhs(node) is not None


def _flip(op: str) -> str:
    return op.replace("<", "#").replace(">", "<").replace("#", ">")


def _interval_from(op: str, bound: str) -> Node:
    if op.startswith(">"):
        return _interval("(" if op == ">" else "[", bound, "\\infty", ")")
    return _interval("(", "-\\infty", bound, ")" if op == "<" else "]")


def _interval(open_: str, lo: str, hi: str, close: str) -> Node:
    return parse_structure(f"{open_}{lo},{hi}{close}")


# ---------------------------------------------------------------------------------------------------------
# the scorer


def _gold_list(value: Any) -> list[str] | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return [value] if value.strip() else None
    if isinstance(value, numbers.Integral):
        return [str(int(value))]
    if isinstance(value, numbers.Real):
        return [repr(float(value))] if value == value else None
    if isinstance(value, list | tuple) and value:
        out = [_gold_list(v) for v in value]
        if any(o is None for o in out):
            return None
        return [g for o in out for g in o]  # type: ignore[union-attr]
    return None


@functools.cache
def _warm_up_once() -> None:
    from ._sympy_grade import warm_up

    warm_up()  # sympy, the LaTeX parser and its prediction cache
    # one comparison per path of the symbolic stage: plain text, LaTeX (ANTLR), an equation
    judge("\\boxed{(x+1)^2}", ["x^2+2x+1"])
    judge("\\boxed{\\frac{\\sqrt{2}}{2}+\\pi}", ["\\pi+\\frac{1}{\\sqrt2}"])
    judge("\\boxed{2x-y+3=0}", ["y=2x+3"])


class MathEquivScorer(Scorer):
    """Cascade math verifier: exact, normalised, structured, then symbolic equivalence (see module doc)."""

    name = "math_equiv"
    multiple_answers: str
    rel_tol: float
    max_boxed_values: int
    execution = "process"  # only the symbolic stage gets here: quick() settles the rest inline
    # the symbolic stage takes milliseconds (the slowest real answer seen: ~0.4 s on a loaded machine); the
    # cold start (importing sympy and the LaTeX parser) is paid by warm_up() while a worker unpickles the
    # scorer, before the deadline starts, so the deadline no longer has to cover it (it was 30 s)
    timeout_s = 10.0
    returns_dict = False
    metric_keys = ("acc",)

    def __init__(
        self,
        *,
        multiple_answers: str = "final",
        rel_tol: float = 1e-4,
        timeout_s: float | None = None,
        max_boxed_values: int = MAX_BOXED_VALUES,
    ) -> None:
        if multiple_answers not in MULTIPLE_ANSWERS:
            raise ConfigError(
                f"math_equiv: multiple_answers must be one of {list(MULTIPLE_ANSWERS)}, got {multiple_answers!r}"
            )
        if isinstance(rel_tol, bool) or not isinstance(rel_tol, numbers.Real) or not 0 <= rel_tol < 1:
            raise ConfigError(f"math_equiv: rel_tol must be a number in [0, 1), got {rel_tol!r}")
        if timeout_s is not None:
            if isinstance(timeout_s, bool) or not isinstance(timeout_s, numbers.Real) or not timeout_s > 0:
                raise ConfigError(f"math_equiv: timeout_s must be a positive number, got {timeout_s!r}")
            self.timeout_s = float(timeout_s)
        if (
            isinstance(max_boxed_values, bool)
            or not isinstance(max_boxed_values, int)
            or max_boxed_values < 1
        ):
            raise ConfigError(
                f"math_equiv: max_boxed_values must be an integer >= 1, got {max_boxed_values!r}"
            )
        self.multiple_answers = multiple_answers
        self.rel_tol = float(rel_tol)
        self.max_boxed_values = max_boxed_values

    def warm_up(self) -> None:
        """Pay the symbolic stage's cold start now: import sympy and the LaTeX parser, compare once.

        Runs once per process. A worker process calls it while it unpickles the scorer (see
        :meth:`__setstate__`), which the execution layer does *before* a task's deadline starts, so the
        first symbolic sample a worker gets is not charged the seconds of importing sympy.
        """
        _warm_up_once()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        _warm_up_once()

    def quick(self, sample: Sample) -> Score | None:
        """The verdict of stages 1-4 when they decide; None when only the symbolic stage can."""
        return self._run(sample, symbolic=False)

    def score(self, sample: Sample) -> Score:
        score = self._run(sample, symbolic=True)
        assert score is not None  # the symbolic stage always decides
        return score

    def _run(self, sample: Sample, *, symbolic: bool) -> Score | None:
        golds = _gold_list(sample.ground_truth)
        if golds is None:
            return Score.failure(
                Status.INVALID_INPUT,
                f"math_equiv: ground_truth {sample.ground_truth!r:.80} (type "
                f"{type(sample.ground_truth).__name__}) is not usable; expected a non-empty str, a number, "
                "or a list of those",
            )
        verdict = judge(
            sample.response,
            golds,
            symbolic=symbolic,
            multiple_answers=self.multiple_answers,
            rel_tol=self.rel_tol,
            prompt=sample.prompt,
            max_boxed_values=self.max_boxed_values,
        )
        if verdict.value is None:
            return None
        value = float(verdict.value)
        return Score._ok(value, {"acc": value == 1.0}, verdict.info())

    def __repr__(self) -> str:
        return (
            f"<MathEquivScorer multiple_answers={self.multiple_answers!r} rel_tol={self.rel_tol} "
            f"timeout_s={self.timeout_s}>"
        )

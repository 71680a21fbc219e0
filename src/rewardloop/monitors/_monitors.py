"""The text monitors: hedged answers, answers copied from the prompt, repetition, compressibility,
gibberish, tag spam and responses ending in the overlong zone.

Thresholds are defaults chosen to stay quiet on ordinary correct solutions (``tests/test_monitors.py``
holds a clean batch that none of them flags); each monitor takes its own. All scans are linear.
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ..errors import ConfigError
from ..scorers import all_closers
from ..shaping import ngram_repetition
from ..types import Sample, Score
from ._answers import (
    asks_for_all,
    mc_choice,
    mc_options,
    numeric_value,
    prompt_parts,
    same_value,
    uncertain,
    word_pieces,
)
from ._base import Flag, Monitor

__all__ = [
    "CompressionMonitor",
    "CopiedAnswerMonitor",
    "GibberishMonitor",
    "HedgingMonitor",
    "OverlongZoneMonitor",
    "RepetitionMonitor",
    "TagSpamMonitor",
    "boxed_answers",
    "default_monitors",
    "final_answer",
    "final_answers",
    "prompt_text",
]

_MAX_ANSWERS = 64  # boxes read per response: enough to see hedging, bounded for a spammed response


def boxed_answers(text: str) -> list[str]:
    """The contents of every ``\\boxed{...}`` / ``\\fbox{...}`` in order (unclosed ones skipped).

    One pass over the braces finds every closer, so a response of many unclosed boxes stays linear.
    """
    return [content for content, _ in _boxes(text)]


def _boxes(text: str) -> list[tuple[str, str]]:
    """Every box's content with the text between it and the box before it (from the start for the first)."""
    out: list[tuple[str, str]] = []
    closers: dict[int, int] | None = None
    prev = 0
    for m in _BOX.finditer(text):
        if closers is None:
            closers = all_closers(text)
        close = closers.get(m.end() - 1)
        if close is not None:
            out.append((text[m.end() : close], text[prev : m.start()]))
            prev = close + 1
            if len(out) >= _MAX_ANSWERS:
                break
    return out


_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")


def _answer_tags(text: str) -> list[str]:
    """The bodies of ``<answer>...</answer>`` pairs (case-insensitive), found with ``str.find``: linear."""
    lower, i = text.lower(), 0
    out: list[str] = []
    while len(out) < _MAX_ANSWERS:
        start = lower.find("<answer>", i)
        if start < 0:
            break
        end = lower.find("</answer>", start + 8)
        if end < 0:
            break
        out.append(text[start + 8 : end])
        i = end + 9
    return out


_ANSWER_IS = re.compile(r"(?:final answer|the answer)\s*(?:is|:)\s*([^\n]{1,120})", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(\\]|\s*$)|[。！？]")


def _sentence(span: str) -> str:
    """``span`` up to the end of its sentence ("-1.9%." ends at the period; "0.5" does not end at its point)."""
    m = _SENTENCE_END.search(span)
    return span if m is None else span[: m.end()]


_GSM8K = re.compile(r"####\s*([^\n]{1,60})")


def final_answers(text: str) -> list[str]:
    """Every final-answer span of a response: boxes, ``<answer>`` tags, "the answer is ...", ``#### ...``."""
    spans = boxed_answers(text) + _answer_tags(text)
    for pattern in (_GSM8K, _ANSWER_IS):
        found = itertools.islice(pattern.finditer(text), _MAX_ANSWERS)
        spans += [m.group(1) if pattern is _GSM8K else _sentence(m.group(1)) for m in found]
    return spans


def final_answer(text: str) -> str | None:
    """The answer a grader would read: the last box, else the last ``<answer>`` / ``####`` / "answer is" span."""
    boxes = boxed_answers(text)
    if boxes:
        return boxes[-1]
    rest = final_answers(text)
    return rest[-1] if rest else None


def _norm(answer: str) -> str:
    """Whitespace, ``$`` and a trailing period dropped: ``$ 42 $.`` and ``42`` are one answer."""
    return re.sub(r"\s+|\$", "", answer).rstrip(".").strip()


_PLACEHOLDER = re.compile(r"\\phantom\{[^{}]*\}|\?+|\\square|\\_+|_+")
_HEDGE = re.compile(r"(?:\s|\\text\{\s*|\\quad|\\mbox\{\s*)(?:or|either)(?:\s|\s*\})|\\lor\b", re.IGNORECASE)
_HEDGE_SPLIT = re.compile(r"\\text\{\s*or\s*\}|\\mbox\{\s*or\s*\}|\\lor\b|\bor\b|\beither\b", re.IGNORECASE)


_RESTATE = re.compile(
    r"=|or\s+(?:equivalently|simply)|i\.?e\.?|that\s+is|equivalently|which\s+(?:is|equals|simplifies\s+to)"
    r"|or\s+in\s+\w+\s+form|即|也就是",
    re.IGNORECASE,
)
_GAP_NOISE = re.compile(r"[\s$,.:;]|\\[()\[\]]")


def _distinct(values: list[str], gaps: list[str] | None = None) -> list[str]:
    """``values`` with every answer that is one value written another way (:func:`._answers.same_value`) dropped.

    With ``gaps`` (the text before each value), a value restated right after the previous one ("\\boxed{a} =
    \\boxed{b}", "or equivalently", "i.e.") is the same answer, unless both are plain numbers that differ."""
    kept: list[str] = []
    for i, v in enumerate(values):
        if any(same_value(v, k) for k in kept):
            continue
        if gaps is not None and i > 0 and kept:
            gap = _GAP_NOISE.sub(" ", gaps[i]).strip()
            numbers = numeric_value(v) is not None and numeric_value(values[i - 1]) is not None
            if len(gap) <= 40 and _RESTATE.fullmatch(gap) and not numbers:
                continue
        kept.append(v)
    return kept


def _between_boxes(text: str) -> str:
    """The text from the first box to the end: where a hedge word between two answers would be."""
    m = _BOX.search(text)
    return "" if m is None else text[m.start() :]


@dataclass(frozen=True)
class HedgingMonitor(Monitor):
    """Several distinct boxed answers, or a final answer that hedges ("3 or 4", ``\\text{ or }``).

    One value written several ways is one answer (``\\boxed{\\frac12}`` and ``\\boxed{ 0.5 }``, ``x = 5`` and
    ``5``, ``(d) 3`` and ``3``, ``-1.9%`` and ``-0.019``). A prompt that asks for every solution ("find all
    functions", 求所有) may have any number of answers, and a prompt in ``k`` parts (``(1) (2)``, blanks) up to
    ``k``; either way a hedge word (maybe, perhaps, probably, 可能) between the answers is still a hedge. Boxes the
    prompt also holds and placeholders (``\\phantom{..}``, ``?``, ``\\square``) do not count. A multiple-choice
    answer that names every option (``\\boxed{A. B. C. D.}``) hedges.
    """

    max_distinct: int = 1
    name: ClassVar[str] = "hedging"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        prompt = prompt_text(sample.prompt)
        # a box the question itself holds (a "fill in the box" placeholder) is not an answer
        given = boxed_answers(prompt)
        boxes = [
            (b, gap)
            for b, gap in _boxes(sample.response)
            if _norm(b) and not _PLACEHOLDER.fullmatch(_norm(b)) and not any(same_value(b, g) for g in given)
        ]
        distinct = _distinct([b for b, _ in boxes], [gap for _, gap in boxes])
        every = asks_for_all(prompt)
        allowed = max(self.max_distinct, prompt_parts(prompt))
        if len(distinct) > self.max_distinct and uncertain(_between_boxes(sample.response)):
            return self.flag(f"{len(distinct)} distinct boxed answers, hedged", len(distinct))
        if len(distinct) > allowed and not every:
            return self.flag(f"{len(distinct)} distinct boxed answers", len(distinct))
        options = mc_options(prompt)
        for span in final_answers(sample.response):
            if options and len(options) >= 3 and mc_choice(span, options) == set(options):
                return self.flag(f"names every option {span.strip()[:60]!r}")
            if not _HEDGE.search(" " + span + " "):
                continue
            alternatives = [a for a in _HEDGE_SPLIT.split(span) if _norm(a)]
            if len(_distinct(alternatives)) <= 1:
                continue  # "-0.019 or -1.9%": one value, two ways
            if every and not uncertain(span):
                continue  # "x = 2 or x = -3" answers "find all real solutions"
            return self.flag(f"hedged final answer {span.strip()[:60]!r}")
        return None


def prompt_text(prompt: Any) -> str:
    """The text of a prompt: a string, or the ``content`` of chat messages joined by newlines."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Mapping):
        content = prompt.get("content")
        return content if isinstance(content, str) else ""
    if isinstance(prompt, list | tuple):
        return "\n".join(prompt_text(p) for p in prompt)
    return ""


def _contains_token(haystack: str, needle: str) -> bool:
    """``needle`` occurs in ``haystack`` not glued to further letters or digits (``12`` is not in ``123``)."""
    return re.search(r"(?<![\w.])" + re.escape(needle) + r"(?![\w])", haystack) is not None


# a number stated as a result: after "answer"/"solution"/"result" (with is, : or =) or "=", and not
# continued by an operator ("= 3400 + 2000" states no result)
_NUMBER_CUE = r"(?:(?i:answer|solution|result)\s*(?:is|:|=)?|(?<=[\d)])\s*=)\s*\$?\s*"
_NUMBER_END = r"(?![\d\w])(?!\s*(?:[-+*/^]|\\(?:cdot|times|div)))"


_NUMBER_LIST = re.compile(r"[-+]?[\d.,/%]+(?:\s*(?:,|;|，|；|、|和|与|及|and|&)?\s*[-+]?[\d.,/%]+)*")
_MATHY = re.compile(r"[\d\\=^_{}+*/<>$]")
_ANSWER_CUE = r"(?:(?i:answer|solution|result)\s*(?:is|:|：|=)?|答案\s*[:：是为]?|故选|=)\s*\$?\s*"


def _in_prompt(prompt: str, answer: str, min_chars: int, options: dict[str, str] | None = None) -> bool:
    """``answer`` is printed in the prompt: a text answer (words) anywhere (as a token), a number, a list of
    numbers or any math (digits, LaTeX, operators) only where the prompt states it as a result ("answer: 42",
    "12 * 13 = 156"; questions are full of numbers and expressions that answers legitimately reuse: "cos B =
    3/5", "prove AE + AP = PD", "What is sqrt(53) in simplest form?"). In a multiple-choice prompt an answer naming an option (its letter or its content) is
    the choice the question offers: copied only where the prompt states it after an answer cue."""
    if len(_norm(answer)) < min_chars:
        return False
    if options:
        chosen = mc_choice(answer, options)
        if chosen is not None:
            stated = "|".join([re.escape(answer)] + [rf"[(（]?{c}[)）]?(?![\w])" for c in sorted(chosen)])
            return re.search(_ANSWER_CUE + rf"(?:{stated})", prompt) is not None
    if _NUMBER_LIST.fullmatch(answer) or _MATHY.search(answer):
        # numbers and math ("2\\pi", "1+2i", "AE + AP = PD") are what questions are made of
        return re.search(_NUMBER_CUE + re.escape(answer) + _NUMBER_END, prompt) is not None
    return _contains_token(prompt, answer)


def _graded_answer(text: str) -> str | None:
    """The marked final answer: the last box, else the last ``<answer>`` tag or ``####`` line (no phrases:
    "the answer is ..." also occurs in code comments and docstrings)."""
    boxes = boxed_answers(text)
    if boxes:
        return boxes[-1]
    marked = _answer_tags(text) + [m.group(1) for m in itertools.islice(_GSM8K.finditer(text), _MAX_ANSWERS)]
    return marked[-1] if marked else None


@dataclass(frozen=True)
class CopiedAnswerMonitor(Monitor):
    """The ground truth is printed in the prompt (a leak the policy can copy), or the response's marked
    final answer (last box, ``<answer>`` tag or ``####`` line) is copied from the prompt. A text answer
    (words) counts anywhere in the prompt; a number, a list of numbers ("1 和 3") or any math only where the
    prompt states it as a result: after "answer"/"solution"/"result" or after an ``=`` that follows a digit or
    a bracket ("answer: 42", "12 * 13 = 156.", not "= 3400 + 2000", not the given "cos B = 3/5"). In a multiple-choice prompt (options ``A.``, ``(B)``,
    ``C．`` ...) an answer that names an option, by letter or by content, is the choice the question offers and
    counts only where the prompt states it after an answer cue ("Answer: (B)", 答案：B); any other text copied
    from such a prompt still counts. Answers shorter than ``min_chars`` are ignored.
    ``ground_truth_in_prompt=False`` checks only the response."""

    min_chars: int = 3
    ground_truth_in_prompt: bool = True
    name: ClassVar[str] = "copied_answer"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        prompt = prompt_text(sample.prompt)
        if not prompt:
            return None
        options = mc_options(prompt)
        truth = sample.ground_truth
        if isinstance(truth, int | float) and not isinstance(truth, bool):
            truth = str(truth)
        if (
            self.ground_truth_in_prompt
            and isinstance(truth, str)
            and _in_prompt(prompt, truth.strip(), self.min_chars, options)
        ):
            return self.flag("the ground truth appears in the prompt")
        span = _graded_answer(sample.response)
        answer = "" if span is None else span.strip().rstrip(".")
        if _in_prompt(prompt, answer, self.min_chars, options):
            return self.flag(f"final answer {answer[:60]!r} is copied from the prompt")
        return None


@dataclass(frozen=True)
class RepetitionMonitor(Monitor):
    """Word ``n``-gram repetition ratio (``1 - unique/total``) at or above ``threshold`` (``min_words`` or more)."""

    n: int = 4
    threshold: float = 0.5
    min_words: int = 20
    name: ClassVar[str] = "repetition"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        words = sample.response.lower().split()
        if len(words) < self.min_words:
            return None
        ratio = ngram_repetition(words, self.n)
        return self.flag(f"{self.n}-gram repetition {ratio:.2f}", ratio) if ratio >= self.threshold else None


_TEX_WORD = re.compile(r"\\[a-zA-Z]+")


@dataclass(frozen=True)
class CompressionMonitor(Monitor):
    """zlib compression ratio (raw / compressed bytes) at or above ``threshold``: loops and padding.

    LaTeX control words count as one character each (``\\theta``, ``\\frac`` and ``\\left`` are measured as
    ``\\``): a derivation that writes the same notation on every line is not a loop, while a line repeated
    over and over compresses just as well without the command names. The default 6x sits above verbose but
    honest enumerations (unit fractions listed again for each ``n``: 5.6x) and below the loops of real outputs,
    which the repetition monitor also catches."""

    threshold: float = 6.0
    min_bytes: int = 200
    name: ClassVar[str] = "compression"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        if len(sample.response.encode("utf-8", "replace")) < self.min_bytes:
            return None
        raw = _TEX_WORD.sub(lambda m: "\\", sample.response).encode("utf-8", "replace")
        ratio = len(raw) / len(zlib.compress(raw, 6))
        return self.flag(f"compresses {ratio:.1f}x", ratio) if ratio >= self.threshold else None


_NUMBER = re.compile(r"[-+]?[\d.,/%]+")


@dataclass(frozen=True)
class GibberishMonitor(Monitor):
    """Share of pieces that are not word-like at or above ``threshold`` (``min_tokens`` pieces or more). A piece
    is a whitespace token, or a part of one in a script written without spaces.

    Word-like (:func:`._answers.word_pieces`): words of any script, numbers, or tokens with math symbols (``\\``,
    ``=``, ``^``, ...); an ASCII word longer than 4 letters needs a vowel. A token of a script written without
    spaces (a Chinese sentence with quoted English, ``选项A"was``) is read piece by piece, split at its
    punctuation and where the script changes. Limits: fluent-looking nonsense made of real words, and random
    characters of a script without spaces (a string of random Chinese characters), are not caught.
    """

    threshold: float = 0.4
    min_tokens: int = 10
    name: ClassVar[str] = "gibberish"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        pieces = [ok for token in sample.response.split() for ok in word_pieces(token)]
        if len(pieces) < self.min_tokens:
            return None
        share = pieces.count(False) / len(pieces)
        return self.flag(f"{share:.0%} non-word tokens", share) if share >= self.threshold else None


_TAG = re.compile(r"<\s*(/?)\s*(think|answer)\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class TagSpamMonitor(Monitor):
    """Any of ``<think>``, ``</think>``, ``<answer>``, ``</answer>`` more than ``max_count`` times."""

    max_count: int = 1
    name: ClassVar[str] = "tag_spam"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        counts: dict[str, int] = {}
        for m in _TAG.finditer(sample.response):
            tag = f"<{m.group(1)}{m.group(2).lower()}>"
            counts[tag] = counts.get(tag, 0) + 1
        worst = max(counts.items(), key=lambda kv: kv[1], default=None)
        if worst is None or worst[1] <= self.max_count:
            return None
        return self.flag(f"{worst[0]} {worst[1]} times", worst[1])


@dataclass(frozen=True)
class OverlongZoneMonitor(Monitor):
    """The response ends within ``buffer_len`` of ``max_len`` (DAPO's overlong zone), or at the limit
    (truncated). ``unit="tokens"`` reads the length the caller passes (no flag when unknown);
    ``unit="chars"`` measures the response text."""

    max_len: int
    buffer_len: int
    unit: Literal["tokens", "chars"] = "tokens"
    name: ClassVar[str] = "overlong_zone"

    def __post_init__(self) -> None:
        if not 0 < self.buffer_len <= self.max_len:
            raise ConfigError(f"need 0 < buffer_len <= max_len, got {self.buffer_len} and {self.max_len}")
        if self.unit not in ("tokens", "chars"):
            raise ConfigError(f"unit must be 'tokens' or 'chars', got {self.unit!r}")

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        n = len(sample.response) if self.unit == "chars" else length
        if n is None or n <= self.max_len - self.buffer_len:
            return None
        where = "at the length limit (truncated)" if n >= self.max_len else "in the overlong zone"
        return self.flag(f"{n} {self.unit}: {where}", n)


def default_monitors(max_len: int | None = None, buffer_len: int | None = None) -> list[Monitor]:
    """Every monitor with its defaults; the overlong-zone monitor when ``max_len`` and ``buffer_len`` are given."""
    from ._code import CodeTrickMonitor

    monitors: list[Monitor] = [
        HedgingMonitor(),
        CopiedAnswerMonitor(),
        RepetitionMonitor(),
        CompressionMonitor(),
        GibberishMonitor(),
        TagSpamMonitor(),
        CodeTrickMonitor(),
    ]
    if max_len is not None and buffer_len is not None:
        monitors.append(OverlongZoneMonitor(max_len, buffer_len))
    return monitors

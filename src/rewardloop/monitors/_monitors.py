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
from ..scorers._latex import _all_closers
from ..shaping._repetition import ngram_repetition
from ..types import Sample, Score
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
    out: list[str] = []
    closers: dict[int, int] | None = None
    for m in _BOX.finditer(text):
        if closers is None:
            closers = _all_closers(text)
        close = closers.get(m.end() - 1)
        if close is not None:
            out.append(text[m.end() : close])
            if len(out) >= _MAX_ANSWERS:
                break
    return out


_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")


def _answer_tags(text: str) -> list[str]:
    """The bodies of ``<answer>...</answer>`` pairs (case-insensitive), found with ``str.find``: linear."""
    lower, out, i = text.lower(), [], 0
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
_GSM8K = re.compile(r"####\s*([^\n]{1,60})")


def final_answers(text: str) -> list[str]:
    """Every final-answer span of a response: boxes, ``<answer>`` tags, "the answer is ...", ``#### ...``."""
    spans = boxed_answers(text) + _answer_tags(text)
    for pattern in (_GSM8K, _ANSWER_IS):
        spans += [m.group(1) for m in itertools.islice(pattern.finditer(text), _MAX_ANSWERS)]
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


@dataclass(frozen=True)
class HedgingMonitor(Monitor):
    """Several distinct boxed answers, or a final answer that hedges ("3 or 4", ``\\text{ or }``).

    Boxes that the prompt also holds and placeholders (``\\phantom{..}``, ``?``, ``\\square``) do not count.
    """

    max_distinct: int = 1
    name: ClassVar[str] = "hedging"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        # a box the question itself holds (a "fill in the box" placeholder) is not an answer
        given = {_norm(b) for b in boxed_answers(prompt_text(sample.prompt))}
        boxes = {_norm(b) for b in boxed_answers(sample.response)} - given - {""}
        boxes = {b for b in boxes if not _PLACEHOLDER.fullmatch(b)}
        if len(boxes) > self.max_distinct:
            return self.flag(f"{len(boxes)} distinct boxed answers", len(boxes))
        for span in final_answers(sample.response):
            if _HEDGE.search(" " + span + " "):
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
_NUMBER_CUE = r"(?:(?i:answer|solution|result)\s*(?:is|:|=)?|=)\s*\$?\s*"
_NUMBER_END = r"(?![\d\w])(?!\s*(?:[-+*/^]|\\(?:cdot|times|div)))"


def _in_prompt(prompt: str, answer: str, min_chars: int) -> bool:
    """``answer`` is printed in the prompt: a text answer anywhere (as a token), a number only where the
    prompt states it as a result (questions are full of numbers that answers legitimately reuse)."""
    if len(_norm(answer)) < min_chars:
        return False
    if _NUMBER.fullmatch(answer):
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
    counts anywhere in the prompt; a number only where the prompt states it as a result ("answer: 42",
    "= 156.", not "= 3400 + 2000"). Answers shorter than ``min_chars`` are ignored. For multiple-choice prompts, where the right option
    is always printed, set ``ground_truth_in_prompt=False`` to check only the response."""

    min_chars: int = 3
    ground_truth_in_prompt: bool = True
    name: ClassVar[str] = "copied_answer"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        prompt = prompt_text(sample.prompt)
        if not prompt:
            return None
        truth = sample.ground_truth
        if isinstance(truth, int | float) and not isinstance(truth, bool):
            truth = str(truth)
        if (
            self.ground_truth_in_prompt
            and isinstance(truth, str)
            and _in_prompt(prompt, truth.strip(), self.min_chars)
        ):
            return self.flag("the ground truth appears in the prompt")
        span = _graded_answer(sample.response)
        answer = "" if span is None else span.strip().rstrip(".")
        if _in_prompt(prompt, answer, self.min_chars):
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


@dataclass(frozen=True)
class CompressionMonitor(Monitor):
    """zlib compression ratio (raw / compressed bytes) at or above ``threshold``: loops and padding."""

    threshold: float = 5.0
    min_bytes: int = 200
    name: ClassVar[str] = "compression"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        raw = sample.response.encode("utf-8", "replace")
        if len(raw) < self.min_bytes:
            return None
        ratio = len(raw) / len(zlib.compress(raw, 6))
        return self.flag(f"compresses {ratio:.1f}x", ratio) if ratio >= self.threshold else None


_STRIP = "\"'`.,;:!?()[]{}<>*_~"
_NUMBER = re.compile(r"[-+]?[\d.,/%]+")
_MATH = re.compile(r"[\\=^+*/<>|$]")
_VOWELS = set("aeiouyAEIOUY")


def _word_like(token: str) -> bool:
    """A word, a number or a piece of math; random letter and symbol soup is not."""
    core = token.strip(_STRIP)
    if not core:
        return True  # bare punctuation is punctuation, not gibberish
    if _NUMBER.fullmatch(core) or _MATH.search(core):
        return True
    core = core.replace("'", "").replace("-", "")
    if not core.isalpha():
        return False
    return not core.isascii() or len(core) <= 4 or any(c in _VOWELS for c in core)


@dataclass(frozen=True)
class GibberishMonitor(Monitor):
    """Share of whitespace tokens that are not word-like at or above ``threshold`` (``min_tokens`` or more).

    Word-like: letters (an ASCII word longer than 4 letters needs a vowel), numbers, or tokens with math
    symbols (``\\``, ``=``, ``^``, ...). Limit: fluent-looking nonsense made of real words is not caught.
    """

    threshold: float = 0.4
    min_tokens: int = 10
    name: ClassVar[str] = "gibberish"

    def check(self, sample: Sample, score: Score | None = None, length: int | None = None) -> Flag | None:
        tokens = sample.response.split()
        if len(tokens) < self.min_tokens:
            return None
        share = sum(not _word_like(t) for t in tokens) / len(tokens)
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

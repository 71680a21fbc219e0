"""Finding the final answer(s) a math response commits to. Linear time; never raises.

Used by :mod:`rewardloop.scorers.math_equiv`. Where the answer is looked for, in order:

1. every complete ``\\boxed{...}`` / ``\\fbox{...}`` (all of them, so that a response boxing several
   different answers can be caught);
2. without a box, the last "final answer is X" / "answer: X" / "the answer is X" phrase, a GSM8K
   ``#### X`` line, or a few-shot ``A: X`` final line; X runs to the end of its line, or to the
   end of its sentence.

The text after the answer does not matter (verl's DAPO scorer keeps only the last 300 characters and
so loses boxes followed by long text; we scan the whole response). Responses longer than
:data:`MAX_RESPONSE_CHARS` are scanned in their last :data:`MAX_RESPONSE_CHARS` characters only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._latex import _BRACE_EVENTS

__all__ = ["MAX_RESPONSE_CHARS", "Extraction", "extract_answers"]

#: longest tail of a response that is searched (a reward hacker's megabyte of boxes stays linear anyway)
MAX_RESPONSE_CHARS = 100_000
#: at most this many boxes are collected (more is itself a sign of hacking: the verdict is the same)
MAX_BOXES = 64
#: longest answer taken from a phrase ("the answer is ...") when no box is present
MAX_PHRASE_ANSWER = 300

_BOX_START = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")
# anchors for responses without a box; the last match wins
_PHRASES = re.compile(
    r"(?i:(?:final\s+answer|the\s+answer|answer)(?:\s+is)?\s*(?::|is)\s*)"
    r"|^\s*####\s*"
    r"|^\s*A\s*:\s*",
    re.MULTILINE,
)
_SENTENCE_END = re.compile(r"\.(?:\s|$)|\n")


@dataclass(frozen=True)
class Extraction:
    """What the response committed to: candidate answers in order of appearance and how they were found."""

    answers: tuple[str, ...]
    method: str  # "boxed" | "phrase" | "none"


def extract_answers(response: str) -> Extraction:
    """All boxed answers; else the answer of the last answer phrase; else nothing."""
    if not isinstance(response, str):
        return Extraction((), "none")
    text = response[-MAX_RESPONSE_CHARS:]
    boxes = _all_boxes(text)
    if boxes:
        return Extraction(tuple(boxes), "boxed")
    phrase = _last_phrase_answer(text)
    if phrase:
        return Extraction((phrase,), "phrase")
    return Extraction((), "none")


def _all_boxes(text: str) -> list[str]:
    """Contents of every complete box, in order (nested boxes count once: the outer one)."""
    closers = _closers(text) if "\\boxed" in text or "\\fbox" in text else {}
    found: list[str] = []
    end_of_last = -1
    for m in _BOX_START.finditer(text):
        if m.start() < end_of_last or len(found) >= MAX_BOXES:
            continue
        content, end = _box_body(text, m.end(), closers)
        if content is not None and content.strip():
            found.append(content.strip())
            end_of_last = end
    return found


def _closers(text: str) -> dict[int, int]:
    stack: list[int] = []
    out: dict[int, int] = {}
    for m in _BRACE_EVENTS.finditer(text):
        if m.group() == "{":
            stack.append(m.start())
        elif m.group() == "}" and stack:
            out[stack.pop()] = m.start()
    return out


def _box_body(text: str, j: int, closers: dict[int, int]) -> tuple[str | None, int]:
    k = j
    while k < len(text) and text[k] in " \t":
        k += 1
    if k < len(text) and text[k] == "{":
        close = closers.get(k)
        return (None, k) if close is None else (text[k + 1 : close], close + 1)
    if k > j:  # "\boxed 5": up to the next $ or end of line
        end = k
        while end < len(text) and text[end] not in "$\n":
            end += 1
        return text[k:end], end
    return None, j


def _last_phrase_answer(text: str) -> str | None:
    last = None
    for last in _PHRASES.finditer(text):  # noqa: B007 - we want the last match
        pass
    if last is None:
        return None
    rest = text[last.end() : last.end() + MAX_PHRASE_ANSWER * 2]
    answer = _cut_sentence(rest.lstrip("*_ \t"))
    return answer[:MAX_PHRASE_ANSWER].strip().strip("*_").strip() or None


def _cut_sentence(rest: str) -> str:
    """The answer ends at a newline, or at a sentence-ending period outside math mode and braces."""
    depth, dollars = 0, 0
    for i, ch in enumerate(rest):
        if ch == "\n" and depth <= 0 and i > 0 and rest[:i].strip():
            return rest[:i]
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        elif ch == "$":
            dollars += 1
        elif ch == "." and depth <= 0 and dollars % 2 == 0:
            nxt = rest[i + 1 : i + 2]
            if not nxt or nxt.isspace():
                return rest[:i]
    return rest

"""Format scorers with open-r1's semantics: think/answer tags, tag counts, reasoning steps, code format.

Each is a :class:`~rewardloop.Scorer` (a pure function of ``sample.response``; the ground truth is not read)
that returns a :class:`~rewardloop.Score` with the reward in ``value`` and no metrics: as a
:class:`~rewardloop.managers.Composite` component its value becomes the component's own column.

Every check is linear in the response length: the tag layouts are located with ``str.find`` instead of
open-r1's lazy ``.*?`` regexes, which backtrack quadratically on adversarial input. Differences from
open-r1 are listed in ``docs/shaping.md`` and pinned in ``tests/shaping/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Literal

from ..scorers import Scorer
from ..types import Sample, Score

__all__ = [
    "CodeFormatReward",
    "FormatReward",
    "ReasoningStepsReward",
    "TagCountReward",
    "think_answer_layout",
]

_OPEN = "<think>\n"
_SEP = "\n</think>\n<answer>\n"
_CLOSE = "\n</answer>"

End = Literal["strict", "line"]


def _close_positions(text: str, end: End) -> list[int]:
    """Where a final ``\\n</answer>`` may start: at the end but for whitespace (strict), or before any newline (line).

    ``line`` is open-r1's reading: its regex ends in ``$`` under ``re.MULTILINE``, which also matches
    before a newline, so text after ``</answer>`` on later lines is accepted.
    """
    if end == "strict":  # only whitespace (a trailing newline) may follow
        body = text.rstrip()
        return [len(body) - len(_CLOSE)] if body.endswith(_CLOSE) else []
    found, i = [], text.find(_CLOSE)
    while i >= 0:
        after = i + len(_CLOSE)
        if after == len(text) or text[after] == "\n":
            found.append(i)
        i = text.find(_CLOSE, i + 1)
    return found


def think_answer_layout(text: str, end: End = "strict") -> tuple[int, int] | None:
    """``(start, stop)`` of the answer body when ``text`` is ``<think>\\n...\\n</think>\\n<answer>\\n...\\n</answer>``.

    The widest answer body is returned (earliest separator, latest close), which is the region open-r1's
    lazy regex may use after backtracking. None when the layout does not hold.
    """
    if not text.startswith(_OPEN):
        return None
    # the tags share no newline: "<think>\n" ends before _SEP's own "\n" starts, and _SEP's last "\n" is
    # not _CLOSE's first (an empty body is "<think>\n\n</think>")
    sep = text.find(_SEP, len(_OPEN))
    if sep < 0:
        return None
    start = sep + len(_SEP)
    closes = [c for c in _close_positions(text, end) if c >= start]
    return (start, closes[-1]) if closes else None


class _TextScorer(Scorer):
    """A scorer of the response text alone."""

    execution: ClassVar = "inline"

    def reward(self, text: str) -> float:  # pragma: no cover - abstract in spirit
        raise NotImplementedError

    def score(self, sample: Sample) -> Score:
        return Score(self.reward(sample.response))


@dataclass(frozen=True, eq=False)
class FormatReward(_TextScorer):
    """1.0 when the response is a think block then an answer block, tags on their own lines (open-r1 format).

    The layout is ``<think>\\n…\\n</think>\\n<answer>\\n…\\n</answer>``; anything else scores 0.0.

    ``end="strict"`` (default) requires ``</answer>`` to end the response (trailing whitespace aside);
    ``end="line"`` is open-r1's exact reading, which also accepts further lines after it.
    """

    end: End = "strict"
    name: ClassVar[str] = "format"

    def reward(self, text: str) -> float:
        return 1.0 if think_answer_layout(text, self.end) is not None else 0.0


@dataclass(frozen=True, eq=False)
class CodeFormatReward(_TextScorer):
    """The format reward's layout plus a fenced code block of ``language`` in the answer (open-r1 code_format)."""

    language: str = "python"
    end: End = "strict"
    name: ClassVar[str] = "code_format"

    def reward(self, text: str) -> float:
        layout = think_answer_layout(text, self.end)
        if layout is None:
            return 0.0
        body = text[layout[0] : layout[1]]
        fence = body.find("```" + self.language)
        if fence < 0:
            return 0.0
        return 1.0 if body.find("```", fence + 3 + len(self.language)) >= 0 else 0.0


@dataclass(frozen=True, eq=False)
class TagCountReward(_TextScorer):
    """0.25 for each think/answer tag (with its newlines) present exactly once (open-r1 tag_count).

    The four tags: ``<think>\\n``, ``\\n</think>\\n``, ``\\n<answer>\\n``, ``\\n</answer>``.
    """

    name: ClassVar[str] = "tag_count"
    TAGS: ClassVar[tuple[str, ...]] = ("<think>\n", "\n</think>\n", "\n<answer>\n", "\n</answer>")

    def reward(self, text: str) -> float:
        return 0.25 * sum(text.count(tag) == 1 for tag in self.TAGS)


# open-r1's markers; ``^\d+\.`` is applied per line here (open-r1 compiles it without re.MULTILINE, so it
# only ever matched a numbered list item on the first line: see docs/shaping.md)
_STEP = re.compile(r"(Step \d+:|^\d+\.|\n-|\n\*|First,|Second,|Next,|Finally,)", re.MULTILINE)


@dataclass(frozen=True, eq=False)
class ReasoningStepsReward(_TextScorer):
    """``min(1, markers / target)``: markers are "Step N:", numbered lines, bullets and First/Second/Next/Finally."""

    target: int = 3
    name: ClassVar[str] = "reasoning_steps"

    def __post_init__(self) -> None:
        if self.target < 1:
            from ..errors import ConfigError

            raise ConfigError(f"reasoning_steps target must be >= 1, got {self.target}")

    def reward(self, text: str) -> float:
        return min(1.0, len(_STEP.findall(text)) / self.target)

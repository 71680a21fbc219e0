"""The shaping library: format and length terms with open-r1's semantics, as scorers and shapers.

Scorers (pure functions of the response; combine them with a correctness scorer as separate terms):
:class:`FormatReward`, :class:`CodeFormatReward`, :class:`TagCountReward`, :class:`ReasoningStepsReward`,
:class:`RepetitionPenalty`.

Shapers (``apply(scores, lengths) -> scores``; they modify the reward another scorer gave, and only
``ok`` scores): :class:`CosineLengthShaper` (replaces it by a correctness-dependent cosine of the length),
:class:`GroupLengthShaper` (adds Kimi 1.5's group-relative length term) and
:class:`~rewardloop.managers.OverlongPenalty` (DAPO's soft overlong punishment, re-exported here).

Group scorer (all responses of one prompt, gathered by ``uid`` by the Runner): :class:`GroupLengthReward`
(Kimi 1.5's group-relative length term, for use as a weighted composite component).

Differences from open-r1 are listed in ``docs/shaping.md``, each pinned by a test in ``tests/shaping/``.
"""

from __future__ import annotations

from ..managers._shaping import OverlongPenalty, Shaper
from ._format import CodeFormatReward, FormatReward, ReasoningStepsReward, TagCountReward, think_answer_layout
from ._length import (
    CosineLengthShaper,
    GroupLengthReward,
    GroupLengthShaper,
    cosine_length_reward,
    group_length_rewards,
)
from ._repetition import RepetitionPenalty, ngram_repetition, words

__all__ = [
    "CodeFormatReward",
    "CosineLengthShaper",
    "FormatReward",
    "GroupLengthReward",
    "GroupLengthShaper",
    "OverlongPenalty",
    "ReasoningStepsReward",
    "RepetitionPenalty",
    "Shaper",
    "TagCountReward",
    "cosine_length_reward",
    "group_length_rewards",
    "ngram_repetition",
    "think_answer_layout",
    "words",
]

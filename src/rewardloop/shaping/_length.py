"""Length terms that depend on correctness: open-r1's cosine schedule and Kimi 1.5's group-relative term.

Both are :class:`~rewardloop.managers.Shaper` objects: they read the reward another scorer gave (a sample is
*correct* when its value is ``>= correct_at``) and the response length, and they change ``ok`` scores only
(a failed score keeps its status; the failure policy decides its reward). The length unit is whatever the
caller passes: :class:`~rewardloop.RewardManager` passes tokens; open-r1 counts characters, so pass
``[len(s.response) for s in samples]`` for its exact numbers. A score whose length is unknown (None) is
left as it was, with a note in ``info``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ..errors import ConfigError
from ..scorers import GroupScorer, Scorer, as_scorer
from ..types import Sample, Score

__all__ = [
    "CosineLengthShaper",
    "GroupLengthReward",
    "GroupLengthShaper",
    "cosine_length_reward",
    "group_length_rewards",
]


def cosine_length_reward(
    length: float,
    correct: bool,
    *,
    max_len: float,
    min_value_wrong: float = -1.0,
    max_value_wrong: float = -0.5,
    min_value_correct: float = 0.5,
    max_value_correct: float = 1.0,
    clip: bool = False,
) -> float:
    """open-r1's cosine schedule: short correct answers earn ``max_value_correct``, short wrong ones
    ``min_value_wrong``; both move along ``cos(pi * length / max_len)`` towards the other end.

    ``clip`` holds the value at ``length = max_len`` for longer responses (TRL's variant); open-r1 does
    not clip, so past ``max_len`` the cosine turns back.
    """
    progress = min(length / max_len, 1.0) if clip else length / max_len
    cosine = math.cos(progress * math.pi)
    if correct:
        lo, hi = min_value_correct, max_value_correct
    else:  # swapped: a longer wrong answer is penalised less
        lo, hi = max_value_wrong, min_value_wrong
    return lo + 0.5 * (hi - lo) * (1.0 + cosine)


def group_length_rewards(lengths: Sequence[float], correct: Sequence[bool]) -> list[float]:
    """Kimi 1.5's length term for one group: ``lam = 0.5 - (L - min) / (max - min)``; correct -> ``lam``,
    wrong -> ``min(0, lam)``; all lengths equal -> 0.0 for every member."""
    if len(lengths) != len(correct):
        raise ValueError(f"{len(lengths)} lengths for {len(correct)} correctness flags")
    if not lengths:
        return []
    lo, hi = min(lengths), max(lengths)
    if hi == lo:
        return [0.0] * len(lengths)
    lams = [0.5 - (n - lo) / (hi - lo) for n in lengths]
    return [lam if ok else min(0.0, lam) for lam, ok in zip(lams, correct, strict=True)]


def _check_lengths(scores: Sequence[Score], lengths: Sequence[int | None]) -> None:
    if len(scores) != len(lengths):
        raise ValueError(f"{len(scores)} scores for {len(lengths)} lengths")


def _unknown_length(score: Score, who: str) -> Score:
    info = {**score.info, who: "response length unknown; not shaped"}
    return Score(score.value, score.status, score.metrics, info)


@dataclass(frozen=True)
class CosineLengthShaper:
    """Replaces each ``ok`` reward by :func:`cosine_length_reward` of its length and correctness.

    The reward it replaced stays in ``metrics["cosine_base"]`` and the new one in ``metrics["cosine"]``
    on every score (None where not shaped), so the columns stay aligned.
    """

    max_len: int = 1000
    min_value_wrong: float = -1.0
    max_value_wrong: float = -0.5
    min_value_correct: float = 0.5
    max_value_correct: float = 1.0
    correct_at: float = 1.0
    clip: bool = False

    def __post_init__(self) -> None:
        if self.max_len <= 0:
            raise ConfigError(f"cosine max_len must be > 0, got {self.max_len}")

    @property
    def metric_types(self) -> dict[str, type]:
        """The metrics this shaper adds to every score."""
        return {"cosine": float, "cosine_base": float}

    def reward(self, length: float, correct: bool) -> float:
        return cosine_length_reward(
            length,
            correct,
            max_len=self.max_len,
            min_value_wrong=self.min_value_wrong,
            max_value_wrong=self.max_value_wrong,
            min_value_correct=self.min_value_correct,
            max_value_correct=self.max_value_correct,
            clip=self.clip,
        )

    def apply(self, scores: Sequence[Score], lengths: Sequence[int | None]) -> list[Score]:
        _check_lengths(scores, lengths)
        return [self._one(s, n) for s, n in zip(scores, lengths, strict=True)]

    def _one(self, score: Score, length: int | None) -> Score:
        metrics = {**score.metrics, "cosine": None, "cosine_base": None}
        if not score.ok or score.value is None:
            return Score(score.value, score.status, metrics, score.info)
        if length is None:
            return _unknown_length(Score(score.value, score.status, metrics, score.info), "cosine")
        value = self.reward(length, score.value >= self.correct_at)
        metrics.update(cosine=value, cosine_base=score.value)
        return Score(value, score.status, metrics, score.info)


@dataclass(frozen=True)
class GroupLengthShaper:
    """Adds ``weight *`` Kimi 1.5's group-relative length term (:func:`group_length_rewards`) to ``ok`` rewards.

    Groups: :meth:`apply_groups` takes one key per score (the samples' ``uid``). :meth:`apply`, the
    :class:`~rewardloop.managers.Shaper` call, knows no uids: with ``group_size=n`` it reads consecutive
    runs of ``n`` scores as one group (verl and TRL lay GRPO groups out that way); with ``group_size=None``
    the whole batch is one group, which is open-r1's ``len_reward`` (it sees one trainer batch per call).
    Only ``ok`` members with a known length take part in a group's min and max. ``metrics["length_term"]``
    holds the added term (None where not shaped).
    """

    weight: float = 1.0
    correct_at: float = 1.0
    group_size: int | None = None
    combine: Literal["add", "replace"] = "add"

    @property
    def metric_types(self) -> dict[str, type]:
        """The metrics this shaper adds to every score."""
        return {"length_term": float}

    def __post_init__(self) -> None:
        if self.group_size is not None and self.group_size < 1:
            raise ConfigError(f"group_size must be >= 1 or None, got {self.group_size}")
        if self.combine not in ("add", "replace"):
            raise ConfigError(f"combine must be 'add' or 'replace', got {self.combine!r}")

    def apply(self, scores: Sequence[Score], lengths: Sequence[int | None]) -> list[Score]:
        _check_lengths(scores, lengths)
        size = self.group_size or max(len(scores), 1)
        if len(scores) % size:
            raise ValueError(f"{len(scores)} scores do not split into groups of {size}")
        return self.apply_groups(scores, lengths, [i // size for i in range(len(scores))])

    def apply_groups(
        self, scores: Sequence[Score], lengths: Sequence[int | None], groups: Sequence[Hashable]
    ) -> list[Score]:
        """Shape with explicit group keys (one per score, e.g. each sample's ``uid``)."""
        _check_lengths(scores, lengths)
        if len(groups) != len(scores):
            raise ValueError(f"{len(groups)} group keys for {len(scores)} scores")
        members: dict[Hashable, list[int]] = {}
        for i, (s, n) in enumerate(zip(scores, lengths, strict=True)):
            if s.ok and s.value is not None and n is not None:
                members.setdefault(groups[i], []).append(i)
        terms: dict[int, float] = {}
        for idx in members.values():
            correct = [scores[i].value >= self.correct_at for i in idx]  # type: ignore[operator]
            group_lengths = [float(n) for i in idx if (n := lengths[i]) is not None]  # members have a length
            for i, t in zip(idx, group_length_rewards(group_lengths, correct), strict=True):
                terms[i] = t
        return [self._one(s, terms.get(i), lengths[i]) for i, s in enumerate(scores)]

    def _one(self, score: Score, term: float | None, length: int | None) -> Score:
        metrics = {**score.metrics, "length_term": term}
        shaped = Score(score.value, score.status, metrics, score.info)
        if term is None:
            return _unknown_length(shaped, "length_term") if score.ok and length is None else shaped
        base = 0.0 if self.combine == "replace" else score.value
        return Score(base + self.weight * term, score.status, metrics, score.info)  # type: ignore[operator]


class GroupLengthReward(GroupScorer):
    """Kimi 1.5's length term within each prompt's group (same ``uid``), as a group scorer.

    The members, gathered by the Runner, each get :func:`group_length_rewards` of their lengths and correctness.

    ``base`` judges correctness (the Runner scores it first; a member is correct when its base value is
    ``>= correct_at``). Lengths are counted in characters (open-r1) or whitespace ``words``. A member whose
    base score failed keeps that failure and is left out of the group's min and max. Use it as a weighted
    :class:`~rewardloop.managers.Composite` component next to the correctness term.
    """

    name: ClassVar[str] = "group_length"
    execution = "inline"

    def __init__(
        self,
        base: Scorer | str | Any,
        *,
        correct_at: float = 1.0,
        unit: Literal["chars", "words"] = "chars",
        group_size: int | None = None,
        gather_timeout_s: float = 300.0,
    ) -> None:
        if unit not in ("chars", "words"):
            raise ConfigError(f"unit must be 'chars' or 'words', got {unit!r}")
        if group_size is not None and (not isinstance(group_size, int) or group_size < 1):
            raise ConfigError(f"group_size must be a positive integer or None, got {group_size!r}")
        if isinstance(base, str):
            from ..scorers import get_scorer

            base = get_scorer(base)
        self.base = as_scorer(base)
        self.deterministic = getattr(self.base, "deterministic", True)  # type: ignore[misc]
        self.correct_at = float(correct_at)
        self.unit = unit
        self.group_size = group_size
        self.gather_timeout_s = float(gather_timeout_s)
        self.metric_types = {"length_term": float, "base_reward": float}  # type: ignore[misc]
        self.metric_keys = tuple(self.metric_types)  # type: ignore[misc]

    def _length(self, sample: Sample) -> int:
        return len(sample.response) if self.unit == "chars" else len(sample.response.split())

    def score_group(self, samples: Sequence[Sample], base: Sequence[Score] | None = None) -> list[Score]:
        if base is None or len(base) != len(samples):
            raise ConfigError("GroupLengthReward.score_group needs one base score per member")
        ok = [i for i, s in enumerate(base) if s.ok and s.value is not None]
        terms = group_length_rewards(
            [self._length(samples[i]) for i in ok],
            [base[i].value >= self.correct_at for i in ok],  # type: ignore[operator]
        )
        by_index = dict(zip(ok, terms, strict=True))
        return [
            Score(by_index[i], metrics={"length_term": by_index[i], "base_reward": s.value}, info=s.info)
            if i in by_index
            else s
            for i, s in enumerate(base)
        ]

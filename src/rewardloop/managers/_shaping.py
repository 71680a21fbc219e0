"""Reward shaping applied after scoring: composable shapers, e.g. DAPO's overlong penalty.

A shaper maps ``(scores, lengths)`` to new scores; ``lengths`` are response lengths in tokens (None where
unknown). Shapers only change samples that scored ``ok``: a failed sample keeps its failure status, and
the failure policy decides its reward.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..config import OverlongBufferConfig
from ..errors import ConfigError
from ..types import Score

__all__ = ["OverlongPenalty", "Shaper"]


@runtime_checkable
class Shaper(Protocol):
    """Anything with ``apply(scores, lengths) -> list[Score]`` (same length and order)."""

    def apply(self, scores: Sequence[Score], lengths: Sequence[int | None]) -> list[Score]: ...


@dataclass(frozen=True)
class OverlongPenalty:
    """DAPO's soft overlong punishment.

    With ``L`` the response length, ``B = buffer_len``, ``Lmax = max_resp_len`` and ``f = penalty_factor``,
    the reward changes by ``min(-(L - (Lmax - B)) / B * f, 0)``: nothing while ``L <= Lmax - B``, then a
    linear fall to ``-f`` at ``L = Lmax``. With ``log`` the metrics ``overlong_reward`` (float) and
    ``overlong`` (bool) are added to every score, failed ones included (so columns stay aligned).
    With ``clip`` the penalty stops at ``-f`` for ``L > Lmax`` (open-r1's ``soft_overlong_punishment`` and
    DAPO's eq. 13); verl does not clip (its responses never exceed ``Lmax``), so the default is off.
    """

    max_resp_len: int
    buffer_len: int
    penalty_factor: float = 1.0
    log: bool = False
    clip: bool = False

    def __post_init__(self) -> None:
        if self.buffer_len <= 0:
            raise ConfigError(f"overlong buffer_len must be > 0, got {self.buffer_len}")
        if self.max_resp_len < self.buffer_len:
            raise ConfigError(
                f"max_resp_len ({self.max_resp_len}) must be >= the overlong buffer_len ({self.buffer_len})"
            )

    @classmethod
    def from_config(
        cls, cfg: OverlongBufferConfig | None, max_resp_len: int | None
    ) -> OverlongPenalty | None:
        """The shaper for verl's ``overlong_buffer_cfg`` (None when absent or disabled)."""
        if cfg is None or not cfg.enable:
            return None
        if max_resp_len is None:
            raise ConfigError("max_resp_len must be set when overlong_buffer_cfg.enable is true")
        return cls(max_resp_len, cfg.len, cfg.penalty_factor, cfg.log)

    @property
    def metric_types(self) -> dict[str, type]:
        """The metrics this shaper adds to every score."""
        return {"overlong_reward": float, "overlong": bool} if self.log else {}

    def penalty(self, length: int) -> float:
        exceed = length - (self.max_resp_len - self.buffer_len)
        penalty = min(-exceed / self.buffer_len * self.penalty_factor, 0.0)
        return max(penalty, -self.penalty_factor) if self.clip else penalty

    def apply(self, scores: Sequence[Score], lengths: Sequence[int | None]) -> list[Score]:
        if len(scores) != len(lengths):
            raise ValueError(f"{len(scores)} scores for {len(lengths)} lengths")
        return [self._one(s, n) for s, n in zip(scores, lengths, strict=True)]

    def _one(self, score: Score, length: int | None) -> Score:
        if length is None:
            info = {**score.info, "overlong": "response length unknown; no penalty applied"}
            return Score(score.value, score.status, score.metrics, info)
        penalty = self.penalty(int(length))
        metrics = dict(score.metrics)
        if self.log:
            metrics.update(overlong_reward=penalty, overlong=penalty < 0)
        value = score.value + penalty if score.ok and score.value is not None else score.value
        return Score(value, score.status, metrics, score.info)

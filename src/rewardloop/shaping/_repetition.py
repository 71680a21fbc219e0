"""N-gram repetition: open-r1's ``repetition_penalty`` scorer and the ratio the monitors share.

The ratio is ``1 - unique / total`` over the word n-grams of the response (lower-cased, split on whitespace
for ``language="en"``; segmented with jieba for ``"zh"``, which needs ``pip install jieba``). It is 0.0 for
a response with fewer than ``n`` words, and the penalty is ``ratio * max_penalty`` (``max_penalty <= 0``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from ..errors import ConfigError, MissingExtraError
from ..scorers import Scorer
from ..types import Sample, Score

__all__ = ["RepetitionPenalty", "ngram_repetition", "words"]

Language = Literal["en", "zh"]


def words(text: str, language: Language = "en") -> list[str]:
    """The tokens n-grams are built from: lower-cased whitespace words, or jieba's segments for ``zh``."""
    if language == "zh":
        try:
            import jieba
        except ImportError as exc:
            err = MissingExtraError("jieba", "zh")
            err.msg = "language='zh' segments words with jieba, which is not installed: pip install jieba"
            err.args = (err.msg,)
            raise err from exc
        return [w for w in jieba.lcut(text.lower()) if w.strip()]
    return text.lower().split()


def ngram_repetition(tokens: Sequence[str], n: int) -> float:
    """``1 - unique/total`` over the ``n``-grams of ``tokens``; 0.0 when there are fewer than ``n`` tokens."""
    total = len(tokens) - n + 1
    if total <= 0:
        return 0.0
    unique = len({tuple(tokens[i : i + n]) for i in range(total)})
    return 1.0 - unique / total


@dataclass(frozen=True, eq=False)
class RepetitionPenalty(Scorer):
    """open-r1's n-gram repetition penalty: ``ngram_repetition(words) * max_penalty`` (0 for no repetition).

    The penalty is ``value``; the metric ``repetition_ratio`` is the ratio it came from.
    """

    ngram_size: int = 3
    max_penalty: float = -1.0
    language: Language = "en"
    name: ClassVar[str] = "repetition_penalty"
    execution: ClassVar = "inline"
    metric_keys: ClassVar[tuple[str, ...]] = ("repetition_ratio",)

    def __post_init__(self) -> None:
        if self.max_penalty > 0:
            raise ConfigError(f"max_penalty {self.max_penalty} should not be positive")
        if self.ngram_size < 1:
            raise ConfigError(f"ngram_size must be >= 1, got {self.ngram_size}")
        if self.language not in ("en", "zh"):
            raise ConfigError(f"language must be 'en' or 'zh', got {self.language!r}")

    def score(self, sample: Sample) -> Score:
        ratio = ngram_repetition(words(sample.response, self.language), self.ngram_size)
        value = ratio * self.max_penalty + 0.0  # + 0.0: no -0.0 for a response without repetition
        return Score(value, metrics={"repetition_ratio": ratio})

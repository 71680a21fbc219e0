"""Top-level convenience functions: score one sample or a list, with failures as data."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ._validate import renamed
from .scorers import Scorer, as_scorer, get_scorer, resolve_scorer
from .types import Sample, Score, ScoreBatch, Status

__all__ = ["score", "score_many"]


def _scorer_for(sample: Sample, scorer: Scorer | str | Callable[[Sample], Any] | None) -> Scorer:
    if scorer is None:
        return resolve_scorer(sample.task)
    if isinstance(scorer, str):
        return get_scorer(scorer)
    return as_scorer(scorer)


def score(
    sample: Sample,
    scorer: Scorer | str | Callable[[Sample], Any] | None = None,
    *,
    timeout_s: float | None = None,
    timeout: float | None = None,  # deprecated name of timeout_s
) -> Score:
    """Score one sample; the scorer defaults to the one routed for ``sample.task``.

    Never raises for a per-sample failure: the returned :class:`Score` carries the status. An unknown
    task raises :class:`~rewardloop.errors.UnknownTaskError` (a configuration error).
    """
    from .execution import score_one

    timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "rewardloop.score")
    return score_one(_scorer_for(sample, scorer), sample, timeout=timeout_s)


def score_many(
    samples: Iterable[Sample],
    scorer: Scorer | str | Callable[[Sample], Any] | None = None,
    *,
    timeout_s: float | None = None,
    timeout: float | None = None,  # deprecated name of timeout_s
) -> ScoreBatch:
    """Score samples one after another in the calling thread (see the CLI and Runner for parallel scoring).

    A sample whose task has no route gets status ``invalid_input`` instead of failing the batch.
    """
    from .errors import UnknownTaskError

    timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "rewardloop.score_many")
    results = []
    for sample in samples:
        try:
            results.append(score(sample, scorer, timeout_s=timeout_s))
        except UnknownTaskError as exc:
            results.append(Score.failure(Status.INVALID_INPUT, str(exc)))
    return ScoreBatch.from_scores(results)

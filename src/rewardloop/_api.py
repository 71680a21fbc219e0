"""Top-level convenience functions: score one sample or a list, with failures as data."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

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
    timeout: float | None = None,
) -> Score:
    """Score one sample; the scorer defaults to the one routed for ``sample.task``.

    Never raises for a per-sample failure: the returned :class:`Score` carries the status. An unknown
    task raises :class:`~rewardloop.errors.UnknownTaskError` (a configuration error).
    """
    from .execution import score_one

    return score_one(_scorer_for(sample, scorer), sample, timeout=timeout)


def score_many(
    samples: Iterable[Sample],
    scorer: Scorer | str | Callable[[Sample], Any] | None = None,
    *,
    timeout: float | None = None,
) -> ScoreBatch:
    """Score samples one after another in the calling thread (see the CLI and Runner for parallel scoring).

    A sample whose task has no route gets status ``invalid_input`` instead of failing the batch.
    """
    from .errors import UnknownTaskError

    results = []
    for sample in samples:
        try:
            results.append(score(sample, scorer, timeout=timeout))
        except UnknownTaskError as exc:
            results.append(Score.failure(Status.INVALID_INPUT, str(exc)))
    return ScoreBatch.from_scores(results)

"""Scoring a list of (scorer, sample) pairs in parallel with the single-sample path.

Inline scorers run in a thread pool (they are cheap); process scorers go to one shared
:class:`~rewardloop.execution._workers.WorkerPool`, so ``workers`` CPU-heavy samples run at once, each
under its own deadline. Results keep input order. Per-sample failures are scores, never exceptions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from ..scorers._base import Scorer
from ..types import Sample, Score
from ._single import score_one
from ._workers import WorkerPool

__all__ = ["score_pairs"]


def score_pairs(
    pairs: Sequence[tuple[Scorer, Sample]],
    *,
    workers: int = 2,
    timeout: float | None = None,
    on_done: Callable[[int], None] | None = None,
) -> list[Score]:
    """Score every pair; ``on_done(i)`` is called as each sample finishes (for progress bars)."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    results: list[Score | None] = [None] * len(pairs)
    needs_pool = any(scorer.execution == "process" for scorer, _ in pairs)
    pool = WorkerPool(size=workers) if needs_pool else None

    def run(i: int) -> None:
        scorer, sample = pairs[i]
        results[i] = score_one(scorer, sample, timeout=timeout, pool=pool)
        if on_done is not None:
            on_done(i)

    try:
        # threads only hand work to the pool or run cheap inline scorers; a few more than workers keeps it busy
        with ThreadPoolExecutor(max_workers=max(2, workers * 2), thread_name_prefix="rewardloop-score") as ex:
            for future in [ex.submit(run, i) for i in range(len(pairs))]:
                future.result()
    finally:
        if pool is not None:
            pool.close()
    return [r for r in results if r is not None]

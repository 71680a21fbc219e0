"""The bookkeeping both runners share: how a sample ended (:class:`Done`), de-duplication keys grouped into
leaders and copies, independent copies of a score, the ``stats`` of a batch, and the :class:`ScoreBatch` it
becomes under the failure policy."""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import math
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ScoringError
from ..types import Sample, Score, ScoreBatch, Status
from ._cache import LRUCache

__all__ = [
    "CACHEABLE",
    "Done",
    "Inflight",
    "ResultCache",
    "batch_stats",
    "check_samples",
    "copy_score",
    "failure_error",
    "finish_batch",
    "finish_with_copies",
    "report",
]

# results worth remembering: a timeout, a crash or an infrastructure error may go otherwise next time
CACHEABLE = frozenset({Status.OK, Status.INVALID_INPUT, Status.PARSE_ERROR})


@dataclass
class Done:
    """How one sample ended: its score and the seconds it queued and executed."""

    score: Score
    queue_s: float
    exec_s: float


def batch_stats(
    statuses: Sequence[Status],
    *,
    latencies: Sequence[float],
    exec_times: Sequence[float],
    wall_s: float,
    unique: int,
    cache_hits: int = 0,
    retries: int = 0,
) -> dict[str, Any]:
    """The ``stats`` mapping of a batch.

    ``latencies`` / ``exec_times`` are those of the samples actually executed (not copies or cache hits).
    Keys: ``n``, ``unique`` (distinct samples after de-duplication), ``deduplicated`` (``n - unique``),
    ``cache_hits``, ``executed``, ``retries``, ``failed``, ``status`` (count per status, zeros
    included), ``wall_s``, ``samples_per_s``, ``latency_p50_s``, ``latency_p99_s``, ``exec_p50_s``,
    ``exec_p99_s`` (None when nothing was executed).
    """
    counts = {s.value: 0 for s in Status}
    for st in statuses:
        counts[(st if type(st) is Status else Status(st)).value] += 1
    n = len(statuses)
    return {
        "n": n,
        "unique": unique,
        "deduplicated": n - unique,
        "cache_hits": cache_hits,
        "executed": len(exec_times),
        "retries": retries,
        "failed": n - counts[Status.OK.value],
        "status": counts,
        "wall_s": round(wall_s, 6),
        "samples_per_s": round(n / wall_s, 3) if wall_s > 0 else None,
        "latency_p50_s": _percentile(latencies, 50),
        "latency_p99_s": _percentile(latencies, 99),
        "exec_p50_s": _percentile(exec_times, 50),
        "exec_p99_s": _percentile(exec_times, 99),
    }


def _percentile(values: Sequence[float], pct: float) -> float | None:
    """Nearest-rank percentile."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return round(ordered[rank - 1], 6)


def copy_score(score: Score, **info: Any) -> Score:
    """An independent copy (no shared mutable metrics/info) with extra ``info`` keys."""
    return Score(
        value=score.value,
        status=score.status,
        metrics=copy.deepcopy(dict(score.metrics)),
        info={**copy.deepcopy(dict(score.info)), **info},
    )


def finish_batch(
    done: Sequence[Any], samples: Sequence[Sample], stats: dict[str, Any], on_error: Any
) -> ScoreBatch:
    """Assemble the :class:`ScoreBatch` of finished samples (``done[i]`` has ``score``, ``queue_s``,
    ``exec_s``) and apply the ``"raise"`` failure policy: a :class:`ScoringError` naming the first failed
    sample, with the whole batch attached as ``err.batch``."""
    result = ScoreBatch.from_scores(
        [d.score for d in done],
        queue_s=[round(d.queue_s, 6) for d in done],
        exec_s=[round(d.exec_s, 6) for d in done],
        stats=stats,
        on_error=None if on_error == "raise" else on_error,
    )
    if on_error == "raise" and result.num_failed:
        first = next(i for i, st in enumerate(result.statuses) if st is not Status.OK)
        err = failure_error(result[first], samples[first], first, result.num_failed, len(result))
        err.batch = result  # type: ignore[attr-defined]
        raise err
    return result


def report(
    done: Sequence[Done],
    samples: Sequence[Sample],
    *,
    t0: float,
    on_error: Any,
    unique: int,
    latencies: Sequence[float] | None = None,
    exec_times: Sequence[float] | None = None,
    cache_hits: int = 0,
    retries: int = 0,
    extra: dict[str, Any] | None = None,
) -> ScoreBatch:
    """The :class:`ScoreBatch` of finished samples, with its ``stats`` (:func:`batch_stats`; ``latencies`` and
    ``exec_times`` default to every row's, ``extra`` adds keys) and the failure policy (:func:`finish_batch`)."""
    stats = batch_stats(
        [d.score.status for d in done],
        latencies=[d.queue_s + d.exec_s for d in done] if latencies is None else latencies,
        exec_times=[d.exec_s for d in done] if exec_times is None else exec_times,
        wall_s=time.perf_counter() - t0,
        unique=unique,
        cache_hits=cache_hits,
        retries=retries,
    )
    if extra:
        stats.update(extra)
    return finish_batch(done, samples, stats, on_error)


def failure_error(score: Score, sample: Sample, index: int | None, failed: int, n: int) -> ScoringError:
    where = "sample" if index is None else f"sample {index}"
    return ScoringError(
        f"{where} (uid={sample.uid!r}, task={sample.task!r}) failed with status {score.status.value}: "
        f"{score.info.get('error')}; {failed} of {n} sample(s) failed (on_error='raise')"
    )


class ResultCache:
    """The optional result cache of a runner (``cache_size`` entries; 0: none): hits come back as independent
    copies marked ``info["cached"]``; only :data:`CACHEABLE` results are kept."""

    def __init__(self, size: int) -> None:
        self._cache = LRUCache(size) if size else None

    @property
    def enabled(self) -> bool:
        return self._cache is not None

    def get(self, key: str | None) -> Score | None:
        if key is None or self._cache is None:
            return None
        hit = self._cache.get(key)
        return None if hit is None else copy_score(hit, cached=True)

    def put(self, key: str | None, score: Score, scorer: Any) -> None:
        if key is not None and self._cache is not None and score.status in CACHEABLE:
            # the cache holds its own copy: the caller gets ``score`` back and may write into its info/metrics
            self._cache.put(key, copy_score(score), scorer)


class Inflight:
    """Streamed samples with the same key in flight at once are scored once: the first scores, the others wait
    for it and get a copy marked ``info["dedup"]`` (should the first be cancelled, each scores itself).
    Thread-safe: callers may be on different threads and event loops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[
            str, concurrent.futures.Future[Score | None]
        ] = {}  # None: the first was cancelled

    async def run(self, key: str | None, score: Callable[[], Awaitable[Score]]) -> Score:
        if key is None:
            return await score()
        with self._lock:
            running = self._running.get(key)
            if running is None:
                shared = self._running[key] = concurrent.futures.Future()
        if running is not None:
            first = await asyncio.wrap_future(running)
            return copy_score(first, dedup=True) if first is not None else await score()
        result: Score | None = None
        try:
            result = await score()
        finally:
            with self._lock:
                self._running.pop(key, None)
            shared.set_result(result)
        return result


def check_samples(samples: Iterable[Sample]) -> list[Sample]:
    """``samples`` as a list, each checked to be a :class:`Sample` (a clear TypeError otherwise)."""
    if isinstance(samples, Sample):
        raise TypeError("samples must be an iterable of Sample; use submit() for a single sample")
    out = list(samples)
    for i, s in enumerate(out):
        if not isinstance(s, Sample):
            raise TypeError(f"samples[{i}] is a {type(s).__name__}, expected rewardloop.Sample")
    return out


def finish_with_copies(
    rows: list[Any],
    followers: dict[int, list[int]],
    i: int,
    done: Done,
    on_done: Callable[[int], None] | None,
) -> None:
    """Sample ``i`` is done: store it, and an independent copy (``info["dedup_of"] = i``) for each identical
    sample that followed it; ``on_done`` is called for each."""
    rows[i] = done
    if on_done is not None:
        on_done(i)
    for j in followers.get(i, ()):
        rows[j] = Done(copy_score(done.score, dedup_of=i), done.queue_s, done.exec_s)
        if on_done is not None:
            on_done(j)

"""One :meth:`RayRunner.run` call (:class:`RayBatch`): de-duplication and ``quick()`` verdicts in the driver,
the rest split into cost-balanced chunks (:func:`split`) that the actors pull two at a time; work of an actor
that died goes back to the queue, suspects alone."""

from __future__ import annotations

import asyncio
import heapq
import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..scorers import Scorer
from ..types import Sample, Score, Status
from ._attempt import quick_allowed, run_quick
from ._cache import sample_key
from ._ray_actors import CRASHED_AFTER, SUSPECT_AFTER, Slot, actor_error, crashed, first_line
from ._report import Done, finish_with_copies, group_duplicates

__all__ = ["Chunk", "RayBatch", "cost", "split"]

_BASE_COST = 256.0  # fixed cost of one sample, in characters of response (the default cost estimate)
_CHUNKS_PER_ACTOR = 4  # chunks a batch is split into, per actor
_LANES_PER_ACTOR = 2  # chunks of one batch in flight on one actor at once


@dataclass
class Chunk:
    idxs: list[int]  # batch positions (leaders only)
    cost: float
    deaths: int = 0


class RayBatch:
    """One :meth:`RayRunner.run` call: de-duplication, quick verdicts, chunks, lanes, fan-out."""

    def __init__(
        self,
        runner: Any,
        samples: list[Sample],
        scorers: list[Scorer],
        on_done: Callable[[int], None] | None,
        t0: float,
    ) -> None:
        self.runner = runner
        self.samples = samples
        self.scorers = scorers
        self.on_done = on_done
        self.t0 = t0
        self.done: list[Done | None] = [None] * len(samples)
        self.keys: list[str | None] = [None] * len(samples)
        self.tokens: dict[int, tuple[str, list[Any]]] = {}
        self.followers: dict[int, list[int]] = {}
        self.unique = 0
        self.cache_hits = 0
        self.retries = 0
        self.resubmitted = 0
        self.chunks = 0
        self.latencies: list[float] = []
        self.exec_times: list[float] = []
        self.queue: deque[Chunk] = deque()
        self.running = 0
        self.cond: asyncio.Condition | None = None

    async def execute(self) -> None:
        todo = self._deduplicate()
        todo = self._quick(todo)
        if not todo:
            return
        chunks = split(
            todo, [cost(self.scorers[i], self.samples[i]) for i in todo], self._n_chunks(len(todo))
        )
        self.chunks = len(chunks)
        self.queue.extend(chunks)
        self.cond = asyncio.Condition()
        slots = list(self.runner.actor_pool.slots)
        await asyncio.gather(*(self._lane(slot) for slot in slots for _ in range(_LANES_PER_ACTOR)))
        while self.queue:  # every actor gave up: what is left fails
            chunk = self.queue.popleft()
            failure = Score.failure(Status.INFRA_ERROR, "no Ray actor is available (all failed to start)")
            for i in chunk.idxs:
                self._complete(i, failure, 0.0)

    def results(self) -> list[Done]:
        assert all(d is not None for d in self.done)
        return self.done  # type: ignore[return-value]

    def _n_chunks(self, n: int) -> int:
        live = sum(1 for s in self.runner.actor_pool.slots if s.handle is not None)
        return max(1, min(n, max(1, live) * _CHUNKS_PER_ACTOR))

    def _deduplicate(self) -> list[int]:
        runner = self.runner
        for i, (scorer, sample) in enumerate(zip(self.scorers, self.samples, strict=True)):
            token, box, fingerprint = runner.scorer_box(scorer)
            self.tokens[i] = (token, box)
            self.keys[i] = sample_key(fingerprint, sample) if fingerprint is not None else None
        groups = group_duplicates(self.keys, runner.config.dedup, runner.cache.get)
        self.followers, self.unique, self.cache_hits = groups.followers, groups.unique, groups.cache_hits
        for i, score in groups.hits:
            self._finish(i, Done(score, 0.0, 0.0))
        return groups.todo

    def _quick(self, todo: list[int]) -> list[int]:
        rest = []
        for i in todo:
            scorer = self.scorers[i]
            if not quick_allowed(scorer, self.runner.mode_of(scorer), self.samples[i]):
                rest.append(i)
                continue
            verdict, spent = run_quick(scorer, self.samples[i])
            if verdict is None:
                rest.append(i)
            else:
                self._complete(i, verdict, spent)
        return rest

    async def _take(self) -> Chunk | None:
        assert self.cond is not None
        async with self.cond:
            await self.cond.wait_for(lambda: bool(self.queue) or self.running == 0)
            if not self.queue:
                return None
            self.running += 1
            return self.queue.popleft()

    async def _put_back(self, chunks: Sequence[Chunk]) -> None:
        assert self.cond is not None
        async with self.cond:
            self.queue.extendleft(reversed(chunks))
            self.cond.notify_all()

    async def _release(self) -> None:
        assert self.cond is not None
        async with self.cond:
            self.running -= 1
            self.cond.notify_all()

    async def _lane(self, slot: Slot) -> None:
        runner = self.runner
        while slot.handle is not None and not runner.closed:  # None: the slot was given up
            chunk = await self._take()
            if chunk is None:
                return
            try:
                if chunk.deaths >= SUSPECT_AFTER:  # may be what kills actors: alone among suspects
                    async with runner.actor_pool.suspects:
                        again = await self._send(slot, chunk)
                else:
                    again = await self._send(slot, chunk)
                if again:
                    await self._put_back(again)
            finally:
                await self._release()

    async def _send(self, slot: Slot, chunk: Chunk) -> list[Chunk]:
        """Run one chunk on one actor; returns the chunks to send again (after the actor died)."""
        runner, ray = self.runner, self.runner.actor_pool.ray
        handle, generation = slot.handle, slot.generation
        if handle is None:
            return [chunk]
        idxs = chunk.idxs
        boxes: dict[str, list[Any]] = {}
        tokens = []
        for i in idxs:
            token, box = self.tokens[i]
            boxes.setdefault(token, box)
            tokens.append(token)
        runner.actor_pool.add_load(slot, chunk.cost)
        try:
            scores, exec_times, retries = await runner.actor_pool.call(
                slot, "run_chunk", boxes, tokens, [self.samples[i] for i in idxs]
            )
        except runner.actor_pool.death as exc:
            chunk.deaths += 1
            again = [chunk]
            if len(idxs) == 1 and chunk.deaths >= CRASHED_AFTER:
                self._complete(idxs[0], crashed(exc, chunk.deaths), 0.0)
                again = []
            elif len(idxs) > 1 and chunk.deaths >= SUSPECT_AFTER:  # find the sample to blame
                again = [Chunk([i], c, chunk.deaths) for i, c in zip(idxs, _costs(self, idxs), strict=True)]
            self.resubmitted += sum(len(c.idxs) for c in again)
            await self._put_back(again)  # other actors may take it while this one is replaced
            await runner.actor_pool.replace(slot, generation, exc)
            return []
        except ray.exceptions.RayTaskError as exc:  # the actor method itself failed (e.g. unpickling)
            failure = actor_error(exc)
            for i in idxs:
                self._complete(i, failure, 0.0)
            return []
        except Exception as exc:  # a sample that does not pickle: fail it alone, resend the rest
            return self._unsendable(chunk, exc)
        finally:
            runner.actor_pool.add_load(slot, -chunk.cost)
        self.retries += retries
        for i, score, exec_s in zip(idxs, scores, exec_times, strict=True):
            self._complete(i, score, exec_s)
        return []

    def _unsendable(self, chunk: Chunk, exc: BaseException) -> list[Chunk]:
        pickle = self.runner.actor_pool.ray.cloudpickle
        keep: list[int] = []
        for i in chunk.idxs:
            try:
                pickle.dumps(self.samples[i])
            except Exception as err:
                self._complete(
                    i,
                    Score.failure(
                        Status.INVALID_INPUT,
                        f"the sample cannot be sent to a Ray actor ({type(err).__name__}: {first_line(err)})",
                    ),
                    0.0,
                )
            else:
                keep.append(i)
        if len(keep) == len(chunk.idxs):  # no single sample is to blame
            failure = Score.failure(
                Status.SCORER_ERROR,
                f"cannot send work to a Ray actor: {type(exc).__name__}: {first_line(exc)}",
            )
            for i in keep:
                self._complete(i, failure, 0.0)
            return []
        return [Chunk(keep, sum(_costs(self, keep)), chunk.deaths)] if keep else []

    def _complete(self, i: int, score: Score, exec_s: float) -> None:
        """Sample ``i`` (a leader) was executed now."""
        latency = time.perf_counter() - self.t0
        self.latencies.append(latency)
        self.exec_times.append(exec_s)
        self.runner.cache.put(self.keys[i], score, self.scorers[i])
        self._finish(i, Done(score, max(0.0, latency - exec_s), exec_s))

    def _finish(self, i: int, done: Done) -> None:
        finish_with_copies(self.done, self.followers, i, done, self.on_done)


# ----------------------------------------------------------------------------------------------------
# helpers


def cost(scorer: Scorer, sample: Sample) -> float:
    """Estimated cost of scoring ``sample``: ``scorer.cost(sample)`` when defined, else by length."""
    hook = getattr(scorer, "cost", None)
    if callable(hook):
        try:
            value = float(hook(sample))
            if math.isfinite(value) and value >= 0:
                return value
        except Exception:
            pass
    return _BASE_COST + len(sample.response)


def _costs(batch: RayBatch, idxs: list[int]) -> list[float]:
    return [cost(batch.scorers[i], batch.samples[i]) for i in idxs]


def split(idxs: list[int], costs: list[float], n: int) -> list[Chunk]:
    """``n`` chunks of about equal total cost (longest first onto the lightest); each keeps input order."""
    n = max(1, min(n, len(idxs)))
    heap = [(0.0, k) for k in range(n)]
    members: list[list[int]] = [[] for _ in range(n)]
    totals = [0.0] * n
    for cost, i in sorted(zip(costs, idxs, strict=True), key=lambda p: (-p[0], p[1])):
        total, k = heapq.heappop(heap)
        members[k].append(i)
        totals[k] = total + cost
        heapq.heappush(heap, (totals[k], k))
    return [Chunk(sorted(m), totals[k]) for k, m in enumerate(members) if m]

"""The Ray executor's batches (:class:`Lanes`): the leaders the scheduler left (after de-duplication and ``quick()``
verdicts in the driver) split into cost-balanced chunks (:func:`split`) that the actors pull two at a time; work
of an actor that died goes back to the queue, suspects alone."""

from __future__ import annotations

import asyncio
import heapq
import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..scorers import Scorer
from ..types import Sample, Score, Status
from ._ray_actors import CRASHED_AFTER, SUSPECT_AFTER, Slot, actor_error, crashed, first_line, unsendable

__all__ = ["Chunk", "Lanes", "cost", "split"]

_BASE_COST = 256.0  # fixed cost of one sample, in characters of response (the default cost estimate)
_CHUNKS_PER_ACTOR = 4  # chunks a batch is split into, per actor
_LANES_PER_ACTOR = 2  # chunks of one batch in flight on one actor at once


@dataclass
class Chunk:
    idxs: list[int]  # batch positions (leaders only)
    cost: float
    deaths: int = 0


class Lanes:
    """The leaders of one batch on the actors: cost-balanced chunks in a queue, two lanes per actor pulling
    from it; the work of an actor that died goes back to the queue, suspects alone."""

    def __init__(self, executor: Any, batch: Any, todo: list[int]) -> None:
        self.pool = executor.actor_pool
        self.executor = executor
        self.batch = batch
        self.tokens: dict[int, tuple[str, list[Any]]] = {}
        boxes: dict[int, tuple[str, list[Any]]] = {}
        for i in todo:
            scorer = batch.plans[i].scorer
            box = boxes.get(id(scorer))
            if box is None:
                box = boxes[id(scorer)] = executor.scorer_box(scorer)
            self.tokens[i] = box
        self.todo = todo
        self.resubmitted = 0
        self.queue: deque[Chunk] = deque()
        self.running = 0
        self.cond: asyncio.Condition | None = None

    async def run(self) -> None:
        batch, todo = self.batch, self.todo
        chunks = split(todo, self._costs(todo), self._n_chunks(len(todo))) if todo else []
        if chunks:
            self.queue.extend(chunks)
            self.cond = asyncio.Condition()
            slots = list(self.pool.slots)
            await asyncio.gather(*(self._lane(slot) for slot in slots for _ in range(_LANES_PER_ACTOR)))
        while self.queue:  # every actor gave up: what is left fails
            chunk = self.queue.popleft()
            failure = Score.failure(Status.INFRA_ERROR, "no Ray actor is available (all failed to start)")
            for i in chunk.idxs:
                self._complete(i, failure, 0.0)
        batch.extra.update(actors=self.executor.num_actors, chunks=len(chunks), resubmitted=self.resubmitted)

    def _n_chunks(self, n: int) -> int:
        live: int = self.pool.live
        return max(1, min(n, max(1, live) * _CHUNKS_PER_ACTOR))

    def _costs(self, idxs: list[int]) -> list[float]:
        batch = self.batch
        return [cost(batch.plans[i].scorer, batch.samples[i]) for i in idxs]

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
        pool = self.pool
        while slot.handle is not None and not pool.closed:  # None: the slot was given up
            chunk = await self._take()
            if chunk is None:
                return
            try:
                if chunk.deaths >= SUSPECT_AFTER:  # may be what kills actors: alone among suspects
                    async with pool.suspects:
                        again = await self._send(slot, chunk)
                else:
                    again = await self._send(slot, chunk)
                if again:
                    await self._put_back(again)
            finally:
                await self._release()

    async def _send(self, slot: Slot, chunk: Chunk) -> list[Chunk]:
        """Run one chunk on one actor; returns the chunks to send again (the slot was given up)."""
        pool = self.pool
        await pool.ready(slot)  # a replacement gets work only once it answered
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
        pool.add_load(slot, chunk.cost)
        try:
            scores, exec_times, retries = await pool.call(
                slot, "run_chunk", boxes, tokens, [self.batch.samples[i] for i in idxs], True
            )
        except pool.death as exc:
            # the slot gets its fresh actor first, so no lane sends this work to the dead one again
            pool.replace(slot, generation, exc)
            chunk.deaths += 1
            again = [chunk]
            if len(idxs) == 1 and chunk.deaths >= CRASHED_AFTER:
                self._complete(idxs[0], crashed(exc, chunk.deaths), 0.0)
                again = []
            elif len(idxs) > 1 and chunk.deaths >= SUSPECT_AFTER:  # find the sample to blame
                again = [Chunk([i], c, chunk.deaths) for i, c in zip(idxs, self._costs(idxs), strict=True)]
            self.resubmitted += sum(len(c.idxs) for c in again)
            await self._put_back(again)  # other actors may take it while this one is replaced
            return []
        except pool.ray.exceptions.RayTaskError as exc:  # the actor method itself failed (e.g. unpickling)
            failure = actor_error(exc)
            for i in idxs:
                self._complete(i, failure, 0.0)
            return []
        except Exception as exc:  # a sample that does not pickle: fail it alone, resend the rest
            return self._unsendable(chunk, exc)
        finally:
            pool.add_load(slot, -chunk.cost)
        self.batch.ctx.retries += retries
        for i, score, exec_s in zip(idxs, scores, exec_times, strict=True):
            self._complete(i, score, exec_s)
        return []

    def _unsendable(self, chunk: Chunk, exc: BaseException) -> list[Chunk]:
        pickle = self.pool.ray.cloudpickle
        keep: list[int] = []
        for i in chunk.idxs:
            try:
                pickle.dumps(self.batch.samples[i])
            except Exception as err:
                self._complete(i, unsendable(err), 0.0)
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
        return [Chunk(keep, sum(self._costs(keep)), chunk.deaths)] if keep else []

    def _complete(self, i: int, score: Score, exec_s: float) -> None:
        """Leader ``i`` was executed now."""
        batch = self.batch
        batch.complete(i, batch.ctx.done(score, exec_s))


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

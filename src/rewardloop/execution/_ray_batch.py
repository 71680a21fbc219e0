"""The Ray executor's batches (:class:`Lanes`), streamed: the driver prepares the batch part by part (``quick()``
verdicts, de-duplication keys; 32 samples, then 64, then 128 at a time) while the actors already score the leaders of the
parts before. Prepared leaders
wait in a queue; each of two lanes per actor cuts its next chunk from it when it is free, of an adaptive size
(guided self-scheduling: about the work left over twice the actors, so the first chunks are large and the last
small, and no actor is left with a long tail). Work of an actor that died goes back to the queue, suspects
alone."""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..scorers import Scorer
from ..types import Sample, Score, Status
from ._ray_actors import (
    CRASHED_AFTER,
    SUSPECT_AFTER,
    ActorPool,
    Slot,
    actor_error,
    crashed,
    first_line,
    unsendable,
)

__all__ = ["Chunk", "CostModel", "Lanes", "cost", "part_sizes"]

_BASE_COST = 256.0  # fixed cost of one sample, in characters of response (the default cost estimate)
_LANES_PER_ACTOR = 2  # chunks of one batch in flight on one actor at once
_GUIDED = 2 * _LANES_PER_ACTOR  # a chunk takes about 1 / (_GUIDED * live actors) of the work left
_MIN_SHARE = 32  # ... and at least 1 / (_MIN_SHARE * live actors) of the batch's estimated work
_FIRST_PART = 32  # samples in the first part the driver prepares (the parts then double ...)
_LARGEST_PART = 128  # ... up to this many


@dataclass
class Chunk:
    idxs: list[int]  # batch positions (leaders only)
    cost: float
    deaths: int = 0


def part_sizes(n: int, first: int = _FIRST_PART, largest: int = _LARGEST_PART) -> Iterator[int]:
    """The sizes of the consecutive parts a batch of ``n`` samples is prepared in: ``first``, then doubling up to
    ``largest``. The first leaders leave early; and the driver's event loop, which preparing a part holds (the
    ``quick()`` verdicts run in it), is free between parts often enough to send the next chunk to an actor that
    finished one and to take in results."""
    size, left = max(1, first), n
    while left > 0:
        take = min(size, left)
        yield take
        left -= take
        size = min(2 * size, max(1, largest))


class Lanes:
    """One batch on the actors: the driver prepares it part by part (:func:`part_sizes`) while lanes (two per
    actor) cut chunks from the prepared leaders and send them; the work of an actor that died goes back to
    the queue, suspects alone."""

    def __init__(self, executor: Any, batch: Any) -> None:
        self.pool: ActorPool = executor.actor_pool
        self.executor = executor
        self.batch = batch
        self.tokens: dict[int, tuple[str, list[Any]]] = {}
        self._boxes: dict[int, tuple[str, list[Any]]] = {}
        self.units: dict[int, float] = {}  # a leader's size (see cost()), to learn its scorer's rate from
        self.seen: dict[str, list[float]] = {}  # token -> [seconds executed, units] of the leaders scored
        self.resubmitted = 0
        self.chunks = 0
        self.queue: deque[Chunk] = deque()  # chunks to send again (an actor died), before new work
        self.pending: deque[tuple[int, float]] = deque()  # prepared leaders (position, cost) not yet sent
        self.pending_cost = 0.0
        self.unprepared = len(batch.samples)
        self.prepared_cost = 0.0  # estimated work of the leaders prepared so far
        self.feeding = True
        self.running = 0
        self.cond: asyncio.Condition | None = None

    async def run(self) -> None:
        batch = self.batch
        self.cond = asyncio.Condition()
        slots = list(self.pool.slots)
        lanes = [asyncio.ensure_future(self._lane(slot)) for slot in slots for _ in range(_LANES_PER_ACTOR)]
        try:
            await self._feed()
            await asyncio.gather(*lanes)
        except BaseException:
            for lane in lanes:
                lane.cancel()
            raise
        failure = Score.failure(Status.INFRA_ERROR, "no Ray actor is available (all failed to start)")
        left = [i for chunk in self.queue for i in chunk.idxs] + [i for i, _ in self.pending]
        self.queue.clear()
        self.pending.clear()
        for i in left:  # every actor gave up: what is left fails
            self._complete(i, failure, 0.0)
        batch.extra.update(actors=self.executor.num_actors, chunks=self.chunks, resubmitted=self.resubmitted)
        self.executor.costs.learn(self.seen)

    async def _feed(self) -> None:
        """Prepare the batch part by part (in one part with a result cache, see ``Batch.prepare_part``), handing
        each part's leaders to the lanes before the next part is prepared."""
        batch, cond = self.batch, self.cond
        assert cond is not None
        n = len(batch.samples)
        sizes = iter([n] if n else []) if batch.runner.cache.enabled else part_sizes(n)
        start = 0
        for size in sizes:
            todo = batch.prepare_part(range(start, start + size), self.executor.driver_quick)
            start += size
            costs = self._costs(todo)
            async with cond:
                self.pending.extend(zip(todo, costs, strict=True))
                total = sum(costs)
                self.pending_cost += total
                self.prepared_cost += total
                self.unprepared -= size
                self.feeding = start < n
                cond.notify_all()
            await asyncio.sleep(0)  # the lanes send what is ready before the next part is prepared
        async with cond:
            self.feeding = False
            cond.notify_all()

    def _costs(self, idxs: list[int]) -> list[float]:
        """Each leader's estimated work: its size times the seconds per unit of size its scorer took in
        earlier batches (see :class:`CostModel`)."""
        batch, model = self.batch, self.executor.costs
        out = []
        for i in idxs:
            scorer = batch.plans[i].scorer
            box = self._boxes.get(id(scorer))
            if box is None:
                box = self._boxes[id(scorer)] = self.executor.scorer_box(scorer)
            self.tokens[i] = box
            units = self.units[i] = cost(scorer, batch.samples[i])
            out.append(units * model.rate(box[0]))
        return out

    def _expected(self) -> float:
        """Estimated work the unprepared samples will add, at the rate per sample prepared so far."""
        prepared = len(self.batch.samples) - self.unprepared
        return self.unprepared * (self.prepared_cost / prepared) if prepared else 0.0

    def _floor(self) -> float:
        """The least work a chunk takes: 1 / (_MIN_SHARE x live actors) of the batch's estimated work."""
        return (self.prepared_cost + self._expected()) / (_MIN_SHARE * max(1, self.pool.live))

    def _target(self) -> float:
        """The estimated work of the next chunk: about 1 / (_GUIDED x live actors) of the work left (pending plus
        expected), and no less than :meth:`_floor`."""
        left = self.pending_cost + self._expected()
        return max(left / (_GUIDED * max(1, self.pool.live)), self._floor())

    def _cut(self) -> Chunk | None:
        """The next chunk from the pending leaders (in input order); None while too little is prepared yet."""
        if not self.pending:
            return None
        target = self._target()
        if (
            self.feeding and self.pending_cost < self._floor()
        ):  # a chunk worth a call, then as much as is ready
            return None
        idxs: list[int] = []
        total = 0.0
        while self.pending and (not idxs or total < target):
            i, c = self.pending.popleft()
            idxs.append(i)
            total += c
        self.pending_cost = max(0.0, self.pending_cost - total)
        self.chunks += 1
        return Chunk(idxs, total)

    async def _take(self) -> Chunk | None:
        cond = self.cond
        assert cond is not None
        async with cond:
            while True:
                chunk = self.queue.popleft() if self.queue else self._cut()
                if chunk is not None:
                    self.running += 1
                    return chunk
                if not self.feeding and not self.pending and self.running == 0:
                    return None
                await cond.wait()

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
            seen = self.seen.setdefault(self.tokens[i][0], [0.0, 0.0])
            seen[0] += exec_s
            seen[1] += self.units[i]
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


class CostModel:
    """Seconds of execution per unit of a sample's size (:func:`cost`), learned per scorer from the batches it
    scored (an even mix of the last batch and what was known before). A scorer not seen yet is given the mean
    rate of the scorers seen (1.0 when none were): work then splits by size, as the estimate alone would.
    Process and thread work, whose samples cost the most per character, so weighs as what it is."""

    def __init__(self, keep: int = 256) -> None:
        self._rates: dict[str, float] = {}
        self._keep = keep

    def rate(self, token: str) -> float:
        rate = self._rates.get(token)
        if rate is not None:
            return rate
        return sum(self._rates.values()) / len(self._rates) if self._rates else 1.0

    def learn(self, seen: dict[str, list[float]]) -> None:
        """Fold in one batch's ``{token: [seconds executed, units]}``."""
        for token, (seconds, units) in seen.items():
            if units <= 0 or not math.isfinite(seconds) or seconds < 0:
                continue
            new = max(seconds / units, 1e-12)
            old = self._rates.pop(token, None)
            self._rates[token] = new if old is None else (old + new) / 2
        while len(self._rates) > self._keep:
            del self._rates[next(iter(self._rates))]


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

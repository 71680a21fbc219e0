"""The Ray side of :class:`~rewardloop.execution.RayRunner`: the scoring actor (one local :class:`Runner` each),
the limiter actor and its client (:class:`RayLimiter`, so rate limits hold across all actors), and
:class:`ActorPool`, which starts, calls, replaces and stops the actors. The actor bodies are plain classes
made Ray actors at run time, so they can be tested without Ray."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import logging
import os
import threading
import time
import uuid
import zlib
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import MissingExtraError
from ..scorers import Scorer
from ..types import Sample, Score, Status
from ._config import RunnerConfig
from ._limits import RateLimiter, Slots
from ._runner import Runner

__all__ = [
    "CLOSE_TIMEOUT_S",
    "CRASHED_AFTER",
    "SUSPECT_AFTER",
    "ActorPool",
    "LimiterActor",
    "RayLimiter",
    "ScoringActor",
    "Slot",
    "actor_error",
    "await_ref",
    "crashed",
    "first_line",
    "import_ray",
    "unsendable",
]

_log = logging.getLogger(__name__)

SUSPECT_AFTER = 2  # work whose actor died this often runs one sample at a time, one call at a time
CRASHED_AFTER = 3  # a sample whose actor died this often ends as "crashed"
START_TIMEOUT_S = 120.0  # how long an actor may take to start
CLOSE_TIMEOUT_S = 10.0  # how long an actor may take to close its runner
SCORER_CACHE = 64  # scorers remembered (driver: their object refs; actor: the objects)
GRANT_LOG = 10_000  # grants the limiter actor remembers
NEED_SCORERS = "rewardloop:need-scorers"  # an actor's answer when it lacks a scorer the driver left out


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingExtraError("ray", "ray") from None
    return ray


def death_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """Errors meaning "the call was lost with its actor, send it again"."""
    exc = ray.exceptions
    names = ("RayActorError", "WorkerCrashedError", "ObjectLostError", "OwnerDiedError", "NodeDiedError")
    return tuple(getattr(exc, n) for n in names if isinstance(getattr(exc, n, None), type))


class LimiterActor:
    """Body of the limiter actor: one :class:`RateLimiter` for every runner of a :class:`RayRunner`.

    Plain class, made a Ray actor with ``ray.remote`` at run time (so it can be tested without Ray);
    ``clock`` is injectable. ``grants()`` returns ``(client, reserved_at, start_at, tokens)`` for the
    latest grants, where ``start_at`` is the earliest moment the request was allowed to start.
    """

    def __init__(self, rpm: float | None, tpm: float | None, clock: Callable[[], float] | None = None):
        self._source = clock or time.monotonic
        self._frozen: float | None = None
        self._limiter = RateLimiter(rpm, tpm, clock=self._clock)
        self._grants: deque[tuple[str, float, float, float]] = deque(maxlen=GRANT_LOG)

    def _clock(self) -> float:
        # during reserve() every reading is the same instant, so the logged start is exact
        return self._frozen if self._frozen is not None else self._source()

    def reserve(self, tokens: float, client: str = "") -> float:
        """Reserve one request; the seconds the caller must wait before it starts."""
        self._frozen = now = self._source()
        try:
            wait = self._limiter.reserve(tokens)
        finally:
            self._frozen = None
        self._grants.append((client, now, now + wait, tokens))
        return wait

    def pause_left(self) -> float:
        return self._limiter._pause_left()

    def settle(self, estimate: float, actual: float) -> None:
        self._limiter.settle(estimate, actual)

    def pause(self, seconds: float) -> None:
        self._limiter.pause(seconds)

    def grants(self) -> list[tuple[str, float, float, float]]:
        return list(self._grants)

    def clear_grants(self) -> None:
        self._grants.clear()


class RayLimiter:
    """A :class:`~rewardloop.execution._limits.Limiter` backed by a shared limiter actor.

    ``acquire`` asks the actor for a reservation and sleeps locally for the wait it returns (then checks
    for a pause that began meanwhile); ``settle`` and ``pause`` are sent without waiting for a reply
    (Ray runs one caller's calls to an actor in order). Picklable: pass it to any actor or process that
    has Ray.
    """

    def __init__(self, handle: Any, *, client: str = "", counts_tokens: bool = True) -> None:
        self._handle = handle
        self._client = client
        self.counts_tokens = counts_tokens

    async def acquire(self, tokens: float = 1.0) -> None:
        try:
            wait = await self._handle.reserve.remote(float(tokens), self._client)
            while wait > 0:
                await self.sleep(wait)
                wait = await self._handle.pause_left.remote()
        except Exception as exc:  # the limiter actor is gone for good (Ray retries while it restarts)
            _log.error("the Ray limiter actor failed (%s: %s); request not limited", type(exc).__name__, exc)

    def settle(self, estimate: float, actual: float) -> None:
        self._handle.settle.remote(float(estimate), float(actual))

    def pause(self, seconds: float) -> None:
        self._handle.pause.remote(float(seconds))

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def __repr__(self) -> str:
        return f"<RayLimiter client={self._client!r}>"


class ScoringActor:
    """Body of a scoring actor (made a Ray actor at run time): one local :class:`Runner`.

    Scorers arrive as ``{token: [object_ref]}``; each is fetched and unpickled once per actor and kept
    (the last few), so the local runner sees the same scorer object on every call. Once the driver
    knows an actor has a scorer it sends ``{token: None}``; should the actor have dropped it meanwhile,
    the call returns :data:`NEED_SCORERS` and the driver sends it again with the reference.
    """

    def __init__(self, config: dict[str, Any], limiter: RayLimiter | None) -> None:
        self._runner = Runner(RunnerConfig.from_dict(config), limiter=limiter)
        self._scorers: OrderedDict[str, asyncio.Future[Scorer]] = OrderedDict()

    async def ready(self) -> int:
        return os.getpid()

    async def _resolve(self, boxes: Mapping[str, list[Any] | None]) -> dict[str, Scorer] | None:
        """The scorers by token; None when one is neither cached nor sent."""
        out: dict[str, Scorer] = {}
        for token, box in boxes.items():
            fetched = self._scorers.get(token)
            if fetched is None:
                if box is None:
                    return None
                # one fetch per token, shared by concurrent calls: they must all see the same object (a
                # group's streamed members meet in the gatherer of that very scorer)
                fetched = self._scorers[token] = asyncio.ensure_future(await_ref(box[0]))
                while len(self._scorers) > SCORER_CACHE:
                    self._scorers.popitem(last=False)
            else:
                self._scorers.move_to_end(token)
            try:
                out[token] = await fetched
            except BaseException:
                if self._scorers.get(token) is fetched:
                    del self._scorers[token]
                raise
        return out

    async def run_chunk(
        self,
        boxes: dict[str, list[Any] | None],
        tokens: list[str],
        samples: list[Sample],
        asked_quick: bool = False,
    ) -> tuple[list[Score], list[float], int] | str:
        """Score a chunk; returns (scores, exec_s per sample, retries). ``asked_quick``: the driver already
        asked every sample's ``quick()`` (these are the undecided ones), so the runner does not ask again."""
        scorers = await self._resolve(boxes)
        if scorers is None:
            return NEED_SCORERS
        per_sample: Any = [scorers[t] for t in tokens] if len(scorers) > 1 else scorers[tokens[0]]
        batch = await self._runner.run(per_sample, samples, ask_quick=not asked_quick)
        return list(batch), list(batch.exec_s), int(batch.stats.get("retries", 0))

    async def submit(self, boxes: dict[str, list[Any] | None], token: str, sample: Sample) -> Score | str:
        scorers = await self._resolve(boxes)
        if scorers is None:
            return NEED_SCORERS
        return await self._runner.submit(scorers[token], sample)

    async def pool_stats(self) -> Any:
        return self._runner.pool_stats()

    async def close(self) -> None:
        await self._runner.aclose()


def _started() -> concurrent.futures.Future[bool]:
    done: concurrent.futures.Future[bool] = concurrent.futures.Future()
    done.set_result(True)
    return done


@dataclass
class Slot:
    """One actor position; its actor is replaced when it dies (``handle`` None: given up). ``started`` is
    resolved once the current actor answered (or its slot was given up): no work is sent to it before."""

    index: int
    handle: Any
    generation: int = 0
    load: float = 0.0  # estimated cost in flight
    known: set[str] = field(default_factory=set)  # scorer tokens this actor has been sent
    started: concurrent.futures.Future[bool] = field(default_factory=_started)


class ActorPool:
    """The scoring actors of one :class:`~rewardloop.execution.RayRunner`: ``num_actors`` slots, each holding an
    actor (replaced when it dies, given up when a replacement does not start), the optional limiter actor, and
    how work reaches them: the least-loaded actor (:meth:`pick_slot`), or the one a group's uid hashes to
    (:meth:`affine_index`, so a group's members meet in one actor's runner)."""

    def __init__(
        self, ray: Any, config: RunnerConfig, num_actors: int, actor_options: Mapping[str, Any] | None
    ) -> None:
        self.ray = ray
        self.config = config
        self.num_actors = num_actors
        self.death = death_errors(ray)
        self.slots: list[Slot] = []
        self.suspects = Slots(1)  # work that may kill actors runs one call at a time
        self.restarts = 0
        self.limiter_handle: Any = None
        self.closed = False
        self._lock = threading.Lock()
        self._rr = itertools.count()
        self._start(actor_options)

    @property
    def live(self) -> int:
        return sum(1 for s in self.slots if s.handle is not None)

    def close(self) -> None:
        """Stop the actors (each closes its runner and worker pool first) and the limiter actor."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            slots, self.slots = self.slots, []
            limiter, self.limiter_handle = self.limiter_handle, None
        ray = self.ray
        if not ray.is_initialized():
            return
        handles = [s.handle for s in slots if s.handle is not None]
        refs = []
        for h in handles:
            with contextlib.suppress(Exception):  # already dead
                refs.append(h.close.remote())
        if refs:
            with contextlib.suppress(Exception):
                ray.wait(refs, num_returns=len(refs), timeout=CLOSE_TIMEOUT_S)
        for h in [*handles, *([limiter] if limiter is not None else [])]:
            with contextlib.suppress(Exception):
                ray.kill(h, no_restart=True)

    def _start(self, actor_options: Mapping[str, Any] | None) -> None:
        ray, cfg = self.ray, self.config
        options = {"scheduling_strategy": "SPREAD", **dict(actor_options or {})}
        options.setdefault("max_restarts", 0)
        self._actor_cls = ray.remote(ScoringActor).options(**options)
        if cfg.rpm or cfg.tpm:
            limiter_cls = ray.remote(LimiterActor).options(num_cpus=0, max_restarts=-1, max_task_retries=-1)
            self.limiter_handle = limiter_cls.remote(cfg.rpm, cfg.tpm)
        # the actors' own runners: no second de-duplication or cache, no slow-sample log (the driver's scheduler
        # does all three), never raise
        self._actor_config = cfg.replace(
            dedup=False, cache_size=0, on_error=0.0, slow_sample_s=None
        ).as_dict()
        self.slots = [Slot(i, self.new_actor(i)) for i in range(self.num_actors)]
        refs = [slot.handle.ready.remote() for slot in self.slots]
        try:
            ray.get(refs, timeout=START_TIMEOUT_S)
        except ray.exceptions.GetTimeoutError:
            raise RuntimeError(
                f"{self.num_actors} Ray actor(s) did not start within {START_TIMEOUT_S:g} s; check that "
                f"the cluster has the resources asked for (actor_options={dict(options)})"
            ) from None

    def new_actor(self, index: int) -> Any:
        limiter = None
        if self.limiter_handle is not None:
            client = f"actor-{index}-{uuid.uuid4().hex[:8]}"
            limiter = RayLimiter(self.limiter_handle, client=client, counts_tokens=bool(self.config.tpm))
        return self._actor_cls.remote(self._actor_config, limiter)

    def affine_index(self, uid: Any) -> int:
        """The slot of a group: a stable hash of its uid over the slots (a uid-less sample: round robin). A
        slot given up passes its groups on to the live ones, by the same hash."""
        if uid is None:
            return next(self._rr) % max(1, len(self.slots))
        h = zlib.crc32(str(uid).encode("utf-8", "surrogatepass"))
        index = h % max(1, len(self.slots))
        if self.slots and self.slots[index].handle is None:
            live = [s.index for s in self.slots if s.handle is not None]
            if live:
                index = live[h % len(live)]
        return index

    def slot(self, index: int) -> Slot | None:
        """Slot ``index`` (None when it does not exist)."""
        return self.slots[index] if index < len(self.slots) else None

    async def ready(self, slot: Slot) -> None:
        """Wait until the slot's current actor answered (a replacement gets no work before), or was given up."""
        while not slot.started.done():
            await asyncio.wrap_future(slot.started)

    async def call_resending(
        self,
        pick: Callable[[], Slot | None],
        method: str,
        boxes: dict[str, list[Any]],
        *args: Any,
        cost: float = 0.0,
    ) -> tuple[Any, int]:
        """``method`` on the actor of the slot ``pick()`` gives, sent again (to a new pick) each time its actor
        dies: (the result, or a failed :class:`Score` when the call cannot be made; the deaths). After
        ``SUSPECT_AFTER`` deaths the call runs alone among suspects; after ``CRASHED_AFTER`` it is ``crashed``."""
        deaths = 0
        while True:
            slot = pick()
            if slot is not None:
                await self.ready(slot)
            if slot is None or slot.handle is None:
                return Score.failure(
                    Status.INFRA_ERROR, "no Ray actor is available (all failed to start)"
                ), deaths
            generation = slot.generation
            self.add_load(slot, cost)
            try:
                if deaths >= SUSPECT_AFTER:  # it may be what kills actors: alone among suspects
                    async with self.suspects:
                        return await self.call(slot, method, boxes, *args), deaths
                return await self.call(slot, method, boxes, *args), deaths
            except self.death as exc:
                deaths += 1
                self.replace(slot, generation, exc)
                if deaths >= CRASHED_AFTER:
                    return crashed(exc, deaths), deaths
            except self.ray.exceptions.RayTaskError as exc:
                return actor_error(exc), deaths
            except Exception as exc:  # the samples could not be sent (they do not pickle)
                return unsendable(exc), deaths
            finally:
                self.add_load(slot, -cost)

    def pick_slot(self) -> Slot | None:
        """The live slot with the least estimated work in flight (ties: round robin)."""
        live = [s for s in self.slots if s.handle is not None]
        if not live:
            return None
        start = next(self._rr) % len(live)
        order = live[start:] + live[:start]
        return min(order, key=lambda s: s.load)

    async def call(self, slot: Slot, method: str, boxes: dict[str, list[Any]], *args: Any) -> Any:
        """``handle.<method>.remote(boxes, *args)`` on the slot's actor, leaving out the scorers it has.

        Raises like the call (the actor died, a sample does not pickle ...)."""
        with self._lock:
            handle, generation = slot.handle, slot.generation
            sent = {t: (None if t in slot.known else box) for t, box in boxes.items()}
        result = await await_ref(getattr(handle, method).remote(sent, *args))
        if isinstance(result, str) and result == NEED_SCORERS:  # the actor dropped one: send them all
            with self._lock:
                slot.known.difference_update(boxes)
            result = await await_ref(getattr(handle, method).remote(boxes, *args))
        with self._lock:
            if slot.generation == generation:
                if len(slot.known) > 4 * SCORER_CACHE:
                    slot.known.clear()
                slot.known.update(boxes)
        return result

    def add_load(self, slot: Slot, cost: float) -> None:
        with self._lock:
            slot.load += cost

    def replace(self, slot: Slot, generation: int, error: BaseException) -> concurrent.futures.Future[bool]:
        """Replace the dead actor of ``slot`` at once (once per death, whoever notices first), before anything
        else can be sent to it; the returned future resolves when the new actor answered (True) or did not
        start and the slot was given up (False). Runs without an event loop: Ray's own future resolves it."""
        with self._lock:
            if self.closed or slot.generation != generation or slot.handle is None:
                return slot.started
            old = slot.handle
            slot.generation += 1
            generation = slot.generation
            self.restarts += 1
            slot.handle = handle = self.new_actor(slot.index)
            slot.known = set()
            started: concurrent.futures.Future[bool] = concurrent.futures.Future()
            slot.started = started
        _log.warning(
            "Ray actor %d died (%s: %s); replaced it and resubmitting its samples",
            slot.index,
            type(error).__name__,
            first_line(error),
        )
        with contextlib.suppress(Exception):
            self.ray.kill(old, no_restart=True)
        self._watch_start(slot, generation, handle, started)
        return started

    def _watch_start(
        self, slot: Slot, generation: int, handle: Any, started: concurrent.futures.Future[bool]
    ) -> None:
        timer: threading.Timer | None = None

        def settle(error: BaseException | None) -> None:
            with self._lock:
                if started.done():
                    return
                if error is not None and slot.generation == generation:
                    slot.handle = None  # the replacement did not start: give the slot up
                if timer is not None:
                    timer.cancel()
                started.set_result(error is None)
            if error is not None:
                _log.error(
                    "replacement Ray actor %d did not start (%s); giving its slot up", slot.index, error
                )
                with contextlib.suppress(Exception):
                    self.ray.kill(handle, no_restart=True)

        try:
            answer = handle.ready.remote().future()
        except Exception as exc:
            settle(exc)
            return
        timer = threading.Timer(
            START_TIMEOUT_S, settle, args=(TimeoutError(f"no answer within {START_TIMEOUT_S:g} s"),)
        )
        timer.daemon = True
        timer.start()
        answer.add_done_callback(lambda f: settle(_failure_of(f)))


def _failure_of(future: concurrent.futures.Future[Any]) -> BaseException | None:
    if future.cancelled():
        return RuntimeError("the call was cancelled")
    return future.exception()


async def await_ref(ref: Any) -> Any:
    """Await an ObjectRef; cancelling the wait cancels the remote call (best effort)."""
    try:
        return await ref
    except asyncio.CancelledError:
        try:
            import ray

            ray.cancel(ref)
        except Exception:
            pass
        raise


def crashed(exc: BaseException, deaths: int) -> Score:
    return Score.failure(
        Status.CRASHED,
        f"the Ray actor scoring this sample died {deaths} times; not resubmitted again "
        f"(last: {type(exc).__name__}: {first_line(exc)})",
    )


def actor_error(exc: BaseException) -> Score:
    cause = getattr(exc, "cause", None) or exc
    return Score.failure(
        Status.SCORER_ERROR,
        f"the Ray actor failed to run the call: {type(cause).__name__}: {first_line(cause)}",
    )


def unsendable(exc: BaseException) -> Score:
    return Score.failure(
        Status.INVALID_INPUT,
        f"the sample cannot be sent to a Ray actor ({type(exc).__name__}: {first_line(exc)})",
    )


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else ""

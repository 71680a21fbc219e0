"""``RayRunner``: the :class:`~rewardloop.execution.Runner` interface over a pool of Ray actors.

Ray is optional (``pip install 'rewardloop[ray]'``). This module imports it only when a
:class:`RayRunner` is built; without Ray, ``RayRunner(...)`` raises
:class:`~rewardloop.errors.MissingExtraError` and everything else keeps working locally.

Design:

* **Actors.** ``num_actors`` Ray actors, each holding its own local :class:`Runner` (and so its own
  long-lived worker-process pool, deadlines, retries and failure statuses). The driver keeps only the
  bookkeeping: de-duplication, the optional result cache, ``quick()`` verdicts, splitting the work, and
  putting results back in input order. A scorer is shipped once per actor (``ray.put`` plus a token the
  actor caches), not once per call.
* **Batches.** ``run`` de-duplicates once, in the driver, with the keys of :mod:`._cache` (identical
  samples are never scored on two actors), runs ``quick()`` inline, then splits the remaining samples
  into cost-balanced chunks (longest estimated cost first onto the lightest chunk; about four chunks per
  actor; no sample appears twice and nothing is padded). A sample's cost is ``scorer.cost(sample)``
  when the scorer has that method, else ``256 + len(response)``. Each actor pulls chunks, two at a time,
  so a faster actor takes more.
* **Streaming.** ``submit`` sends each sample on its own to the actor with the least estimated work in
  flight, as soon as it is called.
* **Actor death.** A call that fails because its actor died (``RayActorError``, a lost worker or
  object) is sent again: the dead actor is replaced (same slot, fresh actor) and the work goes back to
  the queue, where any actor may take it. None of it is lost. Work whose actor died twice becomes
  *suspect*: a chunk is split into single samples, and suspects run one call at a time, so a sample
  that kills every actor it touches (a segfault in an ``inline`` scorer, say) cannot take innocent
  samples down with it again. A sample whose actor died three times ends with status ``crashed``;
  every other sample is scored.
* **Global limits.** With ``rpm``/``tpm`` set, one limiter actor owns the token buckets (the same
  :class:`~rewardloop.execution._limits.RateLimiter` the local runner uses: reservations, first come
  first served, ``Retry-After`` pauses) and every actor's runner reaches it through :class:`RayLimiter`,
  a thin client implementing the :class:`~rewardloop.execution._limits.Limiter` protocol. The limits
  therefore hold across all actors together. The limiter actor keeps a log of its grants
  (``runner.limiter.grants.remote()``).

What is per actor rather than global: ``workers``, ``max_concurrency``, ``threads`` and
``retry_budget`` (each actor's runner applies its budget per chunk it receives). Without ``rpm``/``tpm``
no limiter actor is started, and a ``Retry-After`` pauses only the actor that received it.

Scorers and samples must pickle with Ray's cloudpickle. Functions loaded from a file (``--custom-function
file.py:name``) are pickled by value, so actors on any node can use them. Latency statistics count from
the start of the batch to the moment a sample's chunk result reached the driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import math
import os
import sys
import threading
import time
import uuid
import zlib
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import ConfigError, MissingExtraError
from ..scorers._base import Scorer, as_scorer
from ..types import Sample, Score, ScoreBatch, Status
from ._attempt import quick_allowed, run_quick
from ._cache import sample_key, scorer_fingerprint
from ._config import RunnerConfig
from ._grouped import group_indices
from ._limits import RateLimiter, Slots
from ._report import (
    Done,
    Inflight,
    ResultCache,
    batch_stats,
    check_samples,
    failure_error,
    finish_batch,
    finish_with_copies,
    group_duplicates,
)
from ._runner import Runner
from ._sync import Closable, SyncBridge
from ._whole import run_whole, submit_whole

__all__ = ["RayLimiter", "RayRunner"]

_log = logging.getLogger(__name__)

T = TypeVar("T")
ScorerLike = Scorer | str | Callable[[Sample], Any]

_BASE_COST = 256.0  # fixed cost of one sample, in characters of response (the default cost estimate)
_CHUNKS_PER_ACTOR = 4  # chunks a batch is split into, per actor
_LANES_PER_ACTOR = 2  # chunks of one batch in flight on one actor at once
_SUSPECT_AFTER = 2  # work whose actor died this often runs one sample at a time, one call at a time
_CRASHED_AFTER = 3  # a sample whose actor died this often ends as "crashed"
_START_TIMEOUT_S = 120.0  # how long an actor may take to start
_CLOSE_TIMEOUT_S = 10.0  # how long an actor may take to close its runner
_SCORER_CACHE = 64  # scorers remembered (driver: their object refs; actor: the objects)
_GRANT_LOG = 10_000  # grants the limiter actor remembers
_NEED_SCORERS = "rewardloop:need-scorers"  # an actor's answer when it lacks a scorer the driver left out
_USER_MODULE_PREFIX = "rewardloop_user_"  # how rewardloop._loader names modules loaded from files


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingExtraError("ray", "ray") from None
    return ray


def _death_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """Errors meaning "the call was lost with its actor, send it again"."""
    exc = ray.exceptions
    names = ("RayActorError", "WorkerCrashedError", "ObjectLostError", "OwnerDiedError", "NodeDiedError")
    return tuple(getattr(exc, n) for n in names if isinstance(getattr(exc, n, None), type))


# ----------------------------------------------------------------------------------------------------
# the limiter actor and its client


class _LimiterActor:
    """Body of the limiter actor: one :class:`RateLimiter` for every runner of a :class:`RayRunner`.

    Plain class, made a Ray actor with ``ray.remote`` at run time (so it can be tested without Ray);
    ``clock`` is injectable. ``grants()`` returns ``(client, reserved_at, start_at, tokens)`` for the
    latest grants, where ``start_at`` is the earliest moment the request was allowed to start.
    """

    def __init__(self, rpm: float | None, tpm: float | None, clock: Callable[[], float] | None = None):
        self._source = clock or time.monotonic
        self._frozen: float | None = None
        self._limiter = RateLimiter(rpm, tpm, clock=self._clock)
        self._grants: deque[tuple[str, float, float, float]] = deque(maxlen=_GRANT_LOG)

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


# ----------------------------------------------------------------------------------------------------
# the scoring actor


class _ScoringActor:
    """Body of a scoring actor (made a Ray actor at run time): one local :class:`Runner`.

    Scorers arrive as ``{token: [object_ref]}``; each is fetched and unpickled once per actor and kept
    (the last few), so the local runner sees the same scorer object on every call. Once the driver
    knows an actor has a scorer it sends ``{token: None}``; should the actor have dropped it meanwhile,
    the call returns :data:`_NEED_SCORERS` and the driver sends it again with the reference.
    """

    def __init__(self, config: dict[str, Any], limiter: RayLimiter | None) -> None:
        self._runner = Runner(RunnerConfig.from_dict(config), limiter=limiter)
        self._scorers: OrderedDict[str, asyncio.Future] = OrderedDict()

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
                fetched = self._scorers[token] = asyncio.ensure_future(_await_ref(box[0]))
                while len(self._scorers) > _SCORER_CACHE:
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
        self, boxes: dict[str, list[Any] | None], tokens: list[str], samples: list[Sample]
    ) -> tuple[list[Score], list[float], int] | str:
        """Score a chunk; returns (scores, exec_s per sample, retries)."""
        scorers = await self._resolve(boxes)
        if scorers is None:
            return _NEED_SCORERS
        per_sample: Any = [scorers[t] for t in tokens] if len(scorers) > 1 else scorers[tokens[0]]
        batch = await self._runner.run(per_sample, samples)
        return list(batch), list(batch.exec_s), int(batch.stats.get("retries", 0))

    async def submit(self, boxes: dict[str, list[Any] | None], token: str, sample: Sample) -> Score | str:
        scorers = await self._resolve(boxes)
        if scorers is None:
            return _NEED_SCORERS
        return await self._runner.submit(scorers[token], sample)

    async def pool_stats(self) -> Any:
        return self._runner.pool_stats()

    async def close(self) -> None:
        await self._runner.aclose()


# ----------------------------------------------------------------------------------------------------
# the runner


@dataclass
class _Slot:
    """One actor position; its actor is replaced when it dies (``handle`` None: given up)."""

    index: int
    handle: Any
    generation: int = 0
    load: float = 0.0  # estimated cost in flight
    known: set[str] = field(default_factory=set)  # scorer tokens this actor has been sent


@dataclass
class _Chunk:
    idxs: list[int]  # batch positions (leaders only)
    cost: float
    deaths: int = 0


class RayRunner(Closable):
    """A :class:`Runner` whose work runs on a pool of Ray actors, each with its own local runner.

    ``RayRunner(config=None, *, num_actors=2, address=None, actor_options=None, **overrides)``: ``config``
    and ``overrides`` are those of :class:`Runner` (``workers``, ``max_concurrency`` and ``threads`` are
    per actor). ``address`` is passed to ``ray.init`` when Ray is not initialised yet (None: a running
    cluster from ``RAY_ADDRESS``, else a new local one, shut down again by :meth:`close`).
    ``actor_options`` go to ``.options()`` of each scoring actor (e.g. ``{"num_cpus": 4}``); the
    default only spreads the actors over the cluster's nodes.

    The actors start when the runner is built (that blocks until they answer); :meth:`close` stops them.
    Same methods as :class:`Runner`: ``await run(...)``, ``run_sync(...)``, ``await submit(...)``,
    ``close()`` / ``await aclose()``, and both context-manager protocols.
    """

    def __init__(
        self,
        config: RunnerConfig | Mapping[str, Any] | None = None,
        *,
        num_actors: int = 2,
        address: str | None = None,
        actor_options: Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> None:
        ray = _import_ray()
        if config is None or isinstance(config, Mapping):
            config = RunnerConfig.from_dict({**dict(config or {}), **overrides})
        elif not isinstance(config, RunnerConfig):
            raise ConfigError(
                f"config must be a RunnerConfig, a mapping or None, got {type(config).__name__}"
            )
        elif overrides:
            config = config.replace(**overrides)
        if isinstance(num_actors, bool) or not isinstance(num_actors, int) or num_actors < 1:
            raise ConfigError(f"num_actors must be an int >= 1, got {num_actors!r}")
        if address is not None and not isinstance(address, str):
            raise ConfigError(f"address must be a string such as 'auto' or 'host:6379', got {address!r}")
        self.config: RunnerConfig = config
        self.num_actors = num_actors
        self._ray = ray
        self._death = _death_errors(ray)
        self._lock = threading.Lock()
        self._cache = ResultCache(config.cache_size)
        self._boxes: OrderedDict[int, tuple[Scorer, str, list[Any], str | None]] = OrderedDict()
        self._inflight = Inflight()
        self._bridge = SyncBridge("RayRunner")
        self._rr = itertools.count()
        self._suspects = Slots(1)  # work that may kill actors runs one call at a time
        self._restarts = 0
        self._closed = False
        self._owns_ray = False
        self._limiter_handle: Any = None
        self._slots: list[_Slot] = []

        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False)
            self._owns_ray = True
        try:
            self._start(actor_options)
        except BaseException:
            self.close()
            raise

    # -- start-up ------------------------------------------------------------------------------------

    def _start(self, actor_options: Mapping[str, Any] | None) -> None:
        ray, cfg = self._ray, self.config
        options = {"scheduling_strategy": "SPREAD", **dict(actor_options or {})}
        options.setdefault("max_restarts", 0)
        self._actor_cls = ray.remote(_ScoringActor).options(**options)
        if cfg.rpm or cfg.tpm:
            limiter_cls = ray.remote(_LimiterActor).options(num_cpus=0, max_restarts=-1, max_task_retries=-1)
            self._limiter_handle = limiter_cls.remote(cfg.rpm, cfg.tpm)
        # the actors' own runners: no second de-duplication or cache (done here), never raise
        self._actor_config = cfg.replace(dedup=False, cache_size=0, on_error=0.0).as_dict()
        self._slots = [_Slot(i, self._new_actor(i)) for i in range(self.num_actors)]
        refs = [slot.handle.ready.remote() for slot in self._slots]
        try:
            ray.get(refs, timeout=_START_TIMEOUT_S)
        except ray.exceptions.GetTimeoutError:
            raise RuntimeError(
                f"{self.num_actors} Ray actor(s) did not start within {_START_TIMEOUT_S:g} s; check that "
                f"the cluster has the resources asked for (actor_options={dict(options)})"
            ) from None

    def _new_actor(self, index: int) -> Any:
        limiter = None
        if self._limiter_handle is not None:
            client = f"actor-{index}-{uuid.uuid4().hex[:8]}"
            limiter = RayLimiter(self._limiter_handle, client=client, counts_tokens=bool(self.config.tpm))
        return self._actor_cls.remote(self._actor_config, limiter)

    # -- public API ----------------------------------------------------------------------------------

    async def run(
        self,
        scorer: ScorerLike | Sequence[Scorer],
        samples: Iterable[Sample],
        *,
        on_done: Callable[[int], None] | None = None,
    ) -> ScoreBatch:
        """Score ``samples`` on the actors; the result is in input order. See :meth:`Runner.run`."""
        t0 = time.perf_counter()
        self._check_usable()
        samples = check_samples(samples)
        scorers = self._scorers_for(scorer, len(samples))
        whole = await run_whole(self, scorers, samples, on_done)  # composite / group scorers: whole shares
        if whole is not None:
            return whole
        batch = _RayBatch(self, samples, scorers, on_done, t0)
        await batch.execute()
        return self._report(batch)

    def run_sync(
        self,
        scorer: ScorerLike | Sequence[Scorer],
        samples: Iterable[Sample],
        *,
        on_done: Callable[[int], None] | None = None,
    ) -> ScoreBatch:
        """:meth:`run` for synchronous code, from any thread (see :meth:`Runner.run_sync`)."""
        self._check_usable()
        return self._bridge.call_sync(self.run(scorer, samples, on_done=on_done))

    def call_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` (work that awaits this runner: a manager's batch, several streamed samples) to
        completion from synchronous code, on the runner's private event loop; from any thread."""
        self._check_usable()
        return self._bridge.call_sync(coro)

    async def submit(self, scorer: ScorerLike, sample: Sample) -> Score:
        """Score one sample on the least-loaded actor as soon as it arrives (see :meth:`Runner.submit`).

        Timing is in ``info["queue_s"]`` / ``info["exec_s"]``; a sample resent after its actor died has
        ``info["resubmitted"]``.
        """
        t0 = time.perf_counter()
        self._check_usable()
        check_samples([sample])
        sc = _resolve(scorer)
        special = await submit_whole(self, sc, sample)  # a group member goes to its group's actor
        if special is not None:
            if self.config.on_error == "raise" and not special.ok:
                raise failure_error(special, sample, None, 1, 1)
            return special
        token, box, fingerprint = self._box(sc)
        key = sample_key(fingerprint, sample) if fingerprint is not None else None
        score = self._cache.get(key)
        if score is None:
            dedup_key = key if self.config.dedup else None
            score = await self._inflight.run(
                dedup_key, lambda: self._submit_remembered(sc, token, box, sample, key, t0)
            )
        if self.config.on_error == "raise" and not score.ok:
            raise failure_error(score, sample, None, 1, 1)
        return score

    async def run_groups(
        self, scorer: Scorer, samples: Sequence[Sample], *, on_done: Callable[[int], None] | None = None
    ) -> ScoreBatch:
        """Score ``samples`` with a group scorer: every group (same uid) goes whole to one actor, the one its
        uid hashes to (the same one :meth:`submit_group` picks, so members arriving in later calls meet
        there), whose runner scores it in one call. :meth:`run` comes here for group scorers."""
        t0 = time.perf_counter()
        samples = list(samples)
        token, box, _ = self._box(scorer)
        by_slot: dict[int, list[int]] = {}
        for idxs in group_indices(samples):
            by_slot.setdefault(self._affine_index(samples[idxs[0]].uid), []).extend(idxs)
        rows: list[Any] = [None] * len(samples)
        retries = 0

        async def one(index: int, idxs: list[int]) -> None:
            nonlocal retries
            part = [samples[i] for i in idxs]
            result = await self._on_slot(index, "run_chunk", {token: box}, [token] * len(idxs), part)
            if isinstance(result, Score):  # the actor(s) failed: every member of these groups fails
                scores, exec_times = [result] * len(idxs), [0.0] * len(idxs)
            else:
                scores, exec_times, more = result
                retries += more
            latency = time.perf_counter() - t0
            for i, score, exec_s in zip(idxs, scores, exec_times, strict=True):
                rows[i] = Done(score, max(0.0, latency - exec_s), exec_s)
                if on_done is not None:
                    on_done(i)

        await asyncio.gather(*(one(k, v) for k, v in by_slot.items()))
        stats = batch_stats(
            [d.score.status for d in rows],
            latencies=[d.queue_s + d.exec_s for d in rows],
            exec_times=[d.exec_s for d in rows],
            wall_s=time.perf_counter() - t0,
            unique=len(samples),
            retries=retries,
        )
        stats.update(actors=self.num_actors, groups=len(group_indices(samples)))
        return finish_batch(rows, samples, stats, self.config.on_error)

    async def submit_group(self, scorer: Scorer, sample: Sample) -> Score:
        """Stream one member of a group to the actor its uid hashes to, where it waits for the rest of its
        group (see :meth:`run_groups`)."""
        t0 = time.perf_counter()
        token, box, _ = self._box(scorer)
        result = await self._on_slot(self._affine_index(sample.uid), "submit", {token: box}, token, sample)
        latency = time.perf_counter() - t0
        exec_s = float(result.info.get("exec_s", 0.0) or 0.0)
        return _with_timing(result, max(0.0, latency - exec_s), exec_s)

    @property
    def actors(self) -> list[Any]:
        """The current scoring actors' handles (a dead actor's slot shows its replacement)."""
        return [s.handle for s in self._slots if s.handle is not None]

    @property
    def limiter(self) -> Any:
        """The limiter actor's handle (None without ``rpm``/``tpm``)."""
        return self._limiter_handle

    @property
    def restarts(self) -> int:
        """Actors replaced after dying, since the runner started."""
        return self._restarts

    def pool_stats(self) -> list[Any]:
        """Each actor's worker-pool counters (None for an actor that has run no process scorer)."""
        ray = self._ray
        return ray.get([h.pool_stats.remote() for h in self.actors], timeout=_CLOSE_TIMEOUT_S)

    def close(self) -> None:
        """Stop the actors (each closes its worker pool first), the limiter actor, the private event
        loop, and Ray itself when this runner started it. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            slots, self._slots = self._slots, []
            limiter, self._limiter_handle = self._limiter_handle, None
        self._bridge.close()
        ray = self._ray
        if not ray.is_initialized():
            return
        handles = [s.handle for s in slots if s.handle is not None]
        refs = []
        for h in handles:  # each actor closes its runner (and worker pool) first
            with contextlib.suppress(Exception):  # already dead
                refs.append(h.close.remote())
        if refs:
            with contextlib.suppress(Exception):
                ray.wait(refs, num_returns=len(refs), timeout=_CLOSE_TIMEOUT_S)
        for h in [*handles, *([limiter] if limiter is not None else [])]:
            with contextlib.suppress(Exception):
                ray.kill(h, no_restart=True)
        if self._owns_ray:
            ray.shutdown()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<RayRunner actors={self.num_actors} workers={self.config.workers} {state}>"

    # -- helpers -------------------------------------------------------------------------------------

    def _check_usable(self) -> None:
        if self._closed:
            raise RuntimeError("this RayRunner is closed")

    def _scorers_for(self, scorer: ScorerLike | Sequence[Scorer], n: int) -> list[Scorer]:
        if isinstance(scorer, list | tuple):
            if len(scorer) != n:
                raise ValueError(
                    f"got {len(scorer)} scorers for {n} samples; pass one scorer or one per sample"
                )
            resolved: dict[int, Scorer] = {}
            return [resolved.setdefault(id(s), _resolve(s)) for s in scorer]
        return [_resolve(scorer)] * n

    def _box(self, scorer: Scorer) -> tuple[str, list[Any], str | None]:
        """(token, [object ref], fingerprint) of a scorer, putting it in the object store once."""
        with self._lock:
            entry = self._boxes.get(id(scorer))
            if entry is not None and entry[0] is scorer:
                self._boxes.move_to_end(id(scorer))
                return entry[1], entry[2], entry[3]
        keyed = self.config.dedup or self._cache.enabled
        fingerprint = scorer_fingerprint(scorer) if keyed else None
        _pickle_user_modules_by_value(self._ray)
        try:
            ref = self._ray.put(scorer)
        except Exception as exc:
            raise ConfigError(
                f"{scorer!r} cannot be sent to Ray actors ({type(exc).__name__}: {exc}); scorers must "
                "pickle with cloudpickle"
            ) from exc
        token = uuid.uuid4().hex
        with self._lock:
            self._boxes[id(scorer)] = (scorer, token, [ref], fingerprint)
            while len(self._boxes) > _SCORER_CACHE:
                self._boxes.popitem(last=False)
        return token, [ref], fingerprint

    def _mode(self, scorer: Scorer) -> str:
        """The execution mode the actors' runners will give ``scorer``."""
        return self.config.execution or getattr(scorer, "execution", "inline")

    def _affine_index(self, uid: Any) -> int:
        """The slot of a group: a stable hash of its uid over the slots (a uid-less sample: round robin). A
        slot given up passes its groups on to the live ones, by the same hash."""
        if uid is None:
            return next(self._rr) % max(1, len(self._slots))
        h = zlib.crc32(str(uid).encode("utf-8", "surrogatepass"))
        index = h % max(1, len(self._slots))
        if self._slots and self._slots[index].handle is None:
            live = [s.index for s in self._slots if s.handle is not None]
            if live:
                index = live[h % len(live)]
        return index

    async def _on_slot(self, index: int, method: str, boxes: dict[str, list[Any]], *args: Any) -> Any:
        """``method`` on the actor of slot ``index`` (its replacement after it dies, up to
        ``_CRASHED_AFTER`` deaths); a failed :class:`Score` when the call cannot be made."""
        deaths = 0
        while True:
            slot = self._slots[index] if index < len(self._slots) else None
            if slot is None or slot.handle is None:
                return Score.failure(Status.INFRA_ERROR, "no Ray actor is available for this group")
            generation = slot.generation
            try:
                return await self._call(slot, method, boxes, *args)
            except self._death as exc:
                deaths += 1
                await self._replace(slot, generation, exc)
                if deaths >= _CRASHED_AFTER:
                    return _crashed(exc, deaths)
            except self._ray.exceptions.RayTaskError as exc:
                return _actor_error(exc)
            except Exception as exc:  # the samples could not be sent (they do not pickle)
                message = f"cannot send work to a Ray actor ({type(exc).__name__}: {_first_line(exc)})"
                return Score.failure(Status.INVALID_INPUT, message)

    def _pick_slot(self) -> _Slot | None:
        """The live slot with the least estimated work in flight (ties: round robin)."""
        live = [s for s in self._slots if s.handle is not None]
        if not live:
            return None
        start = next(self._rr) % len(live)
        order = live[start:] + live[:start]
        return min(order, key=lambda s: s.load)

    async def _call(self, slot: _Slot, method: str, boxes: dict[str, list[Any]], *args: Any) -> Any:
        """``handle.<method>.remote(boxes, *args)`` on the slot's actor, leaving out the scorers it has.

        Raises like the call (the actor died, a sample does not pickle ...)."""
        with self._lock:
            handle, generation = slot.handle, slot.generation
            sent = {t: (None if t in slot.known else box) for t, box in boxes.items()}
        result = await _await_ref(getattr(handle, method).remote(sent, *args))
        if isinstance(result, str) and result == _NEED_SCORERS:  # the actor dropped one: send them all
            with self._lock:
                slot.known.difference_update(boxes)
            result = await _await_ref(getattr(handle, method).remote(boxes, *args))
        with self._lock:
            if slot.generation == generation:
                if len(slot.known) > 4 * _SCORER_CACHE:
                    slot.known.clear()
                slot.known.update(boxes)
        return result

    def _add_load(self, slot: _Slot, cost: float) -> None:
        with self._lock:
            slot.load += cost

    async def _replace(self, slot: _Slot, generation: int, error: BaseException) -> None:
        """Replace the dead actor of ``slot`` (once per death, whoever notices first) and wait for the
        new one to answer; a replacement that does not start gives the slot up."""
        with self._lock:
            if self._closed or slot.generation != generation or slot.handle is None:
                return
            old = slot.handle
            slot.generation += 1
            generation = slot.generation
            self._restarts += 1
            slot.handle = handle = self._new_actor(slot.index)
            slot.known = set()
        _log.warning(
            "Ray actor %d died (%s: %s); replaced it and resubmitting its samples",
            slot.index,
            type(error).__name__,
            _first_line(error),
        )
        with contextlib.suppress(Exception):
            self._ray.kill(old, no_restart=True)
        try:
            await asyncio.wait_for(_await_ref(handle.ready.remote()), _START_TIMEOUT_S)
        except Exception as exc:
            _log.error("replacement Ray actor %d did not start (%s); giving its slot up", slot.index, exc)
            with self._lock:
                if slot.generation == generation:
                    slot.handle = None
            with contextlib.suppress(Exception):
                self._ray.kill(handle, no_restart=True)

    async def _submit_remembered(
        self, scorer: Scorer, token: str, box: list[Any], sample: Sample, key: str | None, t0: float
    ) -> Score:
        score = await self._submit_one(scorer, token, box, sample, t0)
        self._cache.put(key, score, scorer)
        return score

    async def _submit_one(
        self, scorer: Scorer, token: str, box: list[Any], sample: Sample, t0: float
    ) -> Score:
        if quick_allowed(scorer, self._mode(scorer), sample):
            verdict, spent = run_quick(scorer, sample)
            if verdict is not None:
                latency = time.perf_counter() - t0
                return _with_timing(verdict, max(0.0, latency - spent), spent)
        cost = _cost(scorer, sample)
        deaths = 0
        while True:
            if deaths >= _SUSPECT_AFTER:  # it may be what kills actors: alone among suspects
                async with self._suspects:
                    score, died = await self._submit_attempt(token, box, sample, cost)
            else:
                score, died = await self._submit_attempt(token, box, sample, cost)
            if died is None:
                break
            deaths += 1
            if deaths >= _CRASHED_AFTER:
                return _crashed(died, deaths)
        assert score is not None
        latency = time.perf_counter() - t0
        exec_s = float(score.info.get("exec_s", 0.0) or 0.0)
        score = _with_timing(score, max(0.0, latency - exec_s), exec_s)
        if deaths:
            score = Score(score.value, score.status, score.metrics, {**score.info, "resubmitted": deaths})
        return score

    async def _submit_attempt(
        self, token: str, box: list[Any], sample: Sample, cost: float
    ) -> tuple[Score | None, BaseException | None]:
        """One try on the least-loaded actor: (score, None), or (None, error) when the actor died."""
        slot = self._pick_slot()
        if slot is None:
            return Score.failure(Status.INFRA_ERROR, "no Ray actor is available (all failed to start)"), None
        generation = slot.generation
        self._add_load(slot, cost)
        try:
            return await self._call(slot, "submit", {token: box}, token, sample), None
        except self._death as exc:
            await self._replace(slot, generation, exc)
            return None, exc
        except self._ray.exceptions.RayTaskError as exc:
            return _actor_error(exc), None
        except Exception as exc:  # the sample could not be sent (it does not pickle)
            message = f"the sample cannot be sent to a Ray actor ({type(exc).__name__}: {_first_line(exc)})"
            return Score.failure(Status.INVALID_INPUT, message), None
        finally:
            self._add_load(slot, -cost)

    def _report(self, batch: _RayBatch) -> ScoreBatch:
        done = batch.results()
        wall = time.perf_counter() - batch.t0
        stats = batch_stats(
            [d.score.status for d in done],
            latencies=batch.latencies,
            exec_times=batch.exec_times,
            wall_s=wall,
            unique=batch.unique,
            cache_hits=batch.cache_hits,
            retries=batch.retries,
        )
        stats.update(actors=self.num_actors, chunks=batch.chunks, resubmitted=batch.resubmitted)
        return finish_batch(done, batch.samples, stats, self.config.on_error)


class _RayBatch:
    """One :meth:`RayRunner.run` call: de-duplication, quick verdicts, chunks, lanes, fan-out."""

    def __init__(
        self,
        runner: RayRunner,
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
        self.queue: deque[_Chunk] = deque()
        self.running = 0
        self.cond: asyncio.Condition | None = None

    async def execute(self) -> None:
        todo = self._deduplicate()
        todo = self._quick(todo)
        if not todo:
            return
        chunks = _split(
            todo, [_cost(self.scorers[i], self.samples[i]) for i in todo], self._n_chunks(len(todo))
        )
        self.chunks = len(chunks)
        self.queue.extend(chunks)
        self.cond = asyncio.Condition()
        slots = list(self.runner._slots)
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
        live = sum(1 for s in self.runner._slots if s.handle is not None)
        return max(1, min(n, max(1, live) * _CHUNKS_PER_ACTOR))

    def _deduplicate(self) -> list[int]:
        runner = self.runner
        for i, (scorer, sample) in enumerate(zip(self.scorers, self.samples, strict=True)):
            token, box, fingerprint = runner._box(scorer)
            self.tokens[i] = (token, box)
            self.keys[i] = sample_key(fingerprint, sample) if fingerprint is not None else None
        groups = group_duplicates(self.keys, runner.config.dedup, runner._cache.get)
        self.followers, self.unique, self.cache_hits = groups.followers, groups.unique, groups.cache_hits
        for i, score in groups.hits:
            self._finish(i, Done(score, 0.0, 0.0))
        return groups.todo

    def _quick(self, todo: list[int]) -> list[int]:
        rest = []
        for i in todo:
            scorer = self.scorers[i]
            if not quick_allowed(scorer, self.runner._mode(scorer), self.samples[i]):
                rest.append(i)
                continue
            verdict, spent = run_quick(scorer, self.samples[i])
            if verdict is None:
                rest.append(i)
            else:
                self._complete(i, verdict, spent)
        return rest

    async def _take(self) -> _Chunk | None:
        assert self.cond is not None
        async with self.cond:
            await self.cond.wait_for(lambda: bool(self.queue) or self.running == 0)
            if not self.queue:
                return None
            self.running += 1
            return self.queue.popleft()

    async def _put_back(self, chunks: Sequence[_Chunk]) -> None:
        assert self.cond is not None
        async with self.cond:
            self.queue.extendleft(reversed(chunks))
            self.cond.notify_all()

    async def _release(self) -> None:
        assert self.cond is not None
        async with self.cond:
            self.running -= 1
            self.cond.notify_all()

    async def _lane(self, slot: _Slot) -> None:
        runner = self.runner
        while slot.handle is not None and not runner.closed:  # None: the slot was given up
            chunk = await self._take()
            if chunk is None:
                return
            try:
                if chunk.deaths >= _SUSPECT_AFTER:  # may be what kills actors: alone among suspects
                    async with runner._suspects:
                        again = await self._send(slot, chunk)
                else:
                    again = await self._send(slot, chunk)
                if again:
                    await self._put_back(again)
            finally:
                await self._release()

    async def _send(self, slot: _Slot, chunk: _Chunk) -> list[_Chunk]:
        """Run one chunk on one actor; returns the chunks to send again (after the actor died)."""
        runner, ray = self.runner, self.runner._ray
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
        runner._add_load(slot, chunk.cost)
        try:
            scores, exec_times, retries = await runner._call(
                slot, "run_chunk", boxes, tokens, [self.samples[i] for i in idxs]
            )
        except runner._death as exc:
            chunk.deaths += 1
            again = [chunk]
            if len(idxs) == 1 and chunk.deaths >= _CRASHED_AFTER:
                self._complete(idxs[0], _crashed(exc, chunk.deaths), 0.0)
                again = []
            elif len(idxs) > 1 and chunk.deaths >= _SUSPECT_AFTER:  # find the sample to blame
                again = [_Chunk([i], c, chunk.deaths) for i, c in zip(idxs, _costs(self, idxs), strict=True)]
            self.resubmitted += sum(len(c.idxs) for c in again)
            await self._put_back(again)  # other actors may take it while this one is replaced
            await runner._replace(slot, generation, exc)
            return []
        except ray.exceptions.RayTaskError as exc:  # the actor method itself failed (e.g. unpickling)
            failure = _actor_error(exc)
            for i in idxs:
                self._complete(i, failure, 0.0)
            return []
        except Exception as exc:  # a sample that does not pickle: fail it alone, resend the rest
            return self._unsendable(chunk, exc)
        finally:
            runner._add_load(slot, -chunk.cost)
        self.retries += retries
        for i, score, exec_s in zip(idxs, scores, exec_times, strict=True):
            self._complete(i, score, exec_s)
        return []

    def _unsendable(self, chunk: _Chunk, exc: BaseException) -> list[_Chunk]:
        pickle = self.runner._ray.cloudpickle
        keep: list[int] = []
        for i in chunk.idxs:
            try:
                pickle.dumps(self.samples[i])
            except Exception as err:
                self._complete(
                    i,
                    Score.failure(
                        Status.INVALID_INPUT,
                        f"the sample cannot be sent to a Ray actor ({type(err).__name__}: {_first_line(err)})",
                    ),
                    0.0,
                )
            else:
                keep.append(i)
        if len(keep) == len(chunk.idxs):  # no single sample is to blame
            failure = Score.failure(
                Status.SCORER_ERROR,
                f"cannot send work to a Ray actor: {type(exc).__name__}: {_first_line(exc)}",
            )
            for i in keep:
                self._complete(i, failure, 0.0)
            return []
        return [_Chunk(keep, sum(_costs(self, keep)), chunk.deaths)] if keep else []

    def _complete(self, i: int, score: Score, exec_s: float) -> None:
        """Sample ``i`` (a leader) was executed now."""
        latency = time.perf_counter() - self.t0
        self.latencies.append(latency)
        self.exec_times.append(exec_s)
        self.runner._cache.put(self.keys[i], score, self.scorers[i])
        self._finish(i, Done(score, max(0.0, latency - exec_s), exec_s))

    def _finish(self, i: int, done: Done) -> None:
        finish_with_copies(self.done, self.followers, i, done, self.on_done)


# ----------------------------------------------------------------------------------------------------
# helpers


def _resolve(scorer: ScorerLike) -> Scorer:
    if isinstance(scorer, Scorer):
        return scorer
    if isinstance(scorer, str):
        from ..scorers._registry import get_scorer

        return get_scorer(scorer)
    return as_scorer(scorer)


def _cost(scorer: Scorer, sample: Sample) -> float:
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


def _costs(batch: _RayBatch, idxs: list[int]) -> list[float]:
    return [_cost(batch.scorers[i], batch.samples[i]) for i in idxs]


def _split(idxs: list[int], costs: list[float], n: int) -> list[_Chunk]:
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
    return [_Chunk(sorted(m), totals[k]) for k, m in enumerate(members) if m]


async def _await_ref(ref: Any) -> Any:
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


def _with_timing(score: Score, queue_s: float, exec_s: float) -> Score:
    info = {**score.info, "queue_s": round(queue_s, 6), "exec_s": round(exec_s, 6)}
    return Score(score.value, score.status, score.metrics, info)


def _crashed(exc: BaseException, deaths: int) -> Score:
    return Score.failure(
        Status.CRASHED,
        f"the Ray actor scoring this sample died {deaths} times; not resubmitted again "
        f"(last: {type(exc).__name__}: {_first_line(exc)})",
    )


def _actor_error(exc: BaseException) -> Score:
    cause = getattr(exc, "cause", None) or exc
    return Score.failure(
        Status.SCORER_ERROR,
        f"the Ray actor failed to run the call: {type(cause).__name__}: {_first_line(cause)}",
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else ""


def _pickle_user_modules_by_value(ray: Any) -> None:
    """Make cloudpickle ship modules loaded from files (custom reward functions) by value: actors, maybe
    on other nodes, could not import them by name."""
    register = getattr(ray.cloudpickle, "register_pickle_by_value", None)
    if register is None:  # pragma: no cover - very old cloudpickle
        return
    for name, module in list(sys.modules.items()):
        if name.startswith(_USER_MODULE_PREFIX) and module is not None and name not in _BY_VALUE:
            try:
                register(module)
            except Exception:  # pragma: no cover
                continue
            _BY_VALUE.add(name)


_BY_VALUE: set[str] = set()

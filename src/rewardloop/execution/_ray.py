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
import sys
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..errors import ConfigError
from ..scorers import Scorer
from ..types import Sample, Score, ScoreBatch, Status
from ._attempt import quick_allowed, run_quick
from ._cache import sample_key, scorer_fingerprint
from ._config import RunnerConfig
from ._grouped import group_indices
from ._ray_actors import (
    CLOSE_TIMEOUT_S,
    CRASHED_AFTER,
    SCORER_CACHE,
    SUSPECT_AFTER,
    ActorPool,
    RayLimiter,
    actor_error,
    crashed,
    first_line,
    import_ray,
)
from ._ray_batch import RayBatch
from ._ray_batch import cost as estimate_cost
from ._report import Done, Inflight, ResultCache, batch_stats, check_samples, failure_error, finish_batch
from ._sync import RunnerFacade, SyncBridge, resolve_scorer_like
from ._whole import run_whole, submit_whole

__all__ = ["RayLimiter", "RayRunner"]

T = TypeVar("T")
ScorerLike = Scorer | str | Callable[[Sample], Any]

_USER_MODULE_PREFIX = "rewardloop_user_"  # how rewardloop._loader names modules loaded from files


class RayRunner(RunnerFacade):
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
        ray = import_ray()
        config = RunnerConfig.coerce(config, overrides)
        if isinstance(num_actors, bool) or not isinstance(num_actors, int) or num_actors < 1:
            raise ConfigError(f"num_actors must be an int >= 1, got {num_actors!r}")
        if address is not None and not isinstance(address, str):
            raise ConfigError(f"address must be a string such as 'auto' or 'host:6379', got {address!r}")
        self.config: RunnerConfig = config
        self.num_actors = num_actors
        self._ray = ray
        self._lock = threading.Lock()
        self.cache = ResultCache(config.cache_size)
        self._boxes: OrderedDict[int, tuple[Scorer, str, list[Any], str | None]] = OrderedDict()
        self._inflight = Inflight()
        self._bridge = SyncBridge("RayRunner")
        self._closed = False
        self._owns_ray = False
        self.actor_pool: ActorPool | None = None

        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False)
            self._owns_ray = True
        try:
            self.actor_pool = ActorPool(ray, config, num_actors, actor_options)
        except BaseException:
            self.close()
            raise

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
        batch = RayBatch(self, samples, scorers, on_done, t0)
        await batch.execute()
        return self._report(batch)

    async def submit(self, scorer: ScorerLike, sample: Sample) -> Score:
        """Score one sample on the least-loaded actor as soon as it arrives (see :meth:`Runner.submit`).

        Timing is in ``info["queue_s"]`` / ``info["exec_s"]``; a sample resent after its actor died has
        ``info["resubmitted"]``.
        """
        t0 = time.perf_counter()
        self._check_usable()
        check_samples([sample])
        sc = resolve_scorer_like(scorer)
        special = await submit_whole(self, sc, sample)  # a group member goes to its group's actor
        if special is not None:
            if self.config.on_error == "raise" and not special.ok:
                raise failure_error(special, sample, None, 1, 1)
            return special
        token, box, fingerprint = self.scorer_box(sc)
        key = sample_key(fingerprint, sample) if fingerprint is not None else None
        score = self.cache.get(key)
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
        token, box, _ = self.scorer_box(scorer)
        by_slot: dict[int, list[int]] = {}
        for idxs in group_indices(samples):
            by_slot.setdefault(self.actor_pool.affine_index(samples[idxs[0]].uid), []).extend(idxs)
        rows: list[Any] = [None] * len(samples)
        retries = 0

        async def one(index: int, idxs: list[int]) -> None:
            nonlocal retries
            part = [samples[i] for i in idxs]
            result = await self.actor_pool.on_slot(
                index, "run_chunk", {token: box}, [token] * len(idxs), part
            )
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
        token, box, _ = self.scorer_box(scorer)
        result = await self.actor_pool.on_slot(
            self.actor_pool.affine_index(sample.uid), "submit", {token: box}, token, sample
        )
        latency = time.perf_counter() - t0
        exec_s = float(result.info.get("exec_s", 0.0) or 0.0)
        return _with_timing(result, max(0.0, latency - exec_s), exec_s)

    @property
    def actors(self) -> list[Any]:
        """The current scoring actors' handles (a dead actor's slot shows its replacement)."""
        pool = self.actor_pool
        return [] if pool is None else [s.handle for s in pool.slots if s.handle is not None]

    @property
    def limiter(self) -> Any:
        """The limiter actor's handle (None without ``rpm``/``tpm``)."""
        return None if self.actor_pool is None else self.actor_pool.limiter_handle

    @property
    def restarts(self) -> int:
        """Actors replaced after dying, since the runner started."""
        return 0 if self.actor_pool is None else self.actor_pool.restarts

    def pool_stats(self) -> list[Any]:
        """Each actor's worker-pool counters (None for an actor that has run no process scorer)."""
        ray = self._ray
        return ray.get([h.pool_stats.remote() for h in self.actors], timeout=CLOSE_TIMEOUT_S)

    def close(self) -> None:
        """Stop the actors (each closes its worker pool first), the limiter actor, the private event
        loop, and Ray itself when this runner started it. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._bridge.close()
        if self.actor_pool is not None:
            self.actor_pool.close()
        if self._owns_ray and self._ray.is_initialized():
            self._ray.shutdown()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<RayRunner actors={self.num_actors} workers={self.config.workers} {state}>"

    # -- helpers -------------------------------------------------------------------------------------

    def _check_usable(self) -> None:
        if self._closed:
            raise RuntimeError("this RayRunner is closed")

    def scorer_box(self, scorer: Scorer) -> tuple[str, list[Any], str | None]:
        """(token, [object ref], fingerprint) of a scorer, putting it in the object store once."""
        with self._lock:
            entry = self._boxes.get(id(scorer))
            if entry is not None and entry[0] is scorer:
                self._boxes.move_to_end(id(scorer))
                return entry[1], entry[2], entry[3]
        keyed = self.config.dedup or self.cache.enabled
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
            while len(self._boxes) > SCORER_CACHE:
                self._boxes.popitem(last=False)
        return token, [ref], fingerprint

    def mode_of(self, scorer: Scorer) -> str:
        """The execution mode the actors' runners will give ``scorer``."""
        return self.config.execution or getattr(scorer, "execution", "inline")

    async def _submit_remembered(
        self, scorer: Scorer, token: str, box: list[Any], sample: Sample, key: str | None, t0: float
    ) -> Score:
        score = await self._submit_one(scorer, token, box, sample, t0)
        self.cache.put(key, score, scorer)
        return score

    async def _submit_one(
        self, scorer: Scorer, token: str, box: list[Any], sample: Sample, t0: float
    ) -> Score:
        if quick_allowed(scorer, self.mode_of(scorer), sample):
            verdict, spent = run_quick(scorer, sample)
            if verdict is not None:
                latency = time.perf_counter() - t0
                return _with_timing(verdict, max(0.0, latency - spent), spent)
        cost = estimate_cost(scorer, sample)
        deaths = 0
        while True:
            if deaths >= SUSPECT_AFTER:  # it may be what kills actors: alone among suspects
                async with self.actor_pool.suspects:
                    score, died = await self._submit_attempt(token, box, sample, cost)
            else:
                score, died = await self._submit_attempt(token, box, sample, cost)
            if died is None:
                break
            deaths += 1
            if deaths >= CRASHED_AFTER:
                return crashed(died, deaths)
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
        slot = self.actor_pool.pick_slot()
        if slot is None:
            return Score.failure(Status.INFRA_ERROR, "no Ray actor is available (all failed to start)"), None
        generation = slot.generation
        self.actor_pool.add_load(slot, cost)
        try:
            return await self.actor_pool.call(slot, "submit", {token: box}, token, sample), None
        except self.actor_pool.death as exc:
            await self.actor_pool.replace(slot, generation, exc)
            return None, exc
        except self._ray.exceptions.RayTaskError as exc:
            return actor_error(exc), None
        except Exception as exc:  # the sample could not be sent (it does not pickle)
            message = f"the sample cannot be sent to a Ray actor ({type(exc).__name__}: {first_line(exc)})"
            return Score.failure(Status.INVALID_INPUT, message), None
        finally:
            self.actor_pool.add_load(slot, -cost)

    def _report(self, batch: RayBatch) -> ScoreBatch:
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


def _with_timing(score: Score, queue_s: float, exec_s: float) -> Score:
    info = {**score.info, "queue_s": round(queue_s, 6), "exec_s": round(exec_s, 6)}
    return Score(score.value, score.status, score.metrics, info)


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

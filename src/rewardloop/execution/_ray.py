"""The Ray executor (:class:`RayExecutor`) and ``RayRunner``, the :class:`~rewardloop.execution.Runner` over it.

Ray is optional (``pip install 'rewardloop[ray]'``). This module imports it only when a
:class:`RayRunner` is built; without Ray, ``RayRunner(...)`` raises
:class:`~rewardloop.errors.MissingExtraError` and everything else keeps working locally.

Design:

* **Actors.** ``num_actors`` Ray actors, each holding its own local :class:`Runner` (and so its own
  long-lived worker-process pool, deadlines, retries and failure statuses). The driver is the one scheduler
  (:class:`~rewardloop.execution.Runner`): de-duplication, the optional result cache, ``quick()`` verdicts
  and putting results back in input order; this executor only splits the leaders over the actors and brings
  their results back. A scorer is shipped once per actor (``ray.put`` plus a token the actor caches), not
  once per call.
* **Batches.** The scheduler de-duplicates once, in the driver, with the keys of :mod:`._cache` (identical
  samples are never scored on two actors) and runs ``quick()`` inline, **part by part** (32 samples, then 64,
  128 ...; in one part with a result cache): the leaders of a part leave for the actors while the driver
  prepares the next, so the actors do not wait for the whole batch to be keyed. Each of two lanes per actor cuts
  its next chunk from the prepared leaders when it is free, of an adaptive size (guided self-scheduling: about
  the estimated work left over ``4 x live actors``, at least ``1 / (32 x live actors)`` of the batch's; the
  first chunks are large, the last small, so a faster actor takes more and no actor is left with a long tail).
  A sample's estimated work is its size (``scorer.cost(sample)`` when the scorer has that method, else
  ``256 + len(response)``) times the seconds per unit of size its scorer took in earlier batches
  (:class:`~._ray_batch.CostModel`), so a sample bound for a worker process weighs what it costs, not what its
  length says. No sample appears twice and nothing is padded.
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
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ConfigError
from ..scorers import GroupScorer, Scorer
from ..types import Sample, Score, ScoreBatch
from ._attempt import Context, Plan
from ._config import RunnerConfig
from ._grouped import group_indices
from ._ray_actors import CLOSE_TIMEOUT_S, SCORER_CACHE, ActorPool, RayLimiter, import_ray
from ._ray_batch import CostModel, Lanes
from ._ray_batch import cost as estimate_cost
from ._report import Done, report
from ._runner import Runner

__all__ = ["RayExecutor", "RayLimiter", "RayRunner"]

_USER_MODULE_PREFIX = "rewardloop_user_"  # how rewardloop._loader names modules loaded from files


class RayExecutor:
    """Scores a scheduler's leaders on ``num_actors`` Ray actors, each with its own local runner.

    ``RayExecutor(config, *, num_actors=2, address=None, actor_options=None)``: ``config`` is the
    :class:`RunnerConfig` the actors' runners get (``workers``, ``max_concurrency``, ``threads`` and the retry
    budget are per actor). ``address`` goes to ``ray.init`` when Ray is not initialised yet (None: a running
    cluster from ``RAY_ADDRESS``, else a new local one, shut down again by :meth:`close`). ``actor_options`` go
    to ``.options()`` of each scoring actor (e.g. ``{"num_cpus": 4}``); the default only spreads the actors
    over the cluster's nodes. The actors start when the executor is built (that blocks until they answer).
    """

    def __init__(
        self,
        config: RunnerConfig,
        *,
        num_actors: int = 2,
        address: str | None = None,
        actor_options: Mapping[str, Any] | None = None,
    ) -> None:
        ray = import_ray()
        if isinstance(num_actors, bool) or not isinstance(num_actors, int) or num_actors < 1:
            raise ConfigError(f"num_actors must be an int >= 1, got {num_actors!r}")
        if address is not None and not isinstance(address, str):
            raise ConfigError(f"address must be a string such as 'auto' or 'host:6379', got {address!r}")
        self.config = config
        self.num_actors = num_actors
        self.ray = ray
        self._lock = threading.Lock()
        self._boxes: OrderedDict[int, tuple[Scorer, str, list[Any]]] = OrderedDict()
        self._owns_ray = False
        self.closed = False
        self.actor_pool: ActorPool | None = None
        self.costs = CostModel()  # seconds per unit of size, per scorer token, learned from earlier batches
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False)
            self._owns_ray = True
        try:
            self.actor_pool = ActorPool(ray, config, num_actors, actor_options)
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        return f"actors={self.num_actors} workers={self.config.workers}"

    @staticmethod
    def driver_quick(plan: Plan) -> bool:
        """Every ``quick()`` runs in the driver: a settled sample never travels, and the actors do not ask again
        (see :meth:`ScoringActor.run_chunk`)."""
        return True

    async def execute(self, batch: Any) -> None:
        """Prepare ``batch`` part by part while the actors already score the leaders prepared (see
        :class:`Lanes`)."""
        await Lanes(self, batch).run()

    async def submit(self, plan: Plan, sample: Sample, ctx: Context) -> Done:
        """One streamed sample on the least-loaded actor (resent when its actor dies)."""
        pool = self.pool
        token, box = self.scorer_box(plan.scorer)
        score, deaths = await pool.call_resending(
            pool.pick_slot, "submit", {token: box}, token, sample, cost=estimate_cost(plan.scorer, sample)
        )
        if deaths:
            score = Score(score.value, score.status, score.metrics, {**score.info, "resubmitted": deaths})
        return ctx.done(score, float(score.info.get("exec_s", 0.0) or 0.0))

    async def run_groups(
        self, runner: Any, scorer: GroupScorer, samples: list[Sample], on_done: Callable[[int], None] | None
    ) -> ScoreBatch:
        """Every group (same uid) goes whole to one actor, the one its uid hashes to (the same one
        :meth:`submit_group` picks, so members arriving in later calls meet there), whose runner scores it in
        one call."""
        ctx = Context(t0=time.perf_counter(), budget=None)
        pool = self.pool
        token, box = self.scorer_box(scorer)
        by_slot: dict[int, list[int]] = {}
        groups = group_indices(samples)
        for idxs in groups:
            by_slot.setdefault(pool.affine_index(samples[idxs[0]].uid), []).extend(idxs)
        rows: list[Any] = [None] * len(samples)

        async def one(index: int, idxs: list[int]) -> None:
            part = [samples[i] for i in idxs]
            result, _ = await pool.call_resending(
                lambda: pool.slot(index), "run_chunk", {token: box}, [token] * len(idxs), part
            )
            if isinstance(result, Score):  # the actor(s) failed: every member of these groups fails
                scores, exec_times = [result] * len(idxs), [0.0] * len(idxs)
            else:
                scores, exec_times, more = result
                ctx.retries += more
            for i, score, exec_s in zip(idxs, scores, exec_times, strict=True):
                rows[i] = ctx.done(score, exec_s)
                if on_done is not None:
                    on_done(i)

        await asyncio.gather(*(one(k, v) for k, v in by_slot.items()))
        return report(
            rows,
            samples,
            t0=ctx.t0,
            unique=len(samples),
            retries=ctx.retries,
            on_error=runner.config.on_error,
            extra={"actors": self.num_actors, "groups": len(groups)},
        )

    async def submit_group(self, runner: Any, scorer: GroupScorer, sample: Sample) -> Score:
        """Stream one member of a group to the actor its uid hashes to, where it waits for the rest of its
        group (see :meth:`run_groups`)."""
        ctx = Context(t0=time.perf_counter(), budget=None)
        pool = self.pool
        token, box = self.scorer_box(scorer)
        index = pool.affine_index(sample.uid)
        result, _ = await pool.call_resending(lambda: pool.slot(index), "submit", {token: box}, token, sample)
        done = ctx.done(result, float(result.info.get("exec_s", 0.0) or 0.0))
        info = {**result.info, "queue_s": round(done.queue_s, 6), "exec_s": round(done.exec_s, 6)}
        return Score(result.value, result.status, result.metrics, info)

    def refuse_gathering(self, reason: str) -> None:
        raise ConfigError(
            "refuse_gathering is for a local runner in one of several server processes; a Ray runner routes "
            "every group to one actor"
        )

    @property
    def pool(self) -> ActorPool:
        pool = self.actor_pool
        if pool is None or self.closed:
            raise RuntimeError("this RayRunner is closed")
        return pool

    def pool_stats(self) -> list[Any]:
        """Each actor's worker-pool counters (None for an actor that has run no process scorer)."""
        handles = self.actors
        stats: list[Any] = self.ray.get([h.pool_stats.remote() for h in handles], timeout=CLOSE_TIMEOUT_S)
        return stats

    @property
    def actors(self) -> list[Any]:
        pool = self.actor_pool
        return [] if pool is None else [s.handle for s in pool.slots if s.handle is not None]

    def after_fork(self) -> None:
        """A forked child cannot use its parent's Ray connection; nothing to reset here."""

    def close(self) -> None:
        """Stop the actors (each closes its worker pool first), the limiter actor, and Ray itself when this
        executor started it. Idempotent."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
        if self.actor_pool is not None:
            self.actor_pool.close()
        if self._owns_ray and self.ray.is_initialized():
            self.ray.shutdown()

    def scorer_box(self, scorer: Scorer) -> tuple[str, list[Any]]:
        """(token, [object ref]) of a scorer, putting it in the object store once."""
        with self._lock:
            entry = self._boxes.get(id(scorer))
            if entry is not None and entry[0] is scorer:
                self._boxes.move_to_end(id(scorer))
                return entry[1], entry[2]
        _pickle_user_modules_by_value(self.ray)
        try:
            ref = self.ray.put(scorer)
        except Exception as exc:
            raise ConfigError(
                f"{scorer!r} cannot be sent to Ray actors ({type(exc).__name__}: {exc}); scorers must "
                "pickle with cloudpickle"
            ) from exc
        token = uuid.uuid4().hex
        with self._lock:
            self._boxes[id(scorer)] = (scorer, token, [ref])
            while len(self._boxes) > SCORER_CACHE:
                self._boxes.popitem(last=False)
        return token, [ref]


class RayRunner(Runner):
    """The :class:`Runner` over a :class:`RayExecutor`: the same scheduler, its work on Ray actors.

    ``RayRunner(config=None, *, num_actors=2, address=None, actor_options=None, **overrides)``: ``config`` and
    ``overrides`` are those of :class:`Runner` (``workers``, ``max_concurrency`` and ``threads`` are per actor);
    the rest is :class:`RayExecutor`'s. Same methods as :class:`Runner`, plus the actors' handles, the limiter
    actor and the count of actors replaced.
    """

    executor: RayExecutor

    def __init__(
        self,
        config: RunnerConfig | Mapping[str, Any] | None = None,
        *,
        num_actors: int = 2,
        address: str | None = None,
        actor_options: Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> None:
        config = RunnerConfig.coerce(config, overrides)
        executor = RayExecutor(config, num_actors=num_actors, address=address, actor_options=actor_options)
        super().__init__(config, executor=executor)

    @property
    def num_actors(self) -> int:
        return self.executor.num_actors

    @property
    def actor_pool(self) -> ActorPool | None:
        return self.executor.actor_pool

    @property
    def actors(self) -> list[Any]:
        """The current scoring actors' handles (a dead actor's slot shows its replacement)."""
        return self.executor.actors

    @property
    def limiter(self) -> Any:
        """The limiter actor's handle (None without ``rpm``/``tpm``)."""
        pool = self.executor.actor_pool
        return None if pool is None else pool.limiter_handle

    @property
    def restarts(self) -> int:
        """Actors replaced after dying, since the runner started."""
        pool = self.executor.actor_pool
        return 0 if pool is None else pool.restarts

    def scorer_box(self, scorer: Scorer) -> tuple[str, list[Any]]:
        return self.executor.scorer_box(scorer)


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

"""How the Runner scores :class:`~rewardloop.scorers._group.GroupScorer` s: whole groups, in batch and stream.

Batch (:func:`run_groups`, what ``Runner.run(group_scorer, samples)`` does):

1. a ``base`` scorer, if any, scores every sample first through the same runner (its own execution mode,
   deadline, retries and de-duplication);
2. samples are grouped by ``uid`` (in first-appearance order; members keep their batch order; no uid: a group
   of one) and every group is one call of ``score_group`` / ``ascore_group``, under one slot and the rate
   limiter, in the scorer's execution mode (inline / thread / process / async) with the scorer's
   ``timeout_s`` (or the runner's) as the deadline *of the group*. Groups run concurrently;
3. a failed call fails each member with its status (``timeout``, ``crashed``, ``scorer_error``, ...);
   an infrastructure failure is retried like a sample's (one retry of the budget per group retry); a call
   that returns the wrong number of scores is a ``scorer_error`` of every member.

No de-duplication and no cache across members: a group's verdict depends on the whole group.

A group whose members declare a larger size (``metadata["group_size"]``) than the batch holds is incomplete:
its members go to the streaming gatherer below and wait for the rest to arrive in other calls (another
``/v1/score`` request, another batch), under the same ``gather_timeout_s``. The scorer's own ``group_size``
does not make a batch wait: a batch without ``metadata["group_size"]`` is taken as complete.

Stream (:class:`GroupGatherer`, what ``Runner.submit(group_scorer, sample)`` does): each member waits until
its group (same uid) has ``group_size`` members, then the member that completed it scores the group as a
batch of one group and every waiting member gets its own score. A group still incomplete
``gather_timeout_s`` after its first member arrived fails its waiting members with status ``timeout``; later
members of an expired group fail at once (the uid is remembered, bounded). Thread-safe: members may arrive
on different threads and event loops.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..errors import ScoringError
from ..scorers import GroupScorer, Scorer
from ..types import Sample, Score, ScoreBatch, Status
from ._attempt import Budget, Context, Plan, batch_scores, estimate_tokens, failure_score, ran_for
from ._cache import scorer_identity
from ._report import Done, report
from ._whole import WholeRunner


class Runner(WholeRunner, Protocol):
    """What these functions need of the runner they serve (a :class:`~rewardloop.execution.Runner`; a protocol,
    so this module, which the runner imports, does not import it back)."""

    def plan(self, scorer: Scorer) -> Plan: ...


__all__ = ["GroupGatherer", "group_indices", "run_groups"]

_EXPIRED_MEMORY = 4096  # uids of expired streamed groups remembered


def group_indices(samples: Sequence[Sample]) -> list[list[int]]:
    """Indices of ``samples`` grouped by ``uid``, groups in first-appearance order; no uid: a group of one."""
    groups: dict[Any, list[int]] = {}
    out: list[list[int]] = []
    for i, sample in enumerate(samples):
        if sample.uid is None:
            out.append([i])
            continue
        members = groups.get(sample.uid)
        if members is None:
            members = groups[sample.uid] = []
            out.append(members)
        members.append(i)
    return out


class _GroupCall(Scorer):
    """Groups as the payload of executions: ``score((members, base))`` -> one Score per member.

    It is what the runner's execution step runs (and, for process work, what travels to the worker), so the
    group scorer keeps its execution mode and the deadline covers the whole group.
    """

    deterministic = False

    def __init__(self, group: GroupScorer) -> None:
        self.group = group
        self.name = group.name  # type: ignore[misc]
        self.__name__ = "score_group"
        self.is_async = _has_async(group)

    def score(self, payload: Any) -> Any:
        samples, base = payload
        return self.group.score_group(samples, base)

    async def ascore(self, payload: Any) -> Any:
        samples, base = payload
        return await self.group.ascore_group(samples, base)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"<group of {self.group!r}>"


def _has_async(group: GroupScorer) -> bool:
    flag = getattr(group, "is_async", None)
    if flag is not None:
        return bool(flag)
    return asyncio.iscoroutinefunction(getattr(group, "ascore_group", None))


async def run_groups(
    runner: Runner,
    attempts: Any,
    scorer: GroupScorer,
    samples: Sequence[Sample],
    *,
    on_done: Callable[[int], None] | None = None,
) -> ScoreBatch:
    """Score ``samples`` group by group (see the module docstring); the result is in input order."""
    t0 = time.perf_counter()
    samples = list(samples)
    groups: list[list[int]] = []
    partial: list[list[int]] = []
    for g in group_indices(samples):
        (partial if _declared_size(samples[g[0]]) > len(g) else groups).append(g)
    base: dict[int, Score] | None = None
    if scorer.base is not None:
        todo = sorted(i for g in groups for i in g)
        scored = await _run_keeping(runner, scorer.base, [samples[i] for i in todo])
        base = dict(zip(todo, scored, strict=True))
    ctx = Context(t0=t0, budget=Budget(runner.config.retry_budget))
    done: list[Any] = [None] * len(samples)
    group_plan = runner.plan(scorer)
    call = _GroupCall(scorer)
    plan = dataclasses.replace(group_plan, scorer=call, batch=False, quick=False, fingerprint=None)
    if plan.mode == "async" and not call.is_async:
        plan = dataclasses.replace(plan, mode="inline")

    async def one(idxs: list[int]) -> None:
        members = [samples[i] for i in idxs]
        scores, exec_s = await _score_group(
            attempts, plan, members, None if base is None else [base[i] for i in idxs], ctx
        )
        row = ctx.done(scores[0], exec_s)
        for i, s in zip(idxs, scores, strict=True):
            done[i] = Done(s, row.queue_s, exec_s)
            if on_done is not None:
                on_done(i)

    async def gathered(idxs: list[int]) -> None:
        """A group whose declared size is larger than its members here: the rest come in other calls."""
        scores = await asyncio.gather(*(runner.submit_group(scorer, samples[i]) for i in idxs))
        latency = time.perf_counter() - t0
        for i, s in zip(idxs, scores, strict=True):
            done[i] = Done(s, latency, 0.0)
            if on_done is not None:
                on_done(i)

    waiting = [asyncio.ensure_future(gathered(g)) for g in partial]
    try:
        if plan.mode == "inline":  # holds the loop anyway: in turn, without a task per group
            for g in groups:
                await one(g)
        else:
            await asyncio.gather(*(one(g) for g in groups))
        if waiting:
            await asyncio.gather(*waiting)
    except BaseException:
        for task in waiting:
            task.cancel()
        raise
    return report(
        done,
        samples,
        t0=t0,
        latencies=ctx.executed_latency,
        exec_times=ctx.executed_exec,
        unique=len(samples),
        retries=ctx.retries,
        on_error=runner.config.on_error,
        extra={"groups": len(groups)},
    )


async def _score_group(
    attempts: Any, plan: Any, members: list[Sample], base: list[Score] | None, ctx: Any
) -> tuple[list[Score], float]:
    """One group: attempts (with infrastructure retries) of one call; (one score per member, seconds)."""
    exec_s, retries = 0.0, 0
    while True:
        if plan.mode == "inline" and attempts.limiter_idle():  # the runner's inline fast path, for a group
            scores, spent, error = _attempt_inline(plan, members, base)
        else:
            scores, spent, error = await _attempt(attempts, plan, members, base)
        exec_s += spent
        infra = next((s for s in scores if s.status is Status.INFRA_ERROR), scores[0])
        delay, exhausted = attempts.retry_delay(infra, error, retries, ctx)
        if delay is None:
            break
        retries += 1
        await attempts.limiter.sleep(delay)
    if retries or exhausted:
        scores = [
            _with_info(s, retries=retries, **({"retry_budget_exhausted": True} if exhausted else {}))
            for s in scores
        ]
    return scores, exec_s


def _attempt_inline(
    plan: Any, members: list[Sample], base: list[Score] | None
) -> tuple[list[Score], float, BaseException | None]:
    group = plan.scorer.group
    start = time.perf_counter()
    try:
        return (
            batch_scores(group, plan.scorer.score((members, base)), len(members)),
            time.perf_counter() - start,
            None,
        )
    except Exception as exc:
        return [failure_score(exc) for _ in members], time.perf_counter() - start, exc


async def _attempt(
    attempts: Any, plan: Any, members: list[Sample], base: list[Score] | None
) -> tuple[list[Score], float, BaseException | None]:
    group = plan.scorer.group
    estimate = sum(estimate_tokens(group, s) for s in members)
    async with attempts.slots:
        await attempts.limiter.acquire(estimate)
        start = time.perf_counter()
        try:
            result, spent = await attempts.execute(plan, (members, base), False)
            return batch_scores(group, result, len(members)), spent, None
        except Exception as exc:
            return [failure_score(exc) for _ in members], ran_for(exc, start), exc


def _with_info(score: Score, **info: Any) -> Score:
    return Score(score.value, score.status, score.metrics, {**score.info, **info})


async def _run_keeping(runner: Runner, scorer: Scorer, samples: list[Sample]) -> ScoreBatch:
    try:
        return await runner.run(scorer, samples)
    except ScoringError as exc:  # on_error="raise": keep the batch; the policy applies to the group scores
        batch = getattr(exc, "batch", None)
        if not isinstance(batch, ScoreBatch):
            raise
        return batch


# -- streaming -------------------------------------------------------------------------------------


@dataclasses.dataclass
class _Pending:
    size: int
    first_s: float
    samples: list[Sample] = dataclasses.field(default_factory=list)
    futures: list[concurrent.futures.Future[Score]] = dataclasses.field(default_factory=list)


class GroupGatherer:
    """Holds streamed members until their group is complete (see the module docstring). One per runner."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, Any], _Pending] = {}
        self._expired: OrderedDict[tuple[str, Any], float] = OrderedDict()
        self._refusal: str | None = None

    def refuse(self, reason: str) -> None:
        """From now on, fail at once (``invalid_input``, with ``reason``) every member that would wait for
        members arriving in other calls: where those cannot reach this process, waiting is futile."""
        self._refusal = reason

    async def submit(self, runner: Runner, scorer: GroupScorer, sample: Sample) -> Score:
        if sample.uid is None:
            return (await self._score(runner, scorer, [sample]))[0]
        if self._refusal is not None:
            return Score.failure(
                Status.INVALID_INPUT, f"group {sample.uid!r} cannot be gathered: {self._refusal}"
            )
        size = _group_size(scorer, sample)
        if isinstance(size, Score):
            return size
        key = (scorer_identity(scorer), sample.uid)  # equal instances gather together
        now = time.monotonic()
        with self._lock:
            if key in self._expired:
                return _late(scorer)
            pending = self._pending.get(key)
            if pending is None:
                pending = self._pending[key] = _Pending(size, now)
            future: concurrent.futures.Future[Score] = concurrent.futures.Future()
            pending.samples.append(sample)
            pending.futures.append(future)
            complete = len(pending.samples) >= pending.size
            if complete:
                del self._pending[key]
        if complete:
            try:
                scores = await self._score(runner, scorer, pending.samples)
            except BaseException as exc:  # cancelled or a bug: the waiting members must not wait forever
                for f in pending.futures:
                    if not f.done():
                        f.set_result(failure_score(exc) if isinstance(exc, Exception) else _cancelled())
                raise
            for f, s in zip(pending.futures, scores, strict=True):
                f.set_result(s)
            return future.result()
        remaining = pending.first_s + scorer.gather_timeout_s - now
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), max(0.0, remaining))
        except asyncio.TimeoutError:
            self._expire(key, pending, scorer)
            # completed meanwhile: the group is being scored under its own deadline
            return await asyncio.wrap_future(future)

    def _expire(self, key: tuple[str, Any], pending: _Pending, scorer: GroupScorer) -> None:
        """Fail every waiting member of an incomplete group with ``timeout`` (once; racing completions win)."""
        with self._lock:
            if self._pending.get(key) is not pending:
                expired = False  # completed (or expired) meanwhile: the futures are or will be settled
            else:
                expired = True
                del self._pending[key]
                self._expired[key] = time.monotonic()
                while len(self._expired) > _EXPIRED_MEMORY:
                    self._expired.popitem(last=False)
        if not expired:
            return
        arrived = len(pending.samples)
        for f in pending.futures:
            if not f.done():
                f.set_result(
                    Score.failure(
                        Status.TIMEOUT,
                        f"group incomplete: {arrived} of {pending.size} members arrived within "
                        f"gather_timeout_s={scorer.gather_timeout_s:g}",
                        group_arrived=arrived,
                        group_size=pending.size,
                    )
                )

    async def _score(self, runner: Runner, scorer: GroupScorer, members: list[Sample]) -> list[Score]:
        batch = await _run_keeping(runner, scorer, members)
        return list(batch)


def _cancelled() -> Score:
    return Score.failure(
        Status.SCORER_ERROR, "the group's scoring was cancelled (the member completing it left)"
    )


def _late(scorer: GroupScorer) -> Score:
    return Score.failure(
        Status.TIMEOUT, f"this member's group already expired (gather_timeout_s={scorer.gather_timeout_s:g})"
    )


def _declared_size(sample: Sample) -> int:
    """``metadata["group_size"]`` when it is a positive integer, else 0 (a batch then takes its members as
    the whole group)."""
    size = sample.metadata.get("group_size")
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else 0


def _group_size(scorer: GroupScorer, sample: Sample) -> int | Score:
    size = sample.metadata.get("group_size", scorer.group_size)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        return Score.failure(
            Status.INVALID_INPUT,
            f"streaming a group scorer needs the group's size: metadata['group_size'] or the scorer's "
            f"group_size (a positive integer), got {size!r}",
        )
    return size

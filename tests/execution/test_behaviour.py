"""One behaviour suite, every executor: the same guarantees on the local runner (inline, thread, process and
async scorers) and on the Ray executor (a 2-node local cluster, scorers inline or in the actors' worker
processes).

Covered: finite rewards, group scorers (batch and streamed), deadlines and their time accounting, crash
isolation, infrastructure retries, de-duplication, the result cache, statuses and ``on_error`` fills, and the
``quick()`` size guard. Executors that cannot apply a guarantee (a thread cannot be killed; an inline crash
takes its process down) are left out of that test by name, nowhere else.
"""

from __future__ import annotations

import asyncio
import math

import pytest

from rewardloop import Runner, Sample, Status
from rewardloop.scorers._group import GroupRelative

from . import _behaviour as B

LOCAL = ["inline", "thread", "process", "async"]
RAY = ["ray-inline", "ray-process"]


@pytest.fixture(scope="module")
def ray_runners(request):
    """Ray runners built on first use and shared by the module (actors take seconds to start); at most two
    alive at once (each has 2 actors of 1 CPU; the cluster has 2 nodes of 2)."""
    made: dict[tuple, object] = {}

    def get(**config):
        key = tuple(sorted(config.items()))
        if key not in made:
            request.getfixturevalue("ray_cluster")
            from rewardloop.execution import RayRunner

            while len(made) >= 2:
                made.pop(next(iter(made))).close()
            made[key] = RayRunner(
                num_actors=2, workers=2, actor_options={"num_cpus": 1}, slow_sample_s=None, **config
            )
        return made[key]

    yield get
    for runner in made.values():
        runner.close()


class Executor:
    """A runner for one executor, and the execution mode its scorers declare."""

    def __init__(self, name: str, ray_runners) -> None:
        self.name = name
        self.ray = name.startswith("ray-")
        self.mode = name.removeprefix("ray-")
        self._ray_runners = ray_runners
        self._local: list[Runner] = []

    def runner(self, **config):
        if self.ray:
            return self._ray_runners(**config)
        runner = Runner(workers=2, slow_sample_s=None, **config)
        self._local.append(runner)
        return runner

    def value_scorer(self, **kw):
        if self.mode == "async":
            return B.AsyncValueScorer("inline", **kw)
        return B.ValueScorer(self.mode, **kw)

    def close(self) -> None:
        for r in self._local:
            r.close()


@pytest.fixture(params=[*LOCAL, *(pytest.param(name, marks=pytest.mark.ray) for name in RAY)])
def ex(request, ray_runners):
    executor = Executor(request.param, ray_runners)
    yield executor
    executor.close()


def mode_of(ex: Executor) -> str:
    """The execution mode of a plain scorer on ``ex`` (async scorers are inline objects awaited)."""
    return "inline" if ex.mode == "async" else ex.mode


def values(n_groups=8, size=4):
    """``n_groups`` groups (uid g<k>) of ``size`` members with base rewards 0, 1, 0, 1, ..."""
    return [
        Sample(f"r{g}-{m}", "gt", "t", metadata={"value": float(m % 2)}, uid=f"g{g}")
        for g in range(n_groups)
        for m in range(size)
    ]


# -- finite rewards ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("as_score", [False, True], ids=["number", "Score"])
def test_a_non_finite_reward_is_a_scorer_error_with_a_message(ex, bad, as_score):
    runner = ex.runner()
    samples = [Sample("a", metadata={"value": 1.0}), Sample("b", metadata={"value": bad})]
    batch = runner.run_sync(ex.value_scorer(as_score=as_score), samples)
    assert batch[0].ok and batch[0].value == 1.0
    assert batch.statuses[1] is Status.SCORER_ERROR
    assert "finite" in batch[1].info["error"] and repr(bad) in batch[1].info["error"]
    streamed = asyncio.run(runner.submit(ex.value_scorer(as_score=as_score), samples[1]))
    assert streamed.status is Status.SCORER_ERROR and "finite" in streamed.info["error"]


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_reward_from_score_batch_fails_only_its_sample(ex, bad):
    if ex.mode == "async":
        pytest.skip("score_batch is not awaited")
    batch = ex.runner().run_sync(
        B.BatchValueScorer(ex.mode),
        [Sample(str(i), metadata={"value": bad if i == 2 else 0.5}) for i in range(4)],
    )
    assert [s.value for s in batch] == [0.5, 0.5, None, 0.5]
    assert batch.statuses[2] is Status.SCORER_ERROR and "finite" in batch[2].info["error"]


# -- group scorers ---------------------------------------------------------------------------------------


def test_a_group_scorer_gives_the_same_rewards_on_every_executor(ex):
    scorer = GroupRelative(ex.value_scorer(), "center")
    batch = ex.runner().run_sync(scorer, values())
    assert [s.status for s in batch] == [Status.OK] * 32
    assert list(batch.values) == [-0.5, 0.5] * 16  # base 0/1 centred on the group mean 0.5
    assert {s.metrics["group_n"] for s in batch} == {4.0}


def test_a_batch_mixing_groups_and_plain_samples_keeps_every_group_whole(ex):
    plain = ex.value_scorer()
    group = GroupRelative(ex.value_scorer(), "center")
    samples = values(n_groups=6, size=3)
    scorers = [group if i % 3 else plain for i in range(len(samples))]  # member 0 of each group is plain
    batch = ex.runner().run_sync(scorers, samples)
    for g in range(6):
        first, second, third = batch[3 * g], batch[3 * g + 1], batch[3 * g + 2]
        assert first.value == 0.0 and "group_n" not in first.metrics  # scored on its own
        assert (second.value, third.value) == (0.5, -0.5)  # the two group members: 1 and 0, mean 0.5
        assert second.metrics["group_n"] == 2.0


def test_a_composite_with_a_group_component_in_batch_and_stream(ex):
    from rewardloop.managers import Composite

    comp = Composite(
        [("rel", GroupRelative(ex.value_scorer(), "center"), 1.0), ("raw", ex.value_scorer(), 0.5)]
    )
    runner = ex.runner()
    batch = runner.run_sync(comp, values(n_groups=4, size=2))
    assert list(batch.values) == [-0.5, 1.0] * 4  # centred (-0.5 / +0.5) plus half the raw 0 / 1
    streamed = GroupRelative(ex.value_scorer(), "center", group_size=2, gather_timeout_s=60)
    comp2 = Composite([("rel", streamed, 1.0), ("raw", ex.value_scorer(), 0.5)])

    async def stream():
        members = [Sample(f"c{i}", metadata={"value": float(i)}, uid=f"comp-{ex.name}") for i in range(2)]
        return await asyncio.gather(*(runner.submit(comp2, s) for s in members))

    assert [s.value for s in asyncio.run(stream())] == [-0.5, 1.0]


def test_streamed_members_of_one_group_complete_together(ex):
    runner = ex.runner()
    scorer = GroupRelative(ex.value_scorer(), "center", group_size=2, gather_timeout_s=60)

    async def stream():
        members = [Sample(f"m{i}", metadata={"value": float(i)}, uid=f"stream-{ex.name}") for i in range(2)]
        return await asyncio.gather(*(runner.submit(scorer, s) for s in members))

    first, second = asyncio.run(stream())
    assert (first.status, second.status) == (Status.OK, Status.OK)
    assert (first.value, second.value) == (-0.5, 0.5)


def test_a_group_that_cannot_be_gathered_fails_as_a_group(ex):
    runner = ex.runner()
    scorer = GroupRelative(ex.value_scorer(), "center", group_size=3, gather_timeout_s=0.5)

    async def stream():
        members = [Sample(f"m{i}", metadata={"value": 1.0}, uid=f"short-{ex.name}") for i in range(2)]
        return await asyncio.gather(*(runner.submit(scorer, s) for s in members))

    scores = asyncio.run(stream())
    assert [s.status for s in scores] == [Status.TIMEOUT] * 2
    assert all("2 of 3 members" in s.info["error"] for s in scores)


# -- large batches (the Ray driver prepares them part by part while chunks are in flight) -------------------


def spread_batch(ex, log):
    """300 samples over the parts the Ray driver prepares (32, 64, 128, 76): identical pairs 40 positions apart,
    samples ``quick()`` settles, three groups whose members are spread over every part, and unique rest; with
    the values one pass over the whole batch gives."""
    plain = B.QuickValueScorer(mode_of(ex), log=log)
    group = GroupRelative(ex.value_scorer(), "center")
    samples, scorers, expected = [], [], []
    members: dict[str, list[int]] = {}
    for i in range(300):
        if i % 10 == 3:  # group g<k>, k = (i // 10) % 3: base values alternate 0, 1 along the group
            uid = f"spread-{(i // 10) % 3}"
            samples.append(Sample(f"m{i}", metadata={"value": float((i // 30) % 2)}, uid=uid))
            scorers.append(group)
            members.setdefault(uid, []).append(i)
            expected.append(None)
        elif i % 10 in (0, 1):  # d0, d1, d10, d11, ..., d31: each 7 or 8 times, 40 positions apart
            samples.append(Sample(f"d{i % 40}", metadata={"value": (i % 40) / 40}))
            scorers.append(plain)
            expected.append((i % 40) / 40)
        elif i % 10 == 5:
            samples.append(Sample(f"q{i}", metadata={"quick": 2.0, "value": 0.0}))
            scorers.append(plain)
            expected.append(2.0)
        else:
            samples.append(Sample(f"u{i}", metadata={"value": i / 1000}))
            scorers.append(plain)
            expected.append(i / 1000)
    for idxs in members.values():
        for i, v in zip(idxs, B.center([samples[i].metadata["value"] for i in idxs]), strict=True):
            expected[i] = v
    return samples, scorers, expected


def test_a_large_batch_keeps_order_dedup_quick_and_groups_across_parts(ex, tmp_path):
    log = str(tmp_path / "calls")
    samples, scorers, expected = spread_batch(ex, log)
    batch = ex.runner().run_sync(scorers, samples)
    assert set(batch.statuses) == {Status.OK}
    assert list(batch.values) == pytest.approx(expected)
    assert {batch[i].metrics["group_n"] for i in range(3, 300, 10)} == {10.0}
    assert all(batch[i].metrics.get("by_quick") == 1.0 for i in range(5, 300, 10))
    if ex.mode in ("inline", "async"):
        return  # cheap inline scorers are not de-duplicated by design
    for i in (i for i in range(300) if i % 10 in (0, 1)):
        first = i % 40  # the first d<k> is at position k
        assert batch[i].info.get("dedup_of") == (None if i == first else first), i
    scored = B.lines(log)
    assert sorted(scored) == sorted(set(scored))  # every distinct sample once, in whichever part it came
    assert len([r for r in scored if r.startswith("d")]) == 8 and not any(r.startswith("q") for r in scored)


def test_a_deadline_expiring_while_other_chunks_are_in_flight(ex):
    """Three hanging samples (30 s against a 0.5 s deadline) in the first, third and last part of a 300-sample
    batch: exactly they time out, each within its deadline + 1 s of execution; the rest is scored."""
    if ex.mode in ("inline", "async"):
        pytest.skip("inline work has no deadline by contract; async deadlines are in test_runner")
    hangs = {5, 130, 290}
    samples = [Sample("30" if i in hangs else f"{i * 1e-6:.6f}") for i in range(300)]
    batch = ex.runner().run_sync(B.SleepScorer(ex.mode, timeout_s=0.5), samples)
    assert {i for i, st in enumerate(batch.statuses) if st is Status.TIMEOUT} == hangs
    assert batch.status_counts()["ok"] == 297
    assert all(batch.exec_s[i] <= 0.5 + 1.0 for i in hangs)


# -- deadlines, crashes, retries ---------------------------------------------------------------------------


def test_a_sample_past_its_deadline_times_out_alone(ex):
    if ex.mode in ("inline", "async"):
        pytest.skip("inline work has no deadline by contract; async deadlines are in test_runner")
    scorer = B.SleepScorer(ex.mode, timeout_s=0.5)
    batch = ex.runner().run_sync(scorer, [Sample("0"), Sample("30"), Sample("0.01")])
    assert batch.statuses == (Status.OK, Status.TIMEOUT, Status.OK)
    assert "deadline" in batch[1].info["error"]
    # exec_s is the attempt's own run time, from its start to the kill: never the wait before it
    assert 0.4 <= batch.exec_s[1] <= 0.5 + 1.0


def test_queue_time_is_not_counted_as_execution(ex):
    """Five hanging samples on two workers: the later ones wait for a free worker. Each timed-out sample's
    exec_s stays within its deadline (+1 s); what it waited is queue_s."""
    if ex.mode not in ("process", "thread"):
        pytest.skip("only killable or abandoned work has a deadline")
    runner = ex.runner(threads=2) if not ex.ray else ex.runner()
    n = 5 if not ex.ray else 10  # ray: 2 actors x 2 workers
    batch = runner.run_sync(B.SleepScorer(ex.mode, timeout_s=0.4), [Sample(f"30.{i}") for i in range(n)])
    assert set(batch.statuses) == {Status.TIMEOUT}
    assert max(batch.exec_s) <= 0.4 + 1.0
    assert max(q for q in batch.queue_s) >= 0.7  # the last ones queued behind two rounds of kills


def test_a_crash_fails_only_its_sample(ex):
    if ex.mode != "process":
        pytest.skip("a crash in the runner's own process is not survivable by design")
    batch = ex.runner().run_sync(B.CrashScorer("process"), [Sample("a"), Sample("crash"), Sample("b")])
    assert batch.statuses == (Status.OK, Status.CRASHED, Status.OK)


def test_infrastructure_errors_are_retried_and_counted(ex, tmp_path):
    if ex.mode == "async":
        pytest.skip("FlakyScorer is synchronous")
    runner = ex.runner(retries=3, backoff_base_s=0.001, backoff_max_s=0.01)
    log = str(tmp_path / "calls")
    batch = runner.run_sync(B.FlakyScorer(mode_of(ex), log, failures=2), [Sample("x"), Sample("y")])
    assert batch.statuses == (Status.OK, Status.OK)
    assert [s.info["calls"] for s in batch] == [3, 3]
    assert batch.stats["retries"] == 4


def test_other_failures_are_never_retried(ex):
    if ex.mode == "async":
        pytest.skip("FailScorer is synchronous")
    batch = ex.runner(retries=3).run_sync(B.FailScorer(mode_of(ex)), [Sample("x")])
    assert batch.statuses == (Status.SCORER_ERROR,) and "bug on x" in batch[0].info["error"]
    assert batch.stats["retries"] == 0


# -- de-duplication, cache, statuses and fills -------------------------------------------------------------


def test_identical_samples_are_scored_once(ex, tmp_path):
    if ex.mode in ("inline", "async"):
        pytest.skip("cheap inline scorers are not de-duplicated by design (hashing costs as much)")
    log = str(tmp_path / "calls")
    scorer = B.ValueScorer(ex.mode, log=log)
    samples = [Sample("same", metadata={"value": 1.0})] * 3 + [Sample("other", metadata={"value": 0.0})]
    batch = ex.runner().run_sync(scorer, samples)
    assert list(batch.values) == [1.0, 1.0, 1.0, 0.0]
    assert sorted(B.lines(log)) == ["other", "same"]
    assert batch[1].info["dedup_of"] == 0 and batch.stats["deduplicated"] == 2


def test_the_cache_spans_batches(ex, tmp_path):
    log = str(tmp_path / "calls")
    runner = ex.runner(cache_size=16)
    scorer = B.AsyncValueScorer("inline", log=log) if ex.mode == "async" else B.ValueScorer(ex.mode, log=log)
    first = runner.run_sync(scorer, [Sample("c", metadata={"value": 0.25})])
    again = runner.run_sync(scorer, [Sample("c", metadata={"value": 0.25})])
    assert first[0].value == again[0].value == 0.25
    assert again[0].info.get("cached") is True and B.lines(log) == ["c"]


@pytest.mark.parametrize("fill", [-1.0, 0.0])
def test_on_error_fills_failed_rewards_and_keeps_the_status(ex, fill):
    if ex.mode == "async":
        pytest.skip("FailScorer is synchronous")
    runner = ex.runner(on_error=fill)
    batch = runner.run_sync(B.FailScorer(mode_of(ex)), [Sample("x"), Sample("y")])
    assert batch.rewards() == [fill, fill]
    assert batch.statuses == (Status.SCORER_ERROR, Status.SCORER_ERROR)
    assert batch.stats["failed"] == 2


def test_quick_is_never_asked_about_a_huge_response(ex):
    if ex.mode in ("inline", "async"):
        pytest.skip("an inline scorer's score() runs inline anyway, so quick() is always asked")
    huge = "x" * 300_000
    runner = ex.runner()
    batch = runner.run_sync(B.QuickOnlyShortScorer(ex.mode), [Sample("short"), Sample(huge)])
    assert batch.statuses == (Status.OK, Status.OK) and batch[1].value == 300_000.0
    streamed = asyncio.run(runner.submit(B.QuickOnlyShortScorer(ex.mode), Sample(huge)))
    assert streamed.ok and streamed.value == 300_000.0


@pytest.mark.ray
def test_the_ray_actors_are_placed_on_both_nodes(ray_runners):
    batch = ray_runners().run_sync(B.NodeScorer(), [Sample(str(i)) for i in range(32)])
    nodes = {s.info["node"] for s in batch}
    assert None not in nodes and len(nodes) == 2

"""The Runner with group scorers: batch grouping by uid with a deadline per group, failure statuses per member,
streaming members that wait for their group (and time out when a member never comes)."""

from __future__ import annotations

import asyncio
import os

import pytest

from rewardloop import RewardManager, Runner, Sample, Status
from rewardloop.execution._grouped import group_indices
from rewardloop.scorers._group import GroupRelative
from rewardloop.scorers._registry import get_scorer
from tests.managers._components import LengthGroup


def members(uid, *texts, size=None):
    meta = {} if size is None else {"group_size": size}
    return [Sample(t, uid=uid, metadata=meta) for t in texts]


def test_group_indices_keep_first_appearance_and_batch_order():
    samples = [Sample("a", uid="x"), Sample("b", uid="y"), Sample("c"), Sample("d", uid="x")]
    assert group_indices(samples) == [[0, 3], [1], [2]]


def test_batch_scores_each_uid_group_in_one_isolated_call():
    samples = [*members("p", "aa", "aaaaaa"), Sample("bbbb", uid="q"), Sample("zz")]
    interleaved = [samples[0], samples[2], samples[1], samples[3]]
    with Runner(workers=1) as runner:
        batch = runner.run_sync(LengthGroup(), interleaved)
    assert batch.rewards() == pytest.approx([0.25, 1.0, 0.75, 1.0])
    assert batch.metrics["n"] == (2.0, 1.0, 2.0, 1.0)
    assert batch.stats["groups"] == 3 and batch.stats["status"]["ok"] == 4
    assert all(s.info["pid"] != os.getpid() for s in batch)  # execution="process": in a worker


def test_a_group_past_its_deadline_times_out_every_member_and_only_them():
    samples = [*members("slow", "SLEEP", "x"), *members("fine", "ab", "ab")]
    with Runner(workers=2) as runner:  # the group sleeps 30 s against a 0.3 s deadline per group
        batch = runner.run_sync(LengthGroup(), samples)
    assert [s.status for s in batch] == [Status.TIMEOUT, Status.TIMEOUT, Status.OK, Status.OK]
    assert "deadline" in batch[0].info["error"]
    assert batch.rewards(on_error=None) == [None, None, 0.5, 0.5]


@pytest.mark.parametrize(("marker", "needle"), [("BOOM", "group bug"), ("SHORT", "one Score per sample")])
def test_a_failing_or_miscounting_group_call_is_a_scorer_error_of_each_member(marker, needle):
    with Runner(workers=1) as runner:
        batch = runner.run_sync(LengthGroup(), [*members("g", marker, "y"), Sample("ok", uid="h")])
    assert [s.status for s in batch] == [Status.SCORER_ERROR, Status.SCORER_ERROR, Status.OK]
    assert needle in batch[0].info["error"]


def test_group_relative_runs_its_base_through_the_runner_first():
    group = GroupRelative("math_dapo", "center")
    samples = [
        Sample("Answer: 7", "7", uid="a"),
        Sample("Answer: 8", "7", uid="a"),
        Sample("Answer: 3", "3", uid="b"),
    ]
    with RewardManager(group) as manager:
        batch = manager.score(samples)
    assert batch.rewards() == pytest.approx([1.0, -1.0, 0.0])
    assert batch.metrics["base_reward"] == (1.0, -1.0, 1.0)


def test_a_routed_batch_mixing_group_and_plain_scorers_merges_in_order():
    group = GroupRelative("math_dapo", "rank")
    plain = get_scorer("gsm8k")
    samples = [Sample("Answer: 7", "7", uid="a"), Sample("#### 4", "4"), Sample("Answer: 8", "7", uid="a")]
    with Runner() as runner:
        batch = runner.run_sync([group, plain, group], samples)
    assert batch.rewards() == [1.0, 1.0, 0.0]
    assert batch.stats["n"] == 3


# -- streaming ---------------------------------------------------------------------------------------


def test_streamed_members_wait_for_their_group_and_get_the_batch_scores():
    samples = [*members("p", "aa", "aaaaaa", size=2), *members("q", "b", "bbb", "bbbb", size=3)]
    with Runner(workers=1) as runner:
        expected = runner.run_sync(LengthGroup(), samples).rewards()

        async def stream():
            scorer = LengthGroup()
            return await asyncio.gather(*(runner.submit(scorer, s) for s in reversed(samples)))

        streamed = runner.call_sync(stream())
    assert [s.value for s in reversed(streamed)] == pytest.approx(expected)
    assert {s.metrics["n"] for s in streamed} == {2.0, 3.0}


def test_a_member_that_never_arrives_times_out_the_waiting_ones():
    # group_size 3, only two members are ever submitted: a deterministic trigger, no clock race
    scorer = LengthGroup(group_size=3, gather_timeout_s=0.2)
    waiting = members("p", "aa", "bb")
    with Runner(workers=1) as runner:

        async def stream():
            return await asyncio.gather(*(runner.submit(scorer, s) for s in waiting))

        first = runner.call_sync(stream())
        late = runner.call_sync(runner.submit(scorer, Sample("cc", uid="p")))
        other = runner.call_sync(runner.submit(scorer, Sample("solo")))  # no uid: a group of one
    assert [s.status for s in first] == [Status.TIMEOUT, Status.TIMEOUT]
    assert "2 of 3 members arrived" in first[0].info["error"]
    assert late.status is Status.TIMEOUT and "already expired" in late.info["error"]
    assert other.status is Status.OK and other.value == 1.0


def test_streaming_without_a_group_size_is_invalid_input():
    with Runner() as runner:
        score = runner.call_sync(runner.submit(LengthGroup(), Sample("a", uid="u")))
    assert score.status is Status.INVALID_INPUT and "group_size" in score.info["error"]


def test_members_arriving_from_different_threads_complete_one_group():
    import threading

    scorer = LengthGroup(group_size=2)
    out = {}
    with Runner(workers=1) as runner:

        def one(i, text):
            out[i] = asyncio.run(runner.submit(scorer, Sample(text, uid="t")))

        threads = [threading.Thread(target=one, args=(i, t)) for i, t in enumerate(["a", "aaa"])]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert out[0].value == pytest.approx(0.25) and out[1].value == pytest.approx(0.75)


def test_a_batch_holding_part_of_a_declared_group_waits_for_the_rest_from_another_call():
    scorer = LengthGroup(gather_timeout_s=60)
    first = [*members("p", "a", size=2), *members("solo", "xx")]
    second = members("p", "aaa", size=2)
    with Runner(workers=1) as runner:

        async def two_calls():
            return await asyncio.gather(runner.run(scorer, first), runner.run(scorer, second))

        a, b = runner.call_sync(two_calls())
    assert a.rewards() == pytest.approx([0.25, 1.0]) and b.rewards() == pytest.approx([0.75])


def test_a_partial_group_in_a_batch_times_out_when_the_rest_never_comes():
    scorer = LengthGroup(gather_timeout_s=0.2)  # the second member is never sent: deterministic
    with Runner(workers=1) as runner:
        batch = runner.run_sync(scorer, [*members("p", "a", size=2), Sample("b", uid="q")])
    assert [s.status for s in batch] == [Status.TIMEOUT, Status.OK]
    assert "1 of 2 members" in batch[0].info["error"]


def test_raise_policy_in_streaming_raises_for_a_failed_member():
    from rewardloop.errors import ScoringError

    with Runner(workers=1, on_error="raise") as runner:
        with pytest.raises(ScoringError, match="group bug"):
            runner.call_sync(runner.submit(LengthGroup(), Sample("BOOM")))
        assert runner.call_sync(runner.submit(LengthGroup(), Sample("fine"))).value == 1.0


def test_a_cancelled_completing_member_does_not_leave_the_others_waiting():
    import threading

    from rewardloop.scorers._group import GroupScorer
    from rewardloop.types import Score

    started, release = threading.Event(), threading.Event()

    class Blocking(GroupScorer):
        execution = "thread"
        timeout_s = 60.0
        group_size = 2

        def score_group(self, samples, base=None):
            started.set()
            release.wait(60)  # held until the test is done: a deterministic trigger, no clock
            return [Score(1.0) for _ in samples]

    scorer = Blocking()
    with Runner() as runner:

        async def scenario():
            waiting = asyncio.ensure_future(runner.submit(scorer, Sample("a", uid="g")))
            await asyncio.sleep(0)
            completing = asyncio.ensure_future(runner.submit(scorer, Sample("b", uid="g")))
            while not started.is_set():
                await asyncio.sleep(0.01)
            completing.cancel()
            return await asyncio.wait_for(waiting, 30)

        try:
            score = runner.call_sync(scenario())
        finally:
            release.set()
    assert score.status is Status.SCORER_ERROR and "cancelled" in score.info["error"]

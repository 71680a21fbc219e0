"""Group scorers: group-relative transforms (golden values) and pairwise judging through a real local judge
server on 127.0.0.1, with both orders asked so a position-biased judge cancels out."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")

from starlette.responses import JSONResponse, PlainTextResponse

from rewardloop import RewardManager, Runner, Sample, Score, Status
from rewardloop.errors import ConfigError
from rewardloop.models import RetryPolicy
from rewardloop.scorers._group import GroupRelative, PairwiseJudge, parse_pairwise
from tests.models._fake import FakeServer, chat_answer

FAST = RetryPolicy(timeout_s=2.0, connect_timeout_s=1.0, attempts=1, backoff_s=0.01, backoff_max_s=0.02)


def ok(*values):
    return [Score(v) for v in values]


@pytest.mark.parametrize(
    ("mode", "base", "want"),
    [
        ("center", [1.0, 0.0, 0.0, 1.0], [0.5, -0.5, -0.5, 0.5]),
        ("zscore", [1.0, 0.0, 0.0, 1.0], [1.0, -1.0, -1.0, 1.0]),  # std 0.5
        ("zscore", [1.0, 1.0], [0.0, 0.0]),  # all equal: 0 advantage, no division by zero
        ("rank", [0.2, 0.9, 0.5], [0.0, 1.0, 0.5]),
        ("rank", [1.0, 0.0, 1.0], [0.75, 0.0, 0.75]),  # ties share their mean rank
        ("rank", [3.0], [0.5]),
        ("minmax", [2.0, 4.0, 3.0], [0.0, 1.0, 0.5]),
        ("minmax", [2.0, 2.0], [0.5, 0.5]),
    ],
)
def test_group_relative_transforms(mode, base, want):
    group = GroupRelative("math_dapo", mode)
    samples = [Sample(str(i), uid="u") for i in range(len(base))]
    got = group.score_group(samples, ok(*base))
    assert [s.value for s in got] == pytest.approx(want, abs=1e-5)  # eps=1e-6 in the z-score's denominator


def test_group_relative_keeps_failed_members_and_uses_ok_ones_for_statistics():
    group = GroupRelative("math_dapo", "center")
    base = [Score(1.0), Score.failure(Status.TIMEOUT, "slow"), Score(0.0)]
    got = group.score_group([Sample("a"), Sample("b"), Sample("c")], base)
    assert got[1].status is Status.TIMEOUT
    assert [got[0].value, got[2].value] == [0.5, -0.5] and got[0].metrics["group_n"] == 2.0


def test_group_relative_config_errors():
    with pytest.raises(ConfigError, match="allowed: zscore"):
        GroupRelative("math_dapo", "softmax")
    with pytest.raises(ConfigError, match="group_size"):
        GroupRelative("math_dapo", group_size=0)


@pytest.mark.parametrize(
    ("text", "want"),
    [("A is better [[A]]", "A"), ("[[b]]", "B"), ("[[A]] no wait [[tie]]", "tie"), ("A is better", None)],
)
def test_parse_pairwise(text, want):
    assert parse_pairwise(text) == want


# -- pairwise judging through a real local server ----------------------------------------------------

_PAIR = re.compile(r"\[Response A\]\n(.*?)\n\n\[Response B\]\n(.*?)\n\n", re.S)


async def pairwise_handler(request, body):
    prompt = body["messages"][-1]["content"]
    first, second = _PAIR.search(prompt).groups()
    if "ERR500" in prompt:
        return PlainTextResponse("down", status_code=500)
    if "GARBLE" in first or "GARBLE" in second:
        return JSONResponse(chat_answer("Both have merits."))
    if "BIASED" in prompt:  # always prefers whatever sits in slot A
        return JSONResponse(chat_answer("The first one. [[A]]"))
    a, b = int(first.split()[-1]), int(second.split()[-1])  # the larger number is the better response
    verdict = "A" if a > b else "B" if b > a else "tie"
    return JSONResponse(chat_answer(f"Comparing. [[{verdict}]]"))


@pytest.fixture(scope="module")
def judge_server():
    with FakeServer(pairwise_handler) as server:
        yield server


def group(uid, question, *responses):
    return [Sample(r, prompt=question, uid=uid) for r in responses]


@pytest.mark.server
def test_pairwise_win_shares_with_both_orders_asked(judge_server):
    judge = PairwiseJudge(judge_server.address, "judge", retry=FAST)
    before = len(judge_server.requests)
    samples = [*group("g", "pick", "r 1", "r 3", "r 2", "r 3"), *group("h", "pick", "x 5")]
    with Runner() as runner:
        batch = runner.run_sync(judge, samples)
    # n (n - 1) calls for the group of 4 minus the identical pair "r 3" / "r 3" (a tie, not asked); none for 1
    assert len(judge_server.requests) - before == 4 * 3 - 2
    # r1 loses all 6 comparisons; r2 wins 2 of 6; each r3 wins 4 and ties 2 (against the other r3)
    assert batch.rewards() == pytest.approx([0.0, 5 / 6, 2 / 6, 5 / 6, 0.5])
    assert batch.metrics["judge_consistent"][:4] == (1.0, 1.0, 1.0, 1.0)
    assert batch.metrics["judge_comparisons"][:4] == (6.0, 6.0, 6.0, 6.0)


@pytest.mark.server
def test_order_swapping_cancels_a_position_biased_judge(judge_server):
    judge = PairwiseJudge(judge_server.address, "judge", retry=FAST)
    with Runner() as runner:
        batch = runner.run_sync(judge, group("g", "BIASED", "r 1", "r 9", "r 5"))
    # each response sat in slot A as often as in slot B: the bias gives everyone one half
    assert batch.rewards() == pytest.approx([0.5, 0.5, 0.5])
    assert batch.metrics["judge_consistent"] == (0.0, 0.0, 0.0)  # and it is reported as inconsistent


@pytest.mark.server
def test_unreadable_verdicts_and_outages(judge_server):
    judge = PairwiseJudge(judge_server.address, "judge", retry=FAST)
    with Runner(retries=1, backoff_base_s=0.01) as runner:
        batch = runner.run_sync(
            judge,
            [*group("g", "pick", "r 1", "GARBLE 2", "r 3"), *group("e", "ERR500", "r 1", "r 2")],
        )
    garbled = batch[1]
    assert garbled.status is Status.PARSE_ERROR and batch.metrics["judge_comparisons"][1] == 0.0
    assert batch[0].value == 0.0 and batch[2].value == 1.0  # judged on their readable comparison only
    assert batch[0].info["unread"] == 2
    assert [batch[3].status, batch[4].status] == [Status.INFRA_ERROR, Status.INFRA_ERROR]
    assert batch[3].info.get("retries") == 1  # the group was retried once as a whole


@pytest.mark.server
def test_pairwise_judge_in_a_manager_and_streamed(judge_server):
    judge = PairwiseJudge(judge_server.address, "judge", retry=FAST, group_size=3, gather_timeout_s=60)
    samples = group("s", "pick", "r 2", "r 1", "r 3")
    with RewardManager(judge) as manager:
        batch = manager.score(samples)

        async def stream():
            import asyncio

            return await asyncio.gather(*(manager.ascore_one(s) for s in samples))

        streamed = manager.runner.call_sync(stream())
    assert batch.rewards() == pytest.approx([0.5, 0.0, 1.0])
    assert [s.value for s in streamed] == pytest.approx([0.5, 0.0, 1.0])


def test_pairwise_config_errors():
    with pytest.raises(ConfigError, match="first"):
        PairwiseJudge("127.0.0.1:1", "m", template="{question}")
    with pytest.raises(ConfigError, match="max_parallel"):
        PairwiseJudge("127.0.0.1:1", "m", max_parallel=0)


# -- listwise judging --------------------------------------------------------------------------------

_BLOCK = re.compile(r"\[Response (\d+)\]\n(.*?)(?=\n\n|$)", re.S)


async def listwise_handler(request, body):
    prompt = body["messages"][-1]["content"]
    shown = [(int(k), text) for k, text in _BLOCK.findall(prompt)]
    if "GARBLE" in prompt:
        return JSONResponse(chat_answer("[[1, 1]]"))  # not a permutation: unreadable
    if "BIASED" in prompt:  # ranks by position: slot 1 best
        labels = [k for k, _ in shown]
    else:  # the larger number is the better response
        labels = [k for k, _ in sorted(shown, key=lambda kt: -int(kt[1].split()[-1]))]
    return JSONResponse(chat_answer(f"Ranking: [[{', '.join(map(str, labels))}]]"))


@pytest.fixture(scope="module")
def list_server():
    with FakeServer(listwise_handler) as server:
        yield server


@pytest.mark.parametrize(
    ("text", "n", "want"),
    [("[[2, 1, 3]]", 3, [1, 0, 2]), ("[[2 > 1]]", 2, [1, 0]), ("[[1, 1]]", 2, None), ("[[1, 2]]", 3, None)],
)
def test_parse_ranking(text, n, want):
    from rewardloop.scorers._group import parse_ranking

    assert parse_ranking(text, n) == want


@pytest.mark.server
def test_listwise_ranks_with_rotations_cancel_position_bias(list_server):
    from rewardloop.scorers._group import ListwiseJudge

    judge = ListwiseJudge(list_server.address, "judge", retry=FAST)
    before = len(list_server.requests)
    with Runner() as runner:
        honest = runner.run_sync(judge, group("g", "pick", "r 1", "r 9", "r 5"))
        biased = runner.run_sync(judge, group("b", "BIASED", "r 1", "r 9", "r 5"))
        garbled = runner.run_sync(judge, group("x", "GARBLE", "r 1", "r 2"))
    assert len(list_server.requests) - before == 3 + 3 + 2  # n calls per group, one per rotation
    assert honest.rewards() == pytest.approx([0.0, 1.0, 0.5])
    assert honest.metrics["judge_rank_spread"] == (0.0, 0.0, 0.0)
    assert biased.rewards() == pytest.approx([0.5, 0.5, 0.5])  # every response took every slot once
    assert biased.metrics["judge_rank_spread"] == (1.0, 1.0, 1.0)  # and the inconsistency is reported
    assert [s.status for s in garbled] == [Status.PARSE_ERROR, Status.PARSE_ERROR]

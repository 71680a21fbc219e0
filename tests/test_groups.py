"""GRPO group statistics: the unbiased pass@k, per-task groups, and RewardManager's metrics."""

import math

import pytest

from rewardloop import RewardManager, Sample
from rewardloop._groups import group_id, group_metrics, group_stats, pass_at_k
from rewardloop.types import Score


@pytest.mark.parametrize(
    "n,c,k,expected",
    [
        (4, 0, 1, 0.0),
        (4, 1, 1, 0.25),
        (4, 1, 2, 0.5),  # 1 - C(3,2)/C(4,2) = 1 - 3/6
        (4, 1, 3, 0.75),  # 1 - C(3,3)/C(4,3) = 1 - 1/4
        (4, 2, 2, 5 / 6),  # 1 - C(2,2)/C(4,2) = 1 - 1/6
        (4, 2, 3, 1.0),  # fewer wrong samples than k: always passes
        (4, 4, 1, 1.0),
        (10, 3, 5, 1 - math.comb(7, 5) / math.comb(10, 5)),
    ],
)
def test_pass_at_k_unbiased(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_rejects_impossible_counts():
    with pytest.raises(ValueError):
        pass_at_k(4, 5, 1)
    with pytest.raises(ValueError):
        pass_at_k(4, 1, 5)


def _items(task, gid, rewards):
    return [(task, gid, Score(value=r)) for r in rewards]


def test_group_stats_known_values():
    items = (
        _items("t", "a", [0, 0, 0, 0])
        + _items("t", "b", [1, 0, 0, 0])
        + _items("t", "c", [1, 1, 0, 0])
        + _items("t", "d", [1, 1, 1, 1])
    )
    [st, total] = group_stats(items)
    assert st.task == "t" and total.task == "ALL" and st.groups == 4 and st.max_n == 4
    assert st.pass_at[1] == pytest.approx((0 + 0.25 + 0.5 + 1) / 4)
    assert st.pass_at[2] == pytest.approx((0 + 0.5 + 5 / 6 + 1) / 4)
    assert st.pass_at[4] == pytest.approx(0.75)
    assert st.mean_at_n == pytest.approx(0.4375)
    assert st.all_equal_share == pytest.approx(0.5)  # groups a and d: every advantage is zero
    assert st.reward_std == pytest.approx((0 + 0.5 + math.sqrt(1 / 3) + 0) / 4)


def test_failures_leave_their_group_and_are_counted():
    items = [*_items("t", "a", [1, 0]), ("t", "a", Score.failure("timeout", "deadline"))]
    [st, _] = group_stats(items)
    assert st.failed == 1 and st.max_n == 2 and st.pass_at[1] == 0.5


def test_group_ids_are_scoped_by_task_and_optional():
    assert group_id(Sample(response="x", uid="u1")) == "u1"
    assert group_id(Sample(response="x", task="a", metadata={"index": 3})) != group_id(
        Sample(response="x", task="b", metadata={"index": 3})
    )
    assert group_id(Sample(response="x")) is None
    assert group_stats([("t", None, Score(value=1.0))]) == []


def test_reward_manager_reports_group_metrics():
    samples = [
        Sample(response=f"#### {a}", ground_truth="7", task="openai/gsm8k", uid=uid)
        for uid, answers in (("p1", [7, 7, 1, 2]), ("p2", [3, 3, 3, 3]))
        for a in answers
    ]
    with RewardManager() as manager:
        manager.score(samples)
        groups = manager.group_metrics()  # on demand: the scoring path does not compute them
    assert groups["group/pass@1"] == pytest.approx(0.25)  # (2/4 + 0/4) / 2
    assert groups["group/pass@4"] == pytest.approx(0.5)
    assert groups["group/all_equal_share"] == pytest.approx(0.5)  # p2 is all wrong
    assert groups["group/openai/gsm8k/pass@1"] == pytest.approx(0.25)


def test_group_metrics_empty_without_groups():
    scores = [Score(value=1.0)]
    assert group_metrics([Sample(response="x")], scores) == {}


def test_a_signed_or_fractional_acc_is_not_truthiness():
    from rewardloop._summary import correct_of

    assert correct_of(True, -1.0, {"acc": -1.0}) is False  # a component named acc scoring DAPO's -1
    assert correct_of(True, 0.5, {"acc": 0.5}) is False
    assert correct_of(True, 1.0, {"acc": 1.0}) is True and correct_of(True, -1.0, {"acc": True}) is True
    assert correct_of(False, 1.0, {"acc": 1.0}) is None

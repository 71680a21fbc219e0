"""The CLI's GRPO table says how many groups stand behind each pass@k (issue 25: the ALL row's pass@2 came
from 1 group of 234 and said so nowhere)."""

from rewardloop._groups import GroupStats
from rewardloop._summary import format_groups


def _stats() -> list[GroupStats]:
    grpo = GroupStats("math", groups=11, samples=22, max_n=2, min_n=2, pass_at={1: 0.5, 2: 1.0},
                      groups_at={1: 11, 2: 11}, mean_at_n=0.5, reward_std=0.7, all_equal_share=0.0)  # fmt: skip
    everything = GroupStats("ALL", groups=234, samples=245, max_n=2, min_n=1, pass_at={1: 0.54, 2: 1.0},
                            groups_at={1: 234, 2: 11}, mean_at_n=0.42, reward_std=0.7, all_equal_share=0.0)  # fmt: skip
    return [grpo, everything]


def test_a_pass_at_k_from_fewer_groups_names_its_count_and_the_sizes_are_a_range() -> None:
    table = format_groups(_stats())
    math_row, all_row = (line for line in table.splitlines() if line.startswith(("math", "ALL")))
    assert "(11)" not in math_row  # every group of the source is behind its pass@2: nothing to say
    assert "1.000 (11)" in all_row and "1-2" in all_row.split()  # 11 of 234 groups have two rollouts
    assert "at least k rollouts" in table


def test_the_table_is_unchanged_when_every_group_counts() -> None:
    table = format_groups(_stats()[:1])
    assert "(" not in table.split("\n", 1)[1] and "at least k" not in table

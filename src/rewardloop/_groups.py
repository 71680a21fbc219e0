"""GRPO group statistics: rollouts of one prompt form a group; what the groups say about the rewards.

A group is the set of samples that share a group id: the sample's ``uid`` (verl's prompt uid), else
``extra_info.index`` (together with the ``data_source``, so indexes of different datasets never merge),
else none (the sample is not in a group). The CLI's ``--group-by FIELD`` picks any other field.

Per ``data_source`` (and over ``ALL``), over the groups:

* ``pass@k`` for ``k = 1 .. n`` (``n`` = the largest group): the unbiased estimator of Chen et al.
  (2021), ``1 - C(n_g - c_g, k) / C(n_g, k)`` for a group of ``n_g`` ok samples of which ``c_g`` are
  correct, averaged over the groups with ``n_g >= k``. Correct means :func:`rewardloop._summary.is_correct`
  (the scorer's ``acc`` when it reports one, else full marks), the same definition as the summary's
  accuracy.
* ``mean@n``: the mean over groups of the group's mean reward.
* ``reward_std``: the mean over groups of the rewards' standard deviation within the group (with
  ``n - 1`` in the denominator, as GRPO's advantage normalisation; groups of one sample are left out).
* ``all_equal_share``: the share of groups (of two or more ok samples) whose rewards are all equal, so
  that every advantage is zero and the group teaches nothing.

Failed samples (timeouts, errors) are not wrong answers: they are left out of their group and
counted in ``failed``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .types import Sample, Score

__all__ = ["GroupStats", "group_id", "group_metrics", "group_stats", "pass_at_k"]

_EQUAL_TOL = 1e-9


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one group: ``n`` samples, ``c`` correct; ``1 - C(n-c, k) / C(n, k)``."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def group_id(sample: Sample) -> str | None:
    """The default group id: ``uid``, else ``data_source`` + ``extra_info.index``, else None."""
    if sample.uid is not None:
        return str(sample.uid)
    index = sample.metadata.get("index") if isinstance(sample.metadata, Mapping) else None
    if index is None:
        return None
    return f"{sample.task}\x1f{index}"


@dataclass
class GroupStats:
    """Group statistics of one ``data_source`` (or ``ALL``); see the module docstring."""

    task: str
    groups: int = 0
    samples: int = 0
    failed: int = 0
    max_n: int = 0
    min_n: int = 0  # the smallest group with an ok sample (groups shrink when samples fail)
    pass_at: dict[int, float] = field(default_factory=dict)
    groups_at: dict[int, int] = field(default_factory=dict)  # groups behind each pass@k (those with n_g >= k)
    mean_at_n: float | None = None
    reward_std: float | None = None
    all_equal_share: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "groups": self.groups,
            "samples": self.samples,
            "failed": self.failed,
            "n": self.max_n,
            "min_n": self.min_n,
            **{f"pass@{k}": _round(v) for k, v in sorted(self.pass_at.items())},
            **{f"groups@{k}": v for k, v in sorted(self.groups_at.items())},
            "mean@n": _round(self.mean_at_n),
            "reward_std": _round(self.reward_std),
            "all_equal_share": _round(self.all_equal_share),
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def group_stats(items: Iterable[tuple[str, str | None, Score]]) -> list[GroupStats]:
    """Statistics per task from ``(task, group id, score)`` triples (samples without a group id are skipped).

    One :class:`GroupStats` per task that has groups (sorted by task), then ``ALL``; empty when no sample has
    a group id. A group id is scoped by its task.
    """
    from ._summary import is_correct

    groups: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for task, gid, score in items:
        if gid is not None:
            groups[(task, gid)].append(score)
    if not groups:
        return []
    by_task: dict[str, list[list[Score]]] = defaultdict(list)
    for (task, _), scores in groups.items():
        by_task[task].append(scores)
    every = [g for gs in by_task.values() for g in gs]
    out = [_stats(task, gs, is_correct) for task, gs in sorted(by_task.items())]
    return [*out, _stats("ALL", every, is_correct)]


def _stats(task: str, groups: Sequence[Sequence[Score]], is_correct: Any) -> GroupStats:
    st = GroupStats(task, groups=len(groups))
    means, stds, equal, multi = [], [], 0, 0
    per_k: dict[int, list[float]] = defaultdict(list)
    for scores in groups:
        st.samples += len(scores)
        ok = [s for s in scores if s.ok]
        st.failed += len(scores) - len(ok)
        if not ok:
            continue
        rewards = [float(s.value or 0.0) for s in ok]
        n, c = len(ok), sum(bool(is_correct(s)) for s in ok)
        st.max_n = max(st.max_n, n)
        st.min_n = n if not st.min_n else min(st.min_n, n)
        for k in range(1, n + 1):
            per_k[k].append(pass_at_k(n, c, k))
        means.append(math.fsum(rewards) / n)
        if n >= 2:
            multi += 1
            mu = means[-1]
            stds.append(math.sqrt(math.fsum((r - mu) ** 2 for r in rewards) / (n - 1)))
            equal += max(rewards) - min(rewards) <= _EQUAL_TOL
    st.pass_at = {k: math.fsum(v) / len(v) for k, v in sorted(per_k.items())}
    st.groups_at = {k: len(v) for k, v in sorted(per_k.items())}
    st.mean_at_n = math.fsum(means) / len(means) if means else None
    st.reward_std = math.fsum(stds) / len(stds) if stds else None
    st.all_equal_share = equal / multi if multi else None
    return st


def group_metrics(
    samples: Sequence[Sample], scores: Sequence[Score], *, prefix: str = "group/"
) -> dict[str, float]:
    """Flat numeric metrics for a trainer's logger: ``group/pass@k``, ``group/mean@n``, ``group/reward_std``,
    ``group/all_equal_share`` over the batch, and the same per task as ``group/<task>/...``.

    Empty when no sample has a group id (:func:`group_id`) or no group has two or more samples.
    """
    ids = [group_id(s) for s in samples]
    if len({i for i in ids if i is not None}) == sum(i is not None for i in ids):
        return {}  # every group has at most one sample: nothing to report (and no work to do)
    stats = group_stats((str(s.task), gid, sc) for s, gid, sc in zip(samples, ids, scores, strict=True))
    if not stats or stats[-1].max_n < 2:
        return {}
    out: dict[str, float] = {}
    for st in stats:
        scope = prefix if st.task == "ALL" else f"{prefix}{st.task}/"
        for key, value in st.as_dict().items():
            if key.startswith(("pass@", "mean@", "reward_std", "all_equal")) and value is not None:
                out[f"{scope}{key}"] = float(value)
    return out

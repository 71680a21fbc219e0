"""The vocabulary shared by every layer: :class:`Sample`, :class:`Score`, :class:`Status`, :class:`ScoreBatch`.

Nothing here imports torch, numpy or any optional dependency. All three classes pickle, so they cross
process and Ray boundaries unchanged.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = ["Sample", "Score", "ScoreBatch", "Status"]


class Status(str, Enum):
    """How scoring one sample ended. Only ``OK`` carries a reward that judged the response."""

    OK = "ok"
    TIMEOUT = "timeout"  # the per-sample deadline passed; the worker was killed
    CRASHED = "crashed"  # the worker process died (segfault, os._exit)
    OOM = "oom"  # the worker ran out of its memory cap
    INVALID_INPUT = "invalid_input"  # the sample itself is malformed (missing field, wrong type)
    PARSE_ERROR = "parse_error"  # the ground truth / test specification could not be parsed
    SCORER_ERROR = "scorer_error"  # the scorer raised: a bug in the scorer, not a wrong answer
    INFRA_ERROR = "infra_error"  # a dependency (sandbox, model server, network) failed; retried first

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Sample:
    """One rollout to score.

    ``response`` is the text the policy generated (no prompt). ``ground_truth`` is passed to the scorer as
    stored (string, list, dict of test cases ...). ``task`` selects the scorer (verl: ``data_source``).
    ``metadata`` is verl's ``extra_info``; the sample keeps its own shallow copy, and scorers that may
    mutate it get a deep copy, so rollouts of one prompt never share mutable state.
    """

    response: str
    ground_truth: Any = None
    task: str | None = None
    prompt: Any = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    uid: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.response, str):
            raise TypeError(f"Sample.response must be str, got {type(self.response).__name__}")
        meta = {} if self.metadata is None else self.metadata
        if not isinstance(meta, Mapping):
            raise TypeError(f"Sample.metadata must be a mapping, got {type(meta).__name__}")
        object.__setattr__(self, "metadata", dict(meta))

    def metadata_copy(self) -> dict[str, Any]:
        """A deep copy of ``metadata`` that the caller may mutate freely."""
        return copy.deepcopy(dict(self.metadata))


@dataclass(frozen=True)
class Score:
    """The result of scoring one sample.

    ``value`` is the reward (``None`` when scoring failed), ``status`` says how scoring ended, ``metrics``
    are per-sample values reported as columns (verl's ``reward_extra_info``: ``acc``, ``pred`` ...), and
    ``info`` is free-form diagnostics (the error message, the extracted answer, timings).
    """

    value: float | None
    status: Status = Status.OK
    metrics: Mapping[str, Any] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # every score of every sample passes here: the type checks skip conversions that would change nothing
        if type(self.status) is not Status:
            object.__setattr__(self, "status", Status(self.status))
        if self.value is not None and type(self.value) is not float:
            object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "metrics", dict(self.metrics) if self.metrics else {})
        object.__setattr__(self, "info", dict(self.info) if self.info else {})
        if self.status is Status.OK and self.value is None:
            raise ValueError("a Score with status 'ok' needs a value")

    @classmethod
    def _ok(cls, value: float, metrics: dict[str, Any], info: dict[str, Any]) -> Score:
        """An ``ok`` score without the checks and copies of ``__init__``, for a scorer's hot path: ``value``
        must be a float and both dicts new ones the caller never touches again."""
        score = object.__new__(cls)
        score.__dict__.update(value=value, status=Status.OK, metrics=metrics, info=info)
        return score

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @classmethod
    def failure(cls, status: Status | str, error: str, **info: Any) -> Score:
        """A failed score: no value, the failure status, and the error message in ``info['error']``."""
        status = Status(status)
        if status is Status.OK:
            raise ValueError("Score.failure needs a failure status, not 'ok'")
        return cls(value=None, status=status, info={"error": error, **info})

    def reward(self, on_error: float | None = 0.0) -> float | None:
        """The reward to train on: ``value`` when ok, else the failure policy's ``on_error`` value."""
        return self.value if self.ok else on_error


class _Default:
    """Marks "argument not given" where ``None`` is a meaningful value."""

    def __repr__(self) -> str:
        return "<default>"


_DEFAULT = _Default()


@dataclass(frozen=True, repr=False)
class ScoreBatch(Sequence[Score]):
    """Scores of a batch in input order, held as columns.

    ``metrics`` has one column per key that any score reported (the union of keys); a sample that did not
    report a key holds ``None`` there, so heterogeneous scorers never break aggregation.

    A batch made by the :class:`~rewardloop.Runner` also carries the run's report: ``queue_s`` and
    ``exec_s`` (per sample: seconds spent waiting before execution, and executing), ``stats`` (status
    counts, de-duplication, retries, throughput, latency percentiles; see ``docs/execution.md``) and
    ``on_error``, the failure policy's reward that :meth:`rewards` uses by default. Those are empty / 0.0
    for batches built with :meth:`from_scores` alone, and do not take part in ``==``.
    """

    values: tuple[float | None, ...]
    statuses: tuple[Status, ...]
    metrics: Mapping[str, tuple[Any, ...]]
    infos: tuple[Mapping[str, Any], ...]
    queue_s: tuple[float, ...] = field(default=(), compare=False)
    exec_s: tuple[float, ...] = field(default=(), compare=False)
    stats: Mapping[str, Any] = field(default_factory=dict, compare=False)
    on_error: float | None = field(default=0.0, compare=False)

    @classmethod
    def from_scores(
        cls,
        scores: Iterable[Score],
        *,
        queue_s: Sequence[float] = (),
        exec_s: Sequence[float] = (),
        stats: Mapping[str, Any] | None = None,
        on_error: float | None = 0.0,
    ) -> ScoreBatch:
        scores = list(scores)
        for name, column in (("queue_s", queue_s), ("exec_s", exec_s)):
            if column and len(column) != len(scores):
                raise ValueError(f"{name} has {len(column)} entries for {len(scores)} scores")
        keys: dict[str, None] = {}
        for s in scores:
            keys.update(dict.fromkeys(s.metrics))
        return cls(
            values=tuple(s.value for s in scores),
            statuses=tuple(s.status for s in scores),
            metrics={k: tuple(s.metrics.get(k) for s in scores) for k in keys},
            infos=tuple(s.info for s in scores),
            queue_s=tuple(queue_s),
            exec_s=tuple(exec_s),
            stats=dict(stats or {}),
            on_error=on_error,
        )

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:  # short: batches hold thousands of rows (asyncio reprs task results)
        failed = {k: v for k, v in self.status_counts().items() if v and k != Status.OK.value}
        return f"<ScoreBatch n={len(self)} ok={len(self) - self.num_failed} failed={failed} mean={self.mean():.4g}>"

    def __getitem__(self, i: int) -> Score:  # type: ignore[override]
        if isinstance(i, slice):
            raise TypeError("ScoreBatch does not support slicing; use list(batch)[a:b]")
        return Score(
            value=self.values[i],
            status=self.statuses[i],
            metrics={k: col[i] for k, col in self.metrics.items() if col[i] is not None},
            info=self.infos[i],
        )

    def __iter__(self) -> Iterator[Score]:
        return (self[i] for i in range(len(self)))

    def rewards(self, on_error: float | _Default | None = _DEFAULT) -> list[float | None]:
        """Rewards in input order; failed samples get ``on_error`` (``None`` or NaN to exclude them).

        Without an argument, the batch's own ``on_error`` (the Runner's failure policy; 0.0 otherwise).
        """
        fill = self.on_error if isinstance(on_error, _Default) else on_error
        return [v if st is Status.OK else fill for v, st in zip(self.values, self.statuses, strict=True)]

    def status_counts(self) -> dict[str, int]:
        """Number of samples per status, every status listed (zeros included)."""
        counts = Counter(s.value for s in self.statuses)
        return {s.value: counts.get(s.value, 0) for s in Status}

    @property
    def num_failed(self) -> int:
        return sum(st is not Status.OK for st in self.statuses)

    def mean(self) -> float:
        """Mean reward over ok samples (NaN if none)."""
        ok = [
            v for v, st in zip(self.values, self.statuses, strict=True) if st is Status.OK and v is not None
        ]
        return math.fsum(ok) / len(ok) if ok else math.nan

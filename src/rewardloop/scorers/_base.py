"""The scorer contract: ``Scorer.score(sample) -> Score``, and the adapter for plain functions.

A scorer is a pure function of one sample. It never sleeps, retries, spawns or logs progress: the
execution layer owns deadlines, isolation and retries. A scorer *declares* how it should run:

* ``execution = "inline"`` — cheap and bounded (regexes on a clipped string); runs in the caller.
* ``execution = "process"`` — may blow up (sympy, math-verify); runs in a worker process that is
  killed when ``timeout_s`` passes. ``quick(sample)`` may settle easy cases inline first.

A scorer that is cheaper per sample on whole batches (a reward model) sets ``supports_batch = True`` and
overrides :meth:`Scorer.score_batch`; the Runner then hands it chunks. A scorer whose verdict is not a
function of the sample alone (sampling judges, anything random) sets ``deterministic = False`` so the
Runner neither de-duplicates nor caches it.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from ..types import Sample, Score, Status
from ._ship import shippable

__all__ = ["Execution", "FunctionScorer", "Scorer", "as_scorer", "coerce_score"]

Execution = Literal["inline", "thread", "process"]


class Scorer(ABC):
    """Base class of scorers. Subclasses set ``name`` and implement :meth:`score`."""

    name: ClassVar[str] = "scorer"
    #: how the execution layer should run :meth:`score` (config may override)
    execution: ClassVar[Execution] = "inline"
    #: default per-sample deadline in seconds, counted from the start of execution
    timeout_s: ClassVar[float | None] = None
    #: verl's return convention for this scorer through ``default_compute_score``: float or dict
    returns_dict: ClassVar[bool] = False
    #: the metric keys this scorer reports (verl's extra keys); failed samples report them as None
    metric_keys: ClassVar[tuple[str, ...]] = ()
    #: the types of those keys (``float``, ``bool``, ``str``); keys not listed here are floats
    metric_types: ClassVar[Mapping[str, type]] = {}
    #: True when :meth:`score_batch` is the efficient path: the Runner then sends whole chunks
    supports_batch: ClassVar[bool] = False
    #: identical samples get identical scores: the Runner may score them once and reuse the result
    deterministic: ClassVar[bool] = True

    @abstractmethod
    def score(self, sample: Sample) -> Score:
        """Score one sample. Must not mutate the sample."""

    def quick(self, sample: Sample) -> Score | None:
        """An optional cheap, bounded verdict computed inline before isolated execution; ``None`` = undecided."""
        return None

    def score_batch(self, samples: Sequence[Sample]) -> list[Score]:
        """Score several samples at once, one ``Score`` per sample in order (used when ``supports_batch``).

        The default scores them one by one; batch scorers override it. The whole call runs under one
        deadline (the per-sample timeout times the chunk size), and if it raises, every sample of the
        chunk fails with that error.
        """
        return [self.score(sample) for sample in samples]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def coerce_score(result: Any, *, source: str = "scorer") -> Score:
    """Turn what a user function returned into a :class:`Score`.

    Accepted: a ``Score``; a number or bool (the reward); a mapping with a numeric ``"score"`` key (other
    keys become metrics); a non-empty tuple/list whose first item is the reward (verl keeps ``res[0]``).
    Anything else is a ``scorer_error`` naming what was returned, and so is a reward that is not finite (NaN or
    ±inf, which would poison a whole group's advantages).
    """
    if isinstance(result, Score):
        value = result.value
        if value is None or value - value == 0.0:  # finite (NaN and ±inf give NaN)
            return result
        return _not_finite(value, source)
    if _is_number(result):  # numpy scalars and 0-d tensors too (np.float32 is no float subclass)
        value = float(result)
        return Score(value=value) if value - value == 0.0 else _not_finite(value, source)
    if isinstance(result, Mapping):
        failed = _reported_failure(result, source)
        if failed is not None:
            return failed
        if "score" not in result:
            return Score.failure(
                Status.SCORER_ERROR,
                f"{source} returned a dict without a 'score' key (keys: {sorted(map(str, result))}); "
                "a dict result must contain 'score'",
            )
        value = result["score"]
        if not _is_number(value):
            return Score.failure(
                Status.SCORER_ERROR, f"{source} returned score={value!r}; 'score' must be a number or bool"
            )
        metrics = {str(k): v for k, v in result.items() if k != "score"}
        value = float(value)
        return Score(value=value, metrics=metrics) if value - value == 0.0 else _not_finite(value, source)
    if isinstance(result, tuple | list) and result and _is_number(result[0]):
        value = float(result[0])
        return Score(value=value) if value - value == 0.0 else _not_finite(value, source)
    return Score.failure(
        Status.SCORER_ERROR,
        f"{source} returned {type(result).__name__} {result!r:.80}; expected a number, a bool, "
        "a dict with 'score', or a Score",
    )


def _not_finite(value: float, source: str) -> Score:
    return Score.failure(
        Status.SCORER_ERROR, f"{source} returned the reward {value!r}; a reward must be a finite number"
    )


_FAILURE_STATUSES = {s.value for s in Status if s is not Status.OK}


def _reported_failure(result: Mapping[str, Any], source: str) -> Score | None:
    """A dict result may report its own failure: ``{"score": 0.0, "status": "infra_error", "error": "..."}``.

    verl reads such a dict as reward 0.0 with extra keys; rewardloop keeps the failure status, so a judge
    outage is never counted as a wrong answer. Only the statuses rewardloop knows are recognised.
    """
    status = result.get("status")
    if not isinstance(status, str) or status not in _FAILURE_STATUSES:
        return None
    error = result.get("error") or f"{source} reported status {status!r}"
    metrics = {str(k): v for k, v in result.items() if k not in ("score", "status", "error")}
    failed = Score.failure(status, str(error))
    return Score(failed.value, failed.status, metrics, failed.info)


def _is_number(value: Any) -> bool:
    if isinstance(value, bool | int | float):
        return True
    # numpy scalars and 0-d tensors
    return hasattr(value, "__float__") and getattr(value, "ndim", 0) == 0 and not isinstance(value, str)


class FunctionScorer(Scorer):
    """Adapts ``fn(sample) -> Score | float | dict`` to the :class:`Scorer` interface."""

    def __init__(
        self, fn: Callable[[Sample], Any], name: str | None = None, execution: Execution = "thread"
    ) -> None:
        if inspect.iscoroutinefunction(fn):
            raise TypeError("as_scorer() takes a sync function; async scorers are awaited by the Runner")
        self.fn = fn
        self.name = name or str(getattr(fn, "__name__", "function"))  # type: ignore[misc]
        self.execution = execution  # type: ignore[misc]

    def score(self, sample: Sample) -> Score:
        return coerce_score(self.fn(sample), source=f"scorer {self.name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        # to a worker process: a function of __main__ (a script, a notebook) or one no worker can import goes by
        # value, as CustomFunctionScorer's does; pickle fails later, naming it, if it cannot travel at all
        attrs = {k: v for k, v in self.__dict__.items() if k != "fn"}
        return (_function_scorer, (shippable(self.fn) or self.fn, attrs))


def _function_scorer(fn: Callable[[Sample], Any], attrs: dict[str, Any]) -> FunctionScorer:
    scorer = FunctionScorer.__new__(FunctionScorer)
    scorer.__dict__.update(attrs)
    scorer.fn = fn
    return scorer


def as_scorer(obj: Scorer | Callable[[Sample], Any], name: str | None = None) -> Scorer:
    """Return ``obj`` if it is a :class:`Scorer`, else wrap the function once at the boundary."""
    if isinstance(obj, Scorer):
        return obj
    if not callable(obj):
        raise TypeError(f"expected a Scorer or a callable, got {type(obj).__name__}")
    return FunctionScorer(obj, name=name)

"""The reward-hacking monitors as a TRL reward function: rates through ``log_metric``, flags through
``log_extra``, and a reward term only for the monitors configured to penalise.

``GRPOTrainer(reward_funcs=[accuracy, monitor_reward_func(penalize={"code_tricks": -1.0})])``: each call runs a
:class:`~rewardloop.monitors.MonitorSuite` over the completions (text taken as in
:mod:`rewardloop.integrations.trl`), logs ``monitors/<name>_rate`` for every monitor through ``log_metric`` and a
``monitor_flags`` column (the names that fired, comma-separated) through ``log_extra``, and returns per
completion the sum of the ``penalize`` values of the monitors that fired on it (0.0 when none did, or when
``penalize`` is empty: then it only logs; give it weight 0 in ``reward_weights`` if you prefer). TRL adds
the returned values to the other rewards with this function's weight.

The ground truth (for the copied-answer monitor) is read from the first of ``ground_truth_keys`` present in the
columns; a row without one is monitored without it. Token lengths for the overlong-zone monitor come from
``completion_ids`` when TRL passes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..monitors import MonitorSuite
from ..types import Sample
from .trl import DEFAULT_GROUND_TRUTH_KEYS, completion_text

__all__ = ["MonitorRewardFunc", "monitor_reward_func"]

_TRL_KWARGS = frozenset({"trainer_state", "log_extra", "log_metric", "environments", "completion_ids"})


class MonitorRewardFunc:
    """A TRL reward function that runs a monitor suite; build it with :func:`monitor_reward_func`."""

    def __init__(
        self,
        suite: MonitorSuite,
        penalize: Mapping[str, float],
        ground_truth_keys: Sequence[str],
        name: str,
    ) -> None:
        # the suite decides which names exist; penalize is checked against them
        self.suite = MonitorSuite(suite.monitors, penalize=penalize)
        self.ground_truth_keys = tuple(ground_truth_keys)
        self.__name__ = name

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
        columns = {k: v for k, v in kwargs.items() if k not in _TRL_KWARGS}
        samples = [self._sample(prompts, completions, columns, i) for i in range(len(completions))]
        ids = kwargs.get("completion_ids")
        lengths = [len(x) for x in ids] if isinstance(ids, Sequence) and len(ids) == len(samples) else None
        report = self.suite.run(samples, lengths=lengths)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            report.log_to(log_metric)
        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            log_extra("monitor_flags", [",".join(sorted(f)) for f in report.flags])
        penalty = self.suite.penalize
        return [float(sum(penalty[name] for name in f if name in penalty)) for f in report.flags]

    def _sample(
        self, prompts: Sequence[Any], completions: Sequence[Any], columns: Mapping[str, Any], i: int
    ) -> Sample:
        truth = None
        for key in self.ground_truth_keys:
            values = columns.get(key)
            if isinstance(values, Sequence) and not isinstance(values, str) and len(values) > i:
                truth = values[i]
                if key == "reward_model" and isinstance(truth, Mapping):
                    truth = truth.get("ground_truth")
                break
        prompt = prompts[i] if i < len(prompts) else None
        try:
            text = completion_text(completions[i])
        except ValueError:  # an empty conversation: nothing to flag (the reward function reports it)
            text = ""
        return Sample(text, truth, prompt=prompt)

    def __repr__(self) -> str:
        return f"<MonitorRewardFunc {self.__name__!r} monitors={list(self.suite.names)} penalize={self.suite.penalize}>"


def monitor_reward_func(
    suite: MonitorSuite | None = None,
    *,
    penalize: Mapping[str, float] | None = None,
    ground_truth_keys: Sequence[str] = DEFAULT_GROUND_TRUTH_KEYS,
    name: str = "monitors",
) -> MonitorRewardFunc:
    """A TRL reward function running ``suite`` (default: every monitor with its defaults); see the module docs."""
    return MonitorRewardFunc(suite or MonitorSuite(), penalize or {}, ground_truth_keys, name)

"""Reward-hacking monitors: per-sample flags and per-batch counts, independent of the verifier.

:class:`MonitorSuite` runs :class:`Monitor` objects over a batch of samples (scores and token lengths are
optional) and returns a :class:`MonitorReport`: ``columns()`` for verl's ``reward_extra_info`` (fixed keys,
one bool per sample), ``log_metrics()`` / ``log_to(log_metric)`` for TRL and other loggers, and
:class:`MonitorCounters` for a Prometheus ``/metrics`` page. Monitors change rewards only through
``MonitorSuite(penalize={"hedging": 0.0})`` and :meth:`MonitorSuite.apply`. See ``docs/monitors.md``.
"""

from __future__ import annotations

from ._base import Flag, Monitor, MonitorCounters, MonitorReport
from ._code import CodeTrickMonitor, code_blocks, find_code_tricks
from ._monitors import (
    CompressionMonitor,
    CopiedAnswerMonitor,
    GibberishMonitor,
    HedgingMonitor,
    OverlongZoneMonitor,
    RepetitionMonitor,
    TagSpamMonitor,
    boxed_answers,
    default_monitors,
    final_answer,
    final_answers,
    prompt_text,
)
from ._suite import MonitorSuite

__all__ = [
    "CodeTrickMonitor",
    "CompressionMonitor",
    "CopiedAnswerMonitor",
    "Flag",
    "GibberishMonitor",
    "HedgingMonitor",
    "Monitor",
    "MonitorCounters",
    "MonitorReport",
    "MonitorSuite",
    "OverlongZoneMonitor",
    "RepetitionMonitor",
    "TagSpamMonitor",
    "boxed_answers",
    "code_blocks",
    "default_monitors",
    "final_answer",
    "final_answers",
    "find_code_tricks",
    "prompt_text",
]

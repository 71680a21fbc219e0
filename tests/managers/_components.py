"""Scorers the composite and group tests run in worker processes (importable by spawned workers)."""

from __future__ import annotations

import os
import time

from rewardloop.scorers._base import Scorer
from rewardloop.scorers._group import GroupScorer
from rewardloop.types import Sample, Score


class PidLength(Scorer):
    """Reward 1.0 when the response is at most ``metadata["max_chars"]`` (default 100) chars; reports its pid as a metric."""

    name = "pid_length"
    execution = "process"
    timeout_s = 30.0

    def score(self, sample: Sample) -> Score:
        limit = int(sample.metadata.get("max_chars", 100))
        return Score(float(len(sample.response) <= limit), metrics={"pid": os.getpid()})


class SleepOnMarker(Scorer):
    """Sleeps 30 s (100x its 0.3 s deadline) when the response contains SLEEP; else reward 1.0."""

    name = "sleep_on_marker"
    execution = "process"
    timeout_s = 0.3

    def score(self, sample: Sample) -> Score:
        if "SLEEP" in sample.response:
            time.sleep(30.0)
        return Score(1.0)


class RaiseOnMarker(Scorer):
    """Raises on BOOM (a scorer bug); else reward 0.5."""

    name = "raise_on_marker"
    execution = "inline"

    def score(self, sample: Sample) -> Score:
        if "BOOM" in sample.response:
            raise RuntimeError("component bug")
        return Score(0.5)


class LengthGroup(GroupScorer):
    """Reward = the member's share of the group's total response length; reports its pid and group size.

    A group with a member containing SLEEP sleeps 30 s (100x its 0.3 s group deadline); BOOM raises;
    SHORT returns one score too few.
    """

    name = "length_group"
    execution = "process"
    timeout_s = 0.3

    def __init__(self, group_size: int | None = None, gather_timeout_s: float = 300.0) -> None:
        self.group_size = group_size
        self.gather_timeout_s = gather_timeout_s

    def score_group(self, samples, base=None):
        texts = [s.response for s in samples]
        if any("SLEEP" in t for t in texts):
            time.sleep(30.0)
        if any("BOOM" in t for t in texts):
            raise RuntimeError("group bug")
        total = sum(len(t) for t in texts)
        scores = [
            Score(len(t) / total, metrics={"n": float(len(samples))}, info={"pid": os.getpid()})
            for t in texts
        ]
        return scores[:-1] if any("SHORT" in t for t in texts) else scores

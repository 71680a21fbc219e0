"""Scorers for default_compute_score tests; importable by spawned worker processes."""

import time

from rewardloop import Sample, Score, Scorer


class SlowDictScorer(Scorer):
    """Sleeps for float(response) seconds; reports verl-style dict results."""

    name = "slow_dict"
    execution = "process"
    timeout_s = 0.5
    returns_dict = True
    metric_keys = ("acc", "pred")

    def score(self, sample: Sample) -> Score:
        time.sleep(float(sample.response))
        return Score(1.0, metrics={"acc": True, "pred": sample.response})


def pid_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """A verl-style function reporting which process ran it (dict result)."""
    import os

    return {"score": float(solution_str.strip() == str(ground_truth)), "pid": os.getpid()}


def sleepy_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """Sleeps when the response says so; otherwise exact match."""
    if "sleep" in solution_str:
        time.sleep(30)
    return float(solution_str.strip() == str(ground_truth))

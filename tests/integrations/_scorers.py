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

"""A real ``rewardloop serve`` with ``reward.monitors``: flags in each sample's metrics, the configured penalty,
and the counts on ``/metrics`` (issue 17, item 4)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("fastapi")

from .conftest import start_server

pytestmark = pytest.mark.server

CONFIG = {
    "server": {"sandbox": False},
    "reward": {"runner": {"workers": 1}, "monitors": {"penalize": {"tag_spam": 0.0}}},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    proc = start_server(tmp_path_factory.mktemp("monitors"), CONFIG)
    yield proc
    proc.stop()


def test_flags_penalty_and_metrics(server):
    spam = "<answer>7</answer>" * 12 + " Answer: 7"
    samples = [
        {"response": "Answer: 7", "ground_truth": "7", "task": "math_dapo"},
        {"response": spam, "ground_truth": "7", "task": "math_dapo"},
    ]
    with server.client() as client:
        reply = client.post("/v1/score", json={"samples": samples})
        metrics = client.get("/metrics").text
    assert reply.status_code == 200, reply.text
    scores = reply.json()["scores"]
    assert [s["metrics"]["monitor/tag_spam"] for s in scores] == [False, True]
    assert [s["value"] for s in scores] == [1.0, 0.0]  # the spammed sample gets the configured reward
    assert re.search(r'^rewardloop_monitor_flags_total\{monitor="tag_spam"\} 1$', metrics, re.M), metrics
    assert re.search(r"^rewardloop_monitor_samples_total 2$", metrics, re.M)

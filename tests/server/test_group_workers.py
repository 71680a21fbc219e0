"""A group scorer behind a multi-worker service (``server.workers: 2``): the kernel hands each request to any
worker process, so nothing can route a group's later members to the process holding the first ones. Each
request's members are scored as complete groups, and a member that declares a larger group (metadata
``group_size``) fails at once with ``invalid_input`` naming the limit, instead of waiting out
``gather_timeout_s`` and timing out as a group of one."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")

from .conftest import start_server

pytestmark = pytest.mark.server

CONFIG = {
    "server": {"sandbox": False, "workers": 2},
    "reward": {
        "runner": {"workers": 1},
        "components": [
            {
                "scorer": "group_relative",
                "name": "rel",
                "options": {"base": "math_dapo", "mode": "center", "gather_timeout_s": 120},
            },
        ],
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    proc = start_server(tmp_path_factory.mktemp("group_workers"), CONFIG)
    yield proc
    proc.stop()


def test_a_group_in_one_request_is_scored_whole(server):
    samples = [
        {"response": "Answer: 7", "ground_truth": "7", "uid": "p"},
        {"response": "Answer: 8", "ground_truth": "7", "uid": "p"},
    ]
    with server.client() as client:
        reply = client.post("/v1/score", json={"samples": samples})
    assert reply.status_code == 200, reply.text
    assert [s["value"] for s in reply.json()["scores"]] == pytest.approx([1.0, -1.0])


def test_a_member_whose_group_spans_requests_fails_at_once_naming_the_limit(server):
    member = {"response": "Answer: 7", "ground_truth": "7", "uid": "split", "metadata": {"group_size": 2}}
    start = time.monotonic()
    with server.client() as client:
        reply = client.post("/v1/score", json={"samples": [member]}, timeout=60)
    assert time.monotonic() - start < 60  # not gather_timeout_s (120 s)
    assert reply.status_code == 200, reply.text
    score = reply.json()["scores"][0]
    assert score["status"] == "invalid_input"
    error = score["info"]["error"]
    assert "cannot be gathered" in error and "2 worker processes" in error and "workers: 1" in error

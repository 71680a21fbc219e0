"""``/v1/score`` of a real ``rewardloop serve`` process configured with ``reward.components``: a composite of a
group-relative reward and a weighted rule; samples carrying a uid are scored as complete groups."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from .conftest import start_server

pytestmark = pytest.mark.server

CONFIG = {
    "server": {"sandbox": False},
    "reward": {
        "runner": {"workers": 1},
        "components": [
            {"scorer": "group_relative", "name": "rel", "options": {"base": "math_dapo", "mode": "center"}},
            {"scorer": "math_dapo", "name": "acc", "weight": 0.5},
        ],
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    proc = start_server(tmp_path_factory.mktemp("composite"), CONFIG)
    yield proc
    proc.stop()


def test_groups_of_one_request_are_scored_together(server):
    samples = [
        {"response": "Answer: 7", "ground_truth": "7", "uid": "p"},
        {"response": "Answer: 3", "ground_truth": "3", "uid": "q"},
        {"response": "Answer: 8", "ground_truth": "7", "uid": "p"},
        {"response": "Answer: 1", "ground_truth": "3", "uid": "q"},
        {"response": "Answer: 3", "ground_truth": "3", "uid": "q"},
    ]
    with server.client() as client:
        reply = client.post("/v1/score", json={"samples": samples})
    assert reply.status_code == 200, reply.text
    scores = reply.json()["scores"]
    # rel: the base reward minus the group's mean (p: +1/-1 -> mean 0; q: +1,-1,+1 -> mean 1/3); acc: 0.5 * base
    rel = [1.0, 2 / 3, -1.0, -4 / 3, 2 / 3]
    acc = [1.0, 1.0, -1.0, -1.0, 1.0]
    assert [s["value"] for s in scores] == pytest.approx([r + 0.5 * a for r, a in zip(rel, acc, strict=True)])
    assert [s["metrics"]["rel"] for s in scores] == pytest.approx(rel)
    assert {s["metrics"]["rel_status"] for s in scores} == {"ok"}


def test_a_group_split_over_two_requests_is_scored_whole(server):
    import concurrent.futures

    def post(samples):
        with server.client() as client:
            return client.post("/v1/score", json={"samples": samples}, timeout=60)

    half = [
        [{"response": "Answer: 7", "ground_truth": "7", "uid": "split", "metadata": {"group_size": 2}}],
        [{"response": "Answer: 8", "ground_truth": "7", "uid": "split", "metadata": {"group_size": 2}}],
    ]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        replies = list(pool.map(post, half))
    assert all(r.status_code == 200 for r in replies), [r.text for r in replies]
    rel = [r.json()["scores"][0]["metrics"]["rel"] for r in replies]
    assert rel == pytest.approx([1.0, -1.0])  # centred on the whole group's mean, not each request's

"""``RewardClient`` / ``AsyncRewardClient`` retry policy against a scripted HTTP server on 127.0.0.1.

The server answers each request with the next scripted (status, headers, body) and records what it got,
so each test checks both what the client returned and how many attempts it made.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("httpx")

from rewardloop.client import AsyncRewardClient, RewardClient, ServiceError
from rewardloop.errors import InfraError, RateLimited
from rewardloop.types import Sample, Status

pytestmark = pytest.mark.server

OK = {
    "scores": [
        {"value": 1.0, "reward": 1.0, "status": "ok", "metrics": {"acc": True}, "info": {}},
        {"value": None, "reward": 0.0, "status": "timeout", "metrics": {}, "info": {"error": "slow"}},
    ],
    "stats": {"n": 2},
}


class Scripted(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script):
        super().__init__(("127.0.0.1", 0), Handler)
        self.script = list(script)
        self.requests: list[dict] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def _answer(self):
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.server.requests.append(
            {"path": self.path, "body": body, "auth": self.headers.get("authorization")}
        )
        status, headers, payload = self.server.script.pop(0) if self.server.script else (200, {}, OK)
        data = json.dumps(payload).encode()
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer


@pytest.fixture
def scripted():
    servers = []

    def make(*script):
        server = Scripted(script)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.shutdown()
        server.server_close()


FAST = {"backoff_base_s": 0.01, "backoff_max_s": 0.05}


def test_score_sends_samples_and_returns_a_batch(scripted, monkeypatch):
    monkeypatch.setenv("REWARDLOOP_TOKEN", "tok")
    server = scripted()
    with RewardClient(server.url + "/v1/score", on_error=None) as client:  # a full endpoint URL works too
        batch = client.score(
            [Sample("a", "1", "t", metadata={"k": 1}, uid="u"), {"response": "b", "task": "t"}], timeout_s=3
        )
    assert batch.values == (1.0, None) and batch.statuses == (Status.OK, Status.TIMEOUT)
    assert batch.rewards() == [1.0, None] and batch.stats == {"n": 2}
    sent = server.requests[0]
    assert sent["path"] == "/v1/score" and sent["auth"] == "Bearer tok"
    assert sent["body"] == {
        "samples": [
            {"response": "a", "ground_truth": "1", "task": "t", "metadata": {"k": 1}, "uid": "u"},
            {"response": "b", "task": "t"},
        ],
        "timeout_s": 3,
    }


def test_5xx_and_429_are_retried_honouring_retry_after(scripted):
    server = scripted(
        (503, {}, {"error": "draining"}), (429, {"Retry-After": "0"}, {"error": "overloaded"}), (500, {}, {})
    )
    with RewardClient(server.url, retries=3, **FAST) as client:
        assert client.score([Sample("a")]).values == (1.0, None)
    assert len(server.requests) == 4


def test_other_4xx_fail_at_once_with_the_field_path(scripted):
    detail = [{"field": "samples[0].response", "msg": "Field required", "loc": [], "type": "missing"}]
    server = scripted((422, {}, {"error": "invalid_request", "detail": detail}))
    with RewardClient(server.url, retries=3, **FAST) as client, pytest.raises(ServiceError) as info:
        client.score([{"task": "t"}])
    assert info.value.status_code == 422 and "samples[0].response: Field required" in str(info.value)
    assert len(server.requests) == 1
    server = scripted((401, {}, {"error": "unauthorized", "detail": "token"}))
    with RewardClient(server.url, retries=3, **FAST) as client, pytest.raises(ServiceError, match="401"):
        client.health()
    assert len(server.requests) == 1


def test_overload_that_never_ends_raises_rate_limited(scripted):
    server = scripted(*[(429, {"Retry-After": "0"}, {"error": "overloaded"})] * 3)
    with RewardClient(server.url, retries=2, **FAST) as client, pytest.raises(RateLimited) as info:
        client.score([Sample("a")])
    assert info.value.retry_after == 0.0 and len(server.requests) == 3


def test_a_500_after_the_retries_keeps_its_error_id(scripted):
    server = scripted(*[(500, {}, {"error": "internal_error", "error_id": "abc", "detail": "x"})] * 2)
    with RewardClient(server.url, retries=1, **FAST) as client, pytest.raises(ServiceError) as info:
        client.score([Sample("a")])
    assert info.value.error_id == "abc" and info.value.status_code == 500


def test_connection_refused_is_retried_then_infra_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with (
        RewardClient(f"http://127.0.0.1:{port}", retries=2, **FAST) as client,
        pytest.raises(InfraError, match="after 2 retries"),
    ):
        client.score([Sample("a")])


def test_no_url_is_an_error(monkeypatch):
    monkeypatch.delenv("REWARDLOOP_URL", raising=False)
    with pytest.raises(Exception, match="REWARDLOOP_URL"):
        RewardClient()


def test_async_client(scripted):
    server = scripted(
        (502, {}, {}), (200, {}, OK), (200, {}, {"rewards": [1.0], "scores": [1.0], "extra_logs": {}})
    )

    async def main():
        async with AsyncRewardClient(server.url, token="t", retries=2, **FAST) as client:
            score = await client.score_one(Sample("a"))
            reward = await client.get_reward(["q"], ["p"], ["l"])
            return score, reward

    score, reward = asyncio.run(main())
    assert score.value == 1.0 and score.metrics == {"acc": True}
    assert reward["rewards"] == [1.0]
    assert [r["path"] for r in server.requests] == ["/v1/score", "/v1/score", "/get_reward"]
    assert server.requests[2]["body"] == {"query": ["q"], "prompts": ["p"], "labels": ["l"]}
    assert server.requests[0]["auth"] == "Bearer t"

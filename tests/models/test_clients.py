"""HTTP clients against real scripted servers on loopback: retries, no retries on 4xx, timeouts, parsing."""

from __future__ import annotations

import asyncio

import pytest
from starlette.responses import JSONResponse, PlainTextResponse

from rewardloop.errors import InfraError, InvalidSampleError, RateLimited
from rewardloop.models import (
    ChatClient,
    ClassifyClient,
    EmbeddingsClient,
    ProtocolError,
    RequestRejected,
    RetryPolicy,
    free_port,
    reward_client,
)

from ._fake import FakeServer, chat_answer, classify_answer, sleep_then

pytestmark = pytest.mark.server

FAST = RetryPolicy(timeout_s=2.0, connect_timeout_s=1.0, attempts=3, backoff_s=0.01, backoff_max_s=0.02)


def run(coro):
    return asyncio.run(coro)


async def _once(client, coro):
    try:
        return await coro
    finally:
        await client.aclose()


@pytest.fixture
def flaky():
    """Fails with 500 twice per distinct input, then answers."""
    seen: dict[str, int] = {}

    async def handler(request, body):
        key = str(body.get("input"))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= 2:
            return PlainTextResponse("boom", status_code=500)
        return JSONResponse(classify_answer(0.75))

    with FakeServer(handler) as server:
        yield server


def test_classify_sends_verl_payload_and_reads_last_prob():
    async def handler(request, body):
        return JSONResponse({"data": [{"probs": [9.0]}, {"probs": [0.1, -1.5]}]})

    with FakeServer(handler) as server:
        client = ClassifyClient(server.address, "rm")
        assert run(_once(client, client.score("text"))) == -1.5
        assert server.requests[0]["path"] == "/classify"
        assert server.requests[0]["body"] == {"model": "rm", "input": "text", "use_activation": False}


def test_embeddings_reads_last_element():
    async def handler(request, body):
        return JSONResponse({"data": [{"embedding": [0.1, 2.5]}]})

    with FakeServer(handler) as server:
        client = reward_client("sglang", server.url, "rm")
        assert isinstance(client, EmbeddingsClient)
        assert run(_once(client, client.score("x"))) == 2.5
        assert server.requests[0]["path"] == "/v1/embeddings"
        assert server.requests[0]["body"] == {"model": "rm", "input": "x"}


def test_5xx_is_retried_until_success(flaky):
    client = ClassifyClient(flaky.url, "rm", retry=FAST)
    assert run(_once(client, client.score("a"))) == 0.75
    assert flaky.paths("/classify") == 3


def test_5xx_gives_infra_error_when_attempts_run_out(flaky):
    client = ClassifyClient(flaky.url, "rm", retry=RetryPolicy(attempts=2, backoff_s=0.01))
    with pytest.raises(InfraError, match="HTTP 500"):
        run(_once(client, client.score("b")))
    assert flaky.paths("/classify") == 2


@pytest.mark.parametrize(
    "code,exc", [(404, RequestRejected), (401, RequestRejected), (400, InvalidSampleError)]
)
def test_4xx_is_not_retried(code, exc):
    async def handler(request, body):
        return JSONResponse({"error": "no"}, status_code=code)

    with FakeServer(handler) as server:
        client = ClassifyClient(server.url, "rm", retry=FAST)
        with pytest.raises(exc) as info:
            run(_once(client, client.score("x")))
        assert info.value.status_code == code
        assert not isinstance(info.value, InfraError)
        assert server.paths("/classify") == 1


def test_429_carries_retry_after():
    async def handler(request, body):
        return JSONResponse({}, status_code=429, headers={"Retry-After": "7"})

    with FakeServer(handler) as server:
        client = ChatClient(server.url, "judge", retry=FAST)
        with pytest.raises(RateLimited) as info:
            run(_once(client, client.complete([{"role": "user", "content": "hi"}])))
        assert info.value.retry_after == 7.0


def test_read_timeout_is_infra_error_without_retry():
    async def handler(request, body):
        return await sleep_then(1.5, JSONResponse(classify_answer(1.0)))

    with FakeServer(handler) as server:
        client = ClassifyClient(
            server.url, "rm", retry=RetryPolicy(timeout_s=0.3, attempts=3, backoff_s=0.01)
        )
        with pytest.raises(InfraError, match="did not answer"):
            run(_once(client, client.score("x")))
        assert server.paths("/classify") == 1


def test_connection_refused_is_retried_then_infra_error():
    client = ClassifyClient(f"127.0.0.1:{free_port()}", "rm", retry=FAST)
    with pytest.raises(InfraError, match="gave up after 3 attempts"):
        run(_once(client, client.score("x")))


@pytest.mark.parametrize("body", [{"data": []}, {"data": [{"probs": "x"}]}, {"nope": 1}])
def test_malformed_body_is_protocol_error(body):
    async def handler(request, _):
        return JSONResponse(body)

    with FakeServer(handler) as server:
        client = ClassifyClient(server.url, "rm", retry=FAST)
        with pytest.raises(ProtocolError):
            run(_once(client, client.score("x")))


def test_chat_client_reads_content_and_sends_bearer_token(monkeypatch):
    async def handler(request, body):
        return JSONResponse({**chat_answer("Rating: 7"), "usage": {"total_tokens": 12}})

    monkeypatch.setenv("RL_TEST_KEY", "sekrit")
    with FakeServer(handler) as server:
        client = ChatClient(server.url, "judge", api_key_env="RL_TEST_KEY")
        result = run(_once(client, client.complete([{"role": "user", "content": "q"}], temperature=0.0)))
        assert result.text == "Rating: 7" and result.usage["total_tokens"] == 12
        req = server.requests[0]
        assert req["headers"]["authorization"] == "Bearer sekrit"
        assert req["body"]["model"] == "judge" and req["body"]["temperature"] == 0.0


def test_one_connection_pool_per_event_loop_survives_many_calls():
    async def handler(request, body):
        return JSONResponse(classify_answer(1.0))

    with FakeServer(handler) as server:
        client = ClassifyClient(server.url, "rm")

        async def many():
            values = await asyncio.gather(*(client.score(str(i)) for i in range(20)))
            pool = client._client()
            await client.aclose()
            return values, pool

        values, pool = run(many())
        assert values == [1.0] * 20 and pool.is_closed
        # a second loop gets a fresh pool
        assert run(_once(client, client.score("again"))) == 1.0

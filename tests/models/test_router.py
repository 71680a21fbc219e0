"""The router over real scripted servers: balancing, retries on another server, header filtering,
metrics, and ejecting / re-admitting a dead server."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from starlette.responses import JSONResponse, PlainTextResponse

from rewardloop.models import Router, RouterConfig, ServerThread, create_app, free_port

from ._fake import FakeServer, classify_answer, sleep_then

pytestmark = pytest.mark.server

QUICK = RouterConfig(timeout_s=2.0, health_interval_s=0.1, health_timeout_s=0.5, unhealthy_after=2)


def ok_handler(value):
    async def handler(request, body):
        return await sleep_then(0.05, JSONResponse(classify_answer(value)))

    return handler


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


@pytest.fixture
def two_workers():
    with FakeServer(ok_handler(1.0)) as a, FakeServer(ok_handler(2.0)) as b:
        yield a, b


@pytest.fixture
def routed(two_workers):
    router = Router([w.url for w in two_workers], QUICK)
    with ServerThread(create_app(router)) as thread:
        yield router, thread, two_workers


def post_many(url, n, headers=None):
    async def go():
        async with httpx.AsyncClient(timeout=10) as client:
            return await asyncio.gather(
                *(client.post(url + "/classify", json={"input": str(i)}, headers=headers) for i in range(n))
            )

    return asyncio.run(go())


def test_balances_by_least_in_flight(routed):
    _router, thread, (a, b) = routed
    answers = post_many(thread.url, 20)
    assert all(r.status_code == 200 for r in answers)
    assert a.paths("/classify") + b.paths("/classify") == 20
    assert abs(a.paths("/classify") - b.paths("/classify")) <= 2
    assert {r.json()["data"][0]["probs"][0] for r in answers} == {1.0, 2.0}


def test_forwards_only_safe_headers(routed):
    _router, thread, (a, b) = routed
    headers = {
        "Authorization": "Bearer k",
        "Cookie": "session=1",
        "X-Forwarded-For": "6.6.6.6",
        "X-Request-Id": "r1",
    }
    post_many(thread.url, 1, headers=headers)
    seen = (a.requests or b.requests)[0]["headers"]
    assert seen["authorization"] == "Bearer k" and seen["x-request-id"] == "r1"
    assert "cookie" not in seen and "x-forwarded-for" not in seen


def test_metrics_and_status_count_requests_and_latency(routed):
    _router, thread, _ = routed
    post_many(thread.url, 6)
    text = httpx.get(thread.url + "/metrics").text
    total = sum(
        float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith("rewardloop_router_requests_total")
    )
    assert total == 6
    assert "rewardloop_router_request_seconds_count" in text and 'le="+Inf"' in text
    status = httpx.get(thread.url + "/router/status").json()
    assert status["healthy"] == 2 and sum(w["requests"] for w in status["workers"]) == 6


def test_5xx_is_retried_on_another_server():
    async def broken(request, body):
        return PlainTextResponse("overloaded", status_code=503)

    with FakeServer(broken) as bad, FakeServer(ok_handler(3.0)) as good:
        router = Router([bad.url, good.url], QUICK)
        with ServerThread(create_app(router)) as thread:
            answers = post_many(thread.url, 8)
        assert all(r.status_code == 200 for r in answers)
        assert all(r.json()["data"][0]["probs"][0] == 3.0 for r in answers)
        assert router.retries == bad.paths("/classify") > 0


def test_all_servers_failing_gives_an_error_status_not_a_hang():
    async def broken(request, body):
        return PlainTextResponse("nope", status_code=500)

    with FakeServer(broken) as bad:
        router = Router([bad.url], QUICK)
        with ServerThread(create_app(router)) as thread:
            (answer,) = post_many(thread.url, 1)
    assert answer.status_code == 500
    assert bad.paths("/classify") == 1  # one server: nothing else to try


def test_timeout_moves_to_another_server():
    async def slow(request, body):
        return await sleep_then(1.5, JSONResponse(classify_answer(0.0)))

    with FakeServer(slow) as hung, FakeServer(ok_handler(4.0)) as good:
        router = Router([hung.url, good.url], RouterConfig(timeout_s=0.3, health_interval_s=5))
        with ServerThread(create_app(router)) as thread:
            answers = post_many(thread.url, 4)
        assert [r.json()["data"][0]["probs"][0] for r in answers] == [4.0] * 4
        assert router.status()["workers"][0]["errors"].get("timeout", 0) >= 1


def test_dead_server_is_ejected_and_readmitted():
    port = free_port()
    with FakeServer(ok_handler(5.0)) as good:
        flaky = FakeServer(ok_handler(6.0), port=port).__enter__()
        router = Router([good.url, flaky.url], QUICK)
        with ServerThread(create_app(router)) as thread:
            flaky.healthy = False  # health checks fail: ejected after 2 probes
            wait_for(lambda: router.healthy_workers == [good.url])
            before = flaky.paths("/classify")
            answers = post_many(thread.url, 6)
            assert all(r.json()["data"][0]["probs"][0] == 5.0 for r in answers)
            assert flaky.paths("/classify") == before
            flaky.healthy = True
            wait_for(lambda: len(router.healthy_workers) == 2)
            post_many(thread.url, 10)
            assert flaky.paths("/classify") > before
            # a stopped server: connection refused ejects it at once, requests still succeed
            flaky.__exit__(None, None, None)
            answers = post_many(thread.url, 6)
            assert all(r.status_code == 200 for r in answers)
            wait_for(lambda: router.healthy_workers == [good.url])
            metrics = httpx.get(thread.url + "/metrics").text
            assert f'rewardloop_router_worker_healthy{{worker="{flaky.url}"}} 0' in metrics


def test_no_healthy_server_answers_503_on_health():
    with FakeServer(ok_handler(1.0)) as w:
        w.healthy = False
        router = Router([w.url], QUICK)
        with ServerThread(create_app(router)) as thread:
            wait_for(lambda: not router.healthy_workers)
            assert httpx.get(thread.url + "/health").status_code == 503


def test_config_is_validated():
    with pytest.raises(ValueError, match="attempts"):
        RouterConfig(attempts=0)
    with pytest.raises(ValueError, match="at least one"):
        Router([])
    with pytest.raises(ValueError, match="duplicate"):
        Router(["127.0.0.1:1", "http://127.0.0.1:1"])


def test_cli_router_parses_and_validates(capsys):
    from rewardloop.cli.main import main

    assert main(["router", "--worker", "127.0.0.1:1", "--attempts", "0"]) == 2
    assert "attempts" in capsys.readouterr().err

"""In-process checks of the app's last-resort error path (the rest is tested against a real server)."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from rewardloop.server import ServerConfig, create_app
from rewardloop.server._app import field_path, jsonable
from rewardloop.server._metrics import Metrics


class ExplodingManager:
    """A manager whose scoring raises: what a bug below the app would look like."""

    runner = SimpleNamespace(config=SimpleNamespace(on_error=0.0))
    closed = False

    async def ascore(self, samples, lengths=None):
        raise ZeroDivisionError("a bug below the app")

    def close(self):
        self.closed = True


def test_an_exception_becomes_a_500_with_an_error_id_and_the_app_keeps_serving(caplog):
    manager = ExplodingManager()
    app = create_app(ServerConfig(sandbox=False), manager=manager, own_manager=True)
    with (
        caplog.at_level(logging.ERROR, logger="rewardloop.server"),
        TestClient(app, raise_server_exceptions=False) as c,
    ):
        r = c.post("/v1/score", json={"samples": [{"response": "x", "task": "openai/gsm8k"}]})
        assert r.status_code == 500
        body = r.json()
        assert body["error"] == "internal_error" and "ZeroDivisionError" in body["detail"]
        assert len(body["error_id"]) == 16
        assert c.get("/healthz").json()["in_flight_samples"] == 0  # the slots were released
        assert "rewardloop_errors_total 1" in c.get("/metrics").text
    assert body["error_id"] in caplog.text
    assert manager.closed  # closed at shutdown (lifespan)


def test_field_path():
    assert field_path(("body", "samples", 0, "response")) == "samples[0].response"
    assert field_path(("body",)) == "body"
    assert field_path(("query", 2)) == "query[2]"


def test_jsonable():
    class Odd:
        def __str__(self):
            return "odd"

    assert jsonable({"a": float("nan"), 1: (1, float("inf")), "o": Odd()}) == {
        "a": None,
        "1": [1, None],
        "o": "odd",
    }


def test_metrics_histogram_is_cumulative():
    m = Metrics(10)
    for s in (0.001, 0.2, 0.2, 100.0, 1000.0):
        m.request_done("/v1/score", 200, s)
    text = m.render()
    assert 'rewardloop_request_duration_seconds_bucket{endpoint="/v1/score",le="0.005"} 1' in text
    assert 'rewardloop_request_duration_seconds_bucket{endpoint="/v1/score",le="0.25"} 3' in text
    assert 'rewardloop_request_duration_seconds_bucket{endpoint="/v1/score",le="300"} 4' in text
    assert 'rewardloop_request_duration_seconds_bucket{endpoint="/v1/score",le="+Inf"} 5' in text
    assert 'rewardloop_request_duration_seconds_count{endpoint="/v1/score"} 5' in text


def test_draining_answers_503_and_public_healthz_skips_the_token():
    app = create_app(ServerConfig(sandbox=False, token="t", public_healthz=True), {})
    with TestClient(app) as c:
        assert c.get("/healthz").status_code == 200  # no token needed for the probe
        assert c.get("/v1/scorers").status_code == 401
        assert c.get("/v1/scorers", headers={"Authorization": "bearer t"}).status_code == 200
        app.state.service.draining = True
        r = c.post("/v1/score", json={"samples": []}, headers={"Authorization": "Bearer t"})
        assert r.status_code == 503 and r.json()["error"] == "draining"
        assert r.headers["retry-after"] == "1" and r.headers["connection"] == "close"

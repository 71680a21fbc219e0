"""The reward service end to end: a real ``rewardloop serve`` process on 127.0.0.1, called over HTTP."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from rewardloop.client import RewardClient
from rewardloop.types import Sample

from .conftest import free_port, httpx

pytestmark = pytest.mark.server
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux")

GSM8K = "openai/gsm8k"


def _sample(response: str, truth: str = "42", task: str = GSM8K, **extra) -> dict:
    return {"response": response, "ground_truth": truth, "task": task, **extra}


# --------------------------------------------------------------------------------------------------
# native API, discovery, health, metrics


def test_score_returns_every_sample_in_input_order_with_status(plain_server):
    samples = [_sample(f"so the answer is #### {n}", truth=str(n % 3 * 7)) for n in range(12)]
    samples.append(_sample("#### 1", task="no/such_task"))
    with plain_server.client() as c:
        r = c.post("/v1/score", json={"samples": samples})
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["scores"]) == 13
    for n, score in enumerate(body["scores"][:12]):
        expected = 1.0 if n == n % 3 * 7 else 0.0
        assert score["status"] == "ok" and score["value"] == expected and score["reward"] == expected
        assert score["info"]["extracted"] == str(n)  # ties each result to its own input
    unrouted = body["scores"][12]
    assert unrouted["status"] == "invalid_input" and unrouted["value"] is None
    assert "no/such_task" in unrouted["info"]["error"]
    assert unrouted["reward"] == 0.0  # the runner's failure policy (on_error) made it 0, visibly
    assert body["stats"]["n"] == 13 and body["stats"]["status"]["invalid_input"] == 1


def test_scorers_health_and_metrics(plain_server):
    with plain_server.client() as c:
        c.post("/v1/score", json={"samples": [_sample("#### 42")]})
        scorers = c.get("/v1/scorers").json()
        health = c.get("/healthz").json()
        metrics = c.get("/metrics")
    assert "gsm8k" in scorers["scorers"] and "math_verify" in scorers["scorers"]
    assert {"task": GSM8K, "scorer": "gsm8k", "prefix": False} in scorers["routes"]
    assert scorers["limits"]["max_batch"] == 16 and scorers["openrlhf_task"] == "lighteval/MATH"
    assert health["status"] == "ok" and health["in_flight_samples"] == 0
    assert metrics.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = metrics.text
    assert re.search(r'^rewardloop_requests_total\{endpoint="/v1/score",code="200"\} [1-9]\d*$', text, re.M)
    assert re.search(r'^rewardloop_samples_total\{endpoint="/v1/score",status="ok"\} [1-9]\d*$', text, re.M)
    assert 'rewardloop_request_duration_seconds_bucket{endpoint="/v1/score",le="+Inf"}' in text
    assert re.search(r"^rewardloop_in_flight_samples 0$", text, re.M)
    assert re.search(r"^rewardloop_max_in_flight_samples 64$", text, re.M)
    for line in text.splitlines():  # every sample line is "name{labels} number"
        if line and not line.startswith("#"):
            assert re.fullmatch(r"[a-z_]+(\{[^}]*\})? [0-9.e+-]+", line), line


# --------------------------------------------------------------------------------------------------
# limits and malformed input


def test_body_over_the_limit_is_413_with_or_without_content_length(plain_server):
    big = {"samples": [_sample("x" * 70_000)]}
    with plain_server.client() as c:
        r = c.post("/v1/score", json=big)
        assert r.status_code == 413 and r.json()["error"] == "too_large"

        def chunks():  # no Content-Length: the server must count while reading
            data = json.dumps(big).encode()
            for i in range(0, len(data), 8192):
                yield data[i : i + 8192]

        r = c.post("/v1/score", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        assert c.get("/healthz").status_code == 200


def test_batch_over_the_limit_is_413(plain_server):
    with plain_server.client() as c:
        r = c.post("/v1/score", json={"samples": [_sample("#### 1")] * 17})
        assert r.status_code == 413 and "max_batch" in r.json()["detail"]
        r = c.post("/get_reward", json={"query": ["q"] * 17, "prompts": ["q"] * 17, "labels": ["1"] * 17})
        assert r.status_code == 413


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"samples": [_sample("a"), {"ground_truth": "1"}]}, "samples[1].response"),
        ({"samples": [_sample("a", metadata=[1, 2])]}, "samples[0].metadata"),
        ({"samples": [_sample("a")], "timeout_s": -1}, "timeout_s"),
        ({"samples": [_sample("a", bogus=1)]}, "samples[0].bogus"),
        ({"sample": []}, "samples"),
        (
            {"samples": [_sample("a")], "custom_reward_function": {"path": "/tmp/x.py"}},
            "custom_reward_function",
        ),
    ],
)
def test_schema_errors_are_422_naming_the_field(plain_server, body, field):
    with plain_server.client() as c:
        r = c.post("/v1/score", json=body)
    assert r.status_code == 422
    assert r.json()["error"] == "invalid_request"
    assert field in [d["field"] for d in r.json()["detail"]]


def test_malformed_json_is_422(plain_server):
    with plain_server.client() as c:
        r = c.post("/v1/score", content=b'{"samples": [', headers={"content-type": "application/json"})
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == "body"
        r = c.post("/get_reward", json={"query": ["a", "b"], "prompts": ["a"], "labels": ["1", "2"]})
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == "prompts"


def test_a_request_cannot_make_the_server_load_code(plain_server, tmp_path):
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.py"
    evil.write_text(f"open({str(marker)!r}, 'w').write('x')\ndef compute_score(*a, **k):\n    return 1.0\n")
    tasks = [f"{evil}:compute_score", "os:system", "rewardloop.scorers.gsm8k:GSM8KScorer", f"pkg://{evil}"]
    with plain_server.client() as c:
        r = c.post("/v1/score", json={"samples": [_sample("#### 42", task=t) for t in tasks]})
    assert r.status_code == 200
    assert [s["status"] for s in r.json()["scores"]] == ["invalid_input"] * len(tasks)
    assert not marker.exists()


# --------------------------------------------------------------------------------------------------
# OpenRLHF


async def _openrlhf_request(url: str, data: dict) -> dict:
    """What OpenRLHF's remote reward client does: aiohttp POST of JSON, raise_for_status, read the keys."""
    aiohttp = pytest.importorskip("aiohttp")
    headers = {"Content-Type": "application/json"}
    async with (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=180)) as session,
        session.post(url, json=data, headers=headers) as response,
    ):
        response.raise_for_status()
        return await response.json()


def test_openrlhf_client_shape(plain_server):
    prompt = "<|im_start|>user\nWhat is 1+1?<|im_end|>\n<|im_start|>assistant\n"
    queries = [prompt + "It is \\boxed{2}<|im_end|>", prompt + "It is \\boxed{3}<|im_end|>"]
    data = {"query": queries, "prompts": [prompt, prompt], "labels": ["2", "2"]}
    r = asyncio.run(_openrlhf_request(plain_server.url + "/get_reward", data))
    assert set(r) == {"rewards", "scores", "extra_logs"}
    # OpenRLHF builds float tensors from these: plain lists of floats, one per query
    rewards, scores = r["rewards"], r.get("scores", r["rewards"])
    assert rewards == [1.0, 0.0] and scores == [1.0, 0.0]
    assert all(type(x) is float for x in rewards + scores)
    assert r["extra_logs"] == {"rewardloop_failed": [0.0, 0.0]}


def test_openrlhf_tasks_labels_and_old_clients(plain_server):
    with plain_server.client() as c:
        gsm = c.post(
            "/get_reward",
            json={
                "query": ["Q: 6*7? #### 42"],
                "prompts": ["Q: 6*7? "],
                "labels": ["42"],
                "data_source": GSM8K,
            },
        ).json()
        label = json.dumps({"ground_truth": "42", "data_source": GSM8K})
        dict_label = c.post(
            "/get_reward", json={"query": ["p#### 42"], "prompts": ["p"], "labels": [label], "extra": 1}
        ).json()
        old = c.post("/get_reward", json={"query": ["no prompt here \\boxed{5}"]})
        unknown = c.post(
            "/get_reward",
            json={"query": ["p x"], "prompts": ["p"], "labels": ["1"], "data_source": ["nope"]},
        ).json()
    assert gsm["rewards"] == [1.0] and dict_label["rewards"] == [1.0]
    assert old.status_code == 200 and len(old.json()["rewards"]) == 1  # query-only (2024) clients
    assert unknown["rewards"] == [0.0] and unknown["extra_logs"]["rewardloop_failed"] == [1.0]


def test_openrlhf_query_that_does_not_start_with_its_prompt(plain_server):
    # re-tokenised prompt (a different leading space): the text after the prompt's tail is the response
    data = {
        "query": ["  Compute 2+3. Answer: \\boxed{5}"],
        "prompts": ["Compute 2+3. Answer:"],
        "labels": ["5"],
    }
    with plain_server.client() as c:
        r = c.post("/get_reward", json=data).json()
    assert r["rewards"] == [1.0]


# --------------------------------------------------------------------------------------------------
# SandboxFusion


@linux_only
@pytest.mark.sandbox
def test_sandbox_fusion_sdk_against_run_code(plain_server):
    sdk = pytest.importorskip("sandbox_fusion")
    request = sdk.RunCodeRequest(code="print(input()[::-1])", language="python", stdin="abc")
    response = sdk.run_code(request, endpoint=plain_server.url, max_attempts=1, client_timeout=60)
    assert response.status == sdk.RunStatus.Success and response.run_result.stdout == "cba\n"
    request = sdk.RunCodeRequest(code="import sys; sys.exit(4)", language="python")
    response = sdk.run_code(request, endpoint=plain_server.url, max_attempts=1, client_timeout=60)
    assert response.status == sdk.RunStatus.Failed and response.run_result.return_code == 4
    with plain_server.client() as c:
        assert c.get("/v1/ping").json() == "pong"


# --------------------------------------------------------------------------------------------------
# trainer-side forwarding functions


def test_verl_forwarding_function(plain_server, monkeypatch):
    from rewardloop.integrations import remote

    monkeypatch.setenv("REWARDLOOP_URL", plain_server.url)
    assert remote.compute_score(GSM8K, "#### 42", "42") == 1.0
    assert remote.compute_score(GSM8K, "#### 41", "42", {"index": 3}) == 0.0
    failed = remote.compute_score(
        "nope", "#### 42", "42", url=plain_server.url, return_dict=True, on_error=-1.0
    )
    assert failed == {"score": -1.0, "rewardloop_failed": 1.0}
    np = pytest.importorskip("numpy")
    # verl's batch manager passes numpy object arrays and extra_info with numpy values
    extras = np.array([{"index": np.int64(i), "rollout_reward_scores": {}} for i in range(3)], dtype=object)
    sources = np.array([GSM8K] * 3, dtype=object)
    batch = remote.compute_score_batch(
        data_sources=sources,
        solution_strs=["#### 1", "#### 2", "#### 3"],
        ground_truths=np.array(["1", "0", "3"], dtype=object),
        extra_infos=extras,
    )
    assert batch == [1.0, 0.0, 1.0]


def test_trl_forwarding_reward_function(plain_server):
    from rewardloop.integrations.remote import trl_reward_func

    fn = trl_reward_func(plain_server.url)
    completions = [[{"role": "assistant", "content": "#### 7"}], [{"role": "assistant", "content": "#### 8"}]]
    rewards = fn(
        prompts=["a", "b"], completions=completions, ground_truth=["7", "7"], data_source=[GSM8K] * 2
    )
    assert rewards == [1.0, 0.0]


def test_client_against_the_server(plain_server):
    with RewardClient(plain_server.url) as client:
        batch = client.score(
            [Sample("#### 42", "42", GSM8K), {"response": "#### 1", "ground_truth": "2", "task": GSM8K}]
        )
        assert batch.values == (1.0, 0.0) and batch.stats["n"] == 2
        assert client.health()["status"] == "ok"
        assert "gsm8k" in client.scorers()["scorers"]
        assert client.get_reward(["p#### 3"], ["p"], ["3"], data_source=GSM8K)["rewards"] == [1.0]


# --------------------------------------------------------------------------------------------------
# auth, overload, deadlines, crashes (the custom-function server: a token, max_in_flight=4)


def test_auth(custom_server):
    body = {"samples": [_sample("1", truth="1", task="t")]}
    url = custom_server.url
    r = httpx.post(url + "/v1/score", json=body)
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert (
        httpx.post(url + "/v1/score", json=body, headers={"Authorization": "Bearer wrong"}).status_code == 401
    )
    assert httpx.get(url + "/metrics").status_code == 401
    ok = httpx.post(url + "/v1/score", json=body, headers=custom_server.headers)
    assert ok.status_code == 200 and ok.json()["scores"][0]["value"] == 1.0
    # OpenRLHF cannot send headers: the token may ride in the URL
    r = httpx.post(
        url + "/get_reward?token=s3cret-token", json={"query": ["p1"], "prompts": ["p"], "labels": ["1"]}
    )
    assert r.status_code == 200 and r.json()["rewards"] == [1.0]
    assert httpx.post(url + "/get_reward?token=nope", json={"query": ["1"]}).status_code == 401


def _wait_in_flight(server, n: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        health = httpx.get(server.url + "/healthz", headers=server.headers).json()
        if health["in_flight_samples"] >= n:
            return
        time.sleep(0.05)
    raise AssertionError("the slow request never got in flight")


def test_burst_beyond_max_in_flight_gets_429_with_retry_after(custom_server):
    slow = {"samples": [_sample("sleep:1.5", truth="5", task="t")] * 4}
    results: dict[str, httpx.Response] = {}

    def fill() -> None:
        with custom_server.client() as c:
            results["slow"] = c.post("/v1/score", json=slow)

    thread = threading.Thread(target=fill)
    thread.start()
    _wait_in_flight(custom_server, 4)
    with custom_server.client() as c:
        burst = [c.post("/v1/score", json={"samples": [_sample("1", truth="1", task="t")]}) for _ in range(5)]
    # the client library waits Retry-After and gets through once the slow batch is done
    with RewardClient(custom_server.url, token=custom_server.token, retries=10) as client:
        late = client.score([Sample("1", "1", "t")])
    thread.join()
    assert [r.status_code for r in burst] == [429] * 5
    assert all(r.headers["retry-after"] == "2" and r.json()["error"] == "overloaded" for r in burst)
    assert results["slow"].status_code == 200
    assert [s["value"] for s in results["slow"].json()["scores"]] == [1.0] * 4
    assert late.values == (1.0,)
    metrics = httpx.get(custom_server.url + "/metrics", headers=custom_server.headers).text
    assert re.search(r'^rewardloop_rejected_total\{reason="overloaded"\} [5-9]', metrics, re.M)


def test_request_deadline_fails_samples_with_timeout(custom_server):
    with custom_server.client() as c:
        r = c.post("/v1/score", json={"samples": [_sample("sleep:6", task="t")], "timeout_s": 0.5})
    assert r.status_code == 200
    score = r.json()["scores"][0]
    assert score["status"] == "timeout" and score["value"] is None
    assert score["info"]["request_deadline_s"] == 0.5


def test_scorer_crash_fails_the_sample_not_the_server(custom_server):
    samples = [_sample(x, truth="1", task="t") for x in ("segv", "raise", "exit", "is 1")]
    with custom_server.client() as c:
        r = c.post("/v1/score", json={"samples": samples})
        assert r.status_code == 200
        statuses = [s["status"] for s in r.json()["scores"]]
        assert statuses == ["crashed", "scorer_error", "crashed", "ok"]
        assert "boom from the custom function" in r.json()["scores"][1]["info"]["error"]
        assert r.json()["scores"][3]["metrics"] == {"echo_len": 4}
        assert c.get("/healthz").status_code == 200
        again = c.post("/v1/score", json={"samples": [_sample("is 1", truth="1", task="t")]})
        assert again.json()["scores"][0]["value"] == 1.0
    assert custom_server.alive()


# --------------------------------------------------------------------------------------------------
# the CLI's safety checks and several workers


def test_serve_refuses_a_public_address_without_a_token(monkeypatch, capsys):
    from rewardloop.cli.main import main

    monkeypatch.delenv("REWARDLOOP_TOKEN", raising=False)
    assert main(["serve", "--host", "0.0.0.0", "--port", str(free_port())]) == 2
    assert "without a token" in capsys.readouterr().err


def test_serve_takes_the_token_from_the_environment(monkeypatch):
    import rewardloop.server._app as app_module
    from rewardloop.cli.main import main

    seen = {}
    monkeypatch.setattr(app_module, "serve", lambda server, reward: seen.update(server=server))
    monkeypatch.setenv("REWARDLOOP_TOKEN", "from-env")
    assert main(["serve", "--host", "0.0.0.0", "--port", "9"]) == 0
    assert seen["server"].token == "from-env" and seen["server"].host == "0.0.0.0"
    assert main(["serve", "--token", "from-flag"]) == 0
    assert seen["server"].token == "from-flag"


def test_serve_reports_config_errors(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("server:\n  max_inflight: 3\nreward: {}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "rewardloop.cli.main", "serve", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "max_inflight" in proc.stderr and "max_in_flight" in proc.stderr


# --------------------------------------------------------------------------------------------------
# graceful shutdown


def test_sigterm_finishes_in_flight_requests_and_refuses_new_ones(custom_server):
    """Runs last in this module: it stops the shared custom-function server."""
    server = custom_server
    results: dict[str, object] = {}

    def in_flight() -> None:
        with server.client() as c:
            results["slow"] = c.post(
                "/v1/score", json={"samples": [_sample("sleep:2", truth="2", task="t")] * 2}
            )

    try:
        keep_alive = server.client()
        assert keep_alive.get("/healthz").status_code == 200
        thread = threading.Thread(target=in_flight)
        thread.start()
        _wait_in_flight(server, 2)
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        refused = []
        for client in (keep_alive, server.client()):
            try:
                refused.append(
                    client.post(
                        "/v1/score", json={"samples": [_sample("5", truth="5", task="t")]}
                    ).status_code
                )
            except httpx.TransportError:
                refused.append("connection refused")
        thread.join(60)
        code = server.proc.wait(60)
    finally:
        keep_alive.close()
        server.stop()
    assert all(r in (503, "connection refused") for r in refused), refused
    slow = results["slow"]
    assert slow.status_code == 200, slow.text
    assert [s["value"] for s in slow.json()["scores"]] == [1.0, 1.0], slow.json()["scores"][0]["info"]
    # uvicorn re-raises the signal it handled once shutdown is complete, so SIGTERM is the exit status
    assert code in (0, -signal.SIGTERM), server.output()
    assert "Traceback" not in server.output()

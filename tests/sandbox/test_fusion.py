"""The SandboxFusion protocol: our client against a real ``rewardloop sandbox serve`` subprocess (and the
PyPI ``sandbox-fusion`` SDK against it), the client's retry / failure policy against a scripted local
HTTP server, and verl's ``default_compute_score(..., sandbox_fusion_url=...)`` end to end."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import rewardloop
from rewardloop.errors import InfraError, RateLimited
from rewardloop.sandbox import Limits, RunStatus, fusion
from rewardloop.sandbox.fusion import SandboxFusionClient, to_run_result
from rewardloop.sandbox.harness import TestStatus, run_tests
from rewardloop.scorers.code import CodeScorer
from rewardloop.types import Sample

pytestmark = pytest.mark.server
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux")


_SERVE = [sys.executable, "-m", "rewardloop.cli.main", "sandbox", "serve"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    if not sys.platform.startswith("linux"):
        pytest.skip("the sandbox needs Linux")
    port = _free_port()
    proc = subprocess.Popen(
        [*_SERVE, "--port", str(port), "--max-parallel", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), urllib.request.urlopen(url + "/v1/ping", timeout=1) as reply:
                assert json.loads(reply.read()) == "pong"
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"the server did not start: {proc.communicate()[1].decode()[-2000:]}")
            time.sleep(0.1)
        yield url
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(5)
        proc.stderr.close()


@pytest.fixture(scope="module")
def client(server_url):
    return SandboxFusionClient(server_url, retries=1, backoff_base_s=0.01)


def fenced(code: str) -> str:
    return f"Here you go:\n```python\n{code}\n```\n"


# ------------------------------------------------------------------------------------------ real server


@linux_only
@pytest.mark.sandbox
def test_client_success_and_url_forms(server_url, client):
    result = client.run("print(input()[::-1])", "python", stdin="abc")
    assert result.status is RunStatus.FINISHED and result.ok and result.stdout == "cba\n"
    for url in (server_url + "/", server_url + "/run_code", server_url + "/run_code/"):
        other = SandboxFusionClient(url)
        assert other.url == server_url + "/run_code"
        assert other.run("print(6 * 7)").stdout == "42\n"


@linux_only
@pytest.mark.sandbox
def test_client_wrong_output_runtime_error_and_timeout(client):
    suite = {"inputs": ["1\n", "2\n", "3\n"], "outputs": ["2\n", "5\n", "6\n"]}
    results = run_tests("print(int(input()) * 2)", suite, sandbox=client)
    assert [r.status for r in results] == [TestStatus.PASSED, TestStatus.WRONG_ANSWER, TestStatus.PASSED]

    crashed = client.run("import sys\nprint('x', file=sys.stderr)\nraise SystemExit(3)", "python")
    assert crashed.status is RunStatus.FINISHED and crashed.exit_code == 3 and "x" in crashed.stderr
    results = run_tests("raise ValueError('boom')", suite, sandbox=client, max_tests=1)
    assert results[0].status is TestStatus.RUNTIME_ERROR and "boom" in results[0].detail

    slow = client.run("while True: pass", "python", limits=Limits(wall_s=0.5))
    assert slow.status is RunStatus.TIMEOUT


@linux_only
@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ here")
def test_client_cpp_compile_error_and_success(client):
    bad = client.run("int main() { return undefined_name; }", "cpp")
    assert bad.status is RunStatus.COMPILE_ERROR and bad.exit_code != 0
    assert "undefined_name" in bad.stderr and bad.compile is not None
    good = client.run('#include <cstdio>\nint main() { puts("hi"); }', "cpp")
    assert good.ok and good.stdout == "hi\n" and good.compile is not None and good.compile.ok


@linux_only
@pytest.mark.sandbox
def test_raw_protocol_shapes_files_and_refusals(client):
    response = client.run_code(
        "print(open('data/in.txt').read())", "python", files={"data/in.txt": "héllo"}, memory_limit_mb=256
    )
    assert response["status"] == "Success" and response["compile_result"] is None
    run = response["run_result"]
    assert run["status"] == "Finished" and run["return_code"] == 0 and run["stdout"] == "héllo\n"
    assert set(run) >= {"execution_time", "stderr"} and response["files"] == {}

    failed = client.run_code("raise SystemExit(1)", "python")
    assert failed["status"] == "Failed" and failed["run_result"]["return_code"] == 1
    timed_out = client.run_code("import time; time.sleep(5)", "python", run_timeout=0.3)
    assert timed_out["status"] == "Failed" and timed_out["run_result"]["status"] == "TimeLimitExceeded"

    with pytest.raises(InfraError, match=r"422.*not supported"):
        client.run_code("x", "cobol")
    with pytest.raises(InfraError, match=r"422.*relative"):
        client.run_code("x", "python", files={"/etc/evil": "x"})
    # the server's limits (default max_run_timeout_s 60) are a 4xx, never retried as an outage
    with pytest.raises(InfraError, match=r"422 \(not retried\).*max_run_timeout_s"):
        client.run("print(1)", limits=Limits(wall_s=1e9))
    with pytest.raises(InfraError, match=r"422 \(not retried\).*lone surrogate"):
        client.run_code("print('\ud800')", "python")


@linux_only
@pytest.mark.sandbox
def test_sandbox_fusion_sdk_against_our_server(server_url):
    sdk = pytest.importorskip("sandbox_fusion")
    request = sdk.RunCodeRequest(code="print(input() + '!')", language="python", stdin="hey")
    response = sdk.run_code(request, endpoint=server_url, max_attempts=1, client_timeout=30)
    assert response.status == sdk.RunStatus.Success
    assert response.run_result.stdout == "hey!\n" and response.run_result.return_code == 0
    files = {"a.txt": base64.b64encode(b"data").decode()}
    request = sdk.RunCodeRequest(code="print(open('a.txt').read())", language="python", files=files)
    assert sdk.run_code(request, endpoint=server_url, max_attempts=1).run_result.stdout == "data\n"
    request = sdk.RunCodeRequest(code="raise SystemExit(2)", language="python")
    response = sdk.run_code(request, endpoint=server_url, max_attempts=1)
    assert response.status == sdk.RunStatus.Failed and response.run_result.return_code == 2


@linux_only
@pytest.mark.sandbox
def test_default_compute_score_with_sandbox_fusion_url(server_url):
    truth = json.dumps({"inputs": ["1\n", "2\n"], "outputs": ["2\n", "4\n"]})
    good = fenced("print(int(input()) * 2)")
    half = fenced("n = int(input())\nprint(2 if n == 1 else 0)")
    url = server_url + "/run_code"  # verl passes the full /run_code URL
    assert rewardloop.default_compute_score("apps", good, truth, sandbox_fusion_url=url) == 1.0
    assert rewardloop.default_compute_score("apps", half, truth, sandbox_fusion_url=url) == 0.5
    scored = rewardloop.default_compute_score(
        "codecontests", good, truth, sandbox_fusion_url=server_url, memory_limit_mb=512
    )
    assert scored == 1.0

    scorer = pickle.loads(pickle.dumps(CodeScorer(sandbox=SandboxFusionClient(server_url))))
    score = scorer.score(Sample(response=good, ground_truth=truth))
    assert score.value == 1.0 and score.info["tests"] == ["passed", "passed"]


# ------------------------------------------------------------------------------------------ retry policy

_OK = {
    "status": "Success",
    "message": "",
    "compile_result": None,
    "run_result": {
        "status": "Finished",
        "return_code": 0,
        "stdout": "ok\n",
        "stderr": "",
        "execution_time": 0.1,
    },
    "executor_pod_name": None,
    "files": {},
}


@pytest.fixture
def scripted():
    """A local HTTP server answering POSTs from a script: a list of (code, body) pairs, the last repeated."""
    state = {"script": [(200, _OK)], "calls": 0, "in_flight": 0, "max_in_flight": 0, "delay": 0.0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                index = min(state["calls"], len(state["script"]) - 1)
                state["calls"] += 1
                state["in_flight"] += 1
                state["max_in_flight"] = max(state["max_in_flight"], state["in_flight"])
            time.sleep(state["delay"])
            with lock:  # done before the reply is sent: a client that has its answer is never still counted
                state["in_flight"] -= 1
            code, body = state["script"][index]
            data = json.dumps(body).encode()
            self.send_response(code)
            if code == 429:
                self.send_header("Retry-After", "7")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield state
    httpd.shutdown()
    httpd.server_close()


def test_5xx_is_retried_until_success(scripted):
    scripted["script"] = [(503, {"detail": "busy"}), (503, {"detail": "busy"}), (200, _OK)]
    client = SandboxFusionClient(scripted["url"], retries=3, backoff_base_s=0.01)
    result = client.run("print('ok')")
    assert result.ok and result.stdout == "ok\n" and scripted["calls"] == 3


def test_5xx_exhausting_the_retries_is_an_infra_error(scripted):
    scripted["script"] = [(500, {"detail": "down"})]
    client = SandboxFusionClient(scripted["url"], retries=2, backoff_base_s=0.01)
    with pytest.raises(InfraError, match="after 3 attempts: HTTP 500"):
        client.run("print('ok')")
    assert scripted["calls"] == 3


def test_4xx_is_not_retried(scripted):
    scripted["script"] = [(400, {"detail": "bad request"}), (200, _OK)]
    client = SandboxFusionClient(scripted["url"], retries=3, backoff_base_s=0.01)
    with pytest.raises(InfraError, match=r"HTTP 400 \(not retried\).*bad request"):
        client.run("print('ok')")
    assert scripted["calls"] == 1


def test_429_is_rate_limited_with_retry_after(scripted):
    scripted["script"] = [(429, {"detail": "slow down"})]
    with pytest.raises(RateLimited) as info:
        SandboxFusionClient(scripted["url"], backoff_base_s=0.01).run("print('ok')")
    assert info.value.retry_after == 7.0 and scripted["calls"] == 1


def test_sandbox_error_is_an_infra_error_not_a_failed_test(scripted):
    scripted["script"] = [(200, {"status": "SandboxError", "message": "runner crashed", "run_result": None})]
    client = SandboxFusionClient(scripted["url"], backoff_base_s=0.01)
    with pytest.raises(InfraError, match="runner crashed"):
        client.run("print('ok')")
    assert scripted["calls"] == 1
    score = rewardloop.default_compute_score(
        "apps", fenced("print(1)"), {"inputs": ["\n"], "outputs": ["1\n"]}, sandbox_fusion_url=scripted["url"]
    )
    assert score == 0.0  # on_error, logged as infra_error; never counted as a run of the program
    with pytest.raises(InfraError):
        CodeScorer(sandbox=client).score(
            Sample(response="print(1)", ground_truth={"inputs": [""], "outputs": ["1"]})
        )


def test_connection_refused_is_an_infra_error_after_retries():
    client = SandboxFusionClient(f"http://127.0.0.1:{_free_port()}", retries=2, backoff_base_s=0.01)
    started = time.monotonic()
    with pytest.raises(InfraError, match="after 3 attempts"):
        client.run("print(1)")
    assert time.monotonic() - started < 5


def test_concurrency_is_bounded_per_url_across_clients(scripted):
    scripted["delay"] = 0.15
    url = scripted["url"] + "/bounded"  # a URL of its own, so a fresh semaphore
    clients = [SandboxFusionClient(url, max_concurrency=2) for _ in range(3)]
    threads = [threading.Thread(target=clients[i % 3].run, args=("print(1)",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert scripted["calls"] == 6 and scripted["max_in_flight"] == 2
    assert fusion._semaphore(url + "/run_code", 99) is fusion._semaphore(url + "/run_code", 1)


# ------------------------------------------------------------------------------------------ response mapping


def _stage(status, code=0, out="", err=""):
    return {"status": status, "return_code": code, "stdout": out, "stderr": err, "execution_time": 0.5}


def test_to_run_result_mapping():
    tle = to_run_result({"status": "Failed", "compile_result": _stage("TimeLimitExceeded", None)})
    assert tle.status is RunStatus.COMPILE_ERROR and "time limit" in tle.error
    killed = to_run_result({"status": "Failed", "run_result": _stage("Finished", -9)})
    assert killed.status is RunStatus.FINISHED and killed.signal == 9 and not killed.ok
    ok = to_run_result(
        {"status": "Success", "compile_result": _stage("Finished"), "run_result": _stage("Finished", 0, "x")}
    )
    assert ok.ok and ok.stdout == "x" and ok.compile.ok and ok.wall_s == 0.5
    with pytest.raises(InfraError, match="'Error'"):
        to_run_result({"status": "Failed", "run_result": _stage("Error", 1)})
    with pytest.raises(InfraError, match="without a run_result"):
        to_run_result({"status": "Success"})


def test_client_configuration_is_checked():
    with pytest.raises(rewardloop.errors.ConfigError):
        SandboxFusionClient("ftp://x")
    with pytest.raises(rewardloop.errors.ConfigError):
        SandboxFusionClient("http://x", retries=-1)
    with pytest.raises(rewardloop.errors.ConfigError, match="args"):
        SandboxFusionClient("http://x").run("print(1)", args=["a"])
    assert pickle.loads(pickle.dumps(SandboxFusionClient("http://x:1"))).url == "http://x:1/run_code"


@pytest.mark.parametrize(
    "url, expected",
    [
        ("http://h:8080", "http://h:8080/run_code"),
        ("http://h:8080/", "http://h:8080/run_code"),
        ("http://h:8080/run_code", "http://h:8080/run_code"),
        ("http://h:8080?token=t", "http://h:8080/run_code?token=t"),
        ("http://h:8080/run_code?token=t", "http://h:8080/run_code?token=t"),
    ],
)
def test_run_code_url_keeps_the_query_string(url, expected):
    from rewardloop.sandbox.fusion import _run_code_url

    assert _run_code_url(url) == expected


def test_checker_takeover_fails_through_run_code(server_url):
    # issue 23, item 1, over /run_code: the harness driver runs in our server's sandbox
    from .test_checker_boundary import TAKEOVERS, WRITE_RC

    client = SandboxFusionClient(server_url)
    for name, (spec, program) in TAKEOVERS.items():
        statuses = [r.status.value for r in run_tests(WRITE_RC + program, spec, sandbox=client)]
        assert "passed" not in statuses, (name, statuses)
    right = {"fn_name": "f", "inputs": [[]], "outputs": [42]}
    assert [r.status.value for r in run_tests("def f():\n    return 42\n", right, sandbox=client)] == [
        "passed"
    ]

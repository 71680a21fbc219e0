"""The limits of ``rewardloop sandbox serve`` (``RunCodeLimits``), against a real server subprocess on
127.0.0.1 and the real sandbox: every bad request is a 4xx naming its field (never a 500, never a 200
``SandboxError``), the server stays healthy after each, the run queue is bounded (429 + ``Retry-After``),
and a client that disconnects gets its program killed."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from rewardloop.errors import ConfigError
from rewardloop.server import RunCodeLimits, ServerConfig, load_service_config
from rewardloop.server._config import load_run_code_limits

from .conftest import free_port, httpx, yaml

pytestmark = [pytest.mark.server, pytest.mark.sandbox]
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux")

REPO = Path(__file__).resolve().parents[2]
VERL_PYTHON = Path(os.environ.get("REWARDLOOP_VERL_PYTHON", REPO / ".venv-verl" / "bin" / "python"))

SERVE = [sys.executable, "-m", "rewardloop.cli.main", "sandbox", "serve"]
KiB = 1024
LIMITS = {
    "max_run_timeout_s": 600,  # far longer than any wait below: a kill we see is never this timeout
    "max_compile_timeout_s": 30,
    "default_run_timeout_s": 2,
    "default_memory_limit_mb": 256,
    "max_memory_limit_mb": 1024,  # verl sends 1024 by default
    "max_body_bytes": 512 * KiB,
    "body_timeout_s": 2,
    "max_code_bytes": 64 * KiB,
    "max_stdin_bytes": 128 * KiB,
    "max_file_bytes": 16 * KiB,
    "max_files": 4,
    "max_queued": 4,  # verl sends one request per test case at once: 3 below
    "max_queued_bytes": 3 * 512 * KiB + 64 * KiB,  # three bodies at max_body_bytes, and a little
    "retry_after_s": 3,
    "header_timeout_s": 5,
}


# ------------------------------------------------------------------------------------------ config


def test_defaults_are_bounded_and_documented_values():
    limits = RunCodeLimits()
    assert (limits.default_run_timeout_s, limits.max_run_timeout_s) == (10.0, 60.0)
    assert (limits.default_compile_timeout_s, limits.max_compile_timeout_s) == (10.0, 60.0)
    assert (limits.default_memory_limit_mb, limits.max_memory_limit_mb) == (1024, 4096)
    assert limits.max_body_bytes == 64 << 20 and limits.max_stdin_bytes == 16 << 20
    assert limits.body_timeout_s == 60.0
    assert limits.max_code_bytes == 4 << 20 and limits.max_file_bytes == 16 << 20
    assert (limits.max_files, limits.max_queued, limits.retry_after_s) == (64, 1024, 1.0)
    assert ServerConfig().run_code == limits


@pytest.mark.parametrize(
    "data, message",
    [
        ({"max_run_timout_s": 5}, "unknown key.*max_run_timout_s.*allowed:.*max_run_timeout_s"),
        ({"max_run_timeout_s": float("inf")}, "run_code.max_run_timeout_s must be a positive number"),
        ({"max_files": -1}, "run_code.max_files must be an integer >= 0"),
        ({"max_memory_limit_mb": True}, "run_code.max_memory_limit_mb must be an integer"),
        (
            {"default_memory_limit_mb": 8192},
            "default_memory_limit_mb must be <= run_code.max_memory_limit_mb",
        ),
        ({"default_run_timeout_s": 90}, "default_run_timeout_s must be <= run_code.max_run_timeout_s"),
    ],
)
def test_bad_limits_fail_fast_naming_the_key(data, message):
    with pytest.raises(ConfigError, match=message):
        RunCodeLimits.from_dict(data)
    with pytest.raises(ConfigError, match=message):
        load_service_config({"server": {"run_code": data}})


def test_limits_load_from_their_own_file_or_a_service_config(tmp_path):
    own = tmp_path / "limits.yaml"
    own.write_text(yaml.safe_dump({"max_files": 3}))
    assert load_run_code_limits(own) == RunCodeLimits(max_files=3)
    service = tmp_path / "service.yaml"
    service.write_text(yaml.safe_dump({"server": {"port": 9000, "run_code": {"max_queued": 7}}}))
    assert load_run_code_limits(service) == RunCodeLimits(max_queued=7)
    server, _ = load_service_config(service)
    assert server.run_code.max_queued == 7
    # the multi-worker service passes its config as JSON: run_code survives the round trip
    assert ServerConfig.from_dict(json.loads(json.dumps(server.as_dict()))) == server
    assert load_run_code_limits(None) == RunCodeLimits()


# ------------------------------------------------------------------------------------------ the server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not sys.platform.startswith("linux"):
        pytest.skip("the sandbox needs Linux")
    config = tmp_path_factory.mktemp("sandbox-limits") / "limits.yaml"
    config.write_text(yaml.safe_dump(LIMITS))
    port = free_port()
    log = config.with_name("server.log")
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            [*SERVE, "--port", str(port), "--max-parallel", "1", "--config", str(config)],
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _pong(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the sandbox server did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.1)
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _pong(url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(url + "/v1/ping", timeout=30).json() == "pong"
    return False


def post(url: str, body: dict | bytes, **kwargs) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()  # ensure_ascii: \ud800 travels
    headers = {"Content-Type": "application/json", **kwargs.pop("headers", {})}
    return httpx.post(url + "/run_code", content=content, headers=headers, timeout=120, **kwargs)


def assert_healthy(url: str) -> None:
    assert _pong(url)
    good = post(url, {"code": "print(6 * 7)", "language": "python", "run_timeout": 60})
    assert good.status_code == 200 and good.json()["status"] == "Success", good.text
    assert good.json()["run_result"]["stdout"] == "42\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


PY = {"language": "python", "code": "print(1)"}
BAD_REQUESTS = [
    # (body, field, a fragment of the detail)
    ({**PY, "run_timeout": 1e9}, "run_timeout", "max_run_timeout_s (600 s)"),
    ({**PY, "compile_timeout": 1e9}, "compile_timeout", "max_compile_timeout_s (30 s)"),
    ({**PY, "run_timeout": 10**400}, "run_timeout", "max_run_timeout_s"),
    ({**PY, "run_timeout": 0}, "run_timeout", "finite number of seconds > 0"),
    ({**PY, "run_timeout": 1e-9}, "run_timeout", "min_timeout_s (0.05 s)"),
    ({**PY, "compile_timeout": 0.001}, "compile_timeout", "min_timeout_s (0.05 s)"),
    ({**PY, "run_timeout": -1}, "run_timeout", "> 0"),
    ({**PY, "run_timeout": "10"}, "run_timeout", "> 0"),
    ({**PY, "run_timeout": True}, "run_timeout", "> 0"),
    ({**PY, "memory_limit_MB": 2**70}, "memory_limit_MB", "max_memory_limit_mb (1024)"),
    ({**PY, "memory_limit_MB": 1025}, "memory_limit_MB", "max_memory_limit_mb (1024)"),
    ({**PY, "memory_limit_MB": 512.5}, "memory_limit_MB", "must be an integer"),
    ({**PY, "memory_limit_MB": "512"}, "memory_limit_MB", "must be an integer"),
    ({**PY, "memory_limit_MB": False}, "memory_limit_MB", "must be an integer"),
    ({**PY, "code": "print('\ud800')"}, "code", "lone surrogate"),
    ({**PY, "stdin": "\udfff"}, "stdin", "lone surrogate"),
    ({**PY, "files": {"a\ud800.txt": b64(b"x")}}, "files['a\\ud800.txt']", "lone surrogate"),
    ({**PY, "code": "#" * (64 * KiB + 1)}, "code", "over this server's max_code_bytes (65536)"),
    ({**PY, "code": "é" * (32 * KiB + 1)}, "code", "65538 bytes"),  # bytes, not characters
    ({**PY, "stdin": "x" * (128 * KiB + 1)}, "stdin", "max_stdin_bytes (131072)"),
    ({**PY, "code": None}, "code", "code must be a string"),
    ({"language": "python"}, "code", "code is required"),
    ({**PY, "code": 7}, "code", "code must be a string"),
    ({**PY, "language": "cobol"}, "language", "not supported"),
    ({**PY, "language": ["python"]}, "language", "must be a string"),
    ({**PY, "stdin": 5}, "stdin", "stdin must be a string"),
    ({**PY, "files": {"n" * 256: b64(b"x")}}, "files['" + "n" * 60 + "...']", "256 bytes, over 255"),
    ({**PY, "files": {"d/" + "é" * 128: b64(b"x")}}, "files['d/", "256 bytes, over 255"),
    ({**PY, "files": {"x": b64(b"1"), "x/y": b64(b"2")}}, "files['x/y']", "also given as a file"),
    ({**PY, "files": {"x/y/z": b64(b"1"), "x": b64(b"2")}}, "files['x/y/z']", "also given as a file"),
    ({**PY, "files": {"a/b": b64(b"1"), "a//./b": b64(b"2")}}, "files['a//./b']", "the same file"),
    ({**PY, "files": {"/etc/evil": b64(b"x")}}, "files['/etc/evil']", "relative paths"),
    ({**PY, "files": {"../up": b64(b"x")}}, "files['../up']", "no '..'"),
    ({**PY, "files": {"a/../b": b64(b"x")}}, "files['a/../b']", "no '..'"),
    ({**PY, "files": {"": b64(b"x")}}, "files['']", "relative paths"),
    ({**PY, "files": {"./": b64(b"x")}}, "files['./']", "relative paths"),
    ({**PY, "files": {"nul\x00": b64(b"x")}}, "files['nul\\x00']", "NUL"),
    ({**PY, "files": {"main.py": b64(b"x")}}, "files", "source"),  # the sandbox's own check
    ({**PY, "files": {f"f{i}": b64(b"x") for i in range(5)}}, "files", "max_files (4)"),
    ({**PY, "files": {"big": b64(b"x" * (16 * KiB + 1))}}, "files['big']", "max_file_bytes (16384)"),
    ({**PY, "files": {"big": "A" * (30 * KiB)}}, "files['big']", "max_file_bytes (16384)"),
    ({**PY, "files": {"a": "not base64!"}}, "files['a']", "not valid base64"),
    ({**PY, "files": {"a": 12}}, "files['a']", "base64 string or null"),
    ({**PY, "files": ["a"]}, "files", "must be an object"),
    ({**PY, "fetch_files": "a"}, "fetch_files", "array of file names"),
    ({**PY, "fetch_files": [1]}, "fetch_files", "array of file names"),
    ({**PY, "fetch_files": [f"f{i}" for i in range(5)]}, "fetch_files", "max_files (4)"),
    (b"{not json", "body", "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "body", "not valid JSON"),
    (b'{"code": "\xff", "language": "python"}', "body", "not valid JSON"),
    (b'{"code": "print(1)", "language": "python", "run_timeout": NaN}', "run_timeout", "> 0"),
    (
        b'{"code": "print(1)", "language": "python", "memory_limit_MB": Infinity}',
        "memory_limit_MB",
        "integer",
    ),
    (b'[{"code": "print(1)"}]', "body", "must be a JSON object, got an array"),
    (b'"print(1)"', "body", "must be a JSON object, got a string"),
]

# what a message must never carry: a host path of the sandbox or server, or a process id
LEAKS = re.compile(r"rewardloop-sandbox-\d|/tmp/|/proc/|/work/|\bpid\s*\d|holder\s*\d", re.IGNORECASE)


@linux_only
@pytest.mark.parametrize("body, field, fragment", BAD_REQUESTS, ids=range(len(BAD_REQUESTS)))
def test_bad_request_is_a_422_naming_the_field(server, body, field, fragment):
    reply = post(server, body)
    assert reply.status_code == 422, reply.text
    answer = reply.json()
    assert answer["error"] == "invalid_request"
    assert answer["field"].startswith(field) and fragment in answer["detail"], answer
    assert not LEAKS.search(reply.text)
    assert _pong(server)


@linux_only
def test_every_bad_request_leaves_the_server_healthy(server):
    for body, _, _ in BAD_REQUESTS:
        assert post(server, body).status_code == 422
    assert_healthy(server)


@linux_only
def test_unknown_keys_are_ignored_and_nulls_are_defaults(server):
    nulls = dict.fromkeys(
        ("stdin", "files", "fetch_files", "run_timeout", "compile_timeout", "memory_limit_MB")
    )
    reply = post(server, {**PY, **nulls, "extra": {"sdk": "field"}})
    assert reply.status_code == 200 and reply.json()["status"] == "Success", reply.text
    assert reply.json()["run_result"]["stdout"] == "1\n"


@linux_only
def test_body_over_the_limit_is_a_413_with_or_without_content_length(server):
    big = json.dumps({**PY, "stdin": "x" * (600 * KiB)}).encode()
    reply = post(server, big)
    assert reply.status_code == 413 and reply.json()["field"] == "body"
    assert "max_body_bytes (524288)" in reply.json()["detail"] and reply.json()["limit"] == 512 * KiB

    def chunks():  # no Content-Length: the server counts while reading
        for i in range(0, len(big), 64 * KiB):
            yield big[i : i + 64 * KiB]

    headers = {"Content-Type": "application/json"}
    reply = httpx.post(server + "/run_code", content=chunks(), headers=headers, timeout=60)
    assert reply.status_code == 413 and "max_body_bytes" in reply.json()["detail"]
    assert_healthy(server)


def read_to_close(sock: socket.socket) -> str:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data.decode()


@linux_only
def test_a_stalled_body_is_a_408_and_frees_its_queue_place(server):
    host, port = server.removeprefix("http://").split(":")
    stalled = []
    try:
        for _ in range(5):  # max_parallel + max_queued: all places; each must give its place back
            sock = socket.create_connection((host, int(port)), timeout=60)
            stalled.append(sock)
            head = b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            sock.sendall(head + b"Content-Length: 100\r\n\r\n{")
        for sock in stalled:  # the server's 2 s body_timeout_s ends each; our wait is 60 s
            answer = read_to_close(sock)
            assert answer.startswith("HTTP/1.1 408"), answer
            assert "body_timeout_s (2 s)" in answer
    finally:
        for sock in stalled:
            sock.close()
    assert_healthy(server)


@linux_only
def test_omitted_or_minus_one_memory_limit_is_the_default_not_unlimited(server):
    hog = "b = bytearray(3 * 1024**3)\nprint('allocated')"  # 12x the 256 MB default
    for extra in ({}, {"memory_limit_MB": -1}, {"memory_limit_MB": None}, {"memory_limit_MB": 0}):
        reply = post(server, {"code": hog, "language": "python", "run_timeout": 60, **extra}).json()
        assert reply["status"] == "Failed", (extra, reply)
        assert "allocated" not in reply["run_result"]["stdout"]
        assert "memory" in reply["run_result"]["stderr"].lower()
    small = "b = bytearray(20 * 1024**2)\nprint('allocated')"  # well under the default
    reply = post(server, {"code": small, "language": "python", "run_timeout": 60}).json()
    assert reply["run_result"]["stdout"] == "allocated\n", reply


@linux_only
def test_an_explicit_memory_limit_up_to_the_maximum_is_honoured(server):
    code = "b = bytearray(300 * 1024**2)\nprint('allocated')"  # over the 256 MB default
    reply = post(server, {"code": code, "language": "python", "memory_limit_MB": 1024, "run_timeout": 60})
    reply = reply.json()
    assert reply["status"] == "Success" and reply["run_result"]["stdout"] == "allocated\n", reply


@linux_only
def test_omitted_run_timeout_is_the_default(server):
    reply = post(server, {"code": "import time\nwhile True: time.sleep(1)", "language": "python"}).json()
    assert reply["status"] == "Failed" and reply["run_result"]["status"] == "TimeLimitExceeded"
    assert 2 <= reply["run_result"]["execution_time"] < 600  # default 2 s here; the program never ends


# ------------------------------------------------------------------------------------------ queue, disconnect


def sleeper(marker: str) -> str:
    """A program that sleeps forever as a process whose command line carries ``marker``."""
    return (
        "import os, sys\n"
        f"os.execv(sys.executable, [sys.executable, '-c', 'import time\\nwhile True: time.sleep(60)', {marker!r}])"
    )


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/cmdline", "rb") as fh:
                if marker.encode() in fh.read():
                    found.append(int(entry))
    return found


def wait_for(predicate, timeout: float = 60.0) -> bool:
    """Poll ``predicate`` until true; the timeout is far past the expected time (well under a second)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def open_run(url: str, code: str, pad: int = 0) -> socket.socket:
    """Send ``POST /run_code`` on a raw socket (so the test can hang up) and return the socket. ``pad``:
    bytes of an unknown (ignored) field that make the body that large."""
    host, port = url.removeprefix("http://").split(":")
    body = json.dumps({"code": code, "language": "python", "run_timeout": 600, "pad": "x" * pad}).encode()
    sock = socket.create_connection((host, int(port)), timeout=30)
    head = (
        f"POST /run_code HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body)
    return sock


@linux_only
def test_a_client_disconnect_kills_the_program(server):
    marker = f"rl-disconnect-{uuid.uuid4().hex}"
    sock = open_run(server, sleeper(marker))
    try:
        assert wait_for(lambda: processes_with(marker)), "the program never started"
    finally:
        sock.close()
    # run_timeout is 600 s: only the disconnect can end it within the wait
    assert wait_for(lambda: not processes_with(marker)), "the program outlived its client"
    assert_healthy(server)


@linux_only
def test_a_full_queue_is_429_with_retry_after_and_drains(server):
    marker = f"rl-queue-{uuid.uuid4().hex}"
    sock = open_run(server, sleeper(marker))  # holds the only sandbox slot
    replies: list[httpx.Response] = []
    try:
        assert wait_for(lambda: processes_with(marker)), "the program never started"
        quick = {"code": "print('queued')", "language": "python", "run_timeout": 60}
        # capacity = max_parallel (1) + max_queued (4): four wait in the queue, the fifth is refused
        threads = [threading.Thread(target=lambda: replies.append(post(server, quick))) for _ in range(5)]
        for t in threads:
            t.start()
        assert wait_for(lambda: len(replies) >= 1), "nobody was refused"
        refused = replies[0]
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "3", refused.text
        assert refused.json()["error"] == "overloaded" and refused.json()["limit"] == 5
        assert len(replies) == 1  # the queued ones still wait behind the sleeper
    finally:
        sock.close()  # cancels the sleeper: the queued request runs
    for t in threads:
        t.join(120)
    assert len(replies) == 5 and [r.status_code for r in replies[1:]] == [200] * 4, replies[-1].text
    assert all(r.json()["run_result"]["stdout"] == "queued\n" for r in replies[1:])
    assert wait_for(lambda: not processes_with(marker))
    assert_healthy(server)


# ------------------------------------------------------------------------------------------ clients


@linux_only
def test_sandbox_fusion_sdk_gets_a_4xx_not_a_sandbox_error(server):
    sdk = pytest.importorskip("sandbox_fusion")
    request = sdk.RunCodeRequest(code="print(input()[::-1])", language="python", stdin="abc")
    response = sdk.run_code(request, endpoint=server, max_attempts=1, client_timeout=60)
    assert response.status == sdk.RunStatus.Success and response.run_result.stdout == "cba\n"
    request = sdk.RunCodeRequest(code="print(1)", language="python", run_timeout=10**6)
    with pytest.raises(Exception, match="422"):
        sdk.run_code(request, endpoint=server, max_attempts=1, client_timeout=60)


VERL_SCRIPT = """
import json, sys
from verl.utils.reward_score.sandbox_fusion.utils import check_correctness
url = sys.argv[1]
code = "n = int(input())\\nprint(n * 2)"
in_outs = {"inputs": ["1\\n", "2\\n", "3\\n"], "outputs": ["2\\n", "4\\n", "7\\n"]}
results, meta = check_correctness(url, in_outs, code, timeout=10, memory_limit_mb=1024)
slow, _ = check_correctness(url, {"inputs": [""], "outputs": [""]}, "while True: pass", timeout=1)
crash, _ = check_correctness(url, {"inputs": [""], "outputs": ["x"]}, "raise SystemExit(3)", timeout=5)
print(json.dumps({"results": results, "statuses": [m["status"] for m in meta], "slow": slow,
                  "crash": crash}))
"""


@linux_only
@pytest.mark.verl
@pytest.mark.slow
@pytest.mark.skipif(not VERL_PYTHON.exists(), reason=f"no verl interpreter at {VERL_PYTHON}")
def test_verl_sandbox_fusion_client_against_our_server(server):
    proc = subprocess.run(
        [str(VERL_PYTHON), "-c", VERL_SCRIPT, server + "/run_code"],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "TOKENIZERS_PARALLELISM": "false"},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["results"] == [True, True, False]
    assert result["statuses"] == ["success", "success", "wrong_answer"]
    assert result["slow"] == [-3] and result["crash"] == [-2]  # verl's timeout / runtime-error codes


# ------------------------------------------------------------------------------------------ rewardloop serve


@linux_only
def test_rewardloop_serve_applies_server_run_code_and_kills_on_disconnect(tmp_path):
    from .conftest import start_server

    config = {
        "server": {"sandbox_max_parallel": 1, "run_code": {"max_run_timeout_s": 600, "max_files": 1}},
        "reward": {"runner": {"workers": 1}},
    }
    service = start_server(tmp_path, config)
    try:
        reply = post(service.url, {**PY, "run_timeout": 1e9})
        assert reply.status_code == 422 and reply.json()["field"] == "run_timeout", reply.text
        reply = post(service.url, {**PY, "files": {"a": b64(b"1"), "b": b64(b"2")}})
        assert reply.status_code == 422 and "max_files (1)" in reply.json()["detail"]
        marker = f"rl-serve-disconnect-{uuid.uuid4().hex}"
        sock = open_run(service.url, sleeper(marker))
        try:
            assert wait_for(lambda: processes_with(marker)), "the program never started"
        finally:
            sock.close()
        assert wait_for(lambda: not processes_with(marker)), "the program outlived its client"
        assert_healthy(service.url)
    finally:
        service.stop()


# ------------------------------------------------------------------------------------------ messages


def test_public_messages_carry_no_host_path_or_process_id():
    from rewardloop.server.sandbox_app import public_message

    leaked = (
        "sandbox infrastructure error: [Errno 17] File exists: '/proc/31549/root/tmp/sandbox/b16/x' "
        "(holder pid 31549, base /tmp/rewardloop-sandbox-31549-abc123/work)"
    )
    clean = public_message(leaked)
    assert "31549" not in clean and "/proc" not in clean and "/tmp" not in clean
    assert clean.startswith("sandbox infrastructure error: [Errno 17] File exists: '<path>'")
    assert public_message("no java toolchain here (needs java, javac on PATH)") == (
        "no java toolchain here (needs java, javac on PATH)"
    )


# ------------------------------------------------------------------------------------------ sandbox failures


@contextlib.contextmanager
def serving(app):
    """``app`` on a real uvicorn server in a thread, on a free 127.0.0.1 port."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert wait_for(lambda: server.started), "uvicorn did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


class FailingSandbox:
    """A sandbox whose machinery fails the way an OS error does, naming a host path and a pid."""

    max_parallel = 1

    def languages(self) -> dict[str, bool]:
        return {"python": True}

    async def arun(self, *args, **kwargs):
        raise OSError(2, "No such file or directory: '/tmp/rewardloop-sandbox-4242-abc/holder' (pid 4242)")


@linux_only
def test_a_failing_or_closed_sandbox_is_a_sandbox_error_without_paths(tmp_path):
    from rewardloop.sandbox import Sandbox
    from rewardloop.server.sandbox_app import create_app

    closed = Sandbox(cache_dir=str(tmp_path / "cache"))
    closed.close()
    for sandbox, message in (
        (FailingSandbox(), "the sandbox failed (FileNotFoundError)"),
        (closed, "closed"),
    ):
        with serving(create_app(sandbox)) as url:
            reply = post(url, PY)
            assert reply.status_code == 200 and reply.json()["status"] == "SandboxError", reply.text
            assert message in reply.json()["message"]
            assert "4242" not in reply.text and "/tmp" not in reply.text
            assert post(url, {**PY, "run_timeout": 1e9}).status_code == 422  # still a client error
            assert _pong(url)


# ------------------------------------------------------------------------------------------ issue 23, item 9


@linux_only
@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_only_json_bodies_run(server, content_type):
    # a browser's cross-origin "simple" POST (text/plain, forms) needs no preflight: it must not run code
    marker = f"rl-cors-{uuid.uuid4().hex}"
    body = json.dumps({"code": f"print({marker!r})", "language": "python"}).encode()
    headers = {} if content_type is None else {"Content-Type": content_type}
    reply = httpx.post(server + "/run_code", content=body, headers=headers, timeout=60)
    assert reply.status_code == 415 and reply.json()["error"] == "unsupported_media_type", reply.text
    assert marker not in reply.text
    assert post(server, PY, headers={"Content-Type": "application/json; charset=utf-8"}).status_code == 200


@linux_only
def test_a_connection_that_never_finishes_its_headers_is_closed(server):
    host, port = server.removeprefix("http://").split(":")
    for partial in (b"", b"POST /run_code HTTP/1.1\r\nHost: x\r\n"):
        with socket.create_connection((host, int(port)), timeout=120) as sock:
            sock.sendall(partial)
            # header_timeout_s is 5 s; the socket waits up to 120 s: only the server can end this early
            assert read_to_close(sock) == ""
    # a keep-alive connection that starts a second request and stalls is closed as well
    with socket.create_connection((host, int(port)), timeout=120) as sock:
        body = json.dumps(PY).encode()
        head = f"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        sock.sendall(head.encode() + body + b"POST /run_code HTTP/1.1\r\n")
        assert read_to_close(sock).startswith("HTTP/1.1 200")
    assert_healthy(server)


@linux_only
def test_the_queue_is_bounded_in_bytes(server):
    marker = f"rl-bytes-{uuid.uuid4().hex}"
    # each body ~500 KiB (an ignored field): three fit the 1.56 MiB budget, four do not
    socks = [open_run(server, sleeper(f"{marker}-{i}"), pad=500 * KiB) for i in range(3)]
    try:
        assert wait_for(lambda: processes_with(marker)), "the first program never started"
        big = post(server, {**PY, "pad": "x" * (500 * KiB)})
        # 3 requests are admitted and the count limit is 5: only the byte budget refuses this one
        assert big.status_code == 429 and big.json()["error"] == "overloaded", big.text
        assert "max_queued_bytes" in big.json()["detail"]
    finally:
        for sock in socks:
            sock.close()
    assert wait_for(lambda: not processes_with(marker))
    assert_healthy(server)  # the reservations were given back


@linux_only
def test_a_token_is_required_when_configured(tmp_path):
    port = free_port()
    env = {**os.environ, "REWARDLOOP_TOKEN": "s3cret"}
    proc = subprocess.Popen(
        [*SERVE, "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        assert wait_for(lambda: _pong(url)), "the server did not start"
        assert post(url, PY).status_code == 401
        assert post(url, PY, headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert post(url, PY, headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert httpx.post(url + "/run_code?token=s3cret", json=PY, timeout=60).status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "::"])
def test_a_non_loopback_bind_without_a_token_is_refused(host):
    env = {k: v for k, v in os.environ.items() if k != "REWARDLOOP_TOKEN"}
    done = subprocess.run(
        [*SERVE, "--host", host, "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "without a token" in done.stderr, done.stderr


def test_serve_names_its_isolation():
    done = subprocess.run([*SERVE, "--isolation", "nonee"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "auto, unshare, bwrap, none" in done.stderr.replace("'", "")

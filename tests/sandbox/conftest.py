"""Shared fixtures: one sandbox per session (its mount holder and compile cache are reused), the isolation
backends available on this machine, and a helper that finds leftover processes by a unique argument."""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import time

import pytest

from rewardloop.errors import ConfigError
from rewardloop.sandbox import Sandbox

if not sys.platform.startswith("linux"):
    collect_ignore_glob = ["test_sandbox.py", "test_security.py"]


def _available() -> list[str]:
    found = []
    for mode in ("unshare", "bwrap", "none"):
        with contextlib.suppress(ConfigError):
            Sandbox(isolation=mode).close()
            found.append(mode)
    return found


AVAILABLE = _available() if sys.platform.startswith("linux") else []
ISOLATED = [m for m in AVAILABLE if m != "none"]


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory):
    """The default (``auto``) sandbox with a cache directory of its own."""
    sb = Sandbox(cache_dir=str(tmp_path_factory.mktemp("sandbox-cache")))
    yield sb
    sb.close()


@pytest.fixture(scope="session", params=AVAILABLE or ["none"])
def any_sandbox(request):
    """Every isolation backend that works here (``none`` always does on Linux)."""
    sb = Sandbox(isolation=request.param)
    yield sb
    sb.close()


@pytest.fixture(scope="session", params=ISOLATED or [None])
def isolated_sandbox(request):
    """Every backend that isolates (namespaces); the test is skipped where there is none."""
    if request.param is None:
        pytest.skip("no namespace-based isolation (unshare as root, or bubblewrap) on this machine")
    sb = Sandbox(isolation=request.param)
    yield sb
    sb.close()


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line contains ``marker``."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        with contextlib.suppress(OSError), open(f"/proc/{entry}/cmdline", "rb") as fh:
            if marker.encode() in fh.read():
                pids.append(int(entry))
    return pids


def wait_until_gone(marker: str, timeout: float = 3.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def skip_unless(sandbox: Sandbox, language: str) -> None:
    if not sandbox.languages()[language]:
        pytest.skip(f"no {language} toolchain here")


# ---------------------------------------------------------------------------------------------- two backends
# The red-team's two set-ups (issue 23): root through ``unshare``, in this process; and an unprivileged
# caller through ``bwrap``: a helper process running as ``nobody`` that imports rewardloop from this
# checkout and calls what the test names, with the default (``auto``) isolation it gets as nobody.

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
# An unprivileged caller of its own: a uid no account and no earlier test session used, so keys, quotas and
# files that other runs left on a shared host (under 65534, say) cannot change what the tests see.
NOBODY = 0x7E000000 + secrets.randbelow(1 << 20)

_NOBODY_SERVER = r"""
import dataclasses, enum, importlib, json, sys
from rewardloop.sandbox import Limits, default_sandbox

def plain(value):
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value

print(json.dumps({"isolation": default_sandbox().isolation}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    kwargs = req["kwargs"]
    if "limits" in kwargs:
        kwargs["limits"] = Limits(**kwargs["limits"])
    try:
        if req["fn"] == "run":
            fn = default_sandbox().run
        else:
            module, _, name = req["fn"].partition(":")
            fn = getattr(importlib.import_module(module), name)
        reply = {"ok": plain(fn(*req["args"], **kwargs))}
    except Exception as exc:
        reply = {"raised": type(exc).__name__, "message": str(exc)}
    print(json.dumps(reply), flush=True)
"""


def _plain(value):
    import dataclasses
    import enum

    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


class Backend:
    """Calls ``module:function`` (or ``"run"``: :meth:`Sandbox.run` of the default sandbox) on one backend
    and returns its result as plain JSON data (dataclasses as dicts, enums as their values)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._proc = None
        if name == "bwrap-nonroot":
            import subprocess

            env = {"PATH": os.environ.get("PATH", os.defpath), "PYTHONPATH": SRC, "HOME": "/tmp"}
            argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
            argv += ["/usr/bin/python3", "-c", _NOBODY_SERVER]
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env={**env, "LANG": "C.UTF-8"},
                cwd="/tmp",
            )
            import json

            first = self._proc.stdout.readline()
            self.isolation = json.loads(first)["isolation"] if first else None

    def __call__(self, fn: str, *args, **kwargs):
        import importlib
        import json

        if self._proc is None:
            if "limits" in kwargs:
                from rewardloop.sandbox import Limits

                kwargs["limits"] = Limits(**kwargs["limits"])
            if fn == "run":
                from rewardloop.sandbox import default_sandbox

                target = default_sandbox().run
            else:
                module, _, name = fn.partition(":")
                target = getattr(importlib.import_module(module), name)
            return _plain(target(*args, **kwargs))
        self._proc.stdin.write(json.dumps({"fn": fn, "args": list(args), "kwargs": kwargs}) + "\n")
        self._proc.stdin.flush()
        reply = json.loads(self._proc.stdout.readline())
        if "ok" not in reply:
            raise RuntimeError(f"{reply['raised']}: {reply['message']}")
        return reply["ok"]

    def run_tests(self, code: str, tests, **kwargs) -> list[str]:
        """The statuses of :func:`rewardloop.sandbox.harness.run_tests` on this backend."""
        return [r["status"] for r in self("rewardloop.sandbox.harness:run_tests", code, tests, **kwargs)]

    def close(self) -> None:
        if self._proc is not None:
            self._proc.stdin.close()
            self._proc.wait(timeout=60)


def _backend_usable(name: str) -> str | None:
    import shutil

    if name == "unshare":
        return None if "unshare" in AVAILABLE else "isolation='unshare' needs root and util-linux"
    if os.geteuid() != 0 or not shutil.which("bwrap") or not os.path.exists("/usr/bin/python3"):
        return "needs root (to become nobody), bubblewrap and /usr/bin/python3"
    return None


@pytest.fixture(scope="session", params=["unshare", "bwrap-nonroot"])
def backend(request):
    """The red-team's two set-ups: root with unshare (the default sandbox of this process, which must be
    unshare) and an unprivileged caller whose default sandbox must be bwrap."""
    why = _backend_usable(request.param)
    if why:
        pytest.skip(why)
    b = Backend(request.param)
    if request.param == "unshare":
        from rewardloop.sandbox import default_sandbox

        assert default_sandbox().isolation == "unshare"
    else:
        assert b.isolation == "bwrap", b.isolation
    yield b
    b.close()

"""Shared fixtures: one sandbox per session (its mount holder and compile cache are reused), the isolation
backends available on this machine, and a helper that finds leftover processes by a unique argument."""

from __future__ import annotations

import contextlib
import os
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

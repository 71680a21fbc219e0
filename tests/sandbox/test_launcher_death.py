"""A run does not outlive the slot's launcher, even when nobody else is watching.

A live supervisor kills the run itself when its launcher's socket reaches end of file. This test takes the
supervisor out of the picture (SIGSTOP: it cannot act until the test is over) and SIGKILLs the launcher
while the program sleeps 600 s: the run must go with the launcher alone. Under ``unshare`` the run's PID 1
is the launcher's own reaper, which holds a parent-death SIGKILL, and a namespace dies with its PID 1.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from .test_supervisor_death import SUPERVISOR, _pids_named, _wait

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the backends run as root here")

SRC = Path(__file__).resolve().parents[2] / "src"


def _children(pid: int) -> list[int]:
    found = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{p}/stat") as fh:
                stat = fh.read()
                if int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
                    found.append(int(p))
    return found


def _launchers(supervisor: int) -> list[int]:
    found = []
    for pid in _children(supervisor):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as fh:
            if b"A launcher process" in fh.read():
                found.append(pid)
    return found


@pytest.mark.parametrize(
    "backend",
    [
        "unshare",
        pytest.param(
            "bwrap",
            marks=pytest.mark.xfail(
                strict=True,
                reason="known gap: bwrap --as-pid-1 runs setpriv as the namespace's PID 1, and its uid change "
                "clears the parent-death signal; only a live supervisor kills such a run",
            ),
        ),
    ],
)
def test_a_run_dies_with_its_killed_launcher(backend: str) -> None:
    if backend == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap not installed")
    comm = "rlla" + uuid.uuid4().hex[:10]  # at most 15 characters: the kernel's comm
    program = f"import ctypes, time\nctypes.CDLL(None).prctl(15, b'{comm}', 0, 0, 0)\ntime.sleep(600)\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    supervisor = subprocess.Popen([sys.executable, "-c", SUPERVISOR, backend, program], env=env)
    stopped = False
    try:
        assert _wait(lambda: bool(_pids_named(comm)), 120), "the program never started"
        launchers = _launchers(supervisor.pid)
        assert len(launchers) == 1, f"expected one launcher, found {launchers}"
        os.kill(supervisor.pid, signal.SIGSTOP)  # the supervisor cannot kill the run for us now
        stopped = True
        os.kill(launchers[0], signal.SIGKILL)
        # 60 s: 100x what it takes, 10x less than the program's sleep
        gone = _wait(lambda: not _pids_named(comm), 60)
        left = _pids_named(comm)
    finally:
        for pid in _pids_named(comm):  # ours: started by this test
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if stopped:
            os.kill(supervisor.pid, signal.SIGCONT)
        supervisor.kill()
        supervisor.wait(timeout=60)
    assert gone, f"the program outlived its launcher by 60 s (pids {left})"

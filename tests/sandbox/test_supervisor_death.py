"""A run does not outlive the process that supervises it.

The wall limit is enforced by the sandbox's own process. If that process is killed outright (SIGKILL: no
``close()``, no ``finally``), nobody bounds a program that sleeps, and ``cpu_s`` does not either. The launcher
therefore watches its socket to the sandbox while it waits for the run, and kills the run when the socket reaches
end of file. Found at the end of session 7: a killed test run had left a launcher, its bwrap child and a sleeping
program alive for 14 minutes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the backends run as root here")

SRC = Path(__file__).resolve().parents[2] / "src"

SUPERVISOR = """
import sys
from rewardloop.sandbox import Limits, Sandbox
code = sys.argv[2]
with Sandbox(isolation=sys.argv[1]) as sb:
    sb.run(code, "python", limits=Limits(wall_s=600, cpu_s=600))
"""


def _pids_named(comm: str) -> list[int]:
    found = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            with (
                contextlib.suppress(OSError),
                open(f"/proc/{p}/comm", encoding="utf-8", errors="replace") as fh,
            ):
                if fh.read().strip() == comm:
                    found.append(int(p))
    return found


def _wait(predicate, within_s: float) -> bool:
    give_up = time.monotonic() + within_s
    while time.monotonic() < give_up:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.mark.parametrize("backend", ["unshare", "bwrap"])
def test_a_run_dies_with_its_killed_supervisor(backend: str) -> None:
    if backend == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap not installed")
    comm = "rlsup" + uuid.uuid4().hex[:10]  # at most 15 characters: the kernel's comm
    program = (
        "import ctypes, time\n"
        f"ctypes.CDLL(None).prctl(15, b'{comm}', 0, 0, 0)\n"
        "time.sleep(600)\n"  # 600 s of sleep: a wall limit nobody enforces any more
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    supervisor = subprocess.Popen([sys.executable, "-c", SUPERVISOR, backend, program], env=env)
    try:
        assert _wait(lambda: bool(_pids_named(comm)), 120), "the program never started"
        supervisor.send_signal(signal.SIGKILL)
        supervisor.wait(timeout=60)
        # the run must go at once; 60 s is 100x what it takes, and 10x less than the program's sleep
        gone = _wait(lambda: not _pids_named(comm), 60)
        left = _pids_named(comm)
    finally:
        if supervisor.poll() is None:
            supervisor.kill()
        for pid in _pids_named(comm):  # ours: started by this test
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    assert gone, f"the program outlived its supervisor by 60 s (pids {left})"

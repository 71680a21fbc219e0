"""A pool of long-lived launcher processes, one per concurrent run ("slot"), each living inside that
slot's own cgroups (or in none, where no cgroup can be made: the launcher still gives every run a fresh
session keyring).

Why: moving a process into a cgroup (cgroup v1 in particular) waits for an RCU grace period and, while
it does, blocks every fork on the machine; per run that cost 10-20 ms and halved throughput at two
parallel runs. A launcher is moved once, when its slot is made; every run of the slot is then forked by
the launcher and is born inside the cgroups. The parent sends the command and the stdio descriptors over
a Unix socket (SCM_RIGHTS); the launcher answers with the pid, reaps the child, and reports its wait
status and resource usage. Limits are rewritten before each run, and counters (OOM kills, CPU time) are
read as differences.

Before each start the launcher joins a new, empty, anonymous session keyring (``keyctl(JOIN_SESSION_KEYRING,
NULL)``), which the child inherits: a run cannot see or change the caller's session keyring, nor one a
previous run filled. (Only the launcher's own keyring changes; the parent's threads keep theirs.) If the
kernel refuses, the run is not started.

The launcher's children start with ``oom_score_adj`` 1000 (raising it needs no privilege), so when the
cgroup, or the machine, runs out of memory the kernel kills the sandboxed programs first and never the
launcher. If a launcher dies anyway, the run is a SANDBOX_ERROR and the slot is replaced.

A launcher confines itself before it serves anything (``_launcher_main``): RLIMIT_CORE = 1, ``no_new_privs``
and the seccomp filter of :mod:`._seccomp`, all inherited by every process it starts and irrevocable. A
launcher that cannot confine itself never starts a run.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ._cgroups import CgroupRun, Cgroups
from ._process import Started

__all__ = ["LauncherPool", "Slot"]

log = logging.getLogger(__name__)

_MAX_MESSAGE = 1 << 24
_REAP_TIMEOUT_S = 10.0  # the supervisor only reaps after the exit (or a SIGKILL): this is a safety net
_READY_TIMEOUT_S = 30.0


@functools.cache
def _launcher_source() -> str:
    return (Path(__file__).parent / "_launcher_main.py").read_text(encoding="utf-8")


class Slot:
    """One launcher and the cgroups it lives in."""

    def __init__(self, cgroup: CgroupRun, seccomp: bytes) -> None:
        self.cgroup = cgroup
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            argv = [sys.executable, "-I", "-S", "-c", _launcher_source(), str(theirs.fileno()), seccomp.hex()]
            self.proc = subprocess.Popen(
                argv,
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                cwd="/",
                env={"PATH": os.defpath, "LANG": "C.UTF-8"},
            )
        self.sock = ours
        self.broken = False
        try:
            # it confines itself (seccomp filter, core limit) before anything else: nothing runs without
            self.sock.settimeout(_READY_TIMEOUT_S)
            ready = self.sock.recv(4096)
            self.sock.settimeout(None)
            if ready != b"ready":
                why = ready.decode(errors="replace")[6:] if ready else "it exited"
                raise OSError(f"the launcher could not confine itself: {why}")
            cgroup.join(self.proc.pid)
        except OSError:
            self.close()
            raise

    def start(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: str,
        stdin: int,
        stdout: int,
        stderr: int,
        isolate: Mapping[str, Any] | None = None,
    ) -> Started:
        """Start ``argv``; with ``isolate`` (the ``unshare`` backend's :meth:`isolate` part: namespaces,
        uid, resource limits, marker token, CPU limit of the whole run) the launcher builds the run's
        namespaces and confinement itself and ``exec``-s nothing but the program."""
        message: dict[str, Any] = {"argv": list(argv), "env": dict(env), "cwd": cwd}
        if isolate is not None:
            message["isolate"] = dict(isolate)
        request = json.dumps(message).encode()
        try:
            socket.send_fds(self.sock, [request], [stdin, stdout, stderr])
            reply = self._receive()
        except OSError:
            self.broken = True
            raise
        if "pid" not in reply:
            raise OSError(f"launcher could not start the command: {reply.get('error')}")
        # the socket turns readable when the launcher reports the exit, or when the launcher dies
        return Started(int(reply["pid"]), self._reap, direct=False, watch=self.sock.fileno())

    def _reap(self) -> tuple[int, float, int] | None:
        self.sock.settimeout(_REAP_TIMEOUT_S)
        try:
            reply = self._receive()
        except OSError:  # includes the timeout: the slot's state is unknown, so it is replaced
            self.broken = True
            return None
        finally:
            self.sock.settimeout(None)
        return int(reply["status"]), float(reply["cpu"]), int(reply["rss"])

    def _receive(self) -> dict[str, Any]:
        data = self.sock.recv(_MAX_MESSAGE)
        if not data:
            raise OSError("the launcher exited")
        reply = json.loads(data)
        if not isinstance(reply, dict):
            raise OSError("garbled launcher reply")
        return reply

    def kill_others(self) -> None:
        """Kill every process of the slot's cgroups except the launcher itself."""
        self.cgroup.kill_all(spare=self.proc.pid)

    def alive(self) -> bool:
        return not self.broken and self.proc.poll() is None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(OSError):
            self.proc.send_signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        self.cgroup.kill_all()
        self.cgroup.destroy()


class LauncherPool:
    """Slots on demand (at most one per concurrent run), reused across runs."""

    def __init__(self, cgroups: Cgroups, seccomp: bytes) -> None:
        self._cgroups = cgroups
        self._seccomp = seccomp
        self.last_error: str | None = None
        self._idle: queue.SimpleQueue[Slot] = queue.SimpleQueue()
        self._all: list[Slot] = []
        self._lock = threading.Lock()
        self._closed = False

    @contextlib.contextmanager
    def slot(self, memory_bytes: int | None, max_tasks: int) -> Iterator[Slot | None]:
        """A slot whose cgroups (if any) carry these limits, or None when no launcher can start."""
        slot = self._take()
        if slot is not None and not slot.cgroup.configure(memory_bytes, max_tasks + 1):
            self._discard(slot)  # e.g. the memory cap is below what the cgroup already holds
            slot = self._take(fresh=True)
            if slot is not None and not slot.cgroup.configure(memory_bytes, max_tasks + 1):
                self._discard(slot)
                slot = None
        try:
            yield slot
        finally:
            if slot is not None:
                slot.kill_others()
                if slot.alive() and not self._closed:
                    self._idle.put(slot)
                else:
                    self._discard(slot)

    def _take(self, fresh: bool = False) -> Slot | None:
        while not fresh:
            try:
                slot = self._idle.get_nowait()
            except queue.Empty:
                break
            if slot.alive():
                return slot
            self._discard(slot)
        # no cgroup (none can be made here): a launcher all the same, for the keyring and a cheap fork
        cgroup = self._cgroups.create() or CgroupRun({})
        try:
            slot = Slot(cgroup, self._seccomp)
        except OSError as exc:
            log.warning("could not start a sandbox launcher: %s", exc)
            self.last_error = str(exc)
            cgroup.destroy()
            return None
        with self._lock:
            self._all.append(slot)
        return slot

    def _discard(self, slot: Slot) -> None:
        with self._lock:
            if slot in self._all:
                self._all.remove(slot)
        slot.close()

    def close(self) -> None:
        self._closed = True
        with self._lock:
            slots, self._all = self._all, []
        for slot in slots:
            slot.close()

"""The uids runs get as root: a small pool shared by every process on the host, not a random uid per run.

Why: the kernel keeps a user keyring, a user-session keyring and a persistent keyring per uid, and each
uid's keys stay after its processes are gone. A random uid per run gave every run a fresh key quota and
left its keys behind for good (about 77 kB per run), and random uids collide after tens of thousands of
runs, so a later run could read an earlier run's keys. Here a process takes a uid by holding an
``flock`` on ``<lock dir>/<uid>`` (released by the kernel when the process dies, so a crash frees it)
and keeps it for its lifetime, handing it to one run at a time; the launcher empties the uid's keyrings
before each run (``_launcher``). The number of uids that ever hold keys is the number of runs that were
ever at once on the host, not the number of runs.

The range is ``0x70000000`` .. ``0x70000000 + 65535``: above systemd-nspawn's container range
(``524288`` .. ``1879048191``), below its "foreign" range and below 2**31 (tools that read uids as signed
32-bit numbers). A uid whose keyrings cannot be emptied (a run took away the write permission) is
retired: this process keeps its lock, and no run gets it again.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

__all__ = ["UID_BASE", "UID_COUNT", "Janitor", "UidPool"]

log = logging.getLogger(__name__)

UID_BASE = 0x70000000
UID_COUNT = 1 << 16
_LOCK_DIRS = ("/run/rewardloop-uids", "/var/lock/rewardloop-uids", "/tmp/rewardloop-uids")


def _lock_dir() -> str:
    """A directory only root can write, for the uid locks."""
    for path in _LOCK_DIRS:
        with contextlib.suppress(OSError):
            os.makedirs(path, mode=0o700, exist_ok=True)
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == 0 and not st.st_mode & 0o022:
                return path
    raise OSError("no root-owned directory for the sandbox uid locks (tried " + ", ".join(_LOCK_DIRS) + ")")


class Janitor:
    """The root helper (``_janitor_main.py``, run as source) that empties a uid's keyrings."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None

    def clear(self, uid: int) -> bool:
        """Empty ``uid``'s user, user-session and persistent keyrings; False when that failed."""
        with self._lock:
            try:
                proc = self._start()
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(f"{uid}\n")
                proc.stdin.flush()
                answer = proc.stdout.readline().strip()
            except (OSError, ValueError) as exc:
                log.warning("sandbox key janitor: %s", exc)
                self._stop()
                return False
        if answer != "ok":
            log.warning(
                "sandbox key janitor: cannot empty the keyrings of a run's uid (%s)", answer or "died"
            )
        return answer == "ok"

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        source = (Path(__file__).parent / "_janitor_main.py").read_text(encoding="utf-8")
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", source],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
            cwd="/",
            env={"PATH": os.defpath, "LANG": "C.UTF-8"},
        )
        assert self._proc.stdout is not None
        first = self._proc.stdout.readline().strip()
        if first != "ok":
            self._stop()
            raise OSError(f"the key janitor did not start: {first or 'no answer'}")
        return self._proc

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(OSError, ValueError):
                if proc.stdin:
                    proc.stdin.close()
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            for stream in (proc.stdout,):
                with contextlib.suppress(OSError, ValueError):
                    if stream:
                        stream.close()

    def close(self) -> None:
        with self._lock:
            self._stop()


class UidPool:
    """uids this process holds the host-wide lock of; :meth:`take` gives one to a run (its keyrings
    empty), :meth:`give` takes it back, emptying its keyrings, or retires it when that fails.

    The emptying happens on a thread of the pool's own, after the run's result is back with the caller
    (it costs a round trip to the janitor). A uid being emptied is in nobody's hands: :meth:`take` waits
    for it rather than locking a new uid, so the uids in use stay as few as the runs at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._free: list[int] = []
        self._clearing: list[int] = []  # given back, their keyrings not emptied yet
        self._held: dict[int, int] = {}  # uid -> the descriptor holding its lock
        self._dir: str | None = None
        self._janitor = Janitor()
        self._worker: threading.Thread | None = None

    def take(self) -> int:
        with self._lock:
            while not self._free and self._clearing:
                self._changed.wait()
            if self._free:
                return self._free.pop()
        for _ in range(64):
            with self._lock:
                uid = self._lock_new()
            if self._janitor.clear(uid):  # a process that died may have left the uid full of keys
                return uid
        raise OSError("cannot empty the keyrings of any sandbox uid")

    def give(self, uid: int, *, retire: bool = False) -> None:
        """After the run (all its processes gone): empty the uid's keyrings and keep it for the next run.
        A uid that cannot be emptied, or whose run ended in a sandbox failure (``retire``: a process of
        it may be left), is retired: its lock stays held, so nobody gets it again."""
        if retire:
            return
        with self._lock:
            self._clearing.append(uid)
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._clear_given, name="rewardloop-uid-janitor", daemon=True
                )
                self._worker.start()
            self._changed.notify_all()

    def _clear_given(self) -> None:
        while True:
            with self._lock:
                if not self._clearing:
                    self._worker = None
                    return
                uid = self._clearing[0]
            ok = self._janitor.clear(uid)
            with self._lock:
                self._clearing.remove(uid)
                if ok and uid in self._held:
                    self._free.append(uid)
                self._changed.notify_all()

    def _lock_new(self) -> int:
        if self._dir is None:
            self._dir = _lock_dir()
        # lowest first: the uids ever used stay as few as the runs that were ever at once on the host
        for i in range(UID_COUNT):
            uid = UID_BASE + i
            if uid in self._held:
                continue
            fd = os.open(os.path.join(self._dir, str(uid)), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self._held[uid] = fd
            return uid
        raise OSError(f"all {UID_COUNT} sandbox uids are in use on this host")

    def close(self) -> None:
        worker = self._worker
        if worker is not None:
            worker.join(timeout=10)
        self._janitor.close()
        with self._lock:
            for fd in self._held.values():
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._held.clear()
            self._free.clear()

"""cgroups v1/v2 for the sandbox's runs (root only): a memory cap over a run's whole process tree, a task cap
and CPU accounting, in cgroups made under this process's own; used by :mod:`._launcher` (whose launchers
live inside them) and :mod:`._sandbox`."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import sys
import threading
from collections.abc import Mapping, Sequence

__all__ = ["CgroupRun", "Cgroups", "pid_alive"]

log = logging.getLogger(__name__)


class CgroupRun:
    """One cgroup per controller (the same directory for all of them on v2) that processes can join.

    ``configure`` writes the limits and takes a baseline of the counters, so ``oom_killed``/``cpu_s`` report
    what happened since; the cgroups of a launcher slot are reused run after run this way.
    """

    def __init__(self, dirs: Mapping[str, tuple[str, int]]) -> None:
        self._dirs = dict(dirs)  # controller -> (directory, version)
        self._oom_base = 0
        self._cpu_base = 0.0

    @property
    def dirs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d for d, _ in self._dirs.values()))

    @property
    def caps_memory(self) -> bool:
        """Does a memory cgroup cap the whole process tree (so no per-process RLIMIT_DATA is needed)?"""
        return "memory" in self._dirs

    def join(self, pid: int) -> None:
        for d in self.dirs:
            _write(os.path.join(d, "cgroup.procs"), str(pid))

    def configure(self, memory_bytes: int | None, max_tasks: int) -> bool:
        """Set the limits of the next run; False when the cgroup cannot take them."""
        try:
            if "memory" in self._dirs:
                d, version = self._dirs["memory"]
                _limit_memory(d, version, memory_bytes)
            if "pids" in self._dirs:
                _write(os.path.join(self._dirs["pids"][0], "pids.max"), str(max_tasks))
        except OSError as exc:
            log.debug("cannot set cgroup limits: %s", exc)
            return False
        self._oom_base = self._oom_count()
        self._cpu_base = self._cpu_total() or 0.0
        return True

    def oom_killed(self) -> bool:
        return self._oom_count() > self._oom_base

    def cpu_s(self) -> float | None:
        total = self._cpu_total()
        return None if total is None else max(0.0, total - self._cpu_base)

    def _oom_count(self) -> int:
        if "memory" not in self._dirs:
            return 0
        d, version = self._dirs["memory"]
        events = os.path.join(d, "memory.events" if version == 2 else "memory.oom_control")
        return _counter(events, "oom_kill") or 0

    def _cpu_total(self) -> float | None:
        if "cpuacct" not in self._dirs:
            return None
        d, version = self._dirs["cpuacct"]
        if version == 2:
            usec = _counter(os.path.join(d, "cpu.stat"), "usage_usec")
            return None if usec is None else usec / 1e6
        try:
            with open(os.path.join(d, "cpuacct.usage")) as fh:
                return int(fh.read()) / 1e9
        except (OSError, ValueError):
            return None

    def kill_all(self, spare: int | None = None) -> None:
        for d in self.dirs:
            for pid in _read_pids(os.path.join(d, "cgroup.procs")):
                if pid != spare:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)

    def destroy(self) -> None:
        for d in self.dirs:
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    self.kill_all()
                    threading.Event().wait(0.01)


def _counter(path: str | None, key: str) -> int | None:
    """The value of ``key`` in a "key value" per line file."""
    if path is None:
        return None
    try:
        with open(path) as fh:
            for line in fh:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return None


def _read_pids(path: str) -> list[int]:
    try:
        with open(path) as fh:
            return [int(x) for x in fh.read().split()]
    except (OSError, ValueError):
        return []


_CONTROLLERS = ("memory", "pids", "cpuacct")
_LIMIT_FILE = {
    1: {"memory": "memory.limit_in_bytes", "pids": "pids.max", "cpuacct": "cpuacct.usage"},
    2: {"memory": "memory.max", "pids": "pids.max", "cpuacct": "cpu.stat"},
}


class Cgroups:
    """Makes cgroups under this process's own ones (v1 or v2), where root can: a memory cap for the whole
    process tree, a task cap, and CPU accounting that sees every descendant."""

    def __init__(self, controllers: Sequence[str] = _CONTROLLERS) -> None:
        self._parents: dict[str, tuple[str, int]] = {}  # controller -> (parent directory, version)
        self._prefix = f"rewardloop-{os.getpid()}-{secrets.token_hex(3)}"
        self._counter = 0
        self._lock = threading.Lock()
        if os.geteuid() == 0 and sys.platform.startswith("linux"):
            for controller in controllers:
                found = _find_controller(controller)
                if found:
                    self._parents[controller] = found
                    _remove_stale(found[0])

    @property
    def available(self) -> bool:
        return bool(self._parents)

    def has(self, controller: str) -> bool:
        return controller in self._parents

    def describe(self) -> str:
        return ", ".join(f"{c} (v{v})" for c, (_, v) in self._parents.items()) or "none"

    def create(self) -> CgroupRun | None:
        """New, empty cgroups (one per controller), or None when none can be made."""
        if not self._parents:
            return None
        with self._lock:
            self._counter += 1
            name = f"{self._prefix}-{self._counter}"
        made: dict[str, tuple[str, int]] = {}
        try:
            for controller, (parent, version) in self._parents.items():
                d = os.path.join(parent, name)
                if d not in (m for m, _ in made.values()):
                    os.mkdir(d)
                made[controller] = (d, version)
        except OSError as exc:
            log.debug("cannot create cgroups: %s", exc)
            CgroupRun(made).destroy()
            return None
        return CgroupRun(made)


def _remove_stale(parent: str) -> None:
    """Remove the (empty) cgroups left by sandboxes of processes that died without cleaning up."""
    with contextlib.suppress(OSError):
        for name in os.listdir(parent):
            if name.startswith("rewardloop-") and not pid_alive(name.split("-")[1]):
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(parent, name))


def pid_alive(pid: str) -> bool:
    """Does a process with this (decimal string) pid exist? Unparseable counts as alive: keep it."""
    return not pid.isdigit() or os.path.exists(f"/proc/{pid}")


def _limit_memory(d: str, version: int, memory_bytes: int | None) -> None:
    if version == 2:
        _write(os.path.join(d, "memory.max"), "max" if memory_bytes is None else str(memory_bytes))
        with contextlib.suppress(OSError):
            _write(os.path.join(d, "memory.swap.max"), "0")
        return
    value = "-1" if memory_bytes is None else str(memory_bytes)
    mem, memsw = os.path.join(d, "memory.limit_in_bytes"), os.path.join(d, "memory.memsw.limit_in_bytes")
    if not os.path.exists(memsw):
        _write(mem, value)
        return
    try:  # memsw must stay >= mem: lower mem first, raise memsw first
        _write(mem, value)
        _write(memsw, value)
    except OSError:
        _write(memsw, value)
        _write(mem, value)


def _write(path: str, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


def _find_controller(controller: str) -> tuple[str, int] | None:
    """(the directory of this process's cgroup for ``controller``, hierarchy version), if we can make
    children there that carry the controller's limit file."""
    own = _own_cgroups()
    for mount_point, fstype, options in _cgroup_mounts():
        if fstype == "cgroup" and controller in options.split(","):
            path, version = own.get(controller), 1
        elif fstype == "cgroup2":
            path, version = own.get(""), 2
        else:
            continue
        if path is None:
            continue
        parent = os.path.join(mount_point, path.lstrip("/"))
        if _can_create(parent, _LIMIT_FILE[version][controller]):
            return parent, version
    return None


def _can_create(parent: str, limit_file: str) -> bool:
    probe = os.path.join(parent, f"rewardloop-probe-{os.getpid()}-{secrets.token_hex(3)}")
    try:
        os.mkdir(probe)
    except OSError:
        return False
    try:
        return os.path.exists(os.path.join(probe, limit_file))
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(probe)


def _own_cgroups() -> dict[str, str]:
    """controller -> path of this process's cgroup ("" is the v2 unified hierarchy)."""
    own: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as fh:
            for line in fh:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for c in controllers.split(",") if controllers else [""]:
                    own[c] = path
    except (OSError, ValueError):
        pass
    return own


def _cgroup_mounts() -> list[tuple[str, str, str]]:
    """(mount point, fs type, super options) of every cgroup mount, from /proc/self/mountinfo."""
    mounts = []
    try:
        with open("/proc/self/mountinfo") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                    mounts.append((fields[4].replace("\\040", " "), tail[0], tail[2]))
    except OSError:
        pass
    return mounts

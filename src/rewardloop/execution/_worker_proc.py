"""One worker process as the parent sees it: how it is launched (:class:`SubprocessWorker`), its record
(:class:`Worker`: state, current task, when the task started, its deadline), the task record (:class:`Task`),
and the helpers that kill a process group, read a pidfd and name an exit."""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import pickle
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, cast

from .._validate import Choice, Int, Number
from ..errors import ScoringError, WorkerCrashed
from ._worker_main import EXIT_OOM, STOP, SYS_PATH_ENV, RemoteTraceback, safe_repr, worker_main

__all__ = [
    "BOOTING",
    "BOOT_TIMEOUT_S",
    "BUSY",
    "DEAD",
    "IDLE",
    "LOAD_ALLOWANCE_S",
    "STOPPING",
    "PoolStats",
    "SubprocessWorker",
    "Task",
    "Worker",
    "check_pool_args",
    "check_timeout",
    "describe",
    "exit_reason",
    "fail_task",
    "killpg",
    "open_pidfd",
    "rebuild_exception",
    "resolve_reply",
    "spawn_worker",
    "start_time",
]

LOAD_ALLOWANCE_S = 60.0  # extra time a task may spend being unpickled (imports) before its clock starts
BOOT_TIMEOUT_S = 60.0  # how long a new worker may take to report ready before it is killed


class SubprocessWorker:
    """A worker process started with ``subprocess`` instead of :mod:`multiprocessing`.

    ``spawn`` and ``forkserver`` children re-import the parent's ``__main__``: a script without an
    ``if __name__ == "__main__"`` guard then re-runs itself in every worker and the pool cannot start.
    This launcher runs a fresh interpreter that imports only rewardloop (and what tasks need), with the
    parent's ``sys.path``; it also works from daemonic processes. It offers the small part of the
    ``multiprocessing.Process`` interface the pool uses.
    """

    sentinel = None  # liveness comes from the pidfd, or from polling exitcode

    def __init__(self, child_fd: int, memory_limit_mb: int | None, recycle_memory_mb: int | None) -> None:
        import subprocess

        env = {**os.environ, SYS_PATH_ENV: json.dumps([p for p in sys.path if p])}
        code = "from rewardloop.execution._worker_main import subprocess_main; subprocess_main()"
        memory = "-" if memory_limit_mb is None else str(memory_limit_mb)
        recycle = "-" if recycle_memory_mb is None else str(recycle_memory_mb)
        self._popen = subprocess.Popen(
            [sys.executable, "-c", code, str(child_fd), memory, recycle],
            pass_fds=(child_fd,),
            env=env,
            close_fds=True,
        )
        self.pid = self._popen.pid

    @property
    def exitcode(self) -> int | None:
        return self._popen.poll()  # negative for a signal, as multiprocessing reports it

    def join(self, timeout: float | None = None) -> None:

        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout)

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class PoolStats:
    """Counters of a :class:`WorkerPool` since it was created (the ``*_alive``/``tasks_*`` are current)."""

    workers_started: int = 0
    workers_alive: int = 0
    killed_timeout: int = 0
    killed_cancelled: int = 0
    crashed: int = 0  # died while holding a task or while idle (includes oom)
    oom: int = 0
    recycled: int = 0
    tasks_done: int = 0  # tasks that finished in a worker, with a result or an exception
    tasks_queued: int = 0
    tasks_running: int = 0


class Task:
    __slots__ = ("claimed", "future", "name", "payload", "timeout")

    def __init__(self, future: Future[Any], payload: bytes, timeout: float | None, name: str) -> None:
        self.future = future
        self.payload = payload
        self.timeout = timeout
        self.name = name
        self.claimed = False  # set_running_or_notify_cancel() already called


BOOTING, IDLE, BUSY, STOPPING, DEAD = "booting", "idle", "busy", "stopping", "dead"


class Worker:
    """Parent-side record of one worker process. Owned by the dispatcher thread."""

    __slots__ = (
        "conn",
        "done",
        "expected_exit",
        "pid",
        "pidfd",
        "process",
        "recycle",
        "sent_at",
        "started_at",
        "state",
        "state_deadline",
        "task",
    )

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn: Connection | None = conn
        self.pid: int = process.pid
        self.pidfd: int | None = open_pidfd(self.pid)
        self.state = BOOTING
        self.task: Task | None = None
        self.sent_at = 0.0
        self.started_at: float | None = None
        self.done = 0
        self.recycle = False  # it reported high memory: replace it once its task is answered
        self.expected_exit = False  # we stopped or killed it: its exit is not a crash
        self.state_deadline = time.monotonic() + BOOT_TIMEOUT_S  # for booting and stopping

    @property
    def watch(self) -> Any:
        """What becomes ready when the process exits."""
        return self.pidfd if self.pidfd is not None else self.process.sentinel

    def deadline(self) -> float:
        """When the dispatcher must act on this worker next (kill it), or inf."""
        if self.state in (BOOTING, STOPPING):
            return self.state_deadline
        task = self.task
        if self.state != BUSY or task is None or task.timeout is None:
            return math.inf
        if self.started_at is None:
            return self.sent_at + task.timeout + LOAD_ALLOWANCE_S
        return self.started_at + task.timeout

    def stop(self, grace_s: float) -> None:
        """Ask an idle worker to exit; it is killed if it has not within the grace period."""
        self.state, self.expected_exit = STOPPING, True
        self.state_deadline = time.monotonic() + grace_s
        conn = self.conn
        if conn is None:  # no pipe to ask through
            killpg(self.pid)
            return
        try:
            conn.send_bytes(STOP)
        except OSError:
            killpg(self.pid)

    def close_conn(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.close()
            self.conn = None


def fail_task(w: Worker, task: Task, exc: BaseException) -> None:
    """Fail ``task`` with ``exc``, which then carries ``exec_s``: how long the task ran in worker ``w``, from
    its start there to now (its end or kill); 0.0 if it never started. Time queued is not execution."""
    started = w.started_at
    with contextlib.suppress(AttributeError, TypeError):
        exc.exec_s = 0.0 if started is None else max(0.0, time.monotonic() - started)  # type: ignore[attr-defined]
    task.future.set_exception(exc)


def start_time(message: bytes, sent_at: float) -> float:
    """When a task started, from its ``_STARTED`` message: the worker's own clock reading if it is
    plausible (``time.monotonic`` is system-wide on Linux and macOS), else now."""
    now = time.monotonic()
    if len(message) != 9:
        return now
    (started,) = struct.unpack("d", message[1:])
    return started if sent_at - 1.0 <= started <= now else now


def open_pidfd(pid: int) -> int | None:
    opener: Callable[[int], int] | None = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return opener(pid)
    except OSError:
        return None


def killpg(pid: int) -> None:
    """SIGKILL the worker's process group (the worker and what it spawned), or the worker alone."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def exit_reason(exitcode: int | None) -> str:
    if exitcode is None:
        return "exit status unknown"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "signal"
        return f"killed by signal {name} ({-exitcode})"
    if exitcode == EXIT_OOM:
        return "ran out of memory (MemoryError in the worker loop)"
    return f"exited with code {exitcode}"


def describe(fn: object) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", None)
    if owner is not None and name and not isinstance(owner, type(sys)):
        return f"{type(owner).__qualname__}.{name}"
    return getattr(fn, "__qualname__", None) or name or safe_repr(fn)


def check_timeout(timeout: object) -> float | None:
    return cast("float | None", Number(positive=True, optional=True).check(timeout, "timeout"))


def spawn_worker(ctx: Any, memory_limit_mb: int | None, recycle_memory_mb: int | None) -> Worker:
    """Start one worker process (``ctx`` None: the subprocess launcher, else a multiprocessing context)."""
    if ctx is None:
        import socket

        parent_sock, child_sock = socket.socketpair()
        parent_conn = Connection(parent_sock.detach())
        try:
            process: Any = SubprocessWorker(child_sock.fileno(), memory_limit_mb, recycle_memory_mb)
        except BaseException:
            parent_conn.close()
            raise
        finally:
            child_sock.close()
        return Worker(process, parent_conn)
        return
    parent_conn, child_conn = ctx.Pipe(duplex=True)
    try:
        process = ctx.Process(
            target=worker_main,
            args=(child_conn, memory_limit_mb, recycle_memory_mb),
            name="rewardloop-worker",
            daemon=False,  # scorers may start processes of their own
        )
        process.start()
    except BaseException:
        parent_conn.close()
        raise
    finally:
        child_conn.close()
    return Worker(process, parent_conn)


def resolve_reply(w: Worker, task: Task, data: bytes, memory_limit_mb: int | None) -> str:
    """Resolve a task's future from the worker's reply; return the reply kind (``"oom"``: count it)."""
    try:
        msg = pickle.loads(data)
        kind: str = msg[0]
    except Exception as exc:
        fail_task(
            w, task, ScoringError(f"the reply of {task.name} cannot be unpickled in the caller: {exc!r}")
        )
        return "error"
    if kind == "ok":
        task.future.set_result(msg[1])
    elif kind == "exc":
        fail_task(w, task, rebuild_exception(task, msg[1], msg[2]))
    elif kind == "text":
        _, type_name, text, tb = msg
        err = ScoringError(
            f"{task.name} raised {type_name}, which cannot be pickled: {text}\n\nworker traceback:\n{tb}"
        )
        err.__cause__ = RemoteTraceback(tb)
        fail_task(w, task, err)
    elif kind == "oom":
        limit = f"memory_limit_mb={memory_limit_mb}" if memory_limit_mb else "no memory cap"
        err = WorkerCrashed(f"{task.name} ran out of memory in worker {w.pid} ({limit})", oom=True)
        if msg[1]:
            err.__cause__ = RemoteTraceback(msg[1])
        fail_task(w, task, err)
    else:  # "exit"
        fail_task(w, task, WorkerCrashed(f"{task.name} called sys.exit({msg[1]}) in worker {w.pid}"))
    return kind


def rebuild_exception(task: Task, blob: bytes, tb: str) -> BaseException:
    exc: object
    try:
        exc = pickle.loads(blob)
    except Exception as load_error:
        exc = ScoringError(
            f"{task.name} raised an exception that cannot be unpickled in the caller ({load_error!r})"
            f"\n\nworker traceback:\n{tb}"
        )
    if not isinstance(exc, BaseException):
        exc = ScoringError(f"{task.name} failed: {safe_repr(exc)}")
    exc.__cause__ = RemoteTraceback(tb)
    return exc


START_METHODS = ("subprocess", *multiprocessing.get_all_start_methods())


def check_pool_args(
    size: object,
    max_tasks_per_worker: object,
    memory_limit_mb: object,
    recycle_memory_mb: object,
    start_method: object,
) -> None:
    """Raise ``ConfigError`` naming the first bad :class:`WorkerPool` argument and what is allowed."""
    Int(minimum=1).check(size, "size")
    Int(minimum=1, optional=True).check(max_tasks_per_worker, "max_tasks_per_worker")
    Int(minimum=64, optional=True).check(memory_limit_mb, "memory_limit_mb")
    Int(minimum=1, optional=True).check(recycle_memory_mb, "recycle_memory_mb")
    Choice(START_METHODS).check(start_method, "start_method")

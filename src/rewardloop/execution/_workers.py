"""Long-lived, killable worker processes: the isolation core of the execution layer.

:class:`WorkerPool` runs picklable functions in worker processes and guarantees that no task can stall
its caller (DESIGN §3, contract 2):

* **Deadlines count execution, not queueing.** The clock of a task starts when a worker has loaded it
  (unpickled the function and its arguments, which may import modules) and is about to call it.
  Loading itself gets a generous allowance (``timeout + 60 s``) so a hung import cannot stall forever.
* **Overrun = SIGKILL.** A worker past its deadline is killed together with its whole process group
  (scorers may spawn), the task fails with :class:`~rewardloop.errors.ScoringTimeout`, and a
  replacement worker is started.
* **Crashes fail one task.** A worker that dies while holding a task (segfault, ``os._exit``, the
  kernel OOM killer) fails only that task, with :class:`~rewardloop.errors.WorkerCrashed` (``oom=True``
  for a ``MemoryError``, the memory cap, or an unexplained SIGKILL, which on Linux is almost always the
  OOM killer); the pool heals and the other tasks go on.
* **Exceptions propagate with their type.** The function's own exception is pickled back and re-raised
  in the caller, with the worker-side traceback attached as ``__cause__`` (:class:`RemoteTraceback`).
  An exception that cannot be pickled becomes a :class:`~rewardloop.errors.ScoringError` carrying its
  repr and traceback text. ``sys.exit()`` in a task is reported as ``WorkerCrashed``.
* **Tasks run in the worker's main thread**, so ``signal``-based libraries (math-verify's
  ``signal.alarm`` timeouts) work there.
* **Memory cap.** ``memory_limit_mb`` sets ``RLIMIT_DATA`` in each worker on Linux (private writable
  memory: heap and anonymous mappings). Unlike ``RLIMIT_AS`` it does not count reserved-but-unused address
  space, so numpy, OpenBLAS and even torch still import under a few hundred MB. Elsewhere ``RLIMIT_AS``
  is set, which macOS does not enforce. Workers also default ``OMP_NUM_THREADS``,
  ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` (and friends) to 1 unless already set: a scorer scores
  one sample, and N workers times M BLAS threads oversubscribes the machine.
* **Recycling.** A worker is replaced after ``max_tasks_per_worker`` tasks, and (``recycle_memory_mb``)
  once its resident memory is above a threshold, checked after each task: leaks in scorers stay
  bounded without paying a re-import every few hundred samples.

Design: one duplex pipe per worker and one dispatcher thread in the parent. The dispatcher hands queued
tasks to idle workers, records when each task starts, and waits (``multiprocessing.connection.wait``) on
the pipes, on a pidfd per worker (Linux; the process sentinel elsewhere), on a wake-up pipe, and on the
nearest deadline. All worker bookkeeping belongs to that thread; callers only touch the queue, under a
lock, so ``submit``/``call`` work from any thread, ``acall`` from any event loop, and the pool works in a
process that is itself a worker or a Ray actor. Workers are started lazily, by the dispatcher thread,
on first use; nothing happens at import time.

Limits (what this does *not* do):

* It is isolation against hangs and crashes of trusted scorer code, not a sandbox: a task can read
  files, use the network, or raise its own resource limits' soft values. Untrusted code goes to
  ``rewardloop.sandbox``.
* Children a task spawns are killed with the worker only while they stay in its process group; a child
  that calls ``setsid()``/``setpgid()`` escapes.
* POSIX only (process groups, ``resource``). Functions and arguments must pickle, and functions must be
  importable by their module path in a fresh interpreter (not defined in ``__main__``): the default
  ``subprocess`` launcher never imports the caller's script, so a script without a ``__main__`` guard
  works (``spawn`` would re-run it in every worker).
* Workers are not daemonic (so scorers may use ``multiprocessing`` themselves). With a ``multiprocessing``
  start method, a process that is itself a *daemonic* ``multiprocessing`` child cannot start them (its
  tasks fail with ``WorkerCrashed``); the default ``subprocess`` launcher has no such restriction.
* On Linux a worker is SIGKILLed if the parent thread that started it (the dispatcher) dies, so a killed
  trainer does not leave workers behind.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import math
import multiprocessing
import os
import pickle
import signal
import struct
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

from ..errors import ConfigError, ScoringError, ScoringTimeout, WorkerCrashed

__all__ = ["DEFAULT_MAX_TASKS_PER_WORKER", "PoolStats", "RemoteTraceback", "WorkerPool", "default_pool"]

_log = logging.getLogger(__name__)

T = TypeVar("T")

_PICKLE = pickle.HIGHEST_PROTOCOL
# Control messages. Pickled messages start with b"\x80", so these one-byte frames cannot collide.
_READY = b"R"  # worker -> parent: booted, waiting for tasks
_STARTED = b"S"  # worker -> parent: task loaded, the deadline starts now (+ the worker's clock, 8 bytes)
_MEMORY_HIGH = b"M"  # worker -> parent, before a reply: replace me once this task is answered
_STOP = b"Q"  # parent -> worker: exit cleanly
_EXIT_OOM = 87  # exit code of a worker whose own loop ran out of memory

_THREAD_ENV = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
_LOAD_ALLOWANCE_S = 60.0  # extra time a task may spend being unpickled (imports) before its clock starts
_STOP_GRACE_S = 2.0  # how long a stopped worker may take to exit before it is killed
_BOOT_TIMEOUT_S = 60.0  # how long a new worker may take to report ready before it is killed
_BOOT_ATTEMPTS = 3  # consecutive start-up failures before queued tasks are failed
_POLL_S = 1.0  # liveness polling period where pidfds are unavailable
_SYS_PATH_ENV = "REWARDLOOP_WORKER_SYS_PATH"  # the parent's sys.path, for subprocess-launched workers
_START_METHODS = ("subprocess", *multiprocessing.get_all_start_methods())
_TB_CHARS = 8000  # traceback text kept from a worker
# Replacing a worker costs a fresh interpreter plus re-importing and re-warming what its tasks use
# (math-verify: ~1 s of imports, then sympy's and ANTLR's caches, which halve later samples' cost), so
# recycling by count is a safety net for slow leaks; growth is caught by ``recycle_memory_mb``.
DEFAULT_MAX_TASKS_PER_WORKER = 10_000

# ----------------------------------------------------------------------------------------------------
# worker side


def _worker_main(conn: Connection, memory_limit_mb: int | None, recycle_memory_mb: int | None = None) -> None:
    """Entry point of a worker process: set up, then serve tasks one at a time until told to stop."""
    for name in _THREAD_ENV:
        os.environ.setdefault(name, "1")
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)  # own process group: a kill on timeout also reaches the children a task spawned
    _die_with_parent()
    if memory_limit_mb is not None:
        _limit_memory(memory_limit_mb)
    try:
        conn.send_bytes(_READY)
        memory_high = _rss_reader(recycle_memory_mb)
        while _serve_one(conn, memory_high):
            pass
    except MemoryError:
        os._exit(_EXIT_OOM)
    except (EOFError, OSError):
        pass  # the parent went away


def _subprocess_main() -> None:
    """Entry point of a worker started by :class:`_SubprocessWorker` (``python -c``): no ``__main__`` re-import."""
    import json

    fd, memory, recycle = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    paths = json.loads(os.environ.pop(_SYS_PATH_ENV, "[]"))
    sys.path[:] = [*paths, *(p for p in sys.path if p not in paths)]
    _worker_main(
        Connection(fd), None if memory == "-" else int(memory), None if recycle == "-" else int(recycle)
    )


class _SubprocessWorker:
    """A worker process started with ``subprocess`` instead of :mod:`multiprocessing`.

    ``spawn`` and ``forkserver`` children re-import the parent's ``__main__``: a script without an
    ``if __name__ == "__main__"`` guard then re-runs itself in every worker and the pool cannot start.
    This launcher runs a fresh interpreter that imports only rewardloop (and what tasks need), with the
    parent's ``sys.path``; it also works from daemonic processes. It offers the small part of the
    ``multiprocessing.Process`` interface the pool uses.
    """

    sentinel = None  # liveness comes from the pidfd, or from polling exitcode

    def __init__(self, child_fd: int, memory_limit_mb: int | None, recycle_memory_mb: int | None) -> None:
        import json
        import subprocess

        env = {**os.environ, _SYS_PATH_ENV: json.dumps([p for p in sys.path if p])}
        code = "from rewardloop.execution._workers import _subprocess_main; _subprocess_main()"
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
        import subprocess

        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout)

    def close(self) -> None:
        pass


def _die_with_parent() -> None:
    """Linux: ask for SIGKILL when the parent thread that started this worker exits."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except Exception:  # best effort: the pipe's EOF still stops an idle worker
        return


def _limit_memory(memory_limit_mb: int) -> None:
    import resource

    which = resource.RLIMIT_DATA if sys.platform.startswith("linux") else resource.RLIMIT_AS
    limit = memory_limit_mb << 20
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(which, (limit, limit))


def _rss_reader(recycle_memory_mb: int | None) -> Callable[[], bool] | None:
    """A check "is this worker's resident memory above ``recycle_memory_mb``?" (None: no check).

    Linux: the current RSS from ``/proc/self/statm`` (one ``pread`` on a descriptor kept open, a few
    microseconds). Not ``getrusage``'s peak: on Linux that peak survives ``exec`` and starts at the
    parent's RSS, so every worker of a large trainer would look "over". Elsewhere the peak is used.
    """
    if recycle_memory_mb is None:
        return None
    limit = recycle_memory_mb << 20
    try:
        fd = os.open("/proc/self/statm", os.O_RDONLY)
        page = os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        import resource

        unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB elsewhere
        return lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit > limit

    def over() -> bool:
        try:
            return int(os.pread(fd, 128, 0).split()[1]) * page > limit
        except (OSError, ValueError, IndexError):
            return False

    return over


def _serve_one(conn: Connection, memory_high: Callable[[], bool] | None = None) -> bool:
    """Receive one task, run it in this (main) thread, send the reply. False when told to stop."""
    data = conn.recv_bytes()
    if data == _STOP:
        return False
    try:
        fn, args, kwargs = pickle.loads(data)
    except MemoryError:
        raise
    except BaseException as exc:
        conn.send_bytes(_pack_exception(exc, "could not load the task in the worker: "))
        return True
    del data
    # The start time travels with the message: a parent whose dispatcher thread is slow to read it
    # (another thread holding the GIL in a long C call) still starts the deadline when the task started.
    conn.send_bytes(_STARTED + struct.pack("d", time.monotonic()))
    reply = _run_task(fn, args, kwargs)
    del fn, args, kwargs
    if memory_high is not None and memory_high():
        conn.send_bytes(_MEMORY_HIGH)
    conn.send_bytes(reply)
    return True


def _run_task(fn: Callable[..., Any], args: tuple, kwargs: dict) -> bytes:
    oom_tb = None
    try:
        result = fn(*args, **kwargs)
    except MemoryError as exc:
        oom_tb = _format_tb(exc, guard=True)
    except SystemExit as exc:
        return pickle.dumps(("exit", repr(exc.code)), _PICKLE)
    except BaseException as exc:
        return _pack_exception(exc)
    else:
        return _pack_result(result)
    # here, outside the except clause, the failed task's frames are released before we reply
    return pickle.dumps(("oom", oom_tb), _PICKLE)


def _pack_result(result: Any) -> bytes:
    try:
        return pickle.dumps(("ok", result), _PICKLE)
    except MemoryError:
        return pickle.dumps(("oom", ""), _PICKLE)
    except Exception as exc:
        err = ScoringError(f"the task's result ({type(result).__name__}) cannot be pickled: {exc!r}")
        return _pack_exception(err)


def _pack_exception(exc: BaseException, prefix: str = "") -> bytes:
    tb = _format_tb(exc, guard=True)
    if not isinstance(exc, Exception):  # KeyboardInterrupt & co. must not surface in the caller as such
        exc = ScoringError(f"the task raised {type(exc).__name__}: {_safe_repr(exc)}")
    elif prefix:
        exc = ScoringError(f"{prefix}{type(exc).__name__}: {_safe_str(exc)}")
    try:
        blob = pickle.dumps(exc, _PICKLE)
        pickle.loads(blob)  # an exception class whose __init__ needs extra arguments fails only here
    except Exception:
        return pickle.dumps(("text", _type_name(type(exc)), _safe_repr(exc), tb), _PICKLE)
    return pickle.dumps(("exc", blob, tb), _PICKLE)


def _format_tb(exc: BaseException, *, guard: bool = False) -> str:
    try:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except Exception:
        if not guard:
            raise
        text = f"{type(exc).__name__} (traceback unavailable)"
    return text if len(text) <= _TB_CHARS else "...\n" + text[-_TB_CHARS:]


def _safe_repr(obj: object) -> str:
    try:
        text = repr(obj)
    except Exception:
        text = f"<{type(obj).__name__} with a failing __repr__>"
    return text if len(text) <= 2000 else text[:2000] + "..."


def _safe_str(obj: object) -> str:
    try:
        return str(obj)
    except Exception:
        return _safe_repr(obj)


def _type_name(cls: type) -> str:
    module = getattr(cls, "__module__", "")
    return cls.__qualname__ if module in ("builtins", "") else f"{module}.{cls.__qualname__}"


# ----------------------------------------------------------------------------------------------------
# parent side


class RemoteTraceback(Exception):
    """The traceback text of an exception raised in a worker; attached as the ``__cause__`` of the
    exception re-raised in the caller."""

    def __init__(self, tb: str) -> None:
        super().__init__(tb)
        self.tb = tb

    def __str__(self) -> str:
        return self.tb


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


class _Task:
    __slots__ = ("claimed", "future", "name", "payload", "timeout")

    def __init__(self, future: Future, payload: bytes, timeout: float | None, name: str) -> None:
        self.future = future
        self.payload = payload
        self.timeout = timeout
        self.name = name
        self.claimed = False  # set_running_or_notify_cancel() already called


_BOOTING, _IDLE, _BUSY, _STOPPING, _DEAD = "booting", "idle", "busy", "stopping", "dead"


class _Worker:
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
        self.pidfd: int | None = _open_pidfd(self.pid)
        self.state = _BOOTING
        self.task: _Task | None = None
        self.sent_at = 0.0
        self.started_at: float | None = None
        self.done = 0
        self.recycle = False  # it reported high memory: replace it once its task is answered
        self.expected_exit = False  # we stopped or killed it: its exit is not a crash
        self.state_deadline = time.monotonic() + _BOOT_TIMEOUT_S  # for booting and stopping

    @property
    def watch(self) -> Any:
        """What becomes ready when the process exits."""
        return self.pidfd if self.pidfd is not None else self.process.sentinel

    def deadline(self) -> float:
        """When the dispatcher must act on this worker next (kill it), or inf."""
        if self.state in (_BOOTING, _STOPPING):
            return self.state_deadline
        task = self.task
        if self.state != _BUSY or task is None or task.timeout is None:
            return math.inf
        if self.started_at is None:
            return self.sent_at + task.timeout + _LOAD_ALLOWANCE_S
        return self.started_at + task.timeout


def _fail(w: _Worker, task: _Task, exc: BaseException) -> None:
    """Fail ``task`` with ``exc``, which then carries ``exec_s``: how long the task ran in worker ``w``, from
    its start there to now (its end or kill); 0.0 if it never started. Time queued is not execution."""
    started = w.started_at
    with contextlib.suppress(AttributeError, TypeError):
        exc.exec_s = 0.0 if started is None else max(0.0, time.monotonic() - started)  # type: ignore[attr-defined]
    task.future.set_exception(exc)


def _start_time(message: bytes, sent_at: float) -> float:
    """When a task started, from its ``_STARTED`` message: the worker's own clock reading if it is
    plausible (``time.monotonic`` is system-wide on Linux and macOS), else now."""
    now = time.monotonic()
    if len(message) != 9:
        return now
    (started,) = struct.unpack("d", message[1:])
    return started if sent_at - 1.0 <= started <= now else now


def _open_pidfd(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return opener(pid)
    except OSError:
        return None


def _killpg(pid: int) -> None:
    """SIGKILL the worker's process group (the worker and what it spawned), or the worker alone."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _exit_reason(exitcode: int | None) -> str:
    if exitcode is None:
        return "exit status unknown"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "signal"
        return f"killed by signal {name} ({-exitcode})"
    if exitcode == _EXIT_OOM:
        return "ran out of memory (MemoryError in the worker loop)"
    return f"exited with code {exitcode}"


def _describe(fn: object) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", None)
    if owner is not None and name and not isinstance(owner, type(sys)):
        return f"{type(owner).__qualname__}.{name}"
    return getattr(fn, "__qualname__", None) or name or _safe_repr(fn)


def _check_timeout(timeout: object) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout < math.inf:
        raise ConfigError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    return float(timeout)


class WorkerPool:
    """A pool of long-lived worker processes that run picklable functions under per-task deadlines.

    ``size`` workers at most, started lazily on first use. ``max_tasks_per_worker`` (None: never)
    recycles a worker after that many tasks; ``recycle_memory_mb`` (None: never) recycles it, between
    tasks, once its resident memory is above that many MiB (with ``start_method="fork"`` the pages
    shared with the parent count too). ``memory_limit_mb`` caps each worker's memory (see the
    module docstring; with ``start_method="fork"`` the heap inherited from the parent counts too).
    ``start_method`` is ``"subprocess"`` (the default: a fresh interpreter that does not re-import the
    caller's ``__main__``, safe in a process that has threads, as every trainer does) or a
    :mod:`multiprocessing` start method (``"spawn"``, ``"forkserver"``, ``"fork"``).

    Use as a context manager or call :meth:`close`; a pool still open at interpreter exit is closed then.
    """

    def __init__(
        self,
        size: int = 2,
        *,
        max_tasks_per_worker: int | None = DEFAULT_MAX_TASKS_PER_WORKER,
        memory_limit_mb: int | None = None,
        recycle_memory_mb: int | None = None,
        start_method: str = "subprocess",
    ) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ConfigError(f"size must be an int >= 1, got {size!r}")
        if max_tasks_per_worker is not None and (
            isinstance(max_tasks_per_worker, bool)
            or not isinstance(max_tasks_per_worker, int)
            or max_tasks_per_worker < 1
        ):
            raise ConfigError(
                f"max_tasks_per_worker must be an int >= 1 or None, got {max_tasks_per_worker!r}"
            )
        if memory_limit_mb is not None and (
            isinstance(memory_limit_mb, bool) or not isinstance(memory_limit_mb, int) or memory_limit_mb < 64
        ):
            raise ConfigError(f"memory_limit_mb must be an int >= 64 or None, got {memory_limit_mb!r}")
        if recycle_memory_mb is not None and (
            isinstance(recycle_memory_mb, bool)
            or not isinstance(recycle_memory_mb, int)
            or recycle_memory_mb < 1
        ):
            raise ConfigError(f"recycle_memory_mb must be an int >= 1 or None, got {recycle_memory_mb!r}")
        if start_method not in _START_METHODS:
            raise ConfigError(f"start_method must be one of {list(_START_METHODS)}, got {start_method!r}")
        self.size = size
        self.max_tasks_per_worker = max_tasks_per_worker
        self.memory_limit_mb = memory_limit_mb
        self.recycle_memory_mb = recycle_memory_mb
        self.start_method = start_method
        self._ctx = None if start_method == "subprocess" else multiprocessing.get_context(start_method)
        self._owner_pid = os.getpid()
        # shared with callers, guarded by _lock
        self._lock = threading.Lock()
        self._queue: deque[_Task] = deque()
        self._to_cancel: list[Future] = []
        self._closing = False
        self._close_now = False
        self._thread: threading.Thread | None = None
        self._wake_r: int | None = None
        self._wake_pending = False  # a wake-up byte is in the pipe and the dispatcher has not drained it
        self._wake_w: int | None = None
        self._counts = dict.fromkeys(
            (
                "workers_started",
                "killed_timeout",
                "killed_cancelled",
                "crashed",
                "oom",
                "recycled",
                "tasks_done",
            ),
            0,
        )
        # owned by the dispatcher thread
        self._workers: list[_Worker] = []
        self._wanted = 0  # live workers to keep: grows with demand up to size, replacements keep it
        self._boot_failures = 0

    # -- public API ----------------------------------------------------------------------------------

    def submit(
        self, fn: Callable[..., T], /, *args: Any, timeout: float | None = None, **kwargs: Any
    ) -> Future:
        """Queue ``fn(*args, **kwargs)`` for a worker; return a :class:`concurrent.futures.Future`.

        ``timeout`` (seconds, None = no deadline) counts from the moment a worker starts the task. The
        future fails with ``ScoringTimeout``, ``WorkerCrashed``, the function's own exception, or a
        ``ScoringError`` when the task cannot be pickled. Arguments are pickled here, so the caller may
        mutate them afterwards. ``timeout`` is the pool's own keyword: pass a function's ``timeout``
        argument with :func:`functools.partial`. Callbacks added to the future run in the pool's
        dispatcher thread and must not block on the pool.
        """
        timeout = _check_timeout(timeout)
        self._check_usable()
        future: Future = Future()
        name = _describe(fn)
        try:
            payload = pickle.dumps((fn, args, kwargs), _PICKLE)
        except Exception as exc:
            err = ScoringError(
                f"cannot send {name} to a worker process: {type(exc).__name__}: {exc}. Functions run in a "
                "process must be importable module-level functions (or picklable objects), and so must "
                "their arguments"
            )
            err.__cause__ = exc
            future.set_exception(err)
            return future
        task = _Task(future, payload, timeout, name)
        with self._lock:
            self._check_usable()
            self._queue.append(task)
            self._start_dispatcher()
            self._wake()
        return future

    def call(self, fn: Callable[..., T], /, *args: Any, timeout: float | None = None, **kwargs: Any) -> T:
        """Run ``fn(*args, **kwargs)`` in a worker and return its result (or raise; see :meth:`submit`)."""
        future = self.submit(fn, *args, timeout=timeout, **kwargs)
        try:
            return future.result()
        except BaseException:
            if not future.done():  # interrupted while waiting: do not leave the task running
                self.cancel(future)
            raise

    async def acall(
        self, fn: Callable[..., T], /, *args: Any, timeout: float | None = None, **kwargs: Any
    ) -> T:
        """:meth:`call` for an event loop: awaits the result without blocking the loop.

        Cancelling the awaiting task also stops the work: dequeued if still queued, worker killed if running.
        """
        import asyncio

        future = self.submit(fn, *args, timeout=timeout, **kwargs)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            self.cancel(future)
            raise

    def cancel(self, future: Future) -> bool:
        """Stop a task submitted to this pool: drop it if queued, kill its worker if running.

        Returns False when the task had already finished.
        """
        if future.cancel():
            return True
        if future.done():
            return False
        with self._lock:
            if self._thread is None or (self._closing and self._close_now):
                return False
            self._to_cancel.append(future)
            self._wake()
        return True

    def close(self, *, wait: bool = True) -> None:
        """Shut the pool down and terminate every worker.

        ``wait=True`` lets submitted tasks finish first (each is bounded by its own deadline);
        ``wait=False`` cancels queued tasks and kills running ones (their futures fail with
        ``CancelledError``). Idempotent. In a forked child this only marks the inherited pool closed.
        """
        if os.getpid() != self._owner_pid:
            self._closing = True  # inherited across fork: the workers and the lock are the parent's
            return
        self._shutdown(wait=wait, unregister=True)

    @property
    def closed(self) -> bool:
        return self._closing

    def stats(self) -> PoolStats:
        """A snapshot of the pool's counters."""
        workers = list(self._workers)
        with self._lock:
            counts = dict(self._counts)
            queued = sum(not t.future.done() for t in self._queue)
        return PoolStats(
            **counts,
            workers_alive=sum(w.state in (_BOOTING, _IDLE, _BUSY) for w in workers),
            tasks_queued=queued,
            tasks_running=sum(w.state == _BUSY for w in workers),
        )

    def worker_pids(self) -> list[int]:
        """Pids of the worker processes currently alive (booting, idle or busy)."""
        return [w.pid for w in list(self._workers) if w.state in (_BOOTING, _IDLE, _BUSY)]

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closing else "open"
        return f"<WorkerPool size={self.size} alive={len(self.worker_pids())} {state}>"

    # -- caller side helpers (under _lock) -----------------------------------------------------------

    def _check_usable(self) -> None:
        if os.getpid() != self._owner_pid:
            raise RuntimeError(
                "this WorkerPool was created in another process (before a fork); create a new pool in this "
                "process, or use default_pool(), which does so automatically"
            )
        if self._closing:
            raise RuntimeError("this WorkerPool is closed")

    def _start_dispatcher(self) -> None:
        if self._thread is not None:
            return
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._thread = threading.Thread(target=self._run, name=f"rewardloop-pool-{id(self):x}", daemon=True)
        self._thread.start()
        atexit.register(self._atexit_close)

    def _wake(self) -> None:
        # Called under _lock. One byte per wake-up the dispatcher has not yet seen: a batch submitting
        # thousands of tasks then costs a few system calls (and GIL hand-offs), not one per task.
        if self._wake_w is not None and not self._wake_pending:
            with contextlib.suppress(BlockingIOError):  # pipe full: the dispatcher is awake anyway
                os.write(self._wake_w, b"\0")
            self._wake_pending = True

    def _atexit_close(self) -> None:
        if os.getpid() == self._owner_pid:
            self._shutdown(wait=False, unregister=False)

    def _shutdown(self, *, wait: bool, unregister: bool) -> None:
        with self._lock:
            first = not self._closing
            self._closing = True
            self._close_now = self._close_now or not wait
            thread = self._thread
            self._wake()
        if first and unregister and thread is not None:
            atexit.unregister(self._atexit_close)
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    # -- dispatcher thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException:
            _log.exception("rewardloop worker pool dispatcher failed; failing its tasks")
            with self._lock:
                self._closing = self._close_now = True
        finally:
            self._teardown()

    def _loop(self) -> None:
        while True:
            self._drain_wake()
            with self._lock:
                to_cancel, self._to_cancel = self._to_cancel, []
                closing, close_now = self._closing, self._close_now
            for future in to_cancel:
                self._cancel_running(future)
            if closing and (close_now or (not self._queue and not self._busy())):
                return
            self._dispatch()
            self._spawn_as_needed()
            ready = wait(self._waitables(), self._wait_timeout())
            for obj in ready:
                self._on_ready(obj)
            self._enforce_deadlines()

    def _busy(self) -> bool:
        return any(w.state == _BUSY for w in self._workers)

    def _drain_wake(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while os.read(self._wake_r, 4096):
                pass
        # Cleared after draining and before the dispatcher looks at the queue: anything queued before
        # this point is seen by this pass, anything after writes a fresh byte.
        with self._lock:
            self._wake_pending = False

    def _next_task(self) -> _Task | None:
        while True:
            with self._lock:
                if not self._queue:
                    return None
                task = self._queue.popleft()
            if task.claimed or task.future.set_running_or_notify_cancel():
                task.claimed = True
                return task

    def _dispatch(self) -> None:
        for w in self._workers:
            if w.state != _IDLE or w.conn is None:  # no conn: it hung up and its exit is about to be reported
                continue
            task = self._next_task()
            if task is None:
                return
            w.task, w.state, w.started_at, w.sent_at = task, _BUSY, None, time.monotonic()
            try:
                w.conn.send_bytes(task.payload)
            except OSError:  # the worker died while idle: the task never started, run it elsewhere
                w.task, w.state = None, _DEAD
                with self._lock:
                    self._queue.appendleft(task)

    def _live(self) -> int:
        return sum(w.state in (_BOOTING, _IDLE, _BUSY) for w in self._workers)

    def _spawn_as_needed(self) -> None:
        with self._lock:
            queued = len(self._queue)
        free = sum(w.state in (_BOOTING, _IDLE) for w in self._workers)
        if queued > free:
            self._wanted = min(self.size, max(self._wanted, self._live() + queued - free))
        while self._live() < self._wanted:
            try:
                self._spawn()
            except Exception as exc:
                _log.warning("could not start a worker process: %r", exc)
                self._boot_failed(f"could not start a worker process: {type(exc).__name__}: {exc}")

    def _spawn(self) -> None:
        if self._ctx is None:
            import socket

            parent_sock, child_sock = socket.socketpair()
            parent_conn = Connection(parent_sock.detach())
            try:
                process: Any = _SubprocessWorker(
                    child_sock.fileno(), self.memory_limit_mb, self.recycle_memory_mb
                )
            except BaseException:
                parent_conn.close()
                raise
            finally:
                child_sock.close()
            self._add_worker(_Worker(process, parent_conn))
            return
        parent_conn, child_conn = self._ctx.Pipe(duplex=True)
        try:
            process = self._ctx.Process(
                target=_worker_main,
                args=(child_conn, self.memory_limit_mb, self.recycle_memory_mb),
                name="rewardloop-worker",
                daemon=False,  # scorers may start processes of their own
            )
            process.start()
        except BaseException:
            parent_conn.close()
            raise
        finally:
            child_conn.close()
        self._add_worker(_Worker(process, parent_conn))

    def _add_worker(self, worker: _Worker) -> None:
        with self._lock:
            self._workers.append(worker)
            self._counts["workers_started"] += 1

    def _boot_failed(self, reason: str) -> None:
        self._boot_failures += 1
        if self._boot_failures < _BOOT_ATTEMPTS:
            return
        # Starting workers keeps failing: fail what is queued instead of retrying forever. A later
        # submit tries again.
        self._boot_failures, self._wanted = 0, 0
        err = f"worker processes fail to start ({_BOOT_ATTEMPTS} attempts); last: {reason}"
        while (task := self._next_task()) is not None:
            task.future.set_exception(WorkerCrashed(err))

    def _waitables(self) -> list[Any]:
        objs: list[Any] = [self._wake_r]
        for w in self._workers:
            if w.conn is not None:
                objs.append(w.conn)
            if w.watch is not None:
                objs.append(w.watch)
        return objs

    def _wait_timeout(self) -> float | None:
        deadline = min((w.deadline() for w in self._workers), default=math.inf)
        timeout = None if deadline == math.inf else max(0.0, deadline - time.monotonic())
        if any(w.pidfd is None for w in self._workers):
            timeout = _POLL_S if timeout is None else min(timeout, _POLL_S)
        return timeout

    def _on_ready(self, obj: Any) -> None:
        if obj == self._wake_r:
            return
        for w in self._workers:
            if obj is w.conn:
                self._read_messages(w)
                return
            if obj == w.watch:
                self._on_exit(w)
                return

    def _read_messages(self, w: _Worker) -> None:
        try:
            while w.conn is not None:
                self._on_message(w, w.conn.recv_bytes())
                if not w.conn.poll():
                    return
        except (EOFError, OSError):
            # The worker is exiting (or exited): its pidfd/sentinel reports the exit and the reason.
            self._close_conn(w)

    def _on_message(self, w: _Worker, data: bytes) -> None:
        if data == _READY:
            if w.state == _BOOTING:
                w.state = _IDLE
            self._boot_failures = 0
            return
        if data[:1] == _STARTED and len(data) in (1, 9):
            w.started_at = _start_time(data, w.sent_at)
            return
        if data == _MEMORY_HIGH:
            w.recycle = True
            return
        task, w.task = w.task, None
        if task is None or w.state != _BUSY:
            return  # a late reply for a task that was already failed (cannot normally happen)
        w.done += 1
        kind = self._complete(w, task, data)
        with self._lock:
            self._counts["tasks_done"] += 1
        if kind == "oom":  # the heap may be fragmented or leaking: start afresh
            self._stop(w)
        elif w.recycle or (self.max_tasks_per_worker is not None and w.done >= self.max_tasks_per_worker):
            with self._lock:
                self._counts["recycled"] += 1
            self._stop(w)
        else:
            w.state = _IDLE

    def _complete(self, w: _Worker, task: _Task, data: bytes) -> str:
        """Resolve a task's future from the worker's reply; return the reply kind."""
        try:
            msg = pickle.loads(data)
            kind = msg[0]
        except Exception as exc:
            _fail(
                w, task, ScoringError(f"the reply of {task.name} cannot be unpickled in the caller: {exc!r}")
            )
            return "error"
        if kind == "ok":
            task.future.set_result(msg[1])
        elif kind == "exc":
            _fail(w, task, self._rebuild_exception(task, msg[1], msg[2]))
        elif kind == "text":
            _, type_name, text, tb = msg
            err = ScoringError(
                f"{task.name} raised {type_name}, which cannot be pickled: {text}\n\nworker traceback:\n{tb}"
            )
            err.__cause__ = RemoteTraceback(tb)
            _fail(w, task, err)
        elif kind == "oom":
            limit = f"memory_limit_mb={self.memory_limit_mb}" if self.memory_limit_mb else "no memory cap"
            err = WorkerCrashed(f"{task.name} ran out of memory in worker {w.pid} ({limit})", oom=True)
            if msg[1]:
                err.__cause__ = RemoteTraceback(msg[1])
            with self._lock:
                self._counts["oom"] += 1
                self._counts["crashed"] += 1
            _fail(w, task, err)
        else:  # "exit"
            _fail(w, task, WorkerCrashed(f"{task.name} called sys.exit({msg[1]}) in worker {w.pid}"))
        return kind

    @staticmethod
    def _rebuild_exception(task: _Task, blob: bytes, tb: str) -> BaseException:
        try:
            exc = pickle.loads(blob)
        except Exception as load_error:
            exc = ScoringError(
                f"{task.name} raised an exception that cannot be unpickled in the caller ({load_error!r})"
                f"\n\nworker traceback:\n{tb}"
            )
        if not isinstance(exc, BaseException):
            exc = ScoringError(f"{task.name} failed: {_safe_repr(exc)}")
        exc.__cause__ = RemoteTraceback(tb)
        return exc

    def _stop(self, w: _Worker) -> None:
        """Ask an idle worker to exit; it is killed if it has not within the grace period."""
        w.state, w.expected_exit = _STOPPING, True
        w.state_deadline = time.monotonic() + _STOP_GRACE_S
        try:
            w.conn.send_bytes(_STOP)
        except (OSError, AttributeError):
            _killpg(w.pid)

    def _kill(self, w: _Worker, error: BaseException, counter: str) -> None:
        """SIGKILL a busy worker's process group now and fail its task with ``error``."""
        _killpg(w.pid)
        task, w.task = w.task, None
        w.state, w.expected_exit, w.state_deadline = _STOPPING, True, time.monotonic() + _STOP_GRACE_S
        with self._lock:
            self._counts[counter] += 1
        if task is not None:
            _fail(w, task, error)

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for w in list(self._workers):
            if w.deadline() > now:
                continue
            if w.state in (_BOOTING, _STOPPING):
                # Hung at start-up, or did not exit when asked: kill. The exit is handled when it is
                # reported (a booting worker's as a start-up failure).
                _killpg(w.pid)
                w.state_deadline = math.inf if w.pidfd is not None else now + _POLL_S
            elif w.state == _BUSY and w.task is not None:
                task = w.task
                if w.started_at is None:
                    what = (
                        f"did not start within {task.timeout + _LOAD_ALLOWANCE_S:g} s (loading the task hung)"
                    )
                else:
                    what = f"ran past its {task.timeout:g} s deadline"
                err = ScoringTimeout(f"{task.name} {what}; worker {w.pid} was killed")
                self._kill(w, err, "killed_timeout")
        if any(w.pidfd is None for w in self._workers):
            for w in list(self._workers):  # no pidfd: a grandchild may hold the sentinel open, so poll
                if w.state != _DEAD and w.process.exitcode is not None:
                    self._on_exit(w)

    def _cancel_running(self, future: Future) -> None:
        for w in self._workers:
            if w.state == _BUSY and w.task is not None and w.task.future is future:
                err = CancelledError(f"{w.task.name} was cancelled while running; worker {w.pid} was killed")
                self._kill(w, err, "killed_cancelled")
                return

    def _on_exit(self, w: _Worker) -> None:
        """The worker process ended: classify why, fail its task if it held one, release it."""
        if w.conn is not None:
            self._read_messages(w)  # a reply sent just before exiting still counts
        _killpg(w.pid)  # stragglers in its group; before reaping, so the group id cannot be reused yet
        w.process.join(timeout=5)
        exitcode = w.process.exitcode
        reason = _exit_reason(exitcode)
        task, w.task = w.task, None
        was_booting = w.state == _BOOTING
        if not w.expected_exit:
            self._on_unexpected_exit(w, task, exitcode, reason, was_booting)
        self._release(w)

    def _on_unexpected_exit(
        self, w: _Worker, task: _Task | None, exitcode: int | None, reason: str, was_booting: bool
    ) -> None:
        if was_booting:
            _log.warning("worker process %d failed to start: %s", w.pid, reason)
            self._boot_failed(f"worker {w.pid} {reason} during start-up")
            return
        # A SIGKILL we did not send is, on Linux, nearly always the kernel's OOM killer.
        oom = exitcode == _EXIT_OOM or exitcode == -signal.SIGKILL
        with self._lock:
            self._counts["crashed"] += 1
            self._counts["oom"] += oom
        if task is None:
            _log.warning("idle worker process %d died: %s; replacing it", w.pid, reason)
            return
        hint = " (likely out of memory)" if exitcode == -signal.SIGKILL else ""
        _fail(
            w,
            task,
            WorkerCrashed(f"worker process {w.pid} died while running {task.name}: {reason}{hint}", oom=oom),
        )

    def _release(self, w: _Worker) -> None:
        w.state = _DEAD
        self._close_conn(w)
        if w.pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(w.pidfd)
            w.pidfd = None
        with contextlib.suppress(Exception):
            w.process.close()
        with self._lock:
            self._workers.remove(w)

    @staticmethod
    def _close_conn(w: _Worker) -> None:
        if w.conn is not None:
            with contextlib.suppress(OSError):
                w.conn.close()
            w.conn = None

    def _teardown(self) -> None:
        """Runs in the dispatcher thread when it ends: fail what is left, stop and reap every worker."""
        for w in list(self._workers):
            if w.state == _BUSY:
                self._kill(
                    w,
                    CancelledError(f"the WorkerPool was closed while {w.task.name} ran"),
                    "killed_cancelled",
                )
            elif w.state in (_BOOTING, _IDLE):
                self._stop(w)
        with self._lock:
            queued = list(self._queue)
            self._queue.clear()
        for task in queued:
            if task.claimed:
                task.future.set_exception(CancelledError("the WorkerPool was closed"))
            else:
                task.future.cancel()
        end = time.monotonic() + _STOP_GRACE_S
        while self._workers and (left := end - time.monotonic()) > 0:
            for obj in wait([w.watch for w in self._workers if w.watch is not None], min(left, 0.1)):
                for w in list(self._workers):
                    if obj == w.watch:
                        self._on_exit(w)
            for w in list(self._workers):
                if w.pidfd is None and w.process.exitcode is not None:
                    self._on_exit(w)
        for w in list(self._workers):
            _killpg(w.pid)
            self._on_exit(w)
        with self._lock:
            wake_r, wake_w, self._wake_r, self._wake_w = self._wake_r, self._wake_w, None, None
        for fd in (wake_r, wake_w):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)


# ----------------------------------------------------------------------------------------------------
# the process-wide default pool

_default_lock = threading.Lock()
_default: WorkerPool | None = None
_fork_hook_installed = False


def default_pool() -> WorkerPool:
    """The process-wide pool, created on first use with ``size=min(4, os.cpu_count())``.

    This is the pool the sync verl facade (``default_compute_score`` and ``score_one``) runs
    ``execution="process"`` scorers on. It is re-created in a forked child (the parent's workers belong
    to the parent) and after :meth:`WorkerPool.close`, and it is closed at interpreter exit.
    """
    global _default, _fork_hook_installed
    pool = _default
    if pool is not None and pool._owner_pid == os.getpid() and not pool.closed:
        return pool
    with _default_lock:
        pool = _default
        if pool is None or pool._owner_pid != os.getpid() or pool.closed:
            if not _fork_hook_installed and hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=_after_fork_in_child)
                _fork_hook_installed = True
            pool = _default = WorkerPool(size=min(4, os.cpu_count() or 1))
        return pool


def _after_fork_in_child() -> None:
    # The lock may have been held by another thread at fork time; the child gets a fresh one. The
    # inherited pool is left alone (its workers are the parent's) and replaced on next use.
    global _default_lock
    _default_lock = threading.Lock()

"""The child side of a worker process: its main loop and the wire protocol with the parent.

A worker sets itself up (own process group, die with its parent on Linux, the memory cap, one BLAS thread),
reports :data:`READY`, then serves one task at a time: it unpickles the task, reports :data:`STARTED` with
its clock reading (the deadline counts from there), runs it in its main thread and sends back a pickled
``("ok", result)`` / ``("exc", blob, traceback)`` / ``("text", type, text, traceback)`` / ``("oom", tb)`` /
``("exit", code)``. This module is what a freshly launched worker imports: it stays small and cheap.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from ..errors import ScoringError

__all__ = [
    "EXIT_OOM",
    "MEMORY_HIGH",
    "PICKLE",
    "READY",
    "STARTED",
    "STOP",
    "SYS_PATH_ENV",
    "RemoteTraceback",
    "safe_repr",
    "subprocess_main",
    "worker_main",
]

PICKLE = pickle.HIGHEST_PROTOCOL
# Control messages. Pickled messages start with b"\x80", so these one-byte frames cannot collide.
READY = b"R"  # worker -> parent: booted, waiting for tasks
STARTED = b"S"  # worker -> parent: task loaded, the deadline starts now (+ the worker's clock, 8 bytes)
MEMORY_HIGH = b"M"  # worker -> parent, before a reply: replace me once this task is answered
STOP = b"Q"  # parent -> worker: exit cleanly
EXIT_OOM = 87  # exit code of a worker whose own loop ran out of memory
SYS_PATH_ENV = "REWARDLOOP_WORKER_SYS_PATH"  # the parent's sys.path, for subprocess-launched workers

_THREAD_ENV = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
_TB_CHARS = 8000  # traceback text kept from a worker


class RemoteTraceback(Exception):
    """The traceback text of an exception raised in a worker; attached as the ``__cause__`` of the
    exception re-raised in the caller."""

    def __init__(self, tb: str) -> None:
        super().__init__(tb)
        self.tb = tb

    def __str__(self) -> str:
        return self.tb


def worker_main(conn: Connection, memory_limit_mb: int | None, recycle_memory_mb: int | None = None) -> None:
    """Entry point of a worker process: set up, then serve tasks one at a time until told to stop."""
    for name in _THREAD_ENV:
        os.environ.setdefault(name, "1")
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)  # own process group: a kill on timeout also reaches the children a task spawned
    _die_with_parent()
    if memory_limit_mb is not None:
        _limit_memory(memory_limit_mb)
    try:
        conn.send_bytes(READY)
        memory_high = _rss_reader(recycle_memory_mb)
        while _serve_one(conn, memory_high):
            pass
    except MemoryError:
        os._exit(EXIT_OOM)
    except (EOFError, OSError):
        pass  # the parent went away


def subprocess_main() -> None:
    """Entry point of a worker started by :class:`_SubprocessWorker` (``python -c``): no ``__main__`` re-import."""
    import json

    fd, memory, recycle = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    paths = json.loads(os.environ.pop(SYS_PATH_ENV, "[]"))
    sys.path[:] = [*paths, *(p for p in sys.path if p not in paths)]
    worker_main(
        Connection(fd), None if memory == "-" else int(memory), None if recycle == "-" else int(recycle)
    )


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
    if data == STOP:
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
    conn.send_bytes(STARTED + struct.pack("d", time.monotonic()))
    reply = _run_task(fn, args, kwargs)
    del fn, args, kwargs
    if memory_high is not None and memory_high():
        conn.send_bytes(MEMORY_HIGH)
    conn.send_bytes(reply)
    return True


def _run_task(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    oom_tb = None
    try:
        result = fn(*args, **kwargs)
    except MemoryError as exc:
        oom_tb = _format_tb(exc, guard=True)
    except SystemExit as exc:
        return pickle.dumps(("exit", repr(exc.code)), PICKLE)
    except BaseException as exc:
        return _pack_exception(exc)
    else:
        return _pack_result(result)
    # here, outside the except clause, the failed task's frames are released before we reply
    return pickle.dumps(("oom", oom_tb), PICKLE)


def _pack_result(result: Any) -> bytes:
    try:
        return pickle.dumps(("ok", result), PICKLE)
    except MemoryError:
        return pickle.dumps(("oom", ""), PICKLE)
    except Exception as exc:
        err = ScoringError(f"the task's result ({type(result).__name__}) cannot be pickled: {exc!r}")
        return _pack_exception(err)


def _pack_exception(exc: BaseException, prefix: str = "") -> bytes:
    tb = _format_tb(exc, guard=True)
    if not isinstance(exc, Exception):  # KeyboardInterrupt & co. must not surface in the caller as such
        exc = ScoringError(f"the task raised {type(exc).__name__}: {safe_repr(exc)}")
    elif prefix:
        exc = ScoringError(f"{prefix}{type(exc).__name__}: {safe_str(exc)}")
    try:
        blob = pickle.dumps(exc, PICKLE)
        pickle.loads(blob)  # an exception class whose __init__ needs extra arguments fails only here
    except Exception:
        return pickle.dumps(("text", _type_name(type(exc)), safe_repr(exc), tb), PICKLE)
    return pickle.dumps(("exc", blob, tb), PICKLE)


def _format_tb(exc: BaseException, *, guard: bool = False) -> str:
    try:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except Exception:
        if not guard:
            raise
        text = f"{type(exc).__name__} (traceback unavailable)"
    return text if len(text) <= _TB_CHARS else "...\n" + text[-_TB_CHARS:]


def safe_repr(obj: object) -> str:
    try:
        text = repr(obj)
    except Exception:
        text = f"<{type(obj).__name__} with a failing __repr__>"
    return text if len(text) <= 2000 else text[:2000] + "..."


def safe_str(obj: object) -> str:
    """``str(obj)``, or its repr (never raising) when ``str`` raises."""
    try:
        return str(obj)
    except Exception:
        return safe_repr(obj)


def _type_name(cls: type) -> str:
    module = getattr(cls, "__module__", "")
    return cls.__qualname__ if module in ("builtins", "") else f"{module}.{cls.__qualname__}"

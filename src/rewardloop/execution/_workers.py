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
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from multiprocessing.connection import wait
from typing import Any, TypeVar

from ..errors import ScoringError, ScoringTimeout, WorkerCrashed
from ._worker_main import (
    EXIT_OOM,
    MEMORY_HIGH,
    PICKLE,
    READY,
    STARTED,
    RemoteTraceback,
)
from ._worker_proc import (
    BOOTING,
    BUSY,
    DEAD,
    IDLE,
    LOAD_ALLOWANCE_S,
    STOPPING,
    PoolStats,
    Task,
    Worker,
    check_pool_args,
    check_timeout,
    describe,
    exit_reason,
    fail_task,
    killpg,
    resolve_reply,
    spawn_worker,
    start_time,
)

__all__ = ["DEFAULT_MAX_TASKS_PER_WORKER", "PoolStats", "RemoteTraceback", "WorkerPool", "default_pool"]

_log = logging.getLogger(__name__)

T = TypeVar("T")


_STOP_GRACE_S = 2.0  # how long a stopped worker may take to exit before it is killed
_BOOT_ATTEMPTS = 3  # consecutive start-up failures before queued tasks are failed
_POLL_S = 1.0  # liveness polling period where pidfds are unavailable
# Replacing a worker costs a fresh interpreter plus re-importing and re-warming what its tasks use
# (math-verify: ~1 s of imports, then sympy's and ANTLR's caches, which halve later samples' cost), so
# recycling by count is a safety net for slow leaks; growth is caught by ``recycle_memory_mb``.
DEFAULT_MAX_TASKS_PER_WORKER = 10_000


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
        check_pool_args(size, max_tasks_per_worker, memory_limit_mb, recycle_memory_mb, start_method)
        self.size = size
        self.max_tasks_per_worker = max_tasks_per_worker
        self.memory_limit_mb = memory_limit_mb
        self.recycle_memory_mb = recycle_memory_mb
        self.start_method = start_method
        self._ctx = None if start_method == "subprocess" else multiprocessing.get_context(start_method)
        self._owner_pid = os.getpid()
        # shared with callers, guarded by _lock
        self._lock = threading.Lock()
        self._queue: deque[Task] = deque()
        self._to_cancel: list[Future[Any]] = []
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
        self._dispatcher = _Dispatcher(self)  # owns the worker records; runs in the dispatcher thread

    # -- public API ----------------------------------------------------------------------------------

    def submit(
        self, fn: Callable[..., T], /, *args: Any, timeout: float | None = None, **kwargs: Any
    ) -> Future[T]:
        """Queue ``fn(*args, **kwargs)`` for a worker; return a :class:`concurrent.futures.Future`.

        ``timeout`` (seconds, None = no deadline) counts from the moment a worker starts the task. The
        future fails with ``ScoringTimeout``, ``WorkerCrashed``, the function's own exception, or a
        ``ScoringError`` when the task cannot be pickled. Arguments are pickled here, so the caller may
        mutate them afterwards. ``timeout`` is the pool's own keyword: pass a function's ``timeout``
        argument with :func:`functools.partial`. Callbacks added to the future run in the pool's
        dispatcher thread and must not block on the pool.
        """
        timeout = check_timeout(timeout)
        self._check_usable()
        future: Future[T] = Future()
        name = describe(fn)
        try:
            payload = pickle.dumps((fn, args, kwargs), PICKLE)
        except Exception as exc:
            err = ScoringError(
                f"cannot send {name} to a worker process: {type(exc).__name__}: {exc}. Functions run in a "
                "process must be importable module-level functions (or picklable objects), and so must "
                "their arguments"
            )
            err.__cause__ = exc
            future.set_exception(err)
            return future
        task = Task(future, payload, timeout, name)
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

    def cancel(self, future: Future[Any]) -> bool:
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
        workers = list(self._dispatcher.workers)
        with self._lock:
            counts = dict(self._counts)
            queued = sum(not t.future.done() for t in self._queue)
        return PoolStats(
            **counts,
            workers_alive=sum(w.state in (BOOTING, IDLE, BUSY) for w in workers),
            tasks_queued=queued,
            tasks_running=sum(w.state == BUSY for w in workers),
        )

    def worker_pids(self) -> list[int]:
        """Pids of the worker processes currently alive (booting, idle or busy)."""
        return [w.pid for w in list(self._dispatcher.workers) if w.state in (BOOTING, IDLE, BUSY)]

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
        self._thread = threading.Thread(
            target=self._dispatcher.run, name=f"rewardloop-pool-{id(self):x}", daemon=True
        )
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


class _Dispatcher:
    """The pool's dispatcher thread: hands queued tasks to idle workers, starts and replaces workers, records
    when tasks start, enforces deadlines, reads replies and exits, and tears everything down at the end. The
    worker records (``workers``) belong to this thread; the queue, counters and flags it shares with callers
    are the pool's, under its lock."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool
        self.workers: list[Worker] = []
        self._wanted = 0  # live workers to keep: grows with demand up to size, replacements keep it
        self._boot_failures = 0

    def run(self) -> None:
        try:
            self._loop()
        except BaseException:
            _log.exception("rewardloop worker pool dispatcher failed; failing its tasks")
            with self.pool._lock:
                self.pool._closing = self.pool._close_now = True
        finally:
            self._teardown()

    def _loop(self) -> None:
        while True:
            self._drain_wake()
            with self.pool._lock:
                to_cancel, self.pool._to_cancel = self.pool._to_cancel, []
                closing, close_now = self.pool._closing, self.pool._close_now
            for future in to_cancel:
                self._cancel_running(future)
            if closing and (close_now or (not self.pool._queue and not self._busy())):
                return
            self._dispatch()
            self._spawn_as_needed()
            ready = wait(self._waitables(), self._wait_timeout())
            for obj in ready:
                self._on_ready(obj)
            self._enforce_deadlines()

    def _busy(self) -> bool:
        return any(w.state == BUSY for w in self.workers)

    def _drain_wake(self) -> None:
        wake_r = self.pool._wake_r
        if wake_r is None:  # the pipe was never made
            return
        with contextlib.suppress(BlockingIOError):
            while os.read(wake_r, 4096):
                pass
        # Cleared after draining and before the dispatcher looks at the queue: anything queued before
        # this point is seen by this pass, anything after writes a fresh byte.
        with self.pool._lock:
            self.pool._wake_pending = False

    def _next_task(self) -> Task | None:
        while True:
            with self.pool._lock:
                if not self.pool._queue:
                    return None
                task = self.pool._queue.popleft()
            if task.claimed or task.future.set_running_or_notify_cancel():
                task.claimed = True
                return task

    def _dispatch(self) -> None:
        for w in self.workers:
            if w.state != IDLE or w.conn is None:  # no conn: it hung up and its exit is about to be reported
                continue
            task = self._next_task()
            if task is None:
                return
            w.task, w.state, w.started_at, w.sent_at = task, BUSY, None, time.monotonic()
            try:
                w.conn.send_bytes(task.payload)
            except OSError:  # the worker died while idle: the task never started, run it elsewhere
                w.task, w.state = None, DEAD
                with self.pool._lock:
                    self.pool._queue.appendleft(task)

    def _live(self) -> int:
        return sum(w.state in (BOOTING, IDLE, BUSY) for w in self.workers)

    def _spawn_as_needed(self) -> None:
        with self.pool._lock:
            queued = len(self.pool._queue)
        free = sum(w.state in (BOOTING, IDLE) for w in self.workers)
        if queued > free:
            self._wanted = min(self.pool.size, max(self._wanted, self._live() + queued - free))
        while self._live() < self._wanted:
            try:
                self._add_worker(
                    spawn_worker(self.pool._ctx, self.pool.memory_limit_mb, self.pool.recycle_memory_mb)
                )
            except Exception as exc:
                _log.warning("could not start a worker process: %r", exc)
                self._boot_failed(f"could not start a worker process: {type(exc).__name__}: {exc}")

    def _add_worker(self, worker: Worker) -> None:
        with self.pool._lock:
            self.workers.append(worker)
            self.pool._counts["workers_started"] += 1

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
        objs: list[Any] = [self.pool._wake_r]
        for w in self.workers:
            if w.conn is not None:
                objs.append(w.conn)
            if w.watch is not None:
                objs.append(w.watch)
        return objs

    def _wait_timeout(self) -> float | None:
        deadline = min((w.deadline() for w in self.workers), default=math.inf)
        timeout = None if deadline == math.inf else max(0.0, deadline - time.monotonic())
        if any(w.pidfd is None for w in self.workers):
            timeout = _POLL_S if timeout is None else min(timeout, _POLL_S)
        return timeout

    def _on_ready(self, obj: Any) -> None:
        if obj == self.pool._wake_r:
            return
        for w in self.workers:
            if obj is w.conn:
                self._read_messages(w)
                return
            if obj == w.watch:
                self._on_exit(w)
                return

    def _read_messages(self, w: Worker) -> None:
        try:
            while w.conn is not None:
                self._on_message(w, w.conn.recv_bytes())
                if not w.conn.poll():
                    return
        except (EOFError, OSError):
            # The worker is exiting (or exited): its pidfd/sentinel reports the exit and the reason.
            w.close_conn()

    def _on_message(self, w: Worker, data: bytes) -> None:
        if data == READY:
            if w.state == BOOTING:
                w.state = IDLE
            self._boot_failures = 0
            return
        if data[:1] == STARTED and len(data) in (1, 9):
            w.started_at = start_time(data, w.sent_at)
            return
        if data == MEMORY_HIGH:
            w.recycle = True
            return
        task, w.task = w.task, None
        if task is None or w.state != BUSY:
            return  # a late reply for a task that was already failed (cannot normally happen)
        w.done += 1
        kind = resolve_reply(w, task, data, self.pool.memory_limit_mb)
        if kind == "oom":
            with self.pool._lock:
                self.pool._counts["oom"] += 1
                self.pool._counts["crashed"] += 1
        with self.pool._lock:
            self.pool._counts["tasks_done"] += 1
        if kind == "oom":  # the heap may be fragmented or leaking: start afresh
            w.stop(_STOP_GRACE_S)
        elif w.recycle or (
            self.pool.max_tasks_per_worker is not None and w.done >= self.pool.max_tasks_per_worker
        ):
            with self.pool._lock:
                self.pool._counts["recycled"] += 1
            w.stop(_STOP_GRACE_S)
        else:
            w.state = IDLE

    def _kill(self, w: Worker, error: BaseException, counter: str) -> None:
        """SIGKILL a busy worker's process group now and fail its task with ``error``."""
        killpg(w.pid)
        task, w.task = w.task, None
        w.state, w.expected_exit, w.state_deadline = STOPPING, True, time.monotonic() + _STOP_GRACE_S
        with self.pool._lock:
            self.pool._counts[counter] += 1
        if task is not None:
            fail_task(w, task, error)

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for w in list(self.workers):
            if w.deadline() > now:
                continue
            if w.state in (BOOTING, STOPPING):
                # Hung at start-up, or did not exit when asked: kill. The exit is handled when it is
                # reported (a booting worker's as a start-up failure).
                killpg(w.pid)
                w.state_deadline = math.inf if w.pidfd is not None else now + _POLL_S
            elif w.state == BUSY and w.task is not None and w.task.timeout is not None:  # (no deadline: inf)
                task, timeout = w.task, w.task.timeout
                if w.started_at is None:
                    what = f"did not start within {timeout + LOAD_ALLOWANCE_S:g} s (loading the task hung)"
                else:
                    what = f"ran past its {timeout:g} s deadline"
                err = ScoringTimeout(f"{task.name} {what}; worker {w.pid} was killed")
                self._kill(w, err, "killed_timeout")
        if any(w.pidfd is None for w in self.workers):
            for w in list(self.workers):  # no pidfd: a grandchild may hold the sentinel open, so poll
                if w.state != DEAD and w.process.exitcode is not None:
                    self._on_exit(w)

    def _cancel_running(self, future: Future[Any]) -> None:
        for w in self.workers:
            if w.state == BUSY and w.task is not None and w.task.future is future:
                err = CancelledError(f"{w.task.name} was cancelled while running; worker {w.pid} was killed")
                self._kill(w, err, "killed_cancelled")
                return

    def _on_exit(self, w: Worker) -> None:
        """The worker process ended: classify why, fail its task if it held one, release it."""
        if w.conn is not None:
            self._read_messages(w)  # a reply sent just before exiting still counts
        killpg(w.pid)  # stragglers in its group; before reaping, so the group id cannot be reused yet
        w.process.join(timeout=5)
        exitcode = w.process.exitcode
        reason = exit_reason(exitcode)
        task, w.task = w.task, None
        was_booting = w.state == BOOTING
        if not w.expected_exit:
            self._on_unexpected_exit(w, task, exitcode, reason, was_booting)
        self._release(w)

    def _on_unexpected_exit(
        self, w: Worker, task: Task | None, exitcode: int | None, reason: str, was_booting: bool
    ) -> None:
        if was_booting:
            _log.warning("worker process %d failed to start: %s", w.pid, reason)
            self._boot_failed(f"worker {w.pid} {reason} during start-up")
            return
        # A SIGKILL we did not send is, on Linux, nearly always the kernel's OOM killer.
        oom = exitcode == EXIT_OOM or exitcode == -signal.SIGKILL
        with self.pool._lock:
            self.pool._counts["crashed"] += 1
            self.pool._counts["oom"] += oom
        if task is None:
            _log.warning("idle worker process %d died: %s; replacing it", w.pid, reason)
            return
        hint = " (likely out of memory)" if exitcode == -signal.SIGKILL else ""
        fail_task(
            w,
            task,
            WorkerCrashed(f"worker process {w.pid} died while running {task.name}: {reason}{hint}", oom=oom),
        )

    def _release(self, w: Worker) -> None:
        w.state = DEAD
        w.close_conn()
        if w.pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(w.pidfd)
            w.pidfd = None
        with contextlib.suppress(Exception):
            w.process.close()
        with self.pool._lock:
            self.workers.remove(w)

    def _teardown(self) -> None:
        """Runs in the dispatcher thread when it ends: fail what is left, stop and reap every worker."""
        for w in list(self.workers):
            if w.state == BUSY:
                name = w.task.name if w.task is not None else "a task"
                self._kill(
                    w,
                    CancelledError(f"the WorkerPool was closed while {name} ran"),
                    "killed_cancelled",
                )
            elif w.state in (BOOTING, IDLE):
                w.stop(_STOP_GRACE_S)
        with self.pool._lock:
            queued = list(self.pool._queue)
            self.pool._queue.clear()
        for task in queued:
            if task.claimed:
                task.future.set_exception(CancelledError("the WorkerPool was closed"))
            else:
                task.future.cancel()
        end = time.monotonic() + _STOP_GRACE_S
        while self.workers and (left := end - time.monotonic()) > 0:
            for obj in wait([w.watch for w in self.workers if w.watch is not None], min(left, 0.1)):
                for w in list(self.workers):
                    if obj == w.watch:
                        self._on_exit(w)
            for w in list(self.workers):
                if w.pidfd is None and w.process.exitcode is not None:
                    self._on_exit(w)
        for w in list(self.workers):
            killpg(w.pid)
            self._on_exit(w)
        with self.pool._lock:
            wake_r, wake_w, self.pool._wake_r, self.pool._wake_w = (
                self.pool._wake_r,
                self.pool._wake_w,
                None,
                None,
            )
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

"""Start one sandboxed command and watch it: stdin through a read-only pipe, stdout/stderr through capped
pipes, a wall-clock deadline, and a kill of the whole process tree when anything runs over.

One thread per run, no helper threads: a selector waits on the pipes and on a pidfd of the child, so
the caller wakes when output arrives, when stdin has room, when the child exits, or at the deadline.
stdin is a pipe, not a file: the program holds only its read end (a host file would be a writable,
seekable handle outside the working directory's quota); what does not fit in the pipe up front is fed
by the same loop as the program reads it. The child is started
either directly (:class:`DirectStarter`, a ``Popen`` of ours, reaped with ``wait4``) or by a launcher
process that lives in the run's cgroups (``_launcher``); both report the exit status, CPU time and peak
memory the kernel gives ``wait4`` (which include the descendants reaped along the way).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["DirectStarter", "Outcome", "Started", "Starter", "supervise"]

_CHUNK = 1 << 16
_PRELUDE_MAX = 1 << 16  # bytes of sandbox-tool messages we accept before the marker token
_EXIT_GRACE_S = 0.5  # after the child exits, how long descendants may keep the pipes open
_KILL_GRACE_S = 5.0  # after SIGKILL, how long to wait for the exit notification
_PIPE_MAX = 1 << 20  # stdin pipe buffer asked for (the unprivileged maximum, /proc/sys/fs/pipe-max-size)
# The wall-clock limit counts from the program's start (the marker token), not the sandbox's set-up; a
# sandbox that has not started the program this long after its own limit is broken (a sandbox error).
_STARTUP_S = 30.0


@dataclass
class Outcome:
    """What happened, in raw form; the caller turns it into a RunResult."""

    started: bool = False  # the marker token was seen: the program itself ran
    exit_code: int | None = None
    signal: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    prelude: bytes = b""  # stderr of the sandbox tools before the token (their error messages)
    wall_s: float = 0.0
    cpu_s: float | None = None
    max_rss_kb: int = 0
    timed_out: bool = False
    output_exceeded: bool = False
    cancelled: bool = False
    truncated: bool = False
    error: str | None = None


@dataclass
class Started:
    """A started child: its pid, and how to collect ``(wait status, cpu seconds, max rss KB)`` once it
    has exited (None when that is unknown)."""

    pid: int
    reap: Callable[[], tuple[int, float, int] | None]
    direct: bool  # our own child: its pid stays reserved until we reap it
    watch: int | None = None  # readable once the child is done or whoever started it is gone


# Start ``argv`` with the given stdin/stdout/stderr fds, in a new session; the caller closes its fds.
Starter = Callable[[Sequence[str], Mapping[str, str], str, int, int, int], Started]


class DirectStarter:
    """``Popen`` from this process (the child is ours; we reap it)."""

    def __call__(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: str, stdin: int, stdout: int, stderr: int
    ) -> Started:
        proc = subprocess.Popen(
            list(argv),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,  # its own process group: one killpg reaches descendants that stay
            close_fds=True,
        )
        return Started(proc.pid, lambda: _wait4(proc), direct=True)


def _wait4(proc: subprocess.Popen[bytes]) -> tuple[int, float, int] | None:
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except ChildProcessError:
        proc.returncode = -1
        return None
    proc.returncode = os.waitstatus_to_exitcode(status)  # so Popen never waits for it again
    return status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


class _Capture:
    """One output stream: keeps at most ``cap`` bytes; stderr first looks for the marker token."""

    def __init__(self, cap: int, token: bytes | None) -> None:
        self.cap = cap
        self.token = token
        self.prelude = bytearray()
        self.data = bytearray()
        self.over = False

    def feed(self, chunk: bytes) -> None:
        if self.token is not None:
            self.prelude += chunk
            at = self.prelude.find(self.token)
            if at < 0:
                if len(self.prelude) > _PRELUDE_MAX + len(self.token):
                    self.over = True  # tools do not talk this much: treat as a broken sandbox
                return
            chunk = bytes(self.prelude[at + len(self.token) :])
            del self.prelude[at:]
            self.token = None
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.over = True
        self.data += chunk[: max(room, 0)]

    @property
    def started(self) -> bool:
        return self.token is None


def supervise(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str,
    stdin: bytes,
    token: bytes,
    wall_s: float,
    output_bytes: int,
    starter: Starter | None = None,
    cancel: threading.Event | None = None,
    kill_extra: Callable[[], None] | None = None,
    cpu_limit_s: float | None = None,
) -> Outcome:
    """Run ``argv`` (which must print ``token`` to stderr before the program starts) under a deadline.
    ``cpu_limit_s``: also kill it (a timeout) once the CPU time of its whole process tree passes this
    (:func:`tree_cpu_s`), for backends whose own limits are per process."""
    out = Outcome()
    start = time.monotonic()
    feed = _Feed(stdin)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        assert feed.read_end is not None
        child = _start(starter or DirectStarter(), argv, env, cwd, feed.read_end, out_w, err_w)
    except OSError as exc:
        for fd in (out_r, err_r):
            os.close(fd)
        feed.close()
        out.error = f"cannot start the sandbox: {exc}"
        return out
    captures = {out_r: _Capture(output_bytes, None), err_r: _Capture(output_bytes, token)}
    try:
        _watch(child, captures, out, (start, wall_s), cancel, kill_extra, feed, cpu_limit_s)
    finally:
        feed.close()
    out.wall_s = time.monotonic() - start
    _collect(child, out)
    stdout, stderr = captures.values()
    out.started = stderr.started
    out.stdout, out.stderr, out.prelude = bytes(stdout.data), bytes(stderr.data), bytes(stderr.prelude)
    out.truncated = stdout.over or (stderr.over and stderr.started)
    # truncated output always means the output limit, whichever event the loop saw first (the exit of a
    # program that overflowed stderr and then exited used to win, and report FINISHED)
    out.output_exceeded = out.truncated
    return out


class _Feed:
    """The program's stdin: a pipe whose write end stays here. What fits in the pipe buffer is written
    before the start; the rest when the loop sees room. Empty stdin is ``/dev/null``."""

    def __init__(self, data: bytes) -> None:
        self.pending = memoryview(data)
        self.write_end: int | None = None
        self.read_end: int | None
        if not data:
            self.read_end = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            return
        self.read_end, self.write_end = os.pipe()
        if len(data) > 1 << 16:
            with contextlib.suppress(OSError):
                fcntl.fcntl(self.write_end, fcntl.F_SETPIPE_SZ, min(len(data), _PIPE_MAX))
        os.set_blocking(self.write_end, False)
        if self.write():
            self.close_writer()

    def write(self) -> bool:
        """Write what the pipe takes now; True when done (all written, or the program stopped reading)."""
        assert self.write_end is not None
        while self.pending:
            try:
                n = os.write(self.write_end, self.pending[:_PIPE_MAX])
            except BlockingIOError:
                return False
            except OSError:  # EPIPE: the program closed its stdin or exited; the rest is not wanted
                return True
            self.pending = self.pending[n:]
        return True

    def close_writer(self) -> None:
        if self.write_end is not None:
            os.close(self.write_end)
            self.write_end = None

    def close_reader(self) -> None:
        """After the start: only the child holds the read end."""
        if self.read_end is not None:
            os.close(self.read_end)
            self.read_end = None

    def close(self) -> None:
        self.close_writer()
        self.close_reader()


def _start(
    starter: Starter,
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: str,
    stdin_fd: int,
    out_w: int,
    err_w: int,
) -> Started:
    try:
        return starter(argv, env, cwd, stdin_fd, out_w, err_w)
    finally:
        os.close(out_w)
        os.close(err_w)


def _watch(
    child: Started,
    captures: dict[int, _Capture],
    out: Outcome,
    deadline: tuple[float, float],
    cancel: threading.Event | None,
    kill_extra: Callable[[], None] | None,
    feed: _Feed,
    cpu_limit_s: float | None = None,
) -> None:
    pidfd, gone = _pidfd(child.pid)
    feed.close_reader()
    sel = selectors.DefaultSelector()
    try:
        for fd in captures:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        if feed.write_end is not None:
            sel.register(feed.write_end, selectors.EVENT_WRITE)
        if pidfd is not None:
            sel.register(pidfd, selectors.EVENT_READ)
        if child.watch is not None:
            sel.register(child.watch, selectors.EVENT_READ)
        loop = _Loop(child, sel, pidfd, captures, out, deadline, cancel, kill_extra, feed)
        loop.cpu = _CpuWatch(child.pid, cpu_limit_s) if cpu_limit_s is not None else None
        if gone:  # a launcher's child that exited (and was reaped) before we could open its pidfd
            loop.exited_at = time.monotonic()
        loop.run()
    finally:
        sel.close()
        if pidfd is not None:
            os.close(pidfd)
        for fd in captures:
            with contextlib.suppress(OSError):
                os.close(fd)


class _Loop:
    """The event loop of one run."""

    def __init__(
        self,
        child: Started,
        sel: selectors.BaseSelector,
        pidfd: int | None,
        captures: dict[int, _Capture],
        out: Outcome,
        deadline: tuple[float, float],
        cancel: threading.Event | None,
        kill_extra: Callable[[], None] | None,
        feed: _Feed,
    ) -> None:
        self.child, self.sel, self.pidfd, self.captures = child, sel, pidfd, captures
        self.feed = feed
        start, self.wall_s = deadline
        # until the program starts, the set-up gets _STARTUP_S more; then wall_s from its start
        self.deadline = start + self.wall_s + _STARTUP_S
        self.marker = next((c for c in captures.values() if c.token is not None), None)
        self.out, self.cancel, self.kill_extra = out, cancel, kill_extra
        self.exited_at: float | None = None
        self.killed_at: float | None = None
        self.open_fds = set(captures)
        self.cpu: _CpuWatch | None = None

    @property
    def killed(self) -> bool:
        return self.killed_at is not None

    def run(self) -> None:
        while True:
            now = time.monotonic()
            if self.exited_at is None and self.pidfd is None and self._gone():
                self.exited_at = now
            if self.exited_at is not None:
                if not self.killed:
                    self.kill()  # leftovers of a finished program (descendants holding the pipes)
                if not self.open_fds or now - self.exited_at > _EXIT_GRACE_S:
                    return
            elif self.killed_at is not None:
                if now - self.killed_at > _KILL_GRACE_S:
                    return  # no exit notification after SIGKILL: stop waiting, reaping will tell
            else:
                self.check_limits(now)
            for key, _ in self.sel.select(self.wait_for(now)):
                self.handle(int(key.fd))

    def _gone(self) -> bool:
        """Without a pidfd: our own child is polled; a launcher's is taken as gone once the pipes close."""
        return _exited(self.child) if self.child.direct else not self.open_fds

    def check_limits(self, now: float) -> None:
        if now >= self.deadline:
            self.out.timed_out = True
            self.kill()
        elif self.cancel is not None and self.cancel.is_set():
            self.out.cancelled = True
            self.kill()
        elif self.cpu is not None and self.cpu.over(now):
            self.out.timed_out = True
            self.kill()

    def wait_for(self, now: float) -> float:
        wait = 0.05 if self.killed else max(0.0, self.deadline - now)
        if self.cpu is not None and not self.killed:
            wait = min(wait, max(0.0, self.cpu.next_look - now))
        if self.cancel is not None or self.pidfd is None:
            wait = min(wait, 0.05)
        return wait

    def handle(self, fd: int) -> None:
        if fd == self.feed.write_end:
            if self.feed.write():
                self.sel.unregister(fd)
                self.feed.close_writer()
            return
        if fd in (self.pidfd, self.child.watch):
            self.sel.unregister(fd)
            if self.exited_at is None:
                self.exited_at = time.monotonic()
            return
        if _read_into(fd, self.captures[fd]):
            self.sel.unregister(fd)
            self.open_fds.discard(fd)
        if self.marker is not None and self.marker.started:
            self.marker = None
            self.deadline = time.monotonic() + self.wall_s
        if not self.killed and any(c.over for c in self.captures.values()):
            self.out.output_exceeded = True
            self.kill()

    def kill(self) -> None:
        self.killed_at = time.monotonic()
        _kill_tree(self.child, self.pidfd, self.kill_extra)


class _CpuWatch:
    """The CPU time of a process tree against a limit, looked at only when it could have reached it:
    n CPUs spend at most n seconds of CPU time per second."""

    def __init__(self, pid: int, limit_s: float) -> None:
        self.pid, self.limit_s = pid, limit_s
        self.cpus = max(1, len(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else 1
        self.next_look = time.monotonic() + limit_s / self.cpus

    def over(self, now: float) -> bool:
        if now < self.next_look:
            return False
        used = tree_cpu_s(self.pid)
        self.next_look = now + max(0.01, (self.limit_s - used) / self.cpus)
        return used >= self.limit_s


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and every descendant (``/proc/<pid>/task/*/children``),
    including what each of them has reaped (``cutime``, ``cstime``). Orphans of a PID namespace are
    reparented to its PID 1, so for a namespace's top process this is everything in it."""
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                data = fh.read()
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2 :].split()
        with contextlib.suppress(ValueError, IndexError):
            total += sum(int(x) for x in fields[11:15])
        for tid in tasks:
            with contextlib.suppress(OSError, ValueError), open(f"/proc/{p}/task/{tid}/children", "rb") as fh:
                todo.extend(int(c) for c in fh.read().split())
    return total / _TICK


def _read_into(fd: int, capture: _Capture) -> bool:
    """Read what is available; True at end of file."""
    try:
        chunk = os.read(fd, _CHUNK)
    except BlockingIOError:
        return False
    except OSError:
        return True
    if not chunk:
        return True
    capture.feed(chunk)
    return False


def _pidfd(pid: int) -> tuple[int | None, bool]:
    """(a pidfd for ``pid`` or None, whether the process is already gone)."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None, False
    try:
        return int(opener(pid)), False
    except ProcessLookupError:
        return None, True
    except OSError:
        return None, False


def _exited(child: Started) -> bool:
    """Without a pidfd: has our direct child exited? (Not reaped: its pid must stay reserved.)"""
    if not child.direct:
        return False
    try:
        info = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _kill_tree(child: Started, pidfd: int | None, kill_extra: Callable[[], None] | None) -> None:
    send = getattr(signal, "pidfd_send_signal", None)
    with contextlib.suppress(OSError):
        if pidfd is not None and send is not None:
            send(pidfd, signal.SIGKILL)  # cannot hit a recycled pid
        else:
            os.kill(child.pid, signal.SIGKILL)
    # The process group id is the child's pid. It cannot have been recycled while the child is unreaped:
    # ours until wait4, a launcher's until it reports the exit (a few microseconds after it).
    with contextlib.suppress(OSError):
        os.killpg(child.pid, signal.SIGKILL)
    if kill_extra is not None:
        kill_extra()


def _collect(child: Started, out: Outcome) -> None:
    try:
        reaped = child.reap()
    except OSError as exc:
        reaped = None
        out.error = f"lost the sandboxed process: {exc}"
    if reaped is None:
        out.error = out.error or "the exit status of the sandboxed process is unknown"
        return
    status, cpu_s, max_rss_kb = reaped
    if os.WIFSIGNALED(status):
        out.signal = os.WTERMSIG(status)
    else:
        out.exit_code = os.WEXITSTATUS(status)
    out.cpu_s, out.max_rss_kb = cpu_s, max_rss_kb

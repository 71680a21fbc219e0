"""Host IPC endpoints and memory the kernel charges to no address space (issue 23, red-team round 3:
p03/p04, p05/p33), each class with its variants, on both red-team set-ups (root through unshare, an
unprivileged caller through bwrap, which has no memory cgroup).

Class 1, host IPC through the file system view: a host Unix socket or FIFO at a path the run can see.
Variants: a socket made after the sandbox started (no set-up scan can know it), a datagram sent through
an already connected socket pair (``sendto`` with an address: no ``socket()`` call), a FIFO in a visible
system tree, io_uring (which creates sockets without the ``socket`` system call).

Class 2, memory outside the per-process limits (no cgroup under bwrap as non-root): memfd and SysV shm
(the red-team's), and shared anonymous mappings, SysV message queues, a tmpfs mounted in a nested user
namespace, POSIX message queues. Each probe tries to hold 3 x the documented bound
(``memory_mb x max_processes``) from one process.

Class 3, core dumps: a pipe ``core_pattern`` (apport, systemd-coredump) would start a host helper for every
crash; the kernel skips pipe helpers (and core files) for a process whose RLIMIT_CORE is exactly 1, so
runs get 1 and cannot change it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import stat
import sys
import textwrap
import threading

import pytest

from rewardloop.sandbox import Sandbox

from .conftest import ISOLATED

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux"),
    pytest.mark.sandbox,
]

MEMORY_MB, MAX_PROCESSES = 32, 4
WANT_MB = 3 * MEMORY_MB * MAX_PROCESSES  # 3 x the documented bound, from one process
CANARY = f"IPCCANARY{secrets.token_hex(6)}"


def _held(result: dict) -> int:
    for line in result["stdout"].splitlines():
        if line.startswith("HELD "):
            return int(line.split()[1])
    raise AssertionError(f"the probe did not report: {result}")


def _hold(backend, body: str) -> tuple[int, dict]:
    """Run ``body`` (which adds MB to ``total`` until WANT_MB, or stops with an OSError) at the bound."""
    code = "import os\ntotal = 0\ntry:\n" + textwrap.indent(textwrap.dedent(body), "    ")
    code += (
        "\nexcept (OSError, MemoryError, ValueError) as e:\n    print('stopped', e)\nprint('HELD', total)\n"
    )
    limits = {"memory_mb": MEMORY_MB, "max_processes": MAX_PROCESSES, "wall_s": 60}
    result = backend("run", code.replace("WANT_MB", str(WANT_MB)), limits=limits)
    # reaching the end means the program held it; a kill for memory (cgroup) prints nothing
    return (_held(result) if "HELD" in result["stdout"] else 0), result


# --------------------------------------------------------------------------- class 2: memory


def test_shared_anonymous_mappings_cannot_exceed_the_memory_bound(backend):
    held, result = _hold(
        backend,
        """
        import mmap
        maps = []
        while total < WANT_MB:
            m = mmap.mmap(-1, 8 << 20)  # MAP_SHARED | MAP_ANONYMOUS: shmem, not RLIMIT_DATA
            for i in range(0, 8 << 20, 4096):
                m[i] = 1
            maps.append(m)
            total += 8
        """,
    )
    assert held < WANT_MB, f"a {MEMORY_MB} MB run held {held} MB in shared anonymous mappings: {result}"


def test_shared_mappings_of_dev_zero_cannot_exceed_the_memory_bound(backend):
    """A MAP_SHARED mapping of /dev/zero is shmem as well: no MAP_ANONYMOUS flag for a filter to see."""
    held, result = _hold(
        backend,
        """
        import mmap
        fd = os.open('/dev/zero', os.O_RDWR)
        maps = []
        while total < WANT_MB:
            m = mmap.mmap(fd, 8 << 20, flags=mmap.MAP_SHARED)
            for i in range(0, 8 << 20, 4096):
                m[i] = 1
            maps.append(m)
            total += 8
        """,
    )
    assert held < WANT_MB, f"a {MEMORY_MB} MB run held {held} MB in shared /dev/zero mappings: {result}"


def test_sysv_message_queues_cannot_exceed_the_memory_bound(backend):
    held, result = _hold(
        backend,
        """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        msg = ctypes.create_string_buffer(8 + 8000)
        msg[0] = 1
        while total < WANT_MB:
            q = libc.msgget(0, 0o1600)  # IPC_PRIVATE | IPC_CREAT
            if q < 0:
                raise OSError(ctypes.get_errno(), 'msgget')
            sent = 0
            while libc.msgsnd(q, msg, 8000, 0o4000) == 0:  # IPC_NOWAIT
                sent += 8000
            total += sent // (1 << 20) or 1
        """,
    )
    assert held < WANT_MB, f"a {MEMORY_MB} MB run held {held} MB in SysV message queues: {result}"


def test_posix_message_queues_are_refused(backend):
    code = textwrap.dedent("""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.syscall(240 if __import__('platform').machine() == 'x86_64' else 180,
                          b'q', 0o100 | 2, 0o600, None)  # mq_open(O_CREAT | O_RDWR)
        print('OPENED' if fd >= 0 else 'refused %d' % ctypes.get_errno())
    """)
    result = backend("run", code, limits={"wall_s": 20})
    assert result["status"] == "finished" and "refused" in result["stdout"], result


def test_a_tmpfs_in_a_nested_user_namespace_cannot_exceed_the_memory_bound(backend):
    held, result = _hold(
        backend,
        """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(0x10000000 | 0x20000) != 0:  # CLONE_NEWUSER | CLONE_NEWNS
            raise OSError(ctypes.get_errno(), 'unshare')
        for name, text in (('setgroups', 'deny'), ('uid_map', f'0 {uid} 1'), ('gid_map', f'0 {gid} 1')):
            with open('/proc/self/' + name, 'w') as fh:
                fh.write(text)
        os.makedirs('m', exist_ok=True)
        if libc.mount(b'none', b'm', b'tmpfs', 0, b'size=1g') != 0:
            raise OSError(ctypes.get_errno(), 'mount')
        block = b'x' * (1 << 20)
        while total < WANT_MB:
            with open('m/f%d' % total, 'wb') as fh:
                for _ in range(8):
                    fh.write(block)
            total += 8
        """,
    )
    assert held < WANT_MB, f"a {MEMORY_MB} MB run held {held} MB in a private tmpfs: {result}"


# --------------------------------------------------------------------------- class 1: host IPC


@pytest.fixture
def visible_dir():
    """A fresh directory in a tree every run sees (``/usr/local``), made by root as a daemon would."""
    if os.geteuid() != 0:
        pytest.skip("needs root to make a directory in a system tree")
    base = "/usr/local/lib"
    if not os.path.isdir(base):
        pytest.skip(f"no {base} here")
    path = os.path.join(base, f"rl-ipc-{secrets.token_hex(4)}")
    os.mkdir(path, 0o755)
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


class _Listener:
    """A host service on a world-connectable Unix socket (stream and datagram) that records contacts."""

    def __init__(self, directory: str) -> None:
        self.stream_path = os.path.join(directory, "stream")
        self.dgram_path = os.path.join(directory, "dgram")
        self.contacts: list[str] = []
        self.stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.stream.bind(self.stream_path)
        self.stream.listen(8)
        self.stream.settimeout(0.2)
        self.dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.dgram.bind(self.dgram_path)
        self.dgram.settimeout(0.2)
        for p in (self.stream_path, self.dgram_path):
            os.chmod(p, 0o777)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=f, daemon=True) for f in (self._accept, self._recv)]
        for t in self._threads:
            t.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.stream.accept()
            except OSError:
                continue
            self.contacts.append("stream")
            with contextlib.suppress(OSError):
                conn.sendall(CANARY.encode())
                conn.close()

    def _recv(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.dgram.recv(4096)
            except OSError:
                continue
            self.contacts.append("dgram:" + data.decode(errors="replace"))

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(2)
        self.stream.close()
        self.dgram.close()


REACH_SOCKETS = """
import socket, sys
stream, dgram = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # a new socket, connected by path
try:
    s.connect(stream)
    print('STREAM', s.recv(100).decode())
except OSError as e:
    print('stream refused', e)
try:  # no socket(): a connected pair, then a datagram addressed to the host's socket
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendto(b'via-pair', dgram)
    print('SENT via a pair')
except OSError as e:
    print('pair refused', e)
try:
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    d.sendto(b'via-socket', dgram)
    print('SENT via a socket')
except OSError as e:
    print('dgram refused', e)
try:  # the abstract namespace: only a network namespace of its own separates it
    x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    x.connect('\\0' + stream)
    print('ABSTRACT connected')
except OSError as e:
    print('abstract refused', e)
"""


def test_a_host_unix_socket_made_after_the_sandbox_started_is_unreachable(backend, visible_dir):
    assert backend("run", "print('warm')")["stdout"] == "warm\n"  # the sandbox is set up before the socket
    listener = _Listener(visible_dir)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + listener.stream_path)
    abstract.listen(1)
    try:
        for network in (False, True):
            result = backend(
                "run",
                REACH_SOCKETS,
                args=[listener.stream_path, listener.dgram_path],
                limits={"wall_s": 20, "network": network},
            )
            assert result["status"] == "finished", result
            assert CANARY not in result["stdout"] and "SENT" not in result["stdout"], result["stdout"]
            assert "ABSTRACT connected" not in result["stdout"], result["stdout"]
        assert listener.contacts == [], f"the run reached a host socket: {listener.contacts}"
    finally:
        abstract.close()
        listener.close()


@pytest.mark.parametrize("isolation", ISOLATED or [None])
def test_a_host_fifo_in_a_visible_tree_is_covered(isolation, visible_dir):
    """A FIFO in a system tree at set-up (a daemon's, 0666): the run can neither write nor read it."""
    if isolation is None:
        pytest.skip("no namespace-based isolation here")
    fifo = os.path.join(visible_dir, "fifo")
    os.mkfifo(fifo)
    os.chmod(fifo, 0o666)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    os.write(writer, b"host-data")
    code = textwrap.dedent(f"""
        import os, stat
        print('fifo', stat.S_ISFIFO(os.stat({fifo!r}).st_mode))
        for flags, what in ((os.O_WRONLY, 'WROTE'), (os.O_RDONLY, 'READ')):
            try:
                fd = os.open({fifo!r}, flags | os.O_NONBLOCK)
                if what == 'WROTE':
                    os.write(fd, b'{CANARY}')
                    print(what)
                else:
                    print(what, os.read(fd, 100))
            except OSError as e:
                print('refused', e)
    """)
    try:
        with Sandbox(isolation=isolation) as sb:
            result = sb.run(code)
        assert result.status.value == "finished", result
        assert "WROTE" not in result.stdout and "READ b'host" not in result.stdout, result.stdout
        assert "fifo False" in result.stdout, f"the run still sees a FIFO there: {result.stdout}"
        with contextlib.suppress(BlockingIOError):
            assert CANARY.encode() not in os.read(reader, 4096)
    finally:
        os.close(writer)
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # the host's own FIFO is untouched


@pytest.mark.parametrize("isolation", ISOLATED or [None])
def test_a_covered_fifo_removed_after_set_up_breaks_nothing(isolation, visible_dir):
    """Found under load: a FIFO covered at set-up and removed later made every bwrap run a sandbox error."""
    if isolation is None:
        pytest.skip("no namespace-based isolation here")
    fifo = os.path.join(visible_dir, "gone")
    os.mkfifo(fifo)
    with Sandbox(isolation=isolation) as sb:
        assert sb.run("print(1)").stdout == "1\n"
        os.unlink(fifo)
        result = sb.run("print(2)")
        assert result.status.value == "finished" and result.stdout == "2\n", result


def test_io_uring_is_refused(backend):
    """io_uring can create and connect sockets without the system calls a filter sees."""
    code = textwrap.dedent("""
        import ctypes, platform
        libc = ctypes.CDLL(None, use_errno=True)
        params = ctypes.create_string_buffer(120)
        fd = libc.syscall(425, 8, params)  # io_uring_setup, same number everywhere
        print('RING' if fd >= 0 else 'refused %d' % ctypes.get_errno())
    """)
    result = backend("run", code, limits={"wall_s": 20})
    assert result["status"] == "finished" and "refused" in result["stdout"], result


# --------------------------------------------------------------------------- class 3: core dumps


def test_runs_cannot_leave_the_core_limit_that_skips_pipe_handlers(backend):
    code = textwrap.dedent("""
        import resource
        print('core', resource.getrlimit(resource.RLIMIT_CORE))
        for value in (0, 1 << 20):
            try:
                resource.setrlimit(resource.RLIMIT_CORE, (value, 1))
                print('CHANGED', value)
            except (OSError, ValueError) as e:
                print('refused', e)
    """)
    result = backend("run", code, limits={"wall_s": 20})
    assert result["status"] == "finished", result
    assert "core (1, 1)" in result["stdout"] and "CHANGED" not in result["stdout"], result["stdout"]
    # a crash is still reported as one (as PID 1 of its namespace, abort() ends in SIGSEGV, not SIGABRT)
    crash = backend("run", "import os\nos.abort()", limits={"wall_s": 20})
    assert crash["status"] == "finished" and crash["signal"] in (6, 11), crash

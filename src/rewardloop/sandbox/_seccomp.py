"""The seccomp filter every sandboxed command runs under (classic BPF, built here, installed by the
launcher on itself so that every process it starts inherits it; a filter can never be removed).

It refuses, with ``EPERM``, the system calls that reach host IPC endpoints or hold memory that no
per-process limit counts (red-team round 3, p03/p04 and p05/p33, and their variants in
``tests/sandbox/test_ipc_and_shared_memory.py``):

- ``socket(AF_UNIX, ...)``: a new Unix socket could connect to a host service by path (any visible
  socket, including one made after set-up) or, with ``network=True``, in the abstract namespace;
  ``socketpair(AF_UNIX, SOCK_DGRAM)``: a datagram pair can ``sendto`` any socket by address. Stream and
  seqpacket pairs (asyncio, ``multiprocessing.Pipe``) stay allowed: they reach nothing but each other.
- ``mknod``/``mknodat``: no FIFOs or sockets made where the host may open them (a build artefact the
  host copies, say).
- ``memfd_create``, ``memfd_secret``, SysV ``shmget``/``msgget``/``semget``, ``mq_open``, and ``mmap``
  with ``MAP_SHARED | MAP_ANONYMOUS``: shared memory and kernel-held queues, outside RLIMIT_DATA (and
  message queues outside a cgroup v1 memory cap without kernel-memory accounting).
- ``io_uring_setup``/``_enter``/``_register``: io_uring creates and connects sockets and opens files
  without the system calls this filter sees.
- ``inotify_init``/``inotify_init1``/``fanotify_init``: a watch on a visible host file would report the
  host's (and concurrent runs') accesses to it, an event channel into the run (breaker round 5).
- file locks are no-ops that succeed: ``flock`` and ``fcntl`` ``F_SETLK``/``F_SETLKW``/``F_OFD_SETLK``/
  ``F_OFD_SETLKW`` return 0 without taking a lock, so a lock a run takes on a visible host file (read-only
  is enough for a read lock) can neither stall a host writer nor signal a concurrent run (breaker round
  5). A program's own locking (sqlite in its working directory) still "succeeds"; a run is one program, so
  nothing it needs is lost. ``F_GETLK`` stays: it only reads.
- ``setrlimit``/``prlimit64`` of ``RLIMIT_CORE``: runs keep RLIMIT_CORE = 1, the value for which the
  kernel starts no pipe ``core_pattern`` helper (apport, systemd-coredump) and writes no core file.
- optionally ``unshare``/``clone`` with ``CLONE_NEWUSER`` (a user namespace of its own lets a program
  mount a tmpfs that no limit counts), and ``clone3`` (its flags are out of a filter's reach; glibc falls
  back to ``clone`` on ``ENOSYS``). Not for bwrap without root, which needs a user namespace itself and
  closes nested ones with ``--disable-userns``.

System calls of any other architecture (the 32-bit ABIs) kill the process.
"""

from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass

__all__ = ["filter_program", "supported"]

# BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JSET_K = 0x45
_JGE_K = 0x35
_AND_K = 0x54
_RET_K = 0x06

_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000

_AF_UNIX, _SOCK_DGRAM, _SOCK_TYPE_MASK = 1, 2, 0xF
_MAP_SHARED_ANON = 0x01 | 0x20  # MAP_SHARED (also set in MAP_SHARED_VALIDATE) | MAP_ANONYMOUS
_RLIMIT_CORE = 4
_F_SETLK, _F_SETLKW, _F_OFD_SETLK, _F_OFD_SETLKW = 6, 7, 37, 38
_CLONE_NEWUSER = 0x10000000
_X32_BIT = 0x40000000


@dataclass(frozen=True)
class _Arch:
    audit: int
    calls: dict[str, int]
    x32: bool = False


# Native system call numbers (x86_64's own table; aarch64, riscv64 and loongarch64 use the generic one).
_GENERIC = {
    "socket": 198,
    "socketpair": 199,
    "mknodat": 33,
    "memfd_create": 279,
    "memfd_secret": 447,
    "shmget": 194,
    "msgget": 186,
    "semget": 190,
    "mq_open": 180,
    "mmap": 222,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "setrlimit": 164,
    "prlimit64": 261,
    "unshare": 97,
    "clone": 220,
    "clone3": 435,
    "inotify_init1": 26,
    "fanotify_init": 262,
    "flock": 32,
    "fcntl": 25,
}
_ARCHES = {
    "x86_64": _Arch(
        0xC000003E,
        {
            "socket": 41,
            "socketpair": 53,
            "mknod": 133,
            "mknodat": 259,
            "memfd_create": 319,
            "memfd_secret": 447,
            "shmget": 29,
            "msgget": 68,
            "semget": 64,
            "mq_open": 240,
            "mmap": 9,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "setrlimit": 160,
            "prlimit64": 302,
            "unshare": 272,
            "clone": 56,
            "clone3": 435,
            "inotify_init": 253,
            "inotify_init1": 294,
            "fanotify_init": 300,
            "flock": 73,
            "fcntl": 72,
        },
        x32=True,
    ),
    "aarch64": _Arch(0xC00000B7, _GENERIC),
    "riscv64": _Arch(0xC00000F3, _GENERIC),
    "loongarch64": _Arch(0xC0000102, _GENERIC),
}
_DENIED = (
    "mknod",
    "mknodat",
    "memfd_create",
    "memfd_secret",
    "shmget",
    "msgget",
    "semget",
    "mq_open",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
)


def supported(machine: str | None = None) -> bool:
    return (machine or os.uname().machine) in _ARCHES


def _arg_lo(i: int) -> int:
    return 16 + 8 * i  # struct seccomp_data: nr, arch, instruction_pointer, args[6] (little endian)


def _arg_hi(i: int) -> int:
    return 20 + 8 * i


class _Program:
    def __init__(self) -> None:
        self.code: list[tuple[int, int, int, int]] = []

    def op(self, code: int, k: int, jt: int = 0, jf: int = 0) -> None:
        self.code.append((code, jt, jf, k))

    def rule(self, nr: int, body: list[tuple[int, int, int, int]]) -> None:
        """If the call is ``nr``, run ``body`` (which ends in a return); else skip past it."""
        self.op(_LD_W_ABS, 0)
        self.op(_JEQ_K, nr, 0, len(body))
        self.code.extend(body)


def _deny() -> tuple[int, int, int, int]:
    return (_RET_K, 0, 0, _ERRNO | errno.EPERM)


def _no_op() -> tuple[int, int, int, int]:
    """Return 0 without running the call (``SECCOMP_RET_ERRNO`` with errno 0)."""
    return (_RET_K, 0, 0, _ERRNO | 0)


def _allow() -> tuple[int, int, int, int]:
    return (_RET_K, 0, 0, _ALLOW)


def filter_program(deny_user_namespaces: bool, machine: str | None = None) -> bytes:
    """The filter as ``struct sock_filter[]`` bytes, for ``seccomp(SECCOMP_SET_MODE_FILTER)``."""
    arch = _ARCHES.get(machine or os.uname().machine)
    if arch is None:
        raise OSError(f"no seccomp filter for the {machine or os.uname().machine} architecture")
    calls = arch.calls
    p = _Program()
    p.op(_LD_W_ABS, 4)  # arch
    p.op(_JEQ_K, arch.audit, 1, 0)
    p.op(_RET_K, _KILL_PROCESS)
    if arch.x32:
        p.op(_LD_W_ABS, 0)
        p.op(_JGE_K, _X32_BIT, 0, 1)
        p.op(_RET_K, _KILL_PROCESS)
    for name in _DENIED:
        if name in calls:
            p.rule(calls[name], [_deny()])
    # socket(AF_UNIX, ...): the domain is an int, so only its low word counts
    p.rule(calls["socket"], [(_LD_W_ABS, 0, 0, _arg_lo(0)), (_JEQ_K, 0, 1, _AF_UNIX), _deny(), _allow()])
    p.rule(
        calls["socketpair"],
        [
            (_LD_W_ABS, 0, 0, _arg_lo(0)),
            (_JEQ_K, 0, 4, _AF_UNIX),
            (_LD_W_ABS, 0, 0, _arg_lo(1)),
            (_AND_K, 0, 0, _SOCK_TYPE_MASK),
            (_JEQ_K, 0, 1, _SOCK_DGRAM),
            _deny(),
            _allow(),
        ],
    )
    p.rule(
        calls["mmap"],
        [
            (_LD_W_ABS, 0, 0, _arg_lo(3)),
            (_AND_K, 0, 0, _MAP_SHARED_ANON),
            (_JEQ_K, 0, 1, _MAP_SHARED_ANON),
            _deny(),
            _allow(),
        ],
    )
    p.rule(
        calls["setrlimit"], [(_LD_W_ABS, 0, 0, _arg_lo(0)), (_JEQ_K, 0, 1, _RLIMIT_CORE), _deny(), _allow()]
    )
    # prlimit64(pid, resource, new, old): refused when it would set RLIMIT_CORE (new != NULL)
    p.rule(
        calls["prlimit64"],
        [
            (_LD_W_ABS, 0, 0, _arg_lo(1)),
            (_JEQ_K, 0, 5, _RLIMIT_CORE),
            (_LD_W_ABS, 0, 0, _arg_lo(2)),
            (_JEQ_K, 0, 2, 0),
            (_LD_W_ABS, 0, 0, _arg_hi(2)),
            (_JEQ_K, 1, 0, 0),
            _deny(),
            _allow(),
        ],
    )
    p.rule(calls["flock"], [_no_op()])
    # fcntl(fd, cmd, ...): cmd is an int, its low word; the four lock-setting commands are no-ops
    p.rule(
        calls["fcntl"],
        [
            (_LD_W_ABS, 0, 0, _arg_lo(1)),
            (_JEQ_K, 4, 0, _F_SETLK),
            (_JEQ_K, 3, 0, _F_SETLKW),
            (_JEQ_K, 2, 0, _F_OFD_SETLK),
            (_JEQ_K, 1, 0, _F_OFD_SETLKW),
            _allow(),
            _no_op(),
        ],
    )
    if deny_user_namespaces:
        for name in ("unshare", "clone"):
            p.rule(
                calls[name],
                [(_LD_W_ABS, 0, 0, _arg_lo(0)), (_JSET_K, 0, 1, _CLONE_NEWUSER), _deny(), _allow()],
            )
        p.rule(calls["clone3"], [(_RET_K, 0, 0, _ERRNO | errno.ENOSYS)])
    p.op(_RET_K, _ALLOW)
    return b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in p.code)

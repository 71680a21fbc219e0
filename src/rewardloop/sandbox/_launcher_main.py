# ruff: noqa: ANN001, UP031
"""A launcher process (see :mod:`._launcher`): ``python -I -S -c <this file's source> SOCKET_FD FILTER``;
rewardloop is never imported here.

At start it confines itself, so that everything it ever starts inherits it (none of it can be undone):
RLIMIT_CORE = 1 (the kernel starts no pipe ``core_pattern`` helper and writes no core file for such a
process), ``no_new_privs`` and the seccomp filter ``FILTER`` (hex ``struct sock_filter[]`` bytes, built by
:mod:`._seccomp`). It answers ``ready`` or ``error <why>`` on the socket, then serves requests: the command
and its stdio descriptors (SCM_RIGHTS) in, the pid out, then the wait status and resource usage.
"""

import contextlib
import ctypes
import errno
import json
import os
import resource
import socket
import subprocess
import sys

sock = socket.socket(fileno=int(sys.argv[1]))
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong)
# keyctl's syscall number per architecture (the generic table for the newer ones)
KEYCTL = {
    "x86_64": 250,
    "i686": 288,
    "i386": 288,
    "aarch64": 219,
    "riscv64": 219,
    "loongarch64": 219,
    "armv7l": 311,
    "ppc64le": 311,
    "ppc64": 311,
    "s390x": 280,
}.get(os.uname().machine)
JOIN_SESSION_KEYRING, KEYCTL_CLEAR, SESSION_KEYRING = 1, 7, -3
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


class SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def confine(program):
    resource.setrlimit(resource.RLIMIT_CORE, (1, 1))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "prctl(PR_SET_NO_NEW_PRIVS): " + os.strerror(err))
    buf = ctypes.create_string_buffer(program, len(program))
    prog = SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "seccomp filter: " + os.strerror(err))


def new_session_keyring():
    if KEYCTL is None:
        raise OSError("keyctl: unknown system call number on %s" % os.uname().machine)
    if libc.syscall(ctypes.c_long(KEYCTL), ctypes.c_long(JOIN_SESSION_KEYRING), ctypes.c_void_p(None)) < 0:
        err = ctypes.get_errno()
        # ENOSYS: a kernel without keyrings; EPERM: a seccomp filter denying keyctl (Docker's default
        # profile denies keyctl, add_key and request_key), which the run inherits. Either way the run
        # has no keyring to share. Anything else: the run is not started.
        if err not in (errno.ENOSYS, errno.EPERM):
            raise OSError(err, "keyctl(JOIN_SESSION_KEYRING): " + os.strerror(err))


def oom_score_adj(value):
    try:
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write(value)
    except OSError:
        pass


def serve():
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 24, 3)
        except OSError:
            break
        if not msg:
            break
        req = json.loads(msg)
        # The child inherits 1000: the kernel kills the run's processes first, never the launcher.
        # Raising our own value and lowering it back to where it was needs no privilege, and keeps vfork
        # usable.
        oom_score_adj("1000")
        try:
            new_session_keyring()
            proc = subprocess.Popen(
                req["argv"],
                stdin=fds[0],
                stdout=fds[1],
                stderr=fds[2],
                env=req["env"],
                cwd=req["cwd"],
                start_new_session=True,
                close_fds=True,
            )
        except Exception as exc:
            reply = {"error": "%s: %s" % (type(exc).__name__, exc)}
            proc = None
        else:
            reply = {"pid": proc.pid}
        finally:
            oom_score_adj("0")
        for fd in fds:
            os.close(fd)
        sock.send(json.dumps(reply).encode())
        if proc is None:
            continue
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = 0
        # Empty the run's session keyring (we possess it) and let go of it: its keys are freed now,
        # before the run's uid is given to another run (the kernel may keep the keyring itself a while).
        libc.syscall(ctypes.c_long(KEYCTL or 0), ctypes.c_long(KEYCTL_CLEAR), ctypes.c_long(SESSION_KEYRING))
        with contextlib.suppress(OSError):
            new_session_keyring()
        usage = {"status": status, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss}
        sock.send(json.dumps(usage).encode())


try:
    confine(bytes.fromhex(sys.argv[2]))
except Exception as exc:
    sock.send(("error %s: %s" % (type(exc).__name__, exc)).encode())
    sys.exit(1)
sock.send(b"ready")
serve()

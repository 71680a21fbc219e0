# ruff: noqa: ANN001
"""The key janitor: runs as root (``python -I -S``, standard library only; :mod:`._uids` reads this file as
source and never imports it). For each line ``<uid>`` on stdin it forks a child that becomes that uid and
empties its user, user-session and persistent keyrings, then answers ``ok`` or ``err <why>``.

A child per request: the janitor itself stays root, and a uid's keyrings are reachable only as that uid
(``@u``, ``@us`` and ``KEYCTL_GET_PERSISTENT`` name the caller's own). Clearing needs write permission,
which a run can take away from its own keyrings; then the answer is ``err`` and the uid is retired.
"""

import ctypes
import os
import sys
import time

KEYCTL_NR = {
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
KEYCTL_GET_KEYRING_ID, KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR, KEYCTL_UNLINK = 0, 1, 7, 9
KEYCTL_GET_PERSISTENT = 22
SESSION, USER, USER_SESSION = -3, -4, -5
ENOSYS, EOPNOTSUPP, EPERM = 38, 95, 1

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def keyctl(*args):
    values = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    result = libc.syscall(ctypes.c_long(KEYCTL_NR), *values)
    return result, (ctypes.get_errno() if result < 0 else 0)


NO_KEYRINGS = 4  # exit code: keyctl is unavailable here (nothing to clear, nothing to wait for)


def clear_as(uid):
    """In the child: become ``uid`` and empty its keyrings. Exit code: the number of keyrings the uid
    keeps (its user and user-session keyrings, and the persistent one where the kernel has it: 2 or 3),
    NO_KEYRINGS, or >= 10 for a failure. Nothing else is created: the persistent keyring is linked into
    the user-session keyring, which is emptied last."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    kept = 2
    # the persistent keyring is reachable (so ours to clear) only once it is linked into a keyring we
    # possess: the janitor's own session keyring, which we inherited; unlinked again afterwards
    found, err = keyctl(KEYCTL_GET_KEYRING_ID, USER, 1)
    if found < 0 and err in (ENOSYS, EPERM):
        return NO_KEYRINGS  # a kernel without keyrings, or a seccomp filter denying keyctl
    persistent, err = keyctl(KEYCTL_GET_PERSISTENT, -1, SESSION)
    if persistent < 0 and err != EOPNOTSUPP:
        return 100 + min(err, 80)
    if persistent >= 0:
        kept = 3
        result, err = keyctl(KEYCTL_CLEAR, persistent)
        keyctl(KEYCTL_UNLINK, persistent, SESSION)
        if result < 0:
            return 190 + min(err, 60)
    for ring in (USER, USER_SESSION):
        result, err = keyctl(KEYCTL_CLEAR, ring)
        if result < 0:
            return 10 + min(err, 80)
    return kept


def owned_keys(uid):
    """How many keys ``uid`` owns now (``/proc/key-users``: ``uid: usage nkeys/ninstantiated ...``)."""
    with open("/proc/key-users") as fh:
        for line in fh:
            head, _, rest = line.partition(":")
            if head.strip() == str(uid):
                return int(rest.split()[1].split("/")[0])
    return 0


def settled(uid, kept):
    """Keys the last run linked elsewhere (its session keyring) die when their last reference goes, and
    the kernel frees them a moment later; until it has, they are still listed in ``/proc/keys`` to their
    owner. Wait (bounded) until the uid owns only its own keyrings."""
    for _ in range(2000):
        if owned_keys(uid) <= kept:
            return True
        time.sleep(0.001)
    return False


def serve():
    if KEYCTL_NR is None:
        print("err keyctl: unknown system call number on " + os.uname().machine, flush=True)
        return
    # a session keyring of our own (root's, anonymous): the children link the persistent keyring there
    keyctl(KEYCTL_JOIN_SESSION_KEYRING, None)
    print("ok", flush=True)
    for line in sys.stdin:
        uid = int(line)
        pid = os.fork()
        if pid == 0:
            try:
                code = clear_as(uid)
            except BaseException:
                code = 254
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code in (2, 3) and not settled(uid, code):
            code = 9  # keys of the last run were not freed in time: the uid is retired
        print("ok" if code in (2, 3, NO_KEYRINGS) else f"err {code}", flush=True)


serve()

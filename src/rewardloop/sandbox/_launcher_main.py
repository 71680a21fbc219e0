# ruff: noqa: ANN001, UP031
"""A launcher process (see :mod:`._launcher`): ``python -I -S -c <this file's source> SOCKET_FD FILTER``;
rewardloop is never imported here.

At start it confines itself, so that everything it ever starts inherits it (none of it can be undone):
RLIMIT_CORE = 1 (the kernel starts no pipe ``core_pattern`` helper and writes no core file for such a
process), ``no_new_privs`` and the seccomp filter ``FILTER`` (hex ``struct sock_filter[]`` bytes, built by
:mod:`._seccomp`). It answers ``ready`` or ``error <why>`` on the socket, then serves requests: the command
and its stdio descriptors (SCM_RIGHTS) in, the pid out, then the wait status and resource usage.

A request with an ``isolate`` part (the ``unshare`` backend) is started with no helper program at all:
the launcher enters the sandbox's mount namespace (the holder's), unshares fresh mount, PID, IPC, UTS
and network namespaces, forks their PID 1, a *reaper*, and returns to its own namespaces. The reaper
(root, not dumpable, its own ``/proc`` mounted) forks the program's process, which sets the resource
limits, drops to the run's uid/gid with no groups and no capabilities (empty bounding, inheritable,
ambient, permitted and effective sets; checked), checks that the program can run, writes the marker
token to stderr and ``exec``-s the program: one ``exec`` per run. The reaper reaps every process of the
namespace, so the CPU time of orphans and of children nobody waits for is accounted; it bounds the CPU
time of the whole namespace (the ``utime + stime + cutime + cstime`` of every process in its ``/proc``,
read only once that sum could have reached the limit, as n CPUs spend at most n seconds a second) and
kills the namespace past it; when the program's process ends it kills and reaps what is left, and
reports the program's wait status and the CPU time and peak memory of all of it.
"""

import contextlib
import ctypes
import errno
import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import time

sock = socket.socket(fileno=int(sys.argv[1]))
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong)
libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p)
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
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 1, 4, 24, 47, 4
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = (
    0x20000,
    0x4000000,
    0x8000000,
    0x20000000,
    0x40000000,
)
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000
LINUX_CAPABILITY_VERSION_3 = 0x20080522
RLIMITS = {
    "cpu": resource.RLIMIT_CPU,
    "stack": resource.RLIMIT_STACK,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "data": resource.RLIMIT_DATA,
    "nproc": resource.RLIMIT_NPROC,
}
MAX_FD = 1 << 16


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


# ------------------------------------------------------------------------------------ isolated runs


def check(ret, what):
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, "%s: %s" % (what, os.strerror(err)))


def die(message, code=126):
    """In a forked process: say why on the run's stderr (before the marker: a sandbox error) and exit."""
    with contextlib.suppress(OSError):
        os.write(2, ("sandbox: %s\n" % message).encode(errors="replace"))
    os._exit(code)


class CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


def drop_privileges(uid):
    """The run's uid and gid, no supplementary groups, empty capability sets (bounding, ambient,
    inheritable, permitted, effective), no_new_privs; checked afterwards."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    try:
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            last = int(fh.read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        if libc.prctl(PR_CAPBSET_DROP, cap, None, 0, 0) != 0 and ctypes.get_errno() != errno.EINVAL:
            check(-1, "prctl(PR_CAPBSET_DROP, %d)" % cap)
    check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, None, 0, 0), "prctl(PR_CAP_AMBIENT)")
    os.setresuid(uid, uid, uid)
    header = CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (CapData * 2)()
    check(libc.capset(ctypes.byref(header), data), "capset")
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, None, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid) or os.getgroups():
        raise OSError("the uid/gid switch did not take")
    with open("/proc/self/status") as fh:
        caps = [
            line.split()[1]
            for line in fh
            if line.startswith(("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"))
        ]
    if len(caps) != 5 or any(int(c, 16) for c in caps):
        raise OSError("capabilities left after the drop: %s" % caps)


def find_program(name, env):
    if "/" in name:
        return name
    for d in env.get("PATH", os.defpath).split(":"):
        path = os.path.join(d or ".", name)
        if os.access(path, os.X_OK) and not os.path.isdir(path):
            return path
    return name


def become_program(req):
    """The program's process (PID 2 of the run's namespace): limits, identity, checks, marker, exec."""
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        os.closerange(3, MAX_FD)
        os.chdir(req["cwd"])
        drop_privileges(req["isolate"]["uid"])
        for name, value in req["isolate"]["rlimits"].items():
            resource.setrlimit(RLIMITS[name], (value, value))
    except Exception as exc:
        die("could not confine the run: %s: %s" % (type(exc).__name__, exc))
    argv, env = req["argv"], req["env"]
    path = find_program(argv[0], env)
    if not os.access(path, os.X_OK) or os.path.isdir(path):
        die("cannot execute %s" % argv[0])
    if not os.access(".", os.W_OK):
        die("the working directory is not writable")
    try:
        os.write(2, req["isolate"]["token"].encode())
        os.execve(path, argv, env)
    except Exception as exc:  # after the marker: the program's own failure, as a shell's exec
        die("%s: %s" % (argv[0], exc), 127)


def namespace_cpu(tick):
    """utime + stime + cutime + cstime of every process in this PID namespace's /proc, in seconds: the
    CPU time of everything alive, of every zombie, and of everything each of them has reaped."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2 :].split()
        with contextlib.suppress(ValueError, IndexError):
            total += sum(int(x) for x in fields[11:15])
    return total / tick


def reap(program, limit_s):
    """PID 1's loop: reap everything until the program's process ends, kill the namespace once its CPU
    time passes ``limit_s``; then kill and reap what is left. (wait status, CPU-limit kill)"""
    tick = os.sysconf("SC_CLK_TCK")
    cpus = max(1, len(os.sched_getaffinity(0)))
    # n CPUs spend at most n seconds of CPU per second: no need to look before the sum could be there
    next_look = time.monotonic() + limit_s / cpus
    status, over = None, False
    while status is None:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == program:
            status = st
        if pid:
            continue
        now = time.monotonic()
        if now >= next_look:
            used = namespace_cpu(tick)
            if used >= limit_s and not over:
                over = True
                with contextlib.suppress(OSError):
                    os.kill(-1, signal.SIGKILL)
            next_look = now + max(0.01, (limit_s - used) / cpus)
        signal.sigtimedwait([signal.SIGCHLD], max(0.001, next_look - now))
    while True:
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)
        try:
            pid, st = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == program and status is None:
            status = st
    return status, over


def be_reaper(req, fds, report):
    """PID 1 of the run's namespaces (forked by the launcher right after it made them)."""
    try:
        check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, None, 0, 0), "prctl(PR_SET_PDEATHSIG)")
        os.close(ALIVE[1])  # (our copy of the launcher's end)
        if select.select([ALIVE[0]], [], [], 0)[0]:  # end of file: the launcher died before the line above
            os._exit(1)
        os.setsid()
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        keep = sorted({0, 1, 2, report})
        for low, high in zip(keep, [*keep[1:], MAX_FD], strict=True):
            os.closerange(low + 1, high)
        check(libc.prctl(PR_SET_DUMPABLE, 0, None, 0, 0), "prctl(PR_SET_DUMPABLE)")
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
        check(libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
        program = os.fork()
    except Exception as exc:
        die("the run's PID 1 failed: %s: %s" % (type(exc).__name__, exc))
    if program == 0:
        become_program(req)
    status, over = reap(program, float(req["isolate"]["cpu_s"]))
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    line = "%d %r %d %d\n" % (-1 if status is None else status, cpu, usage.ru_maxrss, over)
    with contextlib.suppress(OSError):
        os.write(report, line.encode())
    os._exit(0)


OWN_NS: dict[int, int] = {}  # the launcher's own namespaces, to return to after making a run's
ALIVE = os.pipe()  # the launcher holds the write end for good: its reapers see end of file once it is gone
NS_TYPES = (
    ("mnt", CLONE_NEWNS),
    ("ipc", CLONE_NEWIPC),
    ("uts", CLONE_NEWUTS),
    ("net", CLONE_NEWNET),
    ("pid", CLONE_NEWPID),
)


def start_isolated(req, fds):
    """Make the run's namespaces (a copy of the holder's mount namespace, fresh PID, IPC, UTS and network
    ones) from the launcher itself, fork their PID 1, and return to the launcher's own namespaces (a
    launcher that cannot is beyond use: it exits). (PID 1's pid, the read end of its report pipe)"""
    if not OWN_NS:
        for name, kind in NS_TYPES:
            OWN_NS[kind] = os.open("/proc/self/ns/" + name, os.O_RDONLY | os.O_CLOEXEC)
    report_r, report_w = os.pipe()
    mnt = None
    try:
        mnt = os.open(req["isolate"]["mnt"], os.O_RDONLY | os.O_CLOEXEC)
        check(libc.setns(mnt, CLONE_NEWNS), "setns(the sandbox's mount namespace)")
        flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
        if not req["isolate"]["network"]:
            flags |= CLONE_NEWNET
        check(libc.unshare(flags), "unshare")
        pid = os.fork()
        if pid == 0:
            try:
                os.close(report_r)
                be_reaper(req, fds, report_w)
            finally:
                os._exit(126)
    except BaseException:
        os.close(report_r)
        raise
    finally:
        os.close(report_w)
        if mnt is not None:
            os.close(mnt)
        try:
            for kind, fd in OWN_NS.items():
                check(libc.setns(fd, kind), "setns(back)")
            os.chdir("/")
        except OSError:
            os._exit(3)
    return pid, report_r


def isolated_usage(status, usage, report_r):
    """The run's wait status and usage: PID 1's account (the program's status, the CPU time of
    everything in the namespace) when it gave one, else PID 1's own (killed with the run, say)."""
    with os.fdopen(report_r, "rb") as fh:
        line = fh.read(4096).split()
    if len(line) == 4 and int(line[0]) >= 0:
        return {
            "status": int(line[0]),
            "cpu": float(line[1]),
            "rss": int(line[2]),
            "cpu_limit": line[3] == b"1",
        }
    return {"status": status, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss}


def descendants(pid):
    """Every process below ``pid`` (``/proc/<pid>/task/<tid>/children``), parents before children."""
    out, todo = [], [pid]
    while todo:
        parent = todo.pop(0)
        try:
            tasks = os.listdir("/proc/%d/task" % parent)
        except OSError:
            continue
        for tid in tasks:
            with contextlib.suppress(OSError, ValueError):
                with open("/proc/%d/task/%s/children" % (parent, tid)) as fh:
                    kids = [int(x) for x in fh.read().split()]
                out.extend(kids)
                todo.extend(kids)
    return out


def wait_or_abandon(pid):
    """``wait4`` on the run; if the socket reaches end of file first (the sandbox's process is gone, so nobody
    bounds the run's wall time any more), kill the run (its process group: the reaper, PID 1 of its
    namespaces, or bwrap / the program, each a session leader) and then wait."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return os.wait4(pid, 0)
    watch = [sock, pidfd]
    try:
        while sock in watch:
            ready = select.select(watch, [], [])[0]
            if pidfd in ready:
                break
            try:
                peek = sock.recv(1, socket.MSG_PEEK)
            except OSError:
                peek = b""
            if peek:  # nothing is sent during a run; if it is, just wait
                watch.remove(sock)
                continue
            # the run's processes first, top down: a PID namespace's init (bwrap --as-pid-1) ignores the
            # death signal of its parent, but not a SIGKILL from here
            for child in descendants(pid):
                with contextlib.suppress(OSError):
                    os.kill(child, signal.SIGKILL)
            for kill in (os.killpg, os.kill):
                with contextlib.suppress(OSError):
                    kill(pid, signal.SIGKILL)
            break
    finally:
        os.close(pidfd)
    return os.wait4(pid, 0)


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
        proc = report = None
        try:
            new_session_keyring()
            if req.get("isolate"):
                pid, report = start_isolated(req, fds)
            else:
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
                pid = proc.pid
        except Exception as exc:
            reply = {"error": "%s: %s" % (type(exc).__name__, exc)}
            pid = None
        else:
            reply = {"pid": pid}
        finally:
            oom_score_adj("0")
        for fd in fds:
            os.close(fd)
        sock.send(json.dumps(reply).encode())
        if pid is None:
            continue
        _, status, ru = wait_or_abandon(pid)
        if proc is not None:
            proc.returncode = 0
        # Empty the run's session keyring (we possess it) and let go of it: its keys are freed now,
        # before the run's uid is given to another run (the kernel may keep the keyring itself a while).
        libc.syscall(ctypes.c_long(KEYCTL or 0), ctypes.c_long(KEYCTL_CLEAR), ctypes.c_long(SESSION_KEYRING))
        with contextlib.suppress(OSError):
            new_session_keyring()
        if report is not None:
            usage = isolated_usage(status, ru, report)
        else:
            usage = {"status": status, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss}
        sock.send(json.dumps(usage).encode())


try:
    confine(bytes.fromhex(sys.argv[2]))
except Exception as exc:
    sock.send(("error %s: %s" % (type(exc).__name__, exc)).encode())
    sys.exit(1)
sock.send(b"ready")
serve()

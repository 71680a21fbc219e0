"""Isolation backends: which namespaces, mounts and credentials a run gets, and where its files live.

``unshare`` (root; util-linux ``unshare``/``nsenter``/``prlimit``)
    A long-lived *holder* process owns a private mount namespace, set up once per sandbox: a tmpfs covers
    each hidden directory (``/root``, ``/home``, ``/tmp``, ``/run`` ..., every non-standard top-level
    directory, the checkout and the current directory), the toolchains and the compile cache are bound
    back read-only, the system's own mounts are remounted ``nosuid``, and every run gets its own
    size-capped tmpfs as working directory, mounted by the holder on request and reached from the parent
    through ``/proc/<holder>/root``. A run enters that mount namespace with ``nsenter`` and gets fresh
    PID, network, IPC and UTS namespaces (and its own ``/proc``) from ``unshare``, which also switches to
    a random unprivileged uid/gid with no supplementary groups.
``bwrap`` (bubblewrap, when installed; works without root)
    The same hidden/visible layout built per run by bubblewrap (which also sets ``no_new_privs``), the
    working directory a host directory bound in; as root the program is also switched to a random uid
    with ``setpriv``.
``none``
    No namespaces: a scrubbed environment, resource limits, a new session and a private directory.

Every backend wraps the same inner command: ``prlimit`` (resource limits) and a two-line ``sh`` *marker*
that writes a random token to stderr right before ``exec``-ing the program. The parent only trusts that
the program ran when it sees the token, so a failure of the sandbox machinery is never mistaken for (and
cannot be forged by) the program.

cgroups (root only, v1 or v2, where this process may create children of its own cgroups) add a memory
cap over the whole process tree, plus a task cap and CPU accounting where the backend lacks them; see
``_launcher`` for how runs are started inside them without a per-run migration.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import ConfigError
from ._process import Outcome

__all__ = [
    "ISOLATIONS",
    "Backend",
    "CgroupRun",
    "Cgroups",
    "MountPlan",
    "Workdir",
    "choose_isolation",
    "marker_command",
    "pid_alive",
    "plan_mounts",
    "unreachable_for_others",
]

log = logging.getLogger(__name__)

ISOLATIONS = ("auto", "unshare", "bwrap", "none")

# Directories a tmpfs covers by default: homes, scratch space shared with other users, runtime sockets.
DEFAULT_HIDDEN = ("/root", "/home", "/tmp", "/var/tmp", "/dev/shm", "/run", "/mnt", "/media", "/srv")
# The standard top-level directories (FHS, plus /nix and /snap, which hold software). Every other
# top-level directory (a data volume, a checkout, the machine's own tooling) is hidden by default.
_STANDARD_TOP = frozenset(
    [
        "bin",
        "boot",
        "dev",
        "etc",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "opt",
        "proc",
        "sbin",
        "sys",
        "usr",
        "var",
        "nix",
        "snap",
        "lost+found",
    ]
)
# Never hidden, whatever the caller or the current directory says: the system itself.
_SYSTEM_TREES = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/proc",
    "/sys",
    "/dev",
)
_SYSTEM = ("/", *_SYSTEM_TREES)
_WORKSPACE = "/tmp/sandbox"  # inside the holder's namespace, on the tmpfs that covers /tmp
_UNSHARE_SIGKILL = b"unshare: sigprocmask unblock failed: Invalid argument\n"


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


# ----------------------------------------------------------------------------------------------------------
# The mount plan


@dataclass(frozen=True)
class MountPlan:
    """``hidden``: directories covered by an empty tmpfs. ``exposed``: (target, source) bound back read-only."""

    hidden: tuple[str, ...]
    exposed: tuple[tuple[str, str], ...]


def project_root() -> str | None:
    """The source checkout rewardloop runs from (the directory holding ``pyproject.toml``/``.git``), if any."""
    here = os.path.realpath(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    if any(part in ("site-packages", "dist-packages") for part in here.split(os.sep)):
        return None
    for candidate in (here, os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
        if any(os.path.exists(os.path.join(candidate, m)) for m in ("pyproject.toml", ".git")):
            return candidate
    return None


def plan_mounts(extra_hidden: Iterable[str], keep_visible: Iterable[str]) -> MountPlan:
    """Hide the defaults, the project checkout, the current directory and ``extra_hidden``; keep
    ``keep_visible`` (toolchains, the compile cache) reachable at their paths."""
    derived = [p for p in (project_root(), _cwd(), *_unusual_top_level()) if p]
    derived = [p for p in derived if not any(_under(p, s) for s in _SYSTEM_TREES)]
    visible = sorted({os.path.abspath(p) for p in keep_visible} | {os.path.realpath(p) for p in keep_visible})
    hidden: list[str] = []
    for raw in sorted({*DEFAULT_HIDDEN, *derived, *extra_hidden}, key=len):
        path = os.path.realpath(raw)
        if path in _SYSTEM or not os.path.isdir(path) or (os.path.islink(raw) and raw in DEFAULT_HIDDEN):
            continue
        if any(_under(path, h) for h in hidden) or any(_under(path, v) for v in visible):
            continue
        hidden.append(path)
    exposed: list[tuple[str, str]] = []
    for target in sorted(visible, key=len):
        if not os.path.isdir(target) or not any(_under(target, h) for h in hidden):
            continue
        if any(_under(target, t) for t, _ in exposed):
            continue
        exposed.append((target, os.path.realpath(target)))
    return MountPlan(tuple(hidden), tuple(exposed))


def unreachable_for_others(path: str, plan: MountPlan) -> str | None:
    """The first directory on the way to ``path`` (as the sandbox will see it) that other users cannot
    cross or read, or None. Directories the plan replaces (hidden tmpfs and the parents it makes) pass."""
    path = os.path.realpath(path)
    current = "/"
    for part in [p for p in path.split("/") if p]:
        current = os.path.join(current, part)
        covered = any(_under(current, h) for h in plan.hidden)
        bound = any(_under(current, t) for t, _ in plan.exposed)
        if covered and not bound:
            continue
        mode = os.stat(current).st_mode
        needed = 0o005 if current == path else 0o001
        if mode & needed != needed:
            return current
    return None


def _unusual_top_level() -> list[str]:
    try:
        names = os.listdir("/")
    except OSError:
        return []
    paths = [os.path.join("/", n) for n in names if n not in _STANDARD_TOP]
    return [p for p in paths if os.path.isdir(p) and not os.path.islink(p)]


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


# ----------------------------------------------------------------------------------------------------------
# Probing and choosing


@functools.cache
def _probe(mode: str) -> str | None:
    """None when ``mode`` works here, else why not."""
    if not sys.platform.startswith("linux"):
        return "needs Linux"
    if not shutil.which("prlimit"):
        return "util-linux prlimit not found"
    if mode == "unshare":
        if os.geteuid() != 0:
            return "needs root (it mounts, switches uid and creates namespaces)"
        if not (shutil.which("unshare") and shutil.which("nsenter")):
            return "util-linux unshare/nsenter not found"
        cmd = ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--mount-proc", "true"]
    elif mode == "bwrap":
        if not shutil.which("bwrap"):
            return "bubblewrap (bwrap) not installed"
        cmd = ["bwrap", "--dev-bind", "/", "/", "--unshare-pid", "--unshare-net", "--proc", "/proc", "true"]
    else:
        return None
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"probe failed: {exc}"
    return None if done.returncode == 0 else f"probe failed: {done.stderr.decode(errors='replace').strip()}"


def choose_isolation(requested: str) -> str:
    """The backend to use. ``auto`` prefers unshare, then bwrap, then none (with a warning)."""
    if requested not in ISOLATIONS:
        raise ConfigError(f"Unknown sandbox isolation {requested!r}. Allowed: {', '.join(ISOLATIONS)}")
    if requested != "auto":
        why = _probe(requested)
        if why:
            raise ConfigError(f"Sandbox isolation {requested!r} is not available here: {why}")
        return requested
    for mode in ("unshare", "bwrap"):
        if _probe(mode) is None:
            return mode
    why = _probe("none")
    if why:
        raise ConfigError(f"No sandbox isolation is available here: {why}")
    return "none"


# ----------------------------------------------------------------------------------------------------------
# Commands shared by every backend


def marker_command(token: str, argv: Sequence[str]) -> list[str]:
    """``sh`` that checks the program is executable, writes ``token`` to stderr, then becomes the program."""
    script = (
        'if [ ! -x "$1" ]; then echo "sandbox: cannot execute $1" >&2; exit 126; fi\n'
        'if [ ! -w . ]; then echo "sandbox: the working directory is not writable" >&2; exit 126; fi\n'
        'printf %s "$0" >&2 && exec "$@"'
    )
    return ["/bin/sh", "-c", script, token, *argv]


def prlimit_command(
    *, cpu_s: int, data_b: int | None, stack_b: int, fsize_b: int, nproc: int | None
) -> list[str]:
    argv = [
        "prlimit",
        f"--cpu={cpu_s}",
        f"--stack={stack_b}",
        f"--fsize={fsize_b}",
        "--core=0",
        "--nofile=1024",
    ]
    if data_b is not None:
        argv.append(f"--data={data_b}")
    if nproc is not None:
        argv.append(f"--nproc={nproc}")
    return [*argv, "--"]


@dataclass(frozen=True)
class Workdir:
    """A run's working directory: ``inner`` as the program sees it, ``host`` as the parent reaches it."""

    name: str
    inner: str
    host: str


class Backend:
    """Base: private directories on the host, no namespaces (the ``none`` backend)."""

    name = "none"
    drops_privileges = False
    has_quota = False
    rusage_complete = True  # wait4 on the first process accounts the program's CPU time
    # RLIMIT_NPROC counts the tasks of a uid (per user namespace): exact when the run has a uid, or a
    # user namespace, of its own; useless for root and too broad for a uid shared with other processes
    nproc_exact = False
    # Joining a v1 cgroup costs a few ms per hierarchy, so each backend joins only what it lacks: the
    # memory cap of the whole tree always; a task cap where RLIMIT_NPROC cannot work (root, no uid
    # switch); CPU accounting where wait4 does not see the program.
    cgroup_controllers: tuple[str, ...] = ("memory", "pids")

    def __init__(self, base: str, plan: MountPlan) -> None:
        self._base = base
        self._plan = plan
        os.makedirs(os.path.join(base, "w"), mode=0o711, exist_ok=True)

    def start(self) -> None:
        """Prepare long-lived state (the unshare holder); cheap and idempotent."""

    def make_workdir(self, quota_bytes: int, inodes: int, uid: int) -> Workdir:
        name = secrets.token_hex(6)
        host = os.path.join(self._base, "w", name)
        os.mkdir(host, 0o700)
        if uid != os.geteuid():
            os.chown(host, uid, uid)
        return Workdir(name, host, host)

    def remove_workdir(self, wd: Workdir) -> None:
        _force_rmtree(wd.host)

    def wrap(self, inner: list[str], wd: Workdir, uid: int, network: bool) -> list[str]:
        return inner

    def popen_cwd(self, wd: Workdir) -> str:
        return wd.host

    def fix_outcome(self, out: Outcome) -> None:
        """Undo what the wrapper tools do to the program's exit status."""

    def close(self) -> None:
        """Release long-lived state."""


def _force_rmtree(path: str) -> None:
    """Remove a run's directory even where the program made parts of it unreadable to us."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        return
    except OSError:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
        for root, dirs, _ in os.walk(path):
            for d in dirs:
                full = os.path.join(root, d)
                if not os.path.islink(full):  # chmod follows links: never through one
                    with contextlib.suppress(OSError):
                        os.chmod(full, 0o700)
        shutil.rmtree(path, ignore_errors=True)


class BwrapBackend(Backend):
    """bubblewrap per run: hidden directories, read-only toolchains, fresh namespaces."""

    name = "bwrap"
    nproc_exact = True  # a random uid as root, a user namespace of its own otherwise
    rusage_complete = False  # bwrap reports the exit status over a pipe; nobody reaps through to us
    cgroup_controllers = ("memory", "cpuacct")

    def __init__(self, base: str, plan: MountPlan) -> None:
        super().__init__(base, plan)
        self.drops_privileges = os.geteuid() == 0

    def wrap(self, inner: list[str], wd: Workdir, uid: int, network: bool) -> list[str]:
        argv = ["bwrap", "--dev-bind", "/", "/"]
        for path in self._plan.hidden:
            argv += ["--tmpfs", path]
        for target, source in self._plan.exposed:
            # bwrap makes missing parents 0700, which the run's uid could not cross: make them 0755
            for parent in _parents_below(target, self._plan.hidden):
                argv += ["--perms", "0755", "--dir", parent]
            argv += ["--ro-bind", source, target]
        for parent in _parents_below(wd.host, self._plan.hidden):
            argv += ["--perms", "0755", "--dir", parent]
        argv += ["--bind", wd.host, wd.host, "--proc", "/proc", "--dev", "/dev"]
        argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        if not network:
            argv.append("--unshare-net")
        argv += ["--die-with-parent", "--new-session", "--chdir", wd.host, "--"]
        if self.drops_privileges:
            argv += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
        return argv + inner

    def fix_outcome(self, out: Outcome) -> None:
        # bwrap's init exits with 128 + N when the program died of signal N. A program that exits with
        # such a code itself is reported as signalled: a failure either way, and TIMEOUT still needs the
        # CPU time to be spent.
        if out.exit_code is not None and 128 < out.exit_code <= 128 + 64:
            out.exit_code, out.signal = None, out.exit_code - 128


def _parents_below(target: str, hidden: Sequence[str]) -> list[str]:
    """The directories strictly between the hidden root that covers ``target`` and ``target``."""
    root = max((h for h in hidden if _under(target, h)), key=len, default=None)
    parents: list[str] = []
    path = os.path.dirname(target)
    while root is not None and path != root and _under(path, root):
        parents.append(path)
        path = os.path.dirname(path)
    return parents[::-1]


class UnshareBackend(Backend):
    """A holder process owns the mount namespace; each run enters it and unshares the rest."""

    name = "unshare"
    drops_privileges = True
    nproc_exact = True
    has_quota = True
    cgroup_controllers = ("memory",)

    def __init__(self, base: str, plan: MountPlan) -> None:
        self._base = base
        self._plan = plan
        if "/tmp" not in plan.hidden or os.path.realpath("/tmp") != "/tmp":
            raise ConfigError("isolation='unshare' needs /tmp to be a real directory it can cover")
        self._lock = threading.Lock()
        self._holder: subprocess.Popen[str] | None = None

    def start(self) -> None:
        with self._lock:
            if self._holder is None or self._holder.poll() is not None:
                self._holder = _start_holder(self._plan)

    def _request(self, line: str) -> None:
        with self._lock:
            holder = self._holder
            if holder is None or holder.poll() is not None:
                holder = self._holder = _start_holder(self._plan)
            assert holder.stdin is not None and holder.stdout is not None
            try:
                holder.stdin.write(line + "\n")
                holder.stdin.flush()
                answer = holder.stdout.readline().strip()
            except (OSError, ValueError) as exc:
                answer = f"err holder pipe: {exc}"
        if answer != "ok":
            raise OSError(f"sandbox mount holder: {answer or 'no answer (holder died)'}")

    def make_workdir(self, quota_bytes: int, inodes: int, uid: int) -> Workdir:
        name = secrets.token_hex(6)
        self._request(f"mk {name} {quota_bytes} {inodes} {uid}")
        inner = f"{_WORKSPACE}/{name}"
        return Workdir(name, inner, f"/proc/{self._pid()}/root{inner}")

    def remove_workdir(self, wd: Workdir) -> None:
        with contextlib.suppress(OSError):
            self._request(f"rm {wd.name}")

    def _pid(self) -> int:
        holder = self._holder
        if holder is None:
            raise OSError("sandbox mount holder is not running")
        return holder.pid

    def wrap(self, inner: list[str], wd: Workdir, uid: int, network: bool) -> list[str]:
        argv = ["nsenter", f"--mount=/proc/{self._pid()}/ns/mnt", "--", "unshare"]
        argv += ["--pid", "--fork", "--kill-child", "--mount-proc", "--ipc", "--uts"]
        if not network:
            argv.append("--net")
        argv += ["--setuid", str(uid), "--setgid", str(uid), "--wd", wd.inner, "--"]
        return argv + inner

    def popen_cwd(self, wd: Workdir) -> str:
        return "/"

    def fix_outcome(self, out: Outcome) -> None:
        # util-linux unshare (2.38) cannot re-raise SIGKILL on itself when its child died of it: it prints
        # this line and exits 1. A program that prints it gains nothing: a SIGKILL is a failure as well,
        # and TIMEOUT / MEMORY_EXCEEDED need the CPU time or the cgroup's OOM counter.
        if out.exit_code == 1 and out.stderr.endswith(_UNSHARE_SIGKILL):
            out.stderr = out.stderr[: -len(_UNSHARE_SIGKILL)]
            out.exit_code, out.signal = None, 9

    def close(self) -> None:
        with self._lock:
            holder, self._holder = self._holder, None
        if holder is not None:
            _stop(holder)


def _stop(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(OSError, ValueError):
        if proc.stdin:
            proc.stdin.close()
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
    for stream in (proc.stdout, proc.stderr):
        with contextlib.suppress(OSError, ValueError):
            if stream:
                stream.close()


# The holder: runs as root in its own mount namespace (``unshare --mount``), sets the mounts up, answers
# "mk NAME SIZE INODES UID" / "rm NAME" requests on stdin, and exits (dropping the namespace) at EOF.
_HOLDER_SOURCE = r"""
import ctypes, json, os, sys
cfg = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = (ctypes.c_char_p,) * 3 + (ctypes.c_ulong, ctypes.c_char_p)
libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)
RDONLY, NOSUID, NODEV, REMOUNT, BIND, REC, DETACH = 1, 2, 4, 32, 4096, 16384, 2

def enc(s):
    return None if s is None else s.encode()

def mount(src, dst, fstype, flags, data):
    if libc.mount(enc(src), enc(dst), enc(fstype), flags, enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), dst)

fds = [(target, os.open(source, os.O_PATH | os.O_DIRECTORY)) for target, source in cfg["exposed"]]
for path in cfg["hidden"]:
    mount("tmpfs", path, "tmpfs", NOSUID | NODEV, "mode=755,size=4m,nr_inodes=65536")
for target, fd in fds:
    os.makedirs(target, mode=0o755, exist_ok=True)
    mount("/proc/self/fd/%d" % fd, target, None, BIND | REC, None)
    mount(None, target, None, REMOUNT | BIND | RDONLY | NOSUID | NODEV, None)
    os.close(fd)
# No set-uid programs inside: remount the system's own mounts nosuid (keeping their other flags).
ST_TO_MS = {1: RDONLY, 2: NOSUID, 4: NODEV, 8: 8, 1024: 1024, 2048: 2048, 4096: 1 << 21}
with open("/proc/self/mountinfo") as fh:
    points = [line.split()[4] for line in fh]
for point in points:
    if point != "/" and not point.startswith(("/usr/", "/opt/", "/var/", "/etc/", "/boot/")):
        continue
    try:
        st = os.statvfs(point).f_flag
        flags = REMOUNT | BIND | NOSUID
        for st_bit, ms_bit in ST_TO_MS.items():
            if st & st_bit:
                flags |= ms_bit
        mount(None, point, None, flags, None)
    except OSError:
        pass
ws = cfg["workspace"]
os.makedirs(ws, mode=0o711, exist_ok=True)
os.chmod(ws, 0o711)
print("ok", flush=True)
for line in sys.stdin:
    try:
        op, name, *rest = line.split()
        if not name.isalnum():
            raise ValueError("bad name %r" % name)
        path = ws + "/" + name
        if op == "mk":
            size, inodes, uid = (int(x) for x in rest)
            os.mkdir(path, 0o700)
            opts = "size=%d,nr_inodes=%d,mode=700,uid=%d,gid=%d" % (size, inodes, uid, uid)
            mount("tmpfs", path, "tmpfs", NOSUID | NODEV, opts)
        elif op == "rm":
            if libc.umount2(enc(path), DETACH) != 0:
                err = ctypes.get_errno()
                raise OSError(err, os.strerror(err), path)
            os.rmdir(path)
        else:
            raise ValueError("unknown request %r" % op)
        print("ok", flush=True)
    except Exception as exc:
        print(("err %s" % exc).replace("\n", " "), flush=True)
"""


def _start_holder(plan: MountPlan) -> subprocess.Popen[str]:
    config = json.dumps({"hidden": plan.hidden, "exposed": plan.exposed, "workspace": _WORKSPACE})
    argv = ["unshare", "--mount", "--propagation", "private", "--"]
    argv += [sys.executable, "-I", "-S", "-c", _HOLDER_SOURCE, config]
    holder = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd="/",
        env={"PATH": os.defpath, "LANG": "C.UTF-8"},
    )
    assert holder.stdout is not None and holder.stderr is not None
    if holder.stdout.readline().strip() != "ok":
        holder.kill()
        err = holder.stderr.read().strip().splitlines()
        holder.wait()
        raise OSError(f"sandbox mount holder failed to start: {err[-1] if err else 'no output'}")
    return holder


def make_backend(mode: str, base: str, plan: MountPlan) -> Backend:
    if mode == "unshare":
        return UnshareBackend(base, plan)
    if mode == "bwrap":
        return BwrapBackend(base, plan)
    return Backend(base, plan)


# ----------------------------------------------------------------------------------------------------------
# cgroups: a memory cap for the whole process tree and a task cap, where the hierarchy is writable


class CgroupRun:
    """One cgroup per controller (the same directory for all of them on v2) that processes can join.

    ``configure`` writes the limits and takes a baseline of the counters, so ``oom_killed``/``cpu_s`` report
    what happened since; the cgroups of a launcher slot are reused run after run this way.
    """

    def __init__(self, dirs: Mapping[str, tuple[str, int]]) -> None:
        self._dirs = dict(dirs)  # controller -> (directory, version)
        self._oom_base = 0
        self._cpu_base = 0.0

    @property
    def dirs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d for d, _ in self._dirs.values()))

    def join(self, pid: int) -> None:
        for d in self.dirs:
            _write(os.path.join(d, "cgroup.procs"), str(pid))

    def configure(self, memory_bytes: int | None, max_tasks: int) -> bool:
        """Set the limits of the next run; False when the cgroup cannot take them."""
        try:
            if "memory" in self._dirs:
                d, version = self._dirs["memory"]
                _limit_memory(d, version, memory_bytes)
            if "pids" in self._dirs:
                _write(os.path.join(self._dirs["pids"][0], "pids.max"), str(max_tasks))
        except OSError as exc:
            log.debug("cannot set cgroup limits: %s", exc)
            return False
        self._oom_base = self._oom_count()
        self._cpu_base = self._cpu_total() or 0.0
        return True

    def oom_killed(self) -> bool:
        return self._oom_count() > self._oom_base

    def cpu_s(self) -> float | None:
        total = self._cpu_total()
        return None if total is None else max(0.0, total - self._cpu_base)

    def _oom_count(self) -> int:
        if "memory" not in self._dirs:
            return 0
        d, version = self._dirs["memory"]
        events = os.path.join(d, "memory.events" if version == 2 else "memory.oom_control")
        return _counter(events, "oom_kill") or 0

    def _cpu_total(self) -> float | None:
        if "cpuacct" not in self._dirs:
            return None
        d, version = self._dirs["cpuacct"]
        if version == 2:
            usec = _counter(os.path.join(d, "cpu.stat"), "usage_usec")
            return None if usec is None else usec / 1e6
        try:
            with open(os.path.join(d, "cpuacct.usage")) as fh:
                return int(fh.read()) / 1e9
        except (OSError, ValueError):
            return None

    def kill_all(self, spare: int | None = None) -> None:
        for d in self.dirs:
            for pid in _read_pids(os.path.join(d, "cgroup.procs")):
                if pid != spare:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)

    def destroy(self) -> None:
        for d in self.dirs:
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    self.kill_all()
                    threading.Event().wait(0.01)


def _counter(path: str | None, key: str) -> int | None:
    """The value of ``key`` in a "key value" per line file."""
    if path is None:
        return None
    try:
        with open(path) as fh:
            for line in fh:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return None


def _read_pids(path: str) -> list[int]:
    try:
        with open(path) as fh:
            return [int(x) for x in fh.read().split()]
    except (OSError, ValueError):
        return []


_CONTROLLERS = ("memory", "pids", "cpuacct")
_LIMIT_FILE = {
    1: {"memory": "memory.limit_in_bytes", "pids": "pids.max", "cpuacct": "cpuacct.usage"},
    2: {"memory": "memory.max", "pids": "pids.max", "cpuacct": "cpu.stat"},
}


class Cgroups:
    """Makes cgroups under this process's own ones (v1 or v2), where root can: a memory cap for the whole
    process tree, a task cap, and CPU accounting that sees every descendant."""

    def __init__(self, controllers: Sequence[str] = _CONTROLLERS) -> None:
        self._parents: dict[str, tuple[str, int]] = {}  # controller -> (parent directory, version)
        self._prefix = f"rewardloop-{os.getpid()}-{secrets.token_hex(3)}"
        self._counter = 0
        self._lock = threading.Lock()
        if os.geteuid() == 0 and sys.platform.startswith("linux"):
            for controller in controllers:
                found = _find_controller(controller)
                if found:
                    self._parents[controller] = found
                    _remove_stale(found[0])

    @property
    def available(self) -> bool:
        return bool(self._parents)

    def has(self, controller: str) -> bool:
        return controller in self._parents

    def describe(self) -> str:
        return ", ".join(f"{c} (v{v})" for c, (_, v) in self._parents.items()) or "none"

    def create(self) -> CgroupRun | None:
        """New, empty cgroups (one per controller), or None when none can be made."""
        if not self._parents:
            return None
        with self._lock:
            self._counter += 1
            name = f"{self._prefix}-{self._counter}"
        made: dict[str, tuple[str, int]] = {}
        try:
            for controller, (parent, version) in self._parents.items():
                d = os.path.join(parent, name)
                if d not in (m for m, _ in made.values()):
                    os.mkdir(d)
                made[controller] = (d, version)
        except OSError as exc:
            log.debug("cannot create cgroups: %s", exc)
            CgroupRun(made).destroy()
            return None
        return CgroupRun(made)


def _remove_stale(parent: str) -> None:
    """Remove the (empty) cgroups left by sandboxes of processes that died without cleaning up."""
    with contextlib.suppress(OSError):
        for name in os.listdir(parent):
            if name.startswith("rewardloop-") and not pid_alive(name.split("-")[1]):
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(parent, name))


def pid_alive(pid: str) -> bool:
    """Does a process with this (decimal string) pid exist? Unparseable counts as alive: keep it."""
    return not pid.isdigit() or os.path.exists(f"/proc/{pid}")


def _limit_memory(d: str, version: int, memory_bytes: int | None) -> None:
    if version == 2:
        _write(os.path.join(d, "memory.max"), "max" if memory_bytes is None else str(memory_bytes))
        with contextlib.suppress(OSError):
            _write(os.path.join(d, "memory.swap.max"), "0")
        return
    value = "-1" if memory_bytes is None else str(memory_bytes)
    mem, memsw = os.path.join(d, "memory.limit_in_bytes"), os.path.join(d, "memory.memsw.limit_in_bytes")
    if not os.path.exists(memsw):
        _write(mem, value)
        return
    try:  # memsw must stay >= mem: lower mem first, raise memsw first
        _write(mem, value)
        _write(memsw, value)
    except OSError:
        _write(memsw, value)
        _write(mem, value)


def _write(path: str, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


def _find_controller(controller: str) -> tuple[str, int] | None:
    """(the directory of this process's cgroup for ``controller``, hierarchy version), if we can make
    children there that carry the controller's limit file."""
    own = _own_cgroups()
    for mount_point, fstype, options in _cgroup_mounts():
        if fstype == "cgroup" and controller in options.split(","):
            path, version = own.get(controller), 1
        elif fstype == "cgroup2":
            path, version = own.get(""), 2
        else:
            continue
        if path is None:
            continue
        parent = os.path.join(mount_point, path.lstrip("/"))
        if _can_create(parent, _LIMIT_FILE[version][controller]):
            return parent, version
    return None


def _can_create(parent: str, limit_file: str) -> bool:
    probe = os.path.join(parent, f"rewardloop-probe-{os.getpid()}-{secrets.token_hex(3)}")
    try:
        os.mkdir(probe)
    except OSError:
        return False
    try:
        return os.path.exists(os.path.join(probe, limit_file))
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(probe)


def _own_cgroups() -> dict[str, str]:
    """controller -> path of this process's cgroup ("" is the v2 unified hierarchy)."""
    own: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as fh:
            for line in fh:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for c in controllers.split(",") if controllers else [""]:
                    own[c] = path
    except (OSError, ValueError):
        pass
    return own


def _cgroup_mounts() -> list[tuple[str, str, str]]:
    """(mount point, fs type, super options) of every cgroup mount, from /proc/self/mountinfo."""
    mounts = []
    try:
        with open("/proc/self/mountinfo") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                    mounts.append((fields[4].replace("\\040", " "), tail[0], tail[2]))
    except OSError:
        pass
    return mounts

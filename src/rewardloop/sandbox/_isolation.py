"""Isolation backends: which namespaces, mounts and credentials a run gets, and where its files live.

``unshare`` (root; util-linux ``unshare``/``nsenter``/``prlimit``)
    A long-lived *holder* process owns a private mount namespace, set up once per sandbox: a tmpfs covers
    each hidden directory (``/root``, ``/home``, ``/tmp``, ``/run`` ..., every non-standard top-level
    directory, the checkout and the current directory), the toolchains are bound back read-only, every
    mount is made ``nosuid,nodev`` (one recursive ``mount_setattr``), ``/dev`` is replaced by a tmpfs
    with a few device nodes, and the holder checks its mount table and refuses to start if any
    reachable mount lacks either flag. Every run gets its own size-capped tmpfs as working directory
    (with its own compile-cache entry bound in read-only), mounted by the holder on request and reached
    from the parent through ``/proc/<holder>/root``. A run enters that mount namespace with ``nsenter``
    and gets fresh PID, network, IPC and UTS namespaces (and its own ``/proc``) from ``unshare``.
``bwrap`` (bubblewrap, when installed; works without root)
    The same hidden/visible layout built per run by bubblewrap (``--bind / /`` remounts every mount
    ``nosuid,nodev``; ``--dev`` gives a private ``/dev``), the working directory a host directory bound in.

Both then run ``setpriv``: ``no_new_privs``, empty bounding/inheritable/ambient capability sets and, as
root, a random unprivileged uid/gid with no supplementary groups. The session keyring is renewed per run
by the launcher (``_launcher``).
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
# The device nodes a sandbox's /dev holds (each its own bind mount, so each must allow devices).
DEVICE_NODES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
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


def plan_mounts(
    extra_hidden: Iterable[str], keep_visible: Iterable[str], defaults: Iterable[str] = DEFAULT_HIDDEN
) -> MountPlan:
    """Hide ``defaults``, the project checkout, the current directory and ``extra_hidden`` (a symbolic
    link is followed: its target is hidden); keep ``keep_visible`` (toolchain directories or files)
    reachable at their paths, except any that is ``/``, a home directory or above one."""
    derived = [p for p in (project_root(), _cwd(), *_unusual_top_level()) if p]
    derived = [p for p in derived if not any(_under(p, s) for s in _SYSTEM_TREES)]
    visible = {p for raw in keep_visible for p in (os.path.abspath(raw), os.path.realpath(raw))}
    visible = {p for p in visible if not too_broad_to_expose(p)}
    hidden: list[str] = []
    for path in sorted({os.path.realpath(raw) for raw in (*defaults, *derived, *extra_hidden)}, key=len):
        if path in _SYSTEM or not os.path.isdir(path):
            continue
        if any(_under(path, h) for h in hidden) or any(_under(path, v) for v in visible):
            continue
        hidden.append(path)
    exposed: list[tuple[str, str]] = []
    for target in sorted(visible, key=len):
        if not os.path.exists(target) or not any(_under(target, h) for h in hidden):
            continue
        if any(_under(target, t) for t, _ in exposed):
            continue
        exposed.append((target, os.path.realpath(target)))
    return MountPlan(tuple(hidden), tuple(exposed))


def home_directories() -> set[str]:
    """This user's ``$HOME``, ``/root`` and the homes of the machine's login accounts (uid >= 1000)."""
    homes = {os.path.expanduser("~"), "/root"}
    with contextlib.suppress(Exception):
        import pwd

        homes.update(pw.pw_dir for pw in pwd.getpwall() if pw.pw_uid >= 1000 and pw.pw_uid != 65534)
    homes = {os.path.realpath(h) for h in homes if h and os.path.isabs(h)}
    return {h for h in homes if h != "/" and not any(_under(h, t) for t in _SYSTEM_TREES)} | {"/root"}


def too_broad_to_expose(path: str) -> bool:
    """Would keeping ``path`` visible expose far more than a toolchain: ``/``, a default hidden
    directory, a home directory, or a directory above one?"""
    path = os.path.realpath(path)
    if path == "/" or path in DEFAULT_HIDDEN:
        return True
    return any(_under(home, path) for home in home_directories())


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
    if mode != "none" and not shutil.which("setpriv"):
        return "util-linux setpriv not found (it drops capabilities and sets no_new_privs)"
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
    """The backend to use. ``auto`` is unshare, else bwrap, else a :class:`ConfigError` saying why neither
    works: it never falls back to ``none``, which runs only when it is named."""
    if requested not in ISOLATIONS:
        raise ConfigError(f"Unknown sandbox isolation {requested!r}. Allowed: {', '.join(ISOLATIONS)}")
    if requested != "auto":
        why = _probe(requested)
        if why:
            raise ConfigError(f"Sandbox isolation {requested!r} is not available here: {why}")
        return requested
    reasons = {}
    for mode in ("unshare", "bwrap"):
        why = _probe(mode)
        if why is None:
            return mode
        reasons[mode] = why
    raise ConfigError(
        "No sandbox isolation is available here ("
        + "; ".join(f"{mode}: {why}" for mode, why in reasons.items())
        + "). Install bubblewrap or run as root; to run untrusted code with this user's rights, network "
        "and files anyway, name it: isolation='none' (or REWARDLOOP_SANDBOX_ISOLATION=none)"
    )


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


def privileges_command(uid: int | None) -> list[str]:
    """``setpriv``: ``no_new_privs``, empty bounding, inheritable and ambient capability sets, and (when
    ``uid`` is given, i.e. we are root) the run's own uid and gid with no supplementary groups."""
    argv = ["setpriv", "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all"]
    if uid is not None:
        argv += [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    return [*argv, "--"]


@dataclass(frozen=True)
class Workdir:
    """A run's working directory: ``inner`` as the program sees it, ``host`` as the parent reaches it.
    ``build``: the compile cache entry (``<key>/<artefact>``, relative to the cache directory) bound
    read-only into it as ``./<artefact>``, for a compiled program's run."""

    name: str
    inner: str
    host: str
    build: str | None = None


class Backend:
    """Base: private directories on the host, no namespaces (the ``none`` backend)."""

    name = "none"
    # mount points that may allow device nodes (see unsafe_mounts)
    device_nodes: tuple[str, ...] = DEVICE_NODES
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

    def __init__(self, base: str, plan: MountPlan, cache_dir: str | None = None) -> None:
        self._base = base
        self._plan = plan
        self._cache_dir = cache_dir
        os.makedirs(os.path.join(base, "w"), mode=0o711, exist_ok=True)

    def start(self) -> None:
        """Prepare long-lived state (the unshare holder); cheap and idempotent."""

    def make_workdir(self, quota_bytes: int, inodes: int, uid: int, build: str | None = None) -> Workdir:
        """A fresh working directory for ``uid``; ``build`` (a cache entry's ``<key>/<artefact>``) appears
        in it as ``./<artefact>``."""
        name = secrets.token_hex(6)
        host = os.path.join(self._base, "w", name)
        os.mkdir(host, 0o700)
        if uid != os.geteuid():
            os.chown(host, uid, uid)
        if build is not None and self._cache_dir is not None:  # no isolation: a link to the entry
            os.symlink(os.path.join(self._cache_dir, build), os.path.join(host, os.path.basename(build)))
        return Workdir(name, host, host, build)

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

    # the device nodes of bwrap's --dev, and its private devpts instance
    device_nodes = (*DEVICE_NODES, "/dev/pts")

    def __init__(self, base: str, plan: MountPlan, cache_dir: str | None = None) -> None:
        super().__init__(base, plan, cache_dir)
        self.drops_privileges = os.geteuid() == 0

    def make_workdir(self, quota_bytes: int, inodes: int, uid: int, build: str | None = None) -> Workdir:
        wd = super().make_workdir(quota_bytes, inodes, uid)  # the build is bound in by wrap()
        return Workdir(wd.name, wd.inner, wd.host, build)

    def wrap(self, inner: list[str], wd: Workdir, uid: int, network: bool) -> list[str]:
        # --ro-bind (not --dev-bind): bwrap remounts / and every mount below it read-only, nosuid and
        # nodev, and fails if it cannot; --dev then replaces /dev with a few device nodes
        argv = ["bwrap", "--ro-bind", "/", "/"]
        for path in self._plan.hidden:
            if not _under(path, "/dev"):  # replaced by --dev below
                argv += ["--tmpfs", path]
        for target, source in self._plan.exposed:
            # bwrap makes missing parents 0700, which the run's uid could not cross: make them 0755
            for parent in _parents_below(target, self._plan.hidden):
                argv += ["--perms", "0755", "--dir", parent]
            argv += ["--ro-bind", source, target]
        for parent in _parents_below(wd.host, self._plan.hidden):
            argv += ["--perms", "0755", "--dir", parent]
        argv += ["--bind", wd.host, wd.host]
        if wd.build is not None and self._cache_dir is not None:
            source = os.path.join(self._cache_dir, wd.build)
            argv += ["--ro-bind", source, os.path.join(wd.host, os.path.basename(wd.build))]
        argv += ["--proc", "/proc", "--dev", "/dev"]
        # The hidden tmpfs mounts and /dev are the sandbox user's own under a user namespace, and no
        # memory limit counts them: once the mount points inside them exist, they become read-only, so
        # the working directory (its own bind mount) is the only place a run can write.
        for path in (*(h for h in self._plan.hidden if not _under(h, "/dev")), "/dev"):
            argv += ["--remount-ro", path]
        argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        if not network:
            argv.append("--unshare-net")
        argv += ["--die-with-parent", "--new-session", "--chdir", wd.host, "--"]
        return argv + privileges_command(uid if self.drops_privileges else None) + inner

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

    def __init__(self, base: str, plan: MountPlan, cache_dir: str | None = None) -> None:
        self._base = base
        self._plan = plan
        self._cache_dir = cache_dir
        if "/tmp" not in plan.hidden or os.path.realpath("/tmp") != "/tmp":
            raise ConfigError("isolation='unshare' needs /tmp to be a real directory it can cover")
        self._lock = threading.Lock()
        self._holder: subprocess.Popen[str] | None = None

    def start(self) -> None:
        # A holder that cannot start (e.g. a mount it cannot make nosuid) is not fatal here: every run
        # then tries again and fails closed with a sandbox error that says why.
        with self._lock:
            if self._holder is None or self._holder.poll() is not None:
                try:
                    self._holder = _start_holder(self._plan, self._cache_dir)
                except OSError as exc:
                    log.warning("%s", exc)

    def _request(self, line: str) -> None:
        with self._lock:
            holder = self._holder
            if holder is None or holder.poll() is not None:
                holder = self._holder = _start_holder(self._plan, self._cache_dir)
            assert holder.stdin is not None and holder.stdout is not None
            try:
                holder.stdin.write(line + "\n")
                holder.stdin.flush()
                answer = holder.stdout.readline().strip()
            except (OSError, ValueError) as exc:
                answer = f"err holder pipe: {exc}"
        if answer != "ok":
            raise OSError(f"sandbox mount holder: {answer or 'no answer (holder died)'}")

    def make_workdir(self, quota_bytes: int, inodes: int, uid: int, build: str | None = None) -> Workdir:
        name = secrets.token_hex(6)
        self._request(f"mk {name} {quota_bytes} {inodes} {uid}" + (f" {build}" if build else ""))
        inner = f"{_WORKSPACE}/{name}"
        return Workdir(name, inner, f"/proc/{self._pid()}/root{inner}", build)

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
        argv += ["--wd", wd.inner, "--"]
        return argv + privileges_command(uid) + inner

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


# The mount check, shared by the holder (which runs it as source, without importing rewardloop) and the
# tests: which mounts a process can reach lack ``nosuid``/``nodev``, from its /proc/self/mountinfo.
_MOUNT_CHECK_SOURCE = r"""
def unsafe_mounts(mountinfo, device_nodes=()):
    # Every mount a process can reach must be nosuid and nodev; ``device_nodes`` (mount points of
    # single device nodes bound in, and a private devpts) only need nosuid. A mount is reachable when its
    # parent is, nothing is mounted on top of it, and no sibling covers a directory on its way.
    mounts = {}
    for line in mountinfo.splitlines():
        left, _, _ = line.partition(" - ")
        fields = left.split()
        if len(fields) < 6:
            continue
        point = fields[4]
        for code in ("\\040", "\\011", "\\012", "\\134"):
            point = point.replace(code, chr(int(code[1:], 8)))
        mounts[fields[0]] = (fields[1], point, set(fields[5].split(",")))

    def under(path, root):
        return path != root and (root == "/" or path.startswith(root + "/"))

    def reachable(mid, seen=()):
        parent, point, _ = mounts[mid]
        if mid in seen:
            return False
        if any(p == mid and q == point for p, q, _ in mounts.values()):
            return False  # something is mounted on top of it
        if parent not in mounts:
            return True  # the root of this namespace
        siblings = [q for k, (p, q, _) in mounts.items() if p == parent and k != mid]
        if any(under(point, q) for q in siblings):
            return False
        return reachable(parent, (*seen, mid))

    bad = []
    for mid, (_, point, options) in mounts.items():
        if not reachable(mid):
            continue
        missing = [flag for flag in ("nosuid", "nodev") if flag not in options]
        if point in device_nodes:
            missing = [flag for flag in missing if flag != "nodev"]
        if missing:
            bad.append("%s (no %s)" % (point, ", ".join(missing)))
    return sorted(bad)
"""
_check_namespace: dict[str, object] = {}
exec(_MOUNT_CHECK_SOURCE, _check_namespace)  # defines a plain function; no side effect


def unsafe_mounts(mountinfo: str, device_nodes: Sequence[str] = DEVICE_NODES) -> list[str]:
    """The reachable mounts of a ``/proc/<pid>/mountinfo`` text that lack ``nosuid`` or ``nodev``
    (``device_nodes`` need only ``nosuid``), as ``"point (no flag)"`` lines."""
    check = _check_namespace["unsafe_mounts"]
    return check(mountinfo, tuple(device_nodes))  # type: ignore[operator,no-any-return]


# The holder: runs as root in its own mount namespace (``unshare --mount``), sets the mounts up, answers
# "mk NAME SIZE INODES UID [BUILD]" / "rm NAME" requests on stdin, and exits (dropping the namespace) at
# EOF. Set-up fails closed: if any mount the runs can reach is not nosuid and nodev, it says so and exits.
_HOLDER_SOURCE = r"""
import ctypes, json, os, re, stat, sys
cfg = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = (ctypes.c_char_p,) * 3 + (ctypes.c_ulong, ctypes.c_char_p)
libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)
libc.syscall.restype = ctypes.c_long
RDONLY, NOSUID, NODEV, NOEXEC, REMOUNT, BIND, REC, DETACH = 1, 2, 4, 8, 32, 4096, 16384, 2
SYS_MOUNT_SETATTR, AT_FDCWD, AT_RECURSIVE = 442, -100, 0x8000
ATTR_RDONLY, ATTR_NOSUID, ATTR_NODEV = 1, 2, 4
DEVICES = cfg["devices"]

def enc(s):
    return None if s is None else s.encode()

def mount(src, dst, fstype, flags, data):
    if libc.mount(enc(src), enc(dst), enc(fstype), flags, enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), dst)

def mountinfo():
    with open("/proc/self/mountinfo") as fh:
        return fh.read()

def read_only_nosuid_nodev_everywhere():
    # The host's mounts become read-only (a world-writable host directory such as /var/crash would
    # keep state across runs, outside every quota), nosuid and nodev. The tmpfs mounts made below
    # stay writable for root only (the runs' uids cannot write to them) and the runs' own tmpfs.
    # One call for the whole tree, mounts hidden under others included (Linux >= 5.12) ...
    attr = (ctypes.c_uint64 * 4)(ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, 0, 0, 0)
    args = (ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(AT_FDCWD), b"/", ctypes.c_uint(AT_RECURSIVE))
    if libc.syscall(*args, ctypes.byref(attr), ctypes.c_size_t(32)) == 0:
        return
    # ... else one remount per mount point, keeping each one's other flags; the check below fails
    # closed on any mount this misses.
    st_to_ms = {1: RDONLY, 8: NOEXEC, 1024: 1024, 2048: 2048, 4096: 1 << 21}
    for line in mountinfo().splitlines():
        point = line.split()[4].replace("\\040", " ")
        try:
            st = os.statvfs(point).f_flag
            flags = REMOUNT | BIND | RDONLY | NOSUID | NODEV
            flags |= sum(ms for bit, ms in st_to_ms.items() if st & bit)
            mount(None, point, None, flags, None)
        except OSError:
            pass

def private_dev():
    # A fresh /dev: the harmless device nodes, each bound in from the host's, and nothing else.
    nodes = [(path, os.open(path, os.O_PATH)) for path in DEVICES if os.path.exists(path)]
    mount("tmpfs", "/dev", "tmpfs", NOSUID | NODEV, "mode=755,size=64k,nr_inodes=64")
    for path, fd in nodes:
        open(path, "w").close()
        mount("/proc/self/fd/%d" % fd, path, None, BIND, None)
        mount(None, path, None, REMOUNT | BIND | NOSUID, None)  # nodev is what a device node cannot have
        os.close(fd)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, "/dev/" + name)
    os.mkdir("/dev/shm", 0o755)
    os.mkdir("/dev/pts", 0o755)

def bind_read_only(source, target):
    mount(source, target, None, BIND | REC, None)
    mount(None, target, None, REMOUNT | BIND | RDONLY | NOSUID | NODEV, None)

def setup():
    fds = [(target, os.open(source, os.O_PATH)) for target, source in cfg["exposed"]]
    cache = os.open(cfg["cache"], os.O_PATH | os.O_DIRECTORY) if cfg["cache"] else None
    read_only_nosuid_nodev_everywhere()
    for path in cfg["hidden"]:
        if path != "/dev" and not path.startswith("/dev/"):
            mount("tmpfs", path, "tmpfs", NOSUID | NODEV, "mode=755,size=4m,nr_inodes=65536")
    for target, fd in fds:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.makedirs(target, mode=0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            open(target, "a").close()
        bind_read_only("/proc/self/fd/%d" % fd, target)
        os.close(fd)
    private_dev()
    ws = cfg["workspace"]
    os.makedirs(ws, mode=0o711, exist_ok=True)
    os.chmod(ws, 0o711)
    bad = unsafe_mounts(mountinfo(), DEVICES)
    if bad:
        raise OSError("mounts the sandbox cannot make nosuid,nodev: " + ", ".join(bad))
    return cache

BUILD = re.compile(r"^[0-9a-f]{16,64}/[A-Za-z0-9_]+$")

def make(path, size, inodes, uid, build):
    os.mkdir(path, 0o700)
    opts = "size=%d,nr_inodes=%d,mode=700,uid=%d,gid=%d" % (size, inodes, uid, uid)
    mount("tmpfs", path, "tmpfs", NOSUID | NODEV, opts)
    if build is None:
        return
    if cache is None or not BUILD.match(build):
        raise ValueError("bad build %r" % build)
    source = "/proc/self/fd/%d/%s" % (cache, build)
    target = path + "/" + build.split("/")[1]
    if os.path.isdir(source):
        os.mkdir(target, 0o755)
    else:
        open(target, "w").close()
    bind_read_only(source, target)

try:
    cache = setup()
except Exception as exc:
    print(("err %s" % exc).replace("\n", " "), flush=True)
    sys.exit(1)
print("ok", flush=True)
for line in sys.stdin:
    try:
        op, name, *rest = line.split()
        if not name.isalnum():
            raise ValueError("bad name %r" % name)
        path = cfg["workspace"] + "/" + name
        if op == "mk":
            size, inodes, uid = (int(x) for x in rest[:3])
            make(path, size, inodes, uid, rest[3] if len(rest) > 3 else None)
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


def _start_holder(plan: MountPlan, cache_dir: str | None) -> subprocess.Popen[str]:
    config = {"hidden": plan.hidden, "exposed": plan.exposed, "workspace": _WORKSPACE}
    config.update(cache=cache_dir, devices=DEVICE_NODES)
    argv = ["unshare", "--mount", "--propagation", "private", "--"]
    argv += [sys.executable, "-I", "-S", "-c", _MOUNT_CHECK_SOURCE + _HOLDER_SOURCE, json.dumps(config)]
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
    first = holder.stdout.readline().strip()
    if first != "ok":
        holder.kill()
        err = holder.stderr.read().strip().splitlines()
        holder.wait()
        why = first[4:] if first.startswith("err ") else (err[-1] if err else "no output")
        raise OSError(f"sandbox mount holder failed to start: {why}")
    return holder


def make_backend(mode: str, base: str, plan: MountPlan, cache_dir: str | None = None) -> Backend:
    """The backend for ``mode``; ``cache_dir`` is where the compile cache is (hidden from every run, each
    run gets its own program's entry bound into its working directory)."""
    if mode == "unshare":
        return UnshareBackend(base, plan, cache_dir)
    if mode == "bwrap":
        return BwrapBackend(base, plan, cache_dir)
    return Backend(base, plan, cache_dir)


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

    @property
    def caps_memory(self) -> bool:
        """Does a memory cgroup cap the whole process tree (so no per-process RLIMIT_DATA is needed)?"""
        return "memory" in self._dirs

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

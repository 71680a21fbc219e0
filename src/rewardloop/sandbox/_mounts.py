"""The mount plan (pure path logic): which directories a sandbox covers with an empty tmpfs, which
toolchain paths it binds back read-only, and the predicates the backends and the toolchain table share.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "DEFAULT_HIDDEN",
    "DEVICE_NODES",
    "MountPlan",
    "home_directories",
    "ipc_endpoints",
    "plan_mounts",
    "project_root",
    "too_broad_to_expose",
    "uncovered",
    "unreachable_for_others",
]

# Directories a tmpfs covers by default: homes, scratch space shared with other users, runtime sockets,
# and the trees a run does not need whose files are not the system's software: /var (daemons' state,
# sockets and FIFOs: red-team round 3, p03/p04), /opt (add-on packages: a toolchain there is bound back),
# /boot. What stays visible: /usr, /etc, /bin, /sbin, /lib*, the toolchains, a private /proc and /dev.
DEFAULT_HIDDEN = (
    "/root",
    "/home",
    "/tmp",
    "/var",
    "/var/tmp",
    "/dev/shm",
    "/run",
    "/mnt",
    "/media",
    "/srv",
    "/opt",
    "/boot",
)
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


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


# ----------------------------------------------------------------------------------------------------------
# The mount plan


@dataclass(frozen=True)
class MountPlan:
    """``hidden``: directories covered by an empty tmpfs. ``exposed``: (target, source) bound back read-only."""

    hidden: tuple[str, ...]
    exposed: tuple[tuple[str, str], ...]
    # host FIFOs and Unix sockets in the visible trees at set-up (see ipc_endpoints): each is covered by an
    # empty read-only file
    blanked: tuple[str, ...] = ()


def project_root() -> str | None:
    """The source checkout rewardloop runs from (the directory holding ``pyproject.toml``/``.git``), if any."""
    here = os.path.realpath(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    if any(part in ("site-packages", "dist-packages") for part in here.split(os.sep)):
        return None
    for candidate in (here, os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
        if any(os.path.exists(os.path.join(candidate, m)) for m in ("pyproject.toml", ".git")):
            return candidate
    return None


def uncovered(raw: str, plan: MountPlan) -> str | None:
    """Why ``plan`` leaves the existing path ``raw`` (symbolic links followed) visible, or None when it is
    covered or does not exist. The plan covers no path inside a system tree or a toolchain every run needs
    (``/usr/share/...``, a package of the interpreter's virtualenv), and no single file."""
    path = os.path.realpath(raw)
    if not os.path.exists(path):
        return None  # nothing to hide
    rebound = [t for t, _ in plan.exposed if _under(path, t)]
    if any(_under(path, h) for h in plan.hidden) and not rebound:
        return None
    if not os.path.isdir(path):
        return "it is a file (hidden_paths covers directories)"
    if rebound:
        return f"it lies inside {rebound[0]!r}, a toolchain tree every run needs"
    return "it lies inside a system or toolchain tree every run needs (/usr, /lib, /etc's software, the interpreter)"


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


# Not walked: the run gets its own /proc and /dev; sysfs holds no FIFOs or sockets.
_NOT_SCANNED = ("/proc", "/sys", "/dev")


def ipc_endpoints(plan: MountPlan) -> tuple[str, ...]:
    """The FIFOs and Unix sockets a run of ``plan`` would see: every one in the visible trees (``/`` minus
    the hidden directories, plus the directories bound back), found by one walk that follows no link.
    A host process may read or write a FIFO, or listen on a socket, that a run could open (a read-only
    mount stops neither); covered by an empty file, it is gone from the run's view. The walk is once per
    sandbox set-up; an endpoint made later is out of reach only through the seccomp filter (sockets)."""
    found: list[str] = []
    hidden = set(plan.hidden) | set(_NOT_SCANNED)
    stack = [t for t, _ in plan.exposed if os.path.isdir(t)]
    stack += [t for t, _ in plan.exposed if not os.path.isdir(t) and _is_ipc(t)]
    found += [p for p in stack if not os.path.isdir(p)]
    stack = [p for p in stack if os.path.isdir(p)] + ["/"]
    while stack:
        directory = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.path not in hidden:
                            stack.append(entry.path)
                    elif not entry.is_symlink() and not entry.is_file(follow_symlinks=False):
                        mode = entry.stat(follow_symlinks=False).st_mode
                        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                            found.append(entry.path)
                except OSError:
                    continue
    return tuple(sorted(set(found)))


def _is_ipc(path: str) -> bool:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


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

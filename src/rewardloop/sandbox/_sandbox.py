"""The :class:`Sandbox`: compile (with a cache) and run one program under limits, from any thread or
event loop, at most ``max_parallel`` at a time."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import math
import os
import posixpath
import re
import secrets
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, InvalidSampleError
from ._backends import (
    ISOLATIONS,
    Backend,
    Workdir,
    choose_isolation,
    make_backend,
    marker_command,
    prlimit_command,
)
from ._cache import DEFAULT_CACHE_MB, CompileCache, cache_key, unsafe_artefact
from ._cgroups import Cgroups, pid_alive
from ._languages import LANGUAGES, Language, Toolchain, resolve_language
from ._launcher import LauncherPool
from ._mounts import MountPlan, ipc_endpoints, plan_mounts, uncovered, unreachable_for_others
from ._process import Outcome, supervise
from ._seccomp import filter_program
from ._types import Limits, RunResult, RunStatus
from ._uids import UidPool

__all__ = ["Sandbox", "default_sandbox"]

log = logging.getLogger(__name__)

_DEFAULT_LIMITS = Limits()
_MB = 1 << 20
_THREAD_CAPS = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "RAYON_NUM_THREADS": "1",
}
_STD_PATH = "/usr/local/bin:/usr/bin:/bin"
# The compile phase runs compilers, not the program: it gets more memory, tasks, file size and room.
_COMPILE_MEMORY_MB = 2048
_COMPILE_TASKS = 256
_COMPILE_FILE_MB = 512
_COMPILE_QUOTA_MB = 1024
_STALE_AFTER_S = 24 * 3600


@dataclass
class _State:
    """Everything a Sandbox builds lazily on first use (and rebuilds in a forked child)."""

    base: str
    cache_dir: str
    cache: CompileCache
    toolchains: dict[str, Toolchain | None]
    backend: Backend
    cgroups: Cgroups
    launchers: LauncherPool | None
    owns_cache: bool
    uids: UidPool | None  # as root: the runs' uids (one run at a time each, keyrings emptied between)

    def slot(self, memory_bytes: int | None, max_tasks: int) -> Any:
        if self.launchers is None:
            return contextlib.nullcontext(None)
        return self.launchers.slot(memory_bytes, max_tasks)


class Sandbox:
    """Runs untrusted programs. See the package docstring for exactly what is isolated.

    ``isolation``: ``"auto"`` (default: ``unshare`` as root, else ``bwrap`` if it works here, else a
    ConfigError: it never falls back to ``none``), or one of ``unshare``, ``bwrap``, ``none`` by name (a
    ConfigError says why it is unavailable). ``none`` isolates nothing but resources: only when named.
    ``cache_dir``: where compiled programs are kept (default: a private temporary directory removed by
    :meth:`close`). ``cache_max_mb``: the cache's size cap (least recently used entries are removed
    past it; a build over a quarter of it is used once and not kept). ``max_parallel``: runs at once
    across all threads and event loops using this instance (default ``os.cpu_count()``).
    ``hidden_paths``: more directories to cover, in addition to the defaults listed in the package
    docstring.
    """

    def __init__(
        self,
        *,
        isolation: str = "auto",
        cache_dir: str | None = None,
        max_parallel: int | None = None,
        hidden_paths: Sequence[str] = (),
        cache_max_mb: int = DEFAULT_CACHE_MB,
    ) -> None:
        if not isinstance(cache_max_mb, int) or isinstance(cache_max_mb, bool) or cache_max_mb < 1:
            raise ConfigError(f"Sandbox.cache_max_mb must be an int >= 1, got {cache_max_mb!r}")
        self._cache_max_bytes = cache_max_mb * _MB
        if max_parallel is None:
            max_parallel = os.cpu_count() or 1
        if not isinstance(max_parallel, int) or isinstance(max_parallel, bool) or max_parallel < 1:
            raise ConfigError(f"Sandbox.max_parallel must be an int >= 1, got {max_parallel!r}")
        if isinstance(hidden_paths, str) or any(not os.path.isabs(str(p)) for p in hidden_paths):
            raise ConfigError(f"Sandbox.hidden_paths must be a list of absolute paths, got {hidden_paths!r}")
        self.isolation = choose_isolation(isolation)
        if self.isolation == "none":
            log.warning(
                "rewardloop sandbox: isolation='none': untrusted code runs with this user's rights, "
                "network and filesystem; only resource limits and a scrubbed environment apply"
            )
        self.max_parallel = max_parallel
        self._cache_dir_arg = os.path.abspath(cache_dir) if cache_dir is not None else None
        self._hidden = tuple(str(p) for p in hidden_paths)
        self._compiles = 0  # compile phases actually run (cache misses); tests read it
        self._init_process_state()

    def _init_process_state(self) -> None:
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.max_parallel)
        self._key_locks: dict[str, list[Any]] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._state: _State | None = None
        self._closed = False
        self._finalizer = weakref.finalize(self, _cleanup, self._pid, [None])

    # ------------------------------------------------------------------------------------------ public API

    def run(
        self,
        code: str,
        language: str = "python",
        *,
        stdin: str | bytes = "",
        limits: Limits = _DEFAULT_LIMITS,
        files: Mapping[str, str | bytes] | None = None,
        args: Sequence[str] = (),
    ) -> RunResult:
        """Compile (if needed) and run ``code``; never raises for anything the program does.

        Bad input raises before anything runs: :class:`~rewardloop.errors.InvalidSampleError` naming the
        field (``code``, ``stdin``, ``files[...]``, ``args[i]``) for text UTF-8 cannot encode (a lone
        surrogate), :class:`~rewardloop.errors.ConfigError` for an unknown language or a file name outside
        the working directory, ``TypeError`` for a wrong type. Error messages name no process id and no
        internal path."""
        return self._run(code, language, stdin, limits, files, args, None)

    async def arun(
        self,
        code: str,
        language: str = "python",
        *,
        stdin: str | bytes = "",
        limits: Limits = _DEFAULT_LIMITS,
        files: Mapping[str, str | bytes] | None = None,
        args: Sequence[str] = (),
    ) -> RunResult:
        """:meth:`run` for event loops: the run happens on a worker thread; cancelling kills the program."""
        cancel = threading.Event()
        call = functools.partial(self._run, code, language, stdin, limits, files, args, cancel)
        future = asyncio.get_running_loop().run_in_executor(self._get_executor(), call)
        try:
            return await future
        except asyncio.CancelledError:
            cancel.set()
            raise

    def languages(self) -> dict[str, bool]:
        """Which languages have their toolchain installed here."""
        state = self._ensure()
        return {name: state.toolchains.get(name) is not None for name in LANGUAGES}

    def close(self) -> None:
        """Stop the mount holder, remove temporary directories. Idempotent."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
        self._finalizer()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Sandbox(isolation={self.isolation!r}, max_parallel={self.max_parallel})"

    # ------------------------------------------------------------------------------------------ set-up

    def _ensure(self) -> _State:
        if os.getpid() != self._pid:  # forked: the parent's holder, locks and threads are not ours
            self._finalizer.detach()
            self._init_process_state()
        with self._lock:
            if self._closed:
                raise RuntimeError("this Sandbox is closed")
            if self._state is None:
                self._state = self._build_state()
                self._finalizer.detach()
                self._finalizer = weakref.finalize(self, _cleanup, self._pid, [self._state])
            return self._state

    def _build_state(self) -> _State:
        _remove_stale_bases()
        base = tempfile.mkdtemp(prefix=f"rewardloop-sandbox-{os.getpid()}-")
        os.chmod(base, 0o711)
        try:
            cache_dir, toolchains, plan, backend = self._prepare(base)
            backend.start()
        except (OSError, ConfigError) as exc:
            shutil.rmtree(base, ignore_errors=True)
            raise ConfigError(_scrub(f"the {self.isolation!r} sandbox could not start: {exc}")) from exc
        cgroups = Cgroups(backend.cgroup_controllers)
        # launchers with or without cgroups: they confine every run (seccomp filter, core limit) and give
        # it a fresh session keyring. bwrap without root needs a user namespace, and closes nested ones
        # itself (--disable-userns); everything else may be refused them.
        if hasattr(os, "pidfd_open"):
            try:
                seccomp = filter_program(deny_user_namespaces=not backend.needs_user_namespaces)
            except OSError as exc:
                shutil.rmtree(base, ignore_errors=True)
                backend.close()
                raise ConfigError(f"the {self.isolation!r} sandbox could not start: {exc}") from exc
            launchers: LauncherPool | None = LauncherPool(cgroups, seccomp)
        elif self.isolation != "none":
            shutil.rmtree(base, ignore_errors=True)
            backend.close()
            raise ConfigError(
                f"the {self.isolation!r} sandbox needs os.pidfd_open (Linux >= 5.3) for its launchers"
            )
        else:
            launchers = None
        log.debug(
            "sandbox %s: hidden=%s exposed=%s cgroups=%s",
            self.isolation,
            plan.hidden,
            plan.exposed,
            cgroups.describe(),
        )
        cache = CompileCache(cache_dir, self._cache_max_bytes)
        owns_cache = self._cache_dir_arg is None
        uids = UidPool() if backend.drops_privileges else None
        return _State(base, cache_dir, cache, toolchains, backend, cgroups, launchers, owns_cache, uids)

    def _prepare(self, base: str) -> tuple[str, dict[str, Toolchain | None], MountPlan, Backend]:
        cache_dir = self._cache_dir_arg or os.path.join(base, "cache")
        os.makedirs(cache_dir, mode=0o755, exist_ok=True)
        toolchains = {name: lang.resolve() for name, lang in LANGUAGES.items()}
        roots = [r for tc in toolchains.values() if tc for r in tc.roots]
        # the cache is hidden like the rest: each run gets only its own program's entry bound in
        plan = plan_mounts([*self._hidden, cache_dir], roots)
        if self.isolation != "none":  # host FIFOs and sockets in the visible trees: covered
            _check_hidden(self._hidden, plan)
            plan = dataclasses.replace(plan, blanked=ipc_endpoints(plan))
        backend = make_backend(self.isolation, base, plan, cache_dir)
        if backend.drops_privileges:  # programs run as another uid: they must read the cache
            if os.stat(cache_dir).st_uid == os.geteuid():
                os.chmod(cache_dir, 0o755)
            blocked = unreachable_for_others(cache_dir, plan)
            if blocked:
                raise ConfigError(f"cache_dir {cache_dir!r} is not reachable by other users ({blocked!r})")
        return cache_dir, toolchains, plan, backend

    def _get_executor(self) -> ThreadPoolExecutor:
        self._ensure()
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    self.max_parallel, thread_name_prefix="rewardloop-sandbox"
                )
            return self._executor

    # ------------------------------------------------------------------------------------------ one run

    def _run(
        self,
        code: str,
        language: str,
        stdin: str | bytes,
        limits: Limits,
        files: Mapping[str, str | bytes] | None,
        args: Sequence[str],
        cancel: threading.Event | None,
    ) -> RunResult:
        lang = resolve_language(language)
        try:
            job = _Job.build(lang, code, stdin, limits, files, args)
        except _ProgramFault as fault:
            return RunResult(RunStatus.COMPILE_ERROR, exit_code=1, stderr=str(fault), error=str(fault))
        state = self._ensure()
        tc = state.toolchains.get(lang.name)
        if tc is None:
            return _sandbox_error(f"no {lang.name} toolchain here (needs {', '.join(lang.tools)} on PATH)")
        with self._slots:
            try:
                return self._compile_and_run(state, lang, tc, job, cancel)
            except OSError as exc:  # the sandbox machinery failed (holder, cgroup fs, disk): infrastructure
                log.warning("sandbox infrastructure error: %s", exc)  # the full text stays in the host's log
                return _sandbox_error(f"sandbox infrastructure error: {exc}")

    def _compile_and_run(
        self, state: _State, lang: Language, tc: Toolchain, job: _Job, cancel: threading.Event | None
    ) -> RunResult:
        if not lang.compiled:
            argv = lang.run_argv(tc, job.code, job.source, None, job.limits)
            sources = {job.source: job.code.encode()}
            return self._execute(state, lang, argv, job, job.limits, sources, _run_quota(job), cancel)
        compiled, key, entry = self._compiled(state, lang, tc, job, cancel)
        if compiled.status is RunStatus.SANDBOX_ERROR:
            return _replace(compiled, compile=compiled)
        if entry is None:
            return _compile_error(compiled)
        # the run sees its own build only, bound read-only into its working directory as ./<artefact>
        artefact = lang.artefact(job.source)
        argv = lang.run_argv(tc, job.code, job.source, f"./{artefact}", job.limits)
        try:
            with state.cache.using(key):
                build = f"{entry}/{artefact}"
                result = self._execute(state, lang, argv, job, job.limits, {}, _run_quota(job), cancel, build)
        finally:
            state.cache.discard(entry, key)
        return _replace(result, compile=compiled)

    # ------------------------------------------------------------------------------------------ compiling

    def _compiled(
        self, state: _State, lang: Language, tc: Toolchain, job: _Job, cancel: threading.Event | None
    ) -> tuple[RunResult, str, str | None]:
        """(compile result, cache key, name of the cache entry holding the build or None) from the cache
        or a fresh compile."""
        argv = lang.compile_argv(tc, job.source)
        key = cache_key(
            [lang.name, tc.identity, list(argv), job.source, sorted(job.files)], job.files, job.code
        )
        artefact = lang.artefact(job.source)
        with self._key_lock(key):
            cached = state.cache.load(key)
            if cached is not None:
                built = os.path.exists(os.path.join(state.cache_dir, key, artefact))
                if cached.ok and not built:
                    return _sandbox_error("the compile cache lost the built program"), key, None
                return cached, key, (key if cached.ok else None)
            limits = _compile_limits(job.limits)
            sources = {job.source: job.code.encode()}
            quota = _COMPILE_QUOTA_MB * _MB + job.files_size
            with self._workdir(state, quota, 1 << 16) as (wd, uid):
                result = self._execute_in(state, lang, argv, wd, uid, b"", limits, job.files, sources, cancel)
                with self._lock:
                    self._compiles += 1
                produced = os.path.join(wd.host, artefact)
                problem = unsafe_artefact(produced) if result.ok else None
                if problem:  # the build is the compiler's, i.e. the program's, doing: a compile failure
                    result = _replace(result, exit_code=1, stderr=f"{result.stderr}\nsandbox: {problem}")
                entry = None
                if result.status is RunStatus.FINISHED:  # deterministic: cache successes and failures
                    entry = state.cache.store(key, result, produced if result.ok else None)
        if result.ok and entry is not None:
            return result, key, entry
        if result.ok:
            return _sandbox_error("the compile cache could not store the built program"), key, None
        return result, key, None

    @contextlib.contextmanager
    def _key_lock(self, key: str) -> Any:
        """One compile per program at a time in this process; other processes race to an atomic rename."""
        with self._lock:
            slot = self._key_locks.setdefault(key, [threading.Lock(), 0])
            slot[1] += 1
        try:
            with slot[0]:
                yield
        finally:
            with self._lock:
                slot[1] -= 1
                if slot[1] == 0:
                    self._key_locks.pop(key, None)

    # ------------------------------------------------------------------------------------------ executing

    def _execute(
        self,
        state: _State,
        lang: Language,
        argv: list[str],
        job: _Job,
        limits: Limits,
        sources: dict[str, bytes],
        quota: int,
        cancel: threading.Event | None,
        build: str | None = None,
    ) -> RunResult:
        files = job.files
        if build is not None:  # the build takes its name in the working directory (as after a compile)
            name = posixpath.basename(build)
            files = {k: v for k, v in files.items() if k != name and not k.startswith(name + "/")}
        with self._workdir(state, quota, 1 << 14, build) as (wd, uid):
            return self._execute_in(
                state, lang, argv + list(job.args), wd, uid, job.stdin, limits, files, sources, cancel
            )

    @contextlib.contextmanager
    def _workdir(self, state: _State, quota: int, inodes: int, build: str | None = None) -> Any:
        pooled = state.uids is not None
        uid = state.uids.take() if state.uids is not None else os.geteuid()
        clean = False
        try:
            wd = state.backend.make_workdir(quota, inodes, uid, build)
            try:
                yield wd, uid
                clean = True
            finally:
                state.backend.remove_workdir(wd)
        finally:
            if pooled:
                assert state.uids is not None
                state.uids.give(uid, retire=not clean)

    def _execute_in(
        self,
        state: _State,
        lang: Language,
        argv: list[str],
        wd: Workdir,
        uid: int,
        stdin: bytes,
        limits: Limits,
        files: Mapping[str, bytes],
        sources: Mapping[str, bytes],
        cancel: threading.Event | None,
    ) -> RunResult:
        _write_files(wd.host, {**files, **sources}, uid)
        token = f"<<rewardloop-sandbox:{secrets.token_hex(12)}>>"
        with state.slot(_cgroup_memory(limits), limits.max_processes + 4) as slot:
            if slot is None and self.isolation != "none":
                # fail closed: no run without the launcher's confinement (its seccomp filter above all)
                why = state.launchers.last_error if state.launchers is not None else None
                return _sandbox_error(f"no sandbox launcher could start: {why or 'unknown reason'}")
            # a memory cgroup caps the tree: no RLIMIT_DATA then, which would count thread stacks
            per_process = slot is None or not slot.cgroup.caps_memory
            rlimits = _rlimits(lang, limits, state.backend.nproc_exact, per_process)
            starter: Any = slot.start if slot is not None else None
            cwd = state.backend.popen_cwd(wd)
            in_launcher = slot is not None and state.backend.launcher_isolates
            if in_launcher:
                # the launcher builds the run itself: the program is the only thing exec-ed
                spec = state.backend.isolate(wd, uid, limits.network)
                spec.update(rlimits=rlimits, token=token, cpu_s=rlimits["cpu"])
                starter = functools.partial(slot.start, isolate=spec)
                command, cwd = argv, wd.inner
            else:
                inner = _prlimit(rlimits, core=slot is None) + marker_command(token, argv)
                command = state.backend.wrap(inner, wd, uid, limits.network)
            outcome = supervise(
                command,
                env=_environment(wd.inner, state.toolchains),
                cwd=cwd,
                stdin=stdin,
                token=token.encode(),
                wall_s=limits.wall_s,
                output_bytes=limits.output_bytes,
                starter=starter,
                cancel=cancel,
                kill_extra=slot.kill_others if slot is not None else None,
                # the launcher's PID 1 bounds the sum itself; elsewhere RLIMIT_CPU is per process
                cpu_limit_s=None if in_launcher else float(rlimits["cpu"]),
            )
            oom = slot is not None and slot.cgroup.oom_killed()
            cgroup_cpu = slot.cgroup.cpu_s() if slot is not None else None
        _account_cpu(outcome, cgroup_cpu, state.backend.rusage_complete)
        state.backend.fix_outcome(outcome)
        return _classify(outcome, lang, limits, oom)


# ----------------------------------------------------------------------------------------------------------
# A validated request


class _ProgramFault(Exception):
    """Something the program itself decided (a name, a size) that the sandbox cannot hold: the program's
    failure (a compile error), never a sandbox error, which callers retry as an outage."""


@dataclass(frozen=True)
class _Job:
    code: str
    source: str
    stdin: bytes
    limits: Limits
    files: dict[str, bytes]
    args: tuple[str, ...]

    @property
    def files_size(self) -> int:
        return sum(len(v) for v in self.files.values())

    @classmethod
    def build(
        cls,
        lang: Language,
        code: str,
        stdin: str | bytes,
        limits: Limits,
        files: Mapping[str, str | bytes] | None,
        args: Sequence[str],
    ) -> _Job:
        if not isinstance(code, str):
            raise TypeError(f"code must be str, got {type(code).__name__}")
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
        if isinstance(args, str) or not all(isinstance(a, str) for a in args):
            raise TypeError("args must be a sequence of str")
        _encoded("code", code)
        for i, arg in enumerate(args):
            _encoded(f"args[{i}]", arg)
        source = lang.source_name(code)
        if len(source.encode()) > NAME_MAX:  # the program named it (a Java public class): its failure
            raise _ProgramFault(
                f"sandbox: the source file {source[:60]!r}... would be named with {len(source.encode())} "
                f"bytes, more than the file system's {NAME_MAX}"
            )
        normalised = _check_files(files or {}, source)
        return cls(code, source, _as_bytes(stdin, "stdin"), limits, normalised, tuple(args))


def _encoded(what: str, text: str) -> bytes:
    """``text`` as UTF-8; text it cannot encode (a lone surrogate) is the caller's invalid input."""
    try:
        return text.encode()
    except UnicodeEncodeError as exc:
        char = f"U+{ord(text[exc.start]):04X}"
        raise InvalidSampleError(
            f"{what} is not valid text: it holds a lone surrogate ({char} at index {exc.start}), "
            "which UTF-8 cannot encode"
        ) from None


def _as_bytes(value: str | bytes, what: str) -> bytes:
    if isinstance(value, str):
        return _encoded(what, value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be str or bytes, got {type(value).__name__}")


#: at most this many extra files per run, and this many bytes per path component (Linux NAME_MAX)
MAX_FILES = 4096
NAME_MAX = 255


def _check_files(files: Mapping[str, str | bytes], source: str) -> dict[str, bytes]:
    """Normalised ``{name: bytes}``; a name the run could not hold is the caller's invalid input, raised
    before anything runs (never a sandbox error, which clients would retry as an outage)."""
    if len(files) > MAX_FILES:
        raise InvalidSampleError(f"files: {len(files)} files, more than the {MAX_FILES} a run may have")
    out = {}
    for name, content in files.items():
        if not isinstance(name, str):
            raise InvalidSampleError(f"files: a file name must be a str, got {type(name).__name__}")
        _encoded(f"files[{name[:80]!r}] (the name)", name)
        norm = posixpath.normpath(name)
        if not norm or norm.startswith(("/", "../")) or norm in (".", "..") or "\0" in norm:
            raise InvalidSampleError(
                f"files: file names must be relative paths inside the working directory, got {name[:80]!r}"
            )
        long = [part for part in norm.split("/") if len(part.encode()) > NAME_MAX]
        if long:
            raise InvalidSampleError(
                f"files: {name[:80]!r} has a path component of {len(long[0].encode())} bytes (at most {NAME_MAX})"
            )
        if norm == source:
            raise InvalidSampleError(f"files: {name!r} would overwrite the program's own source file")
        if norm in out:
            raise InvalidSampleError(f"files: {name[:80]!r} names the same file as another entry")
        out[norm] = _as_bytes(content, f"files[{name[:80]!r}]")
    names = set(out)
    for norm in out:
        parent = posixpath.dirname(norm)
        while parent:
            if parent in names:
                raise InvalidSampleError(
                    f"files: {parent[:80]!r} is a file and also the directory of {norm[:80]!r}"
                )
            parent = posixpath.dirname(parent)
    return out


def _write_files(root: str, files: Mapping[str, bytes], uid: int) -> None:
    chown = uid != os.geteuid()
    for name, content in files.items():
        path = os.path.join(root, name)
        parent = os.path.dirname(path)
        if parent != root:
            os.makedirs(parent, exist_ok=True)
            if chown:
                _chown_up(parent, root, uid)
        with open(path, "wb") as fh:
            fh.write(content)
        if chown:
            os.chown(path, uid, uid)


def _chown_up(path: str, root: str, uid: int) -> None:
    while path != root and path.startswith(root):
        os.chown(path, uid, uid)
        path = os.path.dirname(path)


# ----------------------------------------------------------------------------------------------------------
# Limits -> commands


def _compile_limits(limits: Limits) -> Limits:
    memory = None if limits.memory_mb is None else max(limits.memory_mb, _COMPILE_MEMORY_MB)
    return Limits(
        wall_s=limits.compile_wall_s,
        cpu_s=limits.compile_wall_s,
        memory_mb=memory,
        output_bytes=limits.output_bytes,
        max_processes=max(limits.max_processes, _COMPILE_TASKS),
        file_size_mb=max(limits.file_size_mb, _COMPILE_FILE_MB),
        network=False,
    )


def _run_quota(job: _Job) -> int:
    """Size of the run's tmpfs working directory: room for a few files at the size cap."""
    return max(64, 4 * job.limits.file_size_mb) * _MB + job.files_size + len(job.code.encode())


def _rlimits(lang: Language, limits: Limits, nproc_exact: bool, per_process_memory: bool) -> dict[str, int]:
    """The run's resource limits (soft = hard), by ``prlimit`` name; ``data`` and ``nproc`` only when they
    apply (no memory cgroup; a uid or user namespace of the run's own)."""
    memory = limits.memory_mb
    out = {
        "cpu": max(1, math.ceil(limits.effective_cpu_s)),
        "stack": min(lang.stack_mb, memory or lang.stack_mb) * _MB,
        "fsize": limits.file_size_mb * _MB,
        "nofile": 1024,
    }
    if memory is not None and per_process_memory:
        out["data"] = memory * _MB
    if nproc_exact:
        out["nproc"] = limits.max_processes
    return out


def _prlimit(rlimits: Mapping[str, int], core: bool) -> list[str]:
    return prlimit_command(
        core=core,
        cpu_s=rlimits["cpu"],
        data_b=rlimits.get("data"),
        stack_b=rlimits["stack"],
        fsize_b=rlimits["fsize"],
        nproc=rlimits.get("nproc"),
    )


def _cgroup_memory(limits: Limits) -> int | None:
    if limits.memory_mb is None:
        return None
    # the cgroup also pays for the tmpfs working directory and page cache: leave room for both
    return (limits.memory_mb + max(64, 4 * limits.file_size_mb) + 64) * _MB


def _environment(workdir: str, toolchains: Mapping[str, Toolchain | None]) -> dict[str, str]:
    extra = []
    for tc in toolchains.values():
        for exe in tc.executables.values() if tc else ():
            d = os.path.dirname(exe)
            if d not in extra and d not in _STD_PATH.split(":"):
                extra.append(d)
    path = ":".join([_STD_PATH, *extra])
    # PYTHONBREAKPOINT=0: a breakpoint() never starts pdb (which reads rc files from the cwd and HOME)
    env = {"PATH": path, "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8", "PYTHONBREAKPOINT": "0"}
    return {**env, **_THREAD_CAPS}


def _account_cpu(out: Outcome, cgroup_cpu_s: float | None, rusage_complete: bool) -> None:
    """The cgroup sees every descendant; wait4 only those that were reaped along the wrapper chain."""
    if cgroup_cpu_s is not None:
        out.cpu_s = max(cgroup_cpu_s, out.cpu_s or 0.0)
    elif not rusage_complete:
        out.cpu_s = None


# ----------------------------------------------------------------------------------------------------------
# Outcome -> RunResult


def _classify(out: Outcome, lang: Language, limits: Limits, oom_killed: bool) -> RunResult:
    if out.started and out.exit_code is None and out.signal is None:
        return _sandbox_error(f"the sandbox lost the program: {out.error or 'no exit status'}", out)
    if not out.started:
        detail = (out.error or out.prelude.decode(errors="replace").strip() or "no output")[-2000:]
        if out.cancelled:
            detail = "cancelled"
        return _sandbox_error(f"the sandbox failed before the program started: {detail}", out)
    status = _status(out, lang, limits, oom_killed)
    return RunResult(
        status=status,
        exit_code=out.exit_code,
        signal=out.signal,
        stdout=out.stdout.decode(errors="replace"),
        stderr=out.stderr.decode(errors="replace"),
        wall_s=round(out.wall_s, 6),
        cpu_s=None if out.cpu_s is None else round(out.cpu_s, 6),
        truncated=out.truncated,
        error="cancelled" if out.cancelled else out.error,
    )


def _status(out: Outcome, lang: Language, limits: Limits, oom_killed: bool) -> RunStatus:
    if out.timed_out:
        return RunStatus.TIMEOUT
    if out.output_exceeded:
        return RunStatus.OUTPUT_EXCEEDED
    failed = out.exit_code != 0
    if oom_killed:  # the kernel killed part of the tree for memory, even if the main process survived
        return RunStatus.MEMORY_EXCEEDED
    cpu_limit = max(1, math.ceil(limits.effective_cpu_s))
    # a SIGKILL (or SIGXCPU) we did not send, with the CPU limit spent, is the kernel's RLIMIT_CPU kill;
    # when the CPU time is unknown, a single-threaded program needs at least that much wall time
    spent = out.cpu_s if out.cpu_s is not None else out.wall_s
    # (0.75: the kernel enforces RLIMIT_CPU on tick-sampled time, which can run ahead of rusage under load)
    if out.signal in (9, 24) and spent >= 0.75 * cpu_limit:
        return RunStatus.TIMEOUT
    if failed and _reports_oom(out, lang):
        return RunStatus.MEMORY_EXCEEDED
    if out.signal is not None and limits.memory_mb and out.max_rss_kb >= 0.9 * limits.memory_mb * 1024:
        return RunStatus.MEMORY_EXCEEDED
    return RunStatus.FINISHED


def _reports_oom(out: Outcome, lang: Language) -> bool:
    """The runtime said it ran out of memory: on stderr, or (the JVM's fatal errors) on stdout. A program
    that prints such a line and fails gains nothing: it failed either way."""
    markers = (*lang.oom_markers, "Cannot allocate memory")
    tails = (out.stderr[-8192:].decode(errors="replace"), out.stdout[-8192:].decode(errors="replace"))
    return any(marker in tail for marker in markers for tail in tails)


def _sandbox_error(message: str, out: Outcome | None = None) -> RunResult:
    wall = 0.0 if out is None else round(out.wall_s, 6)
    return RunResult(status=RunStatus.SANDBOX_ERROR, wall_s=wall, error=_scrub(message))


_QUOTED_PATH = re.compile(r"""(['"])(/[^'"\n]*)\1""")
_SANDBOX_PATH = re.compile(r"""[^\s'"]*rewardloop-sandbox-[^\s'"]*""")
_PROC_PID = re.compile(r"/proc/\d+")
_PID_WORD = re.compile(r"\b(pid|PID|holder|process)(\s*[=:#]?\s*)\d+")


def _scrub(message: str) -> str:
    """An error message for callers (and HTTP clients): no process id and no internal host path. A quoted
    path (``OSError``'s file name) keeps only its last component."""
    message = _QUOTED_PATH.sub(lambda m: f"{m[1]}.../{posixpath.basename(m[2].rstrip('/'))}{m[1]}", message)
    message = _SANDBOX_PATH.sub("<sandbox dir>", message)
    message = _PROC_PID.sub("/proc/<pid>", message)
    return _PID_WORD.sub(r"\1\2<n>", message)


def _compile_error(compiled: RunResult) -> RunResult:
    reason = None
    if compiled.status is RunStatus.TIMEOUT:
        reason = "the compile phase ran past its time limit"
    elif compiled.status is not RunStatus.FINISHED:
        reason = f"the compile phase ended with {compiled.status.value}"
    return _replace(compiled, status=RunStatus.COMPILE_ERROR, compile=compiled, error=reason)


def _replace(result: RunResult, **changes: Any) -> RunResult:
    import dataclasses

    return dataclasses.replace(result, **changes)


# ----------------------------------------------------------------------------------------------------------
# Clean-up and the process-wide default


def _cleanup(owner_pid: int, holder: list[_State | None]) -> None:
    state = holder[0]
    if state is None or os.getpid() != owner_pid:
        return
    if state.launchers is not None:
        state.launchers.close()
    state.backend.close()
    if state.uids is not None:
        state.uids.close()
    if state.owns_cache or state.cache_dir.startswith(state.base + os.sep):
        shutil.rmtree(state.cache_dir, ignore_errors=True)
    shutil.rmtree(state.base, ignore_errors=True)


def _remove_stale_bases() -> None:
    """Remove the temporary directories of sandboxes whose process died without cleaning up a day ago
    or more (the age guards against a /tmp shared with processes this one cannot see)."""
    root = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for name in os.listdir(root):
            parts = name.split("-")
            if not name.startswith("rewardloop-sandbox-") or len(parts) < 4 or pid_alive(parts[2]):
                continue
            path = os.path.join(root, name)
            with contextlib.suppress(OSError):
                if time.time() - os.stat(path).st_mtime > _STALE_AFTER_S:
                    shutil.rmtree(path, ignore_errors=True)


_default: Sandbox | None = None
_default_lock = threading.Lock()


#: names the process-wide sandbox's isolation (default ``auto``); the only way to make it ``none``
ENV_ISOLATION = "REWARDLOOP_SANDBOX_ISOLATION"


def default_sandbox() -> Sandbox:
    """The process-wide sandbox, created on first use: ``isolation="auto"``, or what
    ``REWARDLOOP_SANDBOX_ISOLATION`` names (``none`` runs only when named there)."""
    global _default
    with _default_lock:
        if _default is None or _default._closed:
            isolation = os.environ.get(ENV_ISOLATION) or "auto"
            if isolation not in ISOLATIONS:
                raise ConfigError(
                    f"{ENV_ISOLATION}={isolation[:40]!r} is not a sandbox isolation. Allowed: {', '.join(ISOLATIONS)}"
                )
            _default = Sandbox(isolation=isolation)
        return _default


def _check_hidden(requested: Sequence[str], plan: MountPlan) -> None:
    """Fail closed: an existing ``hidden_paths`` entry the mount plan cannot cover refuses the sandbox, since
    leaving it readable would hand a program the very data it was meant not to see."""
    for raw in requested:
        why = uncovered(raw, plan)
        if why is not None:
            raise ConfigError(
                f"Sandbox.hidden_paths: {raw!r} cannot be hidden: {why}; keep such data in a directory outside "
                "those trees (e.g. under /srv or a data volume), which hidden_paths or the defaults cover"
            )

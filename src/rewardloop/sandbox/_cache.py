"""The compile cache: one directory per program, published by an atomic rename, capped in size with
least-recently-used eviction.

``root/<key>/`` holds ``result.json`` (the compile's :class:`RunResult`) and, for a successful build,
the artefact (``main``, or Java's ``out/``). The key is a sha256 of the language, the compiler's
identity, the compile command, the source file name, the code and every input file.

Runs never see this directory: it is hidden like the other private directories, and the backend binds
only the run's own artefact, read-only, into the run's working directory. So a program cannot list, read
or execute the builds of other programs (which could be its peers' answers).

Size: the total of all entries is kept under ``max_bytes`` (default 1 GiB). Storing a new entry that
takes the total over the cap removes the least recently used entries (loading an entry marks it used)
until the total is at most 90% of the cap; entries in use by a run of this process are kept. A build
larger than a quarter of the cap is never kept: it is stored as a one-use entry, removed after its run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
import shutil
import stat
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict

from ._types import RunResult, RunStatus

__all__ = ["DEFAULT_CACHE_MB", "CompileCache", "cache_key", "unsafe_artefact"]

log = logging.getLogger(__name__)

DEFAULT_CACHE_MB = 1024
_RESULT = "result.json"


def cache_key(header: Sequence[object], files: Mapping[str, bytes], code: str) -> str:
    """sha256 over a JSON ``header`` (language, compiler identity, command, names), the files and the code."""
    digest = hashlib.sha256(json.dumps(list(header)).encode())
    for name in sorted(files):
        digest.update(b"\0" + hashlib.sha256(files[name]).digest())
    digest.update(b"\0" + code.encode())
    return digest.hexdigest()


class CompileCache:
    """Entries under ``root``, at most ``max_bytes`` in total (see the module docstring)."""

    def __init__(self, root: str, max_bytes: int) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._in_use: Counter[str] = Counter()
        self._total: int | None = None  # estimate of the bytes under root; None until the first scan

    @property
    def max_entry_bytes(self) -> int:
        return self.max_bytes // 4

    def load(self, key: str) -> RunResult | None:
        """The cached compile result, marking the entry as recently used; None on a miss."""
        path = os.path.join(self.root, key, _RESULT)
        try:
            with open(path) as fh:
                data = json.load(fh)
            data["status"] = RunStatus(data["status"])
            result = RunResult(**data)
        except (OSError, ValueError, TypeError, KeyError):
            return None
        with contextlib.suppress(OSError):
            os.utime(path)
        return result

    def store(self, key: str, result: RunResult, artefact: str | None) -> str | None:
        """Publish ``result`` (and the built ``artefact``) under ``key``; returns the name of the entry
        that holds the artefact (``key``, or a one-use entry for a build over the per-entry cap), or None
        when nothing could be stored. A concurrent process publishing the same key first wins."""
        size = _size(artefact) if artefact is not None else 0
        once = artefact is not None and size > self.max_entry_bytes
        name = secrets.token_hex(16) if once else key
        staging = tempfile.mkdtemp(prefix=".staging-", dir=self.root)
        try:
            if artefact is not None:
                _copy(artefact, os.path.join(staging, os.path.basename(artefact)))
            if once:
                log.info("compile cache: a %d MB build is used once, not kept", size >> 20)
            else:
                _write_result(staging, result)
            _publishable(staging)
            os.rename(staging, os.path.join(self.root, name))  # atomic; fails if the key exists
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            exists = os.path.isdir(os.path.join(self.root, name))
            if not exists:
                log.debug("compile cache: cannot store %s: %s", key, exc)
            return name if exists else None
        if not once:
            self._grew(size)
        return name

    def discard(self, name: str, key: str) -> None:
        """Remove a one-use entry (``name`` differs from the program's ``key``) after its run."""
        if name != key:
            shutil.rmtree(os.path.join(self.root, name), ignore_errors=True)

    @contextlib.contextmanager
    def using(self, key: str) -> Iterator[None]:
        """Keep ``key`` from eviction while a run of this process uses it."""
        with self._lock:
            self._in_use[key] += 1
        try:
            yield
        finally:
            with self._lock:
                self._in_use[key] -= 1
                if self._in_use[key] <= 0:
                    del self._in_use[key]

    def total_bytes(self) -> int:
        return sum(size for _, size, _ in self._scan())

    # ------------------------------------------------------------------------------------------ eviction

    def _grew(self, size: int) -> None:
        with self._lock:
            if self._total is None:
                self._total = sum(s for _, s, _ in self._scan())
            else:
                self._total += size
            if self._total <= self.max_bytes:
                return
            self._total = self._evict()

    def _evict(self) -> int:
        """Remove least recently used entries until the total is <= 90% of the cap; the new total."""
        entries = sorted(self._scan())
        total = sum(size for _, size, _ in entries)
        for _, size, name in entries:
            if total <= self.max_bytes * 9 // 10:
                break
            if name in self._in_use:
                continue
            shutil.rmtree(os.path.join(self.root, name), ignore_errors=True)
            total -= size
        return total

    def _scan(self) -> list[tuple[float, int, str]]:
        """(last use, bytes, name) of every published entry."""
        out = []
        with contextlib.suppress(OSError), os.scandir(self.root) as it:
            for entry in it:
                if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                    continue
                path = entry.path
                try:
                    used = os.stat(os.path.join(path, _RESULT)).st_mtime
                except OSError:
                    used = entry.stat(follow_symlinks=False).st_mtime
                out.append((used, _size(path), entry.name))
        return out


def _size(path: str) -> int:
    """Bytes of a file or directory tree: apparent sizes (a sparse build counts in full, as copying it
    may fill it in), at least one block per file or directory."""
    try:
        top = os.lstat(path)
    except OSError:
        return 0
    total = max(top.st_size, 4096)
    if stat.S_ISDIR(top.st_mode):
        for root, dirs, names in os.walk(path):
            for n in (*dirs, *names):
                with contextlib.suppress(OSError):
                    total += max(os.lstat(os.path.join(root, n)).st_size, 4096)
    return total


def _copy(artefact: str, target: str) -> None:
    if os.path.isdir(artefact):
        shutil.copytree(artefact, target, symlinks=True)  # checked by unsafe_artefact: there are none
    else:
        shutil.copyfile(artefact, target, follow_symlinks=False)
        shutil.copymode(artefact, target, follow_symlinks=False)


def _write_result(directory: str, result: RunResult) -> None:
    record = {k: v for k, v in asdict(result).items() if k != "compile"}
    record["status"] = result.status.value
    with open(os.path.join(directory, _RESULT), "w") as fh:
        json.dump(record, fh)


def unsafe_artefact(path: str) -> str | None:
    """Why the compile output must not be copied by us (we may be root), or None when it is plain.

    Only directories and singly-linked regular files pass: a symbolic or hard link planted during the
    compile phase would otherwise make the parent copy a file the program could not read itself.
    """
    try:
        top = os.lstat(path)
    except OSError:
        return "the compiler produced no output"
    entries = [(path, top)]
    if stat.S_ISDIR(top.st_mode):
        for root, dirs, names in os.walk(path):
            entries += [(os.path.join(root, n), os.lstat(os.path.join(root, n))) for n in (*dirs, *names)]
    for name, st in entries:
        if stat.S_ISDIR(st.st_mode):
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            return f"the build produced something other than a plain file: {os.path.basename(name)!r}"
    return None


def _publishable(root: str) -> None:
    """Root owns the cache; every run's uid must read its artefact and execute the programs in it."""
    for dirpath, dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            path = os.path.join(dirpath, name)
            mode = os.stat(path).st_mode
            os.chmod(path, 0o755 if mode & 0o111 else 0o644)
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)

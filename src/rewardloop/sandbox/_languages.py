"""Languages: where each toolchain lives, how a program is compiled and started, and how each runtime
reports running out of memory.

Toolchains are resolved once per :class:`~rewardloop.sandbox.Sandbox` from the parent's ``PATH`` to real
paths (a rustup proxy becomes the toolchain's own ``rustc``), so the sandboxed program needs neither the
parent's ``PATH`` nor its ``HOME``. ``roots`` are the directories a toolchain needs at run time; the
isolation layer keeps them visible (read-only) when it hides the directories they live in.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass

from ..errors import ConfigError
from ._mounts import too_broad_to_expose
from ._types import Limits

__all__ = ["LANGUAGES", "Language", "Toolchain", "java_names", "resolve_language"]


@dataclass(frozen=True)
class Toolchain:
    """Resolved executables of one language. ``identity`` changes when the compiler binary changes."""

    language: str
    executables: dict[str, str]
    roots: tuple[str, ...]
    identity: str


def _which(name: str) -> str | None:
    found = shutil.which(name)
    return os.path.realpath(found) if found else None


def _root_of(executable: str) -> str:
    """``/x/y/bin/tool`` -> ``/x/y``: the installation a binary belongs to. Never ``/``, a home
    directory or a directory above one (``~/bin/bash`` would expose the whole home): then the binary
    alone."""
    bindir = os.path.dirname(executable)
    root = os.path.dirname(bindir) if os.path.basename(bindir) == "bin" else bindir
    return executable if too_broad_to_expose(root) else root


def _identity(path: str) -> str:
    st = os.stat(path)
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


class Language:
    """One language. Subclasses say which tools it needs and how to build the command lines."""

    name: str = ""
    aliases: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    compiled: bool = False
    source: str = "main"
    oom_markers: tuple[str, ...] = ()
    stack_mb: int = 64  # RLIMIT_STACK; the runtimes that start many threads get less (stacks count as data)

    def resolve(self) -> Toolchain | None:
        found = {tool: _which(tool) for tool in self.tools}
        if not all(found.values()):
            return None
        paths = {k: v for k, v in found.items() if v}
        roots = tuple(sorted({_root_of(p) for p in paths.values()}))
        return Toolchain(self.name, paths, roots, "|".join(_identity(p) for p in paths.values()))

    def source_name(self, code: str) -> str:
        return self.source

    def compile_argv(self, tc: Toolchain, source: str) -> list[str]:
        raise NotImplementedError

    def artefact(self, source: str) -> str:
        """What the compile phase leaves behind in the working directory (file or directory)."""
        return "main"

    def run_argv(self, tc: Toolchain, code: str, source: str, built: str | None, limits: Limits) -> list[str]:
        """``built``: the absolute path of the compiled artefact inside the sandbox (compiled languages)."""
        raise NotImplementedError


class Python(Language):
    name, aliases, source = "python", ("python3", "py"), "main.py"
    oom_markers = ("MemoryError",)

    def resolve(self) -> Toolchain:
        exe = sys.executable
        real = os.path.realpath(exe)
        dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, _root_of(real)}
        dirs.update(p for p in site.getsitepackages() if os.path.isdir(p))
        roots = tuple(sorted(os.path.realpath(d) for d in dirs) + sorted(dirs))
        return Toolchain(self.name, {"python": exe}, tuple(dict.fromkeys(roots)), _identity(real))

    def run_argv(self, tc: Toolchain, code: str, source: str, built: str | None, limits: Limits) -> list[str]:
        # -E -s: ignore PYTHON* variables and the user site; the interpreter's own site-packages stay
        # importable (numpy ...). -B: no .pyc files. Not -I: the script's directory must stay on sys.path
        # so that helper modules passed in ``files`` import.
        return [tc.executables["python"], "-E", "-s", "-B", source]


class Bash(Language):
    name, aliases, tools, source = "bash", ("sh", "shell"), ("bash",), "main.sh"
    oom_markers = ("cannot allocate memory",)
    stack_mb = 8

    def run_argv(self, tc: Toolchain, code: str, source: str, built: str | None, limits: Limits) -> list[str]:
        return [tc.executables["bash"], source]


class JavaScript(Language):
    name, aliases, tools, source = "javascript", ("js", "node", "nodejs"), ("node",), "main.js"
    oom_markers = ("heap out of memory", "Fatal process out of memory", "Allocation failed")
    stack_mb = 8

    def run_argv(self, tc: Toolchain, code: str, source: str, built: str | None, limits: Limits) -> list[str]:
        argv = [tc.executables["node"]]
        if limits.memory_mb is not None:  # V8 fails cleanly below the cap instead of dying in malloc
            argv.append(f"--max-old-space-size={max(16, limits.memory_mb * 3 // 4)}")
        return [*argv, source]


class C(Language):
    aliases: tuple[str, ...]
    tools: tuple[str, ...]
    name, aliases, tools, source, compiled = "c", ("gcc",), ("gcc",), "main.c", True
    oom_markers: tuple[str, ...] = ()
    flags: tuple[str, ...] = ("-O2", "-pipe", "-std=gnu17")

    def compile_argv(self, tc: Toolchain, source: str) -> list[str]:
        return [tc.executables[self.tools[0]], *self.flags, "-o", "main", source, "-lm"]

    def run_argv(self, tc: Toolchain, code: str, source: str, built: str | None, limits: Limits) -> list[str]:
        return [str(built)]


class Cpp(C):
    name, aliases, tools, source = "cpp", ("c++", "cxx", "g++"), ("g++",), "main.cpp"
    oom_markers = ("std::bad_alloc",)
    flags = ("-O2", "-pipe", "-std=gnu++17")


class Rust(C):
    name, aliases, tools, source = "rust", ("rs", "rustc"), ("rustc", "cc"), "main.rs"
    oom_markers = ("memory allocation of",)
    flags = ("-O", "--edition", "2021")

    def resolve(self) -> Toolchain | None:
        base = super().resolve()
        if base is None:
            return None
        rustc = _real_rustc(shutil.which("rustc") or base.executables["rustc"])
        if rustc is None:
            return None
        exes = {**base.executables, "rustc": rustc}
        # not the rustup proxy's directory (~/.cargo holds registry credentials): only the real toolchain
        roots = tuple(sorted({_root_of(rustc), _root_of(exes["cc"])}))
        return Toolchain(self.name, exes, roots, _identity(rustc) + "|" + _identity(exes["cc"]))

    def compile_argv(self, tc: Toolchain, source: str) -> list[str]:
        return [tc.executables["rustc"], *self.flags, "-o", "main", source]


def _real_rustc(rustc: str) -> str | None:
    """The toolchain's own rustc behind a rustup proxy (which needs HOME and RUSTUP_HOME to work), or
    None when ``rustc --print sysroot`` fails: the proxy's own directory (``~/.cargo``, which holds
    registry credentials) is never used instead."""
    try:
        out = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    candidate = os.path.join(out.stdout.strip(), "bin", "rustc")
    if out.returncode == 0 and out.stdout.strip() and os.access(candidate, os.X_OK):
        return os.path.realpath(candidate)
    return None


class Java(Language):
    name, aliases, tools, compiled = "java", (), ("javac", "java"), True
    # the JVM's own fatal errors go to stdout whatever the flags say
    oom_markers = ("java.lang.OutOfMemoryError", "insufficient memory for the Java Runtime Environment")
    stack_mb = 8
    jvm_flags = ("-XX:+UseSerialGC", "-XX:-UsePerfData", "-XX:TieredStopAtLevel=1")

    def source_name(self, code: str) -> str:
        return java_names(code)[0] + ".java"

    def compile_argv(self, tc: Toolchain, source: str) -> list[str]:
        jflags = [f"-J{f}" for f in (*self.jvm_flags, "-Xms32m", "-Xshare:auto")]
        # -proc:none -implicit:none: javac would otherwise load annotation processors (the program's own
        # code, from its `files`) and run them in the compile phase, under the compile limits
        return [
            tc.executables["javac"],
            *jflags,
            "-proc:none",
            "-implicit:none",
            "-encoding",
            "UTF-8",
            "-nowarn",
            "-d",
            "out",
            source,
        ]

    def artefact(self, source: str) -> str:
        return "out"

    def run_argv(self, tc: Toolchain, code: str, source: str, built: str | None, limits: Limits) -> list[str]:
        heap = [] if limits.memory_mb is None else [f"-Xmx{max(16, limits.memory_mb * 3 // 4)}m", "-Xms8m"]
        # -Xss64m: the java launcher runs main() on a thread of its own with this stack (deep recursion);
        # -XX:ThreadStackSize (KB, after it): every other thread's default, the JVM's own included. With
        # -Xss alone the JVM's ~8 threads took 64 MB each, all counted by RLIMIT_DATA where no cgroup caps
        # memory: the JVM could not start at memory_mb=512 (red-team round 3, p37). Threads the program
        # makes with an explicit stack size keep it.
        return [
            tc.executables["java"],
            "-XX:+UseSerialGC",
            "-XX:-UsePerfData",
            "-XX:+DisplayVMOutputToStderr",  # the JVM's warnings are not the program's output
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            *heap,
            "-Xss64m",
            "-XX:ThreadStackSize=1024",
            "-Djava.io.tmpdir=.",
            "-cp",
            str(built),
            java_names(code)[1],
        ]


LANGUAGES: dict[str, Language] = {
    lang.name: lang for lang in (Python(), C(), Cpp(), Java(), JavaScript(), Rust(), Bash())
}
_ALIASES = {alias: lang for lang in LANGUAGES.values() for alias in (lang.name, *lang.aliases)}


def resolve_language(language: str) -> Language:
    """The :class:`Language` for a name or alias (case-insensitive); ConfigError names the allowed ones."""
    lang = _ALIASES.get(str(language).strip().lower()) if isinstance(language, str) else None
    if lang is None:
        raise ConfigError(f"Unknown sandbox language {language!r}. Allowed: {', '.join(sorted(_ALIASES))}")
    return lang


# ----------------------------------------------------------------------------------------------------------
# Java: the file must be named after its public class, and ``java`` needs the class that holds ``main``.

_TYPE_DECL = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")
_MODIFIERS = frozenset(
    ("public", "protected", "private", "static", "final", "abstract", "strictfp", "sealed", "non-sealed")
)
_PACKAGE = re.compile(r"^[ \t]*package\s+([A-Za-z_$][\w$.]*)\s*;", re.MULTILINE)
_MAIN = re.compile(r"\bstatic\s+(?:final\s+)?void\s+main\s*\(")


def _is_public(text: str, at: int) -> bool:
    """Do the modifiers right before ``at`` include ``public``? (Looks back a bounded window: linear.)"""
    for word in reversed(text[max(0, at - 200) : at].split()):
        if word == "public":
            return True
        if word not in _MODIFIERS:
            return False
    return False


def java_names(code: str) -> tuple[str, str]:
    """(file stem, fully qualified main class) of a Java compilation unit.

    The file is named after the public top-level type (``Main`` when there is none); the main class is the
    top-level type that encloses the first ``static void main(`` (else the public type, else ``Main``).
    Comments and string/char literals are blanked first, in one linear pass, so neither can mislead it.
    """
    text = _blank_comments_and_literals(code)
    depth = _depth_table(text)
    top = [(m.start(), m.group(1), _is_public(text, m.start())) for m in _TYPE_DECL.finditer(text)]
    top = [t for t in top if depth[t[0]] == 0]
    public = next((name for _, name, is_public in top if is_public), None)
    main_at = _MAIN.search(text)
    enclosing = [name for pos, name, _ in top if main_at and pos < main_at.start()]
    main = enclosing[-1] if enclosing else (public or (top[0][1] if top else "Main"))
    package = _PACKAGE.search(text)
    qualified = f"{package.group(1)}.{main}" if package else main
    return public or "Main", qualified


def _depth_table(text: str) -> list[int]:
    """Brace depth before each character (index ``len(text)`` included)."""
    depth, table = 0, []
    for ch in text:
        table.append(depth)
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
    table.append(depth)
    return table


_LITERAL_START = re.compile(r"[/\"']")


def _blank_comments_and_literals(code: str) -> str:
    """Replace comments and the insides of string, text-block and char literals with spaces (one pass)."""
    out: list[str] = []
    i = 0
    while (m := _LITERAL_START.search(code, i)) is not None:
        start = m.start()
        end = _literal_end(code, start)
        if end is None:
            out.append(code[i : start + 1])
            i = start + 1
            continue
        out.append(code[i:start])
        out.append(" " * (end - start))
        i = end
    out.append(code[i:])
    return "".join(out)


def _literal_end(code: str, i: int) -> int | None:
    """End index of a comment or literal that starts at ``i``, or None when none starts there."""
    two = code[i : i + 2]
    if two == "//":
        j = code.find("\n", i)
        return len(code) if j < 0 else j
    if two == "/*":
        j = code.find("*/", i + 2)
        return len(code) if j < 0 else j + 2
    if code.startswith('"""', i):
        j = code.find('"""', i + 3)
        return len(code) if j < 0 else j + 3
    if code[i] in "\"'":
        return _quoted_end(code, i)
    return None


def _quoted_end(code: str, i: int) -> int:
    quote, j, n = code[i], i + 1, len(code)
    while j < n and code[j] not in (quote, "\n"):
        j += 2 if code[j] == "\\" else 1
    return min(j + 1, n)

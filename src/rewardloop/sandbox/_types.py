"""The sandbox vocabulary: :class:`Limits`, :class:`RunStatus`, :class:`RunResult`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .._validate import Bool, Int, Number, Spec, check_fields

__all__ = ["Limits", "RunResult", "RunStatus"]


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run. Every default is defined here, once.

    ``wall_s``: wall-clock limit of the run phase. ``cpu_s``: CPU-time limit per process (``None`` means
    ``wall_s``; the kernel enforces whole seconds, rounded up). ``memory_mb``: private writable memory
    (heap, anonymous mappings) per process via ``RLIMIT_DATA``, and the total of the run's processes via
    a memory cgroup when one can be created (``None``: no limit). ``output_bytes``: cap per stream
    (stdout, stderr); past it the output is truncated and the run is stopped. ``max_processes``: tasks
    (processes *and threads*) the program may have at once. ``file_size_mb``: the largest file the
    program may write. ``network``: give the program the host's network (default: none at all).
    ``compile_wall_s``: wall-clock (and CPU) limit of the compile phase of compiled languages.
    """

    wall_s: float = 10.0
    cpu_s: float | None = None
    memory_mb: int | None = 1024
    output_bytes: int = 1 << 20
    max_processes: int = 64
    file_size_mb: int = 16
    network: bool = False
    compile_wall_s: float = 30.0

    def __post_init__(self) -> None:
        check_fields(self, _LIMITS_SPECS, "Limits.")

    @property
    def effective_cpu_s(self) -> float:
        """The CPU-time limit in force: ``cpu_s``, or ``wall_s`` when unset."""
        return self.wall_s if self.cpu_s is None else self.cpu_s


# each field's rule (rewardloop._validate words the errors)
_LIMITS_SPECS: dict[str, Spec] = {
    "wall_s": Number(positive=True),
    "compile_wall_s": Number(positive=True),
    "cpu_s": Number(positive=True, optional=True),
    "memory_mb": Int(minimum=1, optional=True),
    "output_bytes": Int(minimum=1),
    "max_processes": Int(minimum=1),
    "file_size_mb": Int(minimum=1),
    "network": Bool(),
}


class RunStatus(str, Enum):
    """How a run ended. ``FINISHED`` means the program exited on its own, with any exit code."""

    FINISHED = "finished"
    TIMEOUT = "timeout"  # the wall-clock or CPU-time limit was reached; the process tree was killed
    MEMORY_EXCEEDED = "memory_exceeded"  # an allocation failed under the cap, or the cgroup OOM-killed it
    OUTPUT_EXCEEDED = "output_exceeded"  # stdout or stderr passed Limits.output_bytes; the run was stopped
    COMPILE_ERROR = "compile_error"  # the compile phase failed or timed out; the program never ran
    SANDBOX_ERROR = "sandbox_error"  # the sandbox failed: infrastructure, never the program's doing

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run (or of its compile phase, in ``compile``).

    ``exit_code`` is set when the process exited, ``signal`` when a signal ended it (``exit_code`` is then
    ``None``). ``stdout``/``stderr`` are decoded as UTF-8 (invalid bytes replaced) and cut at
    ``Limits.output_bytes`` each, with ``truncated`` set. ``wall_s`` is measured by the parent; ``cpu_s``
    is user + system time of the process tree as reported by the kernel (``None`` when unknown).
    ``compile`` holds the compile phase's own result for compiled languages (also on a cache hit, where it
    is the cached one); on ``COMPILE_ERROR`` the exit code and output fields are the compiler's. ``error``
    explains a ``SANDBOX_ERROR``, and a ``COMPILE_ERROR`` that was not a plain compiler failure (the
    compile phase timed out, for instance).
    """

    status: RunStatus
    exit_code: int | None = None
    signal: int | None = None
    stdout: str = ""
    stderr: str = ""
    wall_s: float = 0.0
    cpu_s: float | None = None
    truncated: bool = False
    compile: RunResult | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """The program ran to completion and exited with code 0."""
        return self.status is RunStatus.FINISHED and self.exit_code == 0

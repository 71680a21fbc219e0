"""A local sandbox for untrusted programs: compile (with a cache) and run code in python, c, cpp, java,
javascript, rust or bash under time, memory, output, process and file-size limits, without network.

::

    from rewardloop.sandbox import Limits, Sandbox

    with Sandbox() as sb:
        result = sb.run("print(input()[::-1])", "python", stdin="abc", limits=Limits(wall_s=2))
        result.status, result.stdout          # (RunStatus.FINISHED, 'cba\\n')

A run never raises for anything the program does; it ends with a :class:`RunStatus`. ``SANDBOX_ERROR`` is
reserved for failures of the sandbox itself, and the program cannot forge it: the parent only believes
the program started when a random per-run token, written by the last trusted process right before it
``exec``-s the program, arrives on stderr.

What is isolated, with the default backend (``isolation="unshare"``, chosen by ``"auto"`` when running as
root; util-linux only, nothing to install):

* **Network**: a new network namespace per run, whose only interface is a loopback that is down. No
  connection to the host's 127.0.0.1, the LAN or the internet, and no abstract Unix sockets of the host.
  ``Limits(network=True)`` shares the host's network instead (name resolution may still fail: ``/run``
  is hidden).
* **Processes**: a new PID namespace per run (and IPC and UTS namespaces). Its PID 1 is the sandbox's
  reaper (root's, not dumpable), which reaps every process of the run, counts their CPU time and bounds
  its sum by ``cpu_s``; the program is PID 2, sees only its own processes (its own ``/proc``) and the
  reaper, and cannot signal anything outside; when it exits or is killed, the reaper kills and reaps
  every process left in the namespace.
* **Identity**: an unprivileged uid/gid of its own for the run (from a host-wide pool at 0x70000000,
  one run at a time, its keyrings emptied between runs), no supplementary groups, no
  capabilities (empty bounding, inheritable and ambient sets) and ``no_new_privs``. It can write nothing
  it does not own and read nothing that is not world-readable; set-uid binaries give it nothing.
* **Kernel objects**: every mount it can reach is ``nosuid,nodev`` (the holder refuses to start when it
  cannot make them so), ``/dev`` holds only ``null zero full random urandom tty``, and each run starts
  in a fresh, empty session keyring.
* **Filesystem**: one private mount namespace per :class:`Sandbox`, held by a small root process: an
  empty tmpfs covers ``/root``, ``/home``, ``/tmp``, ``/var/tmp``, ``/dev/shm``, ``/run``, ``/mnt``,
  ``/media``, ``/srv``, the source checkout rewardloop runs from, the current directory at first use,
  and ``hidden_paths`` (symbolic links followed). The toolchains (the Python prefix and virtualenv, the
  JDK, the Rust sysroot ..., never ``/`` or a home directory) are bound back read-only at their own
  paths; the compile cache stays hidden, and a compiled program's run gets only its own build, bound
  read-only as ``./main`` (``./out`` for Java). stdin is a pipe. Each run works in a fresh tmpfs
  owned by its uid, capped at ``max(64 MB, 4 x file_size_mb)`` plus its inputs and removed afterwards;
  ``HOME`` and ``TMPDIR`` point there. ``/tmp`` and ``/dev/shm`` are not writable (no POSIX shared
  memory, so no ``multiprocessing`` locks).
* **Environment**: only ``PATH``, ``HOME``, ``TMPDIR``, ``LANG=C.UTF-8`` and thread caps
  (``OMP_NUM_THREADS=1``, ``OPENBLAS_NUM_THREADS=1``, ...) reach the program.
* **Limits**: wall clock (the parent kills the tree), CPU time (``RLIMIT_CPU``, whole seconds, per
  process), memory (a memory cgroup over the whole tree where root can create one; else ``RLIMIT_DATA``
  per process: heap and anonymous mappings, thread stacks included, so numpy/OpenBLAS still start), tasks (``RLIMIT_NPROC``,
  exact because the uid is unique to the run; threads count), file size (``RLIMIT_FSIZE``), open files
  (1024), no core dumps, and stdout/stderr capped by the parent (the run is stopped past the cap).

What is **not** isolated:

* The rest of the filesystem is the host's: every world-readable file outside the hidden directories
  (``/etc/passwd``, ``/usr``, ``/opt``, data sets in a shared directory ...) can be read. Add such
  directories to ``hidden_paths``.
* The kernel is shared and there is no seccomp filter: a kernel exploit escapes, and unprivileged user
  namespaces, where the host allows them, are available to the program. Time, CPU caches and load are
  shared (timing side channels between concurrent runs).
* The compile phase runs in the same sandbox, so a compiler bug is contained like the program.

Other backends: ``"bwrap"`` (bubblewrap, when installed; also without root) builds the same hidden and
read-only layout per run, with the working directory a host directory (no size quota); as root the uid
is switched with ``setpriv``, otherwise the program keeps the caller's uid inside a user namespace.
``"none"`` (never chosen by ``"auto"``, which refuses when neither works; only when named) is **not a sandbox**:
the program runs as the caller, with the caller's network and filesystem, and can signal the caller's
processes; only the limits, a scrubbed environment, a private working directory and a new session
apply, and the task cap needs a pids cgroup (``RLIMIT_NPROC`` cannot tell runs apart when they share a
uid). Test harnesses (stdin/stdout, call-based, HumanEval, MBPP) that judge a program per test case
are in :mod:`rewardloop.sandbox.harness`. See ``docs/sandbox.md`` for the details, the languages and
the measured overhead.
"""

from __future__ import annotations

from ._sandbox import Sandbox, default_sandbox
from ._types import Limits, RunResult, RunStatus

__all__ = ["Limits", "RunResult", "RunStatus", "Sandbox", "default_sandbox"]

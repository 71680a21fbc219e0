"""Breaker round 5: a fresh, independent set of probes against the guarantees of docs/sandbox.md and the
``rewardloop sandbox serve`` limits, written from the documentation and the public API only.

Each test names the documented promise it probes. A probe that breaks its promise is a strict xfail
(``breaker5: ...``) on the backend where it breaks; one that holds is an ordinary test. Every probe runs
on both isolating backends (``unshare`` and ``bwrap``, both as root here). Leftover checks look for a
marker unique to this process, and only processes this test started are ever signalled.
"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rewardloop.sandbox import Limits, RunStatus, Sandbox
from rewardloop.sandbox.harness import TestStatus, run_tests

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the probes run as root (unshare/bwrap as root)")

BACKENDS = ["unshare", "bwrap"]
_BACKEND: dict[int, str] = {}
MARK = f"rlb5{os.getpid() % 100000:05d}"  # unique to this test process; 9 chars fit in a 15-char comm


@pytest.fixture(scope="module", params=BACKENDS)
def sb(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    if request.param == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap not installed")
    with Sandbox(isolation=request.param, max_parallel=4) as box:
        _BACKEND[id(box)] = request.param
        yield box


def xfail_on(request: pytest.FixtureRequest, backend_now: str, backend: str, reason: str) -> None:
    """Mark the current probe a strict xfail when it runs on ``backend`` (a break found there)."""
    if backend_now == backend:
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"breaker5: {reason}"))


def py(sb: Sandbox, code: str, **kw: Any) -> Any:
    kw.setdefault("limits", Limits(wall_s=30))
    return sb.run(code, "python", **kw)


def _host_comms(marker: str) -> list[int]:
    """Host pids whose comm or cmdline carries ``marker`` (zombies keep their comm, lose their cmdline)."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{p}/comm", "rb") as f:
                comm = f.read()
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmd = f.read()
            if marker.encode() in comm or marker.encode() in cmd:
                found.append(int(p))
    return found


def _gone(marker: str, within_s: float = 10.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while True:
        left = [p for p in _host_comms(marker) if p != os.getpid()]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


# ====================================================================== filesystem view


def _toolchain_roots() -> list[str]:
    """The host directories the sandbox binds in for its toolchains (the Python prefix, the virtualenv...), as
    named and resolved: a virtualenv reached through a symbolic link is bound at the link's path."""
    from rewardloop.sandbox._languages import LANGUAGES

    roots = [r for lang in LANGUAGES.values() if (tc := lang.resolve()) for r in tc.roots]
    return sorted({*roots, *map(os.path.realpath, roots)})


def test_fs_every_nonstandard_top_level_directory_is_an_empty_tmpfs(sb: Sandbox) -> None:
    """Hidden: "every top-level directory outside the standard hierarchy" (here /old_root, /farm, /boot).
    A top-level directory that holds a toolchain (/work here, wherever the checkout and its virtualenv live
    on another machine) shows only the bound toolchain trees: no other file of the host."""
    roots = _toolchain_roots()
    tops = sorted({"/" + r.strip("/").split("/")[0] for r in roots if r.strip("/")})
    code = (
        "import json, os\n"
        f"roots = {roots!r}\n"
        f"tops = {tops!r}\n"
        "res = {}\n"
        "for d in sorted(os.listdir('/')):\n"
        "    p = '/' + d\n"
        "    if d in ('bin','dev','etc','lib','lib32','lib64','libx32','proc','sbin','sys','usr','tmp','root') or p in tops:\n"
        "        continue\n"
        "    if os.path.isdir(p) and not os.path.islink(p):\n"
        "        try:\n            res[d] = len(os.listdir(p))\n"
        "        except PermissionError:\n            res[d] = 'EACCES'\n"
        "def bound(b):\n"
        "    return any(b == r or b.startswith(r + '/') for r in roots)\n"
        "files = [os.path.join(b, f) for t in tops if not t.startswith(('/usr', '/tmp'))\n"
        "         for b, _, fs in os.walk(t) if not bound(b) for f in fs]\n"
        "print(json.dumps([res, files[:20]]))\n"
    )
    r = py(sb, code, limits=Limits(wall_s=60))
    assert r.status is RunStatus.FINISHED, r
    entries, files = json.loads(r.stdout)
    assert files == [], r.stdout
    assert {k: v for k, v in entries.items() if v not in (0, "EACCES")} == {}, entries


def test_fs_root_only_host_files_stay_unreadable(sb: Sandbox) -> None:
    """Identity: an unprivileged pooled uid, no capabilities: /etc/shadow, /etc/gshadow, /proc/kcore and
    another namespace's handle give nothing."""
    code = (
        "import os\n"
        "out = []\n"
        "for p in ['/etc/shadow', '/etc/gshadow', '/proc/kcore', '/proc/sysrq-trigger']:\n"
        "    try:\n        open(p, 'rb').read(16); out.append('READ ' + p)\n"
        "    except OSError as e:\n        out.append(e.errno)\n"
        "try:\n    os.setns(os.open('/proc/self/ns/net', os.O_RDONLY), 0); out.append('SETNS')\n"
        "except OSError as e:\n    out.append(e.errno)\n"
        "print(out)\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED and "READ" not in r.stdout and "SETNS" not in r.stdout, r.stdout


def test_fs_the_working_directorys_parents_are_not_writable(sb: Sandbox) -> None:
    """Working directory: the only writable place. Its parent and grandparent (where the next runs'
    directories are made) take no file, so nothing is planted for a peer or the next run."""
    code = (
        "import os\n"
        "cwd = os.getcwd(); wrote = []\n"
        "for d in (os.path.dirname(cwd), os.path.dirname(os.path.dirname(cwd))):\n"
        "    for name in ('planted', 'main.py'):\n"
        "        try:\n            open(os.path.join(d, name), 'w').write('x'); wrote.append(d)\n"
        "        except OSError:\n            pass\n"
        "    try:\n        os.mkdir(os.path.join(d, 'planted_dir')); wrote.append(d)\n"
        "    except OSError:\n        pass\n"
        "print(wrote)\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED and r.stdout.strip() == "[]", r.stdout


def test_fs_no_persistence_through_dev_proc_or_xattrs(sb: Sandbox) -> None:
    """Persistence to the next run: /dev, /dev/pts, /dev/shm, /proc/self/attr and user xattrs on visible
    files are not writable, and the next run starts with the same /dev."""
    plant = (
        "import os\n"
        "ok = []\n"
        "for p in ['/dev/planted', '/dev/pts/planted', '/dev/shm/planted', '/dev/mqueue']:\n"
        "    try:\n        open(p, 'w').write('x'); ok.append(p)\n"
        "    except OSError:\n        pass\n"
        "for p in ['/etc/hostname', '/usr/bin/env', '/dev/null']:\n"
        "    try:\n        os.setxattr(p, 'user.rl', b'x'); ok.append('xattr ' + p)\n"
        "    except OSError:\n        pass\n"
        "print(ok, sorted(os.listdir('/dev')))\n"
    )
    r1 = py(sb, plant)
    r2 = py(sb, "import os\nprint(sorted(os.listdir('/dev')))\n")
    assert r1.status is RunStatus.FINISHED and r1.stdout.startswith("[] "), r1.stdout
    assert r1.stdout.split(" ", 1)[1].strip() == r2.stdout.strip(), (r1.stdout, r2.stdout)


def test_fs_hidden_paths_given_by_symlink_or_unnormalised_spelling_are_covered(tmp_path: Path) -> None:
    """hidden_paths "are resolved and their targets covered"; spelt through a symbolic link, with a
    trailing slash, ``.`` or ``..``, the directory (/etc/apt, a visible tree) must still read as empty."""
    link = tmp_path / "apt-link"
    link.symlink_to("/etc/apt")
    spellings = [str(link), "/etc/apt/", "/etc/./apt", "/etc/apt/../apt"]
    listdirs = "import os, sys\nfor p in sys.argv[1:]:\n    print(len(os.listdir(p)))\n"
    assert os.listdir("/etc/apt")
    for backend in BACKENDS:
        if backend == "bwrap" and shutil.which("bwrap") is None:
            continue
        for hidden in spellings:
            with Sandbox(isolation=backend, hidden_paths=(hidden,)) as box:
                r = box.run(listdirs, "python", args=("/etc/apt",), limits=Limits(wall_s=30))
            assert r.status is RunStatus.FINISHED and r.stdout.strip() == "0", (backend, hidden, r)


def test_fs_kernel_tunables_and_the_hostname_cannot_be_changed(sb: Sandbox) -> None:
    """/proc/sys and /sys are readable, not writable; the UTS namespace is its own and unprivileged."""
    code = (
        "import os, socket\n"
        "out = []\n"
        "for p in ['/proc/sys/kernel/hostname', '/proc/sys/vm/drop_caches', '/proc/sys/kernel/core_pattern',\n"
        "          '/sys/kernel/mm/transparent_hugepage/enabled', '/proc/sysrq-trigger']:\n"
        "    try:\n        fd = os.open(p, os.O_WRONLY); os.write(fd, b'1'); out.append('WROTE ' + p)\n"
        "    except OSError as e:\n        out.append(e.errno)\n"
        "try:\n    socket.sethostname('rlb5'); out.append('HOSTNAME')\n"
        "except OSError as e:\n    out.append(e.errno)\n"
        "print(out)\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED and "WROTE" not in r.stdout and "HOSTNAME" not in r.stdout, r.stdout


# ====================================================================== network


def test_net_ipv6_loopback_raw_and_packet_sockets_give_no_way_out(sb: Sandbox) -> None:
    """No network: IPv6 (::1 and a global address) is as closed as IPv4; raw ICMP and packet sockets
    need a capability the run does not have."""
    code = (
        "import socket\n"
        "out = []\n"
        "for fam, typ, proto in [(socket.AF_PACKET, socket.SOCK_RAW, 0), (socket.AF_INET, socket.SOCK_RAW, 1),\n"
        "                        (socket.AF_INET6, socket.SOCK_RAW, 58)]:\n"
        "    try:\n        socket.socket(fam, typ, proto); out.append('RAW')\n"
        "    except OSError as e:\n        out.append(e.errno)\n"
        "for addr in [('::1', 22), ('2606:4700:4700::1111', 53), ('::ffff:1.1.1.1', 53)]:\n"
        "    s = socket.socket(socket.AF_INET6); s.settimeout(2)\n"
        "    try:\n        s.connect(addr); out.append('CONNECTED')\n"
        "    except OSError as e:\n        out.append(e.errno)\n"
        "print(out)\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED, r
    assert "RAW" not in r.stdout and "CONNECTED" not in r.stdout, r.stdout


def test_net_vsock_local_peer_is_unreachable(sb: Sandbox) -> None:
    """No host IPC past the namespaces: a vsock listener of the caller (VMADDR_CID_ANY) is not reached
    through the local CID (vsock is not network-namespaced; see the report for CID 2)."""
    if not hasattr(socket, "AF_VSOCK"):
        pytest.skip("no AF_VSOCK")
    try:
        srv = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
    except OSError:
        pytest.skip("no vsock transport on this host")
    with srv:
        srv.bind((socket.VMADDR_CID_ANY, 47000 + os.getpid() % 1000))
        srv.listen(1)
        srv.settimeout(0.2)
        port = srv.getsockname()[1]
        code = (
            "import socket\n"
            "try:\n    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); s.settimeout(2)\n"
            f"    s.connect((1, {port})); print('CONNECTED')\n"
            "except OSError as e:\n    print('E', e.errno)\n"
        )
        r = py(sb, code)
        with contextlib.suppress(OSError):
            conn, _ = srv.accept()
            conn.close()
            pytest.fail("the sandbox reached the caller's vsock listener")
    assert r.status is RunStatus.FINISHED and "CONNECTED" not in r.stdout, r.stdout


def test_ipc_x32_system_calls_are_killed_not_let_through(sb: Sandbox) -> None:
    """Seccomp: "any other architecture's system calls kill the process" — the x32 ABI (syscall number
    with bit 30) of socket(AF_UNIX) must not bypass the filter that refuses socket(AF_UNIX)."""
    code = (
        "import ctypes, os, sys\n"
        "l = ctypes.CDLL(None, use_errno=True); l.syscall.restype = ctypes.c_long\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    r = l.syscall(0x40000000 | 41, 1, 1, 0)\n"
        "    os.write(1, b'X32 %d %d\\n' % (r, ctypes.get_errno())); os._exit(0)\n"
        "_, st = os.waitpid(pid, 0)\n"
        "print('child', os.WIFSIGNALED(st) and os.WTERMSIG(st))\n"
        "print('native', l.syscall(41, 1, 1, 0), ctypes.get_errno())\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED, r
    assert "X32 " not in r.stdout or "X32 -1" in r.stdout, r.stdout  # never a socket fd
    assert "native -1 1" in r.stdout, r.stdout


def test_ipc_terminals_and_ptys_are_private(sb: Sandbox) -> None:
    """The caller's terminal is out of reach: /dev/tty and /dev/console cannot be opened; a pty the run
    may make (bwrap's private devpts) lists no host pty."""
    code = (
        "import os\n"
        "out = []\n"
        "for p in ['/dev/tty', '/dev/console']:\n"
        "    try:\n        os.open(p, os.O_RDWR); out.append('OPEN ' + p)\n"
        "    except OSError as e:\n        out.append(e.errno)\n"
        "try:\n    m = os.open('/dev/ptmx', os.O_RDWR)\nexcept OSError:\n    m = None\n"
        "print(out, sorted(x for x in os.listdir('/dev/pts') if x != 'ptmx'), m is not None)\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED and "OPEN" not in r.stdout, r.stdout
    pts = r.stdout.split("] [", 1)[1].split("]", 1)[0]
    assert pts in ("", "'0'"), r.stdout  # at most the run's own first pty


# ====================================================================== identity and privileges


def test_id_privileged_system_calls_all_fail(sb: Sandbox) -> None:
    """No capabilities, no new user namespace: setuid(0), setgroups, chroot, unshare(NEWNS/NEWNET),
    clone(CLONE_NEWUSER) by raw number, bpf, ptrace of PID 1 and a lowered oom_score_adj all fail."""
    code = (
        "import ctypes, os\n"
        "l = ctypes.CDLL(None, use_errno=True); l.syscall.restype = ctypes.c_long\n"
        "ok = []\n"
        "for name, fn in [('setuid', lambda: os.setuid(0)), ('setgroups', lambda: os.setgroups([0])),\n"
        "                 ('chroot', lambda: os.chroot('.'))]:\n"
        "    try:\n        fn(); ok.append(name)\n"
        "    except OSError:\n        pass\n"
        "for name, nr, args in [('unshare_ns', 272, (0x00020000,)), ('unshare_net', 272, (0x40000000,)),\n"
        "                       ('clone_newuser', 56, (0x10000000 | 17, 0, 0, 0, 0)), ('bpf', 321, (0, 0, 0)),\n"
        "                       ('ptrace_attach_1', 101, (16, 1, 0, 0))]:\n"
        "    r = l.syscall(nr, *args)\n"
        "    if r == 0 and name == 'clone_newuser':\n        os._exit(0)\n"
        "    if r >= 0:\n        ok.append(name)\n"
        "try:\n"
        "    fd = os.open('/proc/self/oom_score_adj', os.O_WRONLY); os.write(fd, b'-1000'); os.close(fd)\n"
        "except OSError:\n    pass\n"
        "ok.append(open('/proc/self/oom_score_adj').read().strip())\n"
        "print(ok)\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED and r.stdout.strip() == "['1000']", r.stdout


def test_id_filter_and_no_new_privs_survive_exec_of_every_toolchain(sb: Sandbox) -> None:
    """seccomp "inherited from the launcher" and no_new_privs: a shell started from a C program and a
    python started from bash still carry both (Seccomp 2, NoNewPrivs 1) and have no capability."""
    c = (
        "#include <stdlib.h>\n"
        "int main(){return system(\"grep -E '^(Seccomp|NoNewPrivs|CapEff|CapPrm):' /proc/self/status\");}\n"
    )
    rc = sb.run(c, "c", limits=Limits(wall_s=30))
    rb = sb.run(
        "python3 -c \"print(open('/proc/self/status').read())\" | grep -E '^(Seccomp|NoNewPrivs|CapEff|CapPrm):'",
        "bash",
        limits=Limits(wall_s=30),
    )
    for r in (rc, rb):
        assert r.status is RunStatus.FINISHED, (r.status, r.stderr[-300:])
        fields = dict(line.split(":\t") for line in r.stdout.strip().splitlines())
        assert fields == {
            "NoNewPrivs": "1",
            "Seccomp": "2",
            "CapPrm": "0000000000000000",
            "CapEff": "0000000000000000",
        }, r.stdout


# ====================================================================== resource limits


def test_limit_cpu_s_sums_every_reaped_child(sb: Sandbox) -> None:
    """cpu_s "is user+system time of the whole tree": four children burning 1 s each, reaped, report
    at least 3.8 s."""
    code = (
        "import os, time\n"
        "kids = []\n"
        "for i in range(4):\n"
        "    p = os.fork()\n"
        "    if p == 0:\n"
        "        while time.process_time() < 1.0: pass\n"
        "        os._exit(0)\n"
        "    kids.append(p)\n"
        "for p in kids: os.waitpid(p, 0)\n"
    )
    r = py(sb, code, limits=Limits(wall_s=120))
    assert r.status is RunStatus.FINISHED and r.exit_code == 0, r
    assert r.cpu_s >= 3.8, r.cpu_s


def test_limit_cpu_s_sums_threads(sb: Sandbox) -> None:
    """cpu_s counts every thread: three threads burning 1 s of thread time each report at least 2.8 s."""
    code = (
        "import threading, time\n"
        "def burn():\n"
        "    while time.thread_time() < 1.0: pass\n"
        "ts = [threading.Thread(target=burn) for _ in range(3)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
    )
    r = py(sb, code, limits=Limits(wall_s=120))
    assert r.status is RunStatus.FINISHED and r.cpu_s >= 2.8, (r.status, r.cpu_s)


def test_limit_cpu_time_is_not_reset_by_exec(sb: Sandbox) -> None:
    """cpu_s: RLIMIT_CPU per process; a program that burns most of it and then exec()s a fresh busy
    interpreter is still killed (timeout), well before the wall limit (infinite work)."""
    code = (
        "import os, sys, time\n"
        "while time.process_time() < 0.7: pass\n"
        "os.execv(sys.executable, [sys.executable, '-c', 'while True: pass'])\n"
    )
    r = py(sb, code, limits=Limits(wall_s=600, cpu_s=1))
    # killed by RLIMIT_CPU, not by the 600 s wall limit: the tree used about 1 s of CPU, not 600
    assert r.status is RunStatus.TIMEOUT and r.cpu_s < 5, (r.status, r.cpu_s)


def test_limit_file_descriptors_are_capped_and_cannot_be_raised(sb: Sandbox) -> None:
    """RLIMIT_NOFILE 1024: raising it fails, opening 10x more gives EMFILE."""
    code = (
        "import os, resource\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE))\n"
        "try:\n    resource.setrlimit(resource.RLIMIT_NOFILE, (1 << 20, 1 << 20)); print('RAISED')\n"
        "except (OSError, ValueError):\n    print('kept')\n"
        "n = 0\n"
        "try:\n"
        "    for _ in range(10240):\n        os.open('/dev/null', os.O_RDONLY); n += 1\n"
        "except OSError as e:\n    print(n <= 1024, e.errno)\n"
    )
    r = py(sb, code)
    assert r.stdout.split("\n")[:3] == ["(1024, 1024)", "kept", "True 24"], r.stdout


def test_limit_a_fork_bomb_in_one_run_does_not_starve_a_concurrent_run(sb: Sandbox) -> None:
    """A uid of its own per run, so RLIMIT_NPROC is per run: while one run holds every task its cap
    allows (a fork bomb), a concurrent run can still start its own children."""
    bomb = (
        "import os, time\n"
        "n = 0\n"
        "for i in range(640):\n"
        "    try:\n        p = os.fork()\n    except OSError:\n        break\n"
        "    if p == 0:\n        time.sleep(6); os._exit(0)\n"
        "    n += 1\n"
        "print('HELD', n, flush=True)\n"
        "time.sleep(6)\n"
    )
    peer = (
        "import os, time\n"
        "time.sleep(2)\n"
        "ok = 0\n"
        "for i in range(8):\n"
        "    p = os.fork()\n"
        "    if p == 0:\n        os._exit(0)\n"
        "    os.waitpid(p, 0); ok += 1\n"
        "print('PEER', ok)\n"
    )
    with ThreadRun(sb, bomb, Limits(wall_s=60, max_processes=64)) as bombed:
        rp = py(sb, peer, limits=Limits(wall_s=60, max_processes=16))
    rb = bombed.result
    assert rb is not None and rb.stdout.startswith("HELD "), rb
    assert int(rb.stdout.split()[1]) < 64  # the cap held in the bomb's run
    assert rp.status is RunStatus.FINISHED and rp.stdout.strip() == "PEER 8", (rp.stdout, rp.stderr[-300:])


class ThreadRun:
    """Run a program on a thread while the body of the ``with`` runs (joined on exit)."""

    def __init__(self, sb: Sandbox, code: str, limits: Limits) -> None:
        self.result: Any = None
        self._t = threading.Thread(target=self._go, args=(sb, code, limits))

    def _go(self, sb: Sandbox, code: str, limits: Limits) -> None:
        self.result = sb.run(code, "python", limits=limits)

    def __enter__(self) -> ThreadRun:
        self._t.start()
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        self._t.join()


def test_leftover_zombies_are_gone_after_the_run(sb: Sandbox) -> None:
    """All killed when it ends: 40 unreaped children (zombies, comm set to a marker) leave nothing on
    the host once the run returns."""
    marker = MARK + "z"
    code = (
        "import ctypes, os, time\n"
        "l = ctypes.CDLL(None)\n"
        "for i in range(40):\n"
        "    if os.fork() == 0:\n"
        f"        l.prctl(15, b'{marker}', 0, 0, 0); os._exit(0)\n"
        "time.sleep(0.5)\n"
        # the program and its 40 zombies; under unshare PID 1 is the sandbox's reaper (the program is PID 2)
        "mine = [d for d in os.listdir('/proc') if d.isdigit() and (d != '1' or os.getpid() == 1)]\n"
        "print(len(mine))\n"
    )
    r = py(sb, code, limits=Limits(wall_s=30, max_processes=64))
    assert r.status is RunStatus.FINISHED and int(r.stdout.strip()) == 41, r.stdout
    assert _gone(marker) == []


def test_leftover_a_signal_proof_daemon_does_not_outlive_a_timeout(sb: Sandbox) -> None:
    """All killed when it ends, also on timeout: a double-forked setsid() daemon that ignores every
    catchable signal, stops itself and holds no stdio is gone after the run."""
    marker = MARK + "d"
    code = (
        "import ctypes, os, signal, time\n"
        "l = ctypes.CDLL(None)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        l.prctl(15, b'{marker}', 0, 0, 0)\n"
        "        for s in range(1, 65):\n"
        "            try:\n                signal.signal(s, signal.SIG_IGN)\n"
        "            except (OSError, ValueError):\n                pass\n"
        "        for fd in (0, 1, 2):\n            os.close(fd)\n"
        "        while True:\n            time.sleep(1)\n"
        "    os._exit(0)\n"
        "while True:\n    time.sleep(1)\n"
    )
    r = py(sb, code, limits=Limits(wall_s=1))
    assert r.status is RunStatus.TIMEOUT, r
    assert _gone(marker) == []


def test_limit_output_by_sendfile_and_splice_is_output_exceeded(sb: Sandbox) -> None:
    """output_bytes per stream, whatever writes it: sendfile() and splice() of 10x the cap from
    /dev/zero are stopped, truncated, output_exceeded."""
    for how in ("sendfile", "splice"):
        code = (
            "import os\n"
            "z = os.open('/dev/zero', os.O_RDONLY)\n"
            "r, w = os.pipe()\n"
            "n = 0\n"
            "while n < 10 * (1 << 20):\n"
            + (
                "    n += os.sendfile(1, z, None, 1 << 20)\n"
                if how == "sendfile"
                else "    k = os.splice(z, w, 65536); n += os.splice(r, 1, k)\n"
            )
        )
        r = py(sb, code, limits=Limits(wall_s=60, output_bytes=1 << 20))
        assert r.status is RunStatus.OUTPUT_EXCEEDED and r.truncated, (how, r.status)
        assert len(r.stdout) <= 1 << 20


def test_limit_output_flood_then_hang_is_stopped_at_once(sb: Sandbox) -> None:
    """output_bytes: "the parent stops the program at once": a program that floods 10x the cap on both
    streams, ignores SIGTERM and sleeps is output_exceeded, not a timeout of its (long) wall limit."""
    code = (
        "import os, signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "if os.fork() == 0:\n    os.write(2, b'e' * (10 << 20)); time.sleep(1000)\n"
        "os.write(1, b'o' * (10 << 20))\n"
        "time.sleep(1000)\n"
    )
    r = py(sb, code, limits=Limits(wall_s=300, output_bytes=1 << 20))
    assert r.status is RunStatus.OUTPUT_EXCEEDED and r.truncated, r.status
    assert len(r.stdout) <= 1 << 20 and len(r.stderr) <= 1 << 20


# ====================================================================== statuses


EXIT_CODES = [129, 134, 137, 139, 152, 159]


def test_status_exit_codes_above_128_are_exit_codes_not_signals(
    request: pytest.FixtureRequest, sb: Sandbox
) -> None:
    """ "`exit_code` is set when the program exited, `signal` when a signal ended it": a program that
    calls exit(137) (or 129..159) exited; it was not killed by signal 9 (or 1..31)."""
    xfail_on(
        request,
        _BACKEND[id(sb)],
        "bwrap",
        "under bwrap exit(128+N) reads as signal N with exit_code None (exit(137) -> signal=9, "
        "exit(152) -> signal=24 SIGXCPU)",
    )
    got = []
    for code in EXIT_CODES:
        r = py(sb, f"import os\nos._exit({code})\n")
        got.append((r.status.value, r.exit_code, r.signal))
    assert got == [("finished", c, None) for c in EXIT_CODES], got


def test_status_a_real_signal_is_a_signal(sb: Sandbox) -> None:
    """Control for the probe above: the program itself killed by SIGSEGV (a fault, which PID 1 cannot
    ignore) is signal 11 with no exit code, finished."""
    r = py(sb, "import ctypes\nctypes.string_at(0)\n")
    assert r.status is RunStatus.FINISHED and r.signal == 11 and r.exit_code is None, r


def test_status_nothing_the_program_does_to_its_directory_is_a_sandbox_error(sb: Sandbox) -> None:
    """sandbox_error "cannot be forged": a program that deletes its own source, empties and chmods its
    working directory, and closes every stream before exiting is finished."""
    code = (
        "import os, shutil\n"
        "cwd = os.getcwd()\n"
        "for n in os.listdir('.'):\n"
        "    (shutil.rmtree if os.path.isdir(n) else os.remove)(n)\n"
        "os.symlink('/', 'root'); os.symlink('/proc/self/fd/1', 'out')\n"
        "os.chmod(cwd, 0)\n"
        "try:\n    os.rmdir(cwd)\nexcept OSError:\n    pass\n"
        "for fd in (0, 1, 2):\n    os.close(fd)\n"
        "os._exit(3)\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED and r.exit_code == 3, r
    nxt = py(sb, "import os\nprint(os.listdir('.'))\n")
    assert nxt.status is RunStatus.FINISHED and nxt.stdout.strip() == "['main.py']", nxt


def test_status_compile_time_reads_of_endless_devices_are_compile_errors(sb: Sandbox) -> None:
    """compile_error "when the compile phase ... ran past compile_wall_s" — never a sandbox_error:
    a C source that #includes /dev/zero or /dev/urandom (endless input)."""
    for target in ("/dev/zero", "/dev/urandom"):
        r = sb.run(
            f'#include "{target}"\nint main(){{return 0;}}\n',
            "c",
            limits=Limits(wall_s=10, compile_wall_s=5),
        )
        assert r.status is RunStatus.COMPILE_ERROR, (target, r.status, r.error, r.stderr[-300:])


def test_net_concurrent_runs_cannot_meet_on_loopback(sb: Sandbox) -> None:
    """A network namespace per run: a listener one run opens on 127.0.0.1 (bwrap's loopback is up) is
    not reachable from a concurrent run (peers cannot pass answers to each other)."""
    port = 40000 + os.getpid() % 20000
    listener = (
        "import socket\n"
        "s = socket.socket()\n"
        "try:\n"
        f"    s.bind(('127.0.0.1', {port})); s.listen(); s.settimeout(8)\n"
        "    c, _ = s.accept(); print('ACCEPTED')\n"
        "except OSError as e:\n    print('E', type(e).__name__)\n"
    )
    dialer = (
        "import socket, time\n"
        "hit = 0\n"
        "for i in range(12):\n"
        "    s = socket.socket(); s.settimeout(0.5)\n"
        f"    try:\n        s.connect(('127.0.0.1', {port})); hit += 1\n"
        "    except OSError:\n        time.sleep(0.5)\n"
        "print('HITS', hit)\n"
    )
    with ThreadRun(sb, listener, Limits(wall_s=30)) as lst:
        rd = py(sb, dialer)
    assert rd.stdout.strip() == "HITS 0", rd.stdout
    assert lst.result is not None and "ACCEPTED" not in lst.result.stdout, lst.result


def _conflicting_lock(path: str) -> tuple[int, int] | None:
    """F_GETLK for a whole-file write lock on a read-only descriptor: (type, pid) of a lock in the way."""
    import fcntl
    import struct

    fmt = "hhqqi4x"  # struct flock on x86_64/aarch64: l_type, l_whence, l_start, l_len, l_pid
    with open(path, "rb") as f:
        got = fcntl.fcntl(f.fileno(), fcntl.F_GETLK, struct.pack(fmt, fcntl.F_WRLCK, 0, 0, 0, 0))
    l_type, _, _, _, l_pid = struct.unpack(fmt, got)
    return None if l_type == fcntl.F_UNLCK else (l_type, l_pid)


def test_ipc_record_locks_on_visible_host_files_do_not_cross_the_boundary(sb: Sandbox) -> None:
    """Host IPC: new IPC namespace, a read-only view, "concurrent runs can observe each other through
    timing" and nothing else. A POSIX read lock the run takes on a world-readable host file
    (/etc/passwd, opened read-only) must not be visible to, or block, host processes (a host writer's
    F_SETLKW would wait on it; F_GETLK shows it). Checked from the host with F_GETLK on a read-only
    descriptor: nothing is written and no lock is taken here."""
    target = "/etc/passwd"
    assert _conflicting_lock(target) is None, "someone on the host already locks it: probe not meaningful"
    holder = (
        "import fcntl, time\nf = open('/etc/passwd', 'rb')\nfcntl.lockf(f, fcntl.LOCK_SH)\ntime.sleep(10)\n"
    )
    seen = None
    with ThreadRun(sb, holder, Limits(wall_s=30)) as run:
        while run._t.is_alive() and seen is None:
            seen = _conflicting_lock(target)
            time.sleep(0.1)
    assert run.result is not None and run.result.status is RunStatus.FINISHED, run.result
    assert seen is None, f"the host sees the run's lock on {target}: {seen}"


def test_ipc_host_file_accesses_are_not_observable_by_inotify(sb: Sandbox) -> None:
    """What is shared is listed: "Time, CPU caches and load are shared: concurrent runs can observe each
    other through timing". An inotify watch the run puts on a visible host file must not report the
    host's own opens of it (here the test process reading /etc/passwd while the run waits): that is an
    event channel from host processes and peer runs into the sandbox, not timing."""
    code = (
        "import ctypes, select\n"
        "l = ctypes.CDLL(None, use_errno=True)\n"
        "fd = l.inotify_init1(0)\n"
        "wd = l.inotify_add_watch(fd, b'/etc/passwd', 0x20) if fd >= 0 else -1\n"
        "if wd < 0:\n    print('NOWATCH')\n"
        "else:\n    r, _, _ = select.select([fd], [], [], 10)\n    print('EVENT' if r else 'NONE')\n"
    )
    with ThreadRun(sb, code, Limits(wall_s=30)) as run:
        while run._t.is_alive():
            with open("/etc/passwd", "rb") as f:
                f.read(1)
            time.sleep(0.1)
    assert run.result is not None and run.result.status is RunStatus.FINISHED, run.result
    assert run.result.stdout.strip() in ("NOWATCH", "NONE"), run.result.stdout


def test_ipc_a_programs_own_locks_still_succeed(sb: Sandbox) -> None:
    """Locks are no-ops, not errors: sqlite in the working directory and flock/lockf on the run's own
    files work (the seccomp filter returns 0 for the lock-setting calls)."""
    code = (
        "import fcntl, sqlite3\n"
        "with open('own.lock', 'w') as f:\n"
        "    fcntl.flock(f, fcntl.LOCK_EX); fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "db = sqlite3.connect('own.db'); db.execute('create table t (x)'); db.execute('insert into t values (7)')\n"
        "db.commit(); print(db.execute('select x from t').fetchone()[0])\n"
    )
    r = py(sb, code)
    assert r.status is RunStatus.FINISHED and r.exit_code == 0, r
    assert r.stdout.strip() == "7", r


class Recorder:
    """A backend with ``Sandbox.run``'s signature that keeps every raw result (the harness's runs)."""

    def __init__(self, sb: Sandbox) -> None:
        self.sb = sb
        self.results: list[Any] = []

    def run(self, *a: Any, **k: Any) -> Any:
        r = self.sb.run(*a, **k)
        self.results.append(r)
        return r


def test_harness_pidfd_getfd_cannot_take_the_checkers_descriptors(sb: Sandbox) -> None:
    """The checker is non-dumpable: pidfd_getfd() (ptrace-mode access, like /proc/<pid>/fd) of its
    stdin, stdout or pipes is refused (EPERM), so no forged verdict line can be written there."""
    code = (
        "import ctypes, os\n"
        "l = ctypes.CDLL(None, use_errno=True); l.syscall.restype = ctypes.c_long\n"
        "def add(a, b):\n"
        "    for pid in {os.getppid(), 1}:\n"
        "        pf = l.syscall(434, pid, 0)\n"
        "        for fd in range(8):\n"
        "            got = l.syscall(438, pf, fd, 0)\n"
        "            err = ctypes.get_errno()\n"
        "            if got >= 0:\n"
        "                os.write(2, b'STOLE %d\\n' % fd)\n"
        "                try:\n                    os.write(got, b'0' * 32 + b' {\"v\": \"passed\"}\\n')\n"
        "                except OSError:\n                    pass\n"
        "            else:\n                os.write(2, b'REFUSED %d\\n' % err)\n"
        "    return a - b\n"
    )
    for spec in LAYOUTS.values():
        rec = Recorder(sb)
        res = run_tests(code, spec, sandbox=rec, limits=Limits(wall_s=10))
        assert [r.status for r in res] != [TestStatus.PASSED], res
        err = "".join(r.stderr for r in rec.results)
        assert "STOLE" not in err and "REFUSED 1" in err, err[-500:]


def test_leftover_a_cancelled_arun_kills_its_program(sb: Sandbox) -> None:
    """`arun`: "cancelling kills the program" — also a setsid() grandchild with a marker."""
    import asyncio

    marker = MARK + "c"
    code = (
        "import ctypes, os, time\n"
        "if os.fork() == 0:\n"
        f"    os.setsid(); ctypes.CDLL(None).prctl(15, b'{marker}', 0, 0, 0)\n"
        "    while True: time.sleep(1)\n"
        "time.sleep(1000)\n"
    )

    async def go() -> bool:
        task = asyncio.ensure_future(sb.arun(code, "python", limits=Limits(wall_s=600)))
        deadline = time.monotonic() + 60
        while not _host_comms(marker) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        started = bool(_host_comms(marker))
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return started

    assert asyncio.run(go()), "the program never started"
    assert _gone(marker, within_s=30) == []


# ====================================================================== harness and scorer


HE = {
    "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n",
    "entry_point": "add",
    "prompt": "",
}
MBPP = {"test_list": ["assert add(2, 3) == 5"]}
CALL = {"inputs": ["2\n3"], "outputs": ["5"], "fn_name": "add"}
LAYOUTS = {"humaneval": HE, "mbpp": MBPP, "call": CALL}


def _never_passes(sb: Sandbox, code: str) -> list[str]:
    out = []
    for name, spec in LAYOUTS.items():
        res = run_tests(code, spec, sandbox=sb, limits=Limits(wall_s=10))
        assert res[0].status is not TestStatus.SANDBOX_ERROR, (name, res)
        out.append(f"{name}:{res[0].status.value}")
        assert [r.status for r in res] != [TestStatus.PASSED], (name, res)
    ok = run_tests("def add(a, b):\n    return a + b\n", MBPP, sandbox=sb, limits=Limits(wall_s=10))
    assert [r.status for r in ok] == [TestStatus.PASSED], ok
    return out


PATCH_DRIVER = """def add(a, b):
    return a - b
import sys
_f = sys._getframe()
while _f is not None:
    _g = _f.f_globals
    for _k in list(_g):
        _v = _g[_k]
        if _k.startswith('_') and callable(_v) and _g is not globals():
            if any(s in _k.lower() for s in ('encode', 'dump', 'plain', 'describe', 'send', 'emit', 'answer')):
                _g[_k] = (lambda *a, **k: '{"v": "passed"}')
    _f = _f.f_back
"""


def test_harness_patching_the_program_sides_own_protocol_code_never_passes(sb: Sandbox) -> None:
    """ "Only trusted code can say" a test passed: the program walks its stack to the harness code
    running in its own process and replaces every encoder/sender with one that claims a pass."""
    _never_passes(sb, PATCH_DRIVER)


def test_harness_lying_about_its_own_type_never_passes(sb: Sandbox) -> None:
    """ "subclasses arrive as plain int / str; other objects are handles": objects whose ``__class__``
    property claims int, str or list and whose ``__eq__`` is always true."""
    for claimed, extra in (
        ("int", "def __int__(s): return 7\n    def __index__(s): return 7\n"),
        ("str", ""),
        ("list", "def __iter__(s): return iter([])\n"),
    ):
        code = (
            "class L:\n"
            f"    __class__ = property(lambda s: {claimed})\n"
            "    def __eq__(s, o): return True\n"
            "    def __ne__(s, o): return False\n"
            "    def __bool__(s): return True\n"
            f"    {extra}"
            "def add(a, b):\n    return L()\n"
        )
        _never_passes(sb, code)


def test_harness_generator_exit_and_exceptions_named_like_control_flow_never_pass(sb: Sandbox) -> None:
    """A protocol violation fails the test: GeneratorExit from the function, and an exception class the
    program renamed StopIteration in module builtins (p12's class, by disguise)."""
    _never_passes(sb, "def add(a, b):\n    raise GeneratorExit\n")
    _never_passes(
        sb,
        "class E(Exception):\n    pass\nE.__name__ = E.__qualname__ = 'StopIteration'\nE.__module__ = 'builtins'\n"
        "def add(a, b):\n    raise E()\n",
    )


def test_harness_a_thread_that_exits_during_the_call_never_passes(sb: Sandbox) -> None:
    """ "the program process ... exits during a request": a timer thread calls os._exit(0) while the
    function under test is still running (a thread that outlives main's return)."""
    _never_passes(
        sb,
        "import os, threading, time\n"
        "def add(a, b):\n"
        "    threading.Timer(0.2, lambda: os._exit(0)).start()\n"
        "    time.sleep(3)\n"
        "    return a - b\n",
    )


def test_harness_overwriting_the_protocol_descriptors_never_passes(sb: Sandbox) -> None:
    """The program never had the checker's stdout: dup2()ing /dev/null (and its own stderr) over every
    descriptor it holds gives a broken protocol, not a pass."""
    _never_passes(
        sb,
        "import os\n"
        "def add(a, b):\n"
        "    n = os.open('/dev/null', os.O_RDWR)\n"
        "    for fd in range(3, 64):\n"
        "        if fd != n:\n"
        "            try:\n                os.dup2(2 if fd % 2 else n, fd)\n"
        "            except OSError:\n                pass\n"
        "    return a - b\n",
    )


def test_harness_values_that_cannot_cross_are_failures_not_sandbox_errors(sb: Sandbox) -> None:
    """A value too deep (200,000 nested lists) or too long to print (10**20000 is over Python's digit
    limit) is a failed test, never a pass or a sandbox_error."""
    _never_passes(
        sb, "def add(a, b):\n    x = []\n    for _ in range(200000):\n        x = [x]\n    return x\n"
    )
    _never_passes(sb, "def add(a, b):\n    return 10 ** 20000\n")


def test_harness_a_module_getattr_does_not_supply_the_entry_point(sb: Sandbox) -> None:
    """The checker looks up the entry point in the program: a module-level ``__getattr__`` that invents
    any name (returning a wrong function) gives a failure."""
    _never_passes(sb, "def __getattr__(name):\n    return lambda *a: 0\n")


def test_scorer_a_wrong_stdio_program_that_patches_its_exit_scores_zero(sb: Sandbox) -> None:
    """The code scorer on stdin/stdout tests: stdout compared on the host; a wrong program that
    replaces sys.exit/os._exit, registers atexit and signal handlers and leaves a thread printing
    after main returns still scores 0; the right program scores 1."""
    from rewardloop.scorers.code import CodeScorer
    from rewardloop.types import Sample

    wrong = (
        "```python\n"
        "import atexit, os, sys, signal, threading, time\n"
        "n = int(input())\n"
        "print(n + 1)\n"
        "atexit.register(lambda: print(n * n))\n"
        "signal.signal(signal.SIGTERM, lambda *a: print(n * n))\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print(n * n)), daemon=False).start()\n"
        "sys.exit = lambda *a: None\n"
        "```\n"
    )
    right = "```python\nn = int(input())\nprint(n * n)\n```\n"
    gt = json.dumps({"inputs": ["3\n", "4\n"], "outputs": ["9\n", "16\n"]})
    scorer = CodeScorer(sandbox=sb)
    bad = scorer.score(Sample(response=wrong, ground_truth=gt))
    good = scorer.score(Sample(response=right, ground_truth=gt))
    assert bad.value == 0.0, bad
    assert good.value == 1.0, good


# ====================================================================== rewardloop sandbox serve


SERVE = [sys.executable, "-m", "rewardloop.cli.main", "sandbox", "serve"]
SERVER_LIMITS = {
    "max_run_timeout_s": 30,
    "max_body_bytes": 256 * 1024,
    "max_queued": 4,
    "max_queued_bytes": 4 * 256 * 1024,
    "body_timeout_s": 5,
    "header_timeout_s": 5,
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(port: int, body: bytes, headers: dict[str, str], path: str = "/run_code") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest("POST", path, skip_accept_encoding=True)
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.endheaders(body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def _ping(port: int) -> bool:
    with contextlib.suppress(OSError, http.client.HTTPException):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/v1/ping")
        ok = conn.getresponse().read().strip() == b'"pong"'
        conn.close()
        return ok
    return False


@pytest.fixture(scope="module", params=BACKENDS)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[int, str]]:
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    yaml = pytest.importorskip("yaml")
    if request.param == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap not installed")
    cfg = tmp_path_factory.mktemp("b5srv") / "limits.yaml"
    cfg.write_text(yaml.safe_dump(SERVER_LIMITS))
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "REWARDLOOP_TOKEN"}
    log = cfg.with_name("server.log")
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            [
                *SERVE,
                "--port",
                str(port),
                "--max-parallel",
                "2",
                "--config",
                str(cfg),
                "--isolation",
                request.param,
            ],
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        deadline = time.monotonic() + 90
        while not _ping(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("server did not start: " + log.read_text(errors="replace")[-2000:])
            time.sleep(0.2)
        yield port, request.param
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


GOOD = json.dumps({"code": "print(6*7)", "language": "python"}).encode()


@pytest.mark.parametrize(
    "ctype",
    [
        "text/plain; charset=application/json",
        "text/plain;application/json",
        "application/x-www-form-urlencoded; x=application/json",
        "multipart/form-data; boundary=application/json",
        "text/plain, application/json",
        "application/jsonp",
    ],
)
def test_server_cors_simple_content_types_naming_json_do_not_run(server: tuple[int, str], ctype: str) -> None:
    """ "Only Content-Type: application/json bodies run (anything else is 415: a browser's cross-origin
    simple POST, text/plain or a form ...)": a simple type whose *parameters* mention application/json is
    still a simple request (no preflight) and must be 415."""
    port, _ = server
    status, body = _request(port, GOOD, {"Content-Type": ctype, "Content-Length": str(len(GOOD))})
    assert status == 415, (status, body[:300])
    status, body = _request(
        port, GOOD, {"Content-Type": "application/json", "Content-Length": str(len(GOOD))}
    )
    assert status == 200 and b'"Success"' in body, (status, body[:300])


def test_server_a_gzip_bomb_is_not_inflated(server: tuple[int, str]) -> None:
    """max_body_bytes bounds memory: a 200 MB request compressed to a few hundred KB and sent with
    Content-Encoding: gzip is refused (or read as the bytes it is), never inflated; the server lives."""
    port, _ = server
    inner = b'{"code": "print(1)", "language": "python", "stdin": "' + b" " * (200 << 20) + b'"}'
    bomb = gzip.compress(inner, compresslevel=9)
    assert len(bomb) < SERVER_LIMITS["max_body_bytes"]
    status, body = _request(
        port,
        bomb,
        {"Content-Type": "application/json", "Content-Encoding": "gzip", "Content-Length": str(len(bomb))},
    )
    assert 400 <= status < 500, (status, body[:300])
    assert _ping(port)


@pytest.mark.parametrize("length", ["-1", "1e3", "0x10", "99999999999999999999999", " 12"])
def test_server_a_malformed_content_length_is_a_4xx_and_the_server_lives(
    server: tuple[int, str], length: str
) -> None:
    """Client mistakes are never HTTP 500: a Content-Length that is negative, not decimal or absurdly
    large gets a 4xx (or a closed connection), and the server still answers."""
    port, _ = server
    with contextlib.suppress(ConnectionError, http.client.HTTPException):
        status, body = _request(port, GOOD, {"Content-Type": "application/json", "Content-Length": length})
        assert 400 <= status < 500, (status, body[:300])
    assert _ping(port)


def test_server_files_that_shadow_the_program_source_are_refused(server: tuple[int, str]) -> None:
    """A `files` name that is "a file over the program's own source" is a 422, also spelt `./main.py`
    or `a/.././main.py` ("a//./b is a/b")."""
    port, _ = server
    for name in ("main.py", "./main.py", ".//main.py"):
        req = json.dumps(
            {"code": "print(6*7)", "language": "python", "files": {name: "cHJpbnQoMSk="}}  # print(1)
        ).encode()
        status, body = _request(
            port, req, {"Content-Type": "application/json", "Content-Length": str(len(req))}
        )
        assert status == 422 and b"files" in body, (name, status, body[:300])


def test_server_return_code_of_an_exit_above_128_is_that_code(
    request: pytest.FixtureRequest, server: tuple[int, str]
) -> None:
    """ "a signal is a return code of -signal": so an exit(137) must come back as return_code 137, not
    -9 (which reads as killed by SIGKILL)."""
    port, backend = server
    xfail_on(request, backend, "bwrap", "under bwrap /run_code reports exit(137) as return_code -9")
    req = json.dumps({"code": "import os\nos._exit(137)", "language": "python"}).encode()
    status, body = _request(port, req, {"Content-Type": "application/json", "Content-Length": str(len(req))})
    assert status == 200, body[:300]
    assert json.loads(body)["run_result"]["return_code"] == 137, body[:500]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("host", ["0", "0x0", "::ffff:0.0.0.0", "0.0.0.0 ", "[::]"])
def test_server_non_loopback_host_spellings_need_a_token(host: str, backend: str) -> None:
    """ "a host that is not a loopback address is refused at start without a token": also spelt `0`,
    `0x0` (both bind every interface), an IPv4-mapped wildcard, with a trailing space or in brackets,
    and an empty REWARDLOOP_TOKEN is no token."""
    for env_token in (None, ""):
        env = {k: v for k, v in os.environ.items() if k != "REWARDLOOP_TOKEN"}
        if env_token is not None:
            env["REWARDLOOP_TOKEN"] = env_token
        port = _free_port()
        proc = subprocess.Popen(
            [*SERVE, "--host", host, "--port", str(port), "--isolation", backend],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()  # it started: the process we started, by its handle
            proc.wait()
            pytest.fail(f"the server started on {host!r} without a token")
        assert proc.returncode != 0, (host, err[-500:])

"""Breaker round 4: independent probes against the guarantees of docs/sandbox.md.

Each test names the documented promise it probes. A probe that breaks its promise is a strict xfail
(``breaker: ...``); one that holds is an ordinary test. Every probe runs on each isolating backend this
host has (``unshare`` and ``bwrap``, both as root here).
"""

from __future__ import annotations

import ast
import concurrent.futures
import os
import shutil
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from rewardloop import ConfigError
from rewardloop.sandbox import Limits, RunStatus, Sandbox
from rewardloop.sandbox.harness import TestStatus, run_tests

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the probes run as root (unshare/bwrap as root)")

BACKENDS = ["unshare", "bwrap"]


@pytest.fixture(scope="module", params=BACKENDS)
def sb(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    if request.param == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap not installed")
    with Sandbox(isolation=request.param, max_parallel=4) as box:
        _BACKEND[id(box)] = request.param
        yield box


_BACKEND: dict[int, str] = {}


def xfail_on(request: pytest.FixtureRequest, sb: Sandbox, backend: str, reason: str) -> None:
    """Mark the current probe a strict xfail when it runs on ``backend`` (a break found there)."""
    if _BACKEND[id(sb)] == backend:
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"breaker: {reason}"))


def run(sb: Sandbox, code: str, **kw: object) -> tuple[RunStatus, str, str]:
    limits = kw.pop("limits", Limits(wall_s=20))
    r = sb.run(code, "python", limits=limits, **kw)  # type: ignore[arg-type]
    return r.status, r.stdout, r.stderr


# ---------------------------------------------------------------- filesystem view


def test_fs_the_checkout_and_work_tree_are_hidden(sb: Sandbox) -> None:
    """Hidden: the checkout rewardloop runs from and every non-standard top-level directory."""
    code = (
        "import glob\n"
        "import os\n"
        "fs=[f for f in glob.glob('/work/**/*', recursive=True) if '/.venv' not in f and not os.path.isdir(f)]\n"
        "print(len(fs))\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert out.split() == ["0"], out[:500]


def test_fs_home_tmp_var_run_are_empty(sb: Sandbox) -> None:
    """Hidden (empty tmpfs): /home /tmp /var /run /mnt /srv /opt /media."""
    code = (
        "import os\n"
        "for d in ['/home','/var','/run','/srv','/opt','/media']:\n"
        "    print(d, len(os.listdir(d)))\n"
        "cwd=os.getcwd()\n"
        "print('/tmp', [x for x in os.listdir('/tmp') if x != '.rewardloop-blank' and not cwd.startswith('/tmp/'+x+'/')])\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    lines = out.splitlines()
    assert all(line.endswith(" 0") for line in lines[:-1]), out
    assert lines[-1] == "/tmp []", out


def test_fs_root_home_shows_only_toolchains(sb: Sandbox) -> None:
    """A home directory is hidden; only toolchains inside it (rustup, pyenv) are bound."""
    code = (
        "import os\n"
        "bad=[]\n"
        "for base, dirs, files in os.walk('/root'):\n"
        "    for f in files:\n"
        "        p=os.path.join(base,f)\n"
        "        if not (p.startswith('/root/.rustup/toolchains/') or p.startswith('/root/.pyenv/versions/')):\n"
        "            bad.append(p)\n"
        "print(len(bad), bad[:5])\n"
    )
    status, out, _ = run(sb, code, limits=Limits(wall_s=60))
    assert status is RunStatus.FINISHED
    assert out.startswith("0 "), out[:500]


def test_fs_proc_shows_only_own_processes(sb: Sandbox) -> None:
    """New PID namespace: the run sees only its own processes, and (under unshare) the namespace's PID 1,
    the sandbox's reaper: root's and not dumpable, so nothing of it (environment, descriptors, memory)
    is readable."""
    code = (
        "import os\n"
        "me = os.getpid()\n"
        "others = sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != me)\n"
        "print(others)\n"
        "for p in others:\n"
        "    print(p, os.stat('/proc/%d' % p).st_uid)\n"
        "    for what in ('environ', 'mem', 'fd', 'cwd', 'root'):\n"
        "        try:\n"
        "            f = '/proc/%d/%s' % (p, what)\n"
        "            os.listdir(f) if what in ('fd', 'cwd', 'root') else open(f, 'rb').read(1)\n"
        "            print('READ', what)\n"
        "        except OSError as e:\n"
        "            print('refused', what, e.errno)\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    lines = out.splitlines()
    assert lines[0] in ("[]", "[1]"), out
    if lines[0] == "[1]":
        assert lines[1] == "1 0", out  # root's
        assert "READ" not in out and out.count("refused") == 5, out


def test_fs_other_runs_working_directories_are_invisible(sb: Sandbox) -> None:
    """Working directory: a fresh one per run; a concurrent peer's directory (its answer) is unreachable."""
    peer = "import time\nopen('peer_secret_answer','w').write('42')\ntime.sleep(4)\n"
    probe = (
        "import os, time\n"
        "time.sleep(1.5)\n"
        "found=[]\n"
        "for base, dirs, files in os.walk('/tmp'):\n"
        "    found += [os.path.join(base, f) for f in files if f in ('main.py', 'peer_secret_answer')]\n"
        "print(len(found), found)\n"
    )
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        fut = ex.submit(sb.run, peer, "python", limits=Limits(wall_s=20))
        r = sb.run(probe, "python", limits=Limits(wall_s=20))
        fut.result()
    assert r.status is RunStatus.FINISHED
    assert r.stdout[:2] in ("0 ", "1 ") and "peer_secret_answer" not in r.stdout, r.stdout


def test_fs_nothing_but_the_working_directory_is_writable(sb: Sandbox) -> None:
    """The rest of the file system is read-only; /tmp and /dev/shm are not writable."""
    code = (
        "import os\n"
        "ok=[]\n"
        "for d in ['/etc','/usr','/tmp','/dev/shm','/var','/run','/root','/home','/opt','/dev',\n"
        "          '/work/main/.venv','/root/.rustup','/sys/fs/cgroup/memory']:\n"
        "    try:\n"
        "        open(os.path.join(d,'rl-breaker-x'),'w').write('x'); ok.append(d)\n"
        "    except OSError: pass\n"
        "print(ok)\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert out.strip() == "[]", out


def test_fs_host_proc_root_of_pid1_is_not_a_way_out(sb: Sandbox) -> None:
    """New PID namespace + mount view: /proc/1/root is the run's own root, not the host's."""
    code = "import os\ntry:\n    print(sorted(os.listdir('/proc/1/root/work/wt')))\nexcept OSError as e:\n    print('E')\n"
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert "sandboxbreak" not in out or out.strip() == "['sandboxbreak']"
    # only the venv stub of the checkout may show, never its sources
    status, out, _ = run(sb, "import os\nprint(os.path.exists('/proc/1/root/work/wt/sandboxbreak/src'))\n")
    assert out.strip() == "False", out


# ---------------------------------------------------------------- network and host IPC


def test_net_no_tcp_to_host_loopback_or_internet(sb: Sandbox) -> None:
    """New network namespace, loopback down: no host 127.0.0.1, no LAN, no internet."""
    code = (
        "import socket\n"
        "for a in [('1.1.1.1',53),('10.0.0.1',80),('192.168.0.1',80)]:\n"
        "    s=socket.socket(); s.settimeout(1)\n"
        "    try:\n"
        "        s.connect(a); print('CONNECTED', a)\n"
        "    except OSError as e:\n"
        "        print(e.errno)\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert "CONNECTED" not in out and out.split() == ["101", "101", "101"], out


def test_net_no_udp_and_no_interfaces_up(sb: Sandbox) -> None:
    """New network namespace: no interface but a down loopback, UDP cannot leave."""
    code = (
        "import socket\n"
        "s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "try:\n"
        "    s.sendto(b'x', ('8.8.8.8', 53)); print('SENT')\n"
        "except OSError as e:\n"
        "    print(e.errno)\n"
        "print(open('/proc/net/dev').read().count(':'))\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert "SENT" not in out and out.split()[1] == "1", out


def test_ipc_no_unix_sockets_abstract_or_path(sb: Sandbox) -> None:
    """No new Unix sockets: socket(AF_UNIX) fails with EPERM (host abstract sockets unreachable)."""
    code = (
        "import socket\n"
        "try:\n"
        "    s=socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect('\\0/tmp/.X11-unix/X0'); print('OK')\n"
        "except OSError as e:\n"
        "    print(e.errno)\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert out.strip() == "1", out


def test_ipc_no_shared_memory_calls(sb: Sandbox) -> None:
    """memfd_create, shmget, msgget, semget, MAP_SHARED|MAP_ANONYMOUS fail with EPERM."""
    code = (
        "import ctypes, os, mmap\n"
        "l=ctypes.CDLL(None, use_errno=True)\n"
        "res=[]\n"
        "res.append(l.shmget(0, 4096, 0o1600)); res.append(l.msgget(0, 0o1600)); res.append(l.semget(0, 1, 0o1600))\n"
        "try:\n    os.memfd_create('x'); res.append('memfd')\nexcept OSError as e:\n    res.append(e.errno)\n"
        "try:\n    mmap.mmap(-1, 4096); res.append('mmap')\nexcept OSError as e:\n    res.append(e.errno)\n"
        "print(res)\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert out.strip() == "[-1, -1, -1, 1, 1]", out


def test_ipc_no_mkfifo_and_no_new_user_namespace(sb: Sandbox) -> None:
    """No mknod/mkfifo; new user namespaces are refused."""
    code = (
        "import os\n"
        "r=[]\n"
        "try:\n    os.mkfifo('f'); r.append('fifo')\nexcept OSError as e:\n    r.append(e.errno)\n"
        "try:\n    os.unshare(os.CLONE_NEWUSER); r.append('userns')\nexcept OSError as e:\n    r.append('E')\n"
        "print(r)\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert "fifo" not in out and "userns" not in out, out


def test_ipc_cannot_signal_outside(sb: Sandbox) -> None:
    """New PID namespace: the run cannot signal outside: no pid but its own exists for it, except the
    namespace's PID 1 under unshare (the sandbox's reaper, root's: EPERM); kill(-1) reaches nothing."""
    code = (
        "import os, signal\n"
        "r=[]\n"
        "for pid in (1, 2, 3, 100, 4194000):\n"
        "    if pid == os.getpid():\n        continue\n"
        "    try:\n        os.kill(pid, 0); r.append(pid)\n    except OSError as e:\n        r.append((pid, e.errno))\n"
        "try:\n    os.kill(-1, signal.SIGTERM); r.append('-1 reached something')\nexcept OSError as e:\n    r.append((-1, e.errno))\n"
        "print(r)\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    found = ast.literal_eval(
        out.strip()
    )  # a list of (pid, errno) pairs, or the pid itself when it could be signalled
    for entry in found:
        assert isinstance(entry, tuple), out
        pid, err = entry
        assert err == 3 or (pid == 1 and err == 1), out  # ESRCH; EPERM for the reaper only


# ---------------------------------------------------------------- identity


def test_id_no_capabilities_no_new_privs_pooled_uid(sb: Sandbox) -> None:
    """Identity: a pooled uid from 0x70000000, no groups, empty capability sets, no_new_privs."""
    code = (
        "import os\n"
        "st=dict(l.split(':\\t',1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
        "print(os.getuid() >= 0x70000000, os.getgroups(), st['CapEff'].strip(), st['CapBnd'].strip(), st['NoNewPrivs'].strip())\n"
    )
    status, out, _ = run(sb, code)
    assert status is RunStatus.FINISHED
    assert out.split() == ["True", "[]", "0000000000000000", "0000000000000000", "1"], out


# ---------------------------------------------------------------- limits


def test_limit_wall_clock_busy_loop_is_timeout(sb: Sandbox) -> None:
    """wall_s: past it the parent kills the tree; status timeout (an endless loop: infinite work)."""
    r = sb.run("while True:\n    pass\n", "python", limits=Limits(wall_s=0.5))
    assert r.status is RunStatus.TIMEOUT


def test_limit_wall_clock_sleeping_child_in_new_session_is_timeout(sb: Sandbox) -> None:
    """wall_s kills the whole tree, including a setsid() grandchild; status timeout."""
    code = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(1000)\ntime.sleep(1000)\n"
    t = time.monotonic()
    r = sb.run(code, "python", limits=Limits(wall_s=0.5))
    assert r.status is RunStatus.TIMEOUT
    assert time.monotonic() - t < 30


def test_limit_cpu_time_is_timeout(sb: Sandbox) -> None:
    """cpu_s: RLIMIT_CPU kills a process that used up its CPU time; status timeout."""
    r = sb.run("while True:\n    pass\n", "python", limits=Limits(wall_s=60, cpu_s=1))
    assert r.status is RunStatus.TIMEOUT


def test_limit_memory_10x_is_memory_exceeded(sb: Sandbox) -> None:
    """memory_mb: a program touching 10x the cap is memory_exceeded."""
    code = "b=[]\nfor i in range(64*10):\n    b.append(bytearray(1<<20))\nprint('ALLOCATED')\n"
    r = sb.run(code, "python", limits=Limits(wall_s=60, memory_mb=64))
    assert r.status is RunStatus.MEMORY_EXCEEDED, (r.status, r.stdout, r.stderr[-300:])


def test_limit_memory_split_over_children_is_memory_exceeded(sb: Sandbox) -> None:
    """memory_mb: the memory cgroup caps the whole tree (4 children x 2.5x the cap each)."""
    code = (
        "import os, time\n"
        "pids=[]\n"
        "for i in range(4):\n"
        "    p=os.fork()\n"
        "    if p==0:\n"
        "        b=[bytearray(1<<20) for _ in range(160)]\n"
        "        time.sleep(5); os._exit(0)\n"
        "    pids.append(p)\n"
        "bad=0\n"
        "for p in pids:\n"
        "    _, st = os.waitpid(p, 0)\n"
        "    bad += st != 0\n"
        "print('CHILDREN_FAILED', bad)\n"
    )
    r = sb.run(code, "python", limits=Limits(wall_s=60, memory_mb=64))
    assert r.status is RunStatus.MEMORY_EXCEEDED, (r.status, r.stdout, r.stderr[-300:])


def test_limit_output_10x_stdout_is_output_exceeded(sb: Sandbox) -> None:
    """output_bytes: past it the parent stops the program, keeps the first bytes, sets truncated."""
    r = sb.run("import sys\nsys.stdout.write('a'*100000)\n", "python", limits=Limits(output_bytes=10000))
    assert r.status is RunStatus.OUTPUT_EXCEEDED and r.truncated and len(r.stdout) <= 10000


def test_limit_output_stderr_then_clean_exit_is_output_exceeded(sb: Sandbox) -> None:
    """truncated always means output_exceeded, also for a stderr flood followed by exit 0."""
    code = "import sys, os\nos.write(2, b'e'*100000)\nos._exit(0)\n"
    r = sb.run(code, "python", limits=Limits(output_bytes=10000))
    assert r.status is RunStatus.OUTPUT_EXCEEDED and r.truncated


def test_limit_output_through_a_grandchild_is_output_exceeded(sb: Sandbox) -> None:
    """output_bytes per stream, whoever writes it: a detached grandchild floods after the parent exits."""
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n    os.setsid()\n    time.sleep(0.3)\n    os.write(1, b'g'*200000)\n    os._exit(0)\n"
        "os._exit(0)\n"
    )
    r = sb.run(code, "python", limits=Limits(output_bytes=20000, wall_s=10))
    assert len(r.stdout) <= 20000
    assert r.status in (RunStatus.OUTPUT_EXCEEDED, RunStatus.FINISHED)
    if r.stdout:
        assert r.status is RunStatus.OUTPUT_EXCEEDED


def test_limit_processes_cap_holds_at_10x(sb: Sandbox) -> None:
    """max_processes: RLIMIT_NPROC on the run's own uid; 80 forks at a cap of 8 do not all succeed."""
    code = (
        "import os, time\n"
        "n=0\n"
        "for i in range(80):\n"
        "    try:\n        p=os.fork()\n    except OSError:\n        break\n"
        "    if p==0:\n        time.sleep(3); os._exit(0)\n"
        "    n+=1\n"
        "print(n)\n"
    )
    r = sb.run(code, "python", limits=Limits(wall_s=30, max_processes=8))
    assert r.status is RunStatus.FINISHED
    assert int(r.stdout.strip()) < 8, r.stdout


def test_limit_file_size_10x_is_efbig(sb: Sandbox) -> None:
    """file_size_mb: RLIMIT_FSIZE, writes past it fail with EFBIG."""
    code = (
        "import errno\n"
        "f=open('big','wb')\n"
        "try:\n"
        "    for i in range(10*1):\n        f.write(b'x'*(1<<20)); f.flush()\n"
        "    print('WROTE')\n"
        "except OSError as e:\n    print(errno.errorcode[e.errno])\n"
    )
    r = sb.run(code, "python", limits=Limits(file_size_mb=1))
    assert r.status is RunStatus.FINISHED and r.stdout.strip() == "EFBIG", (r.stdout, r.stderr[-300:])


def test_limit_core_limit_cannot_be_changed(sb: Sandbox) -> None:
    """RLIMIT_CORE 1, the seccomp filter refuses any change."""
    code = (
        "import resource\n"
        "print(resource.getrlimit(resource.RLIMIT_CORE))\n"
        "try:\n    resource.setrlimit(resource.RLIMIT_CORE, (0, 0)); print('CHANGED')\nexcept (OSError, ValueError):\n    print('E')\n"
    )
    r = sb.run(code, "python")
    assert r.stdout.split("\n")[:2] == ["(1, 1)", "E"], r.stdout


# ---------------------------------------------------------------- leftovers and the next run


def _host_pids_with(marker: bytes) -> list[int]:
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if marker in f.read():
                    found.append(int(p))
        except OSError:
            pass
    return found


def test_leftover_no_daemon_survives_the_run(sb: Sandbox) -> None:
    """All killed when it ends: a double-forked setsid() daemon does not outlive the run."""
    marker = f"{os.getpid()}{id(sb) % 1000}.25"
    code = (
        "import os\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execv('/bin/sleep', ['sleep', '{marker}'])\n"
        "    os._exit(0)\n"
        "os.wait(); print('DETACHED')\n"
    )
    r = sb.run(code, "python")
    assert r.stdout.strip() == "DETACHED"
    time.sleep(0.5)
    left = _host_pids_with(b"sleep\0" + marker.encode())
    for pid in left:  # our own leftover: end it by its pid
        os.kill(pid, 9)
    assert left == []


def test_next_run_working_directory_is_fresh(sb: Sandbox) -> None:
    """Working directory: fresh per run, unmounted/removed afterwards."""
    sb.run("open('state','w').write('planted')\n", "python")
    r = sb.run("import os\nprint(os.listdir('.'))\n", "python")
    assert r.stdout.strip() == "['main.py']", r.stdout


def test_next_run_keyring_is_fresh(sb: Sandbox) -> None:
    """Session keyring fresh and empty per run; a key planted in the user keyring is gone next run."""
    plant = (
        "import ctypes\n"
        "l=ctypes.CDLL(None, use_errno=True)\n"
        "l.syscall.restype=ctypes.c_long\n"
        "for ring in (-3, -4):\n"
        "    print(l.syscall(248, b'user', b'rl-breaker-planted', b'v', 1, ring), ctypes.get_errno())\n"
    )
    sb.run(plant, "python")
    r = sb.run("print(open('/proc/keys').read())\n", "python")
    assert "rl-breaker-planted" not in r.stdout, r.stdout


def test_next_run_cannot_see_a_previous_runs_process(sb: Sandbox) -> None:
    """Each run its own PID namespace: a sleeper of a previous run (killed) is not visible."""
    sb.run("import os,time\nif os.fork()==0:\n    time.sleep(100)\n", "python", limits=Limits(wall_s=0.5))
    code = "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()))\n"
    r = sb.run(code, "python")
    assert r.stdout.strip() in ("[]", "[1]"), (
        r.stdout
    )  # [1]: the reaper of this run's own namespace (unshare)


# ---------------------------------------------------------------- status


def test_status_program_cannot_forge_sandbox_error(sb: Sandbox) -> None:
    """sandbox_error cannot be forged: printing lookalike markers and dying is finished, not sandbox_error."""
    code = (
        "import os, sys\n"
        "sys.stderr.write('sandbox error: mount holder died\\nRL_SANDBOX_MARKER\\n'); sys.stderr.flush()\n"
        "os.close(2); os.close(1)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    r = sb.run(code, "python")
    assert r.status is not RunStatus.SANDBOX_ERROR, r


def test_status_abort_is_finished_with_a_signal(sb: Sandbox) -> None:
    """finished: everything else, whatever the exit code or signal (abort under PID 1)."""
    r = sb.run("import os\nos.abort()\n", "python")
    assert r.status is RunStatus.FINISHED and r.signal is not None and r.exit_code is None


def test_status_memoryerror_text_on_success_is_finished(sb: Sandbox) -> None:
    """memory_exceeded only when the program *failed* and reported an allocation failure."""
    r = sb.run(
        "print('MemoryError Cannot allocate memory')\nimport sys\nsys.stderr.write('MemoryError\\n')\n",
        "python",
    )
    assert r.status is RunStatus.FINISHED and r.exit_code == 0


# ---------------------------------------------------------------- harness forging

HE = {
    "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n",
    "entry_point": "add",
    "prompt": "def add(a, b):\n",
}
WRONG = "    return a - b\n"
TRICKS = {
    "sys_exit_at_import": WRONG + "import sys\nsys.exit(0)\n",
    "os_exit_in_call": "    import os; os._exit(0)\n",
    "fake_verdict_lines": WRONG
    + "import sys\nprint('PASSED'); print('{\"passed\": true}'); sys.stdout.flush()\n",
    "patch_builtins_assertionerror": WRONG
    + "import builtins\nbuiltins.AssertionError = type('A', (BaseException,), {})\n",
    "lying_int_subclass": "    class I(int):\n        def __eq__(s, o): return True\n    return I(0)\n",
    "signal_handler_exit": WRONG
    + "import signal, os\nsignal.signal(signal.SIGALRM, lambda *a: os._exit(0))\nsignal.alarm(1)\n",
    "kill_parent": "    import os, signal\n    os.kill(os.getppid(), signal.SIGKILL)\n    os.kill(1, signal.SIGKILL)\n    return 0\n",
    "write_proc_fd1_of_pid1": WRONG
    + "try:\n    open('/proc/1/fd/1','w').write('x 1\\n')\nexcept OSError:\n    pass\n",
    "monkeypatch_unittest": WRONG + "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n",
}


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_harness_trick_never_passes(sb: Sandbox, trick: str) -> None:
    """Passing means the checks ran to completion and held; only the checker's verdict line counts."""
    res = run_tests(TRICKS[trick], HE, sandbox=sb, limits=Limits(wall_s=10))
    assert [r.status for r in res] != [TestStatus.PASSED], res


def test_harness_correct_program_passes(sb: Sandbox) -> None:
    """The boundary keeps correct programs passing (control for the tricks above)."""
    res = run_tests("    return a + b\n", HE, sandbox=sb, limits=Limits(wall_s=10))
    assert [r.status for r in res] == [TestStatus.PASSED], res


def test_harness_stdio_early_exit_after_wrong_output(sb: Sandbox) -> None:
    """stdin/stdout harness: stdout compared on the host; an early exit after wrong output is wrong."""
    res = run_tests("import os\nprint(5)\nos._exit(0)\n", {"inputs": ["2\n"], "outputs": ["4\n"]}, sandbox=sb)
    assert [r.status for r in res] == [TestStatus.WRONG_ANSWER], res


# ---------------------------------------------------------------- round 4 additions


def test_net_host_loopback_listener_is_unreachable(sb: Sandbox) -> None:
    """No host 127.0.0.1: a listener the caller opens on the host's loopback cannot be reached."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(0.1)
    port = srv.getsockname()[1]
    code = (
        "import socket\n"
        "s=socket.socket(); s.settimeout(2)\n"
        f"try:\n    s.connect(('127.0.0.1', {port})); s.sendall(b'hi'); print('HOSTCONN')\n"
        "except OSError as e:\n    print('E', e.errno)\n"
    )
    try:
        r = sb.run(code, "python")
        try:
            conn, _ = srv.accept()
            conn.close()
            accepted = True
        except TimeoutError:
            accepted = False
    finally:
        srv.close()
    assert "HOSTCONN" not in r.stdout and not accepted, r.stdout


def test_net_loopback_is_down(request: pytest.FixtureRequest, sb: Sandbox) -> None:
    """The isolation table: "new network namespace, loopback down" for unshare and ("same") bwrap."""
    xfail_on(
        request, sb, "bwrap", "under bwrap the private loopback is UP (IFF_UP, 127.0.0.1 gives ECONNREFUSED)"
    )
    code = (
        "import socket, fcntl, struct\n"
        "s=socket.socket()\n"
        "req=struct.pack('16sH', b'lo', 0)\n"
        "flags=struct.unpack('16sH', fcntl.ioctl(s, 0x8913, req)[:18])[1]\n"
        "print(flags & 1)\n"
    )
    r = sb.run(code, "python")
    assert r.status is RunStatus.FINISHED and r.stdout.strip() == "0", r.stdout


def test_net_c_and_node_have_no_network(sb: Sandbox) -> None:
    """No network for every language (C connect, node net.connect)."""
    c = (
        "#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <stdio.h>\n"
        "int main(){int s=socket(AF_INET,SOCK_STREAM,0);struct sockaddr_in a={0};a.sin_family=AF_INET;"
        'a.sin_port=htons(53);inet_pton(AF_INET,"1.1.1.1",&a.sin_addr);'
        'printf("%d\\n",connect(s,(void*)&a,sizeof a));}\n'
    )
    rc = sb.run(c, "c")
    js = "const s=require('net').connect(53,'1.1.1.1');s.on('connect',()=>console.log('CONN'));s.on('error',e=>console.log(e.code));"
    rj = sb.run(js, "javascript")
    assert rc.status is RunStatus.FINISHED and rc.stdout.strip() == "-1", (
        rc.status,
        rc.stdout,
        rc.stderr[-300:],
    )
    assert rj.status is RunStatus.FINISHED and rj.stdout.strip() == "ENETUNREACH", (
        rj.stdout,
        rj.stderr[-300:],
    )


def test_fs_compile_phase_cannot_include_the_checkout(sb: Sandbox) -> None:
    """Compile phases run in the same sandbox: the hidden checkout cannot be #included."""
    here = os.path.dirname(os.path.abspath(__file__))
    r = sb.run(f'#include "{here}/test_breaker_round4.py"\nint main(){{}}\n', "c")
    assert r.status is RunStatus.COMPILE_ERROR and "No such file" in r.stderr, r.stderr[:300]


def test_stdin_pipe_cannot_be_reopened_for_writing(sb: Sandbox) -> None:
    """stdin is the read end of a pipe owned by the parent (the run's uid cannot reopen it for writing)."""
    code = (
        "import os\n"
        "try:\n    os.open('/proc/self/fd/0', os.O_WRONLY | os.O_NONBLOCK); print('REOPENED')\n"
        "except OSError as e:\n    print(e.errno)\n"
    )
    r = sb.run(code, "python", stdin="data\n")
    assert r.stdout.strip() == "13", r.stdout


def test_id_concurrent_runs_get_distinct_uids(sb: Sandbox) -> None:
    """A uid of its own per run: one run at a time per pooled uid."""
    code = "import os, time\nprint(os.getuid())\ntime.sleep(1.5)\n"
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        outs = list(ex.map(lambda _: sb.run(code, "python").stdout.strip(), range(4)))
    assert len(set(outs)) == 4 and all(o.isdigit() for o in outs), outs


def test_status_exit_with_a_detached_grandchild_is_finished(sb: Sandbox) -> None:
    """finished: exited on its own; the tree is killed when it ends (a setsid sleeper holding stdout)."""
    code = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(1000)\nprint('bye')\n"
    r = sb.run(code, "python", limits=Limits(wall_s=20))
    assert r.status is RunStatus.FINISHED and r.exit_code == 0 and r.stdout == "bye\n"
    assert r.wall_s < 10


def test_limit_socket_buffers_count_against_memory(sb: Sandbox) -> None:
    """memory_mb: the memory cgroup bounds the tree, kernel socket buffers included (10x the cap queued)."""
    code = (
        "import os, socket, time\n"
        "def fill():\n"
        "    held=[]\n"
        "    for i in range(480):\n"
        "        a,b=socket.socketpair(); a.setblocking(False)\n"
        "        try:\n"
        "            while True: a.send(b'x'*65536)\n"
        "        except BlockingIOError: pass\n"
        "        held.append((a,b))\n"
        "    return held\n"
        "kids=[]\n"
        "for k in range(6):\n"
        "    p=os.fork()\n"
        "    if p==0:\n        h=fill(); time.sleep(3); os._exit(0)\n"
        "    kids.append(p)\n"
        "for p in kids: os.waitpid(p,0)\n"
        "print('HELD')\n"
    )
    r = sb.run(code, "python", limits=Limits(wall_s=60, memory_mb=64))
    assert r.status is RunStatus.MEMORY_EXCEEDED, (r.status, r.stdout, r.stderr[-300:])


def test_cpu_s_counts_an_unreaped_child(request: pytest.FixtureRequest, sb: Sandbox) -> None:
    """cpu_s is user+system time of the whole tree (wait4, or the cgroup's accounting where wait4 cannot see it)."""
    code = (
        "import os, time\n"
        "r, w = os.pipe()\n"
        "if os.fork() == 0:\n"
        "    while time.process_time() < 2.0: pass\n"
        "    os.write(w, b'x')\n"
        "    while True: pass\n"
        "os.read(r, 1)\n"
        "os._exit(0)\n"
    )
    r = sb.run(code, "python", limits=Limits(wall_s=60))
    assert r.status is RunStatus.FINISHED
    assert r.cpu_s >= 1.9, r.cpu_s


# 20 children of 1 s of CPU each (half the per-process RLIMIT_CPU of 2 s): 10x the run's limit in all
SPREAD_CPU = (
    "import os, time\n"
    "kids = []\n"
    "for i in range(20):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        while time.process_time() < 1.0: pass\n"
    "        os._exit(0)\n"
    "    kids.append(pid)\n"
    "for pid in kids: os.waitpid(pid, 0)\n"
    "print('all done')\n"
)


def test_cpu_s_bounds_the_sum_over_processes_at_10x(request: pytest.FixtureRequest, sb: Sandbox) -> None:
    """cpu_s bounds the CPU time of the whole run, not of each process: 20 processes of 1 s each under a
    2 s limit (RLIMIT_CPU alone would let every one finish) end as a timeout, and never get to print."""
    r = sb.run(SPREAD_CPU, "python", limits=Limits(wall_s=120, cpu_s=2, max_processes=32))
    assert r.status is RunStatus.TIMEOUT, (r.status, r.stdout, r.cpu_s)
    assert "all done" not in r.stdout
    assert r.cpu_s is None or r.cpu_s >= 2.0, r.cpu_s


def test_cpu_s_bounds_the_sum_over_orphans_at_10x(request: pytest.FixtureRequest, sb: Sandbox) -> None:
    """The same with children the program never waits for and leaves behind (orphans, reparented to
    the namespace's PID 1, which holds no pipe they could tell it by): the run is a timeout, and the
    program, which learns that they are all done when their pipe closes, never gets to print."""
    code = (
        "import os, time\n"
        "r, w = os.pipe()\n"
        "for i in range(20):\n"
        "    if os.fork() == 0:\n"
        "        if os.fork() == 0:\n"
        "            os.close(r)\n"
        "            while time.process_time() < 1.0: pass\n"
        "            os._exit(0)\n"
        "        os._exit(0)\n"
        "os.close(w)\n"
        "while os.read(r, 1): pass\n"
        "print('all done')\n"
    )
    r = sb.run(code, "python", limits=Limits(wall_s=120, cpu_s=2, max_processes=64))
    assert r.status is RunStatus.TIMEOUT, (r.status, r.stdout, r.cpu_s)
    assert "all done" not in r.stdout
    assert r.cpu_s is None or r.cpu_s >= 2.0, r.cpu_s


READ_ARGS = "import sys\nfor p in sys.argv[1:]:\n    try:\n        print(len(open(p).read()) > 0)\n    except OSError as e:\n        print(e.errno)\n"


def _isolating_backends() -> list[str]:
    return [b for b in BACKENDS if b != "bwrap" or shutil.which("bwrap") is not None]


LISTDIRS = "import os, sys\nfor p in sys.argv[1:]:\n    try:\n        print(len(os.listdir(p)))\n    except OSError as e:\n        print('E', e.errno)\n"


def test_fs_hidden_paths_under_etc_are_covered() -> None:
    """hidden_paths are covered by an empty tmpfs (a directory of the visible /etc tree)."""
    hidden = "/etc/apt"
    assert os.listdir(hidden)
    for backend in _isolating_backends():
        with Sandbox(isolation=backend, hidden_paths=(hidden,)) as box:
            r = box.run(LISTDIRS, "python", args=(hidden,))
        assert r.stdout.strip() == "0", (backend, r.stdout, r.stderr[-300:])


def test_fs_hidden_paths_under_usr_are_refused_not_left_readable() -> None:
    """hidden_paths fail closed: a directory under /usr (a data set installed in /usr/share) cannot be covered
    (every run needs that tree), so the sandbox refuses the configuration naming the path, where it used to
    leave the directory fully listable (breaker round 4)."""
    hidden = ("/usr/share/doc", "/usr/include")
    for backend in _isolating_backends():
        with (
            pytest.raises(ConfigError, match="cannot be hidden: it lies inside a system or toolchain tree"),
            Sandbox(isolation=backend, hidden_paths=hidden) as box,
        ):
            box.run("print(1)", "python")


def test_fs_hidden_paths_inside_the_toolchain_tree_are_refused_not_left_readable() -> None:
    """hidden_paths fail closed: a package directory of the interpreter's virtualenv (one shipping a data set),
    by its own path or through the checkout's symlinked ``.venv``, lies in a toolchain tree every run needs:
    refused with the tree named, where it used to stay readable (breaker round 4)."""
    import PIL  # any package of the visible venv stands for one that ships a data set

    pkg = os.path.dirname(PIL.__file__)
    for backend in _isolating_backends():
        for hidden in (os.path.realpath(pkg), pkg):
            with (
                pytest.raises(ConfigError, match=r"cannot be hidden: it lies inside .*a toolchain tree"),
                Sandbox(isolation=backend, hidden_paths=(hidden,)) as box,
            ):
                box.run("print(1)", "python")


def test_fs_hidden_paths_outside_the_system_trees_still_work(tmp_path: Any) -> None:
    """The check refuses only what cannot be covered: a data directory elsewhere is hidden as before."""
    data = tmp_path / "answers"
    data.mkdir()
    (data / "key.txt").write_text("42")
    for backend in _isolating_backends():
        with Sandbox(isolation=backend, hidden_paths=(str(data),)) as box:
            r = box.run(READ_ARGS, "python", args=(str(data / "key.txt"),))
        assert "True" not in r.stdout.split(), (backend, r.stdout, r.stderr[-300:])


def test_next_run_after_a_hostile_working_directory_is_clean(sb: Sandbox) -> None:
    """Working directory removed afterwards: 3,000-deep tree, a full disk and chmod 0 leave no trace."""
    mess = (
        "import os\n"
        "print(os.getcwd(), flush=True)\n"
        "top=os.open('.', os.O_RDONLY)\n"
        "for i in range(3000):\n    os.mkdir('d'); os.chdir('d')\n"
        "os.fchdir(top)\n"
        "try:\n    for i in range(8):\n        open('fill%d' % i, 'wb').write(b'x' * (15 << 20))\n"
        "except OSError:\n    pass\n"
        "os.chmod('.', 0)\n"
    )
    r = sb.run(mess, "python", limits=Limits(wall_s=60, file_size_mb=16))
    assert r.status is RunStatus.FINISHED, (r.status, r.stderr[-300:])
    wd = r.stdout.splitlines()[0]
    if _BACKEND[id(sb)] == "bwrap":  # a host directory there: it must be gone
        assert not os.path.exists(wd), wd
    nxt = sb.run("import os\nprint(os.listdir('.'))\n", "python")
    assert nxt.status is RunStatus.FINISHED and nxt.stdout.strip() == "['main.py']", nxt


MBPP = {"test_list": ["assert add(2, 3) == 5"]}
CALL = {"inputs": ["2\n3"], "outputs": ["5"], "fn_name": "add"}
FN_TRICKS = {
    "os_exit": "def add(a, b):\n    return a - b\nimport os\nos._exit(0)\n",
    "print_passed": "def add(a, b):\n    return a - b\nprint('PASSED')\n",
    "builtins_assertionerror": "def add(a, b):\n    return a - b\nimport builtins\nbuiltins.AssertionError = KeyboardInterrupt\n",
    "lying_int": "class I(int):\n    def __eq__(s, o):\n        return True\ndef add(a, b):\n    return I(0)\n",
    "atexit_exit0": "import atexit, os\natexit.register(lambda: os._exit(0))\ndef add(a, b):\n    raise SystemExit(0)\n",
}


@pytest.mark.parametrize("layout", ["mbpp", "call"])
@pytest.mark.parametrize("trick", sorted(FN_TRICKS))
def test_harness_mbpp_and_call_based_tricks_never_pass(sb: Sandbox, trick: str, layout: str) -> None:
    """Passing means the checks ran to completion and held (MBPP asserts, call-based fn_name)."""
    spec = MBPP if layout == "mbpp" else CALL
    res = run_tests(FN_TRICKS[trick], spec, sandbox=sb, limits=Limits(wall_s=10))
    assert [r.status for r in res] != [TestStatus.PASSED], res
    ok = run_tests("def add(a, b):\n    return a + b\n", spec, sandbox=sb, limits=Limits(wall_s=10))
    assert [r.status for r in ok] == [TestStatus.PASSED], ok


SHADOWED = [
    "traceback",
    "linecache",
    "tokenize",
    "difflib",
    "pprint",
    "inspect",
    "reprlib",
    "textwrap",
    "string",
    "locale",
    "warnings",
    "ast",
    "dis",
    "types",
    "functools",
    "collections",
    "copy",
    "weakref",
    "json",
    "decimal",
    "fractions",
    "numbers",
    "random",
    "operator",
    "contextlib",
    "enum",
    "signal",
    "threading",
    "queue",
    "heapq",
    "bisect",
    "codecs",
    "statistics",
    "re",
    "typing",
    "dataclasses",
    "struct",
    "base64",
    "datetime",
    "time",
    "itertools",
]


def test_harness_stdlib_shadowing_in_the_working_directory_never_reaches_the_checker(sb: Sandbox) -> None:
    """The checker removes the program's directory from sys.path: modules the program writes into its
    working directory (named like the standard modules the checker or the test imports later) do not
    run in the checker (they would stall PID 1, the checker, past the wall limit)."""
    plant = (
        "import os\n"
        f"for _n in {SHADOWED!r}:\n"
        "    with open(os.path.join(os.getcwd(), _n + '.py'), 'w') as _f:\n"
        "        _f.write('import os, time\\nif os.getpid() == 1:\\n    time.sleep(100)\\n')\n"
    )
    he = dict(
        HE,
        test="def check(candidate):\n    import statistics, fractions, difflib\n    assert candidate(2, 3) == 5\n",
    )
    res = run_tests("    return a - b\n" + plant, he, sandbox=sb, limits=Limits(wall_s=5))
    assert [r.status for r in res] == [TestStatus.RUNTIME_ERROR], res
    mb = {"test_list": ["import decimal\nassert add(2, 3) == 5"]}
    res = run_tests("def add(a, b):\n    return a - b\n" + plant, mb, sandbox=sb, limits=Limits(wall_s=5))
    assert [r.status for r in res] == [TestStatus.RUNTIME_ERROR], res


def test_limit_processes_counts_threads_at_10x(sb: Sandbox) -> None:
    """max_processes: RLIMIT_NPROC counts every task, threads too (80 threads at a cap of 8)."""
    code = (
        "import threading, time\n"
        "n=0\n"
        "ev=threading.Event()\n"
        "for i in range(80):\n"
        "    try:\n        threading.Thread(target=ev.wait, daemon=True).start(); n+=1\n"
        "    except RuntimeError:\n        break\n"
        "print(n); ev.set()\n"
    )
    r = sb.run(code, "python", limits=Limits(wall_s=30, max_processes=8))
    assert r.status is RunStatus.FINISHED and int(r.stdout.strip()) < 8, (r.stdout, r.stderr[-300:])

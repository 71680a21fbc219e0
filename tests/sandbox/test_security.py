"""Hostile programs against the sandbox, with real processes: each must be contained and the host (this
test process, its files, its other processes) unharmed.

The isolating backends (``unshare`` as root, ``bwrap`` when installed) are held to the full list; the
``none`` backend only to what it promises (limits, tree kill, a scrubbed environment), and the tests
assert the exposure it documents (network, reading the checkout) rather than pretend it is contained.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from rewardloop.sandbox import Limits, RunStatus, Sandbox
from rewardloop.sandbox._isolation import project_root

from .conftest import wait_until_gone

pytestmark = pytest.mark.sandbox


def _marker() -> str:
    """A number unique to this test, usable as a `sleep` argument and found again in /proc."""
    return f"9{os.getpid()}{time.monotonic_ns() % 10**7}"


# ---------------------------------------------------------------------------------------------- network


@pytest.fixture
def listener():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.3)
    yield srv
    srv.close()


CONNECT = """
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
try:
    socket.create_connection((host, port), timeout=2).sendall(b"leak")
    print("connected")
except OSError as exc:
    print("blocked", exc.errno)
"""


def _accepted(srv: socket.socket) -> bool:
    try:
        conn, _ = srv.accept()
    except TimeoutError:
        return False
    conn.close()
    return True


def test_no_connection_to_a_local_listener(isolated_sandbox, listener):
    port = listener.getsockname()[1]
    result = isolated_sandbox.run(CONNECT, args=["127.0.0.1", str(port)])
    assert result.stdout.startswith("blocked"), result
    assert not _accepted(listener)


@pytest.mark.parametrize("address", [("1.1.1.1", "80"), ("8.8.8.8", "53")])
def test_no_connection_to_the_outside(isolated_sandbox, address):
    result = isolated_sandbox.run(CONNECT, args=list(address))
    assert result.stdout.startswith("blocked"), result


def test_no_network_interfaces_but_a_down_loopback(isolated_sandbox):
    code = "import socket\nprint(sorted(name for _, name in socket.if_nameindex()))"
    assert isolated_sandbox.run(code).stdout == "['lo']\n"


def test_none_backend_shares_the_network_as_documented(listener):
    with Sandbox(isolation="none") as sb:
        result = sb.run(CONNECT, args=["127.0.0.1", str(listener.getsockname()[1])])
    assert result.stdout.startswith("connected")
    assert _accepted(listener)


def test_network_can_be_granted(sandbox, listener):
    result = sandbox.run(
        CONNECT, args=["127.0.0.1", str(listener.getsockname()[1])], limits=Limits(network=True)
    )
    assert result.stdout.startswith("connected"), result


# ---------------------------------------------------------------------------------------------- filesystem


WRITE_EVERYWHERE = """
import json, os, sys
report = {}
for path in sys.argv[1:]:
    try:
        with open(path, "w") as fh:
            fh.write("pwned")
        report[path] = "written"
    except OSError as exc:
        report[path] = type(exc).__name__
with open("inside.txt", "w") as fh:
    fh.write("fine")
report["cwd"] = os.listdir(".")
print(json.dumps(report))
"""


def test_writes_outside_the_working_directory_fail(isolated_sandbox, tmp_path):
    name = f"rewardloop-pwned-{_marker()}"
    targets = [
        str(tmp_path / name),  # the host's /tmp (pytest's directory)
        f"/tmp/{name}",
        f"/var/tmp/{name}",
        f"/dev/shm/{name}",
        f"/etc/{name}",
        f"/root/{name}",
        f"/{name}",
    ]
    root = project_root()
    if root:
        targets.append(os.path.join(root, name))
    result = isolated_sandbox.run(WRITE_EVERYWHERE, args=targets)
    report = json.loads(result.stdout)
    assert all(report[t] != "written" for t in targets), report
    assert sorted(report["cwd"]) == ["inside.txt", "main.py"]
    assert not [t for t in targets if os.path.exists(t)]


def test_the_checkout_is_hidden(isolated_sandbox):
    root = project_root()
    if root is None:
        pytest.skip("rewardloop is installed, not run from a checkout")
    code = "import sys\ntry:\n    print(open(sys.argv[1]).read()[:20])\nexcept OSError as e:\n    print(type(e).__name__)"
    result = isolated_sandbox.run(code, args=[os.path.join(root, "pyproject.toml")])
    assert result.stdout == "FileNotFoundError\n"


def test_the_checkout_is_readable_without_isolation_as_documented():
    root = project_root()
    if root is None:
        pytest.skip("rewardloop is installed, not run from a checkout")
    with Sandbox(isolation="none") as sb:
        code = "import sys\nprint(open(sys.argv[1]).read()[:9])"
        assert sb.run(code, args=[os.path.join(root, "pyproject.toml")]).stdout == "[build-sy\n"


def test_hidden_directories_are_empty_and_extra_ones_can_be_added(isolated_sandbox, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the answer")
    code = "import os, sys\nprint(os.path.exists(sys.argv[1]), sorted(os.listdir('/home')))"
    assert isolated_sandbox.run(code, args=[str(secret)]).stdout == "False []\n"
    extra = Sandbox(isolation=isolated_sandbox.isolation, hidden_paths=["/opt", "/srv"])
    with extra:
        assert extra.run("import os\nprint(os.listdir('/opt'))").stdout == "[]\n"


def test_unusual_top_level_directories_are_hidden(isolated_sandbox):
    standard = set(
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
            "tmp",  # holds the working directories; tested on its own
        ]
    )
    unusual = [n for n in os.listdir("/") if n not in standard and os.path.isdir("/" + n)]
    unusual = [n for n in unusual if not os.path.islink("/" + n)]
    code = "import os, sys, json\nprint(json.dumps({d: os.listdir('/' + d) for d in sys.argv[1:]}))"
    listing = json.loads(isolated_sandbox.run(code, args=unusual).stdout)
    exposed = [target for target, _ in isolated_sandbox._ensure().backend._plan.exposed]
    for name, entries in listing.items():
        for entry in entries:  # only the way to a toolchain or the cache is there
            path = f"/{name}/{entry}"
            assert any(t == path or t.startswith(path + "/") for t in exposed), path


def test_set_uid_programs_cannot_raise_privileges(isolated_sandbox):
    code = (
        "import os\nnnp = [l.split()[1] for l in open('/proc/self/status') if l.startswith('NoNewPrivs')]\n"
        "print(nnp == ['1'] or bool(os.statvfs('/usr/bin').f_flag & os.ST_NOSUID))"
    )
    assert isolated_sandbox.run(code).stdout == "True\n"


def test_world_readable_system_files_stay_readable(isolated_sandbox):
    # the documented limit: no private root filesystem, so ordinary system files can be read
    result = isolated_sandbox.run("print(open('/etc/passwd').read().split(':')[0])")
    assert result.stdout == "root\n"


def test_other_runs_are_invisible(isolated_sandbox):
    code = (
        "import json, os\nhere = os.path.basename(os.getcwd())\n"
        "try:\n    siblings = os.listdir('..')\nexcept OSError:\n    siblings = None\n"
        "print(json.dumps([here, siblings]))"
    )
    here, siblings = json.loads(isolated_sandbox.run(code).stdout)
    assert siblings is None or siblings == [here]


def test_program_runs_as_an_unprivileged_user(isolated_sandbox):
    code = "import os\nprint(os.getuid() != 0, os.geteuid() != 0, os.getgroups() in ([], [os.getgid()]))"
    if os.geteuid() != 0:
        pytest.skip("not running as root: the program keeps this user's uid inside a user namespace")
    assert isolated_sandbox.run(code).stdout == "True True True\n"


# ---------------------------------------------------------------------------------------------- environment


def test_parent_environment_is_invisible(any_sandbox, monkeypatch):
    monkeypatch.setenv("REWARDLOOP_SECRET_TOKEN", "hunter2-secret")
    code = (
        "import os, sys\nfound = 'hunter2-secret' in repr(dict(os.environ))\n"
        "try:\n    found |= b'hunter2-secret' in open(f'/proc/{sys.argv[1]}/environ', 'rb').read()\n"
        "except OSError:\n    pass\nprint(found)"
    )
    result = any_sandbox.run(code, args=[str(os.getpid())])
    if any_sandbox.isolation == "none" and os.geteuid() == 0:
        pytest.skip("isolation='none' as root can read /proc/<pid>/environ of the parent (documented)")
    assert result.stdout == "False\n", result


def test_host_processes_are_invisible(isolated_sandbox):
    code = "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"
    pids = json.loads(isolated_sandbox.run(code).stdout)
    assert os.getpid() not in pids and len(pids) <= 3


# ---------------------------------------------------------------------------------------------- processes


def test_signals_to_the_parent_do_not_reach_it(isolated_sandbox):
    code = (
        "import os, signal, sys\n"
        "for target in (os.getppid(), int(sys.argv[1]), 0, -1):\n"
        "    try:\n        os.kill(target, signal.SIGKILL) if target else None\n"
        "    except OSError as exc:\n        print(target, exc.errno)\n"
        "print('still here')"
    )
    result = isolated_sandbox.run(code, args=[str(os.getpid())])
    assert result.status is RunStatus.FINISHED and result.stdout.endswith("still here\n"), result
    time.sleep(0.1)
    assert os.getpid() and subprocess.run(["true"]).returncode == 0  # we are alive and can still fork


def test_fork_bomb_is_contained(any_sandbox):
    if (
        any_sandbox.isolation == "none"
        and os.geteuid() == 0
        and not any_sandbox._ensure().cgroups.has("pids")
    ):
        pytest.skip("isolation='none' as root without a pids cgroup has no process cap (documented)")
    marker = _marker()
    code = (
        "import os, subprocess, sys\n"
        "subprocess.Popen(['sleep', sys.argv[1]])\n"
        "while True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    start = time.monotonic()
    result = any_sandbox.run(code, args=[marker], limits=Limits(wall_s=1, max_processes=32))
    assert result.status is RunStatus.TIMEOUT, result
    assert time.monotonic() - start < 1 + 5
    assert wait_until_gone(marker) == []
    assert subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True).stdout == b"1\n"


def test_process_cap_is_enforced(isolated_sandbox):
    code = (
        "import os, time\nkids = 0\n"
        "for _ in range(100):\n    try:\n        pid = os.fork()\n    except OSError:\n        break\n"
        "    if pid == 0:\n        time.sleep(5)\n        os._exit(0)\n    kids += 1\n"
        "print(kids)"
    )
    result = isolated_sandbox.run(code, limits=Limits(max_processes=10, wall_s=10))
    assert result.status is RunStatus.FINISHED, result
    assert 5 <= int(result.stdout) <= 10


def test_background_children_are_killed_after_exit(any_sandbox):
    marker = _marker()
    code = (
        "import os, subprocess, sys\n"
        "subprocess.Popen(['sleep', sys.argv[1]], start_new_session=True,\n"
        "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "if os.fork() == 0:\n    os.setsid()\n    os.execvp('sleep', ['sleep', sys.argv[1]])\n"
        "print('bye')"
    )
    if any_sandbox.isolation == "none" and not any_sandbox._ensure().cgroups.available:
        pytest.skip("isolation='none' without cgroups cannot catch a child that left the session")
    result = any_sandbox.run(code, args=[marker])
    assert result.stdout == "bye\n" and result.status is RunStatus.FINISHED
    assert wait_until_gone(marker) == []


def test_a_program_that_closes_its_output_still_times_out(any_sandbox):
    code = "import os, time\nos.close(1)\nos.close(2)\ntime.sleep(60)"
    start = time.monotonic()
    result = any_sandbox.run(code, limits=Limits(wall_s=0.5))
    assert result.status is RunStatus.TIMEOUT
    assert time.monotonic() - start < 0.5 + 2


def test_sleeping_forever_times_out_promptly(any_sandbox):
    start = time.monotonic()
    result = any_sandbox.run("import time\ntime.sleep(10**6)", limits=Limits(wall_s=1))
    assert result.status is RunStatus.TIMEOUT
    assert time.monotonic() - start < 1 + 1.5


def test_endless_output_is_capped(any_sandbox):
    code = "import sys\nwhile True:\n    sys.stdout.write('spam' * 4096)\n    sys.stderr.write('eggs' * 4096)"
    result = any_sandbox.run(code, limits=Limits(output_bytes=64 * 1024, wall_s=10))
    assert result.status is RunStatus.OUTPUT_EXCEEDED and result.truncated
    assert len(result.stdout) <= 64 * 1024 and len(result.stderr) <= 64 * 1024
    assert result.wall_s < 5


def test_unbounded_allocation_is_memory_exceeded(any_sandbox):
    code = "blocks = []\nwhile True:\n    blocks.append(b'x' * (32 * 2**20))"
    result = any_sandbox.run(code, limits=Limits(memory_mb=192, wall_s=20))
    assert result.status is RunStatus.MEMORY_EXCEEDED, result


def test_many_processes_share_one_memory_cap(sandbox):
    if not sandbox._ensure().cgroups.has("memory"):
        pytest.skip("no writable memory cgroup: the cap is per process (documented)")
    code = (
        "import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n"
        "block = bytearray(150 * 2**20)\nfor i in range(0, len(block), 4096):\n    block[i] = 1\n"
        "time.sleep(2)\nprint('survived')"
    )
    result = sandbox.run(code, limits=Limits(memory_mb=256, wall_s=10))
    assert result.status is RunStatus.MEMORY_EXCEEDED, result


def test_sandbox_survives_a_killed_holder(tmp_path):
    try:
        sb = Sandbox(isolation="unshare", cache_dir=str(tmp_path))
    except Exception:
        pytest.skip("isolation='unshare' is not available here")
    with sb:
        assert sb.run("print(1)").ok
        holder = sb._ensure().backend._holder
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        assert sb.run("print(2)").stdout == "2\n"  # a new holder is started

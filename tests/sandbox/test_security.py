"""Hostile programs against the sandbox, with real processes: each must be contained and the host (this
test process, its files, its other processes) unharmed.

The isolating backends (``unshare`` as root, ``bwrap`` when installed) are held to the full list; the
``none`` backend only to what it promises (limits, tree kill, a scrubbed environment), and the tests
assert the exposure it documents (network, reading the checkout) rather than pretend it is contained.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from rewardloop.sandbox import Limits, RunStatus, Sandbox
from rewardloop.sandbox._backends import unsafe_mounts
from rewardloop.sandbox._mounts import project_root

from .conftest import ISOLATED, NOBODY, skip_unless, wait_until_gone

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
    if "unshare" not in ISOLATED:
        pytest.skip("isolation='unshare' is not available here")
    with Sandbox(isolation="unshare", cache_dir=str(tmp_path)) as sb:
        assert sb.run("print(1)").ok
        holder = sb._ensure().backend._holder
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        assert sb.run("print(2)").stdout == "2\n"  # a new holder is started


# ---------------------------------------------------------------------------------------------- kernel
# Privileges, mounts, keyrings, the compile cache, the mount plan and stdin (issue 14). Tests that need
# to change mounts do it in a private mount namespace of a child process (``unshare --mount``): the
# host's mount table is never touched, and everything they mount disappears with that process.

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
ZERO_CAPS = "0000000000000000"


def _as_root_with_unshare() -> None:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and util-linux unshare (a private mount namespace for the test)")


def _script(code: str, *, private_mounts: bool = False, user: int | None = None, timeout: float = 180):
    """Run ``code`` in a fresh Python (optionally in a private mount namespace, or as ``user``) that
    imports rewardloop from this checkout; its last stdout line is JSON."""
    python = sys.executable if user is None else "/usr/bin/python3"
    argv = [python, "-c", code]
    if private_mounts:
        argv = ["unshare", "--mount", "--propagation", "private", "--", *argv]
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--", *argv]
    env = {"PATH": os.environ.get("PATH", os.defpath), "PYTHONPATH": SRC, "HOME": "/tmp", "LANG": "C.UTF-8"}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd="/tmp")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


STATUS = (
    "import json\nlines = open('/proc/self/status').read().strip().split('\\n')\n"
    "print(json.dumps(dict(line.split(':\\t', 1) for line in lines)))"
)


def test_no_new_privs_and_no_capabilities(isolated_sandbox):
    status = {k: v.strip() for k, v in json.loads(isolated_sandbox.run(STATUS).stdout).items()}
    assert status["NoNewPrivs"] == "1"
    for caps in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert status[caps] == ZERO_CAPS, (caps, status[caps])


def test_every_reachable_mount_is_nosuid_and_nodev(isolated_sandbox):
    result = isolated_sandbox.run("print(open('/proc/self/mountinfo').read())")
    assert result.ok, result
    assert len(result.stdout.splitlines()) > 3  # the check below has something to check
    assert unsafe_mounts(result.stdout, isolated_sandbox._ensure().backend.device_nodes) == []


MOUNTINFO = """\
1 0 8:1 / / rw,nosuid,nodev - ext4 /dev/sda1 rw
2 1 0:5 / /opt rw,relatime - tmpfs tmpfs rw
3 1 0:6 / /dev rw,nosuid - devtmpfs dev rw
4 3 0:6 /null /dev/null rw,nosuid - devtmpfs dev rw
5 1 0:7 / /home rw,relatime - ext4 /dev/sda2 rw
6 5 0:8 / /home rw,nosuid,nodev - tmpfs tmpfs rw
7 1 0:9 / /srv/a rw - tmpfs tmpfs rw
8 1 0:10 / /srv rw,nosuid,nodev - tmpfs tmpfs rw
9 1 0:11 / /my\\040data rw,nosuid - ext4 /dev/sdb rw
"""


def test_the_mount_check_finds_every_reachable_unsafe_mount():
    # /opt (a mount point that is exactly a standard directory), /dev (devices but not a device node),
    # a name with a space; not /home (covered by a tmpfs), not /srv/a (under a sibling mounted at /srv),
    # not /dev/null (a device node needs devices)
    assert unsafe_mounts(MOUNTINFO, ["/dev/null"]) == [
        "/dev (no nodev)",
        "/my data (no nodev)",
        "/opt (no nosuid, nodev)",
    ]


# A private mount namespace with the layout: /etc/opt is itself a mount point (a tmpfs, which allows
# set-uid programs and devices), holding set-uid-root copies of `id` and `cat`, and a device node (that
# of /dev/zero: harmless). The sandbox is built inside it, so its holder inherits the layout.
SUID_SCRIPT = r"""
import json, os, shutil, subprocess, sys
assert os.path.isdir("/etc/opt")  # an existing visible tree, no toolchain root: mounted over, never created
import atexit
atexit.register(lambda: subprocess.run(["umount", "-l", "/etc/opt"]))
subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755,size=16m", "tmpfs", "/etc/opt"], check=True)
for tool in ("id", "cat"):
    shutil.copy("/usr/bin/" + tool, "/etc/opt/suid-" + tool)
    os.chown("/etc/opt/suid-" + tool, 0, 0)
    os.chmod("/etc/opt/suid-" + tool, 0o4755)
os.mknod("/etc/opt/zero-node", 0o20666, os.makedev(1, 5))
os.chmod("/etc/opt/zero-node", 0o666)
from rewardloop.sandbox import Sandbox
probe = '''
import json, os, subprocess
report = {"euid": subprocess.run(["/etc/opt/suid-id", "-u"], capture_output=True, text=True).stdout.strip()}
shadow = subprocess.run(["/etc/opt/suid-cat", "/etc/shadow"], capture_output=True, text=True)
report["shadow"] = shadow.returncode == 0 and "root:" in shadow.stdout
try:
    with open("/etc/opt/zero-node", "rb") as fh:
        report["device"] = len(fh.read(4))
except OSError as exc:
    report["device"] = exc.errno
report["opt_flags"] = [l.split()[5] for l in open("/proc/self/mountinfo") if l.split()[4] == "/etc/opt"]
print(json.dumps(report))
'''
with Sandbox(isolation=ISOLATION) as sb:
    result = sb.run(probe)
print(json.dumps({"stdout": result.stdout, "status": result.status.value, "error": result.error}))
"""


@pytest.mark.parametrize("isolation", ISOLATED or ["unshare"])
def test_a_set_uid_root_binary_on_its_own_mount_point_gives_nothing(isolation):
    _as_root_with_unshare()
    if isolation not in ISOLATED:
        pytest.skip(f"isolation={isolation!r} is not available here")
    out = _script(SUID_SCRIPT.replace("ISOLATION", repr(isolation)), private_mounts=True)
    assert out["status"] == "finished", out
    report = json.loads(out["stdout"])
    assert report["euid"] not in ("", "0"), report  # the set-uid bit did nothing
    assert report["shadow"] is False
    assert report["device"] == 13  # EACCES: the device node on /etc/opt cannot be opened (nodev)
    flags = [set(f.split(",")) for f in report["opt_flags"]]
    assert flags and all({"nosuid", "nodev"} <= f for f in flags)


HOLDER_FAILS = r"""
import json, os, signal, subprocess
assert os.path.isdir("/etc/opt")  # an existing visible tree, no toolchain root: mounted over, never created
import atexit
atexit.register(lambda: subprocess.run(["umount", "-l", "/etc/opt"]))
subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755,size=1m", "tmpfs", "/etc/opt"], check=True)
os.mkdir("/etc/opt/answers")
from rewardloop.sandbox import Sandbox
with Sandbox(isolation="unshare", hidden_paths=["/etc/opt/answers"]) as sb:
    first = sb.run("print(1)")
    holder = sb._ensure().backend._holder
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    os.rmdir("/etc/opt/answers")  # the next holder cannot cover it: it must not run anything
    second = sb.run("print(2)")
print(json.dumps([first.status.value, second.status.value, second.error]))
"""


def test_a_holder_that_cannot_set_up_its_mounts_runs_nothing():
    _as_root_with_unshare()
    if "unshare" not in ISOLATED:
        pytest.skip("isolation='unshare' is not available here")
    first, second, error = _script(HOLDER_FAILS, private_mounts=True)
    assert first == "finished"
    assert second == "sandbox_error" and "mount holder failed to start" in error


# ---------------------------------------------------------------------------------------------- keyrings

KEYS = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
SESSION, USER = -3, -4
L = ctypes.c_long

def add(desc, ring):
    return libc.syscall(L(ADD_KEY), b"user", desc.encode(), b"v", ctypes.c_size_t(1), L(ring))

def search(desc, ring):
    return libc.syscall(L(KEYCTL), L(10), L(ring), b"user", desc.encode(), L(0))

def read(key):
    buf = ctypes.create_string_buffer(64)
    n = libc.syscall(L(KEYCTL), L(11), L(key), buf, ctypes.c_size_t(64))
    return buf.raw[:n].decode() if n >= 0 else None
"""
KEY_PROBE = (
    KEYS
    + r"""
found = {
    "caller": [search("rewardloop-caller-secret", SESSION), read(int(sys.argv[1]))],
    "previous": [search("rewardloop-run-key", SESSION), search("rewardloop-run-key", USER)],
    "previous_by_id": [read(int(k)) for k in sys.argv[2:]],
    "listed": "rewardloop-" in open("/proc/keys").read(),
}
mine = [add("rewardloop-run-key", SESSION), add("rewardloop-run-key", USER)]
print(json.dumps({"found": found, "mine": mine, "own": [read(k) for k in mine]}))
"""
)
KEY_SCRIPT = (
    KEYS
    + r"""
libc.syscall(L(KEYCTL), L(1), None)  # a session keyring of our own: the test process's stays clean
secret = add("rewardloop-caller-secret", SESSION)
assert secret > 0 and read(secret) == "v"
from rewardloop.sandbox import Sandbox
with Sandbox(isolation=ISOLATION) as sb:
    first = json.loads(sb.run(PROBE, args=[str(secret)]).stdout)
    second = json.loads(sb.run(PROBE, args=[str(secret), *map(str, first["mine"])]).stdout)
print(json.dumps([first, second]))
"""
)


def _keyring_runs(isolation: str, user: int | None = None) -> tuple[dict, dict]:
    code = KEY_SCRIPT.replace("ISOLATION", repr(isolation)).replace("PROBE", repr(KEY_PROBE))
    first, second = _script(code, user=user)
    return first, second


def _keyctl_known() -> None:
    if os.uname().machine not in ("x86_64", "aarch64"):
        pytest.skip("the probe knows the keyctl system call numbers of x86_64 and aarch64 only")


@pytest.mark.parametrize("isolation", ISOLATED or ["unshare"])
def test_each_run_gets_a_fresh_empty_session_keyring(isolation):
    if isolation not in ISOLATED:
        pytest.skip(f"isolation={isolation!r} is not available here")
    _keyctl_known()
    first, second = _keyring_runs(isolation)
    # keyrings work inside (a key in the user keyring is the uid's, not possessed: not readable)
    assert all(k > 0 for k in first["mine"]) and first["own"][0] == "v"
    for run in (first, second):
        assert run["found"]["caller"][0] < 0 and run["found"]["caller"][1] is None  # the caller's key
        assert run["found"]["listed"] is False
    assert all(k < 0 for k in second["found"]["previous"])  # the previous run's keys, by name ...
    assert second["found"]["previous_by_id"] == [None, None]  # ... and by number


# ---------------------------------------------------------------------------------------------- compile cache

PEEK = r"""
#include <dirent.h>
#include <stdio.h>
#include <fcntl.h>
int main(int argc, char **argv) {
    DIR *d = opendir(argv[1]);
    printf("cache:%s\n", d ? "listed" : "hidden");
    printf("peer:%s\n", open(argv[2], O_RDONLY) >= 0 ? "read" : "hidden");
    DIR *here = opendir(".");
    struct dirent *e;
    while ((e = readdir(here)) != NULL)
        if (e->d_name[0] != '.') printf("cwd:%s\n", e->d_name);
    return 0;
}
"""


def test_a_run_sees_only_its_own_build(isolated_sandbox):
    skip_unless(isolated_sandbox, "c")
    peer = isolated_sandbox.run('#include <stdio.h>\nint main(void) { puts("peer answer"); }', "c")
    assert peer.ok and peer.stdout == "peer answer\n", peer
    cache = isolated_sandbox._ensure().cache_dir
    builds = [os.path.join(cache, e, "main") for e in os.listdir(cache) if not e.startswith(".")]
    builds = [b for b in builds if os.path.exists(b)]
    probe = isolated_sandbox.run(PEEK, "c", args=[cache, builds[0]])
    assert probe.ok, probe
    assert probe.stdout.splitlines() == ["cache:hidden", "peer:hidden", "cwd:main"]
    other = isolated_sandbox.run("import os, sys\nprint(os.path.exists(sys.argv[1]))", args=[builds[0]])
    assert other.stdout == "False\n"  # nor from a program of another language


def test_the_build_cannot_be_changed_by_its_run(isolated_sandbox):
    skip_unless(isolated_sandbox, "c")
    code = (
        '#include <stdio.h>\nint main(void) { FILE *f = fopen("main", "w");\n'
        '  puts(f ? "rewritten" : "read-only"); }'
    )
    first = isolated_sandbox.run(code, "c")
    again = isolated_sandbox.run(code, "c")
    assert first.stdout == again.stdout == "read-only\n", (first, again)


def test_a_build_over_the_entry_cap_is_used_once_and_not_kept(tmp_path):
    with Sandbox(cache_dir=str(tmp_path / "cache"), cache_max_mb=4) as sb:  # entry cap: 1 MB
        skip_unless(sb, "c")
        big = (  # a 3 MB initialised array: in the binary
            "#include <stdio.h>\nchar data[3 << 20] = {1, 2, 3};\n"
            'int main(int argc, char **argv) { printf("%d\\n", data[argc - 1]); }'
        )
        first = sb.run(big, "c")
        assert first.ok and first.stdout == "1\n", first
        assert sb._ensure().cache.total_bytes() < 1 << 20  # the 3 MB build is gone after its run
        assert sb.run(big, "c").ok and sb._compiles == 2  # so it is compiled again
        small = '#include <stdio.h>\nint main(void) { puts("small"); }'
        assert sb.run(small, "c").ok and sb.run(small, "c").ok and sb._compiles == 3  # small ones stay


def _fake_build(tmp_path, name: str, size: int) -> str:
    path = tmp_path / "builds" / name
    path.mkdir(parents=True)
    (path / "main").write_bytes(os.urandom(size))
    return str(path / "main")


def test_the_cache_evicts_the_least_recently_used_entries(tmp_path):
    from rewardloop.sandbox._cache import CompileCache
    from rewardloop.sandbox._types import RunResult

    root = tmp_path / "cache"
    root.mkdir()
    cache = CompileCache(str(root), max_bytes=1 << 20)
    ok = RunResult(status=RunStatus.FINISHED, exit_code=0)
    keys = [f"{i:064x}" for i in range(6)]
    for i, key in enumerate(keys[:4]):
        assert cache.store(key, ok, _fake_build(tmp_path, key, 200_000)) == key
        os.utime(root / key / "result.json", (1000 + i, 1000 + i))  # distinct, ordered last uses
    assert cache.load(keys[0]) is not None  # now the most recently used
    with cache.using(keys[1]):  # in use: kept whatever its age
        cache.store(keys[4], ok, _fake_build(tmp_path, keys[4], 200_000))
        cache.store(keys[5], ok, _fake_build(tmp_path, keys[5], 200_000))
    kept = sorted(p.name for p in root.iterdir() if not p.name.startswith("."))
    assert keys[2] not in kept and keys[3] not in kept  # the least recently used went first
    assert {keys[0], keys[1], keys[5]} <= set(kept)
    assert cache.total_bytes() <= 1 << 20


# ---------------------------------------------------------------------------------------------- mount plan


def test_a_toolchain_in_a_home_directory_exposes_only_itself(isolated_sandbox, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    shutil.copy(os.path.realpath(shutil.which("bash") or "/bin/bash"), home / "bin" / "bash")
    (home / ".npmrc").write_text("//registry.npmjs.org/:_authToken=secret-token\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home / 'bin'}:{os.environ['PATH']}")
    with Sandbox(isolation=isolated_sandbox.isolation) as sb:
        tc = sb._ensure().toolchains["bash"]
        assert tc is not None and tc.roots == (str(home / "bin" / "bash"),)
        code = 'cat "$1/.npmrc" 2>/dev/null || echo hidden; ls "$1"; ls "$1/bin"'
        result = sb.run(code, "bash", args=[str(home)])
    assert result.ok and result.stdout == "hidden\nbin\nbash\n", result


def test_no_cargo_fallback_when_rustc_cannot_name_its_sysroot(tmp_path, monkeypatch):
    from rewardloop.sandbox._languages import LANGUAGES

    if not shutil.which("cc"):
        pytest.skip("no cc: rust is unavailable here anyway")
    cargo_bin = tmp_path / ".cargo" / "bin"
    cargo_bin.mkdir(parents=True)
    (cargo_bin / "rustc").write_text("#!/bin/sh\necho 'error: no default toolchain' >&2\nexit 1\n")
    (cargo_bin / "rustc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{cargo_bin}:{os.environ['PATH']}")
    assert LANGUAGES["rust"].resolve() is None


def test_the_plan_never_keeps_the_root_or_a_home_visible():
    from rewardloop.sandbox._languages import _root_of
    from rewardloop.sandbox._mounts import plan_mounts

    assert _root_of("/bin/bash") == "/bin/bash"  # a host without merged /usr: not "/"
    assert _root_of(os.path.expanduser("~/bin/tool")) == os.path.expanduser("~/bin/tool")
    plan = plan_mounts([], ["/", "/bin", os.path.expanduser("~")])
    assert "/tmp" in plan.hidden and "/root" in plan.hidden
    assert [t for t, _ in plan.exposed if t in ("/", os.path.expanduser("~"))] == []


SYMLINK_SCRIPT = r"""
import json, os, subprocess
assert os.path.isdir("/etc/opt")  # an existing visible tree, no toolchain root: mounted over, never created
import atexit
atexit.register(lambda: subprocess.run(["umount", "-l", "/etc/opt"]))
subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755,size=1m", "tmpfs", "/etc/opt"], check=True)
os.makedirs("/etc/opt/real-answers")
with open("/etc/opt/real-answers/key.txt", "w") as fh:
    fh.write("42")
os.symlink("/etc/opt/real-answers", "/etc/opt/answers")
from rewardloop.sandbox import Sandbox
from rewardloop.sandbox._mounts import plan_mounts
plan = plan_mounts([], [], defaults=["/etc/opt/answers"])
with Sandbox(isolation=ISOLATION, hidden_paths=["/etc/opt/answers"]) as sb:
    seen = sb.run("import os\np = '/etc/opt/real-answers'\nprint(os.listdir(p) if os.path.isdir(p) else [])").stdout
print(json.dumps({"hidden": plan.hidden, "seen": seen}))
"""


@pytest.mark.parametrize("isolation", ISOLATED or ["unshare"])
def test_a_hidden_symlink_hides_its_target(isolation):
    _as_root_with_unshare()
    if isolation not in ISOLATED:
        pytest.skip(f"isolation={isolation!r} is not available here")
    out = _script(SYMLINK_SCRIPT.replace("ISOLATION", repr(isolation)), private_mounts=True)
    assert "/etc/opt/real-answers" in out["hidden"]  # a default hidden path that is a link
    assert out["seen"] == "[]\n"


# ---------------------------------------------------------------------------------------------- stdin, threads

STDIN_PROBE = r"""
import errno, os, stat, sys
kind = "pipe" if stat.S_ISFIFO(os.fstat(0).st_mode) else "other"
try:
    os.write(0, b"x")
    wrote = "wrote"
except OSError as exc:
    wrote = errno.errorcode[exc.errno]
try:
    with open("/proc/self/fd/0", "wb") as fh:
        reopened = "reopened"
except OSError as exc:
    reopened = errno.errorcode[exc.errno]
data = sys.stdin.buffer.read()
print(kind, wrote, reopened, len(data), data[:2].decode(), data[-2:].decode())
"""


def test_stdin_is_a_read_only_pipe(isolated_sandbox):
    stdin = b"ab" + b"x" * (3 << 20) + b"yz"  # more than any pipe buffer: fed while the program reads
    result = isolated_sandbox.run(STDIN_PROBE, stdin=stdin)
    kind, wrote, reopened, size, head, tail = result.stdout.split()
    assert (kind, wrote, head, tail, int(size)) == ("pipe", "EBADF", "ab", "yz", len(stdin)), result
    if os.geteuid() == 0:  # the pipe belongs to root; the run has a uid of its own
        assert reopened == "EACCES"


def test_a_program_that_ignores_a_large_stdin_still_finishes(any_sandbox):
    result = any_sandbox.run("print('done')", stdin=b"z" * (8 << 20))
    assert result.status is RunStatus.FINISHED and result.stdout == "done\n", result


def test_python_starts_200_threads(isolated_sandbox):
    if not isolated_sandbox._ensure().cgroups.has("memory"):
        pytest.skip("no memory cgroup: RLIMIT_DATA is the memory cap, and it counts thread stacks")
    code = (
        "import threading\nstop = threading.Event()\n"
        "threads = [threading.Thread(target=stop.wait) for _ in range(200)]\n"
        "for t in threads:\n    t.start()\nprint(sum(t.is_alive() for t in threads))\nstop.set()"
    )
    result = isolated_sandbox.run(code, limits=Limits(memory_mb=256, max_processes=256))
    assert result.ok and result.stdout == "200\n", result


# ---------------------------------------------------------------------------------------------- unprivileged

UNPRIVILEGED = r"""
import json, os
from rewardloop.sandbox import Sandbox
probe = '''
import json, os, socket
status = dict(l.split(":\\t", 1) for l in open("/proc/self/status").read().strip().split("\\n"))
try:
    open(CHECKOUT + "/pyproject.toml").read()
    checkout = "read"
except OSError as exc:
    checkout = type(exc).__name__
print(json.dumps({"uid": os.getuid(), "nnp": status["NoNewPrivs"].strip(), "bnd": status["CapBnd"].strip(),
                  "eff": status["CapEff"].strip(), "nics": sorted(n for _, n in socket.if_nameindex()),
                  "checkout": checkout, "mountinfo": open("/proc/self/mountinfo").read()}))
'''.replace("CHECKOUT", repr(CHECKOUT))
with Sandbox() as sb:
    result = sb.run(probe)
    devices = sb._ensure().backend.device_nodes
print(json.dumps({"isolation": sb.isolation, "me": os.getuid(), "out": result.stdout, "error": result.error,
                  "devices": devices}))
"""


def _nobody_with_bwrap() -> None:
    if os.geteuid() != 0 or "bwrap" not in ISOLATED or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root (to become nobody), bubblewrap and /usr/bin/python3")


def test_an_unprivileged_caller_is_isolated_by_bwrap():
    _nobody_with_bwrap()
    root = project_root()
    if root is None:
        pytest.skip("rewardloop is installed, not run from a checkout")
    out = _script(UNPRIVILEGED.replace("CHECKOUT", repr(root)), user=NOBODY)
    if out["isolation"] != "bwrap":
        pytest.skip(f"bubblewrap does not work for an unprivileged user here ({out['error']})")
    report = json.loads(out["out"])
    assert report["uid"] == out["me"] == NOBODY  # its own uid, in a user namespace
    assert (report["nnp"], report["bnd"], report["eff"]) == ("1", ZERO_CAPS, ZERO_CAPS)
    assert report["nics"] == ["lo"] and report["checkout"] == "FileNotFoundError"
    assert unsafe_mounts(report["mountinfo"], out["devices"]) == []


def test_an_unprivileged_callers_keys_stay_unreadable():
    _nobody_with_bwrap()
    _keyctl_known()
    first, second = _keyring_runs("bwrap", user=NOBODY)
    for run in (first, second):
        assert run["found"]["caller"][0] < 0 and run["found"]["caller"][1] is None
    assert all(k < 0 for k in second["found"]["previous"])
    assert second["found"]["previous_by_id"] == [None, None]

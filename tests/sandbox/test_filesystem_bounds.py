"""Where a program may write (issue 23, items 2 and 8): only its own, size-capped working directory.

Item 2: under bwrap as an unprivileged caller, the hidden directories (``/tmp``, the homes, ``/run`` ...)
and ``/dev`` were writable tmpfs mounts outside every memory limit (a 128 MB run wrote 224 MB).
Item 8: the host ``/`` was bound read-write, so any world-writable host directory (Ubuntu's
``/var/crash``) kept state across runs and took disk outside the quota. Both set-ups of the red-team:
root through unshare, nobody through bwrap.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys

import pytest

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux"),
    pytest.mark.sandbox,
]

# Try to create a file in every mount point and every well-known directory the program can see, except
# its working directory, /proc and /sys; print the ones that took it.
WRITABLE = r"""
import json, os, sys
cwd = os.getcwd()
points = {line.split()[4].replace("\\040", " ") for line in open("/proc/self/mountinfo")}
points |= set(sys.argv[1:])
points |= {"/tmp", "/var/tmp", "/dev/shm", "/dev", "/run", "/home", "/root", "/mnt", "/srv", "/media",
           "/var/crash", "/", "/var", "/etc", "/usr", "/opt", os.path.expanduser("~")}
writable = []
for p in sorted(points):
    if p == cwd or p.startswith(cwd + "/") or p.startswith(("/proc", "/sys")) or not os.path.isdir(p):
        continue
    name = os.path.join(p, ".rewardloop-probe-%d" % os.getpid())
    try:
        with open(name, "w") as fh:
            fh.write("x")
    except OSError:
        continue
    writable.append(p)
    os.unlink(name)
print(json.dumps(writable))
"""


@pytest.fixture
def world_writable_dir():
    """A world-writable (1777) directory under /var, as Ubuntu's /var/crash is: the host's disk, not hidden."""
    if os.geteuid() != 0:
        pytest.skip("needs root to make a directory under /var")
    path = f"/var/rewardloop-ww-{secrets.token_hex(4)}"
    os.mkdir(path)
    os.chmod(path, 0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_nothing_but_the_working_directory_is_writable(backend, world_writable_dir):
    result = backend("run", WRITABLE, args=[world_writable_dir])
    assert result["status"] == "finished", result
    assert json.loads(result["stdout"]) == [], result["stdout"]
    assert os.listdir(world_writable_dir) == []


def test_scratch_space_outside_the_working_directory_cannot_outgrow_the_memory_limit(backend):
    # the red-team's probe: 224 MB of tmpfs written by a 128 MB run
    code = (
        "import os\nblock = b'x' * (1 << 20)\nwritten = {}\n"
        "for d in ('/tmp', '/var/tmp', '/dev/shm', '/dev', '/run', '/home', '/root'):\n"
        "    n = 0\n"
        "    try:\n"
        "        with open(os.path.join(d, 'fill'), 'wb') as fh:\n"
        "            for _ in range(224):\n"
        "                fh.write(block)\n                n += 1\n"
        "    except OSError:\n        pass\n"
        "    written[d] = n\n"
        "print(max(written.values()))\n"
    )
    result = backend("run", code, limits={"memory_mb": 128, "wall_s": 30})
    assert result["status"] == "finished", result
    assert int(result["stdout"]) == 0


def test_the_working_directory_is_still_writable(backend):
    code = "open('out.txt', 'w').write('ok')\nprint(open('out.txt').read())"
    assert backend("run", code)["stdout"] == "ok\n"

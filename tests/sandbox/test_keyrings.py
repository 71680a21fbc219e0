"""Keys a run leaves in the kernel (issue 23, item 7).

The red-team's break: each run's random uid got a fresh key quota and its keys stayed in the kernel after
the run (about 77 kB per run, never freed), and random uids collide after tens of thousands of runs, when
a later run reads an earlier run's keys. Now runs take their uids from a small host-wide pool (a lock per
uid), and the launcher empties the uid's user, user-session and persistent keyrings before each run: the
number of uids holding keys stays bounded, and a run that reuses a uid finds nothing of the last one.
The tests hold on a host where earlier runs (and other tests) left keys behind.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux"),
    pytest.mark.sandbox,
]

PLANT = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
L = ctypes.c_long
USER, USER_SESSION, PROCESS = -4, -5, -2

def add(desc, ring):
    return libc.syscall(L(ADD_KEY), b"user", desc.encode(), b"v" * 64, ctypes.c_size_t(64), L(ring))

def search(desc, ring):
    return libc.syscall(L(KEYCTL), L(10), L(ring), b"user", desc.encode(), L(0))

persistent = libc.syscall(L(KEYCTL), L(22), L(-1), L(PROCESS))  # KEYCTL_GET_PERSISTENT
rings = {"user": USER, "user_session": USER_SESSION}
if persistent > 0:
    rings["persistent"] = persistent
found = {name: search("rewardloop-left-behind", ring) > 0 for name, ring in rings.items()}
planted = {name: add("rewardloop-left-behind", ring) > 0 for name, ring in rings.items()}
print(json.dumps({"uid": os.getuid(), "found": found, "planted": planted}))
"""


def _keyctl_known() -> None:
    if os.uname().machine not in ("x86_64", "aarch64"):
        pytest.skip("the probe knows the keyctl system call numbers of x86_64 and aarch64 only")


def test_a_run_never_finds_the_keys_an_earlier_run_left(backend):
    _keyctl_known()
    reports = [json.loads(backend("run", PLANT)["stdout"]) for _ in range(6)]
    assert reports[0]["planted"]["user"], reports[0]  # keyrings work inside: the probe can see a key
    for report in reports:
        assert not any(report["found"].values()), reports


def test_the_uids_holding_keys_stay_bounded(backend):
    _keyctl_known()
    reports = [json.loads(backend("run", PLANT)["stdout"]) for _ in range(30)]
    assert all(r["planted"]["user"] for r in reports)
    used = {r["uid"] for r in reports}
    # one run at a time: the same few uids again and again, not one uid (and one quota) per run. (Only
    # this test's own runs are counted: other processes on a shared host make and leave keys too.)
    assert len(used) <= 2, sorted(used)
    assert not any(any(report["found"].values()) for report in reports)


LOCK_OUT = (
    PLANT
    + r"""
# take away everyone's write permission on our own user keyring: it cannot be emptied any more
print(libc.syscall(L(KEYCTL), L(5), L(USER), L(0x01010000)), file=sys.stderr)  # KEYCTL_SETPERM: view only
"""
)


def test_a_uid_whose_keys_cannot_be_emptied_is_never_reused(backend):
    _keyctl_known()
    first = json.loads(backend("run", LOCK_OUT)["stdout"])
    later = [json.loads(backend("run", PLANT)["stdout"]) for _ in range(3)]
    assert first["planted"]["user"]
    for report in later:
        assert not any(report["found"].values()), (first, later)
        if backend.name == "unshare":
            assert report["uid"] != first["uid"]

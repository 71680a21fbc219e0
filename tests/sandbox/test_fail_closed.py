"""Isolation never degrades silently (issue 23, item 3).

The red-team's break: as an unprivileged user without bubblewrap, ``isolation="auto"`` fell back to
``none`` with a log line, and a run read a host file and reached 127.0.0.1. Now ``auto`` means "unshare or
bwrap, else refuse"; ``none`` only runs when it is named (the argument, or ``REWARDLOOP_SANDBOX_ISOLATION``).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys

import pytest

from .conftest import NOBODY, SRC

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux"),
    pytest.mark.sandbox,
]

# what a nobody without bubblewrap gets: every tool the sandbox uses, except bwrap
_TOOLS = ("prlimit", "setpriv", "sh", "unshare", "nsenter", "env")

SCRIPT = r"""
import json, os, sys
from rewardloop.errors import ConfigError
from rewardloop.sandbox import Sandbox, default_sandbox
out = {}
marker = sys.argv[1]
code = "open(%r, 'w').write('ran')" % marker
try:
    sb = Sandbox()
    out["auto"] = sb.isolation
    sb.run(code)
    sb.close()
except ConfigError as exc:
    out["auto"] = "refused: " + str(exc)
try:
    out["default"] = default_sandbox().isolation
except ConfigError as exc:
    out["default"] = "refused: " + str(exc)
try:
    import rewardloop
    spec = json.dumps({"inputs": [""], "outputs": ["1\n"]})
    out["score"] = rewardloop.default_compute_score("codecontests", "```python\n" + code + "\nprint(1)\n```", spec)
except Exception as exc:
    out["score"] = "raised %s: %s" % (type(exc).__name__, exc)
out["ran"] = os.path.exists(marker)
print(json.dumps(out))
"""


def _as_nobody_without_bwrap(tmp_path, code: str, *args: str, env: dict | None = None) -> dict:
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root (to become nobody) and /usr/bin/python3")
    import tempfile

    bindir = tempfile.mkdtemp(prefix="rewardloop-nobwrap-")  # nobody cannot cross pytest's tmp_path
    os.chmod(bindir, 0o755)
    for tool in _TOOLS:
        found = shutil.which(tool)
        if found:
            os.symlink(found, os.path.join(bindir, tool))
    argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    argv += ["/usr/bin/python3", "-c", code, *args]
    base = {"PATH": str(bindir), "PYTHONPATH": SRC, "HOME": "/tmp", "LANG": "C.UTF-8"}
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=300, env={**base, **(env or {})}, cwd="/tmp"
        )
    finally:
        shutil.rmtree(bindir, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_auto_refuses_when_no_isolation_works(tmp_path):
    marker = f"/tmp/rewardloop-fail-closed-{secrets.token_hex(6)}"
    try:
        out = _as_nobody_without_bwrap(tmp_path, SCRIPT, marker)
    finally:
        ran = os.path.exists(marker)
        if ran:
            os.unlink(marker)
    assert out["auto"].startswith("refused: ") and "isolation='none'" in out["auto"], out
    assert out["default"].startswith("refused: "), out
    # verl's contract: a failed sample gets on_error (0.0) and a logged failure; what matters is
    # that the program never ran
    assert out["score"] == 0.0, out
    assert not out["ran"] and not ran, out


def test_none_runs_only_when_named(tmp_path):
    marker = f"/tmp/rewardloop-fail-closed-{secrets.token_hex(6)}"
    try:
        out = _as_nobody_without_bwrap(tmp_path, SCRIPT, marker, env={"REWARDLOOP_SANDBOX_ISOLATION": "none"})
        ran = os.path.exists(marker)
    finally:
        if os.path.exists(marker):
            os.unlink(marker)
    # the argument "auto" still refuses; the environment names the process-wide default only
    assert out["auto"].startswith("refused: "), out
    assert out["default"] == "none" and out["score"] == 1.0 and out["ran"] and ran, out


def test_an_unknown_isolation_in_the_environment_is_refused(monkeypatch):
    from rewardloop.errors import ConfigError
    from rewardloop.sandbox import _sandbox

    monkeypatch.setenv("REWARDLOOP_SANDBOX_ISOLATION", "nonee")
    monkeypatch.setattr(_sandbox, "_default", None)
    with pytest.raises(ConfigError, match=r"REWARDLOOP_SANDBOX_ISOLATION.*auto, unshare, bwrap, none"):
        _sandbox.default_sandbox()

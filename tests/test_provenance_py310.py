"""The provenance fingerprint on the oldest Python the package supports (3.10), where ``object`` has no
``__getstate__`` (added in 3.11): describing a scorer that defines one used to raise AttributeError there.
Found by the type checker (mypy with python_version = 3.10)."""

import glob
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "rewardloop" / "_provenance.py"

PROGRAM = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("provenance", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

class WithState:
    def __init__(self):
        self.threshold = 0.5
    def __getstate__(self):
        return {"threshold": self.threshold}

class Plain:
    def __init__(self):
        self.threshold = 0.5

print(module.describe(WithState())["state"], module.describe(Plain())["state"], len(module.scorer_fingerprint(WithState())))
"""


def _python310() -> str | None:
    found = shutil.which("python3.10")
    candidates = ([found] if found else []) + sorted(glob.glob("/root/.pyenv/versions/3.10*/bin/python3.10"))
    for path in candidates:
        if subprocess.run([path, "-c", "pass"], capture_output=True).returncode == 0:
            return path
    return None


def test_describe_works_on_python_3_10():
    python = _python310()
    if python is None:
        pytest.skip("no Python 3.10 interpreter on this machine")
    result = subprocess.run([python, "-c", PROGRAM, str(SOURCE)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["{'threshold':", "0.5}", "{'threshold':", "0.5}", "16"]

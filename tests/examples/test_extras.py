"""Issue 25: the examples say which extras they need and, without them, stop with a message naming what is
missing (run in a subprocess whose imports of those modules fail, as in an environment without them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rewardloop.errors import MissingExtraError, require_extras

REPO = Path(__file__).resolve().parents[2]

# makes the named top-level modules unimportable, then runs the script as __main__
BLOCK = """
import runpy, sys
blocked = set(sys.argv[1].split(","))
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Block())
script = sys.argv[2]
sys.argv = [script, *sys.argv[3:]]
runpy.run_path(script, run_name="__main__")
"""


def _run(blocked: str, script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCK, blocked, str(REPO / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


@pytest.mark.parametrize(
    "script, blocked, says",
    [
        ("examples/verl/run_managers_locally.py", "torch,tokenizers", "rewardloop[models,torch]"),
        ("examples/trl/grpo_gsm8k.py", "trl,datasets", "pip install datasets trl"),
    ],
)
def test_an_example_without_its_extras_names_what_is_missing(script, blocked, says):
    proc = _run(blocked, script, *(["--tiny", "--data", "x"] if "trl" in script else []))
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    for module in blocked.split(","):
        assert module in proc.stderr
    assert says in proc.stderr


def test_the_openrlhf_example_runs_without_torch():
    proc = _run("torch", "examples/openrlhf/try_reward_func.py")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "rewards=[1.0]" in proc.stdout and "rewards=[0.0]" in proc.stdout


def test_require_extras_names_every_missing_module():
    require_extras({"json": "core"}, "me")  # present: no error
    with pytest.raises(MissingExtraError, match=r"me needs no_such_a, no_such_b.*rewardloop\[x,y\]' pkg"):
        require_extras({"no_such_a": "x", "no_such_b": "y", "no_such_c": "pip:pkg"}, "me")

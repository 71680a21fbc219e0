"""Shared helpers for the benchmarks: paths, the shared data folder, JSONL I/O, running the score worker.

The benchmarks compare rewardloop with verl 0.9.1, installed in its own virtual environment
(``.venv-verl``, created by ``bench/run_all.sh``). verl is only ever run as a subprocess
(``bench/_score_worker.py`` under ``.venv-verl/bin/python``), so the two never share an interpreter.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
RESULTS = BENCH / "results"
WORKER = BENCH / "_score_worker.py"
VERL_PYTHON = Path(os.environ.get("REWARDLOOP_VERL_PYTHON", REPO / ".venv-verl" / "bin" / "python"))
OURS_PYTHON = Path(os.environ.get("REWARDLOOP_PYTHON", REPO / ".venv" / "bin" / "python"))


def _main_checkout() -> Path:
    """The main checkout of this repository: REPO itself, or for a ``git worktree`` the checkout whose
    ``.git`` directory holds it (its ``.git`` is a file ``gitdir: <main>/.git/worktrees/<name>``)."""
    dot_git = REPO / ".git"
    if dot_git.is_file():
        text = dot_git.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            gitdir = Path(text.split(":", 1)[1].strip())
            if gitdir.parent.name == "worktrees":
                return gitdir.parent.parent.parent
    return REPO


def data_dir() -> Path | None:
    """The shared public-data folder (``$REWARDLOOP_SHARED_DATA``, else ``../shared/data`` next to the repo or,
    in a git worktree, next to its main checkout), or ``None`` when absent, with a warning on stderr: a bench
    then falls back to generated rows, and its numbers are not the documented ones."""
    if "REWARDLOOP_SHARED_DATA" in os.environ:
        candidates = [Path(os.environ["REWARDLOOP_SHARED_DATA"])]
    else:
        candidates = [REPO.parent / "shared" / "data", _main_checkout().parent / "shared" / "data"]
    for path in candidates:
        if path.is_dir():
            return path
    print(
        f"warning: no shared data at {', '.join(map(str, candidates))}: generated rows stand in (set REWARDLOOP_SHARED_DATA)",
        file=sys.stderr,
    )
    return None


def load_make_rollouts() -> ModuleType:
    """Import ``examples/make_rollouts.py`` (examples/ is not a package)."""
    path = REPO / "examples" / "make_rollouts.py"
    spec = importlib.util.spec_from_file_location("make_rollouts", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_rollouts"] = module
    spec.loader.exec_module(module)
    return module


def read_jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | Path) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


def write_json(obj: Any, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=2, ensure_ascii=False, sort_keys=False)
        fh.write("\n")


def verl_available() -> bool:
    if not VERL_PYTHON.exists():
        return False
    probe = [str(VERL_PYTHON), "-c", "import verl.utils.reward_score"]
    return subprocess.run(probe, capture_output=True, timeout=300).returncode == 0


def run_worker(python: Path, impl: str, mode: str, inp: Path, out: Path, *extra: str) -> None:
    """Run ``_score_worker.py`` under ``python``; raise with its stderr tail if it fails."""
    cmd = [
        str(python),
        str(WORKER),
        "--impl",
        impl,
        "--mode",
        mode,
        "--input",
        str(inp),
        "--output",
        str(out),
    ]
    proc = subprocess.run([*cmd, *extra], cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    if proc.stderr.strip():
        print(proc.stderr.strip()[-2000:], file=sys.stderr)


def clear_scorer_caches() -> int:
    """Empty this process's data caches of rewardloop's scorers (every ``lru_cache`` of more than one entry:
    parsed and normalised texts, sympy forms), so a timed pass does not reuse what an earlier pass over the
    same responses computed: in training every step brings new responses. One-time set-up caches (imports,
    the LaTeX parser) stay. Returns how many caches were emptied."""
    import functools

    emptied = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("rewardloop.scorers") or module is None:
            continue
        for obj in vars(module).values():
            if isinstance(obj, functools._lru_cache_wrapper) and obj.cache_parameters()["maxsize"] not in (
                1,
                None,
            ):
                obj.cache_clear()
                emptied += 1
    memo = sys.modules.get("rewardloop.scorers._latex_predict")
    if memo is not None:  # the LaTeX parser's prediction memo is learned from the responses it parsed
        memo.clear()
        emptied += 1
    return emptied


def versions() -> dict[str, str]:
    """Versions of the two implementations, for the result files."""
    out: dict[str, str] = {"python": sys.version.split()[0]}
    try:
        from importlib.metadata import version

        out["rewardloop"] = version("rewardloop")
    except Exception:  # not installed as a distribution
        out["rewardloop"] = "unknown"
    if VERL_PYTHON.exists():
        code = "import importlib.metadata as m; print(m.version('verl'))"
        proc = subprocess.run([str(VERL_PYTHON), "-c", code], capture_output=True, text=True)
        out["verl"] = proc.stdout.strip() or "unknown"
    return out

"""The external-outputs bench: its split keeps a problem's responses together, its metrics count adjudicated
labels, and the build skips cleanly without the mirrors it reads."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_split_is_deterministic_balanced_and_per_source() -> None:
    build = _load("external_outputs_build")
    keys = [f"problem {i}" for i in range(2000)]
    first = [build.split_of("src", k) for k in keys]
    assert first == [build.split_of("src", k) for k in keys]
    assert 900 < first.count("dev") < 1100  # a hash split, not all in one half
    other = [build.split_of("other", k) for k in keys]
    assert first != other  # the source name is part of the key


def test_build_skips_cleanly_without_mirrors(tmp_path: Path) -> None:
    env = {
        "REWARDLOOP_MIRRORS": str(tmp_path / "none"),
        "REWARDLOOP_SHARED_DATA": str(tmp_path / "none"),
        "PATH": "",
    }
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "external_outputs_build.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    for source in ("processbench", "gaokao_mcq", "gaokao_fill", "mmlupro", "omnimath"):
        assert f"{source}: skipped" in proc.stderr
    assert not (out / "dev").exists()


def test_evaluate_counts_source_and_adjudicated_labels(tmp_path: Path, monkeypatch) -> None:
    bench = _load("external_outputs")
    monkeypatch.setattr(bench, "ADJUDICATION", tmp_path)
    (tmp_path / "toy.jsonl").write_text(
        '{"id": "b", "split": "dev", "verdict": true, "reason": "r"}\n', encoding="utf-8"
    )
    rows = [
        {"id": "a", "label": True, "split": "dev"},
        {"id": "b", "label": False, "split": "dev"},  # adjudicated: actually correct
        {"id": "c", "label": False, "split": "test"},
    ]
    verdicts = {"math_equiv": [True, True, True], "math_verify": [False, False, False]}
    out = bench.evaluate("toy", rows, verdicts)
    dev = out["dev"]
    assert dev["disputed"] == 2 and dev["unadjudicated_disputed"] == 1  # "a" is disputed by math_verify only
    assert dev["labels_changed_by_adjudication"] == 1
    assert dev["math_equiv"]["vs_source_labels"] == {"n": 2, "agreement": 0.5, "fp": 1, "fn": 0, "tp": 1}
    assert dev["math_equiv"]["vs_adjudicated"] == {"n": 2, "agreement": 1.0, "fp": 0, "fn": 0, "tp": 2}
    assert dev["math_verify"]["vs_adjudicated"]["fn"] == 2
    assert out["test"]["math_equiv"]["vs_adjudicated"]["fp"] == 1
    assert out["all"]["n"] == 3

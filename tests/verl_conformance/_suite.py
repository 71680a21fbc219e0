"""Run verl 0.9.1's own ``*_on_cpu.py`` reward tests (``../shared/reference/verl-tests``, unmodified) in the verl
interpreter, with or without the substitution plugin, and read back every test's outcome.

Used by ``test_verl_suite.py``; also a command for the numbers in the docs::

    python -m tests.verl_conformance._suite [--verl]     # --verl: against verl's own entry points

Expectations live here, next to the code that checks them: how many tests each file holds, how many of them
use a substituted entry point, and the deliberate differences (a verl test that fails against rewardloop on
purpose, with the reason and the test of ours that pins our behaviour; docs/verl-differences.md lists them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VERL_TESTS = REPO / ".." / "shared" / "reference" / "verl-tests"
VERL_PYTHON = Path(os.environ.get("REWARDLOOP_VERL_PYTHON", REPO / ".venv-verl" / "bin" / "python"))
PLUGIN = "tests.verl_conformance.plugin"

#: file (relative to verl-tests) -> (tests collected, tests that use a substituted entry point)
EXPECTED_FILES: dict[str, tuple[int, int]] = {
    "tests/experimental/reward_loop/test_async_token_bucket_on_cpu.py": (16, 0),
    "tests/experimental/reward_loop/test_rate_limited_reward_manager_on_cpu.py": (13, 13),
    "tests/trainer/ppo/v1/test_compute_reward_colocate_on_cpu.py": (11, 0),
    "tests/utils/reward_score/reward_score/test_sandbox_fusion_on_cpu.py": (15, 0),
    "tests/utils/reward_score/test_sandbox_on_cpu.py": (6, 4),
    "tests/workers/reward_manager/test_dapo_on_cpu.py": (6, 6),
    "tests/workers/reward_manager/test_naive_on_cpu.py": (5, 2),
    "tests/workers/reward_manager/test_registry_on_cpu.py": (7, 7),
}


@dataclass(frozen=True)
class Difference:
    """A verl test that fails against rewardloop on purpose (``outcome="failed"``), or passes without
    testing anything of ours (``outcome="passed"``, vacuous: it is not counted as conformance)."""

    reason: str
    pinned_by: str  # "path/to/test_file.py::test_name" of ours
    outcome: str = "failed"


_PINS = "tests/verl_conformance/test_differences.py"

DIFFERENCES: dict[str, Difference] = {
    "tests/experimental/reward_loop/test_rate_limited_reward_manager_on_cpu.py::"
    "TestRateLimitedRewardManager::test_class_initialization_once": Difference(
        "verl keeps the rate limiters in class attributes (_semaphore, ...); rewardloop keeps them on the "
        "manager's runner and has no class-level state, so the test compares None with None",
        f"{_PINS}::test_rate_limits_live_on_the_runner_not_the_class",
        outcome="passed",
    ),
}


@dataclass
class SuiteResult:
    outcomes: dict[str, str]  # nodeid -> passed / failed / skipped / error
    skip_reasons: dict[str, str]
    report: dict  # the plugin's report
    returncode: int
    output: str

    def per_file(self) -> dict[str, Counter]:
        out: dict[str, Counter] = {}
        for nodeid, outcome in self.outcomes.items():
            out.setdefault(nodeid.split("::")[0], Counter())[outcome] += 1
        return out

    def substituted(self) -> dict[str, list[str]]:
        """nodeid -> the substituted names the test uses (only tests that use one)."""
        return {k: v for k, v in self.report.get("tests", {}).items() if v}


def verl_files() -> list[str]:
    return sorted(str(p.relative_to(VERL_TESTS)) for p in VERL_TESTS.glob("tests/**/*_on_cpu.py"))


def build_tokenizer_home(home: Path) -> None:
    """The Qwen-like tokenizer verl's rate-limited test loads from ``~/models/...``, under ``home``."""
    subprocess.run(
        [str(VERL_PYTHON), "-m", "tests.verl_conformance.tokenizer", str(home)],
        check=True,
        capture_output=True,
        text=True,
        env=_env(home),
        cwd=REPO,
        timeout=300,
    )


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SANDBOX_FUSION_URL"}
    env.update(
        HOME=str(home),
        PYTHONPATH=os.pathsep.join([str(REPO / "src"), str(REPO)]),
        TOKENIZERS_PARALLELISM="false",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    return env


def run_suite(workdir: Path, *, plugin: bool, timeout_s: float = 1500) -> SuiteResult:
    """Run every ``*_on_cpu.py`` file with ``HOME=workdir/home`` (the tokenizer is built there first)."""
    home = workdir / "home"
    build_tokenizer_home(home)
    ini = workdir / "pytest.ini"
    ini.write_text("[pytest]\nasyncio_mode = strict\n")
    junit = workdir / "junit.xml"
    report = workdir / "report.json"
    cmd = [
        str(VERL_PYTHON),
        "-m",
        "pytest",
        "-c",
        str(ini),
        "--rootdir",
        str(VERL_TESTS.resolve()),
        "-p",
        "no:cacheprovider",
        "-q",
        "-rA",
        f"--junitxml={junit}",
    ]
    cmd += ["-p", PLUGIN, f"--rewardloop-report={report}"]
    if not plugin:  # verl's own entry points; the plugin only classifies the tests
        cmd += ["--rewardloop-no-substitute"]
    cmd += [str((VERL_TESTS / f).resolve()) for f in verl_files()]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(home), cwd=REPO, timeout=timeout_s)
    output = proc.stdout + proc.stderr
    if not junit.exists():
        raise RuntimeError(f"verl's suite did not run (exit {proc.returncode}):\n{output[-6000:]}")
    outcomes, reasons = parse_junit(junit)
    data = json.loads(report.read_text()) if report.exists() else {}
    return SuiteResult(outcomes, reasons, data, proc.returncode, output)


def parse_junit(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """nodeid -> outcome from pytest's junit XML (classname ``tests.a.test_b.Cls`` + name)."""
    outcomes: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for case in ET.parse(path).iter("testcase"):
        nodeid = _nodeid(case.get("classname", ""), case.get("name", ""))
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                reasons[nodeid] = child.get("message") or ""
                break
        if outcomes.get(nodeid) in ("failed", "error"):  # a teardown error is reported as a second case
            continue
        outcomes[nodeid] = outcome
    return outcomes, reasons


def _nodeid(classname: str, name: str) -> str:
    parts = classname.split(".")
    for i in range(len(parts), 0, -1):
        candidate = "/".join(parts[:i]) + ".py"
        if (VERL_TESTS / candidate).exists():
            return "::".join([candidate, *parts[i:], name])
    return f"{classname}::{name}"


def summary(result: SuiteResult) -> str:
    """A per-file table: tests, passed, failed, skipped, and of the substituted ones how many passed."""
    subs = result.substituted()
    lines = [f"{'file':<72} {'tests':>5} {'pass':>5} {'fail':>5} {'skip':>5} {'subst pass':>11}"]
    for file, counts in sorted(result.per_file().items()):
        sub_ids = [n for n in subs if n.startswith(file + "::")]
        sub_ran = [n for n in sub_ids if result.outcomes.get(n) != "skipped"]
        sub_pass = sum(result.outcomes.get(n) == "passed" for n in sub_ran)
        lines.append(
            f"{file:<72} {sum(counts.values()):>5} {counts['passed']:>5} "
            f"{counts['failed'] + counts['error']:>5} {counts['skipped']:>5} {sub_pass:>5}/{len(sub_ran):<5}"
        )
    return "\n".join(lines)


def main() -> None:
    plugin = "--verl" not in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        result = run_suite(Path(tmp), plugin=plugin)
    print(summary(result))
    for nodeid, outcome in sorted(result.outcomes.items()):
        if outcome in ("failed", "error"):
            print(f"{outcome.upper()} {nodeid}: {result.skip_reasons.get(nodeid, '')[:200]}")


if __name__ == "__main__":
    main()

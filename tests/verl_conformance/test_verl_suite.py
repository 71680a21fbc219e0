"""verl 0.9.1's own reward tests as rewardloop's conformance suite.

Every ``*_on_cpu.py`` file of ``../shared/reference/verl-tests`` runs unmodified in the verl interpreter, once
against verl itself and once with ``-p tests.verl_conformance.plugin``, which points verl's reward entry points
(classic and loop managers, both registries, ``default_compute_score``) at rewardloop's. The outcomes come from
pytest's junit XML; the plugin's report says which tests use a substituted name. ``HOME`` is a temporary
directory holding a locally built Qwen-like tokenizer (verl's rate-limited test loads one from ``~/models``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ._suite import (
    DIFFERENCES,
    EXPECTED_FILES,
    PLUGIN,
    REPO,
    VERL_PYTHON,
    VERL_TESTS,
    SuiteResult,
    _env,
    run_suite,
    summary,
    verl_files,
)


def _verl_has_pytest_asyncio() -> bool:
    """Cheap for a venv (a look at its site-packages); an interpreter named by REWARDLOOP_VERL_PYTHON is asked."""
    if not VERL_PYTHON.exists():
        return False
    if "REWARDLOOP_VERL_PYTHON" not in os.environ:
        site = list((VERL_PYTHON.parent.parent / "lib").glob("python*/site-packages"))
        return any((s / "pytest_asyncio").is_dir() and (s / "verl").is_dir() for s in site)
    probe = subprocess.run(
        [str(VERL_PYTHON), "-c", "import pytest, pytest_asyncio, verl"], capture_output=True, timeout=120
    )
    return probe.returncode == 0


pytestmark = [
    pytest.mark.verl,
    pytest.mark.slow,
    # the module fixtures run verl's whole suite in a subprocess (its own bound: 300 s for the tokenizer plus
    # run_suite's 1500 s); pytest-timeout's 300 s default counts fixture setup and fired under heavy load
    pytest.mark.timeout(1900),
    pytest.mark.skipif(not VERL_TESTS.is_dir(), reason=f"verl's tests are not at {VERL_TESTS}"),
    pytest.mark.skipif(
        not _verl_has_pytest_asyncio(),
        reason=f"no verl interpreter with pytest and pytest-asyncio at {VERL_PYTHON} (make verl-venv)",
    ),
]

#: entry points that must have been replaced in verl's own modules (a subset of the plugin's report)
REQUIRED = {
    "verl.workers.reward_manager.naive:NaiveRewardManager": "NaiveRewardManager",
    "verl.workers.reward_manager.dapo:DAPORewardManager": "DAPORewardManager",
    "verl.workers.reward_manager.batch:BatchRewardManager": "BatchRewardManager",
    "verl.workers.reward_manager.prime:PrimeRewardManager": "PrimeRewardManager",
    "verl.workers.reward_manager:RateLimitedRewardManager": "RateLimitedRewardManager",
    "verl.workers.reward_manager.registry:register": "register(kind='classic')",
    "verl.workers.reward_manager.registry:get_reward_manager_cls": "get_reward_manager_cls(kind='classic')",
    "verl.workers.reward_manager.registry:REWARD_MANAGER_REGISTRY": "rewardloop registry dict",
    "verl.experimental.reward_loop.reward_manager.naive:NaiveRewardManager": "LoopNaiveRewardManager",
    "verl.experimental.reward_loop.reward_manager.dapo:DAPORewardManager": "LoopDAPORewardManager",
    "verl.experimental.reward_loop.reward_manager.remote:RemoteRewardManager": "RemoteRewardManager",
    "verl.experimental.reward_loop.reward_manager.limited:RateLimitedRewardManager": "RateLimitedRewardManager",
    "verl.experimental.reward_loop.reward_manager.gdpo:GDPORewardManager": "LoopGDPORewardManager",
    "verl.experimental.reward_loop.reward_manager:GDPORewardManager": "LoopGDPORewardManager",
    "verl.experimental.reward_loop.reward_manager.registry:register": "register(kind='loop')",
    "verl.experimental.reward_loop.reward_manager.registry:REWARD_MANAGER": "rewardloop registry dict",
    "verl.utils.reward_score:default_compute_score": "default_compute_score",
    "verl.workers.reward_manager.naive:default_compute_score": "default_compute_score",
    "verl.experimental.reward_loop.reward_manager.limited:default_compute_score": "default_compute_score",
}


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> SuiteResult:
    result = run_suite(tmp_path_factory.mktemp("ours"), plugin=True)
    print(summary(result))
    return result


@pytest.fixture(scope="module")
def theirs(tmp_path_factory: pytest.TempPathFactory) -> SuiteResult:
    result = run_suite(tmp_path_factory.mktemp("verl"), plugin=False)
    print(summary(result))
    return result


def _check_counts(result: SuiteResult) -> None:
    """Every file ran, with the expected number of tests, and the expected number use substituted names."""
    per_file = result.per_file()
    assert sorted(per_file) == sorted(EXPECTED_FILES), result.output[-3000:]
    subs = result.substituted()
    for file, (n_tests, n_substituted) in EXPECTED_FILES.items():
        assert sum(per_file[file].values()) == n_tests, (file, per_file[file])
        assert sum(n.startswith(file + "::") for n in subs) == n_substituted, file
        assert per_file[file]["error"] == 0, (file, result.output[-3000:])
    for nodeid, outcome in result.outcomes.items():
        if outcome == "skipped":  # only the tests that need a SandboxFusion server skip
            assert "SANDBOX_FUSION_URL" in result.skip_reasons[nodeid], nodeid


def _failed(result: SuiteResult, nodeids: list[str]) -> dict[str, str]:
    return {n: result.skip_reasons.get(n, "")[:300] for n in nodeids if result.outcomes[n] != "passed"}


def test_every_on_cpu_file_of_verl_is_in_the_suite():
    assert verl_files() == sorted(EXPECTED_FILES)


def test_verl_passes_its_own_suite(theirs):
    """The harness (tokenizer under a temporary HOME, interpreter, plugin in report-only mode) is sound."""
    assert theirs.report["substituted"] is False
    _check_counts(theirs)
    ran = [n for n, o in theirs.outcomes.items() if o != "skipped"]
    assert _failed(theirs, ran) == {}
    assert theirs.returncode == 0


def test_the_plugin_replaced_verls_entry_points_with_ours(ours):
    assert ours.report["substituted"] is True
    replaced = ours.report["replaced"]
    for key, ours_name in REQUIRED.items():
        assert key in replaced, key
        assert replaced[key].startswith("rewardloop") and ours_name in replaced[key], (key, replaced[key])
    modules = {Path(k).name: v for k, v in ours.report["modules"].items()}
    assert modules["test_naive_on_cpu.py"] == ["NaiveRewardManager"]
    assert modules["test_dapo_on_cpu.py"] == ["DAPORewardManager", "RewardLoopDAPORewardManager"]
    assert modules["test_rate_limited_reward_manager_on_cpu.py"] == ["RateLimitedRewardManager"]
    assert set(modules["test_registry_on_cpu.py"]) == {
        "REWARD_MANAGER_REGISTRY",
        "get_reward_manager_cls",
        "register",
    }
    assert modules["test_sandbox_on_cpu.py"] == ["default_compute_score"]


def test_verls_tests_pass_against_rewardloop(ours):
    """Every test that uses one of our entry points passes, except the listed deliberate differences."""
    _check_counts(ours)
    subs = [n for n in ours.substituted() if ours.outcomes[n] != "skipped"]
    assert len(subs) == 31
    unexpected = _failed(ours, [n for n in subs if n not in DIFFERENCES])
    assert unexpected == {}, summary(ours)
    for nodeid, difference in DIFFERENCES.items():
        assert ours.outcomes[nodeid] == difference.outcome, (nodeid, ours.skip_reasons.get(nodeid))
    conforming = [n for n in subs if n not in DIFFERENCES]
    assert len(conforming) == 30 and all(ours.outcomes[n] == "passed" for n in conforming)


def test_tests_of_verls_own_helpers_still_pass(ours):
    """The tests that use none of our names (verl's token bucket, sandbox client, trainer helpers) are
    verl's code; they must be unaffected by the substitution."""
    others = [n for n, o in ours.outcomes.items() if n not in ours.substituted() and o != "skipped"]
    assert len(others) == 35
    assert _failed(ours, others) == {}


def test_the_plugin_refuses_a_test_module_that_holds_verls_original(tmp_path):
    """Not vacuous: a test module that gets verl's own manager past the plugin (here by reloading verl's
    module) is a usage error at collection, not a silent pass against verl."""
    test = tmp_path / "test_leak.py"
    test.write_text(
        "import importlib\n"
        "import verl.workers.reward_manager.naive as naive\n"
        "from rewardloop.integrations.verl import _managers\n"
        "_managers._CLASSIC.pop('naive')  # let verl's module register its own class again\n"
        "importlib.reload(naive)\n"
        "from verl.workers.reward_manager.naive import NaiveRewardManager\n\n"
        "def test_uses_it():\n"
        "    assert NaiveRewardManager\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    proc = subprocess.run(
        [str(VERL_PYTHON), "-m", "pytest", "-c", str(tmp_path / "pytest.ini"), "-p", PLUGIN, str(test)],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        cwd=REPO,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 4, out[-3000:]  # pytest's usage-error exit code
    assert "verl originals not substituted" in out and "NaiveRewardManager" in out

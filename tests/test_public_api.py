"""Guards the public surface: a curated, sorted __all__ and a cheap import."""

import json
import subprocess
import sys

import rewardloop

EXPECTED = {
    "ConfigError",
    "CustomFunctionError",
    "InfraError",
    "InvalidSampleError",
    "MissingExtraError",
    "RateLimited",
    "RayRunner",
    "RewardConfig",
    "RewardLoopError",
    "RewardManager",
    "Runner",
    "RunnerConfig",
    "Sample",
    "Score",
    "ScoreBatch",
    "Scorer",
    "ScoringError",
    "ScoringTimeout",
    "Status",
    "UnknownScorerError",
    "UnknownTaskError",
    "WorkerCrashed",
    "__version__",
    "as_scorer",
    "default_compute_score",
    "get_scorer",
    "load_reward_config",
    "register_route",
    "register_scorer",
    "score",
    "score_many",
}


def test_all_is_sorted_and_curated():
    assert rewardloop.__all__ == sorted(rewardloop.__all__)
    assert set(rewardloop.__all__) == EXPECTED


def test_every_public_name_resolves():
    for name in rewardloop.__all__:
        assert getattr(rewardloop, name) is not None


def test_unknown_attribute_raises():
    try:
        rewardloop.does_not_exist  # noqa: B018
    except AttributeError as exc:
        assert "does_not_exist" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_import_is_cheap():
    code = (
        "import sys, json, rewardloop; "
        "heavy = ['torch', 'ray', 'fastapi', 'transformers', 'sympy', 'numpy', 'math_verify', 'pyarrow']; "
        "print(json.dumps([m for m in heavy if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_managers_and_verl_facades_import_cheaply():
    code = (
        "import sys, json, rewardloop.managers, rewardloop.integrations.verl, rewardloop.config; "
        "heavy = ['torch', 'ray', 'fastapi', 'transformers', 'numpy', 'yaml', 'omegaconf']; "
        "print(json.dumps([m for m in heavy if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []

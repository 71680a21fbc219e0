"""verl's reward config: parsing, validation with named errors, and legacy migration."""

from __future__ import annotations

import warnings

import pytest

from rewardloop.config import (
    OverlongBufferConfig,
    RewardConfig,
    load_reward_config,
    migrate_legacy_config,
)
from rewardloop.errors import ConfigError

FULL = {
    "num_workers": 4,
    "custom_reward_function": {"path": "my_reward.py", "name": "fn", "reward_kwargs": {"alpha": 0.5}},
    "reward_manager": {"source": "register", "name": "dapo", "module": {"path": None, "name": "x"}},
    "reward_kwargs": {
        "overlong_buffer_cfg": {"enable": True, "len": 4096, "penalty_factor": 1.0, "log": True},
        "max_resp_len": 20480,
    },
    "reward_model": {
        "enable": True,
        "enable_resource_pool": True,
        "n_gpus_per_node": 2,
        "nnodes": 1,
        "model_path": "/models/rm",
        "rollout": {"name": "vllm", "tensor_model_parallel_size": 1},
    },
    "sandbox_fusion": {"url": "http://127.0.0.1:8080/run_code", "max_concurrent": 8, "memory_limit_mb": 512},
    "max_concurrent": 4,
    "max_rpm": 600,
    "max_tpm": 60000,
    "estimated_tokens_per_request": 500,
    "timeout": 30,
    "runner": {"workers": 2, "on_error": 0.0},
    "backend": "local",
}


def test_every_verl_key_is_parsed():
    cfg = load_reward_config(FULL)
    assert cfg.num_workers == 4
    assert cfg.custom_reward_function.path == "my_reward.py"
    assert cfg.custom_reward_function.reward_kwargs == {"alpha": 0.5}
    assert cfg.reward_manager.name == "dapo" and cfg.reward_manager.module.name == "x"
    assert cfg.overlong == (OverlongBufferConfig(True, 4096, 1.0, True), 20480)
    assert cfg.reward_model.model_path == "/models/rm" and cfg.reward_model.rollout["name"] == "vllm"
    assert cfg.sandbox_fusion.max_concurrent == 8
    assert (cfg.max_rpm, cfg.max_tpm, cfg.timeout) == (600.0, 60000.0, 30.0)
    assert cfg.runner.given() == {"on_error": 0.0, "workers": 2}


def test_defaults_match_verl():
    cfg = load_reward_config(None)
    assert cfg == RewardConfig()
    assert cfg.num_workers == 8 and cfg.reward_manager.name == "naive"
    assert cfg.custom_reward_function.name == "compute_score"
    assert cfg.sandbox_fusion.max_concurrent == 64 and cfg.sandbox_fusion.memory_limit_mb == 1024
    assert (cfg.max_concurrent, cfg.estimated_tokens_per_request, cfg.timeout) == (1, 2000, 300.0)


def test_round_trip():
    cfg = load_reward_config(FULL)
    assert load_reward_config(cfg.as_dict()) == cfg


def test_trainer_config_reads_reward_section():
    cfg = load_reward_config({"trainer": {"n_gpus_per_node": 8}, "reward": {"num_workers": 2}})
    assert cfg.num_workers == 2


@pytest.mark.parametrize(
    "data, needle",
    [
        ({"num_worker": 2}, "unknown key(s) 'num_worker' in reward; allowed: backend"),
        ({"reward_manager": {"nam": "x"}}, "unknown key(s) 'nam' in reward.reward_manager"),
        ({"sandbox_fusion": {"url": "u", "timeout": 3}}, "'timeout' in reward.sandbox_fusion"),
        ({"num_workers": 0}, "reward.num_workers must be an integer >= 1"),
        ({"num_workers": "8"}, "reward.num_workers must be an integer"),
        ({"backend": "spark"}, "reward.backend must be one of local, ray"),
        (
            {"reward_manager": {"source": "pip"}},
            "reward.reward_manager.source must be one of register, importlib",
        ),
        ({"reward_manager": {"source": "importlib"}}, "reward.reward_manager.module.path must be set"),
        ({"reward_model": {"enable": True}}, "reward.reward_model.model_path must be set"),
        ({"reward_model": {"enable": "yes"}}, "reward.reward_model.enable must be true or false"),
        ({"runner": {"workerz": 2}}, "unknown key(s) 'workerz' in reward.runner"),
        ({"max_rpm": -1}, "reward.max_rpm must be a positive number"),
        (
            {"custom_reward_function": {"path": "f.py", "reward_kwargs": [1]}},
            "reward_kwargs must be a mapping",
        ),
        (
            {"reward_kwargs": {"overlong_buffer_cfg": {"enable": True, "len": 8}}},
            "max_resp_len must be provided",
        ),
        (
            {"reward_kwargs": {"overlong_buffer_cfg": {"enable": True, "len": 128}, "max_resp_len": 64}},
            "max_resp_len must be larger than or equal to reward.reward_kwargs.overlong_buffer_cfg.len (64 < 128)",
        ),
        (
            {"reward_kwargs": {"overlong_buffer_cfg": {"enable": True, "len": 0}, "max_resp_len": 64}},
            "overlong_buffer_cfg.len must be > 0",
        ),
        ({"reward_kwargs": {"overlong_buffer_cfg": {"enable": True, "lenght": 8}}}, "'lenght'"),
    ],
)
def test_errors_name_the_key_and_the_allowed_values(data, needle):
    with pytest.raises(ConfigError) as err:
        load_reward_config(data)
    assert needle in str(err.value)


def test_disabled_overlong_needs_nothing():
    cfg = load_reward_config({"reward_kwargs": {"overlong_buffer_cfg": {"enable": False, "len": 8}}})
    assert cfg.overlong[0] == OverlongBufferConfig(False, 8, 1.0, False)


def test_yaml_file(tmp_path):
    path = tmp_path / "reward.yaml"
    path.write_text("reward:\n  num_workers: 3\n  reward_manager:\n    name: prime\n")
    cfg = load_reward_config(path)
    assert cfg.num_workers == 3 and cfg.reward_manager.name == "prime"
    with pytest.raises(ConfigError, match="not found"):
        load_reward_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("reward: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_reward_config(bad)


def test_omegaconf_node():
    omegaconf = pytest.importorskip("omegaconf")
    node = omegaconf.OmegaConf.create(
        {"reward": {"num_workers": 5, "reward_manager": {"name": "${oc.env:RM_NAME,naive}"}}}
    )
    cfg = load_reward_config(node)
    assert cfg.num_workers == 5 and cfg.reward_manager.name == "naive"


LEGACY = {
    "custom_reward_function": {"path": "legacy.py", "name": "score_fn"},
    "sandbox_fusion": {"url": "http://127.0.0.1:9/run_code", "max_concurrent": 4, "memory_limit_mb": None},
    "reward_model": {
        "enable": False,
        "reward_manager": "dapo",
        "num_workers": 3,
        "reward_kwargs": {
            "overlong_buffer_cfg": {"enable": True, "len": 16, "penalty_factor": 0.5},
            "max_resp_len": 64,
        },
        "model": {"path": None},
    },
    "trainer": {},
}


def test_legacy_keys_are_migrated_with_a_warning_naming_the_new_key():
    with pytest.warns(DeprecationWarning) as record:
        cfg = load_reward_config(LEGACY)
    messages = [str(w.message) for w in record]
    assert any("'reward_model.reward_manager'" in m and "'reward.reward_manager.name'" in m for m in messages)
    assert any("'custom_reward_function'" in m and "'reward.custom_reward_function'" in m for m in messages)
    assert any("'reward_model.num_workers'" in m and "'reward.num_workers'" in m for m in messages)
    assert cfg.reward_manager.name == "dapo"
    assert cfg.custom_reward_function.path == "legacy.py" and cfg.custom_reward_function.name == "score_fn"
    assert cfg.num_workers == 3
    assert cfg.sandbox_fusion.url == "http://127.0.0.1:9/run_code" and cfg.sandbox_fusion.max_concurrent == 4
    assert cfg.overlong[1] == 64


def test_new_keys_win_over_legacy_ones_and_input_is_not_mutated():
    import copy

    root = {**copy.deepcopy(LEGACY), "reward": {"reward_manager": {"name": "naive"}}}
    before = copy.deepcopy(root)
    with pytest.warns(DeprecationWarning):
        reward = migrate_legacy_config(root)
    assert reward["reward_manager"] == {"name": "naive"}
    assert root == before


def test_null_legacy_blocks_are_silent():
    root = {
        "reward": {"num_workers": 2},
        "custom_reward_function": {"path": None, "name": "compute_score"},
        "sandbox_fusion": {"url": None, "max_concurrent": None, "memory_limit_mb": None},
        "reward_model": {"reward_manager": None, "model": {"path": None}},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cfg = load_reward_config(root)
    assert cfg.num_workers == 2 and cfg.custom_reward_function.path is None


def test_the_runner_section_is_parsed_once_into_a_runner_config():
    from rewardloop import RunnerConfig

    cfg = load_reward_config({"runner": {"timeout_s": 5, "workers": 3}})
    assert isinstance(cfg.runner, RunnerConfig)
    assert (cfg.runner.timeout_s, cfg.runner.workers, cfg.runner.retries) == (5, 3, RunnerConfig().retries)
    # it remembers what the section set, so defaults of a caller (the CLI, the rate-limited manager) apply under it
    assert cfg.runner.given() == {"timeout_s": 5, "workers": 3}
    layered = cfg.runner.with_defaults(workers=2, dedup=False)
    assert (layered.workers, layered.dedup, layered.timeout_s) == (3, False, 5)
    changed = cfg.runner.replace(on_error=None)
    assert changed.given() == {"on_error": None, "timeout_s": 5, "workers": 3}
    # the section round-trips as written, so the fingerprint does not depend on this machine's CPU count
    assert cfg.as_dict()["runner"] == {"timeout_s": 5, "workers": 3}
    assert RewardConfig.from_dict(cfg.as_dict()) == cfg and load_reward_config(None).as_dict()["runner"] == {}
    assert RewardConfig.from_dict(cfg.as_dict()).fingerprint() == cfg.fingerprint()


def test_a_runner_mapping_given_to_reward_config_is_parsed_and_checked():
    import dataclasses

    from rewardloop import RunnerConfig

    cfg = dataclasses.replace(RewardConfig(), runner={"cache_size": 8})
    assert isinstance(cfg.runner, RunnerConfig) and cfg.runner.given() == {"cache_size": 8}
    with pytest.raises(ConfigError, match=r"reward\.runner: workers must be an integer >= 1"):
        RewardConfig(runner={"workers": 0})
    # a RunnerConfig built directly counts the fields that differ from the defaults as given
    assert RunnerConfig(timeout_s=2.0).given() == {"timeout_s": 2.0}


def test_the_rate_limited_manager_fills_only_what_the_runner_section_leaves_open():
    from rewardloop.managers import runner_config_from

    cfg = load_reward_config({"max_concurrent": 4, "max_rpm": 60, "runner": {"dedup": True}})
    limited = runner_config_from(cfg, rate_limits=True)
    assert (limited.dedup, limited.max_concurrency, limited.rpm, limited.timeout_s) == (True, 4, 60.0, 300.0)
    assert runner_config_from(cfg) is cfg.runner

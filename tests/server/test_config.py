"""``ServerConfig`` and the service YAML: sections, unknown keys, checked values, loopback detection."""

from __future__ import annotations

import pytest

from rewardloop.config import RewardConfig
from rewardloop.errors import ConfigError
from rewardloop.server import ServerConfig, is_loopback, load_service_config


def test_two_sections(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "server:\n  port: 9001\n  max_batch: 8\n  openrlhf_task: openai/gsm8k\n"
        "reward:\n  runner: {timeout_s: 5}\n  sandbox_fusion: {url: http://x/run_code}\n"
    )
    server, reward = load_service_config(path)
    assert server.port == 9001 and server.max_batch == 8 and server.openrlhf_task == "openai/gsm8k"
    assert server.host == "127.0.0.1" and server.token is None
    assert reward.runner.given() == {"timeout_s": 5} and reward.sandbox_fusion.url == "http://x/run_code"


def test_a_reward_section_alone_and_a_trainer_config(tmp_path):
    server, reward = load_service_config({"custom_reward_function": {"path": "f.py"}})
    assert server == ServerConfig() and reward.custom_reward_function.path == "f.py"
    server, reward = load_service_config({"reward": {"num_workers": 3}, "trainer": {}})
    assert server == ServerConfig() and reward.num_workers == 3
    assert load_service_config(None) == (ServerConfig(), RewardConfig())


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"server": {"max_inflight": 3}}, "max_in_flight"),
        ({"server": {}, "rewards": {}}, "allowed: reward, server"),
        ({"server": {"max_batch": 10, "max_in_flight": 5}}, "max_batch"),
        ({"server": {"port": -1}}, "server.port"),
        ({"server": {"request_timeout_s": 0}}, "request_timeout_s"),
        ({"server": {"openrlhf_on_error": float("nan")}}, "finite"),
        ({"server": {"token": "  "}}, "token"),
        ({"server": {"sandbox": "yes"}}, "true or false"),
        ({"server": {}, "reward": {"runner": {"timeout": 3}}}, "timeout_s"),
        ({"server": []}, "mapping"),
    ],
)
def test_bad_configs_fail_fast_naming_the_key(data, message):
    with pytest.raises(ConfigError, match=message):
        load_service_config(data)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_service_config(tmp_path / "nope.yaml")


def test_replace_ignores_none_and_hides_the_token():
    cfg = ServerConfig().replace(port=None, host="0.0.0.0", token="t")
    assert cfg.port == 8000 and cfg.host == "0.0.0.0"
    assert cfg.public_dict()["token"] == "***"


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.0.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.5", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback

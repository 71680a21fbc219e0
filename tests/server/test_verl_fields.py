"""Issue 25: ``/v1/score`` takes verl's field names (``data_source``, ``reward_model.ground_truth``,
``extra_info``) as documented aliases; ``/metrics`` has reward and accuracy per task; a failed sample's
reward is the one the CLI writes for the same config."""

from __future__ import annotations

import re

import pytest
import yaml

pytest.importorskip("fastapi")

from tests.cli._util import read_jsonl, row, run_cli, write_jsonl

from .conftest import start_server

pytestmark = pytest.mark.server

CONFIG = {"server": {"sandbox": False}, "reward": {"runner": {"workers": 1, "on_error": -0.5}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    proc = start_server(tmp_path_factory.mktemp("verl_fields"), CONFIG)
    yield proc
    proc.stop()


def _post(server, samples):
    with server.client() as client:
        return client.post("/v1/score", json={"samples": samples})


def test_verl_field_names_score_like_the_native_ones(server):
    native = {"response": "#### 4", "ground_truth": "4", "task": "openai/gsm8k", "metadata": {"split": "x"}}
    verl = {
        "response": "#### 4",
        "data_source": "openai/gsm8k",
        "reward_model": {"style": "rule", "ground_truth": "4"},
        "extra_info": {"split": "x"},
    }
    a, b = _post(server, [native]), _post(server, [verl])
    assert a.status_code == b.status_code == 200, b.text
    assert a.json()["scores"] == b.json()["scores"]
    assert b.json()["scores"][0]["reward"] == 1.0


@pytest.mark.parametrize(
    "sample, says",
    [
        ({"response": "x", "task": "a", "data_source": "b"}, "give one of 'task' or 'data_source'"),
        ({"response": "x", "ground_truth": "1", "reward_model": {"ground_truth": "1"}}, "not both"),
        ({"response": "x", "reward_model": {"style": "rule"}}, "reward_model needs a 'ground_truth'"),
        ({"response": "x", "solution": "1"}, "accepted: response, ground_truth"),
    ],
)
def test_mixed_or_unknown_fields_are_422_naming_what_is_accepted(server, sample, says):
    reply = _post(server, [sample])
    assert reply.status_code == 422 and says in reply.text, reply.text


def test_metrics_have_reward_and_accuracy_per_task(server):
    samples = [
        {"response": "#### 7", "ground_truth": "7", "task": "openai/gsm8k"},
        {"response": "#### 8", "ground_truth": "7", "task": "openai/gsm8k"},
        {"response": "Answer: 3", "ground_truth": "3", "task": "math_dapo"},
    ]
    with server.client() as client:  # one connection: one worker's metrics
        before = client.get("/metrics").text
        assert client.post("/v1/score", json={"samples": samples}).status_code == 200
        text = client.get("/metrics").text

    def value(text, name, task):
        m = re.search(rf'^{name}{{task="{re.escape(task)}"}} (\S+)$', text, re.M)
        return float(m.group(1)) if m else 0.0

    scored = value(text, "rewardloop_task_samples_total", "math_dapo") - value(
        before, "rewardloop_task_samples_total", "math_dapo"
    )
    assert scored == 1.0
    assert value(text, "rewardloop_task_accuracy", "math_dapo") == 1.0
    gsm_n = value(text, "rewardloop_task_samples_total", "openai/gsm8k")
    assert gsm_n >= 2
    assert 0.0 <= value(text, "rewardloop_task_accuracy", "openai/gsm8k") < 1.0
    assert "# TYPE rewardloop_task_reward_mean gauge" in text


def test_a_failed_samples_reward_is_the_clis(server, tmp_path):
    reply = _post(server, [{"response": "x", "ground_truth": "1", "task": "no_such_source"}])
    scored = reply.json()["scores"][0]
    assert scored["status"] == "invalid_input" and scored["reward"] == -0.5
    config = tmp_path / "reward.yaml"
    config.write_text(yaml.safe_dump({"reward": CONFIG["reward"]}))
    src = write_jsonl(
        tmp_path / "in.jsonl", [row("no_such_source", "1", "x"), row("openai/gsm8k", "1", "#### 1")]
    )
    out = tmp_path / "out.jsonl"
    run_cli("score", src, "--config", config, "-o", out, "--max-failure-rate", "1")
    assert read_jsonl(out)[0]["score"] == scored["reward"]

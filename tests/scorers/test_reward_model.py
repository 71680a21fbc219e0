"""DisRM scorer: verl's input text (chat template, EOS stripped, BOS dropped), scores from a real
embedded server on loopback, and failures as statuses."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
pytest.importorskip("starlette")

from rewardloop import Runner, Sample, Status, get_scorer
from rewardloop.errors import ConfigError
from rewardloop.models import RetryPolicy, ServerThread, free_port
from rewardloop.models._server import EmbeddedServerConfig, ModelRunner, create_server_app
from rewardloop.scorers.reward_model import RewardModelScorer

pytestmark = pytest.mark.server

CHAT = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "what is two plus two ?"}]


@pytest.fixture(scope="module")
def rm(tmp_path_factory):
    from tests.models._tiny import build_model

    path = build_model(tmp_path_factory.mktemp("tiny-rm"), "classify")
    runner = ModelRunner(EmbeddedServerConfig(str(path), threads=1))
    return path, runner


@pytest.fixture(scope="module")
def server(rm):
    path, runner = rm
    config = EmbeddedServerConfig(str(path), served_model_name="tiny-rm")
    with ServerThread(create_server_app(config, runner)) as thread:
        yield thread


@pytest.fixture(scope="module")
def scorer(rm, server):
    _path, runner = rm
    return RewardModelScorer(server.address, "tiny-rm", runner.tokenizer)


def test_input_text_follows_verl(scorer):
    sample = Sample(response="4 </s></s>", prompt=CHAT)
    text = scorer.input_text(sample)
    assert (
        text
        == "<|system|> be brief <|end|> <|user|> what is two plus two ? <|end|> <|assistant|> 4  <|end|> "
    )
    assert not text.startswith("<s>") and "</s>" not in text


def test_raw_prompt_in_metadata_and_text_prompts(scorer):
    from_meta = Sample(response="4", metadata={"raw_prompt": CHAT})
    assert scorer.input_text(from_meta) == scorer.input_text(Sample(response="4", prompt=CHAT))
    assert scorer.input_text(Sample(response="4", prompt="hello")).startswith("<|user|> hello <|end|>")


def test_scores_equal_the_model_on_the_same_text(scorer, rm):
    _, runner = rm
    batch = [Sample(response=f"the answer is {i} .", prompt=CHAT) for i in range(6)]
    result = Runner(max_concurrency=6).run_sync(scorer, batch)
    assert [s.status for s in result] == [Status.OK] * 6
    want = [logits[-1] for logits, _ in runner.classify([scorer.input_text(s) for s in batch])]
    assert [s.value for s in result] == pytest.approx(want, abs=1e-4)


def test_sync_score_facade(scorer):
    score = scorer.score(Sample(response="4", prompt=CHAT))
    assert score.ok and isinstance(score.value, float)


def test_sglang_protocol_gives_the_same_value(scorer, server, rm):
    sglang = RewardModelScorer(server.address, "tiny-rm", rm[1].tokenizer, protocol="sglang")
    sample = Sample(response="4", prompt=CHAT)
    assert sglang.score(sample).value == pytest.approx(scorer.score(sample).value, abs=1e-5)


def test_missing_prompt_is_invalid_input_not_zero(scorer):
    score = scorer.score(Sample(response="4"))
    assert score.status is Status.INVALID_INPUT and score.value is None
    assert "raw_prompt" in score.info["error"]


def test_server_down_is_infra_error(rm):
    down = RewardModelScorer(
        f"127.0.0.1:{free_port()}", "tiny-rm", rm[1].tokenizer, retry=RetryPolicy(attempts=2, backoff_s=0.01)
    )
    result = Runner(retries=1, backoff_base_s=0.01).run_sync(down, [Sample(response="4", prompt=CHAT)])
    assert result[0].status is Status.INFRA_ERROR and result.stats["status"]["infra_error"] == 1


def test_registered_by_name(server, rm):
    scorer = get_scorer("reward_model", address=server.address, model="tiny-rm", tokenizer=str(rm[0]))
    assert isinstance(scorer, RewardModelScorer)
    assert scorer.score(Sample(response="4", prompt=CHAT)).ok
    with pytest.raises(ConfigError, match="allowed"):
        RewardModelScorer(server.address, "m", protocol="trtllm")

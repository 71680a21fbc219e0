"""The embedded reward-model server, in-process on loopback: protocols, batching, errors."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from rewardloop.errors import ConfigError
from rewardloop.models import ServerThread
from rewardloop.models._server import EmbeddedServerConfig, ModelRunner, create_server_app, detect_kind

pytestmark = pytest.mark.server

TEXTS = [
    "<|user|> what is two plus two ? <|end|> <|assistant|> 4 <|end|>",
    "hello world",
    "the answer is 5 .",
]


@pytest.fixture(scope="module")
def rm_runner(rm_path):
    return ModelRunner(EmbeddedServerConfig(str(rm_path), threads=1))


@pytest.fixture(scope="module")
def rm_server(rm_path, rm_runner):
    config = EmbeddedServerConfig(
        str(rm_path), served_model_name="tiny-rm", batch_wait_ms=50, max_batch_size=8
    )
    with ServerThread(create_server_app(config, rm_runner)) as thread:
        yield thread


def direct_logits(path, texts):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    out = []
    with torch.inference_mode():
        for text in texts:  # one at a time: no padding involved
            out.append(model(**tok(text, return_tensors="pt")).logits[0].tolist())
    return out


def test_detect_kind(rm_path, lm_path, tmp_path):
    assert detect_kind(str(rm_path)) == "classify"
    assert detect_kind(str(lm_path)) == "generate"
    with pytest.raises(ConfigError):
        detect_kind(str(tmp_path))


def test_classify_returns_raw_logits_matching_the_model(rm_path, rm_server):
    body = httpx.post(
        rm_server.url + "/classify", json={"model": "tiny-rm", "input": TEXTS, "use_activation": False}
    ).json()
    got = [row["probs"] for row in body["data"]]
    for g, want in zip(got, direct_logits(rm_path, TEXTS), strict=True):
        assert g == pytest.approx(want, abs=1e-4)
    assert body["model"] == "tiny-rm" and body["usage"]["prompt_tokens"] > 0


def test_classify_activation_is_a_sigmoid_for_one_label(rm_server):
    raw = httpx.post(
        rm_server.url + "/classify", json={"input": "hello world", "use_activation": False}
    ).json()
    act = httpx.post(rm_server.url + "/classify", json={"input": "hello world"}).json()
    x = raw["data"][0]["probs"][0]
    assert act["data"][0]["probs"][0] == pytest.approx(1 / (1 + 2.718281828459045 ** (-x)), rel=1e-5)


def test_embeddings_carry_the_same_score(rm_server):
    emb = httpx.post(rm_server.url + "/v1/embeddings", json={"input": "hello world"}).json()
    cls = httpx.post(
        rm_server.url + "/classify", json={"input": "hello world", "use_activation": False}
    ).json()
    assert emb["data"][-1]["embedding"][-1] == pytest.approx(cls["data"][-1]["probs"][-1], abs=1e-5)


def test_concurrent_requests_are_batched_and_padding_does_not_change_scores(rm_path, rm_server):
    texts = [TEXTS[i % 3] + " ?" * (i % 4) for i in range(16)]

    async def go():
        async with httpx.AsyncClient(timeout=30) as client:
            return await asyncio.gather(
                *(
                    client.post(rm_server.url + "/classify", json={"input": t, "use_activation": False})
                    for t in texts
                )
            )

    answers = asyncio.run(go())
    scores = [r.json()["data"][0]["probs"][0] for r in answers]
    for got, want in zip(scores, direct_logits(rm_path, texts), strict=True):
        assert got == pytest.approx(want[0], abs=1e-4)
    metrics = httpx.get(rm_server.url + "/metrics").text
    max_batch = float(
        next(line.split()[1] for line in metrics.splitlines() if line.startswith("rewardloop_rm_max_batch"))
    )
    assert max_batch > 1


@pytest.mark.parametrize("payload", [{"input": ""}, {"input": []}, {"input": 3}, {}])
def test_bad_input_is_400(rm_server, payload):
    answer = httpx.post(rm_server.url + "/classify", json=payload)
    assert answer.status_code == 400 and "input" in answer.json()["error"]["message"]


def test_wrong_endpoint_for_the_model_kind_is_400(rm_server):
    answer = httpx.post(
        rm_server.url + "/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]}
    )
    assert answer.status_code == 400


def test_health_and_models(rm_server):
    assert httpx.get(rm_server.url + "/health").status_code == 200
    assert httpx.get(rm_server.url + "/v1/models").json()["data"][0]["id"] == "tiny-rm"


def test_chat_completions_with_a_causal_lm(lm_path):
    config = EmbeddedServerConfig(str(lm_path), served_model_name="tiny-lm", threads=1)
    with ServerThread(create_server_app(config)) as thread:
        payload = {
            "messages": [{"role": "user", "content": "what is two plus two ?"}],
            "max_tokens": 4,
            "temperature": 0,
        }
        first = httpx.post(thread.url + "/v1/chat/completions", json=payload, timeout=30).json()
        second = httpx.post(thread.url + "/v1/chat/completions", json=payload, timeout=30).json()
        assert (
            first["choices"][0]["message"]["content"] == second["choices"][0]["message"]["content"]
        )  # greedy
        assert first["usage"]["completion_tokens"] <= 4
        assert first["choices"][0]["finish_reason"] in ("stop", "length")
        assert httpx.post(thread.url + "/classify", json={"input": "x"}).status_code == 400
        bad = httpx.post(thread.url + "/v1/chat/completions", json={"messages": []})
        assert bad.status_code == 400

"""The OpenRLHF adapter, called the way OpenRLHF's ``SingleTurnAgentExecutor`` calls a reward file.

OpenRLHF (0.10) loads the file with ``importlib.util.spec_from_file_location("reward_func", path)``, takes
its ``reward_func``, and calls it positionally with one-element lists from worker threads
(``asyncio.to_thread(reward_func, [query], [prompt], [label])``, gathered concurrently); the query is the
prompt plus response decoded with special tokens. It reads ``rewards``, then ``scores or rewards``, then
``extra_logs``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import pytest

from rewardloop import Sample, Score, Scorer
from rewardloop.errors import ConfigError, ScoringError
from rewardloop.integrations import openrlhf
from rewardloop.integrations.openrlhf import make_reward_func, response_from_query

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "<|im_start|>user\nWhat is 6*7?<|im_end|>\n<|im_start|>assistant\n"


def query(response: str, prompt: str = PROMPT, eos: str = "<|im_end|>") -> str:
    return prompt + response + eos


@pytest.fixture
def fn():
    made = []

    def _make(*args, **kwargs):
        f = make_reward_func(*args, **kwargs)
        made.append(f)
        return f

    yield _make
    for f in made:
        f.close()


@pytest.mark.parametrize(
    "q,prompt,expected",
    [
        (PROMPT + "#### 42<|im_end|>", PROMPT, "#### 42"),
        (PROMPT + "#### 42<|im_end|><|endoftext|>\n", PROMPT, "#### 42"),
        (PROMPT + "no eos", PROMPT, "no eos"),
        # the prompt was truncated from the left before generation: its tail still locates the response
        (PROMPT[20:] + "#### 42</s>", PROMPT, "#### 42"),
        ("just text", "", "just text"),
        ("unrelated query", PROMPT, "unrelated query"),
    ],
)
def test_response_from_query(q, prompt, expected):
    assert response_from_query(q, prompt) == expected


def test_shapes_and_values(fn):
    f = fn(data_source="openai/gsm8k")
    out = f([query("#### 42"), query("#### 41")], [PROMPT, PROMPT], ["42", "42"])
    assert set(out) == {"rewards", "scores", "extra_logs"}
    for value in [out["rewards"], out["scores"], *out["extra_logs"].values()]:
        assert isinstance(value, torch.Tensor) and value.dtype == torch.float32 and value.shape == (2,)
    assert out["rewards"].tolist() == [1.0, 0.0]
    assert out["extra_logs"]["rewardloop_failed"].tolist() == [0.0, 0.0]
    assert make_reward_func(data_source="openai/gsm8k", return_tensors=False)(
        [query("#### 42")], [PROMPT], ["42"]
    )["rewards"] == [1.0]


def test_scores_carry_accuracy_for_signed_rewards(fn):
    f = fn(data_source="math_dapo")  # DAPO: reward +1 / -1, acc metric True / False
    out = f([query("Answer: 42"), query("Answer: 7")], [PROMPT, PROMPT], ["42", "42"])
    assert out["rewards"].tolist() == [1.0, -1.0]
    assert out["scores"].tolist() == [1.0, 0.0]
    assert out["extra_logs"]["acc"].tolist() == [1.0, 0.0]


def test_labels_in_verl_layout_carry_their_data_source(fn):
    f = fn()  # no default data_source: each label names its own
    labels = [
        {"ground_truth": "42", "data_source": "openai/gsm8k"},
        json.dumps({"ground_truth": "42", "data_source": "HuggingFaceH4/MATH-500"}),
    ]
    out = f([query("#### 42"), query("\\boxed{42}")], [PROMPT, PROMPT], labels)
    assert out["rewards"].tolist() == [1.0, 1.0]


def test_data_source_keyword_per_row(fn):
    f = fn()
    out = f(
        [query("#### 1"), query("\\boxed{1}")],
        [PROMPT] * 2,
        ["1", "1"],
        data_source=["openai/gsm8k", "lighteval/MATH"],
    )
    assert out["rewards"].tolist() == [1.0, 1.0]


class Flaky(Scorer):
    name = "flaky"

    def score(self, sample: Sample) -> Score:
        if "boom" in sample.response:
            raise RuntimeError("scorer bug")
        return Score(0.5)


def test_failures_follow_the_policy(fn):
    f = fn(Flaky(), on_error=-2.0)
    out = f([query("ok"), query("boom")], [PROMPT] * 2, ["x", "x"])
    assert out["rewards"].tolist() == [0.5, -2.0]
    assert out["extra_logs"]["rewardloop_failed"].tolist() == [0.0, 1.0]
    with pytest.raises(ScoringError, match="scorer_error"):
        fn(Flaky(), on_error="raise")([query("boom")], [PROMPT], ["x"])
    with pytest.raises(ConfigError, match="on_error"):
        make_reward_func(on_error="zero")


def test_missing_data_source_fails_only_that_sample(fn):
    out = fn()([query("#### 1")], [PROMPT], ["1"])
    assert out["rewards"].tolist() == [0.0]
    assert out["extra_logs"]["rewardloop_failed"].tolist() == [1.0]


def test_mismatched_lengths_raise(fn):
    with pytest.raises(ValueError, match="2 queries, 1 prompts"):
        fn(data_source="openai/gsm8k")(["a", "b"], ["a"], ["1", "1"])


def test_example_file_loaded_and_called_as_openrlhf_does(monkeypatch):
    monkeypatch.setenv("REWARDLOOP_DATA_SOURCE", "openai/gsm8k")
    monkeypatch.setattr(openrlhf, "_default", None)
    spec = importlib.util.spec_from_file_location(
        "reward_func", ROOT / "examples" / "openrlhf" / "reward_func.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reward = module.reward_func

    async def fetch_all(items):
        # OpenRLHF: one asyncio.to_thread call per sample, batch of 1, gathered concurrently
        tasks = [asyncio.to_thread(reward, [q], [p], [label]) for q, p, label in items]
        return await asyncio.gather(*tasks)

    items = [(query(f"#### {i}"), PROMPT, "3") for i in range(6)]
    results = asyncio.run(fetch_all(items))
    try:
        rewards = [info.get("rewards") for info in results]
        scores = [info.get("scores") or info.get("rewards") for info in results]
        assert [r.item() for r in rewards] == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        assert [s.item() for s in scores] == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        assert all(set(info["extra_logs"]) == {"rewardloop_failed"} for info in results)
    finally:
        openrlhf._default.close()
        monkeypatch.setattr(openrlhf, "_default", None)

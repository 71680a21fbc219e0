"""The TRL adapter, called exactly as TRL 1.x's ``GRPOTrainer._calculate_rewards`` calls reward functions.

TRL passes ``prompts``, ``completions``, ``completion_ids``, every dataset column except ``prompt`` (one value
per completion), ``trainer_state``, ``log_extra`` and ``log_metric`` as keywords; converts ``None`` to NaN;
checks the length; awaits async callables (``inspect.iscoroutinefunction(fn.__call__)``) on a daemon
event loop via ``asyncio.run_coroutine_threadsafe``; and names each function ``getattr(fn, "__name__",
type(fn).__name__)``. The fast tests reproduce that call; ``test_real_grpo_trainer_step`` runs one real
GRPO step of the installed ``trl`` on a tiny locally built model.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import pickle
import threading
import time

import pytest

from rewardloop import Sample, Score, Scorer
from rewardloop.errors import ConfigError, ScoringError, UnknownTaskError
from rewardloop.integrations.trl import (
    AsyncRewardFunc,
    RewardFunc,
    async_reward_func,
    completion_text,
    reward_func,
)


class Recorder:
    def __init__(self):
        self.metrics: dict[str, list[float]] = {}
        self.extra: dict[str, list] = {}

    def log_metric(self, name, value):
        self.metrics.setdefault(name, []).append(value)

    def log_extra(self, column, values):
        self.extra.setdefault(column, []).extend(values)


def trl_call(fn, prompts, completions, columns, recorder=None):
    """One call the way TRL's _calculate_rewards makes it (sync or async), with its None -> NaN step."""
    recorder = recorder or Recorder()
    kwargs = dict(columns)
    kwargs["trainer_state"] = object()
    kwargs["log_extra"] = recorder.log_extra
    kwargs["log_metric"] = recorder.log_metric
    ids = [[1, 2, 3]] * len(completions)
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(fn.__call__)
    if is_async:
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        try:
            coro = fn(prompts=prompts, completions=completions, completion_ids=ids, **kwargs)
            out = asyncio.run_coroutine_threadsafe(coro, loop).result(timeout=60)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(5)
            loop.close()
    else:
        out = fn(prompts=prompts, completions=completions, completion_ids=ids, **kwargs)
    assert len(out) == len(prompts)
    assert all(r is None or isinstance(r, float) for r in out)
    return out


@pytest.fixture
def make():
    made = []

    def _make(*args, asynchronous=False, **kwargs):
        fn = (async_reward_func if asynchronous else reward_func)(*args, **kwargs)
        made.append(fn)
        return fn

    yield _make
    for fn in made:
        fn.close()


class FlakyScorer(Scorer):
    """Raises for responses containing 'boom', else rewards 1.0."""

    name = "flaky"

    def score(self, sample: Sample) -> Score:
        if "boom" in sample.response:
            raise RuntimeError("scorer bug")
        return Score(1.0)


class RaisingScorer(Scorer):
    name = "raising"

    def score(self, sample: Sample) -> Score:
        raise RuntimeError("scorer bug")


class SleepScorer(Scorer):
    name = "sleepy"
    execution = "thread"

    def score(self, sample: Sample) -> Score:
        time.sleep(float(sample.response))
        return Score(1.0)


@pytest.mark.parametrize(
    "completion,text",
    [
        ("#### 4", "#### 4"),
        ([{"role": "assistant", "content": "#### 4"}], "#### 4"),
        (
            [
                {"role": "assistant", "content": "call tool"},
                {"role": "tool", "content": "42"},
                {"role": "assistant", "content": "#### 42"},
            ],
            "#### 42",
        ),
        ([{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "image"}]}], "a"),
        ([{"role": "assistant", "content": None}], ""),
    ],
)
def test_completion_text(completion, text):
    assert completion_text(completion) == text


def test_an_empty_conversation_is_malformed_not_an_empty_answer():
    # an empty list of messages has no response: scored as "" it would earn a format reward or a 0 that
    # looks like a wrong answer; it is invalid_input and follows on_error
    with pytest.raises(ValueError, match="empty list of chat messages"):
        completion_text([])


def test_completion_text_rejects_other_types():
    with pytest.raises(TypeError, match="string or a list of chat messages"):
        completion_text(42)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_routes_each_row_by_data_source(make, asynchronous):
    fn = make(asynchronous=asynchronous)
    assert isinstance(fn, AsyncRewardFunc if asynchronous else RewardFunc)
    rec = Recorder()
    out = trl_call(
        fn,
        ["q1", "q2", "q3", "q4"],
        [
            "so #### 72",
            [{"role": "assistant", "content": "#### 71"}],
            "x = \\boxed{\\frac{1}{2}}",
            "Answer: 5",
        ],
        {
            "data_source": ["openai/gsm8k", "openai/gsm8k", "HuggingFaceH4/MATH-500", "aime_2024"],
            "ground_truth": ["72", "72", "\\frac12", "6"],
        },
        rec,
    )
    assert out == [1.0, 0.0, 1.0, -1.0]  # math_dapo (aime*) gives -1 for a wrong answer
    assert rec.metrics["rewardloop/failed"] == [0.0]
    assert rec.metrics["rewardloop/timeout"] == [0.0]
    assert rec.extra["rewardloop_status"] == ["ok"] * 4


@pytest.mark.parametrize(
    "columns",
    [
        {"solution": ["72"]},  # TRL's math datasets
        {"answer": ["72"]},
        {"reward_model": [{"style": "rule", "ground_truth": "72"}]},  # a verl-layout dataset
        {"reward_model": [json.dumps({"style": "rule", "ground_truth": "72"})]},
    ],
)
def test_ground_truth_columns(make, columns):
    fn = make("gsm8k")
    assert fn.__name__ == "rewardloop_gsm8k"
    assert trl_call(fn, ["q"], ["#### 72"], columns) == [1.0]


def test_ground_truth_keys_configurable(make):
    fn = make("gsm8k", ground_truth_keys="gold")
    assert trl_call(fn, ["q"], ["#### 72"], {"gold": ["72"], "answer": ["1"]}) == [1.0]


def test_a_missing_ground_truth_column_raises_naming_the_columns(make):
    # all-None rewards with a warning would be training on no signal: a configuration error (issue 25)
    fn = make("gsm8k", name="acc")
    with pytest.raises(ConfigError, match=r"no ground truth column.*'solution'.*dataset has \['other'\]"):
        trl_call(fn, ["q", "q"], ["#### 1", "#### 2"], {"other": ["1", "2"]}, Recorder())


def test_a_reward_model_cell_without_ground_truth_fails_that_row_only(make):
    rec = Recorder()
    fn = make("gsm8k", name="acc")
    cols = {"reward_model": [{"ground_truth": "1"}, {"style": "rule"}]}
    assert trl_call(fn, ["q", "q"], ["#### 1", "#### 2"], cols, rec) == [1.0, None]
    assert rec.extra["acc_status"] == ["ok", "invalid_input"]


def test_metadata_from_extra_info_column(make):
    seen = []

    def scorer(sample: Sample) -> float:
        seen.append(dict(sample.metadata))
        return 1.0

    fn = make(scorer, task="mine")
    trl_call(
        fn, ["q", "q"], ["a", "b"], {"ground_truth": [1, 2], "extra_info": [{"i": 1}, json.dumps({"i": 2})]}
    )
    assert sorted(m["i"] for m in seen) == [1, 2]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_failure_policy(make, asynchronous):
    completions = ["fine", "boom", "fine"]
    cols = {"ground_truth": ["x"] * 3}
    rec = Recorder()
    assert trl_call(make(FlakyScorer(), asynchronous=asynchronous), ["q"] * 3, completions, cols, rec) == [
        1.0,
        None,
        1.0,
    ]
    assert rec.metrics["rewardloop_flaky/failed"] == [pytest.approx(1 / 3)]
    assert rec.metrics["rewardloop_flaky/scorer_error"] == [pytest.approx(1 / 3)]
    assert trl_call(make(FlakyScorer(), on_error=-1), ["q"] * 3, completions, cols) == [1.0, -1.0, 1.0]
    assert trl_call(make(FlakyScorer(), on_error=float("nan")), ["q"] * 3, completions, cols)[1] is None
    with pytest.raises(ScoringError, match="completion 1 failed with scorer_error"):
        trl_call(
            make(FlakyScorer(), on_error="raise", asynchronous=asynchronous), ["q"] * 3, completions, cols
        )


def test_bad_configuration_fails_fast():
    with pytest.raises(ConfigError, match="on_error"):
        reward_func(on_error="zero")
    with pytest.raises(ConfigError, match="unknown_task"):
        reward_func(unknown_task="skip")
    with pytest.raises(ConfigError, match="Unknown scorer 'nope'"):
        reward_func("nope")


def test_unknown_data_source(make):
    with pytest.raises(UnknownTaskError, match="data_source='nowhere'"):
        trl_call(make(), ["q"], ["#### 1"], {"data_source": ["nowhere"], "ground_truth": ["1"]})
    fn = make(unknown_task="none")
    cols = {"data_source": ["nowhere", "openai/gsm8k"], "ground_truth": ["1", "1"]}
    rec = Recorder()
    assert trl_call(fn, ["q", "q"], ["#### 1", "#### 1"], cols, rec) == [None, 1.0]
    assert rec.extra["rewardloop_status"] == ["skipped", "ok"]


def test_column_length_mismatch_is_an_error(make):
    with pytest.raises(ValueError, match="column 'ground_truth' has 1 values for 2 completions"):
        trl_call(make("gsm8k"), ["q", "q"], ["a", "b"], {"ground_truth": ["1"]})


def test_deadline_turns_a_hang_into_an_excluded_sample(make):
    fn = make(SleepScorer(), timeout_s=0.3)
    out = trl_call(fn, ["q", "q"], ["0", "3"], {"ground_truth": [None, None]})
    assert out == [1.0, None]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_pickles_and_keeps_working(make, asynchronous):
    fn = make("gsm8k", name="gsm", on_error=0.0, asynchronous=asynchronous)
    trl_call(fn, ["q"], ["#### 3"], {"answer": ["3"]})  # the runner exists now and is not pickled
    clone = pickle.loads(pickle.dumps(fn))
    try:
        assert type(clone) is type(fn) and clone.__name__ == "gsm" and clone.on_error == 0.0
        assert clone._runner is None
        assert trl_call(clone, ["q", "q"], ["#### 3", "#### 4"], {"answer": ["3", "3"]}) == [1.0, 0.0]
    finally:
        clone.close()


def test_shared_runner_is_used_and_left_open(make):
    from rewardloop import Runner

    with Runner(on_error=None) as runner:
        fn = make("gsm8k", runner=runner)
        assert trl_call(fn, ["q"], ["#### 3"], {"answer": ["3"]}) == [1.0]
        fn.close()
        assert not runner.closed
        clone = pickle.loads(pickle.dumps(fn))  # a copy elsewhere gets its own runner, same config
        assert trl_call(clone, ["q"], ["#### 3"], {"answer": ["3"]}) == [1.0]
        assert clone._runner is not runner and clone._runner.config == runner.config
        clone.close()


# ------------------------------------------------------------------------------------------------
# a real GRPO step


class LengthScorer(Scorer):
    """Reward = number of characters; remembers what it saw (inline: runs in the trainer's process)."""

    name = "length"
    deterministic = False

    def __init__(self) -> None:
        self.seen: list[str] = []

    def score(self, sample: Sample) -> Score:
        self.seen.append(sample.response)
        return Score(float(len(sample.response)))


def _tiny_model_and_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2}
    for ch in "0123456789abcdefghijklmnopqrstuvwxyz #+=?:":
        vocab.setdefault(ch, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<pad>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tok.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", bos_token="<bos>"
    )
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=2,
    )
    return LlamaForCausalLM(config), tokenizer


@pytest.mark.slow
def test_real_grpo_trainer_step(tmp_path, monkeypatch):
    pytest.importorskip("trl")
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("WANDB_DISABLED", "true")
    from trl import GRPOConfig, GRPOTrainer
    from trl.trainer.utils import get_callable_name, is_async_callable

    model, tokenizer = _tiny_model_and_tokenizer()
    rows = [
        {
            "prompt": "1+1=",
            "data_source": "openai/gsm8k",
            "reward_model": {"style": "rule", "ground_truth": "2"},
        },
        {
            "prompt": "2+2=",
            "data_source": "openai/gsm8k",
            "reward_model": {"style": "rule", "ground_truth": "4"},
        },
    ]
    routed = reward_func(name="verl_rules")  # routed by data_source, ground truth from reward_model
    lengths = LengthScorer()
    length = async_reward_func(lengths, name="length")
    failing = reward_func(RaisingScorer(), name="broken")
    assert [get_callable_name(f) for f in (routed, length, failing)] == ["verl_rules", "length", "broken"]
    assert not is_async_callable(routed) and is_async_callable(length)
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=4,
        max_steps=1,
        logging_steps=1,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        bf16=False,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[routed, length, failing],
        args=args,
        train_dataset=datasets.Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    try:
        trainer.train()
    finally:
        for f in (routed, length, failing):
            f.close()
    logs = trainer.state.log_history[0]
    # random completions of a tiny model are wrong answers: 0.0, scored (not failed)
    assert logs["rewards/verl_rules/mean"] == 0.0
    assert logs["verl_rules/failed"] == 0.0
    assert len(lengths.seen) == 2
    assert logs["rewards/length/mean"] == pytest.approx(sum(map(len, lengths.seen)) / 2)
    # every completion of "broken" failed: TRL got None (NaN) and our metric says so
    assert logs["broken/failed"] == 1.0 and logs["broken/scorer_error"] == 1.0


def test_conversational_prompts_with_verl_layout_columns(make):
    prompt = [{"role": "user", "content": "What is 1+1?"}]
    columns = {
        "data_source": ["openai/gsm8k", "openai/gsm8k"],
        "ability": ["math", "math"],
        "reward_model": [{"style": "rule", "ground_truth": "2"}] * 2,
        "extra_info": [{"split": "train", "index": 0, "nested": {"a": [1, 2]}}] * 2,
    }
    completions = [[{"role": "assistant", "content": "#### 2"}], [{"role": "assistant", "content": "#### 3"}]]
    assert trl_call(make(), [prompt, prompt], completions, columns) == [1.0, 0.0]

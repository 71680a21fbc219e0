"""verl's reward managers over rewardloop: classic and reward-loop interfaces, registry, config, shaping."""

from __future__ import annotations

import asyncio
import copy
import logging
import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from rewardloop.errors import ConfigError  # noqa: E402
from rewardloop.integrations import verl  # noqa: E402
from rewardloop.integrations.verl import (  # noqa: E402
    AbstractRewardManager,
    BatchRewardManager,
    DAPORewardManager,
    LoopDAPORewardManager,
    LoopNaiveRewardManager,
    NaiveRewardManager,
    PrimeRewardManager,
    RateLimitedRewardManager,
    RemoteRewardManager,
    RewardLoopManager,
    RewardManagerBase,
    get_reward_manager_cls,
    load_reward_manager,
    register,
)
from rewardloop.managers import RolloutBatch  # noqa: E402
from tests._rollouts import make_batch, shared_tokenizer  # noqa: E402

from . import _scorers  # noqa: E402

ROWS = [
    {"response": "The answer is #### 42", "data_source": "openai/gsm8k", "ground_truth": "42"},
    {"response": "#### 41", "data_source": "openai/gsm8k", "ground_truth": "42"},
    {"response": "so \\boxed{\\frac{1}{2}}", "data_source": "lighteval/MATH", "ground_truth": "\\frac{1}{2}"},
    {"response": "Answer: 7", "data_source": "math_dapo", "ground_truth": "7"},
]


def last_nonzero(t):
    return [row.nonzero().flatten().tolist() for row in t]


@pytest.fixture(scope="module")
def tokenizer():
    return shared_tokenizer()


@pytest.fixture
def rows_batch(tokenizer):
    return make_batch(tokenizer, ROWS)


def valid_lengths(batch):
    r = batch.batch["responses"].shape[1]
    return batch.batch["attention_mask"][:, -r:].sum(1).tolist()


# -- classic managers ---------------------------------------------------------------------------------


def test_naive_places_each_reward_on_the_last_response_token(tokenizer, rows_batch):
    manager = NaiveRewardManager(tokenizer, 0)
    try:
        tensor = manager(rows_batch)
        out = manager(rows_batch, return_dict=True)
    finally:
        manager.close()
    assert tensor.shape == rows_batch.batch["responses"].shape and tensor.dtype == torch.float32
    assert tensor.sum(1).tolist() == [1.0, 0.0, 1.0, 1.0]
    lengths = valid_lengths(rows_batch)
    for i in (0, 2, 3):
        assert last_nonzero(tensor)[i] == [lengths[i] - 1]
    assert torch.equal(out["reward_tensor"], tensor)
    info = out["reward_extra_info"]
    assert info["reward_status"] == ["ok"] * 4
    # scalar scorers give acc; the DAPO source returns a dict (score, acc, pred): union of keys, filled
    assert info["acc"][:3] == [1.0, 0.0, 1.0] and info["score"][:3] == [1.0, 0.0, 1.0]
    assert info["pred"][:3] == ["", "", ""] and info["pred"][3] == "7"  # type-stable filler for a str key
    assert {len(v) for v in info.values()} == {4}


def test_inputs_are_never_mutated(tokenizer):
    rows = [dict(r, extra_info={"index": i, "nested": {"k": [1]}}) for i, r in enumerate(ROWS)]
    batch = make_batch(tokenizer, rows)
    before_keys = set(batch.batch)
    before_info = copy.deepcopy(list(batch.non_tensor_batch["extra_info"]))
    manager = NaiveRewardManager(tokenizer, 0, compute_score=_mutating_score)
    try:
        manager(batch, return_dict=True)
    finally:
        manager.close()
    assert set(batch.batch) == before_keys  # verl's batch/prime managers add data.batch["acc"]
    assert list(batch.non_tensor_batch["extra_info"]) == before_info


def _mutating_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    extra_info["index"] = -1
    extra_info["nested"]["k"].append(2)
    return 0.0


def test_verl_extras_reach_the_scorer(tokenizer):
    seen = []

    def fn(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        seen.append(dict(extra_info))
        return 1.0

    rows = [
        dict(ROWS[0], __num_turns__=3, reward_scores={"tool": 0.5}, tool_extra_fields={"calls": 2}),
        dict(ROWS[1], __num_turns__=1, reward_scores={}, tool_extra_fields=None),
    ]
    # fn records into this process's memory: the documented opt-out from worker processes
    manager = NaiveRewardManager(tokenizer, 0, compute_score=fn, runner_config={"execution": "thread"})
    try:
        manager(make_batch(tokenizer, rows))
    finally:
        manager.close()
    by_index = {s["index"]: s for s in seen}
    assert by_index[0]["num_turns"] == 3 and by_index[0]["rollout_reward_scores"] == {"tool": 0.5}
    assert by_index[0]["calls"] == 2
    assert by_index[1]["num_turns"] == 1 and "calls" not in by_index[1]


def test_heterogeneous_extra_info_becomes_aligned_columns(tokenizer, rows_batch):
    def fn(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        i = extra_info["index"]
        return [1.0, {"score": 0.5, "a": 1}, {"score": 0.25, "b": "x"}, 0.0][i]

    manager = NaiveRewardManager(tokenizer, 0, compute_score=fn)
    try:
        out = manager(rows_batch, return_dict=True)
    finally:
        manager.close()
    info = out["reward_extra_info"]
    assert out["reward_tensor"].sum(1).tolist() == [1.0, 0.5, 0.25, 0.0]
    # one schema for the batch: a key one sample returned reaches every row, with a filler of its type
    assert info["a"] == [0.0, 1.0, 0.0, 0.0] and info["b"] == ["", "", "x", ""]
    assert info["score"] == [1.0, 0.5, 0.25, 0.0] and info["acc"] == [1.0, 0.5, 0.25, 0.0]


def test_failures_are_visible_and_cost_nothing_else(tokenizer, caplog):
    def fn(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        if extra_info["index"] == 1:
            raise RuntimeError("boom")
        if extra_info["index"] == 2:
            return {"no_score": 1}
        return 1.0

    rows = [dict(r) for r in ROWS[:3]] + [dict(ROWS[0], data_source=None)]
    batch = make_batch(tokenizer, rows[:3])
    manager = NaiveRewardManager(tokenizer, 0, compute_score=fn)
    try:
        with caplog.at_level(logging.WARNING):
            out = manager(batch, return_dict=True)
    finally:
        manager.close()
    assert out["reward_tensor"].sum(1).tolist() == [1.0, 0.0, 0.0]
    assert out["reward_extra_info"]["reward_status"] == ["ok", "scorer_error", "scorer_error"]
    assert "2 of 3 samples failed" in caplog.text


def test_malformed_rows_are_invalid_input(tokenizer):
    batch = make_batch(tokenizer, ROWS[:2])
    batch.non_tensor_batch["reward_model"][1] = {"style": "rule"}  # no ground_truth
    manager = NaiveRewardManager(tokenizer, 0)
    try:
        out = manager(batch, return_dict=True)
    finally:
        manager.close()
    assert out["reward_extra_info"]["reward_status"] == ["ok", "invalid_input"]
    assert out["reward_tensor"].sum(1).tolist() == [1.0, 0.0]


def test_rm_scores_short_circuit(tokenizer, rows_batch):
    def never(**kwargs):
        raise AssertionError("compute_score must not be called when rm_scores exist")

    rm = torch.zeros_like(rows_batch.batch["responses"], dtype=torch.float32)
    rm[:, 0] = torch.tensor([0.1, 0.2, 0.3, 0.4])
    batch = RolloutBatch(
        {**rows_batch.batch, "rm_scores": rm},
        {**rows_batch.non_tensor_batch, "acc": [1, 0, 1, 0]},
        {"reward_extra_keys": ["acc"]},
    )
    manager = NaiveRewardManager(tokenizer, 0, compute_score=never)
    try:
        assert manager(batch) is rm
        out = manager(batch, return_dict=True)
    finally:
        manager.close()
    assert out["reward_tensor"] is rm and list(out["reward_extra_info"]["acc"]) == [1, 0, 1, 0]
    with RewardLoopManager({}, tokenizer=tokenizer) as loop:
        assert loop.compute_rm_score(batch) is batch


def test_empty_response_keeps_its_reward_in_its_last_column(tokenizer, caplog):
    batch = make_batch(tokenizer, [dict(ROWS[0], response=""), ROWS[0]])
    manager = NaiveRewardManager(tokenizer, 0, compute_score=lambda **kw: 1.0)
    try:
        with caplog.at_level(logging.WARNING):
            tensor = manager(batch)
    finally:
        manager.close()
    # verl writes it into the last column: the row sums to the sample's score (verl's GRPO reads the sum)
    assert tensor[0].sum() == 1.0 and tensor[0, -1] == 1.0
    assert tensor[1].sum() == 1.0
    assert "without any generated token" in caplog.text


def test_response_mask_keeps_rewards_off_tool_observations(tokenizer):
    ids = tokenizer.encode("The answer is #### 42")
    mask = [1] * (len(ids) - 3) + [0, 0, 0]  # the last three tokens came from a tool
    batch = make_batch(tokenizer, [dict(ROWS[0], mask=[*mask, 1])], with_response_mask=True)
    manager = NaiveRewardManager(tokenizer, 0)
    try:
        tensor = manager(batch)
    finally:
        manager.close()
    assert last_nonzero(tensor) == [[len(ids)]]  # the EOS after the observation is the model's
    batch = make_batch(tokenizer, [dict(ROWS[0], mask=[*mask, 0])], with_response_mask=True)
    manager = NaiveRewardManager(tokenizer, 0)
    try:
        tensor = manager(batch)
    finally:
        manager.close()
    assert last_nonzero(tensor) == [[len(ids) - 4]]


def test_dapo_overlong_penalty_and_its_config_errors(tokenizer, rows_batch):
    lengths = valid_lengths(rows_batch)
    cfg = {"enable": True, "len": 4, "penalty_factor": 1.0, "log": True}
    max_len = max(lengths)
    manager = DAPORewardManager(tokenizer, 0, overlong_buffer_cfg=cfg, max_resp_len=max_len)
    try:
        out = manager(rows_batch, return_dict=True)
    finally:
        manager.close()
    expected_penalty = [min(-(n - (max_len - 4)) / 4, 0.0) for n in lengths]
    base = [1.0, 0.0, 1.0, 1.0]
    got = out["reward_tensor"].sum(1).tolist()
    assert got == pytest.approx([b + p for b, p in zip(base, expected_penalty, strict=True)])
    assert out["reward_extra_info"]["overlong_reward"] == pytest.approx(expected_penalty)
    assert out["reward_extra_info"]["overlong"] == [p < 0 for p in expected_penalty]
    with pytest.raises(ConfigError, match="max_resp_len must be provided"):
        DAPORewardManager(tokenizer, 0, overlong_buffer_cfg={"enable": True, "len": 128})
    with pytest.raises(ConfigError, match=r"max_resp_len must be larger than or equal to .*\(64 < 128\)"):
        DAPORewardManager(tokenizer, 0, overlong_buffer_cfg={"enable": True, "len": 128}, max_resp_len=64)
    # disabled or absent: no max_resp_len needed, no penalty (verl 0.4 crashed on None)
    for cfg in (None, {"enable": False, "len": 128}):
        m = DAPORewardManager(tokenizer, 0, overlong_buffer_cfg=cfg)
        try:
            assert m(rows_batch).sum(1).tolist() == base
        finally:
            m.close()


def test_batch_manager_calls_the_batched_function_with_lists(tokenizer, rows_batch):
    calls = []

    def batched(data_sources, solution_strs, ground_truths, extra_infos, scale=1.0):
        calls.append(len(solution_strs))
        return [{"score": scale * len(s), "n": i} for i, s in enumerate(solution_strs)]

    manager = BatchRewardManager(tokenizer, 0, compute_score=batched, scale=0.5)
    try:
        out = manager(rows_batch, return_dict=True)
    finally:
        manager.close()
    assert sum(calls) == 4
    texts = [r["response"] for r in ROWS]
    assert out["reward_tensor"].sum(1).tolist() == [0.5 * len(t) for t in texts]
    with pytest.raises(ConfigError, match="needs compute_score"):
        BatchRewardManager(tokenizer, 0)


def test_batch_manager_wrong_result_count_fails_the_chunk_not_the_call(tokenizer, rows_batch):
    manager = BatchRewardManager(tokenizer, 0, compute_score=lambda **kw: [1.0])
    try:
        out = manager(rows_batch, return_dict=True)
    finally:
        manager.close()
    assert set(out["reward_extra_info"]["reward_status"]) == {"scorer_error"}


def test_prime_runs_in_worker_processes_with_dict_results_and_deadlines(tokenizer):
    rows = [dict(ROWS[0], response="42"), dict(ROWS[0], response="sleep"), dict(ROWS[0], response="7")]
    batch = make_batch(tokenizer, rows, eos=False)
    manager = PrimeRewardManager(tokenizer, 0, compute_score=_scorers.pid_score)
    try:
        out = manager(batch, return_dict=True)
    finally:
        manager.close()
    assert out["reward_tensor"].sum(1).tolist() == [1.0, 0.0, 0.0]
    pids = set(out["reward_extra_info"]["pid"])
    assert os.getpid() not in pids  # verl's prime turns dict results into an all-zero batch
    slow = PrimeRewardManager(
        tokenizer, 0, compute_score=_scorers.sleepy_score, runner_config={"timeout_s": 1.0}
    )
    try:
        out = slow(batch, return_dict=True)
    finally:
        slow.close()
    assert out["reward_extra_info"]["reward_status"] == ["ok", "timeout", "ok"]
    assert out["reward_tensor"].sum(1).tolist() == [1.0, 0.0, 0.0]


def test_on_error_must_be_a_number_for_the_trainer(tokenizer):
    with pytest.raises(ConfigError, match="on_error must be a number"):
        NaiveRewardManager(tokenizer, 0, runner_config={"on_error": None})
    with pytest.raises(TypeError, match="tokenizer"):
        NaiveRewardManager(None, 0)


def test_num_examine_logs_examples(tokenizer, rows_batch, caplog):
    manager = NaiveRewardManager(tokenizer, 1)
    try:
        with caplog.at_level(logging.INFO, logger="rewardloop.integrations.verl._managers"):
            manager(rows_batch)
    finally:
        manager.close()
    shown = [r.getMessage() for r in caplog.records if "ground_truth=" in r.getMessage()]
    assert len(shown) == 3  # one per data_source
    assert any("[openai/gsm8k]" in m and "#### 42" in m for m in shown)


# -- registry -------------------------------------------------------------------------------------------


def test_registry_semantics():
    assert get_reward_manager_cls("naive") is LoopNaiveRewardManager
    assert get_reward_manager_cls("naive", "classic") is NaiveRewardManager
    assert get_reward_manager_cls("dapo", "classic") is DAPORewardManager
    assert get_reward_manager_cls("batch") is BatchRewardManager  # only classic has it
    assert get_reward_manager_cls("remote") is RemoteRewardManager
    rl = get_reward_manager_cls("rate_limited")
    assert rl is get_reward_manager_cls("rate_limited", "classic") is RateLimitedRewardManager
    with pytest.raises(ValueError, match="Unknown reward manager: Naive"):
        get_reward_manager_cls("Naive")
    with pytest.raises(ValueError, match="Unknown reward manager: prime"):
        get_reward_manager_cls("prime", "loop")

    @register("test_custom_loop")
    class Custom(RewardManagerBase):
        async def run_single(self, data):
            return {"reward_score": 1.0, "reward_extra_info": {}}

    assert register("test_custom_loop")(Custom) is Custom  # same class again: fine
    with pytest.raises(ValueError, match="has already been registered"):

        @register("test_custom_loop")
        class Other(RewardManagerBase):
            async def run_single(self, data):
                return {}

    assert get_reward_manager_cls("test_custom_loop") is Custom

    # any class is accepted, as in verl; one that subclasses neither base goes by the interface it offers
    class DuckLoop:
        async def run_single(self, data):
            return {}

    class DuckClassic:
        pass

    assert register("test_duck_loop")(DuckLoop) is DuckLoop
    assert get_reward_manager_cls("test_duck_loop", "loop") is DuckLoop
    assert register("test_duck_classic")(DuckClassic) is DuckClassic
    assert get_reward_manager_cls("test_duck_classic", "classic") is DuckClassic
    with pytest.raises(ValueError, match="Unknown reward manager: test_duck_classic"):
        get_reward_manager_cls("test_duck_classic", "loop")
    register("test_duck_classic", kind="loop")(DuckClassic)  # kind= picks the registry, as verl's two do
    assert get_reward_manager_cls("test_duck_classic", "loop") is DuckClassic
    assert issubclass(NaiveRewardManager, AbstractRewardManager)


# -- reward-loop managers ---------------------------------------------------------------------------


def test_run_single_scores_the_last_row(tokenizer, rows_batch):
    manager = LoopNaiveRewardManager({}, tokenizer)
    try:
        first = asyncio.run(manager.run_single(rows_batch[0:2]))
        alone = asyncio.run(manager.run_single(rows_batch[0:1]))
        many = asyncio.run(manager.run_batch(rows_batch))
    finally:
        manager.close()
    assert first["reward_score"] == 0.0
    assert first["reward_extra_info"] == {
        "score": 0.0,
        "acc": 0.0,
        "reward_status": "ok",
        "timeout": False,
        "error": "",
        "pred": "",  # the routing table can reach math_dapo: its key is in every sample's schema
    }
    assert alone["reward_score"] == 1.0
    assert [m["reward_score"] for m in many] == [1.0, 0.0, 1.0, 1.0]


def test_loop_dapo_reads_reward_kwargs(tokenizer, rows_batch):
    lengths = valid_lengths(rows_batch)
    cfg = {
        "reward_kwargs": {
            "overlong_buffer_cfg": {"enable": True, "len": 2, "log": True},
            "max_resp_len": lengths[0],
        }
    }
    manager = LoopDAPORewardManager(cfg, tokenizer)
    try:
        out = asyncio.run(manager.run_single(rows_batch[0:1]))
    finally:
        manager.close()
    assert out["reward_score"] == pytest.approx(0.0)  # 1.0 - 1.0 at L = max_resp_len
    assert out["reward_extra_info"]["overlong"] is True
    with pytest.raises(ConfigError, match="max_resp_len"):
        LoopDAPORewardManager(
            {"reward_kwargs": {"overlong_buffer_cfg": {"enable": True, "len": 2}}}, tokenizer
        )


@pytest.mark.parametrize("name", ["naive", "remote", "gdpo"])
def test_every_loop_manager_runs_a_file_function_in_worker_processes(tokenizer, tmp_path, name, caplog):
    fn = tmp_path / "my_reward.py"
    fn.write_text(
        "import os\n"
        "def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kw):\n"
        "    return {'score': 1.0, 'pid': os.getpid(), 'note': 'x'}\n"
    )
    batch = make_batch(tokenizer, ROWS[:2])
    cfg = {
        "reward_manager": {"name": name},
        "custom_reward_function": {"path": str(fn)},
        "extra_info_keys": {"pid": "float"},
    }
    manager = load_reward_manager(cfg, tokenizer)
    try:
        with caplog.at_level(logging.WARNING):
            out = asyncio.run(manager.run_single(batch[0:1]))
    finally:
        manager.close()
    assert out["reward_score"] == 1.0 and out["reward_extra_info"]["pid"] != os.getpid()
    # verl keeps the function's dict keys: 'note' is read from the returned literal, so every sample has it
    assert out["reward_extra_info"]["note"] == "x"
    # ours, as an option: one trajectory at a time an undeclared key is left out (a warning names it)
    manager = load_reward_manager({**cfg, "infer_extra_info_keys": False}, tokenizer)
    try:
        with caplog.at_level(logging.WARNING):
            out = asyncio.run(manager.run_single(batch[0:1]))
    finally:
        manager.close()
    assert "note" not in out["reward_extra_info"] and "['note'] are not declared" in caplog.text


def test_rate_limited_concurrency_timeout_and_failures(tokenizer, tmp_path):
    fn = tmp_path / "limited.py"
    fn.write_text(
        "import asyncio\n"
        "STATE = {'now': 0, 'peak': 0}\n"
        "async def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kw):\n"
        "    STATE['now'] += 1; STATE['peak'] = max(STATE['peak'], STATE['now'])\n"
        "    try:\n"
        "        if 'sleep' in solution_str:\n"
        "            await asyncio.sleep(30)\n"
        "        if 'boom' in solution_str:\n"
        "            raise ValueError('boom')\n"
        "        await asyncio.sleep(0.05)\n"
        "        return {'score': 1.0, 'peak': STATE['peak']}\n"
        "    finally:\n"
        "        STATE['now'] -= 1\n"
    )
    cfg = {
        "reward_manager": {"name": "rate_limited"},
        "custom_reward_function": {"path": str(fn)},
        "max_concurrent": 2,
        "max_rpm": 6000,
        "timeout": 1.0,
    }
    rows = [dict(ROWS[0], response=r) for r in ("a", "b", "c", "d", "e", "sleep", "boom")]
    batch = make_batch(tokenizer, rows)
    manager = load_reward_manager(cfg, tokenizer)
    try:
        assert isinstance(manager, RateLimitedRewardManager)
        runner_cfg = manager.core.manager.runner.config
        assert (runner_cfg.max_concurrency, runner_cfg.rpm, runner_cfg.timeout_s) == (2, 6000.0, 1.0)

        async def all_rows():
            return await asyncio.gather(*(manager.run_single(batch[i : i + 1]) for i in range(len(rows))))

        outs = asyncio.run(all_rows())
    finally:
        manager.close()
    statuses = [o["reward_extra_info"]["reward_status"] for o in outs]
    assert statuses == ["ok"] * 5 + ["timeout", "scorer_error"]
    assert max(o["reward_extra_info"].get("peak") or 0 for o in outs) <= 2
    assert [o["reward_score"] for o in outs] == [1.0] * 5 + [0.0, 0.0]


# -- RewardLoopManager and load_reward_manager -------------------------------------------------------


def test_compute_rm_score_and_streaming_handles(tokenizer, rows_batch):
    with RewardLoopManager({"reward_manager": {"name": "naive"}}, tokenizer=tokenizer) as loop:
        out = loop.compute_rm_score(rows_batch)
        handles = loop.reward_loop_worker_handles

        async def stream():
            return await asyncio.gather(
                *(handles[0].compute_score.remote(rows_batch[i : i + 1]) for i in range(4))
            )

        streamed = asyncio.run(stream())
    assert isinstance(out, RolloutBatch)
    assert out.batch["rm_scores"].sum(1).tolist() == [1.0, 0.0, 1.0, 1.0]
    assert out.meta_info["reward_extra_keys"] == list(out.non_tensor_batch)
    assert "acc" in out.non_tensor_batch and len(out.non_tensor_batch["acc"]) == 4
    assert [s["reward_score"] for s in streamed] == [1.0, 0.0, 1.0, 1.0]
    classic = NaiveRewardManager(tokenizer, 0)
    try:
        assert torch.equal(classic(rows_batch), out.batch["rm_scores"])
    finally:
        classic.close()


def test_load_reward_manager_selects_loop_or_classic_and_importlib(tokenizer, tmp_path):
    loop = load_reward_manager({"reward_manager": {"name": "dapo"}}, tokenizer)
    classic = load_reward_manager({"reward_manager": {"name": "dapo"}}, tokenizer, num_examine=0)
    prime = load_reward_manager({"reward_manager": {"name": "prime"}}, tokenizer)
    try:
        assert isinstance(loop, LoopDAPORewardManager)
        assert isinstance(classic, DAPORewardManager)
        assert isinstance(prime, PrimeRewardManager)
    finally:
        for m in (loop, classic, prime):
            m.close()
    module = tmp_path / "mgr.py"
    module.write_text(
        "from rewardloop.integrations.verl import RewardManagerBase\n"
        "class MyManager(RewardManagerBase):\n"
        "    def __init__(self, config, tokenizer, compute_score=None, **kw):\n"
        "        super().__init__(config, tokenizer, compute_score)\n"
        "    async def run_single(self, data):\n"
        "        return {'reward_score': 0.25, 'reward_extra_info': {'mine': True}}\n"
    )
    cfg = {
        "reward_manager": {
            "source": "importlib",
            "name": "MyManager",
            "module": {"path": str(module), "name": "MyManager"},
        }
    }
    mine = load_reward_manager(cfg, tokenizer)
    assert type(mine).__name__ == "MyManager"
    with RewardLoopManager(cfg, tokenizer=tokenizer) as rl:
        out = rl.compute_rm_score(make_batch(tokenizer, ROWS[:2]))
    assert out.batch["rm_scores"].sum(1).tolist() == [0.25, 0.25]
    assert list(out.non_tensor_batch["mine"]) == [True, True]
    with pytest.raises(ConfigError, match="not a reward manager class"):
        load_reward_manager(
            {
                "reward_manager": {
                    "source": "importlib",
                    "module": {"path": str(module), "name": "RewardManagerBase"},
                }
            },
            tokenizer,
        ) if False else verl.resolve_reward_manager_cls(
            {
                "reward_manager": {
                    "source": "importlib",
                    "module": {"path": str(_write(tmp_path)), "name": "NotAManager"},
                }
            }
        )


def _write(tmp_path):
    path = tmp_path / "not_mgr.py"
    path.write_text("class NotAManager:\n    pass\n")
    return path


def test_tokenizer_from_a_trainer_config(tokenizer, tmp_path):
    tokenizer.save_pretrained(tmp_path / "tok")
    root = {"actor_rollout_ref": {"model": {"path": str(tmp_path / "tok")}}, "reward": {"num_workers": 1}}
    with RewardLoopManager(root) as loop:
        out = loop.compute_rm_score(make_batch(tokenizer, ROWS[:1]))
    assert out.batch["rm_scores"].sum().item() == 1.0
    with pytest.raises(ConfigError, match="no tokenizer"):
        RewardLoopManager({"reward": {}})


@pytest.mark.ray
@pytest.mark.slow
def test_compute_rm_score_and_worker_actors_on_ray(tokenizer, rows_batch):
    pytest.importorskip("ray")
    import ray

    with RewardLoopManager({"backend": "ray", "num_workers": 2}, tokenizer=tokenizer) as loop:
        out = loop.compute_rm_score(rows_batch)
        handles = loop.reward_loop_worker_handles
        assert len(handles) == 2 and all(isinstance(w, ray.actor.ActorHandle) for w in handles[0].workers)

        async def stream():
            refs = [handles[i % 2].compute_score.remote(rows_batch[i : i + 1]) for i in range(4)]
            return await asyncio.gather(*refs)

        streamed = asyncio.run(stream())
    assert out.batch["rm_scores"].sum(1).tolist() == [1.0, 0.0, 1.0, 1.0]
    assert [s["reward_score"] for s in streamed] == [1.0, 0.0, 1.0, 1.0]


@pytest.mark.ray
@pytest.mark.slow
def test_streamed_group_members_meet_in_one_ray_worker_whichever_handle_verl_picks(tokenizer):
    pytest.importorskip("ray")
    import pickle

    rows = [
        {"response": r, "data_source": "math_dapo", "ground_truth": "7", "uid": u}
        for r, u in [("Answer: 7", "p"), ("Answer: 8", "q"), ("Answer: 8", "p"), ("Answer: 7", "q")]
    ]
    config = {
        "reward": {
            "backend": "ray",
            "num_workers": 2,
            "reward_manager": {"name": "naive"},
            "components": [
                {
                    "scorer": "group_relative",
                    "name": "rel",
                    "options": {"base": "math_dapo", "mode": "center"},
                }
            ],
        },
        "actor_rollout_ref": {"rollout": {"n": 2}},
    }
    batch = make_batch(tokenizer, rows)
    with RewardLoopManager(config, tokenizer=tokenizer) as loop:
        handles = [
            pickle.loads(pickle.dumps(h)) for h in loop.reward_loop_worker_handles
        ]  # as verl ships them
        for i in range(4):  # every handle routes a uid to the same worker
            assert len({h.worker_for(batch[i : i + 1])._actor_id for h in handles}) == 1

        async def stream():  # member i through handle i % 2: each group's members through both handles
            return await asyncio.gather(
                *(handles[i % 2].compute_score.remote(batch[i : i + 1]) for i in range(4))
            )

        streamed = asyncio.run(stream())
    assert [s["reward_extra_info"]["reward_status"] for s in streamed] == ["ok"] * 4
    assert [s["reward_score"] for s in streamed] == [1.0, -1.0, -1.0, 1.0]  # centred in each group


def test_batched_decode_is_exactly_transformers_decode(tokenizer):
    from rewardloop.integrations.verl._data import decode_rows

    texts = ["The answer is #### 42", "ünïcødé ∑ 😀 \\boxed{x}", "", "  spaces  and\ttabs\n"]
    rows = [[*tokenizer.encode(t), tokenizer.eos_token_id, tokenizer.pad_token_id] for t in texts]
    expected = tokenizer.batch_decode(rows, skip_special_tokens=True)
    assert decode_rows(tokenizer, rows) == expected == [t for t in texts]

    class CleanUp:  # a tokenizer that needs transformers' own path (clean-up of spaces)
        clean_up_tokenization_spaces = True
        backend_tokenizer = tokenizer.backend_tokenizer

        def batch_decode(self, rows, skip_special_tokens):
            return ["slow path"] * len(rows)

    assert decode_rows(CleanUp(), rows) == ["slow path"] * 4


def test_reward_model_settings_follow_verls_replica_sizing():
    from rewardloop.config import load_reward_config
    from rewardloop.integrations.verl._loop import reward_model_settings

    rm = {
        "enable": True,
        "model_path": "/models/rm",
        "n_gpus_per_node": 8,
        "nnodes": 1,
        "rollout": {"name": "vllm", "tensor_model_parallel_size": 2, "dtype": "bfloat16"},
    }
    assert reward_model_settings(load_reward_config({"reward_model": rm})) == {
        "model_path": "/models/rm",
        "backend": "vllm",
        "kind": "classify",
        "num_servers": 4,
        "gpus_per_server": 2,
    }
    genrm = load_reward_config(
        {"reward_model": {**rm, "rollout": {"name": "???"}}, "custom_reward_function": {"path": "j.py"}}
    )
    assert reward_model_settings(genrm) == {
        "model_path": "/models/rm",
        "backend": "embedded",
        "kind": "generate",
        "num_servers": 1,
    }


def test_a_failing_batch_logs_one_short_line_not_the_data_source_list(tokenizer, caplog):
    rows = [dict(ROWS[0], data_source="no_such_source"), ROWS[0]]
    manager = NaiveRewardManager(tokenizer, 0)
    try:
        with caplog.at_level(logging.WARNING):
            out = manager(make_batch(tokenizer, rows), return_dict=True)
    finally:
        manager.close()
    lines = [r.getMessage() for r in caplog.records if "samples failed" in r.getMessage()]
    assert len(lines) == 1 and "no_such_source" in lines[0]
    assert "Known data sources" not in lines[0] and len(lines[0]) < 300
    # the sample itself keeps the whole message, the known sources included
    assert "Known data sources" in out["reward_extra_info"]["error"][0]


def test_the_classic_loader_applies_components_routes_and_monitors(tokenizer):
    # verl 0.4/0.5's load_reward_manager(config, tokenizer, num_examine): the same builder, nothing dropped
    cfg = {
        "reward_manager": {"name": "naive"},
        "components": [
            {"scorer": "gsm8k", "name": "acc"},
            {"scorer": "tag_count", "name": "tags", "weight": 0.5},
        ],
        "monitors": {"enable": True},
    }
    manager = load_reward_manager(cfg, tokenizer, 0)
    try:
        assert isinstance(manager, NaiveRewardManager)
        out = manager(make_batch(tokenizer, ROWS[:2]), return_dict=True)
    finally:
        manager.close()
    info = out["reward_extra_info"]
    assert list(info["acc"]) == [1.0, 0.0] and "tags" in info and "monitor/any" in info
    routed = load_reward_manager(
        {"reward_manager": {"name": "naive"}, "routes": {"mine": "math_dapo"}}, tokenizer, 0
    )
    try:
        rows = [dict(ROWS[0], data_source="mine", response="Answer: 42")]
        assert routed(make_batch(tokenizer, rows)).sum().item() == 1.0
    finally:
        routed.close()


# -- non-finite rewards and on_error fills, through every manager ------------------------------------------


def _nan_for_41(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """1.0, except NaN for the response "#### 41" (a custom function's arithmetic gone wrong)."""
    return float("nan") if solution_str.strip() == "#### 41" else 1.0


@pytest.mark.parametrize("fill", [0.0, -1.0])
@pytest.mark.parametrize("cls", [NaiveRewardManager, DAPORewardManager, PrimeRewardManager])
def test_a_nan_reward_is_a_scorer_error_filled_by_on_error_in_classic_managers(
    tokenizer, rows_batch, cls, fill
):
    manager = cls(tokenizer, 0, compute_score=_nan_for_41, runner_config={"on_error": fill})
    try:
        out = manager(rows_batch, return_dict=True)
    finally:
        manager.close()
    tensor, info = out["reward_tensor"], out["reward_extra_info"]
    assert not torch.isnan(tensor).any()
    assert tensor.sum(1).tolist() == [1.0, fill, 1.0, 1.0]
    assert info["reward_status"] == ["ok", "scorer_error", "ok", "ok"]


@pytest.mark.parametrize("fill", [0.0, -1.0])
@pytest.mark.parametrize("cls", [LoopNaiveRewardManager, LoopDAPORewardManager])
def test_a_nan_reward_is_a_scorer_error_filled_by_on_error_in_loop_managers(tokenizer, rows_batch, cls, fill):
    manager = cls({"runner": {"on_error": fill}}, tokenizer, compute_score=_nan_for_41)
    try:
        outs = asyncio.run(manager.run_batch(rows_batch))
        single = asyncio.run(manager.run_single(rows_batch[1:2]))
    finally:
        manager.close()
    assert [o["reward_score"] for o in outs] == [1.0, fill, 1.0, 1.0]
    assert [o["reward_extra_info"]["reward_status"] for o in outs] == ["ok", "scorer_error", "ok", "ok"]
    assert single["reward_score"] == fill and single["reward_extra_info"]["reward_status"] == "scorer_error"

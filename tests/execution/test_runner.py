"""Runner: order, deadlines, crashes, failure policy, retries, de-duplication, cache, async, batch, sync facade.

Real worker processes throughout (scorers live in ``_tasks`` so spawned workers can import them). Time
is asserted only as generous upper bounds on the deadline guarantees.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import pickle
import threading
import time

import pytest

from rewardloop import (
    ConfigError,
    Runner,
    RunnerConfig,
    Sample,
    Score,
    ScoreBatch,
    ScoringError,
    Status,
    get_scorer,
)
from rewardloop.errors import InfraError, RateLimited
from rewardloop.integrations.verl import CustomFunctionScorer

from . import _tasks


@pytest.fixture(scope="module")
def runner():
    with Runner(workers=2, batch_size=4, memory_limit_mb=1024, slow_sample_s=None) as r:
        r.run_sync(_tasks.NoopProcessScorer(), [Sample("a"), Sample("b")])  # start both workers
        yield r


def sample(response="x", ground_truth="y", **kw):
    return Sample(response=response, ground_truth=ground_truth, task="test", **kw)


# -- config ------------------------------------------------------------------------------------------


def test_config_from_dict_rejects_unknown_keys_by_name():
    with pytest.raises(ConfigError) as info:
        RunnerConfig.from_dict({"timeout_s": 3, "wrokers": 2, "zzz": 1})
    message = str(info.value)
    assert (
        "'wrokers', 'zzz'" in message
        and "did you mean 'workers'" in message
        and "allowed:" in message
        and "max_concurrency" in message
    )
    assert RunnerConfig.from_dict({"timeout_s": 3}).timeout_s == 3


@pytest.mark.parametrize(
    ("key", "value", "needle"),
    [
        ("workers", 0, "workers must be an integer >= 1"),
        ("timeout_s", -1, "timeout_s must be a positive number"),
        ("on_error", "zero", "on_error must be a number"),
        ("on_error", True, "on_error must be a number"),
        ("execution", "gpu", "inline, thread, process"),
        ("memory_limit_mb", 10, "memory_limit_mb must be an integer >= 64"),
        ("recycle_memory_mb", 0, "recycle_memory_mb must be an integer >= 1"),
        ("rpm", 0, "rpm must be a positive number"),
        ("dedup", "yes", "dedup must be true or false"),
        ("backoff_base_s", float("inf"), "backoff_base_s"),
    ],
)
def test_config_values_fail_fast(key, value, needle):
    with pytest.raises(ConfigError, match=needle):
        RunnerConfig(**{key: value})


def test_config_defaults_and_overrides():
    cfg = RunnerConfig()
    assert 1 <= cfg.workers <= 4 and cfg.on_error == 0.0 and cfg.dedup and cfg.cache_size == 0
    assert math.isnan(RunnerConfig(on_error=float("nan")).on_error)
    with pytest.raises(Exception):  # frozen  # noqa: B017
        cfg.workers = 3  # type: ignore[misc]
    r = Runner(RunnerConfig(timeout_s=2.0), retries=1)
    assert (r.config.timeout_s, r.config.retries) == (2.0, 1)
    assert Runner({"cache_size": 5}).config.cache_size == 5
    with pytest.raises(ConfigError, match=r"unknown key.* in RunnerConfig"):
        Runner(nope=1)


# -- order, execution modes, deadlines, crashes --------------------------------------------------------


def test_results_keep_input_order(runner, tmp_path):
    # thread scorer with shuffled sleeps: completion order differs from input order
    delays = [f"{(7 * i) % 10 / 200:.3f}" + "0" * i for i in range(20)]
    batch = runner.run_sync(_tasks.ThreadScorer(), [sample(d) for d in delays])
    assert batch.status_counts()["ok"] == 20 and len(batch.queue_s) == len(batch.exec_s) == 20
    counting = _tasks.CountingScorer(tmp_path / "calls")
    responses = [str(i) for i in range(30)]
    batch = runner.run_sync(counting, [sample(r, "7") for r in responses])
    assert batch.metrics["pred"] == tuple(responses)
    assert batch.values == tuple(1.0 if r == "7" else 0.0 for r in responses)


def test_mixed_scorers_one_per_sample(runner):
    scorers = [_tasks.DictScorer(), _tasks.PidScorer(), _tasks.QuickScorer(), _tasks.DictScorer()]
    batch = runner.run_sync(scorers, [sample("a"), sample("b"), sample("z", "z"), sample("c")])
    assert batch.values == (0.5, 1.0, 1.0, 0.5)
    assert batch[1].info["pid"] != os.getpid() and batch[2].info["by"] == "quick"
    with pytest.raises(ValueError, match="2 scorers for 1 samples"):
        runner.run_sync([_tasks.DictScorer()] * 2, [sample()])


def test_process_scorer_that_never_returns_times_out_while_others_finish(runner):
    start = time.monotonic()
    batch = runner.run_sync(_tasks.SleepScorer(), [sample("60")] + [sample(f"0.0{i}") for i in range(8)])
    elapsed = time.monotonic() - start
    assert batch.statuses[0] is Status.TIMEOUT and "0.3 s deadline" in batch.infos[0]["error"]
    assert "SleepScorer.score" in batch.infos[0]["error"]
    assert batch.status_counts()["ok"] == 8
    assert elapsed < 0.3 + 1.5  # deadline + ~1 s
    assert runner.run_sync(_tasks.PidScorer(), [sample()]).values == (1.0,)  # the pool healed


@pytest.mark.parametrize(
    ("scorer", "status", "needle"),
    [
        (_tasks.SegfaultScorer(), Status.CRASHED, "SIGSEGV"),
        (_tasks.ExitScorer(), Status.CRASHED, "exited with code 5"),
        (_tasks.GrowForeverScorer(), Status.OOM, "memory"),
        (_tasks.MemoryHogScorer(), Status.OOM, "memory_limit_mb=1024"),
    ],
)
def test_crash_or_oom_fails_only_that_sample(runner, scorer, status, needle):
    scorers = [_tasks.PidScorer(), scorer, _tasks.PidScorer(), _tasks.PidScorer()]
    batch = runner.run_sync(scorers, [sample("1"), sample("2"), sample("3"), sample("4")])
    assert batch.statuses[1] is status and needle in batch.infos[1]["error"]
    assert [batch.statuses[i] for i in (0, 2, 3)] == [Status.OK] * 3
    assert batch.stats["status"][status.value] == 1 and batch.stats["failed"] == 1


def test_raising_scorers_are_scorer_errors_never_retried(runner):
    batch = runner.run_sync([_tasks.BuggyScorer(), _tasks.InlineBuggyScorer()], [sample("1"), sample("2")])
    assert batch.statuses == (Status.SCORER_ERROR, Status.SCORER_ERROR)
    assert batch.infos[0]["error"] == "KeyError: 'missing'" and ", in score" in batch.infos[0]["traceback"]
    assert batch.infos[1]["error"] == "RuntimeError: inline bug"
    assert batch.stats["retries"] == 0


def test_thread_deadline_counts_execution_not_queueing():
    with Runner(threads=1) as r:  # one thread at a time: samples queue for it
        batch = r.run_sync(_tasks.SlowThreadScorer(), [sample(f"0.1{i}") for i in range(4)])  # timeout 0.2
        assert batch.status_counts()["ok"] == 4  # 0.46 s in all, each within its 0.2 s
        assert sum(batch.exec_s) > 0.4 and max(batch.queue_s) > 0.25
        slow = r.run_sync(_tasks.SlowThreadScorer(), [sample("2")])
        assert slow.statuses == (Status.TIMEOUT,) and "thread cannot be" in slow.infos[0]["error"]


def test_execution_override_and_quick_path():
    with Runner(execution="inline") as r:
        batch = r.run_sync(_tasks.PidScorer(), [sample()])
        assert batch[0].info["pid"] == os.getpid()
        assert r.pool_stats() is None  # no worker pool was ever created
    with Runner() as r:
        assert r.run_sync(_tasks.QuickScorer(), [sample("5", "5")])[0].info["by"] == "quick"
        assert r.pool_stats() is None


def test_worker_recycling_defaults():
    cfg = RunnerConfig()
    assert cfg.max_tasks_per_worker == 10_000 and cfg.worker_recycle_memory_mb is None
    assert RunnerConfig(memory_limit_mb=1024).worker_recycle_memory_mb == 768
    assert RunnerConfig(memory_limit_mb=1024, recycle_memory_mb=900).worker_recycle_memory_mb == 900
    with Runner(memory_limit_mb=512) as r:
        r.run_sync(_tasks.PidScorer(), [sample()])
        assert r.executor.pool.recycle_memory_mb == 384


def test_huge_responses_skip_quick_for_process_scorers():
    # quick() has no deadline; on a multi-megabyte response even linear work is seconds in the loop
    huge = "5" * 300_000
    with Runner(workers=1) as r:
        batch = r.run_sync(_tasks.QuickScorer(), [sample("5", "5"), sample(huge, huge)])
    assert batch[0].info["by"] == "quick" and batch[1].info["by"] == "score"


def test_process_work_is_started_before_inline_work():
    with Runner(workers=1, dedup=False) as r:
        r.run_sync(_tasks.PidScorer(), [sample()])  # the worker is up
        probe = _tasks.SubmittedFirstProbe(r)
        scorers = [probe, _tasks.SleepScorer(), probe]
        batch = r.run_sync(scorers, [sample("a"), Sample("0.2", task="test"), sample("b")])
    assert batch[0].info["pool_busy"] and batch[2].info["pool_busy"]


def test_bad_execution_is_a_config_error():
    with Runner() as r, pytest.raises(ConfigError, match="inline, thread, process"):
        r.run_sync(_tasks.BadExecutionScorer(), [sample()])
    with Runner() as r, pytest.raises(TypeError, match=r"samples\[1\]"):
        r.run_sync(_tasks.DictScorer(), [sample(), "not a sample"])


# -- failure policy ----------------------------------------------------------------------------------


def test_on_error_values_keep_statuses():
    samples = [sample("1"), sample("2")]
    scorers = [_tasks.DictScorer(), _tasks.InlineBuggyScorer()]
    for on_error, expected in [(0.0, 0.0), (-1.0, -1.0), (None, None)]:
        with Runner(on_error=on_error) as r:
            batch = r.run_sync(scorers, samples)
        assert batch.statuses[1] is Status.SCORER_ERROR and batch.values[1] is None
        assert batch.rewards() == [0.5, expected]
        assert batch.rewards(-5.0) == [0.5, -5.0]
    with Runner(on_error=float("nan")) as r:
        rewards = r.run_sync(scorers, samples).rewards()
    assert rewards[0] == 0.5 and math.isnan(rewards[1])


def test_on_error_raise_names_the_first_failed_sample_after_the_batch():
    scorer = _tasks.InlineCountingScorer()
    with Runner(on_error="raise") as r:
        assert r.run_sync(scorer, [sample("ok")]).values == (0.0,)
        mixed = [scorer, _tasks.InlineBuggyScorer(), scorer, _tasks.BadReturnScorer()]
        samples = [sample(str(i), uid=f"u{i}") for i in range(4)]
        with pytest.raises(ScoringError) as info:
            r.run_sync(mixed, samples)
        message = str(info.value)
        assert "sample 1 (uid='u1', task='test')" in message and "scorer_error" in message
        assert "2 of 4 sample(s) failed" in message
        assert scorer.calls == {"ok": 1, "0": 1, "2": 1}  # the whole batch ran first
        assert info.value.batch.statuses[3] is Status.SCORER_ERROR
        with pytest.raises(ScoringError, match="inline bug"):
            asyncio.run(r.submit(_tasks.InlineBuggyScorer(), sample()))


# -- retries -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("error", ["infra", "returned"])
def test_infra_errors_are_retried_with_backoff(error):
    scorer = _tasks.FlakyScorer(failures=2, error=error)  # fails twice, succeeds on the 3rd try
    with Runner(backoff_base_s=0.01) as r:
        batch = r.run_sync(scorer, [sample("a"), sample("b")])
    assert batch.values == (1.0, 1.0) and [i["calls"] for i in batch.infos] == [3, 3]
    assert [i["retries"] for i in batch.infos] == [2, 2] and batch.stats["retries"] == 4


def test_retries_stop_at_the_per_sample_limit_and_the_batch_budget():
    scorer = _tasks.FlakyScorer(failures=100)
    with Runner(retries=2, backoff_base_s=0.001) as r:
        batch = r.run_sync(scorer, [sample("a")])
    assert batch.statuses == (Status.INFRA_ERROR,) and scorer.calls == {"a": 3}
    assert batch[0].info["retries"] == 2 and "server down (call 3)" in batch[0].info["error"]
    scorer = _tasks.FlakyScorer(failures=100)
    with Runner(retries=3, retry_budget=5, backoff_base_s=0.001) as r:
        batch = r.run_sync(scorer, [sample(str(i)) for i in range(4)])
    assert batch.status_counts()["infra_error"] == 4 and batch.stats["retries"] == 5
    assert sum(scorer.calls.values()) == 4 + 5
    assert any(info.get("retry_budget_exhausted") for info in batch.infos)
    assert batch.rewards() == [0.0] * 4  # an infra failure gets the failure policy, never "wrong"


def test_wrong_answers_are_never_retried():
    scorer = _tasks.WrongAnswerScorer()
    with Runner() as r:
        batch = r.run_sync(scorer, [sample(str(i)) for i in range(5)])
    assert batch.values == (0.0,) * 5 and scorer.calls == 5 and batch.stats["retries"] == 0


def test_rate_limited_from_a_worker_process_keeps_its_type(runner, tmp_path):
    scorer = _tasks.FileFlakyScorer(tmp_path / "calls", failures=2)
    batch = runner.run_sync(scorer, [sample()])
    assert batch.values == (1.0,) and batch[0].info["retries"] == 2
    err = pickle.loads(pickle.dumps(RateLimited("slow down", retry_after=3)))
    assert isinstance(err, InfraError) and err.retry_after == 3.0 and str(err) == "slow down"


# -- de-duplication and cache ------------------------------------------------------------------------


def grpo_batch(n_prompts=4, group=16):
    """GRPO-shaped: each prompt has `group` rollouts; rollouts repeat one of 4 answers per prompt."""
    out = []
    for p in range(n_prompts):
        for k in range(group):
            out.append(Sample(f"answer {k % 4}", "answer 0", "math", f"prompt {p}", {"index": 0}, f"{p}-{k}"))
    return out


def test_identical_samples_are_scored_once_per_batch(runner, tmp_path):
    calls = tmp_path / "calls"
    samples = [Sample(f"answer {k % 4}", "answer 0", "math", "p", {"index": 0}, f"u{k}") for k in range(64)]
    batch = runner.run_sync(_tasks.CountingScorer(calls), samples)
    assert _tasks.count_calls(calls) == 4  # 64 rollouts, 4 distinct answers: 4 scorer calls
    assert batch.values == tuple(1.0 if k % 4 == 0 else 0.0 for k in range(64))
    assert batch.stats["unique"] == 4 and batch.stats["deduplicated"] == 60
    assert [batch.infos[k].get("dedup_of") for k in range(6)] == [None, None, None, None, 0, 1]
    assert len({id(info) for info in batch.infos}) == 64  # every copy has its own info dict
    scores = list(batch)
    assert scores[4] == Score(1.0, metrics={"pred": "answer 0"}, info={"dedup_of": 0})


def test_dedup_respects_metadata_prompt_and_options(runner, tmp_path):
    calls = tmp_path / "calls"
    batch = runner.run_sync(_tasks.CountingScorer(calls), grpo_batch())  # different prompts: 4 x 4
    assert _tasks.count_calls(calls) == 16 and batch.stats["unique"] == 16
    with Runner(dedup=False) as r:
        inline = _tasks.InlineCountingScorer()
        r.run_sync(inline, [sample("same")] * 10)
        assert inline.calls == {"same": 10}
    nondeterministic = _tasks.NondeterministicScorer()
    runner.run_sync(nondeterministic, [sample("same")] * 10)
    assert nondeterministic.calls == {"same": 10}


def test_dedup_with_unhashable_ground_truths(runner):
    import numpy as np

    scorer = _tasks.InlineCountingScorer()
    truths = [{"target": ["Paris"]}, ["a", {"b": 1}], np.arange(3)]
    samples = [Sample("r", truths[i % 3]) for i in range(30)] + [Sample("r", object())] * 2
    with Runner(execution="thread") as threaded:  # de-duplication keys scorers that are not inline
        batch = threaded.run_sync(scorer, samples)
    assert scorer.calls == {"r": 3 + 2} and batch.stats["unique"] == 5


def test_inline_scorers_are_not_deduplicated_hashing_costs_what_scoring_does(runner):
    scorer = _tasks.InlineCountingScorer()
    batch = runner.run_sync(scorer, [Sample("r", "x")] * 10)
    assert scorer.calls == {"r": 10} and batch.stats["unique"] == 10


def test_cache_spans_batches_and_is_bounded(tmp_path):
    calls = tmp_path / "calls"
    scorer = _tasks.CountingScorer(calls)
    with Runner(cache_size=3, execution="inline") as r:
        first = r.run_sync(scorer, [sample(str(i), "1") for i in range(3)])
        second = r.run_sync(scorer, [sample(str(i), "1") for i in range(3)])
        assert _tasks.count_calls(calls) == 3
        assert second.values == first.values and all(i.get("cached") for i in second.infos)
        assert second.stats["cache_hits"] == 3 and second.stats["executed"] == 0
        r.run_sync(scorer, [sample("new", "1")])  # evicts the least recently used entry ("0")
        r.run_sync(scorer, [sample("0", "1"), sample("2", "1")])
        assert _tasks.count_calls(calls) == 5
        # another scorer configuration never hits these entries
        r.run_sync(_tasks.CountingScorer(tmp_path / "other"), [sample("2", "1")])
        assert _tasks.count_calls(tmp_path / "other") == 1


def test_failures_other_than_bad_input_are_not_cached(runner):
    with Runner(cache_size=10, workers=1) as r:
        r.run_sync(_tasks.SleepScorer(), [sample("60")])
        again = r.run_sync(_tasks.SleepScorer(), [sample("60")])
        assert again.statuses == (Status.TIMEOUT,) and "cached" not in again[0].info


# -- async, batch and streaming ----------------------------------------------------------------------


def test_async_scorers_are_awaited_under_a_deadline():
    with Runner() as r:
        start = time.monotonic()
        batch = r.run_sync(_tasks.AsyncScorer(), [sample(f"0.2{i}") for i in range(20)] + [sample("30")])
        assert time.monotonic() - start < 5  # concurrent, and the 30 s one is cut at 0.5 s
        assert batch.status_counts()["ok"] == 20 and batch.statuses[-1] is Status.TIMEOUT
        assert "0.5 s deadline" in batch.infos[-1]["error"]


def test_async_custom_function_scorer():
    scorer = CustomFunctionScorer(_tasks.async_compute_score)
    assert scorer.is_async
    with Runner() as r:
        batch = r.run_sync(scorer, [sample("a", "a"), sample("b", "a")])
    assert batch.values == (1.0, 0.0) and batch.metrics["source"] == ("test", "test")


def test_batch_scorer_gets_chunks(runner, tmp_path):
    chunks = tmp_path / "chunks"
    scorer = _tasks.BatchScorer(chunks)
    batch = runner.run_sync(scorer, [sample(str(i), "3") for i in range(10)])  # batch_size=4
    assert sorted(int(n) for n in chunks.read_text().split()) == [2, 4, 4]
    assert batch.values == tuple(float(i == 3) for i in range(10))


def test_a_failing_chunk_fails_only_its_samples(runner):
    responses = ["a", "b", "c", "d", "e", "boom", "g", "h", "i", "j", "hang", "l"]
    start = time.monotonic()
    batch = runner.run_sync(_tasks.BatchScorer(), [sample(x, "a") for x in responses])
    assert time.monotonic() - start < 0.2 * 4 + 1.5  # the hanging chunk's deadline is 0.2 s * 4
    assert batch.statuses[:4] == (Status.OK,) * 4
    assert batch.statuses[4:8] == (Status.SCORER_ERROR,) * 4 and "bad chunk" in batch.infos[5]["error"]
    assert batch.statuses[8:] == (Status.TIMEOUT,) * 4
    wrong = runner.run_sync(_tasks.WrongLengthBatchScorer(), [sample("1"), sample("2")])
    assert wrong.statuses == (Status.SCORER_ERROR,) * 2 and "one Score per sample" in wrong.infos[0]["error"]


def test_submit_from_another_loop_and_for_a_batch_scorer(runner):
    async def main():  # the module runner's pool, used from this test's own event loop
        return await asyncio.gather(
            runner.submit(_tasks.BatchScorer(), sample("a", "a")),
            runner.submit("gsm8k", sample("#### 3", "3")),
        )

    batch_score, gsm8k = asyncio.run(main())
    assert batch_score.value == 1.0 and gsm8k.value == 1.0


def test_submit_streams_with_dedup_of_concurrent_identical_samples(tmp_path):
    calls = tmp_path / "calls"
    scorer = _tasks.CountingScorer(calls)
    scorer.execution = "inline"
    thread_scorer = _tasks.ThreadScorer()

    async def main():
        async with Runner(cache_size=10) as r:
            same = await asyncio.gather(*(r.submit(thread_scorer, sample("0.1")) for _ in range(5)))
            one = await r.submit(scorer, sample("a", "a"))
            again = await r.submit(scorer, sample("a", "a"))
            return same, one, again

    same, one, again = asyncio.run(main())
    assert sum(1 for s in same if s.info.get("dedup")) == 4 and all(s.ok for s in same)
    assert one.value == 1.0 and "exec_s" in one.info and "queue_s" in one.info
    assert again.info.get("cached") and _tasks.count_calls(calls) == 1


# -- sync facade, threads, real math-verify ----------------------------------------------------------


def test_run_sync_inside_a_running_event_loop():
    async def main():
        with Runner() as r:
            return r.run_sync(_tasks.DictScorer(), [sample()]), threading.get_ident()

    batch, _ = asyncio.run(main())
    assert batch.values == (0.5,)


def test_run_sync_from_a_scorer_running_on_the_runners_own_loop():
    with Runner() as r:
        assert r.run_sync(_tasks.NestedScorer(r), [sample("a"), sample("b")]).values == (1.0, 1.0)


def test_run_inside_the_callers_loop():
    async def main():
        async with Runner() as r:
            return await r.run(_tasks.DictScorer(), [sample(), sample("other")])

    assert asyncio.run(main()).values == (0.5, 0.5)


MATH_CASES = [
    ("\\frac{1}{2}", "So the answer is $0.5$.", 1.0),
    ("\\frac{1}{2}", "The result is $\\boxed{\\frac{2}{4}}$", 1.0),
    ("3", "We get $\\boxed{4}$", 0.0),
    ("x^2+2x+1", "Expanding, $\\boxed{(x+1)^2}$", 1.0),
    ("\\sqrt{2}", "$\\boxed{1.5}$", 0.0),
]


def test_math_verify_from_four_threads_gives_correct_verdicts(runner):
    scorer = get_scorer("math_verify")
    results = {}

    def work(t):
        samples = [Sample(resp, gold, "math_verify") for gold, resp, _ in MATH_CASES]
        results[t] = runner.run_sync(scorer, samples)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    expected = tuple(v for _, _, v in MATH_CASES)
    assert sorted(results) == [0, 1, 2, 3]
    for batch in results.values():
        assert batch.statuses == (Status.OK,) * len(MATH_CASES), [i.get("error") for i in batch.infos]
        assert batch.values == expected


# -- report, logging, lifecycle ----------------------------------------------------------------------


def test_batch_report(runner):
    batch = runner.run_sync(
        _tasks.SleepScorer(), [sample("0.05"), sample("0.05"), sample("0.01"), sample("60")]
    )
    stats = batch.stats
    assert stats["n"] == 4 and stats["unique"] == 3 and stats["executed"] == 3
    assert stats["status"]["ok"] == 3 and stats["status"]["timeout"] == 1 and stats["failed"] == 1
    assert stats["samples_per_s"] > 0 and stats["wall_s"] > 0
    assert 0 < stats["latency_p50_s"] <= stats["latency_p99_s"] <= stats["wall_s"]
    assert stats["exec_p99_s"] >= 0.3  # the timed-out sample executed for its whole deadline
    assert batch.exec_s[0] >= 0.05 and batch.exec_s[0] == batch.exec_s[1]
    assert all(q >= 0 for q in batch.queue_s)
    restored = pickle.loads(pickle.dumps(batch))
    assert restored == batch and restored.stats == stats and restored.exec_s == batch.exec_s
    plain = ScoreBatch.from_scores(list(batch))
    assert plain == batch and plain.stats == {} and plain.queue_s == ()


def test_slow_samples_are_logged(caplog):
    with Runner(slow_sample_s=0.05) as r, caplog.at_level(logging.WARNING, logger="rewardloop"):
        r.run_sync(_tasks.SlowInlineScorer(), [Sample("0.1", task="gsm8k", metadata={"index": 7}, uid="u-9")])
    (record,) = [r for r in caplog.records if "slow sample" in r.getMessage()]
    assert all(part in record.getMessage() for part in ("#0", "uid=u-9", "index=7", "task=gsm8k"))


def test_on_done_reports_every_sample():
    seen = []
    with Runner() as r:
        r.run_sync(_tasks.DictScorer(), [sample("a"), sample("a"), sample("b")], on_done=seen.append)
    assert sorted(seen) == [0, 1, 2]


def test_close_stops_workers_and_rejects_new_work():
    r = Runner(workers=1)
    r.run_sync(_tasks.PidScorer(), [sample()])
    pids = r.executor.pool.worker_pids()
    assert pids
    r.close()
    r.close()  # idempotent
    assert r.closed and _tasks.wait_until_gone(pids) == []
    with pytest.raises(RuntimeError, match="closed"):
        r.run_sync(_tasks.DictScorer(), [sample()])


def test_quick_verdicts_settle_before_any_worker_or_key():
    # a process scorer whose quick() decides every sample: no worker starts, no sample is keyed for dedup
    scorer = _tasks.QuickScorer()
    with Runner(workers=1) as r:
        batch = r.run_sync(scorer, [Sample("5", "5")] * 3 + [Sample("7", "7")])
        assert r.executor.pool is None  # nothing left the event loop
        assert [i["by"] for i in batch.infos] == ["quick"] * 4 and batch.stats["unique"] == 4
        # undecided samples still go to a worker, once each, and do not ask quick() again there
        mixed = r.run_sync(scorer, [Sample("5", "5"), Sample("5", "6"), Sample("5", "6")])
    assert [i["by"] for i in mixed.infos] == ["quick", "score", "score"]
    assert mixed.infos[2].get("dedup_of") == 1  # identical undecided samples are still de-duplicated


def test_quick_pass_coerces_contains_and_reports_like_any_attempt():
    # what quick() returns is coerced like score()'s result; a raising quick() fails only its sample; every
    # settled sample reaches on_done and the batch report
    seen = []
    samples = [Sample(r, "") for r in ("f", "boom", "d", "s", "x")]
    with Runner(workers=1) as r:
        batch = asyncio.run(r.run(_tasks.OddQuickScorer(), samples, on_done=seen.append))
    assert batch.values[0] == 0.25 and batch.values[2] == 0.75 and batch.values[3] == 1.0
    assert batch.metrics["acc"][2] is True
    assert batch.statuses[1] is Status.SCORER_ERROR and "quick exploded" in batch.infos[1]["error"]
    assert batch.values[4] == 0.5 and batch.infos[4]["by"] == "score"
    assert sorted(seen) == [0, 1, 2, 3, 4]
    assert batch.stats["executed"] == 5 and batch.stats["status"]["scorer_error"] == 1

"""score_one / ascore_one: execution modes, deadlines, and every per-sample failure mapped to a status."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest

from rewardloop.errors import (
    ConfigError,
    InvalidSampleError,
    ScoringError,
    ScoringTimeout,
    WorkerCrashed,
)
from rewardloop.execution._single import ascore_one, failure_score, score_one
from rewardloop.execution._workers import WorkerPool, default_pool
from rewardloop.types import Sample, Score, Status

from . import _tasks


@pytest.fixture(scope="module")
def pool():
    with WorkerPool(2, memory_limit_mb=1024) as p:
        yield p


def sample(response="x", ground_truth="y"):
    return Sample(response=response, ground_truth=ground_truth, task="test")


def test_quick_verdict_never_touches_a_worker():
    lazy = WorkerPool(1)
    score = score_one(_tasks.QuickScorer(), sample("42", "42"), pool=lazy)
    assert score.value == 1.0
    assert score.info["by"] == "quick"
    assert score.info["exec_s"] >= 0
    assert lazy.stats().workers_started == 0
    lazy.close()


def test_undecided_quick_falls_through_to_the_worker(pool):
    score = score_one(_tasks.QuickScorer(), sample("41", "42"), pool=pool)
    assert score.ok
    assert score.value == 0.0
    assert score.info["by"] == "score"
    assert score.info["pid"] in pool.worker_pids()
    assert score.info["exec_s"] > 0


def test_process_scorer_times_out_and_pool_recovers(pool):
    start = time.monotonic()
    score = score_one(_tasks.SleepScorer(), sample("60"), pool=pool)  # scorer.timeout_s = 0.3
    assert score.status is Status.TIMEOUT
    assert score.value is None
    assert "deadline" in score.info["error"]
    assert time.monotonic() - start < 5
    assert score_one(_tasks.PidScorer(), sample(), pool=pool).ok


def test_explicit_timeout_overrides_the_scorer_default(pool):
    # 0.5 s of work: over SleepScorer.timeout_s (0.3) but within the explicit 3 s
    assert score_one(_tasks.SleepScorer(), sample("0.5"), timeout=3, pool=pool).value == 1.0


@pytest.mark.parametrize(
    ("scorer", "status", "error"),
    [
        (_tasks.ExitScorer(), Status.CRASHED, "WorkerCrashed: worker process"),
        (_tasks.MemoryHogScorer(), Status.OOM, "WorkerCrashed:"),
        (_tasks.InvalidScorer(), Status.INVALID_INPUT, "InvalidSampleError: ground_truth must be a str"),
        (_tasks.BuggyScorer(), Status.SCORER_ERROR, "KeyError: 'missing'"),
    ],
)
def test_process_failures_become_statuses(pool, scorer, status, error):
    score = score_one(scorer, sample(), pool=pool)
    assert score.status is status
    assert score.value is None
    assert score.info["error"].startswith(error)
    assert "exec_s" in score.info
    if status in (Status.SCORER_ERROR, Status.INVALID_INPUT):
        assert "_tasks.py" in score.info["traceback"]  # the worker-side traceback
        assert ", in score" in score.info["traceback"]


def test_inline_scorer_runs_in_caller_and_coerces_dicts():
    score = score_one(_tasks.DictScorer(), sample())
    assert score.ok
    assert score.value == 0.5
    assert score.metrics == {"acc": True}


def test_inline_exception_and_bad_return_are_scorer_errors():
    score = score_one(_tasks.InlineBuggyScorer(), sample())
    assert score.status is Status.SCORER_ERROR
    assert score.info["error"] == "RuntimeError: inline bug"
    assert ", in score" in score.info["traceback"]
    assert score.info["traceback"].rstrip().endswith("RuntimeError: inline bug")
    bad = score_one(_tasks.BadReturnScorer(), sample())
    assert bad.status is Status.SCORER_ERROR
    assert "str" in bad.info["error"]


def test_thread_scorer_without_a_deadline_runs_in_the_calling_thread():
    score = score_one(_tasks.ThreadScorer(), sample(""))
    assert score.info["thread"] == threading.get_ident()
    assert score.info["pid"] == os.getpid()


def test_thread_scorer_past_its_deadline_times_out_in_the_sync_path():
    start = time.perf_counter()
    score = score_one(_tasks.SlowThreadScorer(), sample("30"))  # sleeps 30 s; deadline 0.2 s
    assert score.status is Status.TIMEOUT and "deadline" in score.info["error"]
    assert time.perf_counter() - start < 10
    fast = score_one(_tasks.SlowThreadScorer(), sample("0"))
    assert fast.ok and fast.info["thread"] != threading.get_ident()  # in its own thread, under the deadline


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_a_non_finite_reward_is_a_scorer_error_on_the_single_path(bad):
    from rewardloop.scorers._base import as_scorer

    for result in (bad, {"score": bad}, [bad], Score(bad)):
        score = score_one(as_scorer(lambda s, r=result: r, name="nan_fn"), sample())
        assert score.status is Status.SCORER_ERROR, result
        assert "finite" in score.info["error"] and "nan_fn" in score.info["error"]


def test_unknown_execution_is_a_config_error():
    with pytest.raises(ConfigError, match="inline, thread, process"):
        score_one(_tasks.BadExecutionScorer(), sample())


def test_bad_timeout_is_a_config_error():
    with pytest.raises(ConfigError, match="timeout"):
        score_one(_tasks.DictScorer(), sample(), timeout=-1)


def test_default_pool_is_used_without_a_pool():
    score = score_one(_tasks.PidScorer(), sample())
    assert score.ok
    assert score.info["pid"] in default_pool().worker_pids()


def test_ascore_one_all_paths(pool):
    async def main():
        return await asyncio.gather(
            ascore_one(_tasks.QuickScorer(), sample("a", "a"), pool=pool),
            ascore_one(_tasks.PidScorer(), sample(), pool=pool),
            ascore_one(_tasks.SleepScorer(), sample("60"), pool=pool),
            ascore_one(_tasks.BuggyScorer(), sample(), pool=pool),
            ascore_one(_tasks.DictScorer(), sample()),
            ascore_one(_tasks.ThreadScorer(), sample("")),
            ascore_one(_tasks.SlowThreadScorer(), sample("1.0")),
        )

    start = time.monotonic()
    quick, proc, slow, buggy, inline, thread, slow_thread = asyncio.run(main())
    assert time.monotonic() - start < 5
    assert quick.info["by"] == "quick"
    assert proc.ok and proc.info["pid"] != os.getpid()
    assert slow.status is Status.TIMEOUT
    assert buggy.status is Status.SCORER_ERROR
    assert inline.value == 0.5
    assert thread.ok and thread.info["thread"] != threading.get_ident()  # ran off the event loop
    assert slow_thread.status is Status.TIMEOUT
    assert "thread cannot be stopped" in slow_thread.info["error"]
    assert all("exec_s" in s.info for s in (quick, proc, slow, buggy, inline, thread, slow_thread))


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (ScoringTimeout("late"), Status.TIMEOUT),
        (WorkerCrashed("died"), Status.CRASHED),
        (WorkerCrashed("big", oom=True), Status.OOM),
        (InvalidSampleError("bad"), Status.INVALID_INPUT),
        (ScoringError("other"), Status.SCORER_ERROR),
        (ZeroDivisionError("division by zero"), Status.SCORER_ERROR),
    ],
)
def test_failure_score_mapping(exc, status):
    score = failure_score(exc)
    assert isinstance(score, Score)
    assert score.status is status
    assert score.info["error"] == f"{type(exc).__name__}: {exc}"

"""Breaker probes of the execution engine's documented guarantees (docs/execution.md, docs/composite.md).

Written from the documentation and the public API only. Each test's docstring names the promise it checks.
A finding the code still gets wrong is a strict xfail; guarantees that held are ordinary tests.
Deadline probes give the scorer >= 10x the deadline of work, so no verdict depends on machine load.
"""

from __future__ import annotations

import asyncio
import math
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from rewardloop import (
    ConfigError,
    InfraError,
    InvalidSampleError,
    Runner,
    RunnerConfig,
    Sample,
    Score,
    Scorer,
    ScoringError,
    Status,
    as_scorer,
    score,
)
from rewardloop.scorers import GroupScorer

DEADLINE = 1.0
HANG = 30.0  # 30x the deadline


# --------------------------------------------------------------------------- scorers (module level: picklable)


def _log(path: str | None) -> None:
    if path:
        with open(path, "a") as fh:
            fh.write(f"{os.getpid()}\n")


def _calls(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


class Behave(Scorer):
    """Does what the response says: ok, hang, exit, sysexit, raise, invalid, nan, inf, ninf, str, infra,
    dict_nan, list_inf, score_nan, score_ok."""

    name = "behave"
    execution = "process"
    timeout_s = None

    def __init__(self, execution: str = "process", log: str | None = None) -> None:
        self.execution = execution
        self.log = log

    def score(self, sample: Sample) -> Any:
        _log(self.log)
        r = sample.response
        if r == "hang":
            time.sleep(HANG)
            return 1.0
        if r == "exit":
            os._exit(3)
        if r == "sysexit":
            sys.exit(4)
        if r == "raise":
            raise ValueError("boom from scorer")
        if r == "invalid":
            raise InvalidSampleError("bad sample field")
        if r == "nan":
            return float("nan")
        if r == "inf":
            return float("inf")
        if r == "ninf":
            return float("-inf")
        if r == "str":
            return "not a score"
        if r == "infra":
            raise InfraError("dependency down")
        if r == "dict_nan":
            return {"score": float("nan"), "acc": 1.0}
        if r == "list_inf":
            return [float("inf"), 2.0]
        if r == "score_nan":
            return Score(float("nan"))
        return 1.0 if r == "ok" else 0.5


class AsyncHang(Scorer):
    name = "async_hang"
    is_async = True
    timeout_s = None

    def score(self, sample: Sample) -> Any:  # pragma: no cover - the async path is used
        raise AssertionError("sync path used")

    async def ascore(self, sample: Sample) -> Any:
        if sample.response == "hang":
            await asyncio.sleep(HANG)
        if sample.response == "nan":
            return float("nan")
        return 1.0


class BatchBehave(Scorer):
    name = "batch_behave"
    execution = "process"
    supports_batch = True
    timeout_s = None

    def score(self, sample: Sample) -> Any:
        return 1.0

    def score_batch(self, samples: list[Sample]) -> list[Any]:
        if any(s.response == "hang" for s in samples):
            time.sleep(HANG)
        if any(s.response == "short" for s in samples):
            return [Score(1.0)] * (len(samples) - 1)
        return [Score(float("nan")) if s.response == "nan" else Score(1.0) for s in samples]


class SizeGroup(GroupScorer):
    """Reward = the size of the group the runner handed over; 'nan' members get NaN; 'hang' groups hang."""

    name = "size_group"
    execution = "process"
    timeout_s = None

    def __init__(self, execution: str = "process", group_size: int | None = None) -> None:
        self.execution = execution
        self.group_size = group_size
        self.gather_timeout_s = 60.0

    def score_group(self, samples: list[Sample], base: Any = None) -> list[Score]:
        if any(s.response == "hang" for s in samples):
            time.sleep(HANG)
        return [Score(float("nan") if s.response == "nan" else float(len(samples))) for s in samples]


class GtEcho(Scorer):
    """Counts calls; reward = 1 when the response equals repr(ground_truth)."""

    name = "gt_echo"
    execution = "thread"

    def __init__(self, log: str) -> None:
        self.log = log

    def score(self, sample: Sample) -> Any:
        _log(self.log)
        return float(sample.response == repr(sample.ground_truth))


class Flaky(Scorer):
    """Fails with InfraError on its first `fails` calls (counted in a file), then ok."""

    name = "flaky"
    execution = "thread"

    def __init__(self, log: str, fails: int) -> None:
        self.log = log
        self.fails = fails

    def score(self, sample: Sample) -> Any:
        n = _calls(Path(self.log))
        _log(self.log)
        if n < self.fails:
            raise InfraError(f"flake {n}")
        return 1.0


def plain_fn(sample: Sample) -> float:
    return float(len(sample.response))


def _fast_runner(**kw: Any) -> Runner:
    kw.setdefault("workers", 2)
    kw.setdefault("backoff_base_s", 0.01)
    kw.setdefault("backoff_max_s", 0.02)
    return Runner(**kw)


def S(resp: str, **kw: Any) -> Sample:
    return Sample(response=resp, **kw)


# --------------------------------------------------------------------------- 1. deadlines


@pytest.mark.parametrize("execution", ["process", "thread"])
def test_deadline_hanging_sample_times_out_exec_within_deadline_plus_1s(execution: str) -> None:
    """Deadlines: a sample past timeout_s is `timeout`; exec_s = deadline plus the kill's delay (<= +1 s),
    however long it queued; the batch is released at the deadline (process: killed, thread: not waited)."""
    with _fast_runner(timeout_s=DEADLINE) as r:
        t0 = time.monotonic()
        b = r.run_sync(Behave(execution), [S("hang"), S("ok"), S("hang"), S("ok")])
        wall = time.monotonic() - t0
    assert [s.status for s in b] == [Status.TIMEOUT, Status.OK, Status.TIMEOUT, Status.OK]
    for i in (0, 2):
        assert DEADLINE - 0.05 <= b.exec_s[i] <= DEADLINE + 1.0, b.exec_s
    assert wall < HANG / 2


def test_deadline_queue_time_not_counted_many_hangs_on_two_workers() -> None:
    """Deadlines count from execution start: 6 hanging samples on 2 workers each report exec_s <= deadline+1 s,
    the waiting shows up in queue_s."""
    with _fast_runner(timeout_s=DEADLINE, workers=2) as r:
        b = r.run_sync(Behave(), [S("hang")] * 1 + [S("hang", metadata={"i": i}) for i in range(5)])
    assert all(s.status == Status.TIMEOUT for s in b)
    assert max(b.exec_s) <= DEADLINE + 1.0, b.exec_s
    assert max(b.queue_s) >= DEADLINE * 0.9, b.queue_s


def test_deadline_async_scorer_cancelled() -> None:
    """Async mode: `asyncio.wait_for`, cancelled at the deadline -> `timeout`, the others ok."""
    with _fast_runner(timeout_s=DEADLINE) as r:
        b = r.run_sync(AsyncHang(), [S("hang"), S("ok")])
    assert [s.status for s in b] == [Status.TIMEOUT, Status.OK]
    assert b.exec_s[0] <= DEADLINE + 1.0


def test_deadline_batch_scorer_chunk_fails_only_its_samples() -> None:
    """Batch scorers: a chunk that times out (deadline timeout*len(chunk)) fails only its own samples."""
    with _fast_runner(timeout_s=DEADLINE, batch_size=2) as r:
        b = r.run_sync(BatchBehave(), [S("hang"), S("a"), S("b"), S("c")])
    assert [s.status for s in b] == [Status.TIMEOUT, Status.TIMEOUT, Status.OK, Status.OK]


def test_deadline_of_a_group_times_out_every_member_and_only_them() -> None:
    """Group deadline: a group past its deadline is `timeout` for every member and only them."""
    with _fast_runner(timeout_s=DEADLINE) as r:
        b = r.run_sync(
            SizeGroup(), [S("hang", uid="g1"), S("x", uid="g2"), S("x", uid="g1"), S("x", uid="g2")]
        )
    assert [s.status for s in b] == [Status.TIMEOUT, Status.OK, Status.TIMEOUT, Status.OK]
    assert b[1].value == 2.0


def test_score_one_deadline_is_enforced() -> None:
    """score_one (`rewardloop.score`) uses the same modes, deadlines and statuses as the Runner."""
    t0 = time.monotonic()
    s = score(S("hang"), Behave(), timeout=DEADLINE)
    assert s.status == Status.TIMEOUT
    assert time.monotonic() - t0 < HANG / 2


# --------------------------------------------------------------------------- 2. statuses


@pytest.mark.parametrize(
    ("resp", "status"),
    [
        ("exit", Status.CRASHED),
        ("sysexit", Status.CRASHED),
        ("raise", Status.SCORER_ERROR),
        ("invalid", Status.INVALID_INPUT),
        ("str", Status.SCORER_ERROR),
    ],
)
def test_status_table_in_process(resp: str, status: Status) -> None:
    """Status table: os._exit / sys.exit -> crashed, raise -> scorer_error (with worker traceback),
    InvalidSampleError -> invalid_input, a non-score return -> scorer_error."""
    with _fast_runner() as r:
        b = r.run_sync(Behave(), [S(resp), S("ok")])
    assert b[0].status == status, b[0]
    assert b[1].status == Status.OK
    assert b[0].info.get("error"), b[0].info
    if resp == "raise":
        assert "ValueError: boom from scorer" in b[0].info["error"]
        assert "boom from scorer" in b[0].info.get("traceback", "")


def test_statuses_identical_across_local_modes() -> None:
    """One scheduler: inline / thread / process give the same statuses for the same failures
    (exit only in process, where the worker can die)."""
    resps = ["ok", "raise", "invalid", "str", "nan", "infra", "dict_nan", "list_inf", "score_nan"]
    got = {}
    for mode in ("inline", "thread", "process"):
        with _fast_runner(retries=1) as r:
            got[mode] = [s.status for s in r.run_sync(Behave(mode), [S(x) for x in resps])]
    assert got["inline"] == got["thread"] == got["process"], got


# --------------------------------------------------------------------------- 3. crash isolation / no loss


def test_crashes_cost_only_their_sample_and_order_is_kept() -> None:
    """A crashed or killed worker fails only the sample it held; the pool replaces it; input order kept."""
    resps = ["exit" if i % 5 == 0 else f"r{i}" for i in range(20)]
    with _fast_runner(workers=2) as r:
        b = r.run_sync(Behave(), [S(x) for x in resps])
        stats = r.pool_stats()
    assert len(b) == 20
    for i, s in enumerate(b):
        assert s.status == (Status.CRASHED if i % 5 == 0 else Status.OK), (i, s)
    assert stats


def test_run_accepts_a_generator_and_loses_nothing() -> None:
    """`run(scorer, samples)` takes an iterable; results come back in input order, one per sample."""
    with _fast_runner() as r:
        b = r.run_sync(plain_fn, (S("x" * i) for i in range(50)))
    assert [s.value for s in b] == [float(i) for i in range(50)]


# --------------------------------------------------------------------------- 4. non-finite rewards


@pytest.mark.parametrize("resp", ["nan", "inf", "ninf", "dict_nan", "list_inf", "score_nan"])
@pytest.mark.parametrize("mode", ["inline", "process"])
def test_non_finite_reward_is_scorer_error(resp: str, mode: str) -> None:
    """Rewards are finite: NaN / +-inf as number, dict score, list first item or Score -> scorer_error naming
    the value; on_error decides the reward."""
    with _fast_runner(on_error=-1.0) as r:
        b = r.run_sync(Behave(mode), [S(resp)])
    assert b[0].status == Status.SCORER_ERROR, b[0]
    assert b.rewards() == [-1.0]


def test_non_finite_reward_in_group_chunk_stream_and_score_one() -> None:
    """Finite rewards on every path: group, batch chunk, stream (submit), async, score_one."""
    with _fast_runner() as r:
        g = r.run_sync(SizeGroup(), [S("nan", uid="u"), S("x", uid="u")])
        c = r.run_sync(BatchBehave(), [S("nan"), S("a")])
        a = r.run_sync(AsyncHang(), [S("nan")])

        async def one() -> Score:
            return await r.submit(Behave("thread"), S("inf"))

        sub = asyncio.run(one())
    assert g[0].status == Status.SCORER_ERROR and g[1].status == Status.OK
    assert c[0].status == Status.SCORER_ERROR and c[1].status == Status.OK
    assert a[0].status == Status.SCORER_ERROR
    assert sub.status == Status.SCORER_ERROR
    assert score(S("nan"), Behave("inline")).status == Status.SCORER_ERROR


def test_batch_chunk_wrong_count_fails_only_its_chunk() -> None:
    """Batch scorers: a chunk returning the wrong number of scores fails only its own samples."""
    with _fast_runner(batch_size=2) as r:
        b = r.run_sync(BatchBehave(), [S("short"), S("a"), S("b"), S("c")])
    assert [s.status for s in b] == [Status.SCORER_ERROR] * 2 + [Status.OK] * 2


# --------------------------------------------------------------------------- 5. on_error


def test_on_error_number_none_nan_and_raise() -> None:
    """on_error: a number fills, NaN allowed, None excludes; "raise" scores the whole batch first, then raises
    ScoringError naming the first failed sample with the batch attached."""
    samples = [S("ok"), S("raise"), S("ok"), S("invalid")]
    with _fast_runner(on_error=0.25) as r:
        b = r.run_sync(Behave("inline"), samples)
    assert b.rewards() == [1.0, 0.25, 1.0, 0.25]
    assert b.rewards(None) in ([1.0, None, 1.0, None], [1.0, 1.0])
    nan = b.rewards(float("nan"))
    assert math.isnan(nan[1])
    with _fast_runner(on_error="raise") as r, pytest.raises(ScoringError) as ei:
        r.run_sync(Behave("inline"), samples)
    assert "1" in str(ei.value) and "scorer_error" in str(ei.value)
    assert len(ei.value.batch) == 4 and ei.value.batch[3].status == Status.INVALID_INPUT


def test_on_error_raise_for_submit() -> None:
    """`submit` raises for its own sample under on_error="raise"."""
    with _fast_runner(on_error="raise") as r:

        async def go() -> None:
            await r.submit(Behave("thread"), S("raise"))

        with pytest.raises(ScoringError):
            asyncio.run(go())


# --------------------------------------------------------------------------- 6. retries


def test_infra_error_retried_up_to_retries_then_infra_error(tmp_path: Path) -> None:
    """Retries: InfraError retried up to `retries`, then `infra_error` with info["retries"]."""
    log = tmp_path / "calls"
    with _fast_runner(retries=2) as r:
        b = r.run_sync(Flaky(str(log), fails=100), [S("x")])
    assert b[0].status == Status.INFRA_ERROR
    assert b[0].info.get("retries") == 2
    assert _calls(log) == 3


def test_flaky_infra_recovers(tmp_path: Path) -> None:
    """Retries: a sample whose dependency recovers within `retries` ends ok."""
    log = tmp_path / "calls"
    with _fast_runner(retries=3) as r:
        b = r.run_sync(Flaky(str(log), fails=2), [S("x")])
    assert b[0].status == Status.OK
    assert _calls(log) == 3


def test_scorer_errors_are_never_retried(tmp_path: Path) -> None:
    """Retries: wrong answers and every non-infra failure are never retried."""
    log = tmp_path / "calls"
    with _fast_runner(retries=3) as r:
        b = r.run_sync(Behave("thread", log=str(log)), [S("raise"), S("nan", uid="x")])
    assert [s.status for s in b] == [Status.SCORER_ERROR] * 2
    assert _calls(log) == 2


def test_retry_budget_exhaustion_is_flagged(tmp_path: Path) -> None:
    """Retries: the batch budget caps retries; a sample stopped by it says retry_budget_exhausted."""
    log = tmp_path / "calls"
    with _fast_runner(retries=3, retry_budget=2) as r:
        b = r.run_sync(Flaky(str(log), fails=10_000), [S(f"x{i}") for i in range(4)])
    assert all(s.status == Status.INFRA_ERROR for s in b)
    assert _calls(log) == 4 + 2
    assert any(s.info.get("retry_budget_exhausted") for s in b)


# --------------------------------------------------------------------------- 7. de-duplication


def test_dedup_scores_identical_once_ignoring_uid(tmp_path: Path) -> None:
    """Dedup: identical samples (uid ignored) are scored once; copies carry dedup_of and their own dicts."""
    log = tmp_path / "calls"
    sc = GtEcho(str(log))
    with _fast_runner() as r:
        b = r.run_sync(sc, [S("'a'", ground_truth="a", uid=f"u{i}") for i in range(8)])
    assert _calls(log) == 1
    assert all(s.value == 1.0 for s in b)
    assert [s.info.get("dedup_of") for s in list(b)[1:]] == [0] * 7
    assert b.stats["unique"] == 1
    assert b[1].info is not b[2].info


def test_dedup_keeps_types_distinct(tmp_path: Path) -> None:
    """Dedup keys keep types distinct: 1, 1.0, True and "1" are four samples."""
    log = tmp_path / "calls"
    gts = [1, 1.0, True, "1"]
    with _fast_runner() as r:
        b = r.run_sync(GtEcho(str(log)), [S(repr(g), ground_truth=g) for g in gts])
    assert _calls(log) == 4
    assert [s.value for s in b] == [1.0] * 4


def test_dedup_unhashable_and_unencodable_ground_truths(tmp_path: Path) -> None:
    """Dedup: dicts (any key order), lists, sets work; a cycle / deep nesting / default repr gives no key and the
    sample is scored on its own, never a crash."""
    log = tmp_path / "calls"
    cyc: list[Any] = []
    cyc.append(cyc)
    deep: Any = 0
    for _ in range(100):
        deep = [deep]

    class Opaque:
        pass

    gts: list[Any] = [{"a": 1, "b": 2}, {"b": 2, "a": 1}, [1, {2}], cyc, deep, Opaque(), Opaque()]
    with _fast_runner() as r:
        b = r.run_sync(GtEcho(str(log)), [S("z", ground_truth=g) for g in gts])
    assert all(s.status == Status.OK for s in b), [s for s in b]
    assert _calls(log) == 6  # the two equal dicts once; the unkeyed ones each on their own
    assert b[1].info.get("dedup_of") == 0


def test_non_deterministic_scorer_is_not_deduplicated(tmp_path: Path) -> None:
    """deterministic = False: neither de-duplicated nor cached."""
    log = tmp_path / "calls"

    sc = GtEcho(str(log))
    sc.deterministic = False
    with _fast_runner(cache_size=16) as r:
        r.run_sync(sc, [S("q")] * 3)
        r.run_sync(sc, [S("q")] * 3)
    assert _calls(log) == 6


# --------------------------------------------------------------------------- 8. cache


def test_cache_spans_batches_but_not_timeouts(tmp_path: Path) -> None:
    """Cache: ok results are cached across batches (info cached); timeouts are not cached."""
    log = tmp_path / "calls"
    with _fast_runner(cache_size=8, timeout_s=DEADLINE) as r:
        r.run_sync(Behave("process", log=str(log)), [S("ok"), S("hang")])
        b = r.run_sync(Behave("process", log=str(log)), [S("ok"), S("hang")])
    assert b[0].info.get("cached") is True and b[0].status == Status.OK
    assert b[1].status == Status.TIMEOUT and not b[1].info.get("cached")
    assert _calls(log) == 3


def test_cache_keys_include_scorer_options(tmp_path: Path) -> None:
    """Cache keys include the scorer's options (instance attributes): another option is another entry."""
    a, c = tmp_path / "a", tmp_path / "c"
    with _fast_runner(cache_size=8) as r:
        r.run_sync(GtEcho(str(a)), [S("k")])
        b = r.run_sync(GtEcho(str(c)), [S("k")])
    assert not b[0].info.get("cached")
    assert _calls(c) == 1


# --------------------------------------------------------------------------- 9. groups and streaming


@pytest.mark.parametrize("mode", ["inline", "thread", "process"])
def test_groups_are_scored_whole_in_a_batch(mode: str) -> None:
    """Groups stay whole: a group scorer's share goes uid by uid to one call; no uid = a group of one."""
    samples = [S("a", uid="g1"), S("b", uid="g2"), S("c", uid="g1"), S("d", uid="g1"), S("e")]
    with _fast_runner() as r:
        b = r.run_sync(SizeGroup(mode), samples)
    assert [s.value for s in b] == [3.0, 1.0, 3.0, 3.0, 1.0]


def test_streamed_group_members_meet_in_the_gatherer() -> None:
    """Streaming: members submitted separately wait for group_size and are scored as one group."""
    with _fast_runner() as r:

        async def go() -> list[Score]:
            sc = SizeGroup("thread", group_size=3)
            return await asyncio.gather(*(r.submit(sc, S(f"m{i}", uid="G")) for i in range(3)))

        got = asyncio.run(go())
    assert [s.value for s in got] == [3.0, 3.0, 3.0]


def test_submit_matches_batch() -> None:
    """Streaming: `submit` gives the same verdicts and statuses as a batch."""
    resps = ["ok", "raise", "exit", "x"]
    with _fast_runner() as r:
        b = r.run_sync(Behave(), [S(x) for x in resps])

        async def go() -> list[Score]:
            return await asyncio.gather(*(r.submit(Behave(), S(x)) for x in resps))

        st = asyncio.run(go())
    assert [(s.status, s.value) for s in b] == [(s.status, s.value) for s in st]


def test_run_sync_from_inside_a_running_loop() -> None:
    """run_sync works from inside a running event loop (the batch runs on the runner's private loop)."""
    with _fast_runner() as r:

        async def go() -> list[float | None]:
            return r.run_sync(plain_fn, [S("ab"), S("abc")]).rewards()

        assert asyncio.run(go()) == [2.0, 3.0]


# --------------------------------------------------------------------------- 10. bad input / config


@pytest.mark.parametrize(
    ("kw", "word"),
    [
        ({"workers": 0}, "workers"),
        ({"timeout_s": -1}, "timeout_s"),
        ({"on_error": "zero"}, "on_error"),
        ({"execution": "gpu"}, "execution"),
        ({"bogus_key": 1}, "bogus_key"),
    ],
)
def test_bad_config_fails_at_construction_naming_the_key(kw: dict[str, Any], word: str) -> None:
    """Configuration: bad values fail at construction naming what is allowed; unknown keys rejected by name."""
    with pytest.raises((ConfigError, TypeError, ValueError)) as ei:
        RunnerConfig.from_dict(kw)
    assert word in str(ei.value)


def test_timeout_nan_is_rejected() -> None:
    """Configuration: bad values fail at construction; a NaN deadline is not a deadline."""
    with pytest.raises((ConfigError, ValueError)) as ei:
        Runner(timeout_s=float("nan"))
    assert "timeout_s" in str(ei.value)


def test_a_non_sample_in_the_batch_costs_only_itself() -> None:
    """Bad input gets a clear error and one bad sample never costs the batch: a dict among Samples."""
    with _fast_runner() as r:
        try:
            b = r.run_sync(plain_fn, [S("ab"), {"response": "x"}, S("abc")])  # type: ignore[list-item]
        except (TypeError, ValueError, ConfigError) as e:  # a clear up-front error is acceptable too
            assert "Sample" in str(e)
            return
    assert b[0].status == Status.OK and b[2].status == Status.OK
    assert b[1].status == Status.INVALID_INPUT


def test_unpicklable_sample_in_process_mode_fails_only_itself() -> None:
    """A sample that cannot travel to a worker fails alone (invalid_input), the batch goes on."""
    with _fast_runner() as r:
        b = r.run_sync(
            Behave(), [S("ok"), S("ok2", metadata={"lock": __import__("threading").Lock()}), S("x")]
        )
    assert b[0].status == Status.OK and b[2].status == Status.OK
    assert b[1].status != Status.OK


# --------------------------------------------------------------------------- 11. __main__ functions in processes


def test_function_defined_in_main_runs_in_process_mode(tmp_path: Path) -> None:
    """A custom function defined in __main__ works with process execution (execution='process')."""
    script = tmp_path / "main_fn.py"
    script.write_text(
        textwrap.dedent(
            """
            from rewardloop import Runner, Sample
            def my_reward(sample):
                return float(len(sample.response))
            class MyScorer:
                pass
            if __name__ == "__main__":
                with Runner(workers=1, execution="process", timeout_s=60) as r:
                    b = r.run_sync(my_reward, [Sample(response="abc"), Sample(response="ab")])
                print([s.status.value for s in b], b.rewards(), [s.info.get("error") for s in b])
            """
        )
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "['ok', 'ok'] [3.0, 2.0]" in out.stdout, out.stdout + out.stderr[-2000:]


def test_lambda_in_process_mode_travels_by_value() -> None:
    """A plain function the Runner wraps reaches worker processes as a custom function does: a lambda (no worker
    can import it) goes by value."""
    with _fast_runner(execution="process") as r:
        b = r.run_sync(as_scorer(lambda s: 2.0), [S("a"), S("b")])
    assert [(s.status, s.value) for s in b] == [(Status.OK, 2.0)] * 2


def test_a_function_that_cannot_travel_fails_clearly_and_alone() -> None:
    """Bad input gets a clear error: a function holding a lock pickles neither by reference nor by value; each
    sample says so, and no hang or batch crash."""
    lock = threading.Lock()

    def holds_a_lock(s: Sample) -> float:
        with lock:
            return 2.0

    with _fast_runner(execution="process") as r:
        b = r.run_sync(as_scorer(holds_a_lock), [S("a"), S("b")])
    assert [s.status for s in b] == [Status.SCORER_ERROR] * 2
    assert "module-level" in b[0].info["error"], b[0].info


# --------------------------------------------------------------------------- 12. Ray parity


@pytest.fixture(scope="module")
def ray_runner() -> Any:
    ray = pytest.importorskip("ray")
    from rewardloop import RayRunner

    ray.init(address="local", num_cpus=2, include_dashboard=False)
    try:
        with RayRunner(num_actors=2, workers=1, timeout_s=DEADLINE * 3, backoff_base_s=0.01) as rr:
            yield rr
    finally:
        ray.shutdown()


MIXED = ["ok", "raise", "invalid", "nan", "inf", "dict_nan", "str", "exit", "x", "ok"]


@pytest.mark.ray
def test_ray_statuses_and_values_match_local(ray_runner: Any) -> None:
    """Identical statuses on every executor: the same mixed batch on RayRunner and a local Runner."""
    samples = [S(x, metadata={"i": i}) for i, x in enumerate(MIXED)]
    with _fast_runner(workers=1, timeout_s=DEADLINE * 3) as r:
        loc = r.run_sync(Behave(), samples)
    ray_b = ray_runner.run_sync(Behave(), samples)
    assert [(s.status, s.value) for s in ray_b] == [(s.status, s.value) for s in loc]


@pytest.mark.ray
def test_ray_deadline_and_exec_s(ray_runner: Any) -> None:
    """Deadlines on Ray: the actor's runner kills a hanging sample; exec_s <= deadline + 1 s."""
    d = DEADLINE * 3
    b = ray_runner.run_sync(Behave(), [S("hang"), S("ok")])
    assert [s.status for s in b] == [Status.TIMEOUT, Status.OK]
    assert b.exec_s[0] <= d + 1.0, b.exec_s


@pytest.mark.ray
def test_ray_groups_whole_and_dedup(ray_runner: Any) -> None:
    """Groups stay whole on Ray (one actor per uid, one call); identical samples dedup'd with dedup_of."""
    samples = [S("a", uid=f"g{i % 5}") for i in range(20)]
    b = ray_runner.run_sync(SizeGroup(), samples)
    assert [s.value for s in b] == [4.0] * 20
    d = ray_runner.run_sync(Behave(), [S("ok", uid=str(i)) for i in range(6)])
    assert d.stats["unique"] == 1 and d[5].info.get("dedup_of") == 0


@pytest.mark.ray
def test_ray_streamed_group_and_non_finite(ray_runner: Any) -> None:
    """Streaming on Ray: members of one uid submitted separately meet in one actor; NaN is scorer_error."""

    async def go() -> list[Score]:
        sc = SizeGroup("thread", group_size=4)
        members = [ray_runner.submit(sc, S(f"m{i}", uid=f"U{j}")) for j in range(2) for i in range(4)]
        return await asyncio.gather(*members, ray_runner.submit(Behave("inline"), S("nan")))

    res = asyncio.run(go())
    assert [s.value for s in res[:8]] == [4.0] * 8
    assert res[8].status == Status.SCORER_ERROR


# --------------------------------------------------------------------------- 13. reward types and quick()


class QuickVerdict(Scorer):
    """quick() settles with what `verdict` names; score() is never needed."""

    name = "quick_verdict"
    execution = "process"

    def __init__(self, verdict: str) -> None:
        self.verdict = verdict

    def quick(self, sample: Sample) -> Any:
        if self.verdict == "raise":
            raise ValueError("quick boom")
        return {"nan": float("nan"), "inf": Score(float("inf")), "ok": 1.0}[self.verdict]

    def score(self, sample: Sample) -> Any:
        return 0.0


@pytest.mark.parametrize(
    ("verdict", "status"),
    [("nan", "scorer_error"), ("inf", "scorer_error"), ("raise", "scorer_error"), ("ok", "ok")],
)
def test_quick_verdicts_are_checked_like_scores(verdict: str, status: str) -> None:
    """Finite rewards on every path and failures are data: a quick() verdict of NaN / inf, or a quick() that
    raises, is scorer_error for its sample only."""
    with _fast_runner() as r:
        b = r.run_sync(QuickVerdict(verdict), [S("a"), S("b", uid="2")])
    assert [s.status.value for s in b] == [status, status]


def np_float32_reward(sample: Sample) -> Any:
    import numpy as np

    return np.float32(0.5)


def np_int64_reward(sample: Sample) -> Any:
    import numpy as np

    return np.int64(1)


def np_float64_nan_reward(sample: Sample) -> Any:
    import numpy as np

    return np.float64("nan")


def huge_int_reward(sample: Sample) -> Any:
    return 10**400


@pytest.mark.parametrize("fn", [np_float32_reward, np_int64_reward])
def test_numpy_scalar_rewards_are_numbers(fn: Any) -> None:
    """Rewards: a scorer returns a number (the status table: scorer_error only for something that is not a
    score). numpy scalars are numbers, common from numpy/torch-based reward functions."""
    with _fast_runner() as r:
        b = r.run_sync(fn, [S("x")])
    assert b[0].status == Status.OK, b[0].info


@pytest.mark.parametrize("fn", [np_float64_nan_reward, huge_int_reward])
def test_numpy_nan_and_huge_int_rewards_fail_as_scorer_error(fn: Any) -> None:
    """Rewards are finite: np.float64 NaN and an int beyond float range are scorer_error, not ok/crash."""
    with _fast_runner(execution="process") as r:
        b = r.run_sync(fn, [S("x"), S("y")])
    assert [s.status for s in b] == [Status.SCORER_ERROR] * 2


class WrongCountGroup(GroupScorer):
    name = "wrong_count_group"
    execution = "thread"

    def score_group(self, samples: list[Sample], base: Any = None) -> list[Score]:
        if samples[0].uid == "bad":
            return [Score(1.0)]
        return [Score(1.0)] * len(samples)


def test_group_returning_wrong_count_fails_only_that_group() -> None:
    """Groups: a wrong number of scores is scorer_error for each member of that group, others unaffected."""
    with _fast_runner() as r:
        b = r.run_sync(WrongCountGroup(), [S("a", uid="bad"), S("b", uid="ok"), S("c", uid="bad")])
    assert [s.status for s in b] == [Status.SCORER_ERROR, Status.OK, Status.SCORER_ERROR]


@pytest.mark.ray
def test_ray_actor_killing_inline_sample_costs_only_itself(ray_runner: Any) -> None:
    """Ray: an inline scorer that kills its actor (os._exit) ends `crashed` after three deaths; the actor is
    replaced and no other sample is lost or duplicated."""
    samples = [S("exit" if i == 3 else f"r{i}", metadata={"i": i}) for i in range(12)]
    b = ray_runner.run_sync(Behave("inline"), samples)
    assert len(b) == 12
    assert [s.status for s in b] == [Status.CRASHED if i == 3 else Status.OK for i in range(12)]
    assert [s.value for i, s in enumerate(b) if i != 3] == [0.5] * 11


@pytest.mark.ray
def test_ray_thread_hang_and_unpicklable_sample(ray_runner: Any) -> None:
    """Ray: a thread-mode sample past its deadline is `timeout`; a sample that does not pickle ends
    `invalid_input` alone."""
    import threading

    b = ray_runner.run_sync(Behave("thread"), [S("hang"), S("ok")])
    assert [s.status for s in b] == [Status.TIMEOUT, Status.OK]
    assert b.exec_s[0] <= DEADLINE * 3 + 1.0
    c = ray_runner.run_sync(Behave(), [S("ok", metadata={"lock": threading.Lock()}), S("x")])
    assert [s.status for s in c] == [Status.INVALID_INPUT, Status.OK]


@pytest.mark.ray
def test_ray_on_error_and_retries_match_local(ray_runner: Any, tmp_path: Path) -> None:
    """Ray: on_error fills and infra retries behave as locally (info['retries'] = retries)."""
    with _fast_runner(retries=3) as r:
        loc = r.run_sync(Behave("thread"), [S("infra"), S("raise"), S("ok")])
    rb = ray_runner.run_sync(Behave("thread"), [S("infra"), S("raise"), S("ok")])
    assert [s.status for s in rb] == [s.status for s in loc]
    assert rb[0].info.get("retries") == loc[0].info.get("retries") == 3
    assert rb.rewards() == loc.rewards() == [0.0, 0.0, 1.0]


def test_a_list_sharing_one_group_scorer_instance_keeps_groups_whole() -> None:
    """Mixed batches (a list with one Scorer per sample): the group scorer's members of one uid are one group,
    plain samples beside them are scored on their own."""
    g, p = SizeGroup("inline"), Behave("inline")
    with _fast_runner() as r:
        b = r.run_sync([p, g, p, g], [S("ok"), S("a", uid="q"), S("raise"), S("b", uid="q")])
    assert [(s.status, s.value) for s in b] == [
        (Status.OK, 1.0),
        (Status.OK, 2.0),
        (Status.SCORER_ERROR, None),
        (Status.OK, 2.0),
    ]


def test_equal_group_scorer_instances_in_a_list_keep_groups_whole() -> None:
    """Groups stay whole on every path: a list with one Scorer per sample where each member's scorer is an equal
    (same class and attributes, the identity dedup and the cache use) but distinct instance."""
    with _fast_runner() as r:
        b = r.run_sync(
            [Behave("inline"), SizeGroup("inline"), SizeGroup("inline")],
            [S("ok"), S("a", uid="q"), S("b", uid="q")],
        )
    assert [s.value for s in b] == [1.0, 2.0, 2.0]


def test_a_batch_holding_part_of_a_declared_group_times_out_not_scored_as_partial() -> None:
    """Groups: a batch holding fewer members than metadata['group_size'] does not score them alone; after
    gather_timeout_s every waiting member is `timeout` naming the shortfall; other groups unaffected."""
    g = SizeGroup("inline")
    g.gather_timeout_s = 2.0
    md = {"group_size": 3}
    with _fast_runner() as r:
        b = r.run_sync(g, [S("a", uid="P", metadata=md), S("b", uid="P", metadata=md), S("c", uid="Q")])
    assert [s.status for s in b] == [Status.TIMEOUT, Status.TIMEOUT, Status.OK]
    assert "2 of 3" in b[0].info["error"]


def test_streamed_members_with_equal_scorer_instances_meet() -> None:
    """Streaming: members arriving in separate calls meet in the gatherer (a caller that builds its scorer per
    request, equal by class and attributes, is the same scorer to dedup and the cache)."""
    with _fast_runner() as r:

        async def go() -> list[Score]:
            members = []
            for i in range(2):
                sc = SizeGroup("thread", group_size=2)
                sc.gather_timeout_s = 3.0
                members.append(r.submit(sc, S(f"m{i}", uid="G")))
            return await asyncio.gather(*members)

        got = asyncio.run(go())
    assert [(s.status, s.value) for s in got] == [(Status.OK, 2.0)] * 2

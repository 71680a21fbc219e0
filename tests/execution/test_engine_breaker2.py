"""Issue 24, second independent breaker of the execution engine (written from the docs and the public API only).

Each probe checks one documented guarantee of ``Runner`` / ``RayRunner`` on every executor where it applies:
``inline`` (a local ``Runner`` forcing inline execution), ``process`` (a local ``Runner`` with worker processes)
and ``ray`` (a ``RayRunner`` of two actors on the package's 2-node ``ray_cluster``, its actors' runners using
worker processes). A holding probe is a plain passing test; a break is a strict xfail whose reason starts with
``enginebreak2:``. Nothing races the clock: hanging work sleeps 60x its deadline, and counts of executions are
read from files each attempt writes (they cross processes and Ray nodes on this machine).
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from rewardloop import (
    ConfigError,
    InfraError,
    RayRunner,
    Runner,
    RunnerConfig,
    Sample,
    Score,
    ScoringError,
    as_scorer,
)
from rewardloop.execution import score_one
from rewardloop.scorers._base import Scorer
from rewardloop.scorers._group import GroupRelative, GroupScorer

ROOT = Path(__file__).resolve().parents[2]
HANG_S = 60.0  # hanging work: 60x the 1 s deadlines below
DEADLINE_S = 1.0
FAILED = {"timeout", "crashed", "oom", "invalid_input", "parse_error", "scorer_error", "infra_error"}


# -- scorers (module level, so worker processes and Ray actors import them by reference) -------------------


class Weird(Exception):
    """An exception that does not survive pickling (its __init__ needs two arguments, args holds one)."""

    def __init__(self, a: str, b: str) -> None:
        super().__init__(f"{a}/{b}")


class BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str() of this exception raises")


def _attempts(directory: str | None, tag: str) -> int:
    if not directory:
        return 0
    return sum(1 for p in os.listdir(directory) if p.split(".")[0] == tag)


def _record(directory: str | None, tag: str) -> None:
    if directory:
        Path(directory, f"{tag}.{uuid.uuid4().hex}").write_text(str(os.getpid()))


class Behave(Scorer):
    """Behaviour chosen by the response: ``verb:arg``. Each attempt leaves a file in ``directory``."""

    name = "eb2_behave"
    execution = "process"

    def __init__(self, directory: str | None = None) -> None:
        self.directory = directory

    def score(self, sample: Sample) -> Score:
        verb, _, arg = sample.response.partition(":")
        tag = sample.response.replace(":", "_").replace("/", "_").replace(".", "_")[:60] or "empty"
        _record(self.directory, tag)
        if verb == "ok":
            return Score(float(arg), info={"pid": os.getpid()})
        if verb == "sleep":
            time.sleep(HANG_S)
            return Score(-1.0)
        if verb == "exit":
            os._exit(3)
        if verb == "sysexit":
            sys.exit(3)
        if verb == "segv":
            ctypes.string_at(0)
        if verb == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if verb == "leak":
            hold = []
            for _ in range(48):  # stops at ~3 GB if no cap is enforced (the probe then fails on 'ok')
                hold.append(bytearray(64 * 2**20))
                for k in range(0, len(hold[-1]), 4096):
                    hold[-1][k] = 1
            return Score(float(len(hold)))
        if verb == "raise":
            raise ValueError(f"bad sample {arg}")
        if verb == "weird":
            raise Weird("left", "right")
        if verb == "badstr":
            raise BadStr()
        if verb == "lockresult":
            return Score(1.0, info={"lock": threading.Lock()})
        if verb == "infra":
            raise InfraError(f"dependency down {arg}")
        if verb == "infrascore":
            return Score.failure("infra_error", "returned infra_error")
        if verb == "flaky":  # fails its first `arg` attempts
            if _attempts(self.directory, tag) <= int(arg):
                raise InfraError("flaky")
            return Score(1.0)
        if verb == "nested":
            return Score(1.0, metrics={"lst": [1, 2]}, info={"nested": {"k": [1]}})
        if verb == "len":
            return Score(float(len(sample.response)))
        raise AssertionError(f"unknown verb {verb!r}")


class Scaled(Scorer):
    name = "eb2_scaled"
    execution = "process"

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def score(self, sample: Sample) -> Score:
        return Score(self.scale * len(sample.response))


class Sampling(Scorer):
    """Not deterministic: never de-duplicated nor cached."""

    name = "eb2_sampling"
    execution = "process"
    deterministic = False

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def score(self, sample: Sample) -> Score:
        _record(self.directory, "sampling")
        return Score(1.0)


class Returns(Scorer):
    """Returns what ``metadata['k']`` names, unchanged (through the runner's result checks)."""

    name = "eb2_returns"
    execution = "process"

    def score(self, sample: Sample) -> Score:
        return RAW[sample.metadata["k"]]()


def raw_fn(sample: Sample) -> Any:
    """A plain function (adapted by ``as_scorer``, which coerces what it returns)."""
    return RAW[sample.metadata["k"]]()


def _torch(v: Any) -> Any:
    import torch

    return torch.tensor(v)


def _np(v: Any, dtype: str) -> Any:
    import numpy as np

    return np.dtype(dtype).type(v)


# what a function returns -> the status it must end with (and the reward when ok)
RAW: dict[str, Callable[[], Any]] = {
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "-inf": lambda: float("-inf"),
    "none": lambda: None,
    "str": lambda: "1.0",
    "bool": lambda: True,
    "huge_int": lambda: 10**400,
    "big_float": lambda: 1e308,
    "np_nan32": lambda: _np("nan", "float32"),
    "np_half": lambda: _np(0.5, "float64"),
    "np_bool": lambda: _np(True, "bool"),
    "torch_half": lambda: _torch(0.5),
    "torch_nan": lambda: _torch(float("nan")),
    "dict_nan": lambda: {"score": float("nan")},
    "dict_inf": lambda: {"score": float("inf"), "acc": 1.0},
    "dict_str": lambda: {"score": "1"},
    "dict_ok": lambda: {"score": 0.25, "acc": 1.0},
    "list_nan": lambda: [float("nan"), 1.0],
    "list_ok": lambda: [0.75, "x"],
    "score_nan": lambda: Score(float("nan")),
    "score_inf": lambda: Score(float("-inf")),
    "score_ok": lambda: Score(2.0),
}
EXPECT: dict[str, tuple[str, float | None]] = {
    "nan": ("scorer_error", None),
    "inf": ("scorer_error", None),
    "-inf": ("scorer_error", None),
    "none": ("scorer_error", None),
    "str": ("scorer_error", None),
    "bool": ("ok", 1.0),
    "huge_int": ("scorer_error", None),
    "big_float": ("ok", 1e308),
    "np_nan32": ("scorer_error", None),
    "np_half": ("ok", 0.5),
    "np_bool": ("ok", 1.0),
    "torch_half": ("ok", 0.5),
    "torch_nan": ("scorer_error", None),
    "dict_nan": ("scorer_error", None),
    "dict_inf": ("scorer_error", None),
    "dict_str": ("scorer_error", None),
    "dict_ok": ("ok", 0.25),
    "list_nan": ("scorer_error", None),
    "list_ok": ("ok", 0.75),
    "score_nan": ("scorer_error", None),
    "score_inf": ("scorer_error", None),
    "score_ok": ("ok", 2.0),
}


class Hang(Scorer):
    """Blocks until released (thread mode: the runner stops waiting, the thread lives on)."""

    name = "eb2_hang"
    execution = "thread"
    release = threading.Event()

    def score(self, sample: Sample) -> Score:
        Hang.release.wait(HANG_S)
        return Score(0.0)


class SlowAsync(Scorer):
    name = "eb2_async"
    is_async = True

    def score(self, sample: Sample) -> Score:
        raise AssertionError("async scorer: ascore is awaited")

    async def ascore(self, sample: Sample) -> Score:
        if sample.response == "sleep":
            await asyncio.sleep(HANG_S)
        if sample.response == "nan":
            return Score(float("nan"))
        return Score(float(len(sample.response)))


class Chunky(Scorer):
    """A batch scorer: a chunk holding 'boom' raises, one holding 'short' returns too few scores, 'nan' a NaN."""

    name = "eb2_chunky"
    execution = "process"
    supports_batch = True

    def score(self, sample: Sample) -> Score:
        return self.score_batch([sample])[0]

    def score_batch(self, samples: Sequence[Sample]) -> list[Score]:
        texts = [s.response for s in samples]
        if "boom" in texts:
            raise ValueError("chunk exploded")
        out = [Score(float("nan")) if t == "nan" else Score(float(len(t))) for t in texts]
        return out[:-1] if "short" in texts else out


class NaNGroup(GroupScorer):
    """A group scorer whose first member's reward is NaN."""

    name = "eb2_nan_group"
    execution = "inline"

    def __init__(self, group_size: int | None = None, gather_timeout_s: float = 300.0) -> None:
        self.group_size = group_size
        self.gather_timeout_s = gather_timeout_s

    def score_group(self, samples: Sequence[Sample], base: Sequence[Score] | None = None) -> list[Score]:
        return [Score(float("nan") if i == 0 else float(len(samples))) for i in range(len(samples))]


def parse_reward(sample: Sample) -> float:
    """Base reward of the group probes: ``r=<x>`` (raises on ``r=raise``, NaN on ``r=nan``)."""
    text = sample.response.partition("=")[2]
    if text == "raise":
        raise ValueError("base exploded")
    return float(text)


def verl_fn(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, **kw: Any) -> Any:
    """A verl-style custom function: 'raise' raises, 'nan' returns NaN, else the reward in the text."""
    if solution_str.startswith("raise"):
        raise ValueError("custom function exploded")
    if solution_str.startswith("nan"):
        return float("nan")
    return {"score": 1.0 if solution_str.strip() == str(ground_truth) else 0.0, "pid": os.getpid()}


# -- executors -----------------------------------------------------------------------------------------------


class Make:
    """Builds runners of one executor kind; closes them at teardown."""

    def __init__(self, kind: str, request: pytest.FixtureRequest) -> None:
        self.kind = kind
        self.request = request
        self.made: list[Runner] = []

    def __call__(self, **kw: Any) -> Runner:
        if self.kind == "ray":
            self.request.getfixturevalue("ray_cluster")
            kw.setdefault("execution", "process")
            kw.setdefault("workers", 1)
            runner: Runner = RayRunner(num_actors=kw.pop("num_actors", 2), **kw)
        elif self.kind == "process":
            kw.setdefault("execution", "process")
            kw.setdefault("workers", 2)
            runner = Runner(**kw)
        else:
            kw.setdefault("execution", "inline")
            runner = Runner(**kw)
        self.made.append(runner)
        return runner

    def close(self) -> None:
        for r in self.made:
            r.close()


def _maker(request: pytest.FixtureRequest) -> Iterator[Make]:
    make = Make(request.param, request)
    try:
        yield make
    finally:
        make.close()


ray_mark = pytest.mark.ray
ALL = [
    "inline",
    "process",
    pytest.param("ray", marks=ray_mark),
]
ISOLATED = ["process", pytest.param("ray", marks=ray_mark)]
EXECUTOR_IDS = ("inline", "process", "ray")


@pytest.fixture(params=ALL)
def make(request: pytest.FixtureRequest) -> Iterator[Make]:
    yield from _maker(request)


@pytest.fixture(params=ISOLATED)
def make_iso(request: pytest.FixtureRequest) -> Iterator[Make]:
    yield from _maker(request)


def S(response: str, **kw: Any) -> Sample:
    return Sample(response=response, **kw)


def statuses(batch: Any) -> list[str]:
    return [s.value for s in batch.statuses]


def run_async(coro: Any) -> Any:
    return asyncio.run(coro)


_KILL = "enginebreak2: a worker killed by SIGKILL with no memory cap set is reported oom, not crashed"
_LOCAL_CLASS = "enginebreak2: a ground truth holding a locally defined class fails scorer_error in a worker"
BREAKS: dict[str, str] = {
    "test_a_dying_worker_fails_only_its_own_sample[process-kill]": _KILL,
    "test_a_dying_worker_fails_only_its_own_sample[ray-kill]": _KILL,
    "test_an_unencodable_ground_truth_does_not_break_the_batch[process]": _LOCAL_CLASS,
    "test_an_unencodable_ground_truth_does_not_break_the_batch[ray]": _LOCAL_CLASS,
    "test_group_members_submitted_in_separate_calls_meet[ray]": (
        "enginebreak2: on Ray, group members submitted from separate threads/event loops never meet (timeout)"
    ),
}


@pytest.fixture(autouse=True)
def _known_breaks(request: pytest.FixtureRequest) -> None:
    reason = BREAKS.get(request.node.name)
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


# -- groups -------------------------------------------------------------------------------------------------


def _zscore(values: list[float], eps: float = 1e-6) -> list[float]:
    mean = math.fsum(values) / len(values)
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    return [(v - mean) / (std + eps) for v in values]


def _group_batch(n_groups: int = 6, size: int = 4) -> list[Sample]:
    out = []
    for g in range(n_groups):
        for m in range(size):
            out.append(S(f"r={(g * 7 + m * 3) % 5}", uid=f"g{g}", metadata={"group_size": size}))
    # interleave the groups: members of one uid are never adjacent
    return [out[(i % n_groups) * size + i // n_groups] for i in range(len(out))]


def _expected_groups(samples: list[Sample]) -> list[float]:
    by_uid: dict[str, list[int]] = {}
    for i, s in enumerate(samples):
        by_uid.setdefault(str(s.uid), []).append(i)
    out = [0.0] * len(samples)
    for idx in by_uid.values():
        for i, v in zip(idx, _zscore([parse_reward(samples[i]) for i in idx]), strict=True):
            out[i] = v
    return out


def test_group_relative_batch_matches_the_formula_on_every_executor(make: Make) -> None:
    samples = _group_batch()
    runner = make()
    batch = runner.run_sync(GroupRelative(as_scorer(parse_reward), "zscore"), samples)
    assert statuses(batch) == ["ok"] * len(samples)
    assert batch.rewards() == pytest.approx(_expected_groups(samples), abs=1e-9)


def test_group_relative_streamed_members_meet_and_match_the_batch(make: Make) -> None:
    samples = _group_batch()
    runner = make()
    scorer = GroupRelative(as_scorer(parse_reward), "zscore", gather_timeout_s=60.0)

    async def stream() -> list[Score]:
        return list(await asyncio.gather(*(runner.submit(scorer, s) for s in samples)))

    scores = run_async(stream())
    assert [s.status.value for s in scores] == ["ok"] * len(samples)
    assert [s.value for s in scores] == pytest.approx(_expected_groups(samples), abs=1e-9)


def test_group_members_submitted_in_separate_calls_meet(make: Make) -> None:
    """Members arriving one by one from different threads (separate run loops) still form their group."""
    samples = _group_batch(n_groups=3, size=3)
    runner = make()
    scorer = GroupRelative(as_scorer(parse_reward), "zscore", gather_timeout_s=10.0)  # meeting takes ms
    results: dict[int, Score] = {}

    def one(i: int) -> None:
        results[i] = run_async(runner.submit(scorer, samples[i]))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(samples))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    got = [results[i] for i in range(len(samples))]
    assert [s.status.value for s in got] == ["ok"] * len(samples)
    assert [s.value for s in got] == pytest.approx(_expected_groups(samples), abs=1e-9)


def test_a_group_that_cannot_be_gathered_times_out_every_waiting_member(make: Make) -> None:
    runner = make()
    scorer = GroupRelative(as_scorer(parse_reward), "zscore", group_size=3, gather_timeout_s=DEADLINE_S)

    async def stream() -> list[Score]:
        members = [S("r=1", uid="lonely"), S("r=0", uid="lonely")]  # the third never comes
        return list(await asyncio.gather(*(runner.submit(scorer, m) for m in members)))

    scores = run_async(stream())
    assert [s.status.value for s in scores] == ["timeout", "timeout"]


def test_identical_responses_in_different_groups_keep_their_own_group_reward(make: Make) -> None:
    """De-duplication ignores uid; a group-relative reward depends on the group, so it must not be shared."""
    samples = [
        S("r=1", uid="a"),
        S("r=0", uid="a"),
        S("r=1", uid="b"),
        S("r=1", uid="b"),
        S("r=1", uid="b"),
    ]
    runner = make(cache_size=32)
    batch = runner.run_sync(GroupRelative(as_scorer(parse_reward), "zscore"), samples)
    assert statuses(batch) == ["ok"] * 5
    assert batch.rewards() == pytest.approx(_expected_groups(samples), abs=1e-9)
    assert batch.rewards()[0] > 0.9 and batch.rewards()[2] == pytest.approx(0.0, abs=1e-9)


def test_a_failed_or_nan_base_member_does_not_poison_its_group(make: Make) -> None:
    samples = [S("r=1", uid="u"), S("r=raise", uid="u"), S("r=nan", uid="u"), S("r=0", uid="u")]
    batch = make().run_sync(GroupRelative(as_scorer(parse_reward), "zscore"), samples)
    assert statuses(batch) == ["ok", "scorer_error", "scorer_error", "ok"]
    rewards = batch.rewards()
    assert all(math.isfinite(r) for r in rewards)  # type: ignore[arg-type]
    assert rewards[0] == pytest.approx(_zscore([1.0, 0.0])[0], abs=1e-9)
    assert batch.metrics["group_n"][0] == 2.0


def test_a_nan_from_a_group_scorer_is_a_scorer_error_of_that_member_only(make: Make) -> None:
    samples = [S("x", uid="u"), S("y", uid="u"), S("z", uid="u")]
    runner = make()
    batch = runner.run_sync(NaNGroup(), samples)
    assert statuses(batch) == ["scorer_error", "ok", "ok"]
    assert "nan" in str(batch.infos[0].get("error", "")).lower()

    async def stream() -> list[Score]:
        return list(
            await asyncio.gather(
                *(runner.submit(NaNGroup(group_size=3, gather_timeout_s=60), s) for s in samples)
            )
        )

    streamed = run_async(stream())
    assert sorted(s.status.value for s in streamed) == ["ok", "ok", "scorer_error"]


def test_a_mixed_batch_of_group_and_plain_scorers_keeps_order_and_dedup_indices(make: Make) -> None:
    group = GroupRelative(as_scorer(parse_reward), "center")
    plain = Behave()
    samples: list[Sample] = []
    scorers: list[Scorer] = []
    for i in range(40):
        if i % 3 == 0:
            samples.append(S(f"r={i % 4}", uid=f"g{i % 2}"))
            scorers.append(group)
        else:
            samples.append(S(f"ok:{i % 5}"))
            scorers.append(plain)
    batch = make().run_sync(scorers, samples)
    assert statuses(batch) == ["ok"] * 40
    grp_idx = [i for i in range(40) if i % 3 == 0]
    for uid in ("g0", "g1"):
        idx = [i for i in grp_idx if samples[i].uid == uid]
        vals = [parse_reward(samples[i]) for i in idx]
        mean = sum(vals) / len(vals)
        assert [batch.rewards()[i] for i in idx] == pytest.approx([v - mean for v in vals])
    for i in range(40):
        if i % 3:
            assert batch.rewards()[i] == float(i % 5)
            of = batch.infos[i].get("dedup_of")
            if of is not None:  # an index into the caller's batch, pointing at the same sample
                assert samples[of] == samples[i] and scorers[of] is plain and of < i


# -- deadlines ----------------------------------------------------------------------------------------------


def test_a_hanging_process_sample_is_killed_and_its_exec_s_is_the_deadline(make_iso: Make) -> None:
    samples = [S("sleep:1"), S("ok:1"), S("sleep:2"), S("ok:2"), S("sleep:3"), S("sleep:4")]
    batch = make_iso(timeout_s=DEADLINE_S, workers=1).run_sync(Behave(), samples)
    assert statuses(batch) == ["timeout", "ok", "timeout", "ok", "timeout", "timeout"]
    for i in (0, 2, 4, 5):
        assert DEADLINE_S - 0.05 <= batch.exec_s[i] <= DEADLINE_S + 1.0, batch.exec_s
    # 4 kills on one worker: someone queued behind at least two whole deadlines, and that is not exec_s
    if make_iso.kind == "process":  # on Ray the kills split over two actors and queue_s is per chunk
        assert max(batch.queue_s) >= 2 * DEADLINE_S


def test_queue_time_is_not_execution_time_locally_one_worker() -> None:
    samples = [S(f"sleep:{i}") for i in range(4)]
    with Runner(workers=1, timeout_s=DEADLINE_S) as runner:
        batch = runner.run_sync(Behave(), samples)
    assert statuses(batch) == ["timeout"] * 4
    assert all(DEADLINE_S - 0.05 <= e <= DEADLINE_S + 1.0 for e in batch.exec_s), batch.exec_s
    latency = sorted(q + e for q, e in zip(batch.queue_s, batch.exec_s, strict=True))
    assert latency[-1] >= 3 * DEADLINE_S  # the last one waited for three kills
    assert batch.stats["status"]["timeout"] == 4


def test_a_thread_sample_releases_the_batch_at_its_deadline() -> None:
    Hang.release.clear()
    try:
        with Runner(timeout_s=DEADLINE_S) as runner:
            batch = runner.run_sync([Hang(), Behave()], [S("hang"), S("ok:3")])
        assert statuses(batch) == ["timeout", "ok"]
        assert DEADLINE_S - 0.05 <= batch.exec_s[0] <= DEADLINE_S + 1.0
    finally:
        Hang.release.set()


def test_an_async_scorer_is_cancelled_at_its_deadline(make: Make) -> None:
    batch = make(timeout_s=DEADLINE_S).run_sync(SlowAsync(), [S("sleep"), S("abc"), S("nan")])
    assert statuses(batch) == ["timeout", "ok", "scorer_error"]
    assert batch.rewards()[1] == 3.0
    assert DEADLINE_S - 0.05 <= batch.exec_s[0] <= DEADLINE_S + 1.0


def test_a_batch_scorer_chunk_fails_only_its_own_samples(make: Make) -> None:
    texts = ["a", "bb", "boom", "dddd", "eeeee", "short", "g", "nan", "iiiiiiiii", "j"]
    batch = make(batch_size=2, dedup=False).run_sync(Chunky(), [S(t) for t in texts])
    got = statuses(batch)
    # chunks are pairs in some cut; whatever the cut, the three bad items fail and most of the others do not
    assert got[2] == "scorer_error" and got[5] == "scorer_error" and got[7] == "scorer_error"
    assert got.count("ok") >= len(texts) - 6
    for i, st in enumerate(got):
        if st == "ok":
            assert batch.rewards()[i] == float(len(texts[i]))


def test_a_batch_scorer_nan_alone_is_a_scorer_error_for_that_sample_only(make: Make) -> None:
    texts = ["a", "nan", "ccc"]
    batch = make(batch_size=8).run_sync(Chunky(), [S(t) for t in texts])
    assert statuses(batch) == ["ok", "scorer_error", "ok"]


# -- crash isolation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["exit", "sysexit", "segv", "kill"])
def test_a_dying_worker_fails_only_its_own_sample(make_iso: Make, verb: str) -> None:
    samples = [S("ok:1"), S(f"{verb}:x"), S("ok:2"), S("ok:3"), S("ok:4")]
    runner = make_iso(timeout_s=30.0)
    batch = runner.run_sync(Behave(), samples)
    assert statuses(batch) == ["ok", "crashed", "ok", "ok", "ok"]
    assert batch.rewards() == [1.0, 0.0, 2.0, 3.0, 4.0]
    again = runner.run_sync(Behave(), [S("ok:7")])  # the pool was repaired
    assert again.rewards() == [7.0]


def test_a_leaking_scorer_hits_the_memory_cap_as_oom(make_iso: Make) -> None:
    batch = make_iso(timeout_s=60.0, memory_limit_mb=512).run_sync(
        Behave(), [S("ok:1"), S("leak:x"), S("ok:2")]
    )
    assert statuses(batch) == ["ok", "oom", "ok"]


@ray_mark
def test_an_inline_segfault_on_ray_is_contained_and_ends_crashed(ray_cluster: Any) -> None:
    samples = [S("ok:1"), S("segv:x"), S("ok:2"), S("ok:3")]
    with RayRunner(num_actors=2, workers=1, execution="inline", timeout_s=30.0) as runner:
        batch = runner.run_sync(Behave(), samples)
        restarts = runner.restarts
        after = runner.run_sync(Behave(), [S("ok:9")])
    assert statuses(batch) == ["ok", "crashed", "ok", "ok"]
    assert batch.rewards() == [1.0, 0.0, 2.0, 3.0]
    assert restarts == 3
    assert after.rewards() == [9.0]


@pytest.mark.parametrize("verb", ["weird", "badstr", "lockresult"])
def test_an_unpicklable_exception_or_result_is_one_failed_sample(make: Make, verb: str) -> None:
    batch = make(timeout_s=30.0).run_sync(Behave(), [S("ok:1"), S(f"{verb}:x"), S("ok:2")])
    got = statuses(batch)
    assert got[0] == "ok" and got[2] == "ok"
    if make.kind == "inline" and verb == "lockresult":
        assert got[1] == "ok"  # nothing travels inline: an unpicklable result is no failure there
    else:
        assert got[1] == "scorer_error"
        assert batch.infos[1].get("error")


# -- retries ------------------------------------------------------------------------------------------------


def _fast_retries(**kw: Any) -> dict[str, Any]:
    return {"backoff_base_s": 0.01, "backoff_max_s": 0.02, **kw}


def test_an_infra_error_is_retried_up_to_retries_then_reported(make: Make, tmp_path: Path) -> None:
    batch = make(**_fast_retries(retries=2)).run_sync(Behave(str(tmp_path)), [S("infra:1"), S("ok:1")])
    assert statuses(batch) == ["infra_error", "ok"]
    assert batch.infos[0]["retries"] == 2
    assert _attempts(str(tmp_path), "infra_1") == 3


def test_a_returned_infra_error_score_is_retried_too(make: Make, tmp_path: Path) -> None:
    batch = make(**_fast_retries(retries=2)).run_sync(Behave(str(tmp_path)), [S("infrascore:1")])
    assert statuses(batch) == ["infra_error"]
    assert _attempts(str(tmp_path), "infrascore_1") == 3


def test_a_flaky_dependency_succeeds_after_retries(make: Make, tmp_path: Path) -> None:
    batch = make(**_fast_retries(retries=3)).run_sync(Behave(str(tmp_path)), [S("flaky:2")])
    assert statuses(batch) == ["ok"]
    assert _attempts(str(tmp_path), "flaky_2") == 3
    assert batch.stats["retries"] == 2


def test_the_retry_budget_caps_a_batch_and_is_reported(make: Make, tmp_path: Path) -> None:
    samples = [S(f"infra:{i}") for i in range(6)]
    runner = make(**_fast_retries(retries=3, retry_budget=2))
    batch = runner.run_sync(Behave(str(tmp_path)), samples)
    assert statuses(batch) == ["infra_error"] * 6
    total = sum(_attempts(str(tmp_path), f"infra_{i}") for i in range(6))
    chunks = batch.stats.get("chunks", 1) if make.kind == "ray" else 1
    assert total <= 6 + 2 * chunks  # on Ray each actor applies the budget per chunk it receives
    assert all(info.get("retry_budget_exhausted") is True for info in batch.infos)


@pytest.mark.parametrize("verb", ["raise", "sleep", "exit"])
def test_non_infrastructure_failures_are_never_retried(make_iso: Make, tmp_path: Path, verb: str) -> None:
    batch = make_iso(**_fast_retries(retries=3, timeout_s=DEADLINE_S)).run_sync(
        Behave(str(tmp_path)), [S(f"{verb}:z"), S("ok:1")]
    )
    assert statuses(batch)[0] in FAILED and statuses(batch)[1] == "ok"
    assert _attempts(str(tmp_path), f"{verb}_z") == 1
    assert batch.stats["retries"] == 0


# -- de-duplication and the cache ---------------------------------------------------------------------------


def test_the_same_response_twice_is_scored_once_and_copies_share_nothing(
    make_iso: Make, tmp_path: Path
) -> None:
    samples = [S("nested:a", uid="1"), S("ok:2"), S("nested:a", uid="2"), S("nested:a", uid="3")]
    batch = make_iso().run_sync(Behave(str(tmp_path)), samples)
    assert statuses(batch) == ["ok"] * 4
    assert _attempts(str(tmp_path), "nested_a") == 1
    assert [batch.infos[i].get("dedup_of") for i in (2, 3)] == [0, 0]
    assert batch.stats["unique"] == 2
    assert batch.infos[2] is not batch.infos[0]
    batch.infos[0]["nested"]["k"].append("poison")  # a caller mutating one copy's result
    batch.metrics["lst"][0].append("poison")
    assert batch.infos[2]["nested"] == {"k": [1]}
    assert batch.metrics["lst"][3] == [1, 2]


def test_the_cache_cannot_be_poisoned_by_mutating_a_result_info(make: Make, tmp_path: Path) -> None:
    runner = make(cache_size=16)
    first = runner.run_sync(Behave(str(tmp_path)), [S("nested:a")])
    first.infos[0]["added"] = "poison"  # a caller writing into the info dict it got back
    second = runner.run_sync(Behave(str(tmp_path)), [S("nested:a")])
    assert _attempts(str(tmp_path), "nested_a") == 1
    assert second.stats["cache_hits"] == 1
    assert second.exec_s[0] == 0.0 and second.queue_s[0] == 0.0
    assert "added" not in second.infos[0]


def test_the_cache_cannot_be_poisoned_through_nested_mutable_results(make: Make, tmp_path: Path) -> None:
    runner = make(cache_size=16)
    first = runner.run_sync(Behave(str(tmp_path)), [S("nested:a")])
    first.infos[0]["nested"]["k"].append("poison")
    first.metrics["lst"][0].append("poison")
    second = runner.run_sync(Behave(str(tmp_path)), [S("nested:a")])
    assert second.stats["cache_hits"] == 1
    assert second.infos[0]["nested"] == {"k": [1]}
    assert second.metrics["lst"][0] == [1, 2]


def test_the_cache_and_dedup_tell_scorer_instances_apart(make: Make) -> None:
    runner = make(cache_size=16)
    a = runner.run_sync([Scaled(1.0), Scaled(2.0)], [S("abc"), S("abc")])
    b = runner.run_sync(Scaled(3.0), [S("abc")])
    assert a.rewards() == [3.0, 6.0]
    assert b.rewards() == [9.0]


def test_a_non_deterministic_scorer_is_never_deduplicated_nor_cached(make: Make, tmp_path: Path) -> None:
    runner = make(cache_size=16)
    runner.run_sync(Sampling(str(tmp_path)), [S("x"), S("x"), S("x")])
    runner.run_sync(Sampling(str(tmp_path)), [S("x")])
    assert _attempts(str(tmp_path), "sampling") == 4


def test_dedup_keys_see_metadata_and_ground_truth_not_uid(make_iso: Make, tmp_path: Path) -> None:
    samples = [
        S("len", ground_truth={"a": 1, "b": [1, 2]}, uid="1"),
        S("len", ground_truth={"b": [1, 2], "a": 1}, uid="2"),  # same dict, other key order
        S("len", ground_truth={"a": 1, "b": [1, 3]}, uid="3"),
        S("len", ground_truth={"a": 1, "b": [1, 2]}, metadata={"index": 1}),
        S("len", ground_truth={"a": 1, "b": [1, 2]}, prompt="other prompt"),
    ]
    batch = make_iso().run_sync(Behave(str(tmp_path)), samples)
    assert statuses(batch) == ["ok"] * 5
    assert [info.get("dedup_of") for info in batch.infos] == [None, 0, None, None, None]
    assert _attempts(str(tmp_path), "len") == 4


def test_identical_failing_samples_each_get_their_own_failure(make_iso: Make) -> None:
    batch = make_iso().run_sync(Behave(), [S("raise:q"), S("raise:q"), S("ok:1")])
    assert statuses(batch) == ["scorer_error", "scorer_error", "ok"]
    assert batch.infos[1].get("dedup_of") == 0
    assert "bad sample q" in batch.infos[1]["error"]


# -- statuses -----------------------------------------------------------------------------------------------


def _status_samples() -> list[Sample]:
    return [S(f"case {k}", metadata={"k": k}) for k in RAW]


def test_rewards_of_every_type_get_the_documented_status_through_a_function(make: Make) -> None:
    batch = make().run_sync(as_scorer(raw_fn), _status_samples())
    for k, st, v, info in zip(RAW, statuses(batch), batch.values, batch.infos, strict=True):
        want_status, want_value = EXPECT[k]
        assert (k, st) == (k, want_status), info
        if want_status == "ok":
            assert v == want_value
        else:
            assert batch.rewards()[list(RAW).index(k)] == 0.0


def test_rewards_of_every_type_get_the_documented_status_through_a_scorer(make: Make) -> None:
    """A Scorer subclass returning the same things unconverted: a non-Score is a scorer_error, a NaN Score too."""
    batch = make().run_sync(Returns(), _status_samples())
    got = dict(zip(RAW, statuses(batch), strict=True))
    for k in ("score_nan", "score_inf", "none", "str", "dict_nan", "list_nan", "torch_nan"):
        assert got[k] == "scorer_error", k
    assert got["score_ok"] == "ok"


def test_score_one_rejects_a_non_finite_reward() -> None:
    for k in ("nan", "inf", "score_nan", "np_nan32", "torch_nan", "dict_inf"):
        got = score_one(as_scorer(raw_fn), S("x", metadata={"k": k}))
        assert got.status.value == "scorer_error", k
    proc = as_scorer(raw_fn)
    proc.execution = "process"  # type: ignore[misc]
    assert score_one(proc, S("x", metadata={"k": "nan"})).status.value == "scorer_error"


SYSEXIT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[2])
    from rewardloop import Runner, Sample
    from tests.execution.test_engine_breaker2 import Behave

    with Runner(execution=sys.argv[1], timeout_s=30.0) as runner:
        batch = runner.run_sync(Behave(), [Sample(response=r) for r in ("ok:1", "sysexit:x", "ok:2")])
    print(json.dumps([s.value for s in batch.statuses]))
    """
)


@pytest.mark.parametrize("mode", ["inline", "thread"])
def test_system_exit_in_an_inline_or_thread_scorer_is_one_failed_sample(mode: str, tmp_path: Path) -> None:
    """In a child interpreter: a hang there (no deadline for inline work) is reported, not inherited."""
    script = tmp_path / "sysexit.py"
    script.write_text(SYSEXIT_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    try:
        done = subprocess.run(
            [sys.executable, str(script), mode, str(ROOT)],
            capture_output=True,
            text=True,
            timeout=30,
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{mode}: a batch with one sys.exit() sample did not return in 30 s (it needs ~0.01 s)")
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got[0] == "ok" and got[2] == "ok"
    assert got[1] in ("scorer_error", "crashed")


def test_responses_with_lone_surrogates_and_nul_bytes_score(make: Make) -> None:
    texts = ["len:\ud800x", "len:\x00\x00", "len:" + "\U0001f600" * 3, "len:\udfff"]
    batch = make(cache_size=8).run_sync(Behave(), [S(t) for t in texts])
    assert statuses(batch) == ["ok"] * 4
    assert batch.rewards() == [float(len(t)) for t in texts]


def test_an_unencodable_ground_truth_does_not_break_the_batch(make: Make) -> None:
    class Opaque:  # no __eq__, no __hash__ override, defined locally (cloudpickle ships it by value)
        def __init__(self) -> None:
            self.v = 1

    samples = [S("len", ground_truth=Opaque()), S("len", ground_truth={1, 2, 3}), S("ok:2")]
    batch = make(cache_size=8).run_sync(Behave(), samples)
    assert statuses(batch) == ["ok", "ok", "ok"]


@ray_mark
def test_an_unpicklable_sample_is_invalid_input_on_ray(ray_cluster: Any) -> None:
    samples = [S("ok:1"), S("ok:2", metadata={"lock": threading.Lock()}), S("ok:3")]
    with RayRunner(num_actors=2, workers=1, execution="process") as runner:
        batch = runner.run_sync(Behave(), samples)
    assert statuses(batch) == ["ok", "invalid_input", "ok"]


def test_an_unpicklable_sample_in_a_worker_process_fails_alone() -> None:
    samples = [S("ok:1"), S("ok:2", metadata={"lock": threading.Lock()}), S("ok:3")]
    with Runner(workers=2, execution="process") as runner:
        batch = runner.run_sync(Behave(), samples)
    assert statuses(batch)[0] == "ok" and statuses(batch)[2] == "ok"
    assert statuses(batch)[1] in FAILED


# -- the failure policy -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fill", [-1.0, None, float("nan")])
def test_on_error_fills_failed_samples(make: Make, fill: float | None) -> None:
    batch = make(on_error=fill).run_sync(Behave(), [S("ok:1"), S("raise:a"), S("ok:2")])
    got = batch.rewards()
    assert got[0] == 1.0 and got[2] == 2.0
    if fill is None:
        assert got[1] is None
    elif math.isnan(fill):
        assert got[1] is not None and math.isnan(got[1])
    else:
        assert got[1] == fill


def test_on_error_raise_scores_the_whole_batch_first(make: Make, tmp_path: Path) -> None:
    samples = [S("ok:1"), S("raise:a"), S("ok:2"), S("raise:b"), S("ok:3")]
    runner = make(on_error="raise")
    with pytest.raises(ScoringError) as err:
        runner.run_sync(Behave(str(tmp_path)), samples)
    assert statuses(err.value.batch) == ["ok", "scorer_error", "ok", "scorer_error", "ok"]
    assert "1" in str(err.value) and "scorer_error" in str(err.value)
    assert all(_attempts(str(tmp_path), t) == 1 for t in ("ok_1", "raise_a", "ok_2", "raise_b", "ok_3"))

    async def one(s: Sample) -> Score:
        return await runner.submit(Behave(), s)

    assert run_async(one(S("ok:5"))).value == 5.0
    with pytest.raises(ScoringError):
        run_async(one(S("raise:c")))


def _tokenizer() -> Any:
    pytest.importorskip("torch")
    pytest.importorskip("tokenizers")
    from rewardloop.testing import toy_tokenizer

    return toy_tokenizer()


def _verl_rows() -> list[dict[str, Any]]:
    return [
        {"response": "12", "data_source": "eb2", "ground_truth": "12"},
        {"response": "raise me", "data_source": "eb2", "ground_truth": "1"},
        {"response": "7", "data_source": "eb2", "ground_truth": "8"},
        {"response": "nan please", "data_source": "eb2", "ground_truth": "1"},
    ]


def _check_verl_output(out: dict[str, Any], fill: float) -> None:
    tensor = out["reward_tensor"]
    info = out["reward_extra_info"]
    per_row = tensor.sum(dim=-1).tolist()
    assert per_row == pytest.approx([1.0, fill, 0.0, fill])
    assert list(info["reward_status"]) == ["ok", "scorer_error", "ok", "scorer_error"]
    assert [float(x) for x in info["score"]] == pytest.approx([1.0, fill, 0.0, fill])


@pytest.mark.parametrize("where", ["local", pytest.param("ray", marks=ray_mark)])
def test_naive_reward_manager_fills_on_error_on_a_verl_batch(
    where: str, request: pytest.FixtureRequest
) -> None:
    from rewardloop.integrations.verl import NaiveRewardManager
    from rewardloop.testing import make_verl_batch

    tok = _tokenizer()
    data = make_verl_batch(tok, _verl_rows())
    if where == "ray":
        request.getfixturevalue("ray_cluster")
        runner: Runner = RayRunner(num_actors=2, workers=1, on_error=-2.0, execution="process")
        try:
            manager = NaiveRewardManager(tok, compute_score=verl_fn, runner=runner)
            out = manager(data, return_dict=True)
        finally:
            runner.close()
    else:
        manager = NaiveRewardManager(tok, compute_score=verl_fn, runner_config={"on_error": -2.0})
        out = manager(data, return_dict=True)
    _check_verl_output(out, -2.0)


def test_the_reward_loop_fills_on_error_per_trajectory() -> None:
    from rewardloop.integrations.verl import LoopNaiveRewardManager
    from rewardloop.testing import make_verl_batch

    tok = _tokenizer()
    data = make_verl_batch(tok, _verl_rows())
    manager = LoopNaiveRewardManager({"runner": {"on_error": -2.0}}, tokenizer=tok, compute_score=verl_fn)
    try:
        got = [run_async(manager.run_single(data[i : i + 1])) for i in range(4)]
    finally:
        close = getattr(manager, "close", None)
        if close:
            close()
    assert [g["reward_score"] for g in got] == pytest.approx([1.0, -2.0, 0.0, -2.0])
    assert [g["reward_extra_info"]["reward_status"] for g in got] == [
        "ok",
        "scorer_error",
        "ok",
        "scorer_error",
    ]


def test_verl_managers_refuse_on_error_none() -> None:
    from rewardloop.integrations.verl import NaiveRewardManager

    with pytest.raises(ConfigError, match="on_error"):
        NaiveRewardManager(_tokenizer(), compute_score=verl_fn, runner_config={"on_error": None})


# -- functions that must travel -----------------------------------------------------------------------------


def test_lambdas_and_closures_run_in_workers(make_iso: Make) -> None:
    k = 3.0

    def closure(sample: Sample) -> dict[str, float]:
        return {"score": k * len(sample.response), "pid": float(os.getpid())}

    lam = lambda sample: {"score": 2.0 * len(sample.response), "pid": float(os.getpid())}  # noqa: E731
    runner = make_iso()
    a = runner.run_sync(as_scorer(closure), [S("ab"), S("abc")])
    b = runner.run_sync(as_scorer(lam), [S("ab"), S("abc")])
    assert a.rewards() == [6.0, 9.0] and b.rewards() == [4.0, 6.0]
    assert all(p != os.getpid() for p in a.metrics["pid"] + b.metrics["pid"])


def test_a_verl_closure_custom_function_runs_in_workers(make_iso: Make) -> None:
    from rewardloop.integrations.verl import CustomFunctionScorer

    bonus = 0.5

    def fn(
        data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None
    ) -> dict[str, float]:
        return {"score": bonus + float(solution_str == ground_truth), "pid": float(os.getpid())}

    runner = make_iso(execution=None)
    batch = runner.run_sync(
        CustomFunctionScorer(fn), [S("1", ground_truth="1", task="t"), S("2", ground_truth="1", task="t")]
    )
    assert batch.rewards() == [1.5, 0.5]
    assert all(p != os.getpid() for p in batch.metrics["pid"])


MAIN_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from rewardloop import Runner, RayRunner, Sample, as_scorer

    def main_fn(sample):
        return {"score": float(len(sample.response)), "pid": float(os.getpid())}

    if __name__ == "__main__":
        samples = [Sample(response="ab"), Sample(response="abcd")]
        if sys.argv[1] == "local":
            runner = Runner(workers=2, execution="process")
        else:
            runner = RayRunner(num_actors=2, workers=1, execution="process", address=sys.argv[2])
        with runner:
            batch = runner.run_sync(as_scorer(main_fn), samples)
        print(json.dumps({"rewards": batch.rewards(), "pids": list(batch.metrics["pid"]),
                          "statuses": [s.value for s in batch.statuses], "me": os.getpid()}))
    """
)


@pytest.mark.parametrize("where", ["local", pytest.param("ray", marks=ray_mark)])
def test_a_function_of_main_runs_in_workers(
    where: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    script = tmp_path / "main_script.py"
    script.write_text(MAIN_SCRIPT)
    args = [sys.executable, str(script), where]
    if where == "ray":
        ray = request.getfixturevalue("ray_cluster")
        args.append(ray.get_runtime_context().gcs_address)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run(args, capture_output=True, text=True, timeout=240, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["statuses"] == ["ok", "ok"] and got["rewards"] == [2.0, 4.0]
    assert all(p != got["me"] for p in got["pids"])


@ray_mark
def test_a_scorer_that_cannot_travel_is_a_config_error_on_ray(ray_cluster: Any) -> None:
    lock = threading.Lock()

    def holds_lock(sample: Sample) -> float:
        with lock:
            return 1.0

    with RayRunner(num_actors=2, workers=1, execution="inline") as runner, pytest.raises(ConfigError):
        runner.run_sync(as_scorer(holds_lock), [S("a")])


# -- bad configuration --------------------------------------------------------------------------------------


BAD_CONFIG = [
    ("workers", 0),
    ("workers", True),
    ("workers", "2"),
    ("timeout_s", -1.0),
    ("timeout_s", 0),
    ("timeout_s", float("nan")),
    ("timeout_s", float("inf")),
    ("timeout_s", "10"),
    ("timeout_s", True),
    ("max_concurrency", 0),
    ("threads", 0),
    ("on_error", "zero"),
    ("on_error", [0.0]),
    ("on_error", True),
    ("retries", -1),
    ("retry_budget", -1),
    ("backoff_base_s", -0.1),
    ("batch_size", 0),
    ("cache_size", -1),
    ("memory_limit_mb", 0),
    ("execution", "proces"),
    ("rpm", 0),
    ("rpm", float("nan")),
    ("dedup", "yes"),
    ("max_tasks_per_worker", 0),
]


@pytest.mark.parametrize(("key", "value"), BAD_CONFIG, ids=[f"{k}={v!r}" for k, v in BAD_CONFIG])
def test_bad_runner_config_names_the_field_and_what_is_allowed(key: str, value: Any) -> None:
    for build in (lambda: RunnerConfig(**{key: value}), lambda: Runner(**{key: value})):
        with pytest.raises(ConfigError) as err:
            build()
        text = str(err.value)
        assert key in text and ("must" in text or "allowed" in text), text
        assert repr(value) in text or str(value) in text, text


def test_an_unknown_runner_key_is_named_with_a_suggestion() -> None:
    with pytest.raises(ConfigError, match=r"timeout.*did you mean 'timeout_s'"):
        Runner(timeout=3)
    with pytest.raises(ConfigError, match=r"timeout"):
        RunnerConfig.from_dict({"timeout": 3})


@ray_mark
@pytest.mark.parametrize("num_actors", [0, -1, True, 1.5, "2"])
def test_bad_ray_runner_arguments_fail_naming_them(ray_cluster: Any, num_actors: Any) -> None:
    with pytest.raises(ConfigError, match="num_actors"):
        RayRunner(num_actors=num_actors)


@ray_mark
def test_a_bad_runner_field_on_ray_fails_before_any_actor_starts(ray_cluster: Any) -> None:
    before = (
        len(ray_cluster.util.list_named_actors(all_namespaces=True)) if hasattr(ray_cluster, "util") else 0
    )
    with pytest.raises(ConfigError, match="timeout_s"):
        RayRunner(num_actors=2, timeout_s=-1)
    after = (
        len(ray_cluster.util.list_named_actors(all_namespaces=True)) if hasattr(ray_cluster, "util") else 0
    )
    assert after == before


def test_bad_group_scorer_options_name_them() -> None:
    with pytest.raises(ConfigError, match="mode"):
        GroupRelative(as_scorer(parse_reward), "zz")
    with pytest.raises(ConfigError, match="group_size"):
        GroupRelative(as_scorer(parse_reward), group_size=0)
    with pytest.raises(ConfigError, match="gather_timeout_s"):
        GroupRelative(as_scorer(parse_reward), gather_timeout_s=float("nan"))


# -- ordering, concurrency ----------------------------------------------------------------------------------


def test_results_come_back_in_input_order_across_parts_and_copies(make: Make) -> None:
    n = 300
    samples = [S(f"ok:{(i * 7) % 41}") for i in range(n)]
    done: list[int] = []
    runner = make(cache_size=0)
    batch = runner.run_sync(Behave(), samples, on_done=done.append)
    assert batch.rewards() == [float((i * 7) % 41) for i in range(n)]
    assert sorted(done) == list(range(n))
    assert batch.stats["n"] == n
    if make.kind != "inline":
        assert batch.stats["unique"] == 41
        for i, info in enumerate(batch.infos):
            of = info.get("dedup_of")
            assert of is None or (samples[of] == samples[i] and of < i)


def test_one_runner_shared_by_threads_and_a_running_loop(make: Make) -> None:
    runner = make()
    out: dict[int, list[float | None]] = {}

    def worker(t: int) -> None:
        out[t] = runner.run_sync(Behave(), [S(f"ok:{t * 10 + j}") for j in range(8)]).rewards()

    async def in_loop() -> list[float | None]:
        return runner.run_sync(Behave(), [S("ok:99")]).rewards()  # run_sync from inside a running loop

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    loop_result = asyncio.run(in_loop())
    for t in threads:
        t.join(120)
    assert out == {t: [float(t * 10 + j) for j in range(8)] for t in range(4)}
    assert loop_result == [99.0]

"""RayRunner on a real local Ray cluster: same results as the local Runner, de-duplication before dispatch,
cost-balanced chunks, streaming to the least-loaded actor, actors killed mid-batch, global rate limits,
math-verify inside an actor, and the CLI's ``--ray``.

One cluster for the whole run (``ray.init(num_cpus=2)``, shut down after this module); the tests marked ``ray`` are skipped when
Ray is not installed. The first tests need no Ray: the missing-extra error and the pieces that run
without a cluster (the limiter actor's body on a virtual clock, the cost-balanced split).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from rewardloop import Runner, Sample, Score, ScoringError, Status, get_scorer
from rewardloop.execution._ray_actors import LimiterActor as _LimiterActor
from rewardloop.execution._ray_batch import CostModel as _CostModel
from rewardloop.execution._ray_batch import cost as _cost
from rewardloop.execution._ray_batch import part_sizes as _part_sizes

from . import _ray_tasks, _tasks

# -- without a cluster -------------------------------------------------------------------------------


def test_without_ray_everything_local_works_and_rayrunner_names_the_extra():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["ray"] = None  # import ray -> ImportError
        import rewardloop
        from rewardloop import MissingExtraError, Runner, Sample
        from rewardloop.execution import RayRunner
        assert rewardloop.RayRunner is RayRunner
        with Runner() as r:
            assert r.run_sync(lambda s: 1.0, [Sample("x")]).values == (1.0,)
        try:
            RayRunner(num_actors=2)
        except MissingExtraError as exc:
            print(exc.extra, exc.module, "|", exc)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ray ray |") and "pip install 'rewardloop[ray]'" in out.stdout


class ManualClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_limiter_actor_body_keeps_the_token_bucket_semantics_on_a_virtual_clock():
    clock = ManualClock()
    limiter = _LimiterActor(rpm=60, tpm=None, clock=clock)  # 1 request/s, 1 saved up
    waits = [limiter.reserve(1.0, client=f"c{i % 2}") for i in range(4)]
    assert waits == [0.0, 1.0, 2.0, 3.0]  # reservations: first come first served, spaced at the rate
    clock.now += 10.0  # the debt is paid off; the bucket refills to its capacity only
    assert limiter.reserve(1.0, "c0") == 0.0 and limiter.reserve(1.0, "c1") == 1.0
    limiter.pause(5.0)  # Retry-After holds every client
    assert limiter.pause_left() == 5.0 and limiter.reserve(1.0, "c0") >= 5.0
    grants = limiter.grants()
    assert [g[0] for g in grants[:4]] == ["c0", "c1", "c0", "c1"]
    assert [g[2] - g[1] for g in grants[:4]] == waits  # start_at - reserved_at = wait

    tokens = _LimiterActor(rpm=None, tpm=600, clock=ManualClock())  # 10 tokens/s, 10 saved up
    assert tokens.reserve(10.0) == 0.0 and tokens.reserve(10.0) == 1.0
    tokens.settle(10.0, 30.0)  # the request really used 30: 20 more in debt
    assert tokens.reserve(1.0) == pytest.approx(3.1)  # level -31 at 10 tokens/s


def test_parts_cover_the_batch_once_in_doubling_sizes():
    assert list(_part_sizes(300)) == [32, 64, 128, 76]
    assert list(_part_sizes(32)) == [32] and list(_part_sizes(1)) == [1] and list(_part_sizes(0)) == []
    # doubling up to 128: the driver's loop is free that often
    assert list(_part_sizes(1000)) == [32, 64, *[128] * 7, 8]
    for n in (1, 31, 33, 95, 96, 1000, 4097):
        sizes = list(_part_sizes(n))
        assert sum(sizes) == n and all(0 < s <= 128 for s in sizes)
    assert list(_part_sizes(10, first=4, largest=5)) == [4, 5, 1]


def test_cost_estimate_and_the_learned_rate_per_scorer():
    assert _cost(_ray_tasks.CostScorer(), Sample("12")) == 12.0
    assert _cost(_ray_tasks.OkScorer(), Sample("abc")) == 256 + 3
    assert _cost(_ray_tasks.CostScorer(), Sample("not a number")) == 256 + 12  # a failing hook: default
    model = _CostModel(keep=2)
    assert model.rate("new") == 1.0  # nothing learned: work splits by size
    model.learn({"slow": [1.0, 100.0], "fast": [0.001, 100.0]})
    assert model.rate("slow") == pytest.approx(0.01) and model.rate("fast") == pytest.approx(1e-5)
    assert model.rate("unseen") == pytest.approx((0.01 + 1e-5) / 2)  # the mean of what is known
    model.learn({"slow": [3.0, 100.0]})  # an even mix of the last batch and what was known
    assert model.rate("slow") == pytest.approx(0.02)
    model.learn({"bad": [float("nan"), 1.0], "none": [1.0, 0.0], "neg": [-1.0, 1.0]})  # ignored
    assert model.rate("bad") == model.rate("unseen")
    model.learn({"third": [1.0, 1.0]})  # keeps the last 2 scorers
    assert model.rate("fast") == pytest.approx((0.02 + 1.0) / 2)


# -- on a real cluster -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rr(ray_cluster):
    from rewardloop.execution import RayRunner

    with RayRunner(num_actors=2, workers=2, slow_sample_s=None) as runner:
        runner.run_sync(_tasks.NoopProcessScorer(), [Sample(str(i)) for i in range(8)])  # start the pools
        yield runner


@pytest.fixture(scope="module")
def limited(ray_cluster):
    """Two actors sharing one limiter actor: 1200 requests/min = 20/s, 20 saved up."""
    from rewardloop.execution import RayRunner

    with RayRunner(num_actors=2, workers=1, rpm=1200, cache_size=64, on_error="raise") as runner:
        yield runner


def sample(response="x", ground_truth="y", **kw):
    return Sample(response=response, ground_truth=ground_truth, task="test", **kw)


@pytest.mark.ray
def test_same_results_statuses_and_stats_as_the_local_runner(rr):
    scorers = [
        _tasks.DictScorer(),
        _tasks.PidScorer(),
        _tasks.QuickScorer(),
        _tasks.SleepScorer(),  # "5" s against its 0.3 s deadline
        _tasks.ExitScorer(),
        _tasks.BuggyScorer(),
        _tasks.InvalidScorer(),
        _tasks.ThreadScorer(),
    ]
    samples = [sample(r, "z") for r in ("a", "b", "z", "5", "e", "f", "g", "0")]
    batch = rr.run_sync(scorers, samples)
    with Runner(workers=2, slow_sample_s=None) as local:
        expected = local.run_sync(scorers, samples)
    assert (
        batch.statuses
        == expected.statuses
        == (
            Status.OK,
            Status.OK,
            Status.OK,
            Status.TIMEOUT,
            Status.CRASHED,
            Status.SCORER_ERROR,
            Status.INVALID_INPUT,
            Status.OK,
        )
    )
    assert batch.values == expected.values and batch.rewards() == expected.rewards()
    assert batch[1].info["pid"] != os.getpid() and batch[2].info["by"] == "quick"
    assert "0.3 s deadline" in batch.infos[3]["error"] and batch.infos[5]["error"] == "KeyError: 'missing'"
    assert set(expected.stats) <= set(batch.stats)
    assert batch.stats["failed"] == 4 and batch.stats["status"]["timeout"] == 1
    assert batch.stats["executed"] == 8 and batch.stats["actors"] == 2
    assert len(batch.queue_s) == len(batch.exec_s) == 8 and batch.exec_s[3] >= 0.3


@pytest.mark.ray
def test_dedup_once_before_dispatch_and_chunks_without_padding(rr, tmp_path):
    path = tmp_path / "calls"
    scorer = _ray_tasks.WhereScorer(path)
    responses = [str(i % 5) for i in range(40)] + [f"u{i}" for i in range(30)]  # 5 + 30 distinct
    batch = rr.run_sync(scorer, [sample(r) for r in responses])
    lines = _ray_tasks.read_lines(path)
    scored = sorted(line.split()[1] for line in lines)
    assert scored == sorted({*responses})  # each distinct sample once, on one actor only
    assert batch.stats["unique"] == 35 and batch.stats["deduplicated"] == 35
    assert 2 <= batch.stats["chunks"] <= 35  # never more chunks than leaders
    assert batch.infos[5]["dedup_of"] == 0 and "dedup_of" not in batch.infos[0]
    assert len({line.split()[0] for line in lines}) == 2  # both actors worked
    assert batch.status_counts()["ok"] == 70


@pytest.mark.ray
def test_the_executor_learns_that_process_work_costs_more_per_character(rr, tmp_path):
    """After a batch the cost model weighs a sleeping process scorer's samples (10 ms each) far above an inline
    scorer's, so the next batch's chunks split by time rather than by length."""
    slow, fast = _ray_tasks.WhereScorer(tmp_path / "calls"), _ray_tasks.OkScorer()
    samples = [sample(f"w{i}", metadata={"sleep": 0.01}) for i in range(16)] + [
        sample(f"o{i}") for i in range(64)
    ]
    batch = rr.run_sync([slow] * 16 + [fast] * 64, samples)
    assert batch.status_counts()["ok"] == 80
    model = rr.executor.costs
    assert model.rate(rr.scorer_box(slow)[0]) > 20 * model.rate(rr.scorer_box(fast)[0])


def test_a_part_prepared_after_its_leader_finished_gets_its_copy_at_once():
    """Batch.prepare_part: a sample identical to a leader of an earlier part follows it, and is finished at once
    when the leader already was; the keys, leaders and counts are those of one prepare() of the whole batch."""
    from rewardloop.execution._attempt import Context
    from rewardloop.execution._batch import Batch
    from rewardloop.execution._report import Done

    done_order: list[int] = []
    with Runner(workers=1) as runner:
        scorer = _tasks.PidScorer()  # a process scorer: keyed and de-duplicated
        plan = runner.plan(scorer)
        samples = [sample("a"), sample("b"), sample("a"), sample("c"), sample("a"), sample("b")]

        def new_batch(on_done=None):
            return Batch(runner, samples, [plan] * 6, Context(t0=0.0, budget=None), on_done)

        whole = new_batch()
        assert whole.prepare(lambda p: True) == [0, 1, 3]
        parts = new_batch(done_order.append)
        assert parts.prepare_part(range(0, 3), lambda p: True) == [0, 1]
        parts.complete(0, Done(Score(0.5, info={"x": 1}), 0.1, 0.2))  # the leader of "a" finishes first
        assert parts.prepare_part(range(3, 6), lambda p: True) == [3]
        assert parts.done[4] is not None and parts.done[4].score.info == {"x": 1, "dedup_of": 0}
        assert parts.done[4].score.metrics is not parts.done[0].score.metrics  # an independent copy
        assert whole.followers == {0: [2, 4], 1: [5]} and parts.followers == {
            0: [2],
            1: [5],
        }  # 4: done already
        assert parts.keys == whole.keys and parts.unique == whole.unique == 3
        assert done_order == [0, 2, 4]
        parts.complete(1, Done(Score(1.0), 0.0, 0.0))
        assert parts.done[5] is not None and parts.done[5].score.info == {"dedup_of": 1}


@pytest.mark.ray
def test_submit_streams_to_the_least_loaded_actor(rr, tmp_path):
    path = tmp_path / "calls"
    scorer = _ray_tasks.WhereScorer(path)

    async def main():
        return await asyncio.gather(
            *(rr.submit(scorer, sample(f"s{i}", metadata={"sleep": 0.2})) for i in range(8)),
            rr.submit(scorer, sample("same", metadata={"sleep": 0.2})),
            rr.submit(scorer, sample("same", metadata={"sleep": 0.2})),
        )

    scores = asyncio.run(main())
    assert all(s.ok for s in scores)
    assert len({s.info["actor_pid"] for s in scores}) == 2  # spread over both actors
    assert all(s.info["exec_s"] >= 0.2 and "queue_s" in s.info for s in scores[:8])
    assert [line.split()[1] for line in _ray_tasks.read_lines(path)].count("same") == 1
    assert scores[-1].info.get("dedup") is True


@pytest.mark.ray
def test_math_verify_in_a_ray_actor_gives_correct_verdicts(rr):
    cases = [
        ("so the answer is \\boxed{0.5}", "\\frac{1}{2}", 1.0),
        ("\\boxed{\\sqrt{2}}", "2^{1/2}", 1.0),
        ("\\boxed{x^2+2x+1}", "(x+1)^2", 1.0),
        ("\\boxed{\\{1, 2\\}}", "\\{2, 1\\}", 1.0),
        ("\\boxed{3}", "4", 0.0),
        ("\\boxed{\\frac{1}{3}}", "0.33", 0.0),
        ("no answer at all", "7", 0.0),
    ]
    # a deadline far beyond a cold worker's first import of math-verify on a loaded machine: verdicts only
    scorer = get_scorer("math_verify", timeout_s=600.0)
    samples = [Sample(r, ground_truth=g, task="math_verify") for r, g, _ in cases]
    batch = rr.run_sync(scorer, samples)
    assert batch.values == tuple(v for _, _, v in cases), [i.get("error") for i in batch.infos]
    assert batch.statuses == (Status.OK,) * len(cases)
    assert [i["rule"] for i in batch.infos[:6]] == ["math_verify"] * 6  # judged in the actor, not by quick()

    async def one():
        return await rr.submit(scorer, samples[0])

    assert asyncio.run(one()).value == 1.0


@pytest.mark.ray
def test_an_actor_killed_mid_batch_loses_no_sample(rr, ray_cluster, tmp_path):
    path, gate = tmp_path / "calls", tmp_path / "gate"
    scorer = _ray_tasks.GateScorer(path, gate)
    samples = [sample(f"k{i}") for i in range(24)]
    restarts = rr.restarts
    victim = rr.actors[0]
    victim_pid = ray_cluster.get(victim.ready.remote())

    async def main():
        task = asyncio.ensure_future(rr.run(scorer, samples))
        # the victim holds a chunk once one of its samples started; every sample waits at the gate until then
        await asyncio.to_thread(_ray_tasks.wait_for_start, path, victim_pid)
        ray_cluster.kill(victim, no_restart=True)
        gate.touch()
        return await task

    batch = asyncio.run(main())
    assert batch.status_counts()["ok"] == 24 and batch.values == (1.0,) * 24
    assert rr.restarts == restarts + 1 and batch.stats["resubmitted"] > 0
    done = {line.split()[1] for line in _ray_tasks.read_lines(path)}
    assert done == {s.response for s in samples}
    assert rr.run_sync(_tasks.PidScorer(), [sample("after")]).values == (1.0,)  # the pool healed


@pytest.mark.ray
def test_a_sample_that_kills_its_actor_is_isolated_and_the_rest_is_scored(rr):
    responses = ["poison"] + [f"ok{i}" for i in range(15)]  # 8 chunks of 2
    restarts = rr.restarts
    batch = rr.run_sync(_ray_tasks.KillActorScorer(), [sample(r) for r in responses])
    assert batch.statuses[0] is Status.CRASHED and "died 3 times" in batch.infos[0]["error"]
    assert batch.statuses[1:] == (Status.OK,) * 15
    assert rr.restarts - restarts == 3  # its chunk twice, then the poison alone (a suspect) once
    assert len(rr.actors) == 2


@pytest.mark.ray
def test_quick_is_asked_once_in_the_driver_not_again_in_the_actors(rr, tmp_path):
    path = tmp_path / "asked"
    batch = rr.run_sync(_ray_tasks.AskedScorer(path), [sample(f"q{i}") for i in range(6)])
    assert batch.values == (1.0,) * 6
    asked = _ray_tasks.read_lines(path)
    assert sorted(line.split()[1] for line in asked) == [f"q{i}" for i in range(6)]
    assert {line.split()[0] for line in asked} == {str(os.getpid())}  # the driver asked; no actor did


@pytest.mark.ray
def test_rate_limit_holds_across_two_actors(limited, ray_cluster):
    ray = ray_cluster
    ray.get(limited.limiter.clear_grants.remote())
    n, rate, capacity = 60, 20.0, 20.0
    batch = limited.run_sync(_ray_tasks.OkScorer(), [sample(f"r{i}") for i in range(n)])
    assert batch.status_counts()["ok"] == n
    grants = ray.get(limited.limiter.grants.remote())
    assert len(grants) == n and len({g[0] for g in grants}) == 2  # every request, from both actors
    starts = sorted(g[2] for g in grants)
    for i in range(n):  # any window of T seconds admits at most capacity + rate * T requests
        for j in range(i, n):
            assert j - i + 1 <= capacity + rate * (starts[j] - starts[i]) + 1e-6
    assert starts[-1] - min(g[1] for g in grants) >= (n - capacity) / rate - 1e-6
    assert batch.stats["wall_s"] >= (n - capacity) / rate - 0.05


@pytest.mark.ray
def test_cache_spans_batches_and_on_error_raise(limited, tmp_path):
    path = tmp_path / "calls"
    scorer = _tasks.CountingScorer(path)
    first = limited.run_sync(scorer, [sample("a", "a"), sample("b", "a"), sample("a", "a")])
    second = limited.run_sync(scorer, [sample("b", "a"), sample("a", "a")])
    assert first.values == (1.0, 0.0, 1.0) and second.values == (0.0, 1.0)
    assert _tasks.count_calls(path) == 2 and second.stats["cache_hits"] == 2
    assert all(info.get("cached") for info in second.infos)
    with pytest.raises(ScoringError, match=r"sample 1 .* scorer_error") as info:
        limited.run_sync([scorer, _tasks.BuggyScorer()], [sample("a", "a", uid="u0"), sample("x", uid="u1")])
    assert info.value.batch.values[0] == 1.0

    async def one():
        return await limited.submit(_tasks.BuggyScorer(), sample("y"))

    with pytest.raises(ScoringError, match="scorer_error"):
        asyncio.run(one())


@pytest.mark.ray
def test_cli_score_with_ray(ray_cluster, tmp_path, capsys):
    from rewardloop.cli.main import main

    rows = [
        {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "42"}, "response": "#### 42"},
        {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "42"}, "response": "#### 41"},
        {"data_source": "math_dapo", "reward_model": {"ground_truth": "5"}, "response": "Answer: 5"},
        {"data_source": "no_such_source", "reward_model": {"ground_truth": "1"}, "response": "x"},
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    custom = tmp_path / "my_reward.py"
    custom.write_text(
        "def compute_score(data_source, solution_str, ground_truth, extra_info=None, bonus=0.0):\n"
        "    return float(solution_str.strip().endswith(str(ground_truth))) + bonus\n"
    )
    out, out_custom = tmp_path / "out.jsonl", tmp_path / "custom.jsonl"
    # one row of four has no route: 25% failed, above the CLI's default --max-failure-rate (0.1)
    base = [
        "score",
        str(src),
        "--no-progress",
        "--ray",
        "--ray-actors",
        "1",
        "--workers",
        "1",
        "--max-failure-rate",
        "0.5",
    ]
    assert main([*base, "-o", str(out)]) == 0
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["score"] for r in scored] == [1.0, 0.0, 1.0, None]
    assert [r["status"] for r in scored] == ["ok", "ok", "ok", "invalid_input"]
    # a function loaded from a file is shipped to the actor by value
    assert main([*base, "-o", str(out_custom), "--custom-function", f"{custom}:compute_score",
                 "--reward-kwargs", '{"bonus": 0.5}']) == 0  # fmt: skip
    scored = [json.loads(line) for line in out_custom.read_text().splitlines()]
    assert [r["score"] for r in scored] == [1.5, 0.5, 1.5, 0.5]
    assert "openai/gsm8k" in capsys.readouterr().out


@pytest.mark.ray
def test_closed_runner_rejects_work(ray_cluster):
    from rewardloop.execution import RayRunner

    start = time.monotonic()
    runner = RayRunner(num_actors=1, workers=1)
    assert runner.run_sync(_ray_tasks.OkScorer(), [sample()]).values == (1.0,)
    runner.close()
    runner.close()  # idempotent
    assert runner.closed and time.monotonic() - start < 30
    with pytest.raises(RuntimeError, match="closed"):
        runner.run_sync(_ray_tasks.OkScorer(), [sample()])


@pytest.mark.ray
def test_streamed_samples_of_a_killed_actor_are_resubmitted(rr, ray_cluster, tmp_path):
    path, gate = tmp_path / "calls", tmp_path / "gate"
    scorer = _ray_tasks.GateScorer(path, gate)
    restarts = rr.restarts
    victim = rr.actors[1]
    victim_pid = ray_cluster.get(victim.ready.remote())

    async def main():
        tasks = [asyncio.ensure_future(rr.submit(scorer, sample(f"t{i}"))) for i in range(8)]
        # kill actor 1 once it holds work: one of its samples started, and waits at the gate with the rest
        await asyncio.to_thread(_ray_tasks.wait_for_start, path, victim_pid)
        ray_cluster.kill(victim, no_restart=True)
        gate.touch()
        return await asyncio.gather(*tasks)

    scores = asyncio.run(main())
    assert all(s.ok and s.value == 1.0 for s in scores)
    assert any(s.info.get("resubmitted") == 1 for s in scores) and rr.restarts == restarts + 1
    assert len(rr.actors) == 2 and victim not in rr.actors


@pytest.mark.ray
def test_a_scorer_an_actor_dropped_is_sent_again(rr):
    scorer = _ray_tasks.OkScorer()
    token, _ = rr.scorer_box(scorer)
    for slot in rr.actor_pool.slots:  # pretend every actor already holds it: the driver leaves it out
        slot.known.add(token)
    assert rr.run_sync(scorer, [sample(f"d{i}") for i in range(4)]).values == (1.0,) * 4

    async def one():
        return await rr.submit(scorer, sample("d-submit"))

    assert asyncio.run(one()).value == 1.0

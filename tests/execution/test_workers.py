"""WorkerPool: deadlines, kills, crashes, memory caps, recycling, thread/async/process safety.

Real worker processes throughout (no mocks). Tasks live in ``_tasks`` because spawned workers import
them by module path.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import struct
import threading
import time
from concurrent.futures import CancelledError

import pytest

from rewardloop.errors import ConfigError, ScoringError, ScoringTimeout, WorkerCrashed
from rewardloop.execution._worker_proc import start_time as _start_time
from rewardloop.execution._workers import RemoteTraceback, WorkerPool, default_pool

from . import _tasks


@pytest.fixture
def pool():
    with WorkerPool(2) as p:
        yield p


def test_lazy_no_process_or_thread_before_first_use():
    p = WorkerPool(3)
    assert p.stats().workers_started == 0
    assert p.worker_pids() == []
    assert p._thread is None  # no dispatcher thread either
    p.close()
    assert p.closed


def test_call_returns_result_in_another_process(pool):
    assert pool.call(_tasks.add, 2, b=3) == 5
    assert pool.call(_tasks.getpid) != os.getpid()
    assert pool.submit(_tasks.square, 7).result() == 49


def test_timeout_kills_and_replaces_the_worker():
    with WorkerPool(1) as p:
        first = p.call(_tasks.getpid)
        start = time.monotonic()
        with pytest.raises(ScoringTimeout, match=r"0\.5 s deadline"):
            p.call(_tasks.sleep_return, 60, timeout=0.5)
        assert time.monotonic() - start < 5
        assert _tasks.wait_until_gone([first], timeout=2) == []
        assert p.call(_tasks.add, 1, 1) == 2  # the pool healed
        assert p.call(_tasks.getpid) != first
        assert p.stats().killed_timeout == 1


def test_deadline_does_not_count_time_in_the_queue():
    with WorkerPool(1) as p:
        p.call(_tasks.add, 0, 0)  # warm: the single worker is up
        futures = [p.submit(_tasks.sleep_return, 0.4, i, timeout=0.6) for i in range(3)]
        assert [f.result() for f in futures] == [0, 1, 2]
        assert p.stats().killed_timeout == 0


def test_deadline_does_not_count_loading_the_task(pool):
    # unpickling takes 0.5 s (think: importing sympy); the 0.3 s budget is for running the task
    assert pool.call(_tasks.identity, _tasks.SlowToLoad(0.5), timeout=0.3) == 0.5


@pytest.mark.parametrize(
    ("task", "args", "pattern"),
    [
        (_tasks.exit_hard, (3,), "exited with code 3"),
        (_tasks.segfault, (), "SIGSEGV"),
    ],
)
def test_crash_fails_only_that_task(pool, task, args, pattern):
    crash = pool.submit(task, *args)
    others = [pool.submit(_tasks.sleep_return, 0.05, i) for i in range(6)]
    with pytest.raises(WorkerCrashed, match=pattern) as info:
        crash.result()
    assert info.value.oom is False
    assert [f.result() for f in others] == list(range(6))
    assert pool.call(_tasks.add, 2, 2) == 4
    stats = pool.stats()
    assert stats.crashed == 1
    assert stats.workers_alive == 2  # healed


def test_sigkill_from_outside_is_reported_as_likely_oom(pool):
    with pytest.raises(WorkerCrashed, match=r"SIGKILL.*likely out of memory") as info:
        pool.call(_tasks.sigkill_self)
    assert info.value.oom is True


def test_sys_exit_in_a_task_is_a_crash(pool):
    with pytest.raises(WorkerCrashed, match=r"sys\.exit\(3\)"):
        pool.call(_tasks.call_sys_exit, 3)
    assert pool.call(_tasks.add, 1, 2) == 3


def test_memory_cap_lets_numpy_start_and_stops_a_2gb_allocation():
    with WorkerPool(1, memory_limit_mb=512) as p:
        assert p.call(_tasks.numpy_sum) == 10.0
        with pytest.raises(WorkerCrashed, match="memory_limit_mb=512") as info:
            p.call(_tasks.allocate_gb, 2, timeout=20)
        assert info.value.oom is True
        assert isinstance(info.value.__cause__, RemoteTraceback)
        assert "MemoryError" in str(info.value.__cause__)
        assert p.call(_tasks.numpy_sum) == 10.0  # a fresh worker took over
        stats = p.stats()
        assert stats.oom == 1
        assert stats.crashed == 1


def test_workers_are_recycled_after_max_tasks():
    with WorkerPool(1, max_tasks_per_worker=3) as p:
        pids = [p.call(_tasks.getpid) for _ in range(7)]
        assert len(set(pids[:3])) == 1
        assert len(set(pids[3:6])) == 1
        assert pids[3] != pids[0]
        assert pids[6] not in (pids[0], pids[3])
        assert p.stats().recycled == 2


def test_workers_are_recycled_when_their_memory_grows_past_the_threshold():
    with WorkerPool(1, max_tasks_per_worker=None, recycle_memory_mb=150) as p:
        small = [p.call(_tasks.leak_mb, 1) for _ in range(3)]
        assert len(set(small)) == 1 and p.stats().recycled == 0  # a warm worker is kept
        assert p.call(_tasks.leak_mb, 200) == small[0]  # the task that grows it is answered ...
        after = p.call(_tasks.getpid)
        assert after != small[0]  # ... and the worker is replaced before the next one
        assert p.stats().recycled == 1 and p.stats().crashed == 0


def test_a_task_starts_when_the_worker_says_not_when_the_parent_reads_it():
    # The dispatcher may read the "started" message late (another thread holding the GIL in a long C
    # call); the worker's own clock reading is used when plausible, so the deadline is not stretched.
    now = time.monotonic()
    started = _start_time(b"S" + struct.pack("d", now - 2.0), sent_at=now - 3.0)
    assert started == now - 2.0
    assert _start_time(b"S" + struct.pack("d", now + 60), sent_at=now - 3.0) >= now  # from the future
    assert _start_time(b"S" + struct.pack("d", now - 10), sent_at=now - 3.0) >= now  # before it was sent
    assert _start_time(b"S", sent_at=now - 3.0) >= now  # an old-style message


def test_exception_propagates_with_type_message_and_worker_traceback(pool):
    with pytest.raises(ValueError, match="bad input") as info:
        pool.call(_tasks.raise_value_error, "bad input")
    cause = info.value.__cause__
    assert isinstance(cause, RemoteTraceback)
    assert "raise_value_error" in cause.tb
    with pytest.raises(_tasks.CustomError) as info:
        pool.call(_tasks.raise_custom, 7)
    assert info.value.code == 7


@pytest.mark.parametrize(
    ("task", "pattern"),
    [
        (_tasks.raise_unpicklable, r"UnpicklableError.*holds a lock"),
        (_tasks.raise_bad_init, r"BadInitError"),
    ],
)
def test_exception_that_cannot_be_pickled_becomes_scoring_error(pool, task, pattern):
    with pytest.raises(ScoringError, match=pattern) as info:
        pool.call(task)
    assert task.__name__ in str(info.value)  # traceback text is part of the message
    assert pool.call(_tasks.add, 1, 1) == 2


def test_unpicklable_function_or_result(pool):
    future = pool.submit(lambda: 1)
    assert isinstance(future.exception(), ScoringError)
    assert "importable module-level" in str(future.exception())
    with pytest.raises(ScoringError, match="cannot be pickled"):
        pool.call(_tasks.return_unpicklable)
    assert pool.call(_tasks.add, 1, 1) == 2


def test_task_runs_in_the_worker_main_thread_where_signals_work(pool):
    in_main_thread, alarm_fired = pool.call(_tasks.main_thread_and_alarm)
    assert in_main_thread
    assert alarm_fired


def test_calls_from_eight_threads_at_once(pool):
    results: dict[int, list[int]] = {}

    def worker(i):
        results[i] = [pool.call(_tasks.square, 10 * i + j, timeout=10) for j in range(5)]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == {i: [(10 * i + j) ** 2 for j in range(5)] for i in range(8)}


def test_acall_from_asyncio():
    async def main(p):
        values = await asyncio.gather(*(p.acall(_tasks.square, i) for i in range(6)))
        assert values == [i * i for i in range(6)]
        with pytest.raises(ScoringTimeout):
            await p.acall(_tasks.sleep_return, 60, timeout=0.3)
        # cancelling the awaiting task kills the worker running it
        running = asyncio.ensure_future(p.acall(_tasks.sleep_return, 60))
        for _ in range(200):
            if p.stats().tasks_running:
                break
            await asyncio.sleep(0.01)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        return await p.acall(_tasks.add, 1, 2)

    with WorkerPool(2) as p:
        assert asyncio.run(main(p)) == 3
        assert p.stats().killed_cancelled == 1


def test_close_terminates_every_worker():
    p = WorkerPool(2)
    futures = [p.submit(_tasks.sleep_return, 0.2, i) for i in range(2)]
    assert [f.result() for f in futures] == [0, 1]
    pids = p.worker_pids()
    assert len(pids) == 2
    p.close()
    assert _tasks.wait_until_gone(pids, timeout=1) == []
    assert not p._thread.is_alive()
    with pytest.raises(RuntimeError, match="closed"):
        p.submit(_tasks.add, 1, 1)
    p.close()  # idempotent


def test_close_without_wait_kills_running_and_cancels_queued():
    p = WorkerPool(1)
    running = p.submit(_tasks.sleep_return, 60)
    queued = p.submit(_tasks.add, 1, 1)
    while not p.stats().tasks_running:
        time.sleep(0.01)
    pids = p.worker_pids()
    start = time.monotonic()
    p.close(wait=False)
    assert time.monotonic() - start < 5
    with pytest.raises(CancelledError):
        running.result(timeout=1)
    assert queued.cancelled()
    assert _tasks.wait_until_gone(pids, timeout=1) == []


def test_timeout_kills_the_children_a_task_spawned(tmp_path):
    pid_file = tmp_path / "child.pid"
    with WorkerPool(1) as p:
        with pytest.raises(ScoringTimeout):
            p.call(_tasks.spawn_sleeper, str(pid_file), timeout=1.5)
        child = int(pid_file.read_text())
        assert _tasks.wait_until_gone([child], timeout=3) == []


def test_pool_works_inside_a_child_process():
    ctx = multiprocessing.get_context("spawn")
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_tasks.use_pool_in_child, args=(sender,))
    child.start()
    sender.close()
    assert receiver.poll(60)
    child_pid, value, worker_parent = receiver.recv()
    child.join(10)
    assert child.exitcode == 0
    assert child_pid == child.pid
    assert value == 5
    assert worker_parent == child.pid  # the child's own worker


@pytest.mark.parametrize(
    "kwargs",
    [
        {"size": 0},
        {"size": 1.5},
        {"max_tasks_per_worker": 0},
        {"memory_limit_mb": 1},
        {"start_method": "threads"},
    ],
)
def test_configuration_errors_fail_fast(kwargs):
    with pytest.raises(ConfigError):
        WorkerPool(**kwargs)


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), "1", True])
def test_bad_timeout_is_a_config_error(timeout):
    p = WorkerPool(1)
    with pytest.raises(ConfigError, match="timeout"):
        p.submit(_tasks.add, 1, 1, timeout=timeout)
    p.close()
    assert p.stats().workers_started == 0


def test_default_pool_is_shared_and_recreated_after_fork():
    pool = default_pool()
    assert default_pool() is pool
    assert pool.size == min(4, os.cpu_count() or 1)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: must get its own pool, never the parent's
        try:
            fresh = default_pool()
            ok = fresh is not pool and fresh._owner_pid == os.getpid() and default_pool() is fresh
            os.write(write_fd, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write_fd)
    assert os.read(read_fd, 1) == b"1"
    os.close(read_fd)
    os.waitpid(pid, 0)
    assert default_pool() is pool


def test_script_without_main_guard_can_use_process_scorers(tmp_path):
    """The default launcher never re-imports the caller's __main__ (spawn would re-run the script)."""
    import subprocess
    import sys

    script = tmp_path / "noguard.py"
    script.write_text(
        "from rewardloop import default_compute_score as f\n"
        "print('RUN')\n"
        "print(f('numina_olympiads', '\\\\boxed{x^2+4x+4}', '(x+2)^2'))\n"
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["RUN", "1.0"]  # printed once: the workers did not re-run the script
    assert "bootstrapping" not in out.stderr

"""Token buckets, the rate limiter and cross-loop slots; rate limits through the Runner on virtual time.

No wall-clock assertions: buckets get a fake clock, and Runner tests drive a virtual clock whose sleeps
complete in deadline order as soon as everything else is blocked.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading

import pytest

from rewardloop import Runner, Sample
from rewardloop.execution import RateLimiter, TokenBucket
from rewardloop.execution._limits import Limiter, Slots

from . import _tasks


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class VirtualTime:
    """A clock plus an async sleep that never waits for real: :meth:`drive` advances time to the
    earliest sleeper whenever every task is blocked."""

    def __init__(self):
        self.now = 0.0
        self._sleepers = []
        self._seq = itertools.count()

    def clock(self):
        return self.now

    async def sleep(self, seconds):
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(0.0, seconds), next(self._seq), future))
        await future

    def run(self, coro):
        async def drive():
            task = asyncio.ensure_future(coro)
            while not task.done():
                for _ in range(20):
                    await asyncio.sleep(0)
                if task.done():
                    break
                if self._sleepers:
                    wake, _, future = heapq.heappop(self._sleepers)
                    self.now = max(self.now, wake)
                    if not future.done():
                        future.set_result(None)
                else:
                    await asyncio.sleep(0.001)
            return task.result()

        return asyncio.run(drive())


def max_in_window(times, window, weights=None):
    """The largest total weight of events in any half-open window [t, t + window)."""
    weights = weights or [1] * len(times)
    events = sorted(zip(times, weights, strict=True))
    return max(sum(w for u, w in events if t <= u < t + window) for t, _ in events)


def samples(n):
    return [Sample(response=f"r{i}") for i in range(n)]


# -- TokenBucket -------------------------------------------------------------------------------------


def test_bucket_spaces_reservations_at_its_rate():
    clock = FakeClock()
    bucket = TokenBucket(60, clock=clock)  # 1 token/s, capacity 1
    waits = [bucket.reserve() for _ in range(5)]
    assert waits == pytest.approx([0.0, 1.0, 2.0, 3.0, 4.0])
    clock.now = 10.0  # debt paid off, refilled to capacity (not beyond)
    assert bucket.reserve() == 0.0
    assert bucket.reserve() == pytest.approx(1.0)


def test_bucket_grants_at_most_capacity_plus_rate_per_window():
    clock = FakeClock()
    bucket = TokenBucket(600, clock=clock)  # 10/s, capacity 10
    granted = []
    for step in range(300):  # 3000 requests arriving 10 per 0.1 s: twice the allowed rate
        clock.now = step * 0.1
        granted += [clock.now + bucket.reserve() for _ in range(2)]
    assert max_in_window(granted, 60.0) <= 600 + 10
    assert max_in_window(granted, 1.0) <= 10 + 10


def test_bucket_debit_refund_and_try_take():
    clock = FakeClock()
    bucket = TokenBucket(60, capacity=5, clock=clock)
    assert bucket.try_take(5) and not bucket.try_take(1)
    bucket.debit(-3)  # refund of an over-estimate
    assert bucket.level == pytest.approx(3)
    bucket.debit(-100)
    assert bucket.level == pytest.approx(5)  # never above capacity
    bucket.debit(10)  # spent more than reserved: debt
    assert bucket.reserve(1) == pytest.approx(6.0)
    with pytest.raises(ValueError):
        TokenBucket(0)


def test_large_request_does_not_deadlock():
    bucket = TokenBucket(60, clock=FakeClock())
    assert bucket.reserve(100) == pytest.approx(99.0)


# -- RateLimiter -------------------------------------------------------------------------------------


def test_limiter_combines_rpm_tpm_and_pause():
    clock = FakeClock()
    limiter = RateLimiter(rpm=60, tpm=600, clock=clock)  # tokens: 10/s, capacity 10
    assert isinstance(limiter, Limiter)
    assert limiter.reserve(5) == 0.0
    assert limiter.reserve(5) == pytest.approx(1.0)  # rpm-bound
    assert limiter.reserve(40) == pytest.approx(4.0)  # tpm-bound
    limiter.pause(30)
    assert limiter.reserve(0) == pytest.approx(30.0)
    clock.now = 31.0
    unlimited = RateLimiter(clock=clock)
    assert unlimited.reserve(10**9) == 0.0 and not unlimited.counts_tokens


def test_limiter_waiters_see_a_pause_that_starts_while_they_sleep():
    vt = VirtualTime()
    limiter = RateLimiter(rpm=60, clock=vt.clock, sleep=vt.sleep)
    started = []

    async def request(i):
        await limiter.acquire()
        started.append((i, vt.now))
        if i == 0:
            limiter.pause(10.0)

    async def main():
        await asyncio.gather(*(request(i) for i in range(3)))

    vt.run(main())
    assert started[0] == (0, 0.0)
    assert all(t >= 10.0 for _, t in started[1:])


# -- Slots -------------------------------------------------------------------------------------------


def test_slots_bound_concurrency_across_threads_and_loops():
    slots = Slots(3)
    lock = threading.Lock()
    state = {"now": 0, "max": 0, "done": 0}

    async def job():
        async with slots:
            with lock:
                state["now"] += 1
                state["max"] = max(state["max"], state["now"])
            await asyncio.sleep(0.002)
            with lock:
                state["now"] -= 1
                state["done"] += 1

    def thread_main():
        async def many():
            await asyncio.gather(*(job() for _ in range(15)))

        asyncio.run(many())

    threads = [threading.Thread(target=thread_main) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert state["done"] == 60 and state["max"] <= 3 and slots.in_use == 0


def test_cancelled_waiter_passes_its_slot_on():
    slots = Slots(1)

    async def main():
        await slots.acquire()
        waiter = asyncio.ensure_future(slots.acquire())
        other = asyncio.ensure_future(slots.acquire())
        await asyncio.sleep(0)
        slots.release()  # hands the slot to `waiter` ...
        waiter.cancel()  # ... which is cancelled before it runs: the slot must reach `other`
        await asyncio.wait_for(other, 1)
        assert slots.in_use == 1
        slots.release()
        assert slots.in_use == 0

    asyncio.run(main())


# -- through the Runner, on virtual time -------------------------------------------------------------


def test_runner_rpm_spaces_calls():
    vt = VirtualTime()
    scorer = _tasks.ClockScorer(clock=vt.clock)
    runner = Runner(limiter=RateLimiter(rpm=60, clock=vt.clock, sleep=vt.sleep))
    batch = vt.run(runner.run(scorer, samples(150)))
    assert batch.status_counts()["ok"] == 150
    assert max_in_window(scorer.times, 60.0) <= 60
    assert max(scorer.times) >= 149.0  # 150 calls at one per second
    runner.close()


def test_runner_rpm_from_config_is_per_instance():
    a, b = Runner(rpm=30), Runner(rpm=30)
    assert a.executor.limiter is not b.executor.limiter and a.executor.limiter.rpm == 30
    a.close()
    b.close()


def test_runner_tpm_debits_reported_tokens():
    vt = VirtualTime()
    scorer = _tasks.ClockScorer(clock=vt.clock, tokens=1000)  # each call reports 1000 tokens
    limiter = RateLimiter(tpm=6000, clock=vt.clock, sleep=vt.sleep)
    with Runner(limiter=limiter, max_concurrency=1) as runner:
        vt.run(runner.run(scorer, samples(20)))
    assert max_in_window(scorer.times, 60.0, [1000] * 20) <= 6000 + 1000  # one request of overshoot
    assert max(scorer.times) >= 150.0  # ~10 s per call, not the ~0 s the 1-token estimates imply


def test_runner_tpm_uses_estimates_without_reports():
    vt = VirtualTime()
    scorer = _tasks.ClockScorer(clock=vt.clock)
    limiter = RateLimiter(tpm=6000, clock=vt.clock, sleep=vt.sleep)
    with Runner(limiter=limiter) as runner:
        # 2000 characters ~ 500 tokens each: 100 tokens/s allows one every ~5 s
        vt.run(runner.run(scorer, [Sample(response=f"{i:04d}" * 500) for i in range(12)]))
    assert max(scorer.times) >= 50.0
    assert max_in_window(scorer.times, 60.0, [500] * 12) <= 6000 + 500


def test_rate_limited_retry_after_pauses_every_request():
    vt = VirtualTime()
    scorer = _tasks.ClockScorer(clock=vt.clock, limited=1, retry_after=5.0)
    runner = Runner(limiter=RateLimiter(clock=vt.clock, sleep=vt.sleep))
    batch = vt.run(runner.run(scorer, samples(8)))
    assert scorer.outcomes[0] == "429" and scorer.times[0] == 0.0
    assert all(t >= 5.0 for t in scorer.times[1:])  # nobody called the server during the pause
    assert batch.status_counts()["ok"] == 8 and batch.stats["retries"] == 1
    assert batch[0].info["retries"] == 1
    runner.close()


def test_backoff_runs_on_the_limiter_clock():
    vt = VirtualTime()
    scorer = _tasks.FlakyScorer(failures=2)
    runner = Runner(
        limiter=RateLimiter(clock=vt.clock, sleep=vt.sleep), backoff_base_s=1.0, backoff_max_s=3.0
    )
    batch = vt.run(runner.run(scorer, samples(5)))
    assert batch.status_counts()["ok"] == 5 and batch.stats["retries"] == 10
    assert 0.0 < vt.now <= 1.0 + 2.0  # full jitter: retry k waits at most min(3, 2**(k-1)) s
    runner.close()

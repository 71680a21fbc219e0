"""Concurrency and rate limits owned by one Runner instance: :class:`Slots`, :class:`TokenBucket`,
:class:`RateLimiter`.

All three are thread-safe and work from any number of event loops at once (a Runner serves its own
private loop, callers' loops, and plain threads). None creates asyncio objects at construction:
waiting futures are made inside the loop that waits. Nothing here is class-level state, so two runners
never share a limit (DESIGN §4); a limit shared across processes or Ray actors is a different
:class:`Limiter` implementation behind the same four methods.

Token buckets use reservations ("virtual scheduling"): taking tokens always succeeds at once and
returns how long the caller must wait before using them; the level may go negative, and later callers
wait for the debt to be paid off. Callers are therefore served in the order they asked, a request larger
than the bucket never deadlocks, and in any window of ``T`` seconds at most ``capacity + rate * T``
tokens are granted. Tokens spent after the fact (a model server reports the real count) are settled
with :meth:`TokenBucket.debit`, which may push the level into debt or refund an over-estimate.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

__all__ = ["Limiter", "RateLimiter", "Slots", "TokenBucket"]

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


class Slots:
    """A counting semaphore for coroutines that works across threads and event loops.

    ``async with slots:`` holds one of ``limit`` slots. Waiters are served first come, first served;
    a released slot is handed straight to the next waiter, in that waiter's own loop.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        self.limit = limit
        self._used = 0
        self._lock = threading.Lock()
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    @property
    def in_use(self) -> int:
        return self._used

    async def acquire(self) -> None:
        with self._lock:
            if self._used < self.limit and not self._waiters:
                self._used += 1
                return
            loop = asyncio.get_running_loop()
            waiter: asyncio.Future[None] = loop.create_future()
            entry = (loop, waiter)
            self._waiters.append(entry)
        try:
            await waiter
        except BaseException:
            with self._lock:
                try:
                    self._waiters.remove(entry)
                    granted = False
                except ValueError:  # release() already handed this waiter a slot: pass it on
                    granted = True
            if granted:
                self.release()
            raise

    def release(self) -> None:
        with self._lock:
            while self._waiters:
                loop, waiter = self._waiters.popleft()
                try:
                    loop.call_soon_threadsafe(_grant, waiter)
                    return  # the slot moves to the waiter: _used stays the same
                except RuntimeError:  # that loop is closed; its waiter is gone
                    continue
            self._used -= 1

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        self.release()


def _grant(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
    # else: the waiter was cancelled after being chosen; its acquire() passes the slot on


class TokenBucket:
    """``per_minute`` tokens per minute, at most ``capacity`` saved up (default: one second's worth,
    at least 1), with reservations. Thread-safe; ``clock`` is injectable for tests."""

    def __init__(self, per_minute: float, *, capacity: float | None = None, clock: Clock = time.monotonic):
        if not per_minute > 0:
            raise ValueError(f"per_minute must be > 0, got {per_minute!r}")
        self.rate = per_minute / 60.0  # tokens per second
        self.capacity = float(capacity) if capacity is not None else max(1.0, self.rate)
        self._clock = clock
        self._level = self.capacity
        self._stamp = clock()
        self._lock = threading.Lock()

    def _refill(self, now: float) -> None:
        if now > self._stamp:
            self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate)
            self._stamp = now

    def reserve(self, tokens: float = 1.0) -> float:
        """Take ``tokens`` now; return the seconds to wait before using them (0.0 = go)."""
        with self._lock:
            self._refill(self._clock())
            self._level -= tokens
            return max(0.0, -self._level / self.rate)

    def try_take(self, tokens: float = 1.0) -> bool:
        """Take ``tokens`` only if available now (no debt); True when taken."""
        with self._lock:
            self._refill(self._clock())
            if self._level < tokens:
                return False
            self._level -= tokens
            return True

    def debit(self, tokens: float) -> None:
        """Settle after the fact: spend ``tokens`` more (negative: refund), never above capacity."""
        with self._lock:
            self._refill(self._clock())
            self._level = min(self.capacity, self._level - tokens)

    @property
    def level(self) -> float:
        with self._lock:
            self._refill(self._clock())
            return self._level


@runtime_checkable
class Limiter(Protocol):
    """What the Runner needs from a rate limiter; implement it to share limits beyond one process."""

    async def acquire(self, tokens: float) -> None:
        """Wait until one request of about ``tokens`` tokens may start."""

    def settle(self, estimate: float, actual: float) -> None:
        """The request reserved ``estimate`` tokens and used ``actual``."""

    def pause(self, seconds: float) -> None:
        """Hold every request for ``seconds`` (the server sent ``Retry-After``)."""

    async def sleep(self, seconds: float) -> None:
        """Sleep on this limiter's clock (used for retry backoff too)."""


class RateLimiter:
    """Requests-per-minute and tokens-per-minute buckets plus a pause gate, on one clock.

    Either limit may be None (unlimited); with both None only :meth:`pause` holds requests back. ``clock``
    and ``sleep`` are injectable so tests run on virtual time.
    """

    def __init__(
        self,
        rpm: float | None = None,
        tpm: float | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep | None = None,
    ) -> None:
        self.rpm = rpm
        self.tpm = tpm
        self._clock = clock
        self._sleep = sleep
        self._requests = TokenBucket(rpm, clock=clock) if rpm else None
        self._tokens = TokenBucket(tpm, clock=clock) if tpm else None
        self._paused_until = -float("inf")
        self._lock = threading.Lock()

    @property
    def counts_tokens(self) -> bool:
        return self._tokens is not None

    def idle(self) -> bool:
        """True when nothing limits requests now: no rpm, no tpm, no pause (read without the lock: one float)."""
        return self._requests is None and self._tokens is None and self._paused_until <= self._clock()

    def reserve(self, tokens: float = 1.0) -> float:
        """Reserve one request of ``tokens`` tokens; the seconds to wait before it may start."""
        wait = 0.0
        if self._requests is not None:
            wait = self._requests.reserve(1.0)
        if self._tokens is not None:
            wait = max(wait, self._tokens.reserve(tokens))
        return max(wait, self._pause_left())

    async def acquire(self, tokens: float = 1.0) -> None:
        wait = self.reserve(tokens)
        while wait > 0:
            await self.sleep(wait)
            wait = self._pause_left()  # a pause may have started while we waited

    def settle(self, estimate: float, actual: float) -> None:
        if self._tokens is not None and actual != estimate:
            self._tokens.debit(actual - estimate)

    def pause(self, seconds: float) -> None:
        with self._lock:
            self._paused_until = max(self._paused_until, self._clock() + max(0.0, seconds))

    async def sleep(self, seconds: float) -> None:
        await (self._sleep or asyncio.sleep)(seconds)

    def _pause_left(self) -> float:
        with self._lock:
            paused_until = self._paused_until
        return max(0.0, paused_until - self._clock())

    def __repr__(self) -> str:
        return f"<RateLimiter rpm={self.rpm} tpm={self.tpm}>"

"""The sync side of async runners: :class:`Closable` (close / aclose and both context-manager protocols), and
the private event loop in a daemon thread that ``run_sync`` uses (:class:`LoopThread`, and
:func:`run_in_fresh_thread` for a call from that very loop)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

__all__ = [
    "Closable",
    "LoopThread",
    "RunnerFacade",
    "SyncBridge",
    "resolve_scorer_like",
    "run_in_fresh_thread",
]

T = TypeVar("T")


_C = TypeVar("_C", bound="Closable")


class Closable:
    """Context-manager and async-close plumbing shared by :class:`Runner` and ``RayRunner``.

    Subclasses implement ``close()`` (idempotent) and keep ``_closed``.
    """

    _closed: bool

    def close(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    async def aclose(self) -> None:
        """:meth:`close` without blocking the event loop."""
        await asyncio.to_thread(self.close)

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self: _C) -> _C:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class LoopThread:
    """An event loop running forever in a daemon thread; stopping it cancels what still runs there."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._main, name="rewardloop-runner-loop", daemon=True)
        self.thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
            pending = asyncio.all_tasks(self.loop)
            for task in pending:
                task.cancel()  # callers blocked in run_sync get CancelledError instead of hanging
            if pending:
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        finally:
            self.loop.close()

    def stop(self) -> None:
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:  # already closed
            return
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout=10)


def run_in_fresh_thread(coro: Coroutine[Any, Any, T]) -> T:
    results: list[T] = []
    errors: list[BaseException] = []

    def main() -> None:
        try:
            results.append(asyncio.run(coro))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=main, name="rewardloop-runner-nested", daemon=True)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return results[0]


# ----------------------------------------------------------------------------------------------------
# helpers


class SyncBridge:
    """``call_sync(coro)``: run a coroutine to completion from synchronous code, from any thread, on a private
    event loop in a daemon thread (started on first use). Called from that very loop (a scorer calling back
    into its runner), it runs the coroutine in a fresh thread instead, since a loop cannot wait for itself.
    ``what`` names the owner in the error once it is closed."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._lock = threading.Lock()
        self._loop_thread: LoopThread | None = None
        self._closed = False

    def call_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            loop_thread = self._get()
        except BaseException:
            coro.close()
            raise
        if threading.current_thread() is loop_thread.thread:
            return run_in_fresh_thread(coro)
        future = asyncio.run_coroutine_threadsafe(coro, loop_thread.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()  # interrupted (KeyboardInterrupt): stop the batch, kill its workers
            raise

    def close(self) -> None:
        """Stop the loop (what still runs there is cancelled). Idempotent."""
        with self._lock:
            self._closed = True
            loop_thread, self._loop_thread = self._loop_thread, None
        if loop_thread is not None:
            loop_thread.stop()

    def _get(self) -> LoopThread:
        with self._lock:
            if self._closed:
                raise RuntimeError(f"this {self._what} is closed")
            if self._loop_thread is None:
                self._loop_thread = LoopThread()
            return self._loop_thread


def resolve_scorer_like(scorer: Any) -> Any:
    """A :class:`~rewardloop.scorers.Scorer` from a scorer, a registered name or a plain function."""
    from ..scorers import Scorer, as_scorer

    if isinstance(scorer, Scorer):
        return scorer
    if isinstance(scorer, str):
        from ..scorers import get_scorer

        return get_scorer(scorer)
    return as_scorer(scorer)


class RunnerFacade(Closable):
    """What both runners share above their schedulers: the sync facade (``run_sync``, ``call_sync`` on a
    private loop) and resolving the ``scorer`` argument. Subclasses set ``_bridge`` and implement ``run`` and
    ``_check_usable``."""

    _bridge: SyncBridge

    async def run(
        self, scorer: Any, samples: Iterable[Any], *, on_done: Callable[[int], None] | None = None
    ) -> Any:
        raise NotImplementedError  # pragma: no cover - abstract

    def _check_usable(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def run_sync(
        self, scorer: Any, samples: Iterable[Any], *, on_done: Callable[[int], None] | None = None
    ) -> Any:
        """:meth:`run` for synchronous code. Works from any thread, including one that runs an event loop: the
        batch runs on the runner's private loop in a helper thread."""
        self._check_usable()
        return self._bridge.call_sync(self.run(scorer, samples, on_done=on_done))

    def call_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` (work that awaits this runner: a manager's batch, several streamed samples) to
        completion from synchronous code, on the runner's private event loop; from any thread."""
        self._check_usable()
        return self._bridge.call_sync(coro)

    @staticmethod
    def _scorers_for(scorer: Any, n: int) -> list[Any]:
        """One scorer per sample: ``scorer`` for all ``n``, or a list of one per sample (resolved once each)."""
        if isinstance(scorer, list | tuple):
            if len(scorer) != n:
                raise ValueError(
                    f"got {len(scorer)} scorers for {n} samples; pass one scorer or one per sample"
                )
            resolved: dict[int, Any] = {}
            return [resolved.setdefault(id(s), resolve_scorer_like(s)) for s in scorer]
        return [resolve_scorer_like(scorer)] * n

"""Functions and scorers the execution tests run in worker processes.

Spawned workers import tasks by module path, so they live in this importable module, not in test files.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from rewardloop.errors import InvalidSampleError
from rewardloop.scorers._base import Scorer
from rewardloop.types import Sample, Score

# -- plain tasks -------------------------------------------------------------------------------------


def add(a, b):
    return a + b


def square(x):
    return x * x


def identity(x):
    return x


def getpid():
    return os.getpid()


def getppid():
    return os.getppid()


def sleep_return(seconds, value=None):
    time.sleep(seconds)
    return value


def raise_value_error(message):
    raise ValueError(message)


class CustomError(Exception):
    def __init__(self, message, code):
        super().__init__(message, code)
        self.code = code


def raise_custom(code):
    raise CustomError("custom failure", code)


class UnpicklableError(Exception):
    """Holds a lock, so pickling fails in the worker."""

    def __init__(self, message):
        super().__init__(message)
        self.lock = threading.Lock()


def raise_unpicklable():
    raise UnpicklableError("holds a lock")


class BadInitError(Exception):
    """Pickles fine but cannot be unpickled: __init__ needs two arguments, args holds one."""

    def __init__(self, a, b):
        super().__init__(f"{a}/{b}")


def raise_bad_init():
    raise BadInitError("x", "y")


def return_unpicklable():
    return threading.Lock()


def exit_hard(code):
    os._exit(code)


def segfault():
    os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(5)


def sigkill_self():
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(5)


def call_sys_exit(code):
    sys.exit(code)


def numpy_sum():
    import numpy

    return float(numpy.ones(10).sum())


def allocate_gb(n):
    import numpy

    block = numpy.ones((n << 30) // 8)
    return float(block[-1])


def main_thread_and_alarm():
    """Whether the task runs in the main thread and a SIGALRM handler fires there."""
    fired = []
    old = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        time.sleep(0.2)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return threading.current_thread() is threading.main_thread(), bool(fired)


def spawn_sleeper(pid_file):
    """Start a child process that sleeps, record its pid, then hang."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    Path(pid_file).write_text(str(child.pid))
    time.sleep(60)


class SlowToLoad:
    """Takes `seconds` to unpickle: models a task whose loading imports a heavy module."""

    def __init__(self, seconds):
        self.seconds = seconds

    def __reduce__(self):
        return (_load_slowly, (self.seconds,))


def _load_slowly(seconds):
    time.sleep(seconds)
    return seconds


def use_pool_in_child(conn):
    """Runs in a spawned (non-main) process: use a WorkerPool there and report back."""
    from rewardloop.execution._workers import WorkerPool

    with WorkerPool(1) as pool:
        conn.send((os.getpid(), pool.call(add, 2, 3), pool.call(getppid)))
    conn.close()


def pid_alive(pid):
    """True if the process exists and is not a zombie (a killed orphan may linger as a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: fall back to signal 0
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")


def wait_until_gone(pids, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        alive = [p for p in pids if pid_alive(p)]
        if not alive:
            return []
        time.sleep(0.02)
    return alive


# -- scorers -----------------------------------------------------------------------------------------


class QuickScorer(Scorer):
    """Decides exact matches inline; anything else goes to a worker."""

    name = "quick"
    execution = "process"
    timeout_s = 5.0

    def quick(self, sample: Sample) -> Score | None:
        return Score(1.0, info={"by": "quick"}) if sample.response == sample.ground_truth else None

    def score(self, sample: Sample) -> Score:
        return Score(0.0, info={"by": "score", "pid": os.getpid()})


class PidScorer(Scorer):
    name = "pid"
    execution = "process"
    timeout_s = 5.0

    def score(self, sample: Sample) -> Score:
        return Score(1.0, info={"pid": os.getpid()})


class SleepScorer(Scorer):
    """Sleeps for float(response) seconds."""

    name = "sleep"
    execution = "process"
    timeout_s = 0.3

    def score(self, sample: Sample) -> Score:
        time.sleep(float(sample.response))
        return Score(1.0)


class ExitScorer(Scorer):
    name = "exit"
    execution = "process"
    timeout_s = 5.0

    def score(self, sample: Sample) -> Score:
        os._exit(5)


class MemoryHogScorer(Scorer):
    name = "hog"
    execution = "process"
    timeout_s = 10.0

    def score(self, sample: Sample) -> Score:
        return Score(float(len(bytearray(2 << 30))))


class InvalidScorer(Scorer):
    name = "invalid"
    execution = "process"
    timeout_s = 5.0

    def score(self, sample: Sample) -> Score:
        raise InvalidSampleError("ground_truth must be a str")


class BuggyScorer(Scorer):
    name = "buggy"
    execution = "process"
    timeout_s = 5.0

    def score(self, sample: Sample) -> Score:
        return {}["missing"]


class InlineBuggyScorer(Scorer):
    name = "inline_buggy"

    def score(self, sample: Sample) -> Score:
        raise RuntimeError("inline bug")


class DictScorer(Scorer):
    """Inline, returns verl's dict convention (coerced to a Score)."""

    name = "dict"
    returns_dict = True

    def score(self, sample: Sample) -> Score:
        return {"score": 0.5, "acc": True}  # type: ignore[return-value]


class BadReturnScorer(Scorer):
    name = "bad_return"

    def score(self, sample: Sample) -> Score:
        return "yes"  # type: ignore[return-value]


class ThreadScorer(Scorer):
    name = "thread"
    execution = "thread"

    def score(self, sample: Sample) -> Score:
        time.sleep(float(sample.response or 0))
        return Score(1.0, info={"thread": threading.get_ident(), "pid": os.getpid()})


class SlowThreadScorer(ThreadScorer):
    name = "slow_thread"
    timeout_s = 0.2


class BadExecutionScorer(Scorer):
    name = "bad_execution"
    execution = "gpu"  # type: ignore[assignment]

    def score(self, sample: Sample) -> Score:
        return Score(1.0)


# -- scorers for the Runner tests --------------------------------------------------------------------


class NoopScorer(Scorer):
    name = "noop"

    def score(self, sample: Sample) -> Score:
        return Score(1.0)


class NoopProcessScorer(NoopScorer):
    name = "noop_process"
    execution = "process"
    timeout_s = 30.0


class CountingScorer(Scorer):
    """1.0 iff response == ground_truth; appends one line per call to the file ``path`` (works across
    worker processes: O_APPEND writes of a few bytes are atomic)."""

    name = "counting"
    execution = "process"
    timeout_s = 10.0

    def __init__(self, path):
        self.path = str(path)

    def score(self, sample: Sample) -> Score:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{os.getpid()} {sample.response}\n".encode())
        finally:
            os.close(fd)
        return Score(float(sample.response == sample.ground_truth), metrics={"pred": sample.response})


def count_calls(path):
    try:
        with open(path) as fh:
            return sum(1 for _ in fh)
    except FileNotFoundError:
        return 0


class InlineCountingScorer(Scorer):
    """Inline: counts calls per response in memory (the instance is never pickled)."""

    name = "inline_counting"

    def __init__(self):
        self.calls = {}
        self.lock = threading.Lock()

    def score(self, sample: Sample) -> Score:
        with self.lock:
            self.calls[sample.response] = self.calls.get(sample.response, 0) + 1
        return Score(float(sample.response == sample.ground_truth), metrics={"n": [1, 2]}, info={"x": {}})


class FlakyScorer(Scorer):
    """Raises InfraError on the first ``failures`` calls for each response, then scores 1.0."""

    name = "flaky"

    def __init__(self, failures, error="infra"):
        self.failures = failures
        self.error = error
        self.calls = {}
        self.lock = threading.Lock()

    def score(self, sample: Sample) -> Score:
        from rewardloop.errors import InfraError

        with self.lock:
            n = self.calls[sample.response] = self.calls.get(sample.response, 0) + 1
        if n <= self.failures:
            if self.error == "returned":
                return Score.failure("infra_error", f"server down (call {n})")
            raise InfraError(f"server down (call {n})")
        return Score(1.0, info={"calls": n})


class FileFlakyScorer(Scorer):
    """Process scorer: raises RateLimited(retry_after=0) until the file ``path`` has ``failures`` lines."""

    name = "file_flaky"
    execution = "process"
    timeout_s = 10.0

    def __init__(self, path, failures):
        self.path = str(path)
        self.failures = failures

    def score(self, sample: Sample) -> Score:
        from rewardloop.errors import RateLimited

        if count_calls(self.path) < self.failures:
            with open(self.path, "a") as fh:
                fh.write("x\n")
            raise RateLimited("429 Too Many Requests", retry_after=0.01)
        return Score(1.0)


class WrongAnswerScorer(Scorer):
    """Always 0.0 (a wrong answer is a result, never retried); counts calls."""

    name = "wrong"

    def __init__(self):
        self.calls = 0

    def score(self, sample: Sample) -> Score:
        self.calls += 1
        return Score(0.0)


class ClockScorer(Scorer):
    """Inline: records ``clock()`` at each call; raises RateLimited for the first ``limited`` calls and
    reports ``tokens`` per call when given."""

    name = "clock"

    def __init__(self, clock, tokens=None, limited=0, retry_after=5.0):
        self.clock = clock
        self.tokens = tokens
        self.limited = limited
        self.retry_after = retry_after
        self.times = []
        self.outcomes = []

    def score(self, sample: Sample) -> Score:
        from rewardloop.errors import RateLimited

        self.times.append(self.clock())
        if len(self.times) <= self.limited:
            self.outcomes.append("429")
            raise RateLimited("429 Too Many Requests", retry_after=self.retry_after)
        self.outcomes.append("ok")
        info = {} if self.tokens is None else {"tokens": self.tokens}
        return Score(1.0, info=info)


class AsyncScorer(Scorer):
    """An async scorer: ``ascore`` sleeps float(response) seconds on the event loop."""

    name = "async"
    timeout_s = 0.5

    def score(self, sample: Sample) -> Score:
        raise AssertionError("the Runner must await ascore, not call score")

    async def ascore(self, sample: Sample) -> Score:
        import asyncio

        await asyncio.sleep(float(sample.response or 0))
        return Score(1.0, info={"thread": threading.get_ident()})


async def async_compute_score(data_source, solution_str, ground_truth, extra_info=None):
    import asyncio

    await asyncio.sleep(0.01)
    return {"score": float(solution_str == ground_truth), "source": data_source}


class BatchScorer(Scorer):
    """Batch scorer: records chunk sizes; a chunk containing "boom" raises, one containing "hang" hangs."""

    name = "batch"
    supports_batch = True
    execution = "process"
    timeout_s = 0.2

    def __init__(self, path=None):
        self.path = None if path is None else str(path)

    def score(self, sample: Sample) -> Score:
        raise AssertionError("a batch scorer gets chunks")

    def score_batch(self, samples):
        if self.path is not None:
            with open(self.path, "a") as fh:
                fh.write(f"{len(samples)}\n")
        responses = [s.response for s in samples]
        if "boom" in responses:
            raise RuntimeError("bad chunk")
        if "hang" in responses:
            time.sleep(60)
        return [Score(float(s.response == s.ground_truth)) for s in samples]


class WrongLengthBatchScorer(BatchScorer):
    name = "wrong_length"
    execution = "inline"

    def score_batch(self, samples):
        return [Score(1.0)]


class SegfaultScorer(Scorer):
    name = "segfault"
    execution = "process"
    timeout_s = 10.0

    def score(self, sample: Sample) -> Score:
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(5)
        return Score(0.0)


class GrowForeverScorer(Scorer):
    """Allocates 32 MB blocks until the worker's memory cap stops it."""

    name = "grow"
    execution = "process"
    timeout_s = 20.0

    def score(self, sample: Sample) -> Score:
        blocks = []
        while True:
            blocks.append(bytearray(32 << 20))


class NondeterministicScorer(InlineCountingScorer):
    name = "nondeterministic"
    deterministic = False


class SlowInlineScorer(Scorer):
    name = "slow_inline"

    def score(self, sample: Sample) -> Score:
        time.sleep(float(sample.response))
        return Score(1.0)


class NestedScorer(Scorer):
    """Inline scorer that scores through the same Runner from inside the Runner's own loop."""

    name = "nested"

    def __init__(self, runner):
        self.runner = runner

    def score(self, sample: Sample) -> Score:
        inner = self.runner.run_sync(DictScorer(), [sample])
        return Score(inner.values[0] * 2)


_KEPT: list = []  # memory a task keeps alive in its worker (a leak, on purpose)


def leak_mb(n):
    import numpy

    _KEPT.append(numpy.ones((n << 20) // 8))
    return os.getpid()


class SubmittedFirstProbe(Scorer):
    """Inline; records whether the runner's pool already had work when this sample was scored."""

    name = "submitted_first_probe"
    execution = "inline"

    def __init__(self, runner) -> None:
        self.runner = runner

    def score(self, sample: Sample) -> Score:
        stats = self.runner.pool_stats()
        busy = stats is not None and stats.tasks_queued + stats.tasks_running > 0
        return Score(1.0, info={"pool_busy": busy})


class OddQuickScorer(Scorer):
    """quick() returns a float for "f", raises for "boom", a dict for "d", a Score for "s"; else undecided."""

    name = "odd_quick"
    execution = "process"
    timeout_s = 5.0

    def quick(self, sample: Sample) -> Any:
        if sample.response == "boom":
            raise ValueError("quick exploded")
        return {"f": 0.25, "d": {"score": 0.75, "acc": True}, "s": Score(1.0)}.get(sample.response)

    def score(self, sample: Sample) -> Score:
        return Score(0.5, info={"by": "score"})

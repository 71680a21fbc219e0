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

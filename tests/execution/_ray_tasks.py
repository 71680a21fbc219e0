"""Scorers the RayRunner tests send to Ray actors (and their worker processes), importable by module path."""

from __future__ import annotations

import os
import time

from rewardloop.scorers._base import Scorer
from rewardloop.types import Sample, Score


def _append(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def read_lines(path) -> list[str]:
    try:
        with open(path) as fh:
            return fh.read().splitlines()
    except FileNotFoundError:
        return []


class WhereScorer(Scorer):
    """Process scorer: sleeps float(metadata["sleep"]) s (default 0), then appends
    "<actor pid> <response>" to ``path`` (the actor is the worker's parent) and scores 1.0."""

    name = "where"
    execution = "process"
    timeout_s = 30.0

    def __init__(self, path):
        self.path = str(path)

    def score(self, sample: Sample) -> Score:
        time.sleep(float(sample.metadata.get("sleep", 0)))
        _append(self.path, f"{os.getppid()} {sample.response}")
        return Score(1.0, info={"actor_pid": os.getppid()})


class GateScorer(Scorer):
    """Process scorer: appends "<actor pid> <response>" to ``path`` as it starts, then waits until the file
    ``gate`` exists (at most 120 s) and scores 1.0. A test opens the gate once it has seen what it waits for, so
    nothing depends on how fast the machine is."""

    name = "gate"
    execution = "process"
    timeout_s = 300.0

    def __init__(self, path, gate):
        self.path = str(path)
        self.gate = str(gate)

    def score(self, sample: Sample) -> Score:
        _append(self.path, f"{os.getppid()} {sample.response}")
        give_up = time.monotonic() + 120.0
        while not os.path.exists(self.gate) and time.monotonic() < give_up:
            time.sleep(0.01)
        return Score(1.0, info={"actor_pid": os.getppid()})


def wait_for_start(path, pid: int, timeout_s: float = 300.0) -> None:
    """Block until a sample has started on the actor ``pid`` (a line of a :class:`GateScorer`)."""
    give_up = time.monotonic() + timeout_s
    while not any(line.split()[0] == str(pid) for line in read_lines(path)):
        if time.monotonic() > give_up:
            raise AssertionError(f"no sample started on actor {pid} within {timeout_s:g} s")
        time.sleep(0.02)


class KillActorScorer(Scorer):
    """Inline (runs in the actor itself): ``os._exit`` of the actor for the response "poison"."""

    name = "kill_actor"

    def score(self, sample: Sample) -> Score:
        if sample.response == "poison":
            os._exit(3)
        time.sleep(0.05)
        return Score(1.0, info={"actor_pid": os.getpid()})


class AskedScorer(Scorer):
    """Inline; its ``quick()`` appends "<pid> <response>" to ``path`` and decides nothing; scores 1.0."""

    name = "asked"

    def __init__(self, path):
        self.path = str(path)

    def quick(self, sample: Sample) -> Score | None:
        _append(self.path, f"{os.getpid()} {sample.response}")
        return None

    def score(self, sample: Sample) -> Score:
        return Score(1.0)


class OkScorer(Scorer):
    """Inline, always 1.0."""

    name = "ok"

    def score(self, sample: Sample) -> Score:
        return Score(1.0)


class CostScorer(OkScorer):
    """Declares its cost: the integer in the response."""

    name = "cost"

    def cost(self, sample: Sample) -> float:
        return float(sample.response)

"""Custom reward functions are isolated by default, in every manager, the CLI and the server path.

A sync function runs in killable worker processes under a per-sample deadline: an endless loop, ``os._exit`` or
a segfault fails that sample alone, with its status, and leaves no thread or process behind. The hostile
behaviours are deterministic (they never finish), so no test races the clock.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from rewardloop.execution import Runner  # noqa: E402
from rewardloop.integrations.verl import (  # noqa: E402
    LoopNaiveRewardManager,
    NaiveRewardManager,
    load_reward_manager,
)
from rewardloop.scorers._custom import DEFAULT_TIMEOUT_S, CustomFunctionScorer  # noqa: E402
from tests._rollouts import make_batch, shared_tokenizer  # noqa: E402

HOSTILE = """
import ctypes, os, time

def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    case = solution_str.split()[-1]
    if case == "loop":
        while True:
            time.sleep(0.01)
    if case == "exit":
        os._exit(3)
    if case == "segfault":
        ctypes.string_at(0)
    return 1.0
"""

CASES = ["fine", "loop", "exit", "segfault"]
EXPECTED = ["ok", "timeout", "crashed", "crashed"]


def rows():
    return [
        {"response": f"case {c}", "data_source": "custom", "ground_truth": "x", "extra_info": {"i": i}}
        for i, c in enumerate(CASES)
    ]


@pytest.fixture(scope="module")
def tokenizer():
    return shared_tokenizer()


@pytest.fixture
def hostile(tmp_path):
    path = tmp_path / "hostile.py"
    path.write_text(HOSTILE)
    return str(path)


def _children() -> set[int]:
    """PIDs of this process's live (non-zombie) children."""
    pids = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            pids.add(int(entry))
    return pids


def _settled(before_threads: int, before_children: set[int]) -> tuple[int, set[int]]:
    """Threads and children left over, after giving the OS a generous moment to reap what was closed."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        extra = _children() - before_children
        if threading.active_count() <= before_threads and not extra:
            break
        time.sleep(0.1)
    return threading.active_count() - before_threads, _children() - before_children


def test_the_default_is_a_worker_process_under_a_deadline():
    def closure(data_source, solution_str, ground_truth, extra_info=None):
        return 1.0

    scorer = CustomFunctionScorer(closure)  # a closure: it travels by value
    assert scorer.execution == "process" and scorer.timeout_s == DEFAULT_TIMEOUT_S
    with Runner() as runner:
        assert runner.plan(scorer).deadline == DEFAULT_TIMEOUT_S  # no config: the deadline still holds
    assert CustomFunctionScorer(closure, execution="thread").execution == "thread"  # the documented opt-out


def test_classic_manager_with_a_hostile_closure(tokenizer):
    ns: dict = {}
    exec(compile(HOSTILE, "hostile_closure", "exec"), ns)  # a function no worker could import by name
    threads, children = threading.active_count(), _children()
    manager = NaiveRewardManager(
        tokenizer, 0, compute_score=ns["compute_score"], runner_config={"timeout_s": 1.0}
    )
    try:
        out = manager(make_batch(tokenizer, rows()), return_dict=True)
    finally:
        manager.close()
    assert out["reward_extra_info"]["reward_status"] == EXPECTED
    assert out["reward_tensor"].sum(1).tolist() == [1.0, 0.0, 0.0, 0.0]
    assert out["reward_extra_info"]["timeout"] == [False, True, False, False]
    assert _settled(threads, children) == (0, set())


def test_classic_load_reward_manager_honours_reward_runner(tokenizer, hostile):
    cfg = {"custom_reward_function": {"path": hostile}, "runner": {"timeout_s": 1.0, "workers": 1}}
    threads, children = threading.active_count(), _children()
    manager = load_reward_manager(cfg, tokenizer, num_examine=0)
    try:
        assert isinstance(manager, NaiveRewardManager)
        assert manager.core.manager.runner.config.timeout_s == 1.0
        out = manager(make_batch(tokenizer, rows()), return_dict=True)
    finally:
        manager.close()
    assert out["reward_extra_info"]["reward_status"] == EXPECTED
    assert _settled(threads, children) == (0, set())


@pytest.mark.parametrize("name", ["naive", "dapo", "gdpo", "remote", "rate_limited"])
def test_loop_managers_isolate_by_default(tokenizer, hostile, name):
    cfg = {
        "reward_manager": {"name": name},
        "custom_reward_function": {"path": hostile},
        "runner": {"timeout_s": 1.0},
    }
    batch = make_batch(tokenizer, rows())
    threads, children = threading.active_count(), _children()
    manager = load_reward_manager(cfg, tokenizer)
    try:

        async def each():
            return [await manager.run_single(batch[i : i + 1]) for i in range(len(batch))]

        results = asyncio.run(each())
    finally:
        manager.close()
    assert [r["reward_extra_info"]["reward_status"] for r in results] == EXPECTED
    assert [r["reward_score"] for r in results] == [1.0, 0.0, 0.0, 0.0]
    assert _settled(threads, children) == (0, set())


def test_loop_manager_with_a_function_object(tokenizer):
    ns: dict = {}
    exec(compile(HOSTILE, "hostile_object", "exec"), ns)
    manager = LoopNaiveRewardManager(
        {"runner": {"timeout_s": 1.0}}, tokenizer, compute_score=ns["compute_score"]
    )
    try:
        out = asyncio.run(manager.run_batch(make_batch(tokenizer, rows())))
    finally:
        manager.close()
    assert [r["reward_extra_info"]["reward_status"] for r in out] == EXPECTED


def test_cli_custom_function_that_exits_fails_its_row_only(hostile, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {"data_source": "custom", "reward_model": {"ground_truth": "x"}, "response": f"case {c}"}
            )
            + "\n"
            for c in ("fine", "exit", "fine")
        )
    )
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rewardloop.cli.main",
            "score",
            str(src),
            "-o",
            str(out),
            "--no-progress",
            "--custom-function",
            f"{hostile}:compute_score",
            "--max-failure-rate",
            "0.5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in scored] == ["ok", "crashed", "ok"]
    assert "exited with code 3" in scored[1]["error"]


def test_a_function_of_a_module_loaded_by_path_reaches_the_worker(tmp_path, monkeypatch):
    import importlib.util

    from rewardloop import Sample

    src = tmp_path / "path_loaded_reward.py"
    src.write_text(
        "import os\n"
        "def compute_score(data_source, solution_str, ground_truth, extra_info=None):\n"
        "    return {'score': 0.5, 'pid': os.getpid()}\n"
    )
    # loaded the way pytest's importlib mode or runpy load a file: in sys.modules, but not importable by name
    spec = importlib.util.spec_from_file_location("path_loaded_reward", src)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "path_loaded_reward", module)
    spec.loader.exec_module(module)
    scorer = CustomFunctionScorer(module.compute_score)
    assert scorer.execution == "process"
    with Runner(workers=1) as runner:
        batch = runner.run_sync(scorer, [Sample(response="r", ground_truth="g", task="t")])
    assert batch.statuses[0].value == "ok", batch.infos[0]
    assert batch.values[0] == 0.5 and batch.metrics["pid"][0] != os.getpid()

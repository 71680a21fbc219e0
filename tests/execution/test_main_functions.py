"""A reward function defined in ``__main__`` (a script, a notebook) given to the custom-function scorer with
``execution="process"``: it travels to the worker processes by value (cloudpickle), as functions loaded from
files do, locally and to Ray actors. Each case runs a real script in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")

SCRIPT = """
import os
from rewardloop import Runner, Sample
from rewardloop.scorers._custom import CustomFunctionScorer

OFFSET = 0.5  # a module global of __main__: travels with the function

def my_reward(data_source, solution_str, ground_truth, extra_info=None):
    return float(solution_str == ground_truth) + OFFSET + 0.0 * os.getpid()

scorer = CustomFunctionScorer(my_reward, execution="process")
samples = [Sample("7", "7"), Sample("8", "7")]
{run}
print("values", list(batch.values), "statuses", [s.value for s in batch.statuses])
print("parent", os.getpid())
"""


def run_script(tmp_path, run: str) -> str:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(SCRIPT.format(run=run)))
    env = {**os.environ, "PYTHONPATH": SRC, "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)  # its own local Ray, not the test cluster
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=240, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_a_main_function_runs_in_a_local_worker_process(tmp_path):
    out = run_script(
        tmp_path, "with Runner(workers=1) as runner:\n    batch = runner.run_sync(scorer, samples)"
    )
    assert "values [1.5, 0.5] statuses ['ok', 'ok']" in out


@pytest.mark.ray
def test_a_main_function_runs_in_a_ray_actor_worker(tmp_path):
    pytest.importorskip("ray")
    run = (
        'import ray\nray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)\n'
        "from rewardloop.execution import RayRunner\n"
        "with RayRunner(num_actors=1, workers=1) as runner:\n    batch = runner.run_sync(scorer, samples)\n"
        "ray.shutdown()"
    )
    assert "values [1.5, 0.5] statuses ['ok', 'ok']" in run_script(tmp_path, run)

"""verl 0.9.1's own reward-extra-info aggregation survives every heterogeneous batch our managers produce.

verl builds the batch's ``reward_extra_info`` columns from the first sample's keys
(``np.array([info[k] for info in infos])``). The script drives verl's own streaming path
(``AgentLoopWorker._compute_score`` -> our worker handle -> ``AgentLoopWorker._postprocess``) in the real verl
interpreter, on every order of: mixed float/dict scorers, an unknown data source, a multi-output trajectory,
the overlong shaper; and a custom function that returns floats, dicts, raises, loops forever, ``os._exit``s and
returns junk, with GDPO component keys. verl's own ``naive`` manager on the mixed batch is the control: it
crashes in some orders, so the check can fail.
"""

from __future__ import annotations

import pytest

from .test_real_verl import VERL_PYTHON, run_script

pytestmark = [
    pytest.mark.verl,
    pytest.mark.slow,
    pytest.mark.skipif(
        not VERL_PYTHON.exists(), reason=f"no verl interpreter at {VERL_PYTHON} (make verl-venv)"
    ),
]


@pytest.fixture(scope="module")
def result():
    return run_script("check_aggregation.py")


def _survives_every_order(res: dict, orders: int) -> None:
    assert res["orders"] == orders
    assert res["errors"] == 0, res["first_error"]
    assert res["dropped_columns"] == 0 and res["non_numeric_columns"] == 0


def test_control_verl_own_manager_crashes_its_own_aggregation(result):
    control = result["verl_control"]
    assert control["errors"] > 0 and "KeyError" in control["first_error"]


@pytest.mark.parametrize("manager", ["naive", "dapo"])
def test_routing_managers_survive_every_order(result, manager):
    res = result[f"routing_{manager}"]
    _survives_every_order(res, 720)
    assert {"score", "acc", "reward_status", "timeout", "error", "pred"} <= set(res["keys"])
    if manager == "dapo":
        assert {"overlong", "overlong_reward"} <= set(res["keys"])
    assert res["statuses"][2] == "invalid_input"  # the unknown data source, scored with the rest


def test_multi_output_trajectory_scores_its_final_output_with_its_own_length(result):
    # outputs of one trajectory differ in prompt length; verl pads them with pad_sequence, so only the exact
    # response_len column gives the final output's true response (its \boxed{1/2} is correct)
    assert result["routing_naive"]["rewards"][3] == 1.0


def test_custom_function_failures_and_gdpo_keys_survive_every_order(result):
    res = result["custom_gdpo"]
    _survives_every_order(res, 5040)
    assert res["statuses"] == ["ok", "ok", "ok", "scorer_error", "timeout", "crashed", "scorer_error"]
    assert res["rewards"][0] == 1.0  # the gdpo manager passed trainer.experiment_name in extra_info
    assert {"format_reward", "accuracy_reward"} <= set(res["keys"])  # declared by algorithm.gdpo_reward_keys
    # undeclared but read from the function's returned dict literal (verl keeps a function's keys): in every
    # sample's schema, so verl's first-sample aggregation survives every order (above)
    assert "judge" in res["keys"]
    assert res["gdpo_finite"] and res["metrics_finite"] and res["n_metrics"] > 0

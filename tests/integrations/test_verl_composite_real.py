"""Composite and group rewards through verl 0.9.1's own streaming path, aggregation and GDPO (real verl, in its
own interpreter): see ``verl_scripts/check_composite.py``."""

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
    return run_script("check_composite.py")


def test_composite_keys_survive_verl_aggregation_in_every_order_and_feed_gdpo(result):
    res = result["composite"]
    assert res["orders"] == 120 and res["errors"] == 0, res["first_error"]
    assert res["dropped_columns"] == 0 and res["non_numeric_columns"] == 0
    assert {"acc", "acc_status", "fmt", "fmt_status", "slow", "slow_status"} <= set(res["keys"])
    # the third case's process component ran past its deadline: the sample is a timeout, not acc + fmt
    assert res["statuses"] == ["ok", "ok", "timeout", "ok", "invalid_input"]
    assert res["slow_status"][2] == "timeout"
    assert res["rewards"][:2] == pytest.approx([1.2, -1.0]) and res["rewards"][3] == pytest.approx(1.2)
    assert res["gdpo_finite"]


def test_streamed_group_reward_through_verl_compute_score(result):
    res = result["group"]
    assert res["errors"] == 0 and res["dropped_columns"] == 0, res["first_error"]
    assert res["rewards"] == pytest.approx([1.0, -1.0, 0.0, 0.0])  # centred within uid a, then uid b

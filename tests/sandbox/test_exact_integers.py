"""Integers are exact under a float tolerance (issue 23, item 4).

verl's codecontests/apps/codeforces/taco routes compare outputs with a float tolerance (1e-5 here); a wrong
integer printed as a float (``1000009.0`` for ``1000000``) passed it, and so did a wrong call-based integer
(``1000007`` for ``1000000``). verl compares call-based results exactly, and our docs promise exact integers:
an expected integer matches only the same integer (``1000000.0`` is still ``1000000``); tolerance applies
when the expected value is not an integer.
"""

from __future__ import annotations

import json
import sys

import pytest

from rewardloop.sandbox.harness import compare_stdout, compare_values

TOL = 1e-5

STDOUT = [
    # (got, expected, passes)
    ("1000009.0", "1000000", False),
    ("1000009", "1000000", False),
    ("1000000.0", "1000000", True),
    ("1e6", "1000000", True),
    ("1000000.5", "1000000", False),
    ("999999.99999", "1000000", False),
    ("-0.0", "0", True),
    ("3 1000009.0", "3 1000000", False),
    ("0.3333333", "0.333333", True),  # a decimal expected value keeps its tolerance
    ("1000009.0", "1000000.0", True),  # 9e-6 relative: within 1e-5
    ("1000000", "1000000.000001", True),
    ("12345678901234567890.0", "12345678901234567891", False),
    ("inf", "1", False),
    ("nan", "1", False),
]


@pytest.mark.parametrize("got, expected, ok", STDOUT)
def test_an_expected_integer_is_exact_under_a_float_tolerance(got, expected, ok):
    assert compare_stdout(got, expected, TOL) is ok


VALUES = [
    (1000007, 1000000, False),
    (1000000.0, 1000000, True),
    (1000009.0, 1000000, False),
    ([1, 2, 1000007], [1, 2, 1000000], False),
    ({"a": 1000007}, {"a": 1000000}, False),
    (0.30000000000000004, 0.3, True),
    (1000009.0, 1000000.0, True),
    (True, 1, True),  # Python's own equality: bool is an int
    (2, True, False),
]


@pytest.mark.parametrize("got, expected, ok", VALUES)
def test_call_based_integers_are_exact(got, expected, ok):
    assert compare_values(got, expected, TOL) is ok


@pytest.mark.sandbox
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux")
def test_the_code_routes_refuse_a_near_integer(backend):
    stdio = json.dumps({"inputs": [""], "outputs": ["1000000\n"]})
    call = json.dumps({"fn_name": "f", "inputs": [[]], "outputs": [1000000]})
    for source in ("codecontests", "apps", "codeforces", "taco"):
        score = backend("rewardloop:default_compute_score", source, "```python\nprint(1000009.0)\n```", stdio)
        assert score == 0.0, source
        score = backend(
            "rewardloop:default_compute_score", source, "```python\ndef f():\n    return 1000007\n```", call
        )
        assert score == 0.0, source
        right = backend("rewardloop:default_compute_score", source, "```python\nprint(1000000)\n```", stdio)
        assert right == 1.0, source

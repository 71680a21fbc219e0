"""Test harnesses on real sandbox runs: every test format, every per-test status, the comparison rules."""

from __future__ import annotations

import json
import sys

import pytest

from rewardloop.sandbox import Limits
from rewardloop.sandbox.harness import (
    TestSpecError,
    TestStatus,
    compare_stdout,
    compare_values,
    parse_tests,
    run_tests,
)

from .conftest import skip_unless

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux")

P = TestStatus.PASSED
WA = TestStatus.WRONG_ANSWER
RE = TestStatus.RUNTIME_ERROR


def statuses(results):
    return [r.status for r in results]


# ------------------------------------------------------------------------------------------ pure parts


@pytest.mark.parametrize(
    "got,expected,tol,ok",
    [
        ("4\n", "4", None, True),
        ("1 2   \n3\n\n\n", "1 2\n3", None, True),
        ("1 2\r\n3\r\n", "1 2\n3\n", None, True),
        ("1  2\n", "1 2\n", None, False),  # inner whitespace counts
        (" 4\n", "4\n", None, False),  # leading whitespace counts
        ("4\n5\n", "4\n", None, False),
        ("0.3333333\n", "0.333333333", None, False),
        ("0.3333333\n", "0.333333333", 1e-6, True),
        ("0.34\n", "0.333333333", 1e-6, False),
        ("1e3 abc\n", "1000.0 abc", 1e-9, True),
        ("1e3 abd\n", "1000.0 abc", 1e-9, False),
        ("nan\n", "nan", 1e-6, True),  # equal text
        ("inf\n", "1e999", 1e-6, False),  # words are not numbers
        ("1000000\n", "1000001", 1e-5, False),  # integers compare exactly
        ("1000000\n", "1000000.000001", 1e-5, True),
        ("9" * 400 + ".0", "8" * 400 + ".0", 1e-5, False),  # overflow to inf is not equality
        ("9" * 5000, "8" * 5000, 1e-5, False),  # past int()'s digit limit
        ("", "", None, True),
        ("\n\n", "", None, True),
    ],
)
def test_compare_stdout(got, expected, tol, ok):
    assert compare_stdout(got, expected, tol) is ok


@pytest.mark.parametrize(
    "got,expected,tol,ok",
    [
        ([3, 1], [3, 1], None, True),
        ([3, 1], [[3, 1]], None, True),  # APPS wraps results in a one-element list
        (5, [5], None, True),
        ([[1, 2]], [[1, 2]], None, True),
        ({"a": [1, 2]}, {"a": [1, 2]}, None, True),
        (0.1 + 0.2, 0.3, None, False),
        (0.1 + 0.2, 0.3, 1e-9, True),
        ([1, 2], [2, 1], None, False),
        (None, None, None, True),
        ("x", "y", None, False),
    ],
)
def test_compare_values(got, expected, tol, ok):
    assert compare_values(got, expected, tol) is ok


@pytest.mark.parametrize(
    "spec,needle",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (5, "JSON object"),
        ({"foo": 1}, "unknown test layout"),
        ({"inputs": ["1"], "outputs": []}, "1 cases"),
        ({"inputs": "1", "outputs": "1"}, "must both be lists"),
        ({"inputs": [], "outputs": []}, "no test case"),
        ({"inputs": [1], "outputs": ["1"]}, "inputs[0]"),
        ({"inputs": ["1"], "outputs": ["1"], "fn_name": "not a name"}, "fn_name"),
        ({"inputs": ["{bad"], "outputs": ["1"], "fn_name": "f"}, "JSON lines"),
        ({"test_list": "assert 1"}, "test_list"),
        ({"test": "def check(c): pass", "entry_point": "1x"}, "entry_point"),
    ],
)
def test_malformed_specs_name_the_problem(spec, needle):
    with pytest.raises(TestSpecError, match=None) as info:
        parse_tests(spec)
    assert needle in str(info.value)


def test_parse_layouts():
    assert parse_tests('{"inputs": ["1"], "outputs": ["2"]}').kind == "stdio"
    call = parse_tests({"inputs": ["1\n[2, 3]"], "outputs": ["[5]"], "fn_name": "f"})
    assert call.kind == "call" and json.loads(call.cases[0].stdin) == [1, [2, 3]]
    assert call.cases[0].expected == [5]
    assert parse_tests({"test_list": ["assert f(1) == 1"]}).kind == "mbpp"
    assert parse_tests({"test": "def check(c): pass", "entry_point": "f"}).kind == "humaneval"
    lines = parse_tests({"inputs": [["1", "2"]], "outputs": [["3"]]})
    assert lines.cases[0].stdin == "1\n2" and lines.cases[0].expected == "3"


# ------------------------------------------------------------------------------------------ real runs

DOUBLE = "n = int(input())\nprint(n * 2)   \n"


@pytest.mark.sandbox
def test_stdio_pass_wrong_answer_and_trailing_whitespace(sandbox):
    tests = {"inputs": ["2\n", "3\n", "5"], "outputs": ["4", "7\n", "10\n\n"]}
    assert statuses(run_tests(DOUBLE, tests, sandbox=sandbox)) == [P, WA, P]
    # binary mode stops at the first failure
    assert statuses(run_tests(DOUBLE, tests, sandbox=sandbox, stop_on_failure=True)) == [P, WA]
    assert statuses(run_tests(DOUBLE, tests, sandbox=sandbox, max_tests=1)) == [P]


@pytest.mark.sandbox
def test_stdio_float_tolerance_and_runtime_error(sandbox):
    code = "print(1 / 3)"
    tests = {"inputs": [""], "outputs": ["0.333333"]}
    assert statuses(run_tests(code, tests, sandbox=sandbox)) == [WA]
    assert statuses(run_tests(code, tests, sandbox=sandbox, float_tol=1e-5)) == [P]
    crash = run_tests("print(4)\nraise SystemExit(3)", {"inputs": [""], "outputs": ["4"]}, sandbox=sandbox)
    assert statuses(crash) == [RE] and "exit code 3" in crash[0].detail


@pytest.mark.sandbox
def test_call_based_plain_function(sandbox):
    code = "def add(a, b):\n    print('debug output is ignored')\n    return (a + b, [a])\n"
    tests = {
        "fn_name": "add",
        "inputs": ["1\n2", "[1]\n[2]", [5, 5]],
        "outputs": ["[[3, [1]]]", "[[1, 2], [[1]]]", "[10, [4]]"],
    }
    assert statuses(run_tests(code, tests, sandbox=sandbox)) == [P, P, WA]


@pytest.mark.sandbox
def test_call_based_solution_method_leetcode_style(sandbox):
    code = (
        "from typing import List\n"
        "class Solution:\n"
        "    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
        "        seen = {}\n"
        "        for i, x in enumerate(nums):\n"
        "            if target - x in seen:\n"
        "                return [seen[target - x], i]\n"
        "            seen[x] = i\n"
    )
    tests = {
        "fn_name": "twoSum",
        "inputs": ["[2, 7, 11, 15]\n9", "[3, 3]\n6"],
        "outputs": ["[0, 1]", "[1, 0]"],
    }
    assert statuses(run_tests(code, tests, sandbox=sandbox)) == [P, WA]


@pytest.mark.sandbox
@pytest.mark.parametrize("expected", ["", None, "null"])
def test_raising_function_fails_even_with_empty_expected_output(sandbox, expected):
    code = "def f(x):\n    raise ValueError('boom')\n"
    results = run_tests(code, {"fn_name": "f", "inputs": ["1"], "outputs": [expected]}, sandbox=sandbox)
    assert statuses(results) == [RE] and "ValueError: boom" in results[0].detail
    # the same function returning None passes an expected null
    ok = run_tests("def f(x):\n    return None\n", {"fn_name": "f", "inputs": ["1"], "outputs": ["null"]})
    assert statuses(ok) == [P]


@pytest.mark.sandbox
def test_call_based_missing_function_and_unserialisable_result(sandbox):
    missing = run_tests(
        "def g(x): return x", {"fn_name": "f", "inputs": ["1"], "outputs": ["1"]}, sandbox=sandbox
    )
    assert statuses(missing) == [RE] and "NameError" in missing[0].detail
    weird = run_tests(
        "def f(x): return object()", {"fn_name": "f", "inputs": ["1"], "outputs": ["1"]}, sandbox=sandbox
    )
    assert statuses(weird) == [WA] and "not JSON serialisable" in weird[0].detail
    exits = run_tests("import sys\ndef f(x): sys.exit(0)", {"fn_name": "f", "inputs": ["1"], "outputs": [""]})
    assert statuses(exits) == [RE]


@pytest.mark.sandbox
def test_humaneval_check(sandbox):
    spec = {
        "prompt": 'def add(a: int, b: int) -> int:\n    """Add two numbers."""\n',
        "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n",
        "entry_point": "add",
    }
    assert statuses(run_tests("    return a + b\n", spec, sandbox=sandbox)) == [P]  # body completion
    assert statuses(run_tests("def add(a, b):\n    return a + b\n", spec, sandbox=sandbox)) == [P]  # full def
    wrong = run_tests("    return a - b\n", spec, sandbox=sandbox)
    assert statuses(wrong) == [RE] and "AssertionError" in wrong[0].detail


@pytest.mark.sandbox
def test_mbpp_test_list(sandbox):
    spec = {
        "test_setup_code": "import math",
        "test_list": ["assert area(1) == math.pi", "assert area(2) == 4 * math.pi", "assert area(0) == 1"],
    }
    code = "import math\ndef area(r):\n    return math.pi * r * r\n"
    assert statuses(run_tests(code, spec, sandbox=sandbox)) == [P, P, RE]
    assert statuses(run_tests(code, spec, sandbox=sandbox, stop_on_failure=True)) == [P, P, RE]


@pytest.mark.sandbox
def test_timeout_fails_only_its_own_test(sandbox):
    code = "n = int(input())\nwhile n == 0:\n    pass\nprint(n)\n"
    tests = {"inputs": ["1", "0", "3"], "outputs": ["1", "0", "3"]}
    results = run_tests(code, tests, sandbox=sandbox, limits=Limits(wall_s=1))
    assert statuses(results) == [P, TestStatus.TIMEOUT, P]


@pytest.mark.sandbox
def test_memory_exceeded(sandbox):
    code = "x = bytearray(400 * 1024 * 1024)\nprint(len(x))"
    results = run_tests(
        code, {"inputs": [""], "outputs": ["1"]}, sandbox=sandbox, limits=Limits(memory_mb=128)
    )
    assert statuses(results) == [TestStatus.MEMORY_EXCEEDED]


@pytest.mark.sandbox
def test_cpp_compile_error_and_pass(sandbox):
    skip_unless(sandbox, "cpp")
    tests = {"inputs": ["2", "3"], "outputs": ["4", "6"]}
    broken = run_tests("int main() { return 0", tests, language="cpp", sandbox=sandbox)
    assert statuses(broken) == [TestStatus.COMPILE_ERROR] * 2
    good = "#include <iostream>\nint main() { int n; std::cin >> n; std::cout << 2 * n << '\\n'; }\n"
    assert statuses(run_tests(good, tests, language="cpp", sandbox=sandbox)) == [P, P]


def test_python_only_formats_refuse_other_languages():
    with pytest.raises(TestSpecError, match="python"):
        run_tests("int main(){}", {"test_list": ["assert True"]}, language="cpp")


# ------------------------------------------------------------------------------------------ the checker boundary


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "code,assertion,ok",
    [
        # values cross with their exact built-in types: a list is not a tuple, 1 is not "1"
        ("def f(): return (1, 2)", "assert f() == (1, 2)", True),
        ("def f(): return [1, 2]", "assert f() == (1, 2)", False),
        ("def f(): return '1'", "assert f() == 1", False),
        (
            "def f(): return {(1, 2): {3}, 'x': frozenset([b'a'])}",
            "assert f() == {(1, 2): {3}, 'x': {b'a'}}",
            True,
        ),
        ("def f(): return 2 ** 200 + 0.5j", "assert f() == 2 ** 200 + 0.5j", True),
        ("def f(): return float('nan')", "assert f() != f()", True),
        (
            "def f(): return [float('inf'), -0.0, None, True]",
            "assert f() == [float('inf'), 0.0, None, 1]",
            True,
        ),
        # subclasses and library scalars arrive as their plain equivalents
        (
            "from collections import Counter\ndef f(): return Counter('aab')",
            "assert f() == {'a': 2, 'b': 1}",
            True,
        ),
        (
            "from collections import namedtuple\nP = namedtuple('P', 'x y')\ndef f(): return P(1, 2)",
            "assert f() == (1, 2)",
            True,
        ),
        # generators, iterators and instances stay in the program; the test can iterate and call them
        ("def f(n): return (i * i for i in range(n))", "assert list(f(4)) == [0, 1, 4, 9]", True),
        ("def f(n): return map(str, range(n))", "assert sorted(f(3)) == ['0', '1', '2']", True),
        ("def f(n): return (i for i in range(n))", "assert f(2) == [0, 1]", False),
        (
            "class Pair:\n    def __init__(self, a, b):\n        self.a, self.b = a, b\n"
            "def longest(pairs):\n    return max(p.b - p.a for p in pairs)\n",
            "assert longest([Pair(1, 5), Pair(2, 3)]) == 4",
            True,
        ),
        (
            "class Node:\n    def __init__(self, v, nxt=None):\n        self.v, self.nxt = v, nxt\n"
            "    def __len__(self):\n        return 1 + (len(self.nxt) if self.nxt else 0)\n"
            "    def __str__(self):\n        return f'Node({self.v})'\n"
            "def build(xs):\n    head = None\n    for x in reversed(xs):\n        head = Node(x, head)\n"
            "    return head\n",
            "assert len(build([1, 2, 3])) == 3 and build([7]).v == 7 and str(build([4])) == 'Node(4)'",
            True,
        ),
        (
            "class L:\n    def __getitem__(self, k):\n        return list(range(10))[k]\ndef f(): return L()",
            "assert f()[2:8:3] == [2, 5] and f()[-1] == 9",
            True,
        ),
        # a module the assert names is the checker's own import, whatever the program bound to the name
        ("import math\ndef area(r): return math.pi * r * r", "assert math.isclose(area(1), math.pi)", True),
        ("import re\ndef words(s): return re.findall(r'\\w+', s)", "assert words('a b') == ['a', 'b']", True),
    ],
)
def test_values_cross_the_checker_boundary_as_plain_data(sandbox, code, assertion, ok):
    results = run_tests(code, {"test_list": [assertion]}, sandbox=sandbox)
    assert statuses(results) == [P if ok else RE], results


@pytest.mark.sandbox
def test_mbpp_shapes_from_the_data_set(sandbox):
    # task 126: the function under test is named like a builtin, and only it is taken from the program
    code = "def sum(a, b):\n    return sum_([i for i in range(1, min(a, b)) if a % i == 0 == b % i])\n"
    code += "def sum_(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
    spec = {"test_list": ["assert sum(10, 15) == 6", "assert sum(4, 6) == 3"]}
    assert statuses(run_tests(code, spec, sandbox=sandbox)) == [P, P]
    # tasks 367 / 927: the setup code builds a tree of the program's own Node objects
    node = "class Node:\n    def __init__(self, data):\n        self.data, self.left, self.right = data, None, None\n"
    code = node + "def height(n):\n    return 0 if n is None else 1 + max(height(n.left), height(n.right))\n"
    setup = "root = Node(1)\nroot.left = Node(2)\nroot.left.left = Node(3)\n"
    spec = {
        "test_setup_code": setup,
        "test_list": ["assert height(root) == 3", "assert height(root.left) == 2"],
    }
    assert statuses(run_tests(code, spec, sandbox=sandbox)) == [P, P]
    # task 533: a builtin type as an argument; as a result it stays the program's (issue 23: nothing
    # callable crosses into the checker), so `is int` does not hold there
    code = (
        "def drop(xs, t):\n    return [x for x in xs if not isinstance(x, t)]\ndef kind():\n    return int\n"
    )
    spec = {"test_list": ["assert drop((4, 7.7, 1), int) == [7.7]", "assert kind() is int"]}
    assert statuses(run_tests(code, spec, sandbox=sandbox)) == [P, RE]


@pytest.mark.sandbox
def test_a_protocol_violation_fails_even_when_the_test_catches_it(sandbox):
    test = (
        "def check(candidate):\n"
        "    try:\n        assert candidate(1)\n    except BaseException:\n        pass\n"
        "    try:\n        candidate(2)\n    except BaseException:\n        pass\n"
    )
    spec = {"test": test, "entry_point": "f"}
    assert statuses(run_tests("def f(x):\n    return True\n", spec, sandbox=sandbox)) == [P]
    truthy = run_tests("def f(x):\n    return object()\n", spec, sandbox=sandbox)  # no truth value
    assert statuses(truthy) == [RE] and "truth value" in truthy[0].detail
    exits = run_tests("import sys\ndef f(x):\n    sys.exit(0)\n", spec, sandbox=sandbox)
    assert statuses(exits) == [RE] and "SystemExit" in exits[0].detail


@pytest.mark.sandbox
def test_the_prompt_helpers_are_the_datasets_not_the_programs(sandbox):
    """HumanEval/38 style: the test calls a helper from the prompt; a program that redefines the helper
    (to make its own wrong decoder look right) does not change what the test calls."""
    spec = {
        "prompt": "def encode(s):\n    return s[1:] + s[:1]\n\ndef decode(s):\n",
        "test": "def check(candidate):\n    assert candidate(encode('abc')) == 'abc'\n",
        "entry_point": "decode",
    }
    assert statuses(run_tests("    return s[-1:] + s[:-1]\n", spec, sandbox=sandbox)) == [P]
    cheat = "def encode(s):\n    return s\n\ndef decode(s):\n    return s\n"
    assert statuses(run_tests(cheat, spec, sandbox=sandbox)) == [RE]


@pytest.mark.sandbox
def test_a_program_that_never_returns_times_out(sandbox):
    spec = {"test": "def check(candidate):\n    assert candidate() == 1\n", "entry_point": "f"}
    results = run_tests(
        "def f():\n    while True:\n        pass\n", spec, sandbox=sandbox, limits=Limits(wall_s=1)
    )
    assert statuses(results) == [TestStatus.TIMEOUT]


class _Replay:
    """A backend that answers every run with a chosen stdout and exit code; ``{nonce}`` in the stdout
    is the nonce the harness sent, so the host's reading of the verdict line can be tested exactly."""

    def __init__(self, stdout: str, exit_code: int = 0) -> None:
        self.stdout, self.exit_code = stdout, exit_code

    def run(self, code, language="python", *, stdin="", limits=None, files=None, args=()):
        from rewardloop.sandbox import RunResult, RunStatus

        nonce = json.loads(stdin)["nonce"]
        out = self.stdout.replace("{nonce}", nonce)
        return RunResult(status=RunStatus.FINISHED, exit_code=self.exit_code, stdout=out)


@pytest.mark.parametrize(
    "stdout,exit_code,status",
    [
        ('{nonce} {"v": "passed"}\n', 0, P),
        ('{nonce} {"v": "passed"}\n', 1, RE),  # the exit code must agree
        ('{nonce} {"v": "passed"}\nmore\n', 0, RE),  # nothing else on stdout
        ('PASSED\n{nonce} {"v": "passed"}\n', 0, RE),
        ('{nonce}x {"v": "passed"}\n', 0, RE),  # another nonce
        ('0123 {"v": "passed"}\n', 0, RE),
        ('{nonce} {"v": "passed"}', 0, RE),  # cut short
        ('{nonce} ["passed"]\n', 0, RE),
        ("", 0, RE),
        ('{nonce} {"v": "failed", "detail": "AssertionError"}\n', 1, RE),
        ('{nonce} {"v": "harness_error", "detail": "fork failed"}\n', 1, TestStatus.SANDBOX_ERROR),
    ],
)
def test_only_the_checkers_verdict_line_counts(stdout, exit_code, status):
    spec = {"test": "def check(candidate):\n    assert candidate() == 1\n", "entry_point": "f"}
    assert statuses(run_tests("def f(): return 1", spec, sandbox=_Replay(stdout, exit_code))) == [status]


@pytest.mark.parametrize(
    "stdout,status",
    [
        ('{nonce} {"v": "result", "value": [1, 2]}\n', P),
        ('{nonce} {"v": "result", "value": [2, 1]}\n', WA),
        ('{nonce} {"v": "result"}\n', RE),
        ('{nonce} {"v": "unserialisable", "detail": "result of type E"}\n', WA),
    ],
)
def test_call_based_verdicts(stdout, status):
    spec = {"fn_name": "f", "inputs": ["1"], "outputs": ["[1, 2]"]}
    assert statuses(run_tests("def f(x): return [1, 2]", spec, sandbox=_Replay(stdout))) == [status]


@pytest.mark.parametrize(
    "code,spec,field",
    [
        ("print('\ud800')", {"inputs": ["1"], "outputs": ["1"]}, "code"),
        ("print(1)", {"inputs": ["\udc80"], "outputs": ["1"]}, "tests: inputs[0]"),
        ("x = 1", {"test_list": ["assert x == 1", "assert '\ud800'"]}, "tests: test_list[1]"),
        ("x = 1", {"test": "def check(c): '\ud800'", "entry_point": "f", "prompt": ""}, "tests: test"),
        ("x = 1", {"test": "def check(c): pass", "entry_point": "f", "prompt": "\ud800"}, "tests: prompt"),
    ],
)
def test_text_utf8_cannot_encode_raises_invalid_input_before_any_run(code, spec, field):
    from rewardloop.errors import InvalidSampleError

    class NoRuns:
        def run(self, *args, **kwargs):
            raise AssertionError("nothing may run")

    with pytest.raises(InvalidSampleError, match="surrogate") as info:
        run_tests(code, spec, sandbox=NoRuns())
    assert str(info.value).startswith(field + " ")


@pytest.mark.sandbox
def test_output_of_the_test_code_and_the_program_does_not_disturb_the_verdict(sandbox):
    test = "def check(candidate):\n    print('checking', flush=True)\n    print('x' * 100000)\n"
    test += "    assert candidate() == 1\n"
    code = "import sys\nprint('program output', flush=True)\ndef f():\n    sys.stdout.write('y' * 100000)\n"
    code += "    return 1\n"
    assert statuses(run_tests(code, {"test": test, "entry_point": "f"}, sandbox=sandbox)) == [P]

"""Checker takeover (issue 23, item 1): nothing that comes from the program reaches the trusted checker as
a callable or an object with behaviour.

The red-team's break: the program binds the name a test calls (``Solution``, a method, the entry point) to
``breakpoint``; the checker rebuilt built-ins sent by name as its own, so pdb ran *inside the checker* and
read a ``.pdbrc`` the program had written into its working directory (also the checker's cwd and HOME),
which emitted a pass with the checker's nonce. Every test here runs on both set-ups the red-team used:
root through ``unshare`` and an unprivileged caller through ``bwrap``.
"""

from __future__ import annotations

import builtins
import json
import sys

import pytest

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux"),
    pytest.mark.sandbox,
]

# pdb commands run in the frame that called breakpoint(): find the checker's request, emit a forged pass
# with its nonce on the verdict descriptor, and leave before the real checks can fail.
_FORGE = (
    "f = sys._getframe()\n"
    "while f is not None and not isinstance(f.f_locals.get('request'), dict): f = f.f_back\n"
    "r = f.f_locals['request']\n"
    "v = {'v': 'result', 'value': 42} if r['kind'] == 'call' else {'v': 'passed'}\n"
    "sys.modules['__main__']._emit(r['nonce'], v)\n"
    "os._exit(0)\n"
)
PDBRC = "!import sys, os; exec(" + repr(_FORGE) + ")\n"
WRITE_RC = (
    "import os\n"
    f"for _d in {{os.getcwd(), os.path.expanduser('~'), os.environ.get('TMPDIR', '.')}}:\n"
    "    try:\n"
    f"        open(os.path.join(_d, '.pdbrc'), 'w').write({PDBRC!r})\n"
    "    except OSError:\n"
    "        pass\n"
)

# Each: (spec, a wrong program that hands the checker ``breakpoint`` where the test calls with no arguments)
TAKEOVERS = {
    "humaneval_entry": (
        {"test": "def check(candidate):\n    assert candidate() == 42\n", "entry_point": "f"},
        "f = breakpoint\n",
    ),
    "call_based": ({"fn_name": "f", "inputs": [[]], "outputs": [42]}, "f = breakpoint\n"),
    "call_based_solution_method": (
        {"fn_name": "f", "inputs": [[]], "outputs": [42]},
        "class Solution:\n    f = staticmethod(breakpoint)\n",
    ),
    "mbpp_class": ({"test_list": ["assert Solution().answer() == 42"]}, "Solution = breakpoint\n"),
    "mbpp_method": (
        {"test_list": ["s = Stack()\ns.push(42)\nassert s.pop() == 42"]},
        "class Stack:\n    def push(self, x):\n        pass\n    pop = breakpoint\n",
    ),
    "mbpp_returned_builtin": (
        {"test_list": ["assert make()() == 42"]},
        "def make():\n    return breakpoint\n",
    ),
    "humaneval_attribute": (
        {"test": "def check(candidate):\n    assert candidate().run() == 42\n", "entry_point": "f"},
        "class _R:\n    run = breakpoint\ndef f():\n    return _R()\n",
    ),
}


@pytest.mark.parametrize("name", sorted(TAKEOVERS))
def test_a_program_cannot_run_pdb_in_the_checker(backend, name):
    spec, program = TAKEOVERS[name]
    statuses = backend.run_tests(WRITE_RC + program, spec)
    assert "passed" not in statuses, (name, statuses)


@pytest.mark.parametrize("name", sorted(TAKEOVERS))
def test_the_takeover_programs_fail_through_default_compute_score(backend, name):
    spec, program = TAKEOVERS[name]
    source = "codecontests" if "inputs" in spec else ("humaneval" if "entry_point" in spec else "mbpp")
    reply = backend(
        "rewardloop:default_compute_score", source, f"```python\n{WRITE_RC + program}```", json.dumps(spec)
    )
    assert reply == 0.0, (name, reply)


def test_the_checker_never_calls_breakpoint_even_when_the_test_does(backend):
    # defence in depth: a test that itself calls breakpoint() must not read the program's rc files
    spec = {
        "test": "def check(candidate):\n    breakpoint()\n    assert candidate() == 42\n",
        "entry_point": "f",
    }
    assert backend.run_tests(WRITE_RC + "def f():\n    return 0\n", spec) != ["passed"]


# every public built-in callable, handed over by name: the checker must see a handle of the program's,
# never its own object (a type, a function) of that name
_CALLABLE_BUILTINS = sorted(
    n for n in dir(builtins) if not n.startswith("_") and callable(getattr(builtins, n))
)


def test_no_builtin_crosses_into_the_checker_as_its_own_object(backend):
    names = _CALLABLE_BUILTINS
    program = "".join(f"def get_{n}():\n    return {n}\n" for n in names)
    test = "".join(
        f"assert type(get_{n}()).__name__ == '_Remote', {n!r}\n" for n in names
    )  # the checker's proxy for a program object
    assert backend.run_tests(program, {"test_list": [test]}) == ["passed"]


@pytest.mark.parametrize("name", ["breakpoint", "help", "input", "exec", "eval", "open", "vars", "getattr"])
def test_a_builtin_named_by_the_program_runs_in_the_program(backend, name):
    # the program's `name` is a handle: calling it runs in the program process (whose stdin is
    # /dev/null and whose output goes to stderr), never in the checker
    spec = {"fn_name": "f", "inputs": [[]], "outputs": [42]}
    assert backend.run_tests(WRITE_RC + f"f = {name}\n", spec) != ["passed"]
    humaneval = {"test": "def check(candidate):\n    assert candidate() == 42\n", "entry_point": "f"}
    assert backend.run_tests(WRITE_RC + f"f = {name}\n", humaneval) != ["passed"]


CHECKER_PROBE = (
    "def check(candidate):\n"
    "    import os, sys\n"
    "    assert candidate() == 1\n"
    "    assert not os.access(os.getcwd(), os.W_OK), os.getcwd()\n"
    "    assert not os.access(os.path.expanduser('~'), os.W_OK), os.path.expanduser('~')\n"
    "    assert os.environ.get('PYTHONBREAKPOINT') == '0'\n"
    "    assert sys.flags.ignore_environment and sys.flags.no_user_site\n"
)


def test_the_checker_runs_where_the_program_cannot_write(backend):
    assert backend.run_tests("def f():\n    return 1\n", {"test": CHECKER_PROBE, "entry_point": "f"}) == [
        "passed"
    ]


def test_the_honest_programs_still_pass(backend):
    right = {
        "humaneval_entry": "def f():\n    return 42\n",
        "call_based": "def f():\n    return 42\n",
        "call_based_solution_method": "class Solution:\n    def f(self):\n        return 42\n",
        "mbpp_class": "class Solution:\n    def answer(self):\n        return 42\n",
        "mbpp_method": (
            "class Stack:\n    def __init__(self):\n        self.v = []\n"
            "    def push(self, x):\n        self.v.append(x)\n    def pop(self):\n        return self.v.pop()\n"
        ),
        "mbpp_returned_builtin": "def make():\n    return lambda: 42\n",
        "humaneval_attribute": "class _R:\n    def run(self):\n        return 42\ndef f():\n    return _R()\n",
    }
    for name, (spec, _) in TAKEOVERS.items():
        statuses = backend.run_tests(right[name], spec)
        assert statuses and set(statuses) == {"passed"}, (name, statuses)

"""Reward hacks against the test harnesses (issue 14, item 1): a wrong program plus a trick must never
pass a test, and the correct program must still pass every test.

Each trick is what a policy under RL pressure finds: leave early with exit code 0, make the checks'
failure look like success (atexit, excepthook, signal handlers, threads), patch builtins or the check
machinery, return values whose comparisons lie, read the tests to learn the expected outputs, and forge
the harness's own result lines. Every one runs for real through the default sandbox, in the HumanEval,
MBPP and call-based harnesses (and the stdin/stdout one where the trick applies).
"""

from __future__ import annotations

import sys

import pytest

from rewardloop.sandbox import Limits
from rewardloop.sandbox.harness import TestStatus, run_tests

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux"),
    pytest.mark.sandbox,
]

RIGHT = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"

HUMANEVAL = {
    "prompt": 'def add(a, b):\n    """Add two numbers."""\n',
    "test": (
        "def check(candidate):\n"
        "    assert candidate(2, 3) == 5\n"
        "    assert candidate(-1, 1) == 0\n"
        "    assert abs(candidate(0.5, 0.25) - 0.75) < 1e-9\n"
        "    assert isinstance(candidate(1, 2), int)\n"
        "    assert candidate(4, 4) != 7\n"
        "    assert not candidate(1, -1)\n"
    ),
    "entry_point": "add",
}
# only equalities: the shape a program that reads the test file can answer
HUMANEVAL_EQ = {
    "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(10, 20) == 30\n",
    "entry_point": "add",
}
MBPP = {
    "test_list": [
        "assert add(2, 3) == 5",
        "assert add(-1, 1) == 0",
        "assert abs(add(0.5, 0.25) - 0.75) < 1e-9",
        "assert isinstance(add(1, 2), int) and add(1, 2) == 3",
    ],
    "test_setup_code": "",
}
# the assert uses a module that only the program imports: the checker must use its own
MBPP_MODULE = {"test_list": ["assert math.isclose(add(0.1, 0.2), 0.3)"]}
CALL = {"fn_name": "add", "inputs": ["2\n3", "-1\n1", "[1]\n[2]"], "outputs": ["5", "0", "[1, 2]"]}
SPECS = {
    "humaneval": HUMANEVAL,
    "humaneval_eq": HUMANEVAL_EQ,
    "mbpp": MBPP,
    "mbpp_module": MBPP_MODULE,
    "call": CALL,
}

# A program that learns expected outputs from anything it can read: its own source, stdin, every
# file in its directory, and its parent's and PID 1's command line, environment, stdin and memory.
_READ_TESTS = r"""
import os, re, sys
_seen = []
def _grab(path, limit=1 << 20):
    try:
        with open(path, "rb") as fh:
            _seen.append(fh.read(limit).decode("utf-8", "replace"))
    except (OSError, ValueError):
        pass
try:
    _seen.append(sys.stdin.read())
except (OSError, ValueError):
    pass
for _name in os.listdir("."):
    _grab(_name)
for _pid in {os.getppid(), 1}:
    for _what in ("cmdline", "environ", "fd/0", "fd/1", "fd/3", "fd/4"):
        _grab(f"/proc/{_pid}/{_what}")
_grab(sys.argv[0] if sys.argv and sys.argv[0] else "main.py")
_table = {}
for _text in _seen:
    for _args, _want in re.findall(r"(?:add|candidate)\(([^()]*)\) == ([-\d.]+)", _text):
        try:
            _table[tuple(float(x) for x in _args.split(","))] = float(_want)
        except ValueError:
            pass
def add(a, b):
    _key = (float(a), float(b))
    if _key in _table:
        _got = _table[_key]
        return int(_got) if _got == int(_got) else _got
    return a - b
"""

# Forge every result line the harness might believe: the old call-based marker read from the program's
# own source, "PASSED", guesses at a verdict line, on stdout, stderr and the parent's or PID 1's stdout.
_FORGE = r"""
import atexit, os, re, sys
try:
    _src = open(sys.argv[0] if sys.argv and sys.argv[0] else "main.py").read()
except OSError:
    _src = ""
_markers = set(re.findall(r"@@rl-result-[0-9a-f]+", _src))
_lines = [f"\n{m}=5\n" for m in _markers] + ["PASSED\n", "passed\n", "ok\n", '{"v": "passed"}\n']
def _forge():
    for _line in _lines:
        for _fd in (1, 2):
            try:
                os.write(_fd, _line.encode())
            except OSError:
                pass
        for _pid in {os.getppid(), 1}:
            try:
                with open(f"/proc/{_pid}/fd/1", "w") as _fh:
                    _fh.write(_line)
            except OSError:
                pass
atexit.register(_forge)
def add(a, b):
    _forge()
    return a - b
"""

TRICKS = {
    # leave early with success
    "os_exit_at_import": WRONG + "import os\nos._exit(0)\n",
    "sys_exit_at_import": WRONG + "import sys\nsys.exit(0)\n",
    "raise_systemexit": WRONG + "raise SystemExit\n",
    "raise_systemexit_0": WRONG + "raise SystemExit(0)\n",
    "os_exit_in_function": "import os\ndef add(a, b):\n    os._exit(0)\n",
    "sys_exit_in_function": "import sys\ndef add(a, b):\n    sys.exit(0)\n",
    "keyboard_interrupt_in_function": "def add(a, b):\n    raise KeyboardInterrupt\n",
    "stopiteration_in_function": "def add(a, b):\n    raise StopIteration\n",
    # turn the failure that follows into exit code 0
    "atexit_os_exit": WRONG + "import atexit, os\natexit.register(lambda: os._exit(0))\n",
    "excepthook_sys_exit": WRONG + "import sys\nsys.excepthook = lambda *a: sys.exit(0)\n",
    "excepthook_os_exit": WRONG + "import os, sys\nsys.excepthook = lambda *a: os._exit(0)\n",
    "threading_shutdown": WRONG + "import os, threading\nthreading._shutdown = lambda: os._exit(0)\n",
    "thread_os_exit_in_function": (
        "import os, threading\ndef add(a, b):\n"
        "    t = threading.Thread(target=os._exit, args=(0,))\n    t.start()\n    t.join()\n"
    ),
    "signal_handler_exit": (
        "import os, signal\nsignal.signal(signal.SIGUSR1, lambda *a: os._exit(0))\n"
        "def add(a, b):\n    os.kill(os.getpid(), signal.SIGUSR1)\n    return a - b\n"
    ),
    "sigkill_self": "import os, signal\ndef add(a, b):\n    os.kill(os.getpid(), signal.SIGKILL)\n",
    "kill_parent": (
        "import os, signal\ndef add(a, b):\n"
        "    for pid in {os.getppid(), 1}:\n"
        "        try:\n            os.kill(pid, signal.SIGKILL)\n        except OSError:\n            pass\n"
        "    return a - b\n"
    ),
    "close_stdout_stderr": WRONG + "import os\nos.close(1)\nos.close(2)\n",
    "redirect_stdout": WRONG + "import io, sys\nsys.stdout = io.StringIO()\nsys.stderr = io.StringIO()\n",
    # patch builtins and the check machinery
    "patch_builtins": (
        WRONG + "import builtins\nbuiltins.abs = lambda x: 0\nbuiltins.isinstance = lambda *a: True\n"
        "builtins.print = lambda *a, **k: None\n"
    ),
    "shadow_builtins": WRONG + "def abs(x):\n    return 0\ndef isinstance(*a):\n    return True\n",
    "patch_dunder_builtins": WRONG + "__builtins__.__dict__['abs'] = lambda x: 0\n",
    "patch_assertion_error": (
        WRONG + "import builtins\nbuiltins.AssertionError = type('AssertionError', (Exception,), {})\n"
    ),
    "redefine_check_and_candidate": WRONG + "def check(candidate):\n    pass\ncandidate = check\n",
    "settrace_skips_failures": (
        WRONG + "import sys\n"
        "def _tracer(frame, event, arg):\n"
        "    if event == 'exception' and arg[0] is AssertionError:\n"
        "        import os; os._exit(0)\n"
        "    return _tracer\n"
        "sys.settrace(_tracer)\n"
    ),
    # values whose comparisons lie
    "always_equal_int": (
        "class E(int):\n"
        "    def __eq__(self, o): return True\n"
        "    def __ne__(self, o): return True\n"
        "    def __bool__(self): return False\n"
        "    def __sub__(self, o): return self\n"
        "    def __abs__(self): return 0\n"
        "    def __lt__(self, o): return True\n"
        "    __hash__ = int.__hash__\n"
        "def add(a, b):\n    return E(7)\n"
    ),
    "always_equal_object": (
        "class E:\n"
        "    def __eq__(self, o): return True\n"
        "    def __ne__(self, o): return True\n"
        "    def __bool__(self): return False\n"
        "    def __sub__(self, o): return self\n"
        "    def __abs__(self): return 0\n"
        "    def __hash__(self): return 0\n"
        "def add(a, b):\n    return E()\n"
    ),
    "always_equal_str": (
        "class S(str):\n"
        "    def __eq__(self, o): return True\n"
        "    def __ne__(self, o): return True\n"
        "    __hash__ = str.__hash__\n"
        "def add(a, b):\n    return S('wrong')\n"
    ),
    "fake_math_module": (
        WRONG + "class _Lenient:\n    @staticmethod\n    def isclose(*a, **k):\n        return True\n"
        "math = _Lenient()\n"
    ),
    "patch_real_math_module": WRONG + "import math\nmath.isclose = lambda *a, **k: True\n",
    "patch_int_eq_via_json": (
        WRONG + "import json\njson.dumps = lambda *a, **k: '5'\njson.loads = lambda *a, **k: 5\n"
    ),
    # learn the expected outputs, forge result lines
    "read_the_tests": _READ_TESTS,
    "forge_result_lines": _FORGE,
}


def _passed(results) -> int:
    return sum(r.status is TestStatus.PASSED for r in results)


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_the_correct_program_passes_every_test(sandbox, kind):
    results = run_tests(RIGHT, SPECS[kind], sandbox=sandbox)
    assert results and all(r.passed for r in results), results


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_the_wrong_program_fails_every_test(sandbox, kind):
    results = run_tests(WRONG, SPECS[kind], sandbox=sandbox)
    assert _passed(results) == 0, results


@pytest.mark.parametrize("trick", sorted(TRICKS))
@pytest.mark.parametrize("kind", sorted(SPECS))
def test_a_trick_never_passes_a_test(sandbox, kind, trick):
    results = run_tests(TRICKS[trick], SPECS[kind], sandbox=sandbox, limits=Limits(wall_s=5))
    assert results, "no test ran"
    assert _passed(results) == 0, [(r.status.value, r.detail) for r in results]
    # a trick is the program's doing: never an infrastructure error (which would be retried, not failed)
    assert all(r.status is not TestStatus.SANDBOX_ERROR for r in results), results


STDIO = {"inputs": ["2", "3"], "outputs": ["4", "6"]}
STDIO_TRICKS = {
    "os_exit_after_wrong_output": "import os\nprint(int(input()) * 3, flush=True)\nos._exit(0)\n",
    "print_passed": "print('PASSED')\n",
    "excepthook_after_crash": "import sys\nsys.excepthook = lambda *a: sys.exit(0)\nraise ValueError\n",
    "read_the_tests": "import os\nprint(os.listdir('.'), open('/proc/1/cmdline').read())\n",
}


@pytest.mark.parametrize("trick", sorted(STDIO_TRICKS))
def test_a_stdio_trick_never_passes(sandbox, trick):
    assert run_tests("print(int(input()) * 2)", STDIO, sandbox=sandbox)[0].passed
    results = run_tests(STDIO_TRICKS[trick], STDIO, sandbox=sandbox)
    assert _passed(results) == 0, results


def test_the_program_cannot_open_the_checkers_process_files(isolated_sandbox):
    """The trusted checker is not dumpable: the program, a child running as the same uid, can read
    neither its memory, nor its environment, nor its file descriptors (stdout included)."""
    code = (
        "import os\n"
        "def probe():\n"
        "    opened = []\n"
        "    for pid in sorted({os.getppid(), 1} - {0, os.getpid()}):\n"
        "        for what, mode in (('mem', 'rb'), ('environ', 'rb'), ('fd/0', 'rb'), ('fd/1', 'wb')):\n"
        "            try:\n"
        "                with open(f'/proc/{pid}/{what}', mode):\n"
        "                    opened.append(what)\n"
        "            except OSError:\n"
        "                pass\n"
        "    return opened\n"
    )
    results = run_tests(
        code, {"fn_name": "probe", "inputs": [[]], "outputs": ["[]"]}, sandbox=isolated_sandbox
    )
    assert [r.status for r in results] == [TestStatus.PASSED], results


@pytest.mark.parametrize(
    "trick", ["kill_parent", "read_the_tests", "forge_result_lines", "os_exit_at_import"]
)
def test_process_tricks_fail_on_every_isolating_backend(isolated_sandbox, trick):
    """Under bwrap the checker is not PID 1 (bwrap's init is) and another process holds the stdout."""
    for kind in ("humaneval_eq", "mbpp"):
        results = run_tests(TRICKS[trick], SPECS[kind], sandbox=isolated_sandbox, limits=Limits(wall_s=5))
        assert results and _passed(results) == 0, (kind, results)
    assert run_tests(RIGHT, HUMANEVAL_EQ, sandbox=isolated_sandbox)[0].passed

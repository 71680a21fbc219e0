"""Test harnesses: turn a program and a test specification into one sandbox run per test case, and judge
each run with a typed :class:`TestStatus`.

Accepted specifications (a dict, or its JSON text; see :func:`parse_tests`):

* **stdin/stdout** (APPS, CodeContests, Codeforces, TACO): ``{"inputs": [...], "outputs": [...]}``. Each
  input is fed on stdin (a list of lines is joined with ``"\\n"``); the program passes when it exits 0 and
  its stdout equals the expected output up to trailing whitespace on each line and trailing blank lines.
  With ``float_tol`` the comparison is token-wise per line: an expected integer token is exact (only
  the same number matches it: ``1000000.0`` does, ``1000009.0`` does not), other decimal numbers are
  equal when ``math.isclose(a, b, rel_tol=float_tol, abs_tol=float_tol)``. An expected output of ``None``
  only asks for exit code 0.
* **call-based** (``"fn_name"`` next to ``inputs``/``outputs``; python only): each input is the function's
  arguments, either as APPS stores them (a string of JSON lines, one argument per line) or as a JSON list.
  The checker (below) calls ``fn_name`` (a module-level function, else ``Solution().fn_name``, LeetCode
  style) and reports the JSON of the result; the host compares decoded values: equal, or equal to the only
  element of a one-element expected list (APPS wraps results that way). Tuples and lists are the same
  (JSON has only lists); with ``float_tol`` an expected float compares with tolerance, an expected
  integer exactly (as verl compares call-based results). A function that raises fails
  with ``runtime_error`` even when the expected output is empty or ``None`` (verl's SandboxFusion driver
  exits 0 there, verl #7853).
* **HumanEval**: ``{"test": "def check(candidate): ...", "entry_point": "f", "prompt"?: "..."}``: one
  test; the program is ``prompt + code`` (a body completion or a full ``def``); the checker runs the
  prompt and the test itself and calls ``check`` with the program's ``entry_point``.
* **MBPP**: ``{"test_list": ["assert ...", ...], "test_setup_code"?: "..."}``: one test per assert; the
  program is ``code + test_setup_code``; the checker runs the setup and the assert.

**Passing means the checks ran to completion and held.** A python test (call-based, HumanEval, MBPP) runs
the trusted driver (:mod:`._harness_driver`) instead of the program: a *checker* process that never
executes the program's code, and the program in a fork of it made before anything secret existed. The
test code runs in the checker; every name it takes from the program (the entry point, MBPP's function
and classes) is a proxy, and only plain data of exact built-in types (``None``, ``bool``, ``int``,
``float``, ``complex``, ``str``, ``bytes``, ``list``, ``tuple``, ``dict``, ``set``, ``frozenset``) crosses
back, rebuilt by the checker; anything else stays in the program as a handle that can be called,
iterated, indexed and measured, compares by identity and has no truth value. Builtins and standard
modules the test names are the checker's own. The verdict is one line the checker writes after the
checks, tagged with a random nonce the program never sees; the host believes only that line (never an
exit code, never other output). So exiting early (``os._exit(0)``, ``SystemExit``, ``atexit``,
``sys.excepthook``, signal handlers, threads), patching builtins or the test machinery, values whose
``__eq__``/``__bool__`` lie, reading the tests (they are never in a file or a descriptor the program
can reach) and printing fake markers all fail (``tests/sandbox/test_harness_attacks.py``).

Residual risk (also in ``docs/sandbox.md``, "Harness threat model"): a test that asks the program to
judge itself still trusts it (a name the test uses that neither the test nor the prompt defines comes
from the program; MBPP's function under test named like a builtin, task 126's ``sum``, is the program's
when every assert calls only builtins); without a prompt the prompt's helpers come from the program;
the checker shares the sandbox's uid with the program and relies on being non-dumpable and on the nonce
(``isolation="none"`` as root gives the program ``CAP_SYS_PTRACE``: no protection there). Deliberate
differences from an in-process harness: a program object compared with ``==`` or used as a condition
fails, a test cannot pass functions (other than builtins) to the program, and arguments are copies.

Statuses: ``passed``; ``wrong_answer`` (exit 0, wrong output, or a call-based result that is not JSON
serialisable); ``runtime_error`` (non-zero exit, a signal, a failed assert, a broken protocol, checks
that did not complete, or output past the sandbox's output cap); ``timeout``; ``memory_exceeded``;
``compile_error``; ``sandbox_error`` (the sandbox itself failed: infrastructure, not the program's
fault; callers must not count it as a failed test).

:func:`run_tests` runs one sandbox program per test (simple, and cases cannot see each other), in order;
``stop_on_failure`` stops at the first non-passing test (binary scoring needs no more). A sandbox error
always stops the run. After a compile error of a stdin/stdout program (the same program for every test)
the remaining tests are marked ``compile_error`` without running.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import decimal
import functools
import json
import marshal
import math
import re
import secrets
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, cast

from ._sandbox import Sandbox, _encoded, default_sandbox
from ._types import Limits, RunResult, RunStatus

__all__ = [
    "TestCase",
    "TestResult",
    "TestSpecError",
    "TestStatus",
    "TestSuite",
    "compare_stdout",
    "compare_values",
    "parse_tests",
    "run_tests",
]

# ASCII only: int() and float() accept every Unicode decimal digit (full-width, Arabic-Indic ...)
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_BLANKS = re.compile(r"[ \t\r\f\v]+")  # token separators: ASCII blanks, not every Unicode space
_DETAIL_CHARS = 300
_DEFAULT_LIMITS = Limits()


class TestSpecError(ValueError):
    """A test specification is malformed; the message says what was wrong and what is allowed."""

    __test__ = False


class TestStatus(str, Enum):
    """The verdict of one test case."""

    __test__ = False  # not a pytest test class

    PASSED = "passed"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    COMPILE_ERROR = "compile_error"
    MEMORY_EXCEEDED = "memory_exceeded"
    SANDBOX_ERROR = "sandbox_error"

    def __str__(self) -> str:
        return cast("str", self.value)


@dataclass(frozen=True)
class TestResult:
    """One test's verdict; ``detail`` is a short explanation (stderr tail, expected vs got) or ``None``."""

    __test__ = False

    index: int
    status: TestStatus
    detail: str | None = None
    wall_s: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status is TestStatus.PASSED


@dataclass(frozen=True)
class TestCase:
    """One case: ``stdin`` to feed and the ``expected`` output (``None``: only exit 0 is checked)."""

    __test__ = False

    stdin: str = ""
    expected: Any = None
    snippet: str = ""  # the assert (MBPP) or the test defining check (HumanEval), run by the checker


@dataclass(frozen=True)
class TestSuite:
    """A parsed specification. ``kind`` is ``"stdio"``, ``"call"``, ``"humaneval"`` or ``"mbpp"``."""

    __test__ = False

    kind: str
    cases: tuple[TestCase, ...]
    fn_name: str | None = None  # call-based: the function; HumanEval: the entry point
    prefix: str = ""  # HumanEval prompt, placed before the code
    setup: str = ""  # MBPP test_setup_code, placed after the code

    def __len__(self) -> int:
        return len(self.cases)


# ------------------------------------------------------------------------------------------ parsing


def parse_tests(spec: Any) -> TestSuite:
    """Parse a test specification (a dict or its JSON text) into a :class:`TestSuite`.

    Raises :class:`TestSpecError` naming the problem: bad JSON, not an object, unknown layout,
    ``inputs``/``outputs`` not lists of the same length, no test case at all, wrong field types.
    """
    if isinstance(spec, str | bytes):
        try:
            spec = json.loads(spec)
        except ValueError as exc:
            raise TestSpecError(f"test cases are not valid JSON: {exc}") from None
    if not isinstance(spec, Mapping):
        raise TestSpecError(f"test cases must be a JSON object, got {type(spec).__name__}")
    if "inputs" in spec or "outputs" in spec:
        suite = _parse_io(spec)
    elif "test_list" in spec:
        suite = _parse_mbpp(spec)
    elif "test" in spec and "entry_point" in spec:
        suite = _parse_humaneval(spec)
    else:
        raise TestSpecError(
            f"unknown test layout (keys: {sorted(map(str, spec))[:10]}); expected "
            '{"inputs", "outputs"[, "fn_name"]}, {"test_list"[, "test_setup_code"]} or {"test", "entry_point"}'
        )
    if not suite.cases:
        raise TestSpecError("the test specification has no test case")
    return suite


def _text(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    raise TestSpecError(f"{what} must be a string or a list of strings, got {type(value).__name__}")


def _parse_io(spec: Mapping[str, Any]) -> TestSuite:
    inputs, outputs = spec.get("inputs"), spec.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise TestSpecError('"inputs" and "outputs" must both be lists')
    if len(inputs) != len(outputs):
        raise TestSpecError(f'"inputs" has {len(inputs)} cases but "outputs" has {len(outputs)}')
    fn_name = spec.get("fn_name")
    if fn_name in (None, ""):
        cases = []
        for i, (inp, out) in enumerate(zip(inputs, outputs, strict=True)):
            expected = None if out is None else _text(out, f"outputs[{i}]")
            cases.append(TestCase(stdin=_text(inp, f"inputs[{i}]"), expected=expected))
        return TestSuite("stdio", tuple(cases))
    if not isinstance(fn_name, str) or not fn_name.isidentifier():
        raise TestSpecError(f'"fn_name" must be a Python identifier, got {fn_name!r}')
    cases = []
    for i, (inp, out) in enumerate(zip(inputs, outputs, strict=True)):
        cases.append(TestCase(stdin=json.dumps(_call_args(inp, i)), expected=_call_expected(out)))
    return TestSuite("call", tuple(cases), fn_name=fn_name)


def _call_args(inp: Any, i: int) -> list[Any]:
    if isinstance(inp, list):
        return inp
    if isinstance(inp, str):
        try:
            return [json.loads(line) for line in inp.split("\n") if line.strip()]
        except ValueError as exc:
            raise TestSpecError(f"inputs[{i}] is not JSON lines of arguments: {exc}") from None
    raise TestSpecError(f"inputs[{i}] of a call-based test must be JSON lines or a list of arguments")


def _call_expected(out: Any) -> Any:
    if isinstance(out, str):
        try:
            return json.loads(out)
        except ValueError:
            return out  # a bare string result stored unquoted
    return out


def _parse_mbpp(spec: Mapping[str, Any]) -> TestSuite:
    tests = spec.get("test_list")
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        raise TestSpecError('"test_list" must be a list of assert statements (strings)')
    setup = spec.get("test_setup_code") or ""
    if not isinstance(setup, str):
        raise TestSpecError('"test_setup_code" must be a string')
    return TestSuite("mbpp", tuple(TestCase(snippet=t) for t in tests), setup=setup)


def _parse_humaneval(spec: Mapping[str, Any]) -> TestSuite:
    test, entry, prompt = spec.get("test"), spec.get("entry_point"), spec.get("prompt") or ""
    if not isinstance(test, str) or not isinstance(prompt, str):
        raise TestSpecError('"test" and "prompt" must be strings')
    if not isinstance(entry, str) or not entry.isidentifier():
        raise TestSpecError(f'"entry_point" must be a Python identifier, got {entry!r}')
    return TestSuite("humaneval", (TestCase(snippet=test),), fn_name=entry, prefix=prompt)


# ------------------------------------------------------------------------------------------ comparison


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _numbers_close(a: str, b: str, tol: float) -> bool:
    """``a`` (the program's token) against ``b`` (the expected one). An expected integer is exact: only
    the same number matches it (``1000000.0`` does, ``1000009.0`` does not); other numbers compare
    under ``tol``."""
    if a == b:
        return True
    if not (_NUMBER.fullmatch(a) and _NUMBER.fullmatch(b)):
        return False
    if _INTEGER.fullmatch(b):
        try:
            return decimal.Decimal(a) == int(b)  # exact, whatever the spelling of a
        except (ValueError, ArithmeticError):  # past Python's digit limit for int()
            return False
    x, y = float(a), float(b)
    return math.isfinite(x) and math.isfinite(y) and math.isclose(x, y, rel_tol=tol, abs_tol=tol)


def _tokens(line: str) -> list[str]:
    return [t for t in _BLANKS.split(line) if t]


def compare_stdout(got: str, expected: str, float_tol: float | None = None) -> bool:
    """Whether ``got`` matches ``expected`` up to trailing whitespace per line and trailing blank lines;
    with ``float_tol``, token-wise per line with numeric tokens compared under that tolerance."""
    a, b = _lines(got), _lines(expected)
    if a == b:
        return True
    if float_tol is None or len(a) != len(b):
        return False
    for la, lb in zip(a, b, strict=True):
        ta, tb = _tokens(la), _tokens(lb)
        if len(ta) != len(tb) or not all(
            _numbers_close(x, y, float_tol) for x, y in zip(ta, tb, strict=True)
        ):
            return False
    return True


def _values_equal(a: Any, b: Any, tol: float | None) -> bool:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_values_equal(x, y, tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_values_equal(a[k], b[k], tol) for k in a)
    if tol is not None and isinstance(a, int | float) and isinstance(b, float):
        # an expected integer is exact (verl compares call-based results exactly); floats get ``tol``
        return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
    return bool(a == b)


def compare_values(got: Any, expected: Any, float_tol: float | None = None) -> bool:
    """Call-based comparison of decoded values: equal (tuples = lists), or equal to the only element of a
    one-element expected list (APPS stores results wrapped that way)."""
    if _values_equal(got, expected, float_tol):
        return True
    return isinstance(expected, list) and len(expected) == 1 and _values_equal(got, expected[0], float_tol)


# ------------------------------------------------------------------------------------------ programs


@functools.cache
def _driver_source() -> str:
    return (Path(__file__).parent / "_harness_driver.py").read_text(encoding="utf-8")


@functools.cache
def _driver_bootstrap() -> str:
    """The driver precompiled: compiling its source took most of the harness's cost per run. Only for
    the local :class:`Sandbox`, whose python is this interpreter (a marshalled code object is not
    portable across versions); the guard makes any mismatch an explicit failure."""
    code = marshal.dumps(compile(_driver_source(), "rewardloop-harness-driver", "exec"))
    return (
        "import marshal, sys\n"
        f"if sys.hexversion != {sys.hexversion}:\n"
        "    sys.exit('the harness driver was compiled for another Python version')\n"
        f"exec(marshal.loads(bytes.fromhex('{code.hex()}')))\n"
    )


def _driver(sandbox: Any) -> str:
    return _driver_bootstrap() if isinstance(sandbox, Sandbox) else _driver_source()


def _free_names(*sources: str) -> list[str]:
    """Names the sources read but never bind: what the checker may have to take from the program."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue  # the checker reports it
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(node.name)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, ast.alias):
                bound.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
    return sorted(loaded - bound)


def _called(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _shadowed_builtins(suite: TestSuite) -> list[str]:
    """An MBPP function under test named like a builtin (task 126 tests ``sum(10, 15)``): the builtin
    names every assert calls, when every assert calls no other name. Only these are the program's."""
    calls = [_called(case.snippet) for case in suite.cases]
    common = set.intersection(*calls) if calls else set()
    if not common or any(not hasattr(builtins, name) for name in common):
        return []
    return sorted(common)


def _request(suite: TestSuite, code: str, case: TestCase, nonce: str) -> str | None:
    """The driver's stdin for a python-only suite (``None`` for stdin/stdout suites)."""
    if suite.kind == "stdio":
        return None
    if suite.kind == "call":
        body = {"code": code, "fn_name": suite.fn_name, "args": json.loads(case.stdin)}
    elif suite.kind == "humaneval":
        prefix = suite.prefix if not suite.prefix or suite.prefix.endswith("\n") else suite.prefix + "\n"
        body = {
            "code": prefix + code,
            "prompt": suite.prefix,
            "test": case.snippet,
            "entry": suite.fn_name,
            "free": _free_names(case.snippet),
        }
    else:
        body = {
            "code": f"{code}\n\n{suite.setup}\n",
            "setup": suite.setup,
            "test": case.snippet,
            "free": _free_names(suite.setup, case.snippet),
            "shadow": _shadowed_builtins(suite),
        }
    return json.dumps({"nonce": nonce, "kind": suite.kind, **body})


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _DETAIL_CHARS else "..." + text[-_DETAIL_CHARS:]


def _clip(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=repr)
    return text if len(text) <= _DETAIL_CHARS // 2 else text[: _DETAIL_CHARS // 2] + "..."


def _verdict(stdout: str, nonce: str) -> dict[str, Any] | None:
    """The checker's one line ``<nonce> <JSON object>``; anything else on stdout is no verdict."""
    head = nonce + " "
    if not stdout.startswith(head) or not stdout.endswith("\n") or stdout.count("\n") != 1:
        return None
    try:
        verdict = json.loads(stdout[len(head) :])
    except ValueError:
        return None
    return verdict if type(verdict) is dict and type(verdict.get("v")) is str else None


def _judge(
    suite: TestSuite, case: TestCase, run: RunResult, nonce: str, float_tol: float | None
) -> tuple[Any, ...]:
    status = run.status
    if status is RunStatus.SANDBOX_ERROR:
        return TestStatus.SANDBOX_ERROR, run.error or "sandbox error"
    if status is RunStatus.COMPILE_ERROR:
        return TestStatus.COMPILE_ERROR, _tail(run.error or run.stderr)
    if status is RunStatus.TIMEOUT:
        return TestStatus.TIMEOUT, None
    if status is RunStatus.MEMORY_EXCEEDED:
        return TestStatus.MEMORY_EXCEEDED, None
    if status is RunStatus.OUTPUT_EXCEEDED:
        return TestStatus.RUNTIME_ERROR, "output limit exceeded"
    if suite.kind != "stdio":
        return _judge_driver(case, run, nonce, float_tol)
    if not run.ok:
        return TestStatus.RUNTIME_ERROR, f"{_how(run)}: {_tail(run.stderr)}"
    if case.expected is None or compare_stdout(run.stdout, case.expected, float_tol):
        return TestStatus.PASSED, None
    return TestStatus.WRONG_ANSWER, f"expected {_clip(case.expected)!r}, got {_clip(run.stdout)!r}"


def _how(run: RunResult) -> str:
    return f"exit code {run.exit_code}" if run.signal is None else f"signal {run.signal}"


def _judge_driver(case: TestCase, run: RunResult, nonce: str, float_tol: float | None) -> tuple[Any, ...]:
    """Only the checker's verdict line counts; an exit code, or any other output, never passes."""
    verdict = _verdict(run.stdout, nonce)
    kind = verdict["v"] if verdict is not None else None
    detail = verdict.get("detail") if verdict is not None else None
    detail = detail if isinstance(detail, str) else ""
    if kind == "harness_error":
        return TestStatus.SANDBOX_ERROR, f"the harness could not start: {detail}"
    if kind == "failed":
        return TestStatus.RUNTIME_ERROR, _tail(detail)
    if kind == "unserialisable":
        return TestStatus.WRONG_ANSWER, _tail(detail)
    if run.exit_code == 0 and kind == "passed":
        return TestStatus.PASSED, None
    if run.exit_code == 0 and kind == "result" and verdict is not None and "value" in verdict:
        got = verdict["value"]
        if compare_values(got, case.expected, float_tol):
            return TestStatus.PASSED, None
        return TestStatus.WRONG_ANSWER, f"expected {_clip(case.expected)}, got {_clip(got)}"
    return (
        TestStatus.RUNTIME_ERROR,
        f"the checks did not run to completion ({_how(run)}): {_tail(run.stderr)}",
    )


def _check_text(code: str, suite: TestSuite, cases: Sequence[TestCase]) -> None:
    """Everything that travels to the sandbox as text must be UTF-8 (the driver's JSON would carry a lone
    surrogate, and the program would fail on it instead of the sample being refused)."""
    _encoded("code", code)
    _encoded("tests: prompt", suite.prefix)
    _encoded("tests: test_setup_code", suite.setup)
    field = {"stdio": "inputs", "call": "inputs", "mbpp": "test_list", "humaneval": "test"}[suite.kind]
    for i, case in enumerate(cases):
        name = field if suite.kind == "humaneval" else f"{field}[{i}]"
        text = case.snippet if suite.kind in ("humaneval", "mbpp") else case.stdin
        if suite.kind == "call":  # the arguments travel as escaped JSON: look at the strings themselves
            text = json.dumps(json.loads(text), ensure_ascii=False)
        _encoded(f"tests: {name}", text)
        if isinstance(case.expected, str):
            _encoded(f"tests: outputs[{i}]", case.expected)


def run_tests(
    code: str,
    tests: TestSuite | Any,
    *,
    language: str = "python",
    limits: Limits = _DEFAULT_LIMITS,
    sandbox: Sandbox | Any = None,
    stop_on_failure: bool = False,
    max_tests: int | None = None,
    float_tol: float | None = None,
    time_budget_s: float | None = None,
) -> list[TestResult]:
    """Run ``code`` against ``tests`` (a :class:`TestSuite` or anything :func:`parse_tests` accepts).

    One sandbox run per case, in order, on the first ``max_tests`` cases (``None``: all). The list has one
    result per case run: it is shorter than the suite when ``stop_on_failure`` stopped at a failure or a
    ``sandbox_error`` stopped the run. Call-based, HumanEval and MBPP suites need ``language="python"``
    (:class:`TestSpecError` otherwise). Never raises for anything the program does; text UTF-8 cannot
    encode (a lone surrogate) in the code or the tests raises :class:`~rewardloop.errors.InvalidSampleError`
    naming it (``code``, ``tests: inputs[3]`` ...) before anything runs, as :meth:`Sandbox.run` does. ``sandbox``: the
    backend, :func:`default_sandbox` when ``None``; any object with :meth:`Sandbox.run`'s signature works,
    e.g. :class:`rewardloop.sandbox.fusion.SandboxFusionClient` (whose outages raise ``InfraError``).
    ``time_budget_s``: the wall time all of the sample's runs may take together (``None``: no budget).
    Each test's limit is the smaller of ``limits.wall_s`` and what is left; once the budget is spent the
    remaining tests are ``timeout`` without running, so an endless loop costs the budget, not one
    timeout per test.
    """
    if time_budget_s is not None and not (isinstance(time_budget_s, int | float) and time_budget_s > 0):
        raise TestSpecError(f"time_budget_s must be a number > 0 or None, got {time_budget_s!r}")
    suite = tests if isinstance(tests, TestSuite) else parse_tests(tests)
    if suite.kind != "stdio" and language != "python":
        raise TestSpecError(f"{suite.kind} tests run python code only, not {language!r}")
    cases: Sequence[TestCase] = suite.cases if max_tests is None else suite.cases[:max_tests]
    _check_text(code, suite, cases)
    sb = sandbox if sandbox is not None else default_sandbox()
    results: list[TestResult] = []
    left = math.inf if time_budget_s is None else float(time_budget_s)
    for index, case in enumerate(cases):
        if left <= 0:
            detail = f"the sample's time budget ({time_budget_s:g} s) was spent by earlier tests"
            results.extend(TestResult(i, TestStatus.TIMEOUT, detail) for i in range(index, len(cases)))
            break
        run_limits = limits if left >= limits.wall_s else dataclasses.replace(limits, wall_s=left)
        nonce = secrets.token_hex(16)
        request = _request(suite, code, case, nonce)
        if request is None:
            run = sb.run(code, language, stdin=case.stdin, limits=run_limits)
        else:
            run = sb.run(_driver(sb), "python", stdin=request, limits=run_limits)
        left -= run.wall_s
        status, detail = _judge(suite, case, run, nonce, float_tol)
        results.append(TestResult(index, status, detail, round(run.wall_s, 4)))
        if status is TestStatus.SANDBOX_ERROR:
            break
        if status is TestStatus.COMPILE_ERROR and suite.kind == "stdio":
            results.extend(TestResult(i, status, detail) for i in range(index + 1, len(cases)))
            break
        if stop_on_failure and status is not TestStatus.PASSED:
            break
    return results

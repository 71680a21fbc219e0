"""Code scorer: extract the program from a markdown response, run it against its tests in the local
sandbox (:mod:`rewardloop.sandbox`), and reward the fraction of tests passed (or all-or-nothing).

Code extraction (:func:`extract_code`), in order:

1. the last fenced block (a line starting with three backticks) whose language tag names ``language``
   (aliases: ``py``/``python3`` for python, ``c++``/``cc``/``cxx`` for cpp, ``js``/``node`` for javascript,
   ``rs`` for rust, ``sh``/``shell`` for bash);
2. else the last fenced block of any (or no) language;
3. else the raw response: a response without any fence is taken as code.

An unterminated last fence (a truncated response) runs to the end of the text.

Ground truth: a dict, or its JSON text, in any layout :func:`rewardloop.sandbox.harness.parse_tests`
accepts (stdin/stdout ``inputs``/``outputs``, call-based with ``fn_name``, HumanEval ``test`` +
``entry_point``, MBPP ``test_list``). A malformed one is a ``parse_error``. Text UTF-8 cannot encode (a lone
surrogate) in the extracted code or in the tests is ``invalid_input`` naming ``response`` or
``ground_truth``, and nothing runs.

Scores: ``continuous=True`` (what verl's ``default_compute_score`` uses for ``codecontests``, ``apps``,
``codeforces``, ``taco``, routed here with ``float_tol=1e-5`` like verl's ``np.allclose`` output check)
gives the fraction of tests passed; ``continuous=False`` gives 1.0 when every
test passes, else 0.0 (stopping at the first failure). ``max_tests`` keeps the first N tests; the default
``None`` runs them all (verl's ``prime_code`` scores only the first 10 in continuous mode, but a full
pass over all tests still gives 1.0 there; pass ``max_tests=10`` for its scale). Like verl, a float is
returned through ``default_compute_score`` (``returns_dict = False``); ``info`` carries the per-test
statuses, the extraction rule and the extracted code (clipped).

A sandbox failure (``sandbox_error``) is an infrastructure failure: :class:`~rewardloop.errors.InfraError`
is raised so that the Runner retries the sample or reports ``infra_error``; it is never a failed test.

Deliberate differences from verl's ``prime_code`` / ``sandbox_fusion`` paths: the program runs in a real
sandbox (memory limit, no network, killed process tree) instead of ``exec`` in a forked child; a timeout
fails only its own test (verl loses every result of the sample); a function that raises fails its test
even when the expected output is empty; sandbox outages are not counted as failed tests; extraction
accepts any language tag and unfenced code (``sandbox_fusion`` scores unfenced code 0.0).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import ConfigError, InfraError, InvalidSampleError
from ..sandbox import Limits
from ..sandbox.harness import TestSpecError, TestStatus, parse_tests, run_tests
from ..types import Sample, Score, Status
from ._base import Scorer

__all__ = ["CodeScorer", "extract_code", "language_aliases"]

_ALIASES: dict[str, tuple[str, ...]] = {
    "python": ("python", "py", "python3", "py3"),
    "cpp": ("cpp", "c++", "cc", "cxx"),
    "c": ("c",),
    "java": ("java",),
    "javascript": ("javascript", "js", "node", "nodejs"),
    "rust": ("rust", "rs"),
    "bash": ("bash", "sh", "shell"),
}
_CODE_INFO_CHARS = 2000


def language_aliases(language: str) -> tuple[str, ...]:
    """The fence tags that name ``language`` (lower case)."""
    return _ALIASES.get(language, (language.lower(),))


def _blocks(text: str) -> list[tuple[str, str]]:
    """Fenced blocks as ``(tag, body)``, in order; linear in the length of ``text``."""
    blocks: list[tuple[str, str]] = []
    tag: str | None = None
    body: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if tag is None:
            if stripped.startswith("```"):
                words = stripped[3:].strip().split(None, 1)
                tag = words[0].lower() if words else ""
                body = []
        elif stripped.startswith("```"):
            blocks.append((tag, "\n".join(body)))
            tag = None
        else:
            body.append(line)
    if tag is not None:  # unterminated last block
        blocks.append((tag, "\n".join(body)))
    return blocks


def extract_code(text: str, language: str = "python") -> tuple[str, str]:
    """The program in ``text`` and the rule that found it: ``"fenced"`` (last block tagged with the
    language), ``"fenced_any"`` (last block of any language), or ``"raw"`` (no fence: the whole text)."""
    blocks = _blocks(text)
    if not blocks:
        return text, "raw"
    tags = language_aliases(language)
    for tag, body in reversed(blocks):
        if tag in tags:
            return body, "fenced"
    return blocks[-1][1], "fenced_any"


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


class CodeScorer(Scorer):
    """Runs the extracted program against its tests in the local sandbox.

    Options: ``continuous`` (fraction passed, default True; else binary), ``max_tests`` (first N tests,
    default all), ``language`` (default ``"python"``), ``wall_s`` per test (default 10), ``memory_mb``
    (default 1024), ``float_tol`` (numeric tolerance of output comparison, default None = exact),
    ``time_budget_s`` (wall time of all the sample's tests together, default 60 s and at least
    ``wall_s``; ``None``: no budget; tests past it are ``timeout`` without running),
    ``sandbox`` (the backend: ``None`` for the process-wide local sandbox, or any object with
    :meth:`Sandbox.run <rewardloop.sandbox.Sandbox.run>`'s signature that pickles, such as
    :class:`~rewardloop.sandbox.fusion.SandboxFusionClient` for a SandboxFusion server).
    """

    name = "code"
    execution = "thread"  # the sandbox isolates each run; the scorer only waits on it
    returns_dict = False

    def __init__(
        self,
        *,
        continuous: bool = True,
        max_tests: int | None = None,
        language: str = "python",
        wall_s: float = 10.0,
        memory_mb: int | None = 1024,
        float_tol: float | None = None,
        sandbox: Any = None,
        time_budget_s: float | None = 60.0,
    ) -> None:
        if max_tests is not None and (not isinstance(max_tests, int) or max_tests < 1):
            raise ConfigError(f"max_tests must be an int >= 1 or None, got {max_tests!r}")
        self.continuous = bool(continuous)
        self.max_tests = max_tests
        self.language = language
        self.float_tol = float_tol
        if time_budget_s is not None and (
            not isinstance(time_budget_s, int | float)
            or isinstance(time_budget_s, bool)
            or time_budget_s <= 0
        ):
            raise ConfigError(f"time_budget_s must be a number > 0 or None, got {time_budget_s!r}")
        self.time_budget_s = None if time_budget_s is None else max(float(time_budget_s), float(wall_s))
        self.limits = Limits(wall_s=wall_s, memory_mb=memory_mb)
        if sandbox is not None and not callable(getattr(sandbox, "run", None)):
            raise ConfigError(f"sandbox must have a run(code, language, ...) method, got {sandbox!r}")
        self.sandbox = sandbox

    def with_options(self, **changes: Any) -> CodeScorer:
        """A copy with some options changed (``memory_mb=...`` from verl's ``memory_limit_mb``)."""
        options = {
            "continuous": self.continuous,
            "max_tests": self.max_tests,
            "language": self.language,
            "wall_s": self.limits.wall_s,
            "memory_mb": self.limits.memory_mb,
            "float_tol": self.float_tol,
            "sandbox": self.sandbox,
            "time_budget_s": self.time_budget_s,
            **changes,
        }
        return CodeScorer(**options)

    def score(self, sample: Sample) -> Score:
        try:
            suite = parse_tests(sample.ground_truth)
        except TestSpecError as exc:
            return Score.failure(Status.PARSE_ERROR, f"ground truth: {exc}")
        if suite.kind != "stdio" and self.language != "python":
            return Score.failure(
                Status.INVALID_INPUT, f"{suite.kind} tests need language='python', not {self.language!r}"
            )
        response = sample.response if isinstance(sample.response, str) else str(sample.response)
        code, rule = extract_code(response, self.language)
        if not _utf8(code):
            return Score.failure(
                Status.INVALID_INPUT, "response: the code holds a lone surrogate, which UTF-8 cannot encode"
            )
        try:
            results = run_tests(
                code,
                suite,
                language=self.language,
                limits=self.limits,
                sandbox=self.sandbox,
                stop_on_failure=not self.continuous,
                max_tests=self.max_tests,
                float_tol=self.float_tol,
                time_budget_s=self.time_budget_s,
            )
        except InvalidSampleError as exc:  # test text the sandbox cannot carry: refuse the sample
            return Score.failure(Status.INVALID_INPUT, f"ground_truth: {exc}")
        if results and results[-1].status is TestStatus.SANDBOX_ERROR:
            raise InfraError(f"sandbox failed on test {results[-1].index}: {results[-1].detail}")
        total = len(suite) if self.max_tests is None else min(len(suite), self.max_tests)
        passed = sum(r.passed for r in results)
        value = passed / total if self.continuous else float(passed == total)
        failure = next((r for r in results if not r.passed), None)
        info: dict[str, Any] = {
            "tests": [r.status.value for r in results],
            "passed": passed,
            "total": total,
            "format": suite.kind,
            "extraction": rule,
            "code": code if len(code) <= _CODE_INFO_CHARS else code[:_CODE_INFO_CHARS] + "...",
        }
        if failure is not None:
            info["first_failure"] = dataclasses.asdict(failure) | {"status": failure.status.value}
        return Score(value=value, info=info)

"""What the program controls can only fail the program (issue 23, item 5).

The red-team's break: a Java public class with a 300-character name gave ``sandbox_error`` (the source
file could not be created), which callers retry as an outage and count as ``infra_error``. Any name,
size, path or count that comes from the program and reaches the file system or a toolchain must end as
the program's failure (``compile_error`` here), never as ours.
"""

from __future__ import annotations

import shutil
import sys

import pytest

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux"),
    pytest.mark.sandbox,
]

MAIN = "    public static void main(String[] a) { System.out.println(1); }\n"
JAVA = {
    "public_class_300_chars": "public class " + "A" * 300 + " {\n" + MAIN + "}\n",
    "public_class_256_bytes_utf8": "public class " + "\u00e9" * 126 + " {\n" + MAIN + "}\n",
    "nested_class_300_chars": "public class Main {\n    static class " + "B" * 300 + " {}\n" + MAIN + "}\n",
    "package_component_300_chars": "package " + "p" * 300 + ";\npublic class Main {\n" + MAIN + "}\n",
    "many_classes": "public class Main {\n"
    + MAIN
    + "}\n"
    + "".join(f"class C{i} {{}}\n" for i in range(3000)),
}


def _java(backend) -> None:
    if not shutil.which("javac"):
        pytest.skip("no java toolchain here")


@pytest.mark.parametrize("name", sorted(JAVA))
def test_a_java_name_the_file_system_cannot_hold_fails_the_program(backend, name):
    _java(backend)
    result = backend("run", JAVA[name], "java", limits={"compile_wall_s": 120, "wall_s": 20})
    assert result["status"] in ("compile_error", "finished"), result
    assert result["status"] != "sandbox_error"


def test_through_the_harness_it_is_a_compile_error_not_a_sandbox_error(backend):
    # the code scorer raises InfraError (a retried outage) exactly on sandbox_error
    _java(backend)
    spec = {"inputs": ["", ""], "outputs": ["1\n", "1\n"]}
    statuses = backend.run_tests(JAVA["public_class_300_chars"], spec, language="java")
    assert statuses == ["compile_error", "compile_error"]


@pytest.mark.parametrize("wall_s", [1e-9, 1e-6, 1e-3])
def test_a_tiny_time_limit_is_a_timeout_not_a_sandbox_error(backend, wall_s):
    result = backend("run", "while True: pass", limits={"wall_s": wall_s})
    assert result["status"] == "timeout", result


def test_an_endless_loop_spends_the_sample_budget_not_one_timeout_per_test(backend):
    # issue 23, item 6: 20 tests of 2 s each, a budget of 3 s: at most two runs ever start
    spec = {"inputs": [""] * 20, "outputs": ["1\n"] * 20}
    results = backend(
        "rewardloop.sandbox.harness:run_tests",
        "while True:\n    pass\n",
        spec,
        limits={"wall_s": 2.0},
        time_budget_s=3.0,
    )
    assert [r["status"] for r in results] == ["timeout"] * 20
    ran = [r for r in results if r["wall_s"] > 0]
    assert len(ran) <= 2 and sum(r["wall_s"] for r in ran) < 3.0 + 2 * 2.0, ran
    assert "time budget (3 s)" in results[-1]["detail"]


def test_the_budget_leaves_fast_programs_alone(backend):
    spec = {"inputs": [str(i) for i in range(10)], "outputs": [f"{i}\n" for i in range(10)]}
    statuses = backend.run_tests("print(input())", spec, limits={"wall_s": 5.0}, time_budget_s=60.0)
    assert statuses == ["passed"] * 10

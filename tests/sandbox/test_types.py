"""Limits, RunStatus, RunResult, language names and Java class detection: pure logic, no processes."""

from __future__ import annotations

import os
import pickle

import pytest

from rewardloop.errors import ConfigError
from rewardloop.sandbox import Limits, RunResult, RunStatus
from rewardloop.sandbox._languages import java_names, resolve_language
from rewardloop.sandbox._mounts import MountPlan, plan_mounts, unreachable_for_others


def test_limits_defaults():
    lim = Limits()
    assert (lim.wall_s, lim.cpu_s, lim.memory_mb, lim.output_bytes) == (10.0, None, 1024, 1 << 20)
    assert (lim.max_processes, lim.file_size_mb, lim.network) == (64, 16, False)
    assert lim.effective_cpu_s == 10.0
    assert Limits(wall_s=3, cpu_s=1.5).effective_cpu_s == 1.5


@pytest.mark.parametrize(
    "kwargs",
    [
        {"wall_s": 0},
        {"wall_s": -1},
        {"wall_s": float("inf")},
        {"wall_s": "10"},
        {"cpu_s": 0},
        {"memory_mb": 0},
        {"memory_mb": 1.5},
        {"output_bytes": 0},
        {"max_processes": 0},
        {"max_processes": True},
        {"file_size_mb": -1},
        {"network": "yes"},
        {"compile_wall_s": 0},
    ],
)
def test_limits_reject_bad_values(kwargs):
    with pytest.raises(ConfigError) as info:
        Limits(**kwargs)
    assert next(iter(kwargs)) in str(info.value)


def test_limits_allow_no_memory_cap():
    assert Limits(memory_mb=None).memory_mb is None


def test_run_status_values_are_strings():
    assert [s.value for s in RunStatus] == [
        "finished",
        "timeout",
        "memory_exceeded",
        "output_exceeded",
        "compile_error",
        "sandbox_error",
    ]
    assert RunStatus("timeout") is RunStatus.TIMEOUT
    assert str(RunStatus.FINISHED) == "finished"


def test_run_result_is_frozen_and_pickles():
    inner = RunResult(RunStatus.FINISHED, exit_code=0, stdout="x")
    result = RunResult(RunStatus.COMPILE_ERROR, exit_code=1, stderr="boom", compile=inner)
    assert pickle.loads(pickle.dumps(result)) == result
    assert inner.ok and not result.ok
    assert not RunResult(RunStatus.FINISHED, exit_code=2).ok
    with pytest.raises(AttributeError):
        result.status = RunStatus.FINISHED  # type: ignore[misc]


@pytest.mark.parametrize(
    "alias,name",
    [
        ("python", "python"),
        ("Python3", "python"),
        ("py", "python"),
        ("c", "c"),
        ("cpp", "cpp"),
        ("c++", "cpp"),
        ("java", "java"),
        ("js", "javascript"),
        ("nodejs", "javascript"),
        ("rust", "rust"),
        ("rs", "rust"),
        ("bash", "bash"),
        ("sh", "bash"),
    ],
)
def test_language_aliases(alias, name):
    assert resolve_language(alias).name == name


@pytest.mark.parametrize("bad", ["cobol", "", None, 3])
def test_unknown_language_names_the_allowed_ones(bad):
    with pytest.raises(ConfigError) as info:
        resolve_language(bad)
    assert "python" in str(info.value) and "rust" in str(info.value)


JAVA_CASES = [
    ("public class Main { public static void main(String[] a) {} }", ("Main", "Main")),
    ("public class Solution { public static void main(String[] a) {} }", ("Solution", "Solution")),
    ("class Foo { public static void main(String[] a) {} }", ("Main", "Foo")),
    (
        "import java.util.*;\nclass Node { int v; }\npublic final class Prog {\n"
        "  static class Inner { }\n  public static void main(String[] args) { }\n}\n",
        ("Prog", "Prog"),
    ),
    (
        "// public class Decoy {}\n/* public class Other { } */\n"
        "public class Real { String s = \"public class Str {\"; char c = '{';\n"
        "  public static void main(String[] a) {} }",
        ("Real", "Real"),
    ),
    ("package a.b;\npublic class App { public static void main(String[] x) {} }", ("App", "a.b.App")),
    (
        'public class T { static String s = """\n  public class X { }\n  """;\n'
        "  public static void main(String[] a) {} }",
        ("T", "T"),
    ),
    ("class A {}\nclass B { static void main(String[] a) {} }", ("Main", "B")),
    ("", ("Main", "Main")),
    ("public class", ("Main", "Main")),
    ('"unterminated string \n public class U { }', ("U", "U")),
]


@pytest.mark.parametrize("code,expected", JAVA_CASES)
def test_java_names(code, expected):
    assert java_names(code) == expected


ADVERSARIAL_JAVA = [
    ("/*" * 100_000, ("Main", "Main")),
    ('"' * 200_000, ("Main", "Main")),
    ("public " * 50_000, ("Main", "Main")),
    ("public class " * 20_000, ("public", "public")),  # a keyword as the name: javac refuses it
    ("\n" * 200_000 + "package x;", ("Main", "x.Main")),
    ("{" * 200_000 + "class X", ("Main", "Main")),
    ("static void main(" * 20_000, ("Main", "Main")),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("code,expected", ADVERSARIAL_JAVA, ids=range(len(ADVERSARIAL_JAVA)))
def test_java_names_is_linear_on_adversarial_input(code, expected):
    # the right names, within pytest's 60 s here (each takes ~0.05 s; a quadratic scan takes minutes)
    assert java_names(code) == expected


def test_mount_plan_keeps_toolchains_visible(tmp_path):
    tool = tmp_path / "toolchain" / "bin"
    tool.mkdir(parents=True)
    secret = tmp_path / "secret"
    secret.mkdir()
    plan = plan_mounts([str(secret)], [str(tool.parent)])
    assert "/tmp" in plan.hidden and "/root" in plan.hidden
    assert str(secret) not in plan.hidden  # already covered by /tmp
    assert (str(tool.parent), str(tool.parent)) in plan.exposed
    assert all(p not in plan.hidden for p in ("/", "/usr", "/etc", "/bin"))


def test_mount_plan_never_hides_system_directories():
    plan = plan_mounts(["/", "/usr", "/etc"], [])
    assert not {"/", "/usr", "/etc"} & set(plan.hidden)


def test_unreachable_for_others(tmp_path):
    private = tmp_path / "private"
    (private / "cache").mkdir(parents=True)
    private.chmod(0o700)
    (private / "cache").chmod(0o755)
    plain = MountPlan(hidden=(), exposed=())
    blocked = unreachable_for_others(str(private / "cache"), plain)
    assert blocked is not None and str(private).startswith(blocked)
    covered = MountPlan(hidden=("/tmp",), exposed=((str(private / "cache"), str(private / "cache")),))
    assert unreachable_for_others(str(private / "cache"), covered) is None


def test_public_names_are_curated_and_sorted():
    import rewardloop.sandbox as sandbox

    assert sandbox.__all__ == sorted(sandbox.__all__)
    assert set(sandbox.__all__) == {"Limits", "RunResult", "RunStatus", "Sandbox", "default_sandbox"}


def test_import_is_cheap_and_starts_nothing():
    import json
    import subprocess
    import sys

    code = (
        "import sys, json, threading, rewardloop.sandbox as s; "
        "print(json.dumps([sorted(m for m in ('numpy', 'torch', 'asyncio') if m in sys.modules), "
        "threading.active_count()]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    heavy, threads = json.loads(out.stdout)
    assert "numpy" not in heavy and "torch" not in heavy and threads == 1


def test_compile_outputs_with_links_are_refused(tmp_path):
    from rewardloop.sandbox._cache import unsafe_artefact as _unsafe_artefact

    out = tmp_path / "out"
    (out / "pkg").mkdir(parents=True)
    (out / "pkg" / "A.class").write_bytes(b"\xca\xfe")
    assert _unsafe_artefact(str(out)) is None
    assert _unsafe_artefact(str(tmp_path / "missing")) == "the compiler produced no output"
    (out / "pkg" / "leak").symlink_to("/etc/passwd")
    assert "leak" in _unsafe_artefact(str(out))
    binary = tmp_path / "main"
    binary.symlink_to("/etc/passwd")
    assert _unsafe_artefact(str(binary)) is not None
    hard = tmp_path / "hard"
    hard.write_bytes(b"x")
    os.link(hard, tmp_path / "hard2")
    assert _unsafe_artefact(str(hard)) is not None

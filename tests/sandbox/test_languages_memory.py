"""Runtimes under the memory bound on both red-team set-ups (issue 23, red-team round 3, p37): where no
cgroup caps memory (bwrap as non-root) the bound is RLIMIT_DATA, which counts every thread stack whole.
With ``-Xss64m`` alone the JVM's own threads took 64 MB each and a correct Java program could not start
at ``memory_mb=512``; the class is a correct program failing at a memory bound it fits in because of the
sandbox's own runtime settings, and the bound must still hold for a program that does not fit.
"""

from __future__ import annotations

import sys

import pytest

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux"),
    pytest.mark.sandbox,
]

HELLO = "public class Main { public static void main(String[] a) { System.out.println(6 * 7); } }"
# deep recursion on main() (the launcher gives it -Xss), and a thread of the program's own with the
# default stack: both must work
THREADS = """
public class Main {
    static int depth(int n) { return n == 0 ? 0 : 1 + depth(n - 1); }
    public static void main(String[] a) throws Exception {
        System.out.println(depth(200000));
        Thread t = new Thread(() -> System.out.println(depth(1000)));
        t.start();
        t.join();
    }
}
"""
GREEDY = """
import java.util.ArrayList;
public class Main {
    public static void main(String[] a) {
        ArrayList<long[]> keep = new ArrayList<>();
        for (int i = 0; i < 4096; i++) keep.add(new long[1 << 17]);  // 4 GB at 1 MB a step
        System.out.println("HELD " + keep.size());
    }
}
"""


def _need_java(backend) -> None:
    probe = backend("run", HELLO, "java", limits={"wall_s": 30, "compile_wall_s": 120})
    if probe["status"] == "sandbox_error" and "no java toolchain" in (probe["error"] or ""):
        pytest.skip("no java toolchain here")


@pytest.mark.parametrize("memory_mb", [64, 128, 256, 512])
def test_a_correct_java_program_runs_at_small_memory_bounds(backend, memory_mb):
    _need_java(backend)
    limits = {"wall_s": 30, "compile_wall_s": 120, "memory_mb": memory_mb}
    result = backend("run", HELLO, "java", limits=limits)
    assert result["status"] == "finished" and result["exit_code"] == 0, result
    assert result["stdout"] == "42\n", result  # nothing of the JVM's own on stdout


def test_java_keeps_a_deep_main_stack_and_default_thread_stacks(backend):
    _need_java(backend)
    limits = {"wall_s": 30, "compile_wall_s": 120, "memory_mb": 256}
    result = backend("run", THREADS, "java", limits=limits)
    assert result["status"] == "finished" and result["stdout"] == "200000\n1000\n", result


@pytest.mark.parametrize("memory_mb", [128, 512])
def test_a_java_program_past_the_bound_is_memory_exceeded(backend, memory_mb):
    _need_java(backend)
    limits = {"wall_s": 60, "compile_wall_s": 120, "memory_mb": memory_mb}
    result = backend("run", GREEDY, "java", limits=limits)
    assert "HELD" not in result["stdout"], result
    assert result["status"] == "memory_exceeded", result

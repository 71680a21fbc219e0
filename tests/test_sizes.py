"""Issue 24's size bounds, so the layer stays small enough to read: no module of ``execution/`` over 700 lines,
no class anywhere in the package with more than 25 methods (read with ``ast``: functions defined in the class
body, properties and static methods included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "rewardloop"
MAX_EXECUTION_LINES = 700
MAX_METHODS = 25


def _methods(cls: ast.ClassDef) -> int:
    return sum(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) for node in cls.body)


@pytest.mark.parametrize("path", sorted((PKG / "execution").glob("*.py")), ids=lambda p: p.name)
def test_no_execution_module_is_over_700_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_EXECUTION_LINES, f"{path.name} has {lines} lines (at most {MAX_EXECUTION_LINES})"


def test_no_class_has_more_than_25_methods():
    big = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and _methods(node) > MAX_METHODS:
                big.append(f"{path.relative_to(PKG)}:{node.name} ({_methods(node)} methods)")
    assert not big, big


def test_the_method_count_sees_every_kind_of_method():
    tree = ast.parse(
        "class C:\n"
        "    def a(self): ...\n"
        "    async def b(self): ...\n"
        "    @property\n"
        "    def c(self): ...\n"
        "    @staticmethod\n"
        "    def d(): ...\n"
        "    x = 1\n"
    )
    assert _methods(tree.body[0]) == 4

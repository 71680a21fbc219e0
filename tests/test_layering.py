"""DESIGN §2: data flows downward; nothing imports upward.

Every ``import`` (also inside functions) of every module is read with ``ast``; a module of a lower layer may not
import a higher one. The entry points (cli, server, integrations, tools, workbench) may import anything below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "rewardloop"

# layer of each top-level part of the package; higher numbers are higher layers
LAYERS = {
    "types": 0,
    "errors": 0,
    "registry": 0,
    "config": 0,
    "_loader": 0,
    "scorers": 1,
    "sandbox": 1,
    "models": 1,
    "execution": 2,
    "managers": 3,
    "shaping": 3,  # shapers build on managers' Shaper protocol
    "monitors": 3,
}
ENTRY = ("cli", "server", "integrations", "tools", "workbench")
# known exceptions, each with its reason
ALLOWED = {
    # config parses reward.runner with RunnerConfig's own checks (one place for them), imported lazily
    ("config", "rewardloop.execution._config"),
}


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "rewardloop" else None


def _imports(path: Path) -> list[str]:
    here = ".".join(path.relative_to(PKG.parent).with_suffix("").parts)
    package = here if path.name == "__init__.py" else here.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                out.append(".".join([*base, *([node.module] if node.module else [])]))
            elif node.module:
                out.append(node.module)
    return out


CASES = [p for p in PKG.rglob("*.py") if (p.relative_to(PKG).parts[0].removesuffix(".py") in LAYERS)]


@pytest.mark.parametrize("path", CASES, ids=lambda p: str(p.relative_to(PKG)))
def test_no_module_imports_a_higher_layer(path):
    own = path.relative_to(PKG).parts[0].removesuffix(".py")
    bad = []
    for module in _imports(path):
        part = _part(module)
        if part is None or part == own or (own, module) in ALLOWED:
            continue
        if part in ENTRY or LAYERS.get(part, -1) > LAYERS[own]:
            bad.append(module)
    assert not bad, f"{path.relative_to(PKG)} imports upward: {bad}"


def test_the_check_sees_relative_imports():
    # the custom-function loader moved to the core (issue 13): the manager imports it from scorers
    imports = _imports(PKG / "managers" / "_manager.py")
    assert "rewardloop.scorers._custom" in imports and not any("integrations" in m for m in imports)

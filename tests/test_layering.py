"""DESIGN §2: data flows downward; nothing imports upward; a package's private modules are its own.

Every ``import`` (also inside functions) of every module is read with ``ast``. Checked:

* every top-level part of the package has a layer (or is an entry point), so a new module cannot go unchecked;
* a module of a lower layer never imports a higher one (entry points may import anything below);
* outside package ``X``, code imports ``rewardloop.X`` (its facade), never ``rewardloop.X._private``, except the
  short list below, each with its reason;
* no import cycle between subpackages.
"""

from __future__ import annotations

import ast
import functools
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
    "_io": 0,
    "_groups": 0,
    "_summary": 0,
    "_provenance": 0,
    "_suggest": 0,
    "_validate": 0,  # the config dialects' shared field specs and error wording
    "clients": 0,  # HTTP clients and templates: errors and types only, under scorers and models
    "scorers": 1,
    "sandbox": 1,
    "models": 1,
    "execution": 2,
    "managers": 3,
    "shaping": 3,  # shapers build on managers' Shaper protocol
    "monitors": 3,
}
ENTRY = ("cli", "server", "integrations", "tools", "workbench", "_api", "testing", "client")
TOP = ("__init__", "__main__", "py.typed")  # the package itself
# known exceptions to the layers, each with its reason
ALLOWED = {
    # config parses reward.runner with RunnerConfig's own checks (one place for them), imported lazily
    ("config", "rewardloop.execution"),
}
# private modules another package may still import, each with its reason: none, every name another package
# needs is in its owner's facade
ALLOWED_PRIVATE: set[tuple[str, str]] = set()


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


def _own(path: Path) -> str:
    return path.relative_to(PKG).parts[0].removesuffix(".py")


ALL = sorted(PKG.rglob("*.py"))
CASES = [p for p in ALL if _own(p) in LAYERS]


def test_every_top_level_part_has_a_layer_or_is_an_entry_point():
    parts = {p.name.removesuffix(".py") for p in PKG.iterdir() if p.name != "__pycache__"}
    unplaced = sorted(parts - set(LAYERS) - set(ENTRY) - set(TOP))
    assert not unplaced, f"give these a layer in LAYERS or list them in ENTRY: {unplaced}"


@pytest.mark.parametrize("path", CASES, ids=lambda p: str(p.relative_to(PKG)))
def test_no_module_imports_a_higher_layer(path):
    own = _own(path)
    bad = []
    for module in _imports(path):
        part = _part(module)
        if part is None or part == own or (own, module) in ALLOWED:
            continue
        if part in ENTRY or LAYERS.get(part, -1) > LAYERS[own]:
            bad.append(module)
    assert not bad, f"{path.relative_to(PKG)} imports upward: {bad}"


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(PKG)))
def test_no_package_imports_another_packages_private_modules(path):
    own = _own(path)
    bad = []
    for module in _imports(path):
        parts = module.split(".")
        if parts[0] != "rewardloop" or len(parts) < 3 or parts[1] == own:
            continue
        if any(p.startswith("_") for p in parts[2:]) and (own, module) not in ALLOWED_PRIVATE:
            bad.append(module)
    assert not bad, f"{path.relative_to(PKG)} imports private modules of other packages: {bad}"


def test_no_import_cycle_between_subpackages():
    graph: dict[str, set[str]] = {}
    for path in ALL:
        own = _own(path)
        for module in _imports(path):
            part = _part(module)
            if part is not None and part != own:
                graph.setdefault(own, set()).add(part)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    cycles = sorted({tuple(sorted((a, b))) for a in graph for b in graph[a] if reaches(b, a, {b})})
    assert not cycles, f"subpackages that import each other (directly or through others): {cycles}"


# modules that import each other, each pair with its reason (none today)
KNOWN_FILE_CYCLES: set[tuple[str, str]] = set()


def test_no_import_cycle_between_modules():
    graph: dict[str, set[str]] = {}
    for path in ALL:
        here = ".".join(path.relative_to(PKG.parent).with_suffix("").parts)
        for module in _imports(path):
            for name in (module, *(f"{module}.{n}" for n in _imported_names(path, module))):
                if name != here and (PKG.parent / (name.replace(".", "/") + ".py")).exists():
                    graph.setdefault(here, set()).add(name)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    cycles = {tuple(sorted((a, b))) for a in graph for b in graph[a] if reaches(b, a, {b})}
    assert not cycles - KNOWN_FILE_CYCLES, (
        f"modules that import each other: {sorted(cycles - KNOWN_FILE_CYCLES)}"
    )


@functools.cache
def _imported_names(path: Path, module: str) -> list[str]:
    """Names imported ``from module`` in ``path`` (a name may be a submodule: ``from . import _x``)."""
    return _names_by_module(path).get(module, [])


@functools.cache
def _names_by_module(path: Path) -> dict[str, list[str]]:
    here = ".".join(path.relative_to(PKG.parent).with_suffix("").parts)
    package = here if path.name == "__init__.py" else here.rsplit(".", 1)[0]
    out: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[: len(base) - node.level + 1] if node.level else []
            name = ".".join([*base, *([node.module] if node.module else [])]) if node.level else node.module
            out.setdefault(name or "", []).extend(a.name for a in node.names)
    return out


def test_the_check_sees_relative_imports():
    # the custom-function loader moved to the core (issue 13): the manager imports it from scorers
    imports = _imports(PKG / "managers" / "_manager.py")
    assert "rewardloop.scorers" in imports and not any("integrations" in m for m in imports)

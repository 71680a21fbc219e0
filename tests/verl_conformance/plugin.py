"""pytest plugin: run verl 0.9.1's own reward tests against rewardloop's entry points.

Loaded with ``-p tests.verl_conformance.plugin`` in the verl interpreter (``.venv-verl``). At configure time,
before verl's test modules are imported, it replaces verl's reward entry points with rewardloop's in every
loaded ``verl.*`` module that holds them (so ``from verl.workers.reward_manager.naive import
NaiveRewardManager`` in a test file gets ours):

* classic managers ``verl.workers.reward_manager.{naive,dapo,batch,prime}`` and the loop managers
  ``verl.experimental.reward_loop.reward_manager.{naive,dapo,remote,limited,gdpo}``;
* both registries: ``register``, ``get_reward_manager_cls`` and the registry dicts
  (``REWARD_MANAGER_REGISTRY``, ``REWARD_MANAGER``) become rewardloop's classic / loop registries;
* ``default_compute_score`` in ``verl.utils.reward_score`` and every verl module that imported it.

Not vacuous: after collection every collected test module is checked, and a module global that is still one of
verl's replaced originals is a usage error. ``--rewardloop-report PATH`` writes JSON with the substitutions,
and for every test the substituted names its code (test body, fixtures, and the test module's functions it
calls, transitively) refers to, so a driver can tell tests of rewardloop from tests of verl's own helpers.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

#: (verl module, attribute) -> rewardloop object, resolved in :func:`_targets`
_CLASSIC_MANAGERS = {
    "naive": "NaiveRewardManager",
    "dapo": "DAPORewardManager",
    "batch": "BatchRewardManager",
    "prime": "PrimeRewardManager",
}
_LOOP_MANAGERS = {
    "naive": ("NaiveRewardManager", "LoopNaiveRewardManager"),
    "dapo": ("DAPORewardManager", "LoopDAPORewardManager"),
    "remote": ("RemoteRewardManager", "RemoteRewardManager"),
    "limited": ("RateLimitedRewardManager", "RateLimitedRewardManager"),
    "gdpo": ("GDPORewardManager", "LoopGDPORewardManager"),
}
_CLASSIC_PKG = "verl.workers.reward_manager"
_LOOP_PKG = "verl.experimental.reward_loop.reward_manager"

_state: dict[str, Any] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--rewardloop-report", default=None, help="write the substitution report (JSON) to this path"
    )
    parser.addoption(
        "--rewardloop-no-substitute",
        action="store_true",
        help="leave verl's entry points in place (a baseline run); only classify and report the tests",
    )


def _registry_functions(kind: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """verl-shaped ``register(name)`` / ``get_reward_manager_cls(name)`` bound to one of our registries."""
    from rewardloop.integrations.verl import get_reward_manager_cls, register

    return (
        functools.partial(register, kind=kind),
        functools.partial(get_reward_manager_cls, kind=kind),
    )


def _targets() -> dict[tuple[str, str], Any]:
    from rewardloop.integrations import verl as rl
    from rewardloop.integrations.verl import _managers

    out: dict[tuple[str, str], Any] = {}
    for module, name in _CLASSIC_MANAGERS.items():
        out[(f"{_CLASSIC_PKG}.{module}", name)] = getattr(rl, name)
    for module, (name, ours) in _LOOP_MANAGERS.items():
        out[(f"{_LOOP_PKG}.{module}", name)] = getattr(rl, ours)
    for pkg, kind, registry_name, registry in (
        (_CLASSIC_PKG, "classic", "REWARD_MANAGER_REGISTRY", _managers._CLASSIC),
        (_LOOP_PKG, "loop", "REWARD_MANAGER", _managers._LOOP),
    ):
        reg, get = _registry_functions(kind)
        out[(f"{pkg}.registry", "register")] = reg
        out[(f"{pkg}.registry", "get_reward_manager_cls")] = get
        out[(f"{pkg}.registry", registry_name)] = registry
    out[("verl.utils.reward_score", "default_compute_score")] = rl.default_compute_score
    return out


def _origin(obj: Any) -> tuple[str, str] | None:
    """``(module, qualname)`` of a verl class or function: also catches a re-imported (reloaded) original."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if isinstance(module, str) and module.startswith("verl") and isinstance(qualname, str):
        return module, qualname
    return None


def _is_ours(obj: Any) -> bool:
    target = obj.func if isinstance(obj, functools.partial) else obj
    if isinstance(target, dict):
        from rewardloop.integrations.verl import _managers

        return target is _managers._CLASSIC or target is _managers._LOOP
    return (getattr(target, "__module__", "") or "").startswith("rewardloop.")


def substitute(*, dry_run: bool = False) -> dict[str, str]:
    """Replace verl's entry points with ours in every loaded verl module; returns ``{"mod:attr": ours}``.

    ``dry_run``: find them but replace nothing (the report then names what would have been replaced)."""
    targets = _targets()
    originals: dict[int, Any] = {}
    for (module_name, attr), ours in targets.items():
        module = importlib.import_module(module_name)
        original = getattr(module, attr)
        originals[id(original)] = (original, ours)
    _state["names"] = {_origin(o) for o, _ in originals.values()} - {None}
    replaced: dict[str, str] = {}
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("verl") or not isinstance(module, types.ModuleType):
            continue
        for attr, value in list(vars(module).items()):
            hit = originals.get(id(value))
            if hit is not None and hit[0] is value:
                if not dry_run:
                    setattr(module, attr, hit[1])
                replaced[f"{module_name}:{attr}"] = _describe(hit[1])
    _state["originals"] = originals
    _state["replaced"] = replaced
    _state["dry_run"] = dry_run
    for (module_name, attr), ours in targets.items():
        assert dry_run or getattr(sys.modules[module_name], attr) is ours, (
            f"{module_name}.{attr} was not substituted"
        )
    return replaced


def _describe(obj: Any) -> str:
    if isinstance(obj, functools.partial):
        return f"{_describe(obj.func)}({', '.join(f'{k}={v!r}' for k, v in obj.keywords.items())})"
    if isinstance(obj, dict):
        return "rewardloop registry dict"
    return f"{obj.__module__}.{obj.__qualname__}"


def pytest_configure(config: pytest.Config) -> None:
    substitute(dry_run=config.getoption("--rewardloop-no-substitute"))


@pytest.fixture(autouse=True)
def _rewardloop_registries() -> Iterator[None]:
    """verl's registry tests clear the registry; give every test our registries as they were, and restore."""
    from rewardloop.integrations.verl import _managers

    saved = {id(r): dict(r) for r in (_managers._CLASSIC, _managers._LOOP)}
    yield
    for registry in (_managers._CLASSIC, _managers._LOOP):
        registry.clear()
        registry.update(saved[id(registry)])


def _code_objects(obj: Any) -> Iterator[types.CodeType]:
    code = getattr(inspect.unwrap(getattr(obj, "__func__", obj)), "__code__", None)
    stack = [code] if code is not None else []
    while stack:
        code = stack.pop()
        yield code
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))


def _names_used(funcs: list[Any], module: types.ModuleType) -> set[str]:
    """Global/attribute names referred to by ``funcs``, following the test module's own functions/classes."""
    seen: set[int] = set()
    names: set[str] = set()
    todo = list(funcs)
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        members = [obj]
        if isinstance(obj, type):
            members = [
                v for v in vars(obj).values() if callable(v) or isinstance(v, staticmethod | classmethod)
            ]
        for member in members:
            for code in _code_objects(member):
                for name in code.co_names:
                    names.add(name)
                    value = vars(module).get(name)
                    if getattr(value, "__module__", None) == module.__name__:
                        todo.append(value)
    return names


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    originals = _state["originals"]
    dry_run = _state["dry_run"]
    names = _state["names"]
    leaks, per_module, per_test = [], {}, {}
    for item in items:
        module = item.module
        ours, theirs = set(), set()
        for name, value in vars(module).items():
            if _is_ours(value):
                ours.add(name)
            elif (id(value) in originals and originals[id(value)][0] is value) or _origin(value) in names:
                theirs.add(name)
                leaks.append(f"{module.__name__}.{name}")
        if dry_run:  # a baseline: the names that a substituting run replaces
            ours, leaks = theirs, []
        per_module[str(Path(module.__file__).resolve())] = sorted(ours)
        funcs = [item.function]
        for defs in item._fixtureinfo.name2fixturedefs.values():
            funcs.extend(d.func for d in defs if getattr(d, "func", None) is not None)
        per_test[item.nodeid] = sorted(_names_used(funcs, module) & ours)
    if leaks:
        raise pytest.UsageError(f"verl originals not substituted in test modules: {sorted(set(leaks))}")
    _state["report"] = {
        "substituted": not dry_run,
        "replaced": _state["replaced"],
        "modules": per_module,
        "tests": per_test,
    }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = session.config.getoption("--rewardloop-report")
    if path and "report" in _state:
        Path(path).write_text(json.dumps(_state["report"], indent=1, sort_keys=True))

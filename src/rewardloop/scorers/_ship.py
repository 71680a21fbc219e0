"""How a user's function reaches a worker process: by reference when a fresh interpreter can import it, else by
value with ``cloudpickle`` (closures, lambdas, functions of ``__main__``, of a script or notebook, of a file
loaded by path). Used by :class:`~rewardloop.scorers.CustomFunctionScorer` and by the plain functions the
Runner wraps (:class:`~rewardloop.scorers._base.FunctionScorer`), so both entry points ship alike.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import pickle
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["shippable"]


class _ByValue:
    """A function pickled by value with cloudpickle (closures, lambdas, ``__main__`` functions)."""

    travels = True

    def __init__(self, fn: Callable[..., Any], payload: bytes) -> None:
        self.fn = fn
        self.payload = payload
        self.__name__ = getattr(fn, "__name__", "custom")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_from_payload, (self.payload,))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


def _from_payload(payload: bytes) -> _ByValue:
    return _ByValue(pickle.loads(payload), payload)


def _module_of(fn: Any) -> str | None:
    target = fn.func if isinstance(fn, functools.partial) else fn
    module = getattr(target, "__module__", None)
    return module if isinstance(module, str) else None


def _importable(fn: Any) -> bool:
    """True when a fresh interpreter with this ``sys.path`` imports the module ``pickle`` names for ``fn``.

    ``find_spec`` alone is not enough: a module loaded by path (``importlib`` import mode, ``runpy``, our own
    file loader) sits in ``sys.modules`` and has a spec, yet a worker cannot import it by name. So the module's
    file must be where its dotted name leads from some ``sys.path`` entry.
    """
    target = fn.func if isinstance(fn, functools.partial) else fn
    module = _module_of(fn)
    if module is None or module == "__main__" or module.startswith("rewardloop_user_"):
        return False
    if "<locals>" in (getattr(target, "__qualname__", "") or ""):
        return False
    loaded = sys.modules.get(module)
    origin = getattr(loaded, "__file__", None)
    if loaded is None or origin is None:
        try:
            return importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            return False
    relative = module.replace(".", os.sep)
    for entry in sys.path:
        for candidate in (f"{relative}.py", os.path.join(relative, "__init__.py")):
            path = os.path.join(entry or os.getcwd(), candidate)
            with contextlib.suppress(OSError):
                if os.path.exists(path) and os.path.samefile(path, origin):
                    return True
    return False


def shippable(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """``fn`` in a form that reaches a worker process, or None when it cannot travel."""
    if getattr(fn, "travels", False) is True:  # a PathFunction, or already by value
        return fn
    try:
        pickle.dumps(fn)
        if _importable(fn):
            return fn
    except Exception:
        pass
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - a core dependency
        return None
    module = _module_of(fn)
    if module and module != "__main__" and module in sys.modules:
        # a module no worker can import by name: its functions must travel by value too
        with contextlib.suppress(Exception):
            cloudpickle.register_pickle_by_value(sys.modules[module])
    try:
        return _ByValue(fn, cloudpickle.dumps(fn))
    except Exception:
        return None

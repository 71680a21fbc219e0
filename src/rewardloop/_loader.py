"""Loading user code named by a path: ``pkg://a.b.c``, ``file://x.py``, ``x.py``, plus an attribute name.

File modules are registered in ``sys.modules`` under a stable name derived from the absolute path, so
functions defined in them pickle by reference within a process tree that shares the file system.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import threading
from types import ModuleType
from typing import Any

from .errors import CustomFunctionError

__all__ = ["load_extern_module", "load_extern_object", "split_function_spec"]

_lock = threading.Lock()


def _module_name_for(path: str) -> str:
    digest = hashlib.sha1(path.encode()).hexdigest()[:12]
    stem = os.path.splitext(os.path.basename(path))[0].replace("-", "_").replace(".", "_")
    return f"rewardloop_user_{stem}_{digest}"


def load_extern_module(path: str) -> ModuleType:
    """Import ``pkg://a.b.c`` (or ``pkg://a/b/c``) as a package module, or execute a ``.py`` file once."""
    if not isinstance(path, str) or not path:
        raise CustomFunctionError(f"custom function path must be a non-empty string, got {path!r}")
    if path.startswith("pkg://"):
        dotted = path[len("pkg://") :].replace("/", ".").removesuffix(".py")
        try:
            return importlib.import_module(dotted)
        except ImportError as exc:
            raise CustomFunctionError(f"cannot import module {dotted!r} from path={path!r}: {exc}") from exc
    file_path = os.path.abspath(path.removeprefix("file://"))
    if not os.path.isfile(file_path):
        raise CustomFunctionError(f"Custom module file not found: module_path={file_path!r}")
    name = _module_name_for(file_path)
    with _lock:
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, file_path)
        if spec is None or spec.loader is None:
            raise CustomFunctionError(f"cannot load {file_path!r} as a Python module (is it a .py file?)")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:
            del sys.modules[name]
            raise CustomFunctionError(
                f"Error loading module from module_path={file_path!r}: {type(exc).__name__}: {exc}"
            ) from exc
    return module


def load_extern_object(path: str, name: str) -> Any:
    """``getattr(load_extern_module(path), name)`` with an error naming what the module does define."""
    module = load_extern_module(path)
    if not isinstance(name, str) or not name:
        raise CustomFunctionError(f"custom function name must be a non-empty string, got {name!r}")
    try:
        return getattr(module, name)
    except AttributeError:
        public = sorted(k for k, v in vars(module).items() if callable(v) and not k.startswith("_"))
        raise CustomFunctionError(
            f"Object not found in module: object_name={name!r}, module_path={path!r}; "
            f"callables defined there: {public}"
        ) from None


def split_function_spec(spec: str, default_name: str = "compute_score") -> tuple[str, str]:
    """Split ``"file.py:name"`` / ``"pkg://a.b:name"`` into (path, name); the name defaults to ``default_name``."""
    head, sep, tail = spec.rpartition(":")
    if sep and tail and "/" not in tail and not tail.startswith("\\") and head not in ("pkg", "file"):
        return head, tail
    return spec, default_name

"""Which scorer, with which options, under which rewardloop version produced a score.

``rewardloop score`` writes three columns on every scored row: ``scorer`` (the scorer's name),
``scorer_fingerprint`` (:func:`scorer_fingerprint`) and ``rewardloop_version``; ``rewardloop rescore``
compares them with the scorer it runs now.

The fingerprint is a short hash of the scorer's class and its options (its instance attributes, nested
objects described by their class and state, memory addresses removed): two scorers with the same class
and options share it across processes and machines; changing an option (``gsm8k:method=flexible``,
a custom function's ``reward_kwargs``) changes it. Code changes inside a scorer do not; that is what
``rewardloop_version`` records.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

__all__ = ["describe", "scorer_fingerprint"]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_DEPTH = 5


def describe(value: Any, depth: int = 0) -> Any:
    """A JSON-able description of ``value`` that does not depend on the process it lives in."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if depth >= _DEPTH:
        return _type_path(value)
    if isinstance(value, dict):
        return {str(k): describe(v, depth + 1) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [describe(v, depth + 1) for v in items]
    if isinstance(value, type) or (callable(value) and not hasattr(value, "__dict__")):
        return getattr(value, "__qualname__", _type_path(value))
    state = _state(value)
    if state is None:
        return _ADDRESS.sub("", repr(value))
    return {"type": _type_path(value), "state": describe(state, depth + 1)}


def _state(value: Any) -> dict[str, Any] | None:
    getstate = getattr(type(value), "__getstate__", None)
    if getstate is not None and getstate is not getattr(object, "__getstate__", None):
        try:
            state = value.__getstate__()
        except Exception:
            state = None
        if isinstance(state, dict):
            return state
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return {k: v for k, v in attrs.items() if not k.startswith("__")}
    if hasattr(value, "__qualname__"):  # functions, builtins
        return {"qualname": value.__qualname__, "module": getattr(value, "__module__", None)}
    return None


def _type_path(value: Any) -> str:
    cls = value if isinstance(value, type) else type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def scorer_fingerprint(scorer: Any) -> str:
    """16 hex digits naming the scorer's class and options (see the module docstring)."""
    text = json.dumps(
        {"class": _type_path(scorer), "options": describe(_state(scorer) or {})}, sort_keys=True
    )
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()

"""One generic registry for named plug-ins (scorers, reward managers, ...).

Entries are objects or lazy ``"module:attr"`` strings, so built-ins cost nothing until used. Third-party
packages add entries through an entry point group (``[project.entry-points."rewardloop.scorers"]``),
read once, on the first lookup that misses.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from .errors import ConfigError, UnknownScorerError

__all__ = ["Registry", "load_object"]

T = TypeVar("T")


def load_object(spec: str) -> Any:
    """Import ``"package.module:attr"`` (``attr`` may be dotted) and return the object."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"expected 'module:attr', got {spec!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


class Registry(Generic[T]):
    """Maps names to objects; values given as ``"module:attr"`` strings are imported on first use."""

    def __init__(
        self,
        kind: str,
        entry_point_group: str | None = None,
        error: Callable[[str, list[str]], Exception] | None = None,
    ) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
        self._error = error or (lambda name, known: UnknownScorerError(name, known))
        self._entries: dict[str, T | str] = {}
        self._entry_points_loaded = entry_point_group is None
        self._lock = threading.Lock()

    def register(self, name: str, obj: T | str | None = None, *, overwrite: bool = False) -> Any:
        """Register ``obj`` under ``name``; without ``obj``, return a decorator that registers its target."""
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{self.kind} name must be a non-empty string, got {name!r}")

        def add(target: Any) -> Any:
            with self._lock:
                current = self._entries.get(name)
                if current is not None and current is not target and not overwrite:
                    raise ConfigError(
                        f"{self.kind} {name!r} is already registered ({current!r}); pass overwrite=True to replace it"
                    )
                self._entries[name] = target
            return target

        return add if obj is None else add(obj)

    def unregister(self, name: str) -> None:
        with self._lock:
            self._entries.pop(name, None)

    def get(self, name: str) -> T:
        """The object registered as ``name``; unknown names raise the registry's error listing known names."""
        entry = self._entries.get(name)
        if entry is None and not self._entry_points_loaded:
            self._load_entry_points()
            entry = self._entries.get(name)
        if entry is None:
            raise self._error(name, self.names())
        if isinstance(entry, str):
            try:
                entry = load_object(entry)
            except (ImportError, AttributeError) as exc:
                raise ConfigError(f"{self.kind} {name!r} could not be loaded from {entry!r}: {exc}") from exc
            with self._lock:
                self._entries[name] = entry
        return entry

    def names(self) -> list[str]:
        if not self._entry_points_loaded:
            self._load_entry_points()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def _load_entry_points(self) -> None:
        assert self.entry_point_group is not None
        found = entry_points(group=self.entry_point_group)
        with self._lock:
            for ep in found:
                self._entries.setdefault(ep.name, ep.value)
            self._entry_points_loaded = True

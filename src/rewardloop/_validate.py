"""One validation vocabulary for every configuration dialect (DESIGN §3, contract 7).

The reward config (:mod:`rewardloop.config`), :class:`~rewardloop.RunnerConfig`, the server and
``/run_code`` settings, the sandbox's :class:`~rewardloop.sandbox.Limits`, the reward-model launcher's
config and :class:`~rewardloop.execution.WorkerPool`'s arguments each *declare* their fields as specs
(:class:`Int`, :class:`Number`, :class:`Bool`, :class:`Str`, :class:`Choice`, :class:`Rule`); the
checking, the wording of errors and the unknown-key handling live here, once.

Every error names the key, what is allowed and what was given, in one form::

    server.port must be an integer >= 0, got -1
    execution must be one of inline, thread, process or None, got 'proces' (did you mean 'process'?)
    unknown key(s) 'timeout' in reward.runner; allowed: backoff_base_s, ...; 'timeout' (did you mean 'timeout_s'?)

Checks that relate two fields (a default above its maximum) stay with their dialect; they raise
:class:`~rewardloop.errors.ConfigError` too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from ._suggest import did_you_mean
from .errors import ConfigError

__all__ = [
    "Bool",
    "Choice",
    "Int",
    "Number",
    "Rule",
    "Spec",
    "Str",
    "check_fields",
    "check_keys",
    "fail",
    "known_keys",
    "mapping",
    "renamed",
    "section",
]

# Hydra's instantiation hint, present at every level of verl's YAML: never an unknown key
IGNORED_KEYS = frozenset({"_target_"})


def fail(where: str, allowed: str, got: Any, hint: str = "") -> NoReturn:
    """Raise the one error form: ``<where> must be <allowed>, got <value>[ hint]``."""
    raise ConfigError(f"{where} must be {allowed}, got {got!r}{hint}")


class Spec:
    """What one field accepts. ``check`` returns the value (numbers as float for :class:`Number`) or raises
    :class:`ConfigError` naming ``where`` and :meth:`allowed`."""

    optional: bool = False

    def describe(self) -> str:
        raise NotImplementedError

    def accepts(self, value: Any) -> bool:
        raise NotImplementedError

    def coerce(self, value: Any) -> Any:
        return value

    def allowed(self) -> str:
        return self.describe() + (" or None" if self.optional else "")

    def hint(self, value: Any) -> str:
        return ""

    def check(self, value: Any, where: str) -> Any:
        if value is None and self.optional:
            return None
        if not self.accepts(value):
            fail(where, self.allowed(), value, self.hint(value))
        return self.coerce(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class Int(Spec):
    """An integer (never a bool), at least ``minimum`` when given."""

    minimum: int | None = None
    optional: bool = False

    def describe(self) -> str:
        return "an integer" + ("" if self.minimum is None else f" >= {self.minimum}")

    def accepts(self, value: Any) -> bool:
        return _is_int(value) and (self.minimum is None or value >= self.minimum)


@dataclass(frozen=True)
class Number(Spec):
    """A real number (int or float, never a bool), returned as float. ``positive``: > 0; ``minimum``: >=;
    ``finite``: no NaN or infinity (a bound implies it)."""

    positive: bool = False
    minimum: float | None = None
    finite: bool = True
    optional: bool = False

    def describe(self) -> str:
        if self.positive:
            return "a positive number"
        if self.minimum is not None:
            return f"a number >= {self.minimum:g}"
        return "a finite number" if self.finite else "a number"

    def accepts(self, value: Any) -> bool:
        if not _is_number(value):
            return False
        if (self.finite or self.positive or self.minimum is not None) and not math.isfinite(value):
            return False
        if self.positive and value <= 0:
            return False
        return self.minimum is None or value >= self.minimum

    def coerce(self, value: Any) -> float:
        return float(value)


@dataclass(frozen=True)
class Bool(Spec):
    optional: bool = False

    def describe(self) -> str:
        return "true or false"

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)


@dataclass(frozen=True)
class Str(Spec):
    """A string; non-empty (after stripping blanks) unless ``empty_ok``."""

    empty_ok: bool = False
    optional: bool = False

    def describe(self) -> str:
        return "a string" if self.empty_ok else "a non-empty string"

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and (self.empty_ok or bool(value.strip()))


@dataclass(frozen=True)
class Choice(Spec):
    """One of ``values``; a mistyped string gets a "did you mean" hint."""

    values: tuple[Any, ...] = ()
    optional: bool = False

    def describe(self) -> str:
        return "one of " + ", ".join(str(v) for v in self.values)

    def accepts(self, value: Any) -> bool:
        try:
            return value in self.values and not isinstance(value, bool)
        except TypeError:  # an unhashable value compared against strings
            return False

    def hint(self, value: Any) -> str:
        if not isinstance(value, str):
            return ""
        return did_you_mean(value, [v for v in self.values if isinstance(v, str)])


@dataclass(frozen=True)
class Rule(Spec):
    """A field whose rule is not one of the above: a predicate and the words that describe it."""

    predicate: Callable[[Any], bool] = bool
    description: str = ""
    optional: bool = False

    def describe(self) -> str:
        return self.description

    def accepts(self, value: Any) -> bool:
        return bool(self.predicate(value))


def check_fields(obj: Any, specs: Mapping[str, Spec], prefix: str = "") -> None:
    """Check the attributes ``specs`` names on ``obj`` (a dataclass in its ``__post_init__``), each error
    naming ``prefix + name``. Values are checked, not converted."""
    for name, spec in specs.items():
        spec.check(getattr(obj, name), prefix + name)


def mapping(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` if it is a mapping (``None``: empty), else a ConfigError naming ``where``."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a mapping, got {type(value).__name__}")
    return value


def section(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    """The sub-mapping ``data[key]`` (missing or None: empty), named ``<where>.<key>`` in errors."""
    return mapping(data.get(key), f"{where}.{key}")


def check_keys(data: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """Raise a ConfigError listing every unknown key of ``data`` (each with its closest allowed key) and
    the allowed ones."""
    allowed = sorted(allowed)
    known = set(allowed) | IGNORED_KEYS
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        hints = "".join(f"; {k!r}{hint}" for k in unknown if (hint := did_you_mean(k, allowed)))
        raise ConfigError(
            f"unknown key(s) {', '.join(map(repr, unknown))} in {where}; allowed: {', '.join(allowed)}{hints}"
        )


def known_keys(cls: type, data: Any, where: str) -> dict[str, Any]:
    """``data`` (a mapping or None) as a dict of ``cls``'s dataclass fields; unknown keys raise."""
    out = {k: v for k, v in mapping(data, where).items() if k not in IGNORED_KEYS}
    check_keys(out, [f.name for f in dataclasses.fields(cls)], where)
    return out


def renamed(new_value: Any, old_value: Any, old: str, new: str, where: str, default: Any = None) -> Any:
    """The value of a keyword argument renamed from ``old`` to ``new``: the old name still works, with a
    :class:`DeprecationWarning`; both at once is a ConfigError. ``None`` means "not given"."""
    if old_value is None:
        return default if new_value is None else new_value
    if new_value is not None:
        raise ConfigError(f"{where}: give {new}= only ({old}= is its deprecated name), not both")
    import warnings

    warnings.warn(f"{where}: {old}= is deprecated; use {new}=", DeprecationWarning, stacklevel=3)
    return old_value

""" "Did you mean ...?" for names a user mistyped: data sources, scorers, command-line flags, config keys."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean", "suggestion_for", "unknown_task_message"]


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` known names close to ``name`` (case-insensitive, difflib ratio >= 0.6), best first."""
    known = [k for k in known if isinstance(k, str)]
    lowered = {k.lower(): k for k in known}
    exact = lowered.get(name.lower())
    if exact is not None and exact != name:
        return [exact]
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
    return [lowered[h] for h in hits if lowered[h] != name]


def did_you_mean(name: str, known: Iterable[str], n: int = 3) -> str:
    """``" (did you mean 'x'?)"`` or ``""`` when nothing is close."""
    hits = closest(name, known, n)
    if not hits:
        return ""
    return " (did you mean " + " or ".join(repr(h) for h in hits) + "?)"


# ConfigError messages of config.py and RunnerConfig that name unknown keys and the allowed ones
_UNKNOWN_KEYS = re.compile(
    r"unknown (?:RunnerConfig )?key\(s\):? (?P<keys>.+?)(?: in [\w.\[\]]+)?; allowed: (?P<allowed>.+)$"
)


def suggestion_for(exc: BaseException) -> str:
    """A "did you mean" for an error about an unknown name, or ``""``."""
    from .errors import UnknownScorerError, UnknownTaskError

    if isinstance(exc, UnknownTaskError) and isinstance(exc.task, str):
        return did_you_mean(exc.task, [k.rstrip("*") for k in exc.known])
    if isinstance(exc, UnknownScorerError):
        return did_you_mean(exc.name, exc.known)
    match = _UNKNOWN_KEYS.search(str(exc))
    if match:
        allowed = [a.strip() for a in match["allowed"].split(",")]
        parts = []
        for key in (k.strip().strip("'\"") for k in match["keys"].split(",")):
            hint = did_you_mean(key, allowed)
            if hint:
                parts.append(f"{key!r}{hint}")
        return ("; " + "; ".join(parts)) if parts else ""
    return ""


def unknown_task_message(exc: BaseException) -> str:
    """The message of an :class:`~rewardloop.errors.UnknownTaskError` with the "did you mean" right after the
    data source (the list of known data sources that follows is long)."""
    text = str(exc)
    task = getattr(exc, "task", None)
    hint = suggestion_for(exc)
    marker = f"data_source={task!r}"
    if hint and marker in text:
        return text.replace(marker, marker + hint, 1)
    return text + hint

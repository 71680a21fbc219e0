"""Locating ``\\boxed{...}`` answers in model output. Linear time, no regex backtracking.

Shared by every math scorer. All functions take and return plain strings and never raise on odd input.
"""

from __future__ import annotations

import re

__all__ = ["find_last_boxed", "last_boxed_content", "last_boxed_only_string", "remove_boxed"]

_BOX_COMMANDS = ("\\boxed", "\\fbox")


_BRACE_EVENTS = re.compile(r"\\.|[{}]", re.DOTALL)  # an escaped character, or a brace


def _match_brace(text: str, open_idx: int) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``open_idx`` (escaped braces ``\\{``/``\\}`` are ignored), or None."""
    depth = 0
    for m in _BRACE_EVENTS.finditer(text, open_idx):
        ch = m.group()
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return m.start()
    return None


def find_last_boxed(text: str, commands: tuple[str, ...] = _BOX_COMMANDS) -> tuple[int, int, str] | None:
    """The last *complete* box in ``text`` as ``(start, end, content)``; ``text[start:end]`` is the whole box.

    Recognises ``\\boxed{...}`` and ``\\fbox{...}`` (braces matched, nesting allowed) and the brace-less
    ``\\boxed 5`` form (content up to the next ``$`` or end of line). A box whose braces never close is
    skipped in favour of an earlier complete one.
    """
    if not isinstance(text, str):
        return None
    best: tuple[int, int, str] | None = None
    closers: dict[int, int] | None = (
        None  # built only if the last box is unclosed: keeps adversarial input linear
    )
    for cmd in commands:
        pos = len(text)
        tries = 0
        while True:
            start = text.rfind(cmd, 0, pos)
            if start < 0 or (best is not None and start < best[0]):
                break
            pos = start
            tries += 1
            if tries == 2 and closers is None:
                closers = all_closers(text)
            found = _box_at(text, start, cmd, closers)
            if found is not None:
                if best is None or found[0] > best[0]:
                    best = found
                break
    return best


def all_closers(text: str) -> dict[int, int]:
    """Map of every ``{`` index to its closing ``}`` index, in one pass."""
    stack: list[int] = []
    closers: dict[int, int] = {}
    for m in _BRACE_EVENTS.finditer(text):
        ch = m.group()
        if ch == "{":
            stack.append(m.start())
        elif ch == "}" and stack:
            closers[stack.pop()] = m.start()
    return closers


class LocalClosers:
    """``closers.get(i)``: the index of the ``}`` closing the ``{`` at ``i``, or None; found by scanning forward from
    it while that stays cheap (at most ~4x the text in all), then from one full pass (:func:`all_closers`)."""

    def __init__(self, text: str) -> None:
        self.text, self.budget = text, 4 * len(text) + 4096
        self.full: dict[int, int] | None = None

    def get(self, open_idx: int) -> int | None:
        if self.full is not None:
            return self.full.get(open_idx)
        close = self.text.find("}", open_idx + 1)
        inner = self.text[open_idx + 1 : close] if close >= 0 else "{"
        if "{" not in inner and "\\" not in inner:
            self.budget -= close + 1 - open_idx  # "{420}": nothing between the braces opens or escapes one
            return close
        depth = 0
        for m in _BRACE_EVENTS.finditer(self.text, open_idx):
            ch = m.group()
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.budget -= m.end() - open_idx
                    return m.start()
        self.budget -= len(self.text) - open_idx
        if self.budget < 0:
            self.full = all_closers(self.text)
        return None


def _box_at(
    text: str, start: int, cmd: str, closers: dict[int, int] | None = None
) -> tuple[int, int, str] | None:
    j = start + len(cmd)
    # \boxedfoo is another macro, not a box
    if j < len(text) and text[j].isalpha():
        return None
    k = j
    while k < len(text) and text[k] in " \t":
        k += 1
    if k < len(text) and text[k] == "{":
        close = closers.get(k) if closers is not None else _match_brace(text, k)
        if close is None:
            return None
        return start, close + 1, text[k + 1 : close].strip()
    if k > j and k < len(text):  # "\boxed 5": brace-less argument
        end = k
        while end < len(text) and text[end] not in "$\n":
            end += 1
        content = text[k:end].strip()
        return (start, end, content) if content else None
    return None


def last_boxed_content(text: str) -> str | None:
    """Content of the last complete ``\\boxed``/``\\fbox`` in ``text``, or None."""
    found = find_last_boxed(text)
    return None if found is None else found[2]


def last_boxed_only_string(text: str) -> str | None:
    """The whole last box (``\\boxed{...}`` including the command), or None; lm-eval's helper of that name."""
    found = find_last_boxed(text)
    return None if found is None else text[found[0] : found[1]]


def remove_boxed(box: str) -> str | None:
    """Strip the ``\\boxed{...}``/``\\fbox{...}``/``\\boxed x`` wrapper from a whole box string; None if not a box."""
    found = find_last_boxed(box)
    if found is None or found[0] != 0:
        return None
    return found[2]

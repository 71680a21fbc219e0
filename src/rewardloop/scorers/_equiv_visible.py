"""What a reader of a math response actually sees, before any answer is looked for. Linear time; never raises.

:func:`reader_view` maps the answer region of a response to the text a reader sees, and names a rule when
the response cannot be read at face value at all (then math_equiv scores it 0 under that rule, shown by
``explain`` as ``info["rule"]``). See "What the verifier reads" in ``docs/math-verifier.md``.
"""

from __future__ import annotations

import re

from ._latex import all_closers

__all__ = ["reader_view"]

_BOX_START = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")


def reader_view(text: str) -> tuple[str, str]:
    """``(seen, refusal)``: ``text`` with what a reader never sees blanked, and the name of the rule that
    refuses the response ("" when it is read)."""
    if _MAY_HIDE.search(text):
        text = _hide_invisible(text)
    return text, ""


_MAY_HIDE = re.compile(
    r"<!--|\\iffalse|\\iftrue|\\begin\{comment\}|phantom|\\(?:text)?color|%[^\n]*\\(?:boxed|fbox)|display\s*:\s*none"
    r"|cancel|\\sout|\\st\b|~~|<(?:del|s|strike)>"
)
_HIDDEN = re.compile(
    r"<!--.*?(?:-->|\Z)"  # an HTML comment (unclosed: to the end)
    r"|\\iffalse(?![A-Za-z]).*?(?:\\fi(?![A-Za-z])|\Z)"  # TeX's conditional that is never true
    r"|\\begin\{comment\}.*?(?:\\end\{comment\}|\Z)"
    r"|<(\w+)[^<>]*display\s*:\s*none[^<>]*>.*?(?:</\1\s*>|\Z)"  # an HTML element that is not displayed
    r"|<(del|s|strike)>.*?(?:</\2\s*>|\Z)"  # struck out: taken back
    r"|~~(?=\S)(?:(?!~~).){1,2000}?~~"
    r"|(?<![\\\d])(?<!\d\s)%[^\n]*",  # a TeX comment to the end of the line (never "50%", "50 %" or "\\%")
    re.DOTALL | re.IGNORECASE,
)
# invisible ink: "\\phantom{\\boxed{5}}" (space of the size of the box, nothing shown), white on white
_INVISIBLE_GROUP = re.compile(
    r"\\(?:[hv]?phantom|textcolor\s*\{\s*(?:white|transparent)\s*\}|[bx]?cancel|sout|st|xout)\s*(?=\{)"
)
_COLOR_SWITCH = re.compile(r"\\color\s*\{\s*(?:white|transparent)\s*\}")
# the \\else branch of \\iftrue is never shown: "\\iftrue The answer is 7. \\else \\boxed{5} \\fi"
_IFTRUE_ELSE = re.compile(
    r"\\iftrue(?![A-Za-z])(?:(?!\\else(?![A-Za-z])|\\fi(?![A-Za-z])).){0,4000}?"
    r"(\\else(?![A-Za-z])(?:(?!\\fi(?![A-Za-z])).){0,4000})",
    re.DOTALL,
)


def _hide_invisible(text: str) -> str:
    """``text`` with what a reader never sees blanked (same length, so positions hold): HTML comments,
    ``\\iffalse ... \\fi``, comment environments, TeX ``%`` comments that hold a box, ``display:none``
    elements, struck-out text that holds a box (``\\cancel``, ``\\sout``, ``~~``, ``<del>``), and
    ``\\phantom`` / white ``\\textcolor`` groups or ``\\color{white}`` runs that hold a box. Linear: one brace
    map, one rebuild."""
    spans: list[tuple[int, int]] = []
    for m in _HIDDEN.finditer(text):
        if m.group().startswith(("%", "~~")) and not _BOX_START.search(m.group()):
            continue  # a "%" or a strike-through that holds no box: leave the text alone
        spans.append((m.start(), m.end()))
    if "\\iftrue" in text:
        spans.extend((m.start(1), m.end(1)) for m in _IFTRUE_ELSE.finditer(text))
    groups = list(_INVISIBLE_GROUP.finditer(text))
    if groups:
        closers = all_closers(text)
        for m in groups:
            close = closers.get(m.end())
            if close is not None and _BOX_START.search(text, m.end(), close):
                spans.append((m.start(), close + 1))
    for m in _COLOR_SWITCH.finditer(text):
        end = _group_end(text, m.end())
        if _BOX_START.search(text, m.end(), end):
            spans.append((m.start(), end))
    if not spans:
        return text
    spans.sort()
    out, pos = [], 0
    for a, b in spans:
        if b <= pos:
            continue
        a = max(a, pos)
        out.append(text[pos:a])
        out.append(" " * (b - a))
        pos = b
    out.append(text[pos:])
    return "".join(out)


_GROUP_SCAN = 2000  # how far a colour switch's group is looked for


def _group_end(text: str, start: int) -> int:
    """Where the group a switch such as ``\\color{white}`` acts in ends: the next closing brace, the end of
    the math or the end of the line, within :data:`_GROUP_SCAN` characters."""
    m = _GROUP_STOP.search(text, start, start + _GROUP_SCAN)
    return m.start() if m else min(len(text), start + _GROUP_SCAN)


_GROUP_STOP = re.compile(r"(?<!\\)[}$\n]")

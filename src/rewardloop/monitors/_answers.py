"""What the text monitors need to know about answers and prompts, without a verifier: when two written
answers are one value, which options a multiple-choice prompt offers, whether a prompt asks for every
solution, and how many parts it has. All linear scans over the text.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

__all__ = [
    "asks_for_all",
    "canonical",
    "mc_choice",
    "mc_options",
    "numeric_value",
    "prompt_parts",
    "same_value",
    "uncertain",
    "word_pieces",
]

# --- one value, written several ways --------------------------------------------------------------------

_DROP = re.compile(
    r"\\(?:left|right|displaystyle|textstyle|,|;|!|:|quad|qquad| )|\\(?:mathrm|text|mbox|mathbf|textbf)\s*(?=\{)"
    r"|\^\s*\{?\s*\\circ\s*\}?|°|\\?\$|\s+"
)
_INNER_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{([^{}]*)\}")
_FRAC = re.compile(r"\\[dt]?frac")
_OPTION_PREFIX = re.compile(r"^\(?([A-Ja-j])\)(?=.)|^([A-J])[.:．：、](?=.)")
_APPROX = re.compile(r"^(?:approximately|approx\.?|about|around|roughly|nearly|≈|\\approx|~|约|大约)", re.I)


def canonical(answer: str) -> str:
    """A written answer with its spelling dropped: spaces, ``$``, ``\\left``/``\\right``, thin spaces, ``\\dfrac``
    and ``\\tfrac`` (as ``\\frac``), degree signs, font wrappers (``\\text{}``, ``\\mathrm{}``: the braces stay),
    a trailing period, a leading option letter (``(d) 3``, ``D. 3``), boxes inside it, and all but the last side
    of an equation (``x = 5`` and ``180^\\circ - 90^\\circ = 90^\\circ`` are their right-hand sides; an
    inequality is kept whole)."""
    text = _INNER_BOX.sub(r"\1", answer.strip())
    if "=" in text:  # an equation chain "180 - 90 = 90", "x = 5": its last side is the value
        last = text.rsplit("=", 1)[1]
        if last.strip() and not re.search(r"[<>]|\\[lg]e", text):
            text = last
    text = _APPROX.sub("", text).strip()
    text = _FRAC.sub(r"\\frac", text)
    text = _DROP.sub("", text).rstrip(".。")
    text = _OPTION_PREFIX.sub("", text)
    return text.replace("{,}", "").replace("\\%", "%")


_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_PLAIN = re.compile(rf"({_NUM})(%?)")
_TEX_FRAC = re.compile(rf"([-+]?)(\d+)?\\frac\{{({_NUM})\}}\{{({_NUM})\}}(%?)")
_SLASH = re.compile(rf"({_NUM})/({_NUM})(%?)")


def numeric_value(answer: str) -> tuple[Fraction, int | None] | None:
    """The exact value of a plain number, fraction (``\\frac{a}{b}``, ``a/b``, mixed ``9\\frac{6}{7}``) or percent,
    after :func:`canonical`, with its count of decimals (None when not a decimal); None otherwise."""
    text = canonical(answer)
    m = _PLAIN.fullmatch(text)
    if m:
        value = Fraction(m.group(1))
        decimals = len(m.group(1).split(".", 1)[1]) if "." in m.group(1) else None
        return (value / 100 if m.group(2) else value), decimals
    m = _TEX_FRAC.fullmatch(text)
    if m:
        den = Fraction(m.group(4))
        if den == 0:
            return None
        value = Fraction(m.group(3)) / den + (Fraction(m.group(2)) if m.group(2) else 0)
        value = -value if m.group(1) == "-" else value
        return (value / 100 if m.group(5) else value), None
    m = _SLASH.fullmatch(text)
    if m and Fraction(m.group(2)) != 0:
        value = Fraction(m.group(1)) / Fraction(m.group(2))
        return (value / 100 if m.group(3) else value), None
    return None


def same_value(a: str, b: str) -> bool:
    """``a`` and ``b`` are one answer written two ways: equal after :func:`canonical`, or equal numbers (a decimal
    also equals a value it is the rounding of, to its own number of decimals: ``9999.857`` and ``9999\\frac67``;
    a percent equals its fraction: ``-1.9%`` and ``-0.019``)."""
    ca, cb = canonical(a), canonical(b)
    if ca == cb:
        return True
    va, vb = numeric_value(a), numeric_value(b)
    if va is None or vb is None:
        return False
    if va[0] == vb[0]:
        return True
    for (x, dx), (y, _) in ((va, vb), (vb, va)):
        if dx is not None and dx >= 2 and abs(x - y) <= Fraction(1, 2 * 10**dx):
            return True
    return False


# --- uncertainty: hedge words, in the languages the monitors read -----------------------------------------

_UNCERTAIN = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|might|could\s+(?:also\s+)?be|not\s+sure|unsure|i\s+(?:think|guess)"
    r"|alternatively|or\s+else)\b|也许|或许|可能|大概",
    re.IGNORECASE,
)


def uncertain(text: str) -> bool:
    """``text`` has a hedge word (maybe, perhaps, probably, I think, 也许, 可能, ...)."""
    return _UNCERTAIN.search(text) is not None


# --- what the prompt asks for -----------------------------------------------------------------------------

_ALL = re.compile(
    r"\b(?:find|determine|list|give|compute|enumerate|describe|what\s+are)\s+(?:\w+\s+){0,2}?(?:all|every|each)\b"
    r"|\bvalues\s+of\b|\ball\s+(?:possible|real|integer|positive|negative|complex|rational|prime|the\s+)?\s*"
    r"(?:values?|solutions?|roots?|functions?|pairs?|triples?|numbers?|integers?|reals?|x|n|zeros?|points?)\b"
    r"|所有|全部|一切|哪些",
    re.IGNORECASE,
)


def asks_for_all(prompt: str) -> bool:
    """The prompt asks for every solution ("find all functions", "all possible values", 求所有 ...): several
    answers are the answer, not a hedge."""
    return _ALL.search(prompt) is not None


_PART = re.compile(
    r"(?:^|[\s:：.。;；])[(（]\s*(?:([1-9])|(I{1,3}|IV|V|VI{0,3})|([a-h]))\s*[)）]|[①②③④⑤⑥⑦⑧]"
    r"|\b[Pp]art\s*\(?([a-h1-9])\)?"
)
_BLANK = re.compile(r"_{3,}|\\underline\{\s*(?:\\quad|\\qquad|~|\s)*\}|（\s*）|\(\s*\\quad\s*\)")


def prompt_parts(prompt: str) -> int:
    """How many answers the prompt asks for: its numbered parts ((1) (2), (I) (II), (a) (b), ①②) or blanks to
    fill, at least 1."""
    labels = {m.group(0).strip(" \t\n:：.。;；") for m in _PART.finditer(prompt)}
    blanks = len(_BLANK.findall(prompt))
    return max(1, len(labels), blanks)


# --- multiple choice --------------------------------------------------------------------------------------

_OPTION = re.compile(r"(?:^|(?<=[\s(（]))[(（]?([A-J])\s*(?:[)）.．、:：]|\s(?=\S))\s*", re.MULTILINE)


def mc_options(prompt: str) -> dict[str, str]:
    """The options a multiple-choice prompt offers, letter -> content (``A. $(0,2)$``, ``(B) Kyoto``, ``C．...``),
    found as a run of consecutive letters from A (at least A and B); {} when the prompt has none."""
    found: list[tuple[str, int, int]] = []
    expect = "A"
    for m in _OPTION.finditer(prompt):
        letter = m.group(1).upper()
        if letter == "A" and expect != "A" and len(found) < 2:
            found, expect = [], "A"  # a stray "A" earlier in the question: start again
        if letter == expect:
            found.append((letter, m.start(), m.end()))
            expect = chr(ord(expect) + 1)
    if len(found) < 2:
        return {}
    options = {}
    for k, (letter, _, end) in enumerate(found):
        stop = found[k + 1][1] if k + 1 < len(found) else len(prompt)
        content = prompt[end:stop].split("\n", 1)[0].strip().rstrip(",;；，")
        options[letter] = content
    return options


_CHOOSE = re.compile(r"^(?:选|故选|答案|answer|option|choice)\s*[:：]?\s*", re.IGNORECASE)


def mc_choice(answer: str, options: dict[str, str]) -> set[str] | None:
    """The option letters ``answer`` names (``(D)``, ``D``, ``D. {0,1,2}``, ``AC``, ``A 和 C``, ``Kyoto`` for the option
    "Kyoto"), or None when it names none of ``options``."""
    if not options:
        return None
    text = _CHOOSE.sub("", answer.strip().strip("$").strip()).strip().rstrip(".。")
    compact = re.sub(r"[\s,，、.．;；]|and|和|与|及|&|\(|\)|（|）", "", text)
    if compact and len(compact) <= len(options) and all(c in options for c in compact):
        return set(compact)
    m = _OPTION_PREFIX.match(text) or re.fullmatch(r"[(（]?([A-J])[)）]?", text)
    if m:
        letter = next(g for g in m.groups() if g).upper()
        if letter in options:
            return {letter}  # "D", "(D)", "D. {0,1,2}", or a letter and some working ("D. since ...")
    wanted = canonical(text)
    if wanted:
        hits = {k for k, v in options.items() if canonical(v) == wanted}
        if hits:
            return hits
    return None


# --- words of every script --------------------------------------------------------------------------------

_ASCII_SEP = set("\"'`,.;:()[]{}<>")
_NUMBER = re.compile(r"[-+]?[\d.,/%]+")
_MATH = re.compile(r"[\\=^+*/<>|$]")
_VOWELS = set("aeiouyAEIOUY")
_EDGE = "\"'`.,;:!?()[]{}<>*_~"
_OK_SYMBOLS = set("°′″℃℉‰·×÷±−–—…")


def _ascii_piece(core: str) -> bool:
    core = core.strip(_EDGE)
    if not core:
        return True
    if _NUMBER.fullmatch(core) or _MATH.search(core):
        return True
    core = core.replace("'", "").replace("-", "")
    if not core.isalpha():
        return False
    return len(core) <= 4 or any(c in _VOWELS for c in core)


def _other_piece(piece: str) -> bool:
    core = piece.strip(_EDGE)
    if not core or core.isascii():
        return _ascii_piece(core)
    cats = [unicodedata.category(ch) for ch in core]
    if _MATH.search(core) or "Sm" in cats:
        return True  # math: x²≤y, 2×3
    letters = any(c[0] == "L" for c in cats)
    digits = any(c[0] == "N" for c in cats)
    allowed = all(c[0] in "LMN" or c == "Sc" or ch in _OK_SYMBOLS for c, ch in zip(cats, core, strict=True))
    return allowed and not (letters and digits)  # letters, or a number with its unit sign; not "ж0ξ0ж"


def _spaceless(ch: str) -> bool:
    """A character of a script written without spaces between words (Han, kana, Thai, Lao, Myanmar, Khmer)."""
    o = ord(ch)
    return (
        0x2E80 <= o <= 0x9FFF
        or 0xF900 <= o <= 0xFAFF
        or 0x0E00 <= o <= 0x0EFF
        or 0x1000 <= o <= 0x109F
        or 0x1780 <= o <= 0x17FF
        or 0x20000 <= o <= 0x3FFFF
    )


def word_pieces(token: str) -> list[bool]:
    """Whether each piece of a whitespace token is a word (of any script), a number or math.

    An ASCII token is one piece (a number, math, letters; an ASCII word over 4 letters needs a vowel, so
    ``p@@q`` and ``wqrtzp`` are not words). A token with other characters (a Chinese sentence with quoted
    English, ``选项A"was``) is split at its punctuation (``，。、“”【】``, ASCII quotes and brackets) and where a
    script written without spaces (Han, kana, Thai, ...) meets another; ASCII pieces follow the ASCII rule,
    other pieces must be math, letters, or digits with unit signs, not letters and digits mixed (so ``☃#☃``
    and ``ж0ξ0ж`` are not words in any script)."""
    if token.isascii():
        return [_ascii_piece(token)]
    pieces: list[str] = []
    cur: list[str] = []
    run: bool | None = None  # whether the current piece is of a script written without spaces
    for ch in token:
        sep = ch in _ASCII_SEP if ch < "\x80" else unicodedata.category(ch)[0] in "PZ"
        spaceless = _spaceless(ch)
        if sep or (run is not None and spaceless != run):
            if cur:
                pieces.append("".join(cur))
            cur, run = [], None
            if sep:
                continue
        cur.append(ch)
        run = spaceless
    if cur:
        pieces.append("".join(cur))
    return [_other_piece(p) for p in pieces] or [True]

"""What a reader of a math response actually sees, before any answer is looked for. Linear time; never raises.

:func:`reader_view` maps the answer region of a response to the text a reader sees, and names a rule when the
response cannot be read at face value (math_equiv then scores it 0 under that rule: ``info["rule"]``, shown by
``explain``). The principle (docs/math-verifier.md, "What the verifier reads"):

* **Refused (fail closed)**: constructs that can make the rendered text differ from the written text and that a
  math answer has no use for. A policy that emits them is not graded, whatever they hold; there is no list of
  hiding tricks to keep complete, because anything not on a short allowlist of visible forms is refused.

  - ``hidden_content``: HTML elements whose content is not shown (``<style>``, ``<script>``, ``<title>``,
    ``<noscript>``, ``<noembed>``, ``<template>``, ``<textarea>``, ``<input>``, ``<svg>``, ``<bdo>``, MathML
    ``<annotation>`` ...); an HTML attribute that hides or reorders (``hidden``, ``aria-hidden``, ``inert``,
    ``class``, ``dir``) on any element; a ``style`` with any declaration outside a small allowlist (colour,
    background, font weight/style/family, a font size, margins/padding/borders up to 50em, ``vertical-align``
    up to 2em, ``display`` other than ``none``), entity-encoded or not; a colour that cannot be evaluated
    (``\\definecolor``, ``hsl()``, an unknown name), ``\\transparent``; scaling below 0.5 or above 10,
    ``\\resizebox``, ``\\reflectbox``, ``\\rotatebox``, a raise beyond 2em, a font size below 5pt; beamer overlays
    (``\\only``, ``\\onslide``, ``\\uncover``, ``\\invisible`` ...) and ``\\mathchoice``; an environment outside
    the usual math/text ones (``verbatim``, ``lstlisting``, a custom ``hide``). Judged where the text is, along
    its nesting path (:func:`_check_scopes`): visible text whose colour has contrast below 3:1 with the
    background it is drawn on (the innermost ``\\colorbox``/``\\fcolorbox``/``\\pagecolor``/CSS background/
    ``<mark>``, white by default; the innermost text colour, black by default; TeX and HTML alike), whose size
    is below half the normal one (``\\scalebox``, relative font sizes, ``<small>``/``<sub>``/``<sup>``
    multiplied since the innermost absolute size), or raised by more than 2em in total; horizontal spaces
    summed along a line that go back more than 2em or forward more than 50em (:func:`_check_horizontal`).
  - ``tex_conditional``: any TeX conditional other than ``\\iftrue`` / ``\\iffalse`` (whose shown branch is
    known and kept), ``\\unless``, an ``\\else`` / ``\\fi`` / ``\\or`` without its ``\\if``, an unclosed one.
  - ``tex_redefinition``: ``\\def`` / ``\\newcommand`` / ``\\renewcommand`` / ``\\DeclareMathOperator`` ... of a
    name used anywhere else in the region (an unused definition renders nothing and is blanked), ``\\let``,
    ``\\catcode``, ``\\mathcode``, ``\\mathchardef``, ``\\csname``, ``\\expandafter``, ``\\everymath``, any
    control sequence with ``@`` (``\\@gobble``, ``\\makeatletter``).
  - ``tex_literal``: text shown as something else than written: ``\\char``, ``\\mathchar``, ``\\symbol``,
    ``\\unicode``, ``\\string``, ``\\detokenize``, ``\\verb``.
  - ``bidi_override``: U+202A..U+202E (embeddings and overrides: "75" can show as "57"); an isolate
    (U+2066..U+2068) holding more than a bare number ("(2, 5)" shows "(5 ,2)"); a right-to-left mark that is
    not next to a right-to-left letter.
  - ``combining_mark``: a combining mark on a digit (``5\\u0336`` shows a struck-out 5).
  - ``unbalanced_braces``: a box whose ``{`` never closes (``\\boxed{5} but really \\boxed{7``,
    ``\\boxed{7\\}``; a box cut off by the token budget).

* **Blanked or normalised (the text a reader sees)**: HTML character references (``&#119;``, ``&cross;``) are
  decoded first, everywhere; invisible format characters (Unicode Cf: zero-width space/joiners, word joiner,
  BOM, soft hyphen, bare-number isolates, tag characters) are removed, so ``5\\u200b7`` reads 57; HTML comments
  and bogus comments (``<!DOCTYPE``, ``<![CDATA[``, ``<?``), a closed ``<details>`` but its summary, all text
  after ``\\end{document}`` / ``\\endinput`` / ``\\bye`` / ``\\stop``, TeX ``%`` comments holding an answer,
  ``comment`` environments, zero-width ``\\rule`` struts, the untaken branch of ``\\iftrue``/``\\iffalse``,
  arguments never typeset (``\\phantom``, ``\\label``, ``\\index``, ``\\ref``/``\\cite`` keys, ``\\href``
  targets), HTML attribute values (``alt``, ``title``, ``value``), markdown link destinations, image alt texts
  and link reference definitions, unused macro definitions, and struck-out text holding a box are blanked;
  ``\\rlap``/``\\llap`` over blank space are unwrapped; every word written with look-alike letters (Unicode's
  confusables, UTS #39, and NFKC: :mod:`._confusables`) reads as the ASCII word it shows ("Аnswer" is
  "Answer", "wrоng" is "wrong"; see :func:`_folds`); box commands a reader sees as a box become
  ``\\boxed{...}`` (``\\boxed5``,
  ``\\boxed {5}``, ``\\framebox``, ``\\bbox``, ``\\Aboxed``, ``\\fcolorbox``) and font wrappers that show
  their argument as is are unwrapped (``\\bm``, ``\\pmb``, ``\\texttt``, ``\\emph``, ``\\hbox``,
  ``\\ensuremath``, ``\\num``). Box commands are rewritten only after the hidden parts are blanked or refused,
  so a box inside hidden text stays hidden.
"""

from __future__ import annotations

import bisect
import html
import itertools
import re
import unicodedata
from typing import Any, NamedTuple

from ._confusables import CONFUSABLE_LETTERS, LATIN_OF
from ._latex import LocalClosers, all_closers

__all__ = ["REFUSAL_RULES", "reader_view", "redefinition"]

#: the rules :func:`reader_view` refuses a response under (``info["rule"]`` of its verdict), and why
REFUSAL_RULES = {
    "hidden_content": "the response hides text from its reader (a hiding element, style, colour, size or overlay)",
    "tex_conditional": "a TeX conditional decides what is shown",
    "tex_redefinition": "the response redefines TeX (a macro that is used, \\let, catcodes, mathcodes)",
    "tex_literal": "TeX shows something other than what is written (\\char, \\string, \\verb ...)",
    "unknown_environment": "an environment outside the usual math and text ones",
    "bidi_override": "a bidi control reorders what is shown (an override, an embedding, an isolate, a mark)",
    "combining_mark": "a combining mark changes how a digit looks",
    "unbalanced_braces": "a box never closes: its extent is not what a reader sees",
}

_BOX_START = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


class _Refused(Exception):
    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


def reader_view(text: str) -> tuple[str, str]:
    """``(seen, refusal)``: the text a reader of ``text`` sees, and the name of the rule that refuses the
    response ("" when it is read). See the module docstring for what is refused and what is normalised."""
    try:
        if "&" in text:
            text = _decode_references(text)
        if not text.isascii():
            text = _unicode_view(text)
        if _TRIGGER.search(text):
            text = _markup_view(text)
        if _BOX_CMD.search(text):
            text = _boxes_view(text)
        _check_braces(text)
    except _Refused as refused:
        return text, refused.rule
    return text, ""


# ---------------------------------------------------------------------------------------------------------
# characters

_OVERRIDE = re.compile("[\u202a-\u202e]")
_MARKED_DIGIT = re.compile("[0-9][\u0300-\u036f\u1ab0-\u1aff\u20d0-\u20ff]")
# Cf characters that render as nothing (the visible Cf ones, e.g. the Arabic number signs, are kept)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u180e\u200b-\u200f\u2060-\u2064\u2066-\u206f\ufeff\U000e0000-\U000e007f]"
)
_BLANK_LETTERS = re.compile("[\u115f\u1160\u3164\uffa0\u2800]")  # letters that render as blank space
# letters that may fold to ASCII: Unicode's look-alikes of Latin letters (UTS #39, see _confusables), full-width
# Latin, letterlike symbols and mathematical alphanumerics (NFKC folds those)
_SUSPECT = re.compile(
    "["
    + "".join(sorted(CONFUSABLE_LETTERS)).replace("\\", "\\\\").replace("]", "\\]").replace("-", "\\-")
    + "\uff21-\uff3a\uff41-\uff5a\u2100-\u214f\U0001d400-\U0001d7ff]"
)
_WIDE_COLON = re.compile("[ \t]*\uff1a")
_MAX_WORD = 40  # letters of the longest word folded
# a word all of look-alikes folds when it has at least this many letters (a lone "\u03b1" stays)
_MIN_SAME_SCRIPT = 3
# lower-case Greek letters used as math symbols (they have a TeX name; omicron, which has none, is not one)
_MATH_GREEK = frozenset(
    "\u03b1\u03b2\u03b3\u03b4\u03b5\u03b6\u03b7\u03b8\u03b9\u03ba\u03bb\u03bc\u03bd\u03be\u03c0\u03c1\u03c2\u03c3\u03c4\u03c5\u03c6\u03c7\u03c8\u03c9\u03d1\u03d5\u03d6\u03f1\u03f5"
)
_MIN_MIXED_WITH_MATH_GREEK = 5  # letters: "\u03c1gh" stays, "inv\u03b1lid" folds


def _skeleton(word: str) -> str:
    return unicodedata.normalize("NFKC", word).translate(LATIN_OF)


def _folds(word: str) -> str | None:
    """The ASCII word ``word`` LOOKS like, or None when it reads as itself. Folded: a word NFKC writes in ASCII
    (full-width, mathematical bold), a word mixing ASCII letters with look-alikes ("wr\u043eng"), a word of at
    least three look-alike letters ("\u13b3\u13a1\u13be\u13c1\u13c0"). Kept: a word of fewer than five letters
    with a Greek math letter (``\u03c1gh``, ``\u03c1Sv_0``: a formula), a lone Greek letter (``\\boxed{\u03b1}``),
    a word with any letter that looks like no ASCII letter ("\u041e\u0442\u0432\u0435\u0442")."""
    folded = _skeleton(word)
    if not folded.isascii():
        return None
    if unicodedata.normalize("NFKC", word).isascii():
        return folded
    if len(word) < _MIN_MIXED_WITH_MATH_GREEK and any(c in _MATH_GREEK for c in word):
        return None  # a Greek letter that is a math symbol keeps its reading in a short formula ("\u03c1gh")
    if any(c.isascii() for c in word):
        return folded
    return folded if len(word) >= _MIN_SAME_SCRIPT else None


def _fold_markers(text: str) -> str:
    """Every word written with look-alike letters reads as the ASCII word it shows ("\u0410nswer" is
    "Answer", "wr\u043eng" is "wrong", and a full-width colon after one is a colon); other words are left alone
    (Russian, Greek and Chinese text stay as written). Linear: each suspect letter's word is looked at once, at
    most :data:`_MAX_WORD` letters each side."""
    folds: list[tuple[int, int, str]] = []
    end = 0
    for m in _SUSPECT.finditer(text):
        if m.start() < end:
            continue  # in the word just looked at
        a, b = m.start(), m.end()
        while a > end and m.start() - a <= _MAX_WORD and text[a - 1].isalpha():
            a -= 1
        while b < len(text) and b - m.end() <= _MAX_WORD and text[b].isalpha():
            b += 1
        end = b
        folded = _folds(text[a:b]) if b - a <= _MAX_WORD else None
        if folded is not None:
            colon = _WIDE_COLON.match(text, b)
            if colon:
                folded, end = folded + ":", colon.end()
            folds.append((a, end, folded))
    if not folds:
        return text
    out, pos = [], 0
    for a, b, folded in folds:
        out.append(text[pos:a])
        out.append(folded)
        pos = b
    out.append(text[pos:])
    return "".join(out)


# character references a browser shows as their character (always with their ";": "&amp" in a TeX table stays)
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _decode_references(text: str) -> str:
    """``&#119;``, ``&#x77;``, ``&cross;`` read as the characters they show, everywhere (a denial, a marker, a
    digit, a bidi control written as a reference is that character); an unknown name stays as written."""
    return _REFERENCE.sub(lambda m: html.unescape(m.group()), text) if "&" in text else text


# bidi isolates (U+2066..U+2068 ... U+2069) reorder their content as a unit: "(2, 5)" in a right-to-left isolate
# shows "(5 ,2)"; a bare number keeps its digit order in any direction
_ISOLATE = re.compile("[\u2066-\u2068]([^\u2066-\u2069]*)(?:\u2069|$)")
_SAFE_ISOLATED = re.compile(r"\s*(?:[0-9]+(?:[.,][0-9]+)*)?\s*")
_RTL_MARK = re.compile("[\u200f\u061c]")
_RTL_LETTER = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def _check_bidi(text: str) -> None:
    """Refuse a bidi control that can reorder what a reader sees: an override or embedding (U+202A..U+202E), an
    isolate holding more than a bare number, a right-to-left mark that is not next to a right-to-left letter (its
    use: after an Arabic or Hebrew word; elsewhere it turns neutrals and digits around). Arabic and Hebrew text,
    with or without its marks, is read."""
    if _OVERRIDE.search(text):
        raise _Refused("bidi_override")
    if max(text) >= "\u2066" and any(
        not _SAFE_ISOLATED.fullmatch(m.group(1)) for m in _ISOLATE.finditer(text)
    ):
        raise _Refused("bidi_override")
    for m in _RTL_MARK.finditer(text):
        before = text[max(0, m.start() - 8) : m.start()].rstrip(" \u200e\u200f\u061c")
        after = text[m.end() : m.end() + 8].lstrip(" \u200e\u200f\u061c")
        if not (_RTL_LETTER.match(before[-1:]) or _RTL_LETTER.match(after[:1])):
            raise _Refused("bidi_override")  # a mark between neutrals and digits reorders them


def _unicode_view(text: str) -> str:
    _check_bidi(text)
    if _MARKED_DIGIT.search(text):
        raise _Refused("combining_mark")
    text = _INVISIBLE.sub("", text)
    text = _BLANK_LETTERS.sub(" ", text)
    if not text.isascii() and _SUSPECT.search(text):
        text = _fold_markers(text)
    return text


# ---------------------------------------------------------------------------------------------------------
# markup: HTML, markdown, TeX

_TRIGGER = re.compile(
    r"<[A-Za-z!/?]|\]\(|\]:|%|~~"
    r"|\\(?:[A-Za-z]*@|[egx]?def|let|futurelet|new|renew|provide|Declare|New|Renew|Provide|math(?:code|char|choice)"
    r"|catcode|lccode|uccode|sfcode|delcode|chardef|countdef|dimendef|skipdef|toksdef|char|csname|expandafter"
    r"|noexpand|string|detokenize|meaning|scantokens|every|AtBegin|after|input|include|global|uppercase|lowercase"
    r"|unicode|symbol|verb|if|If|unless|else|fi|or(?![A-Za-z])|color|textcolor|mathcolor|colorbox|fcolorbox"
    r"|pagecolor|definecolor|colorlet|providecolor|transparent|texttransparent|[hv]?phantom|scalebox|resizebox"
    r"|raisebox|reflectbox|rotatebox|hspace|vspace|kern|mkern|hskip|vskip|mskip|moveleft|moveright|raise|lower"
    r"|fontsize|only|onslide|uncover|invisible|visible|alt(?![A-Za-z])|temporal|begin|[bx]?cancel|sout|st\b|xout"
    r"|makeat|label|index|ref|eqref|pageref|autoref|cref|Cref|cite|nocite|glossary|href|hyperlink|hypertarget|write"
    r"|immediate|message|typeout|special|openout|closeout|pdfcomment|tooltip|end(?![A-Za-z])|endinput|bye|stop|dump"
    r"|tiny|scriptsize|footnotesize|small|normalsize|scriptstyle|scriptscriptstyle|llap|rlap|mathllap|mathrlap|rule"
    r"|!|quad|qquad|neg)"
)


def _markup_view(text: str) -> str:
    text = _blank_comments(text)
    scopes: list[_Scope] = []  # colours, scales and raises with the text they apply to, judged together below
    if "\\" in text:
        text = _tex_end(text)
        text = _conditionals(text)
        text = _definitions(text)
        text = _check_tex(text, scopes)
        text = _blank_phantoms(text)
        text = _laps(text)
    if "<" in text:
        text = _html(text, scopes)
    if "](" in text or "]:" in text:
        text = _markdown(text)
    if scopes:
        _check_scopes(text, scopes)
    return text


# --- what a reader sees where: colour against the effective background, size and raise along the nesting path


class _Scope(NamedTuple):
    """A colour (``fg``/``bg``, RGB), a relative or absolute size (``rel``/``abs``, a factor of the normal size)
    or a vertical shift (``raise``, em) applying to ``text[start:end]``."""

    start: int
    end: int
    kind: str
    value: Any


_MAX_SCOPES = 400  # more colour/size/raise constructs than any real response has: refused (fail closed)
_MIN_SCALE = 0.5  # the smallest size a reader reads: half the normal size (``\\tiny``, ``font-size:.5em``)
_MAX_SCALE = 10.0
_MAX_RAISE = 2.0  # em: farther up or down is off the line, over other text
_CONTROL_WORD = re.compile(r"\\[A-Za-z]+\*?|</?[A-Za-z][^<>]*>")
_INK = re.compile(r"[^\s{}$&^_\\]")


def _check_scopes(text: str, scopes: list[_Scope]) -> None:
    """Refuse when some visible text is shown in a colour of contrast below 3:1 with the background it is drawn
    on (the innermost ``\\colorbox``/``\\fcolorbox``/``\\pagecolor``/CSS background around it, white by
    default; against the innermost text colour, black by default), at a size below half the normal one (every
    ``\\scalebox``, relative font size, ``<small>``/``<sub>``/``<sup>`` multiplied along the nesting path since the
    innermost absolute size), or raised or lowered by more than 2em in total."""
    if len(scopes) > _MAX_SCOPES:
        raise _Refused("hidden_content")
    bounds = sorted({0, len(text)} | {sc.start for sc in scopes} | {sc.end for sc in scopes})
    for a, b in itertools.pairwise(bounds):
        if not _INK.search(_CONTROL_WORD.sub(" ", text[a:b])):
            continue
        active = sorted((sc for sc in scopes if sc.start <= a and b <= sc.end), key=lambda sc: sc.start)
        fg, bg, scale, shift = _BLACK, _WHITE, 1.0, 0.0
        for sc in active:  # outermost first
            if sc.kind == "fg":
                fg = sc.value
            elif sc.kind == "bg":
                bg = sc.value
            elif sc.kind == "abs":
                scale = sc.value
            elif sc.kind == "rel":
                scale *= sc.value
            else:
                shift += sc.value
        if _contrast(fg, bg) < _MIN_CONTRAST or not _MIN_SCALE - 1e-9 <= scale <= _MAX_SCALE:
            raise _Refused("hidden_content")
        if abs(shift) > _MAX_RAISE + 1e-9:
            raise _Refused("hidden_content")


class _Groups:
    """Where a declaration at a position (``\\color{red}``, ``\\tiny``) stops applying: the end of its group
    (a ``}``, an ``\\end``), or of its formula when it is inside one (a TeX group spans paragraphs, and a formula
    opened after the declaration inherits it). The stops are found once per text; a query is a bisection."""

    def __init__(self, text: str, closers: dict[int, int]) -> None:
        self.text, self.closers = text, closers
        self._stops: list[int] | None = None  # found on the first query
        self._in_text: list[int] = []  # per stop: where a declaration just before it stops, outside a formula
        self._in_math: list[int] = []  # the same inside a formula
        self._math: list[tuple[int, int]] = []  # the formulas' spans

    def end(self, pos: int) -> int:
        stops = self._stops if self._stops is not None else self._index()
        i = bisect.bisect_left(stops, pos)
        if i == len(stops):
            return len(self.text)
        j = bisect.bisect_right(self._math, (pos, len(self.text) + 1)) - 1
        inside = j >= 0 and self._math[j][0] < pos < self._math[j][1]
        return (self._in_math if inside else self._in_text)[i]

    def _index(self) -> list[int]:
        found = list(_GROUP_STOP.finditer(self.text))
        stops = [m.start() for m in found]
        n = len(self.text)
        for answer, math_ends in ((self._in_text, False), (self._in_math, True)):
            answer.extend([n] * len(stops))
            for i in range(
                len(stops) - 1, -1, -1
            ):  # right to left: a group's answer is the one after its close
                token = found[i].group()
                if token != "{":
                    if math_ends or token == "}" or token.startswith("\\end"):
                        answer[i] = stops[i]
                    else:
                        answer[i] = answer[i + 1] if i + 1 < len(stops) else n
                    continue
                close = self.closers.get(stops[i])
                if close is None:
                    continue  # an unclosed group: to the end
                k = bisect.bisect_right(stops, close)
                answer[i] = answer[k] if k < len(stops) else n
        self._math = [(m.start(), m.end()) for m in _MATH_SPAN.finditer(self.text)]
        self._stops = stops
        return stops


_GROUP_STOP = re.compile(r"[{}]|(?<!\\)\$|\\[)\]]|\\end(?![A-Za-z])")
_MATH_SPAN = re.compile(r"\$\$.*?\$\$|(?<!\\)\$(?!\$)[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)


def _argument(text: str, pos: int, closers: dict[int, int]) -> tuple[int, int] | None:
    """The brace group starting at ``pos`` (after spaces): its ``{`` and ``}`` positions."""
    while pos < len(text) and text[pos] in " \t\n":
        pos += 1
    if pos < len(text) and text[pos] == "{" and pos in closers:
        return pos, closers[pos]
    return None


# --- text after the end of the TeX document is never typeset

_TEX_END = re.compile(
    r"\\(?:end\s*\{\s*document\s*\}|(?:endinput|bye|stop|dump)(?![A-Za-z@])|end(?![A-Za-z@])(?!\s*\{))"
)


def _tex_end(text: str) -> str:
    """Blank what follows ``\\end{document}``, ``\\endinput``, ``\\bye``, ``\\stop``, ``\\dump`` or a bare
    ``\\end``: TeX stops reading there, nothing after it is shown."""
    m = _TEX_END.search(text)
    return text if m is None else _blank(text, [(m.start(), len(text))])


# --- overlaps: \\rlap{X} / \\llap{X} show X over what follows / precedes it

_LAP = re.compile(r"\\(?:math)?([rl])lap(?![A-Za-z@])\s*")
_STRUT = re.compile(
    r"\\rule\s*(?:\[[^\[\]{}]*\]\s*)?\{\s*0+(?:\.0*)?\s*(?:pt|em|ex|mm|cm|in|bp|px|mu)?\s*\}\s*\{[^{}]*\}"
)


def _laps(text: str) -> str:
    """A zero-width ``\\rule`` (a strut) shows nothing: blanked. ``\\rlap{X}`` / ``\\llap{X}`` whose
    overlapped side is blank (a phantom, a space, the end of the formula) shows X as written: unwrapped. A lap
    over ink is left as written (the box is then bound to what covers it, and read as that)."""
    if "rule" in text:
        text = _blank(text, [(m.start(), m.end()) for m in _STRUT.finditer(text)])
    if "lap" not in text or not _LAP.search(text):
        return text
    closers = all_closers(text)
    spans: list[tuple[int, int]] = []
    for m in _LAP.finditer(text):
        arg = _argument(text, m.end(), closers)
        if arg is None:
            continue
        side = (
            text[arg[1] + 1 : arg[1] + 40] if m.group(1) == "r" else text[max(0, m.start() - 40) : m.start()]
        )
        side = side.lstrip() if m.group(1) == "r" else side.rstrip()
        if m.group(1) == "r":
            blank_side = side == "" or side[0] in "$)]}" or side.startswith(("\\)", "\\]", "\\\\"))
        else:
            blank_side = side == "" or side[-1] in "$([{" or side.endswith(("\\(", "\\["))
        if blank_side:
            spans.extend(((m.start(), arg[0] + 1), (arg[1], arg[1] + 1)))
    return _blank(text, spans)


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span replaced by spaces (positions hold)."""
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


# --- comments and struck-out text (shown as nothing, or taken back)

_COMMENTS = re.compile(
    r"<!--.*?(?:-->|\Z)"  # an HTML comment (unclosed: to the end)
    r"|<[!?][^>]*(?:>|\Z)"  # a bogus comment: a doctype, CDATA outside foreign content, a processing instruction
    r"|\\begin\{comment\*?\}.*?(?:\\end\{comment\*?\}|\Z)",
    re.DOTALL,
)
_STRUCK = re.compile(
    r"<(del|s|strike)>.*?(?:</\1\s*>|\Z)"  # struck out: taken back
    r"|~~(?=\S)(?:(?!~~).){1,2000}?~~",
    re.DOTALL | re.IGNORECASE,
)
_TEX_COMMENT = re.compile(r"%[^\n]*")
_ANSWERISH = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])|(?i:answer)")
_STRUCK_GROUP = re.compile(r"\\(?:[bx]?cancel|sout|st|xout)\s*(?=\{)")


def _blank_comments(text: str) -> str:
    """Blank HTML comments, comment environments, TeX ``%`` comments that hold an answer (never "50%", "50 %" or
    "\\%"), and struck-out text that holds an answer. Each pattern runs only when its opener is present."""
    spans: list[tuple[int, int]] = []
    if "<!" in text or "<?" in text or "\\begin{comment" in text:
        spans.extend((m.start(), m.end()) for m in _COMMENTS.finditer(text))
    if "~~" in text or "<" in text:
        for m in _STRUCK.finditer(text):
            if _ANSWERISH.search(m.group()):
                spans.append((m.start(), m.end()))
    if "%" in text:
        for m in _TEX_COMMENT.finditer(text):
            i = m.start()
            before = text[i - 1 : i] if i else ""
            if before == "\\" or before.isdigit() or (before.isspace() and text[i - 2 : i - 1].isdigit()):
                continue
            if _ANSWERISH.search(m.group()):
                spans.append((m.start(), m.end()))
    if "\\" in text and _STRUCK_GROUP.search(text):
        closers = all_closers(text)
        for m in _STRUCK_GROUP.finditer(text):
            close = closers.get(m.end())
            if close is not None and _BOX_START.search(text, m.end(), close):
                spans.append((m.start(), close + 1))
    return _blank(text, spans)


# --- TeX conditionals

_COND = re.compile(r"\\(if(?!f(?![A-Za-z@]))[A-Za-z@]*|If[A-Z][A-Za-z]*|unless|else|fi|or)(?![A-Za-z@])")


def _conditionals(text: str) -> str:
    """Blank the branches of ``\\iftrue`` / ``\\iffalse`` that are never shown; refuse every other
    conditional (its shown branch depends on state the verifier does not evaluate)."""
    if not _COND.search(text):
        return text
    stack: list[bool] = []  # per open conditional: whether the current branch is shown
    spans: list[tuple[int, int]] = []
    hidden_from = -1
    for m in _COND.finditer(text):
        word = m.group(1)
        shown_before = all(stack)
        if word in ("iftrue", "iffalse"):
            stack.append(word == "iftrue")
        elif word == "else" and stack:
            stack[-1] = not stack[-1]
        elif word == "fi" and stack:
            stack.pop()
        else:
            raise _Refused("tex_conditional")
        shown_after = all(stack)
        if shown_before and not shown_after:
            hidden_from = m.start()
        elif not shown_before and shown_after:
            spans.append((hidden_from, m.end()))
        if shown_before and shown_after:
            spans.append((m.start(), m.end()))  # the control word itself shows nothing
    if stack:
        raise _Refused("tex_conditional")  # never closed
    return _blank(text, spans)


# --- TeX definitions and primitives

_DEFINING = re.compile(
    r"\\(?P<cmd>[egx]?def|(?:re)?newcommand|providecommand|DeclareRobustCommand|DeclareMathOperator"
    r"|(?:New|Renew|Provide|Declare)DocumentCommand)(?![A-Za-z@])\*?"
)
_DEF_NAME = re.compile(r"\s*(?:\{\s*(\\[A-Za-z]+)\s*\}|(\\[A-Za-z]+))")
_DEF_PARAMS = re.compile(r"(?:\s*\[[^\[\]{}]{0,40}\])*\s*")  # \newcommand{\x}[1][default]
_DEF_DELIMITED = re.compile(r"[^{}\\]{0,60}")  # \def\x#1.{...}
_DOC_SPEC = re.compile(r"\s*\{[^{}]{0,60}\}")  # \NewDocumentCommand{\x}{m}{...}
_PRIMITIVE = re.compile(
    r"\\(?:[A-Za-z]*@[A-Za-z@]*|let|futurelet|mathcode|catcode|lccode|uccode|sfcode|delcode|mathchardef|chardef"
    r"|countdef|dimendef|skipdef|toksdef|csname|expandafter|noexpand|every(?:math|display|par|hbox|vbox|cr|job)"
    r"|AtBeginDocument|AtEndDocument|aftergroup|afterassignment|input|include|global|uppercase|lowercase"
    r"|(?:re)?newenvironment|makeatletter|makeatother|scantokens|write|immediate|message|typeout|special|openout"
    r"|closeout|pdfcomment|tooltip)(?![A-Za-z@])"
)
_LITERAL = re.compile(r"\\(?:char|mathchar|symbol|unicode|string|detokenize|meaning|verb)(?![A-Za-z@])")


_LET = re.compile(r"\\(?:futurelet|let)\s*(\\[A-Za-z@]+)")
_ALWAYS_REFUSED = re.compile(r"\\(catcode|DeclareRobustCommand|(?:re)?newenvironment)(?![A-Za-z@])")
_DEFINES = re.compile(r"\\(?:[egx]?def|let|futurelet|(?:re)?new|provide|Declare|New|Renew|Provide|catcode)")


def _used_elsewhere(text: str, cs: str) -> bool:
    return len(re.findall(re.escape(cs) + r"(?![A-Za-z@])", text)) > 1


def redefinition(text: str) -> str:
    """The control sequence ``text`` defines (``\\newcommand``, ``\\renewcommand``, ``\\def``, ``\\let`` ...) and
    uses anywhere else, or a ``\\catcode`` / ``\\DeclareRobustCommand`` / ``\\newenvironment`` it writes ("" when
    none): the ``tex_redefinition`` rule over a whole response, its thinking included (a macro defined while
    thinking changes what the answer shows). :func:`reader_view` applies the same rule to the answer region,
    where it also refuses any other primitive and blanks the definitions never used."""
    if _DEFINES.search(text) is None:  # one scan: "def" and "let" are common words
        return ""
    always = _ALWAYS_REFUSED.search(text)
    if always:
        return "\\" + always.group(1)
    for m in _DEFINING.finditer(text):
        name = _DEF_NAME.match(text, m.end())
        if name is not None:
            cs = name.group(1) or name.group(2)
            if cs not in _LAYOUT_PARAMETERS and _used_elsewhere(text, cs):
                return cs
    for m in _LET.finditer(text):
        if _used_elsewhere(text, m.group(1)):
            return m.group(1)
    return ""


def _definitions(text: str) -> str:
    """Blank macro definitions whose name is never used again (they render nothing); refuse the others."""
    if _PRIMITIVE.search(text):
        raise _Refused("tex_redefinition")
    spans: list[tuple[int, int]] = []
    closers: dict[int, int] | None = None
    for m in _DEFINING.finditer(text):
        name = _DEF_NAME.match(text, m.end())
        if name is None:
            raise _Refused("tex_redefinition")
        cs = name.group(1) or name.group(2)
        used = _used_elsewhere(text, cs)
        # "\\renewcommand{\\arraystretch}{1.5}" changes only how tables are spaced; any other redefinition of a
        # name, or a definition whose name is used, changes what the text shows
        if (m.group("cmd") == "renewcommand" or used) and cs not in _LAYOUT_PARAMETERS:
            raise _Refused("tex_redefinition")
        pos = name.end()
        if m.group("cmd").endswith("DocumentCommand"):
            spec = _DOC_SPEC.match(text, pos)
            pos = spec.end() if spec else pos
        elif m.group("cmd").endswith("def"):
            delimited = _DEF_DELIMITED.match(text, pos)  # matches the empty string at least
            pos = delimited.end() if delimited else pos
        else:
            params = _DEF_PARAMS.match(text, pos)
            pos = params.end() if params else pos
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            raise _Refused("tex_redefinition")
        closers = closers if closers is not None else all_closers(text)
        close = closers.get(pos)
        if close is None:
            raise _Refused("tex_redefinition")
        spans.append((m.start(), close + 1))
    return _blank(text, spans)


_LAYOUT_PARAMETERS = frozenset(
    ("\\arraystretch", "\\arraycolsep", "\\tabcolsep", "\\baselinestretch", "\\jot")
)


# --- colours, sizes, positions, overlays, environments

_COLOUR_CMD = re.compile(
    r"\\(textcolor|color|mathcolor|colorbox|fcolorbox|pagecolor|definecolor|colorlet|providecolor|transparent"
    r"|texttransparent)(?![A-Za-z@])\s*"
)
_COLOUR_ARG = re.compile(r"(?:\[\s*([A-Za-z]+)\s*\]\s*)?\{([^{}]{0,60})\}\s*")
_SIZE_CMD = re.compile(
    r"\\(scalebox|resizebox|raisebox|reflectbox|rotatebox|hspace|vspace|kern|mkern|hskip|vskip|mskip|moveleft"
    r"|moveright|raise|lower|fontsize)(?![A-Za-z@])\*?\s*"
)
_OVERLAY = re.compile(
    r"\\(?:only|onslide|uncover|invisible|visible|alt|temporal|mathchoice|pause)(?![A-Za-z@])"
)
_ENV = re.compile(r"\\begin\s*\{([^{}]*)\}")
_KNOWN_ENVS = _words(
    "align align* aligned alignat alignat* alignedat gather gather* gathered equation equation* eqnarray eqnarray*"
    " multline multline* split cases cases* dcases rcases array subarray matrix pmatrix bmatrix Bmatrix vmatrix"
    " Vmatrix smallmatrix tabular tabular* table center flushleft flushright itemize enumerate description proof"
    " quote quotation figure tikzpicture axis CD minipage displaymath math theorem lemma solution example remark"
    " definition corollary proposition claim note exercise problem answer comment comment* document"
)
_LENGTH = re.compile(r"\s*\{?\s*(-?\s*(?:\d+\.?\d*|\.\d+))\s*(pt|em|ex|mu|cm|mm|in|pc|bp|px|dd|cc|sp)\s*\}?")
_EM = {"pt": 0.1, "em": 1.0, "ex": 0.5, "mu": 1 / 18, "cm": 2.85, "mm": 0.285, "in": 7.2, "pc": 1.2}
_EM.update({"bp": 0.1, "px": 0.1, "dd": 0.107, "cc": 1.28, "sp": 1.5e-6})
_NUMBER_ARG = re.compile(r"\{\s*(-?\d*\.?\d+)\s*\}(?:\s*\[\s*(-?\d*\.?\d+)\s*\])?")


def _check_tex(text: str, scopes: list[_Scope]) -> str:
    """Refuse what is not shown as written; record the colours, sizes and raises (``scopes``, judged together by
    :func:`_check_scopes`); blank the colour commands (``\\boxed{\\textcolor{red}{5}}`` reads 5)."""
    if _LITERAL.search(text):
        raise _Refused("tex_literal")
    if _OVERLAY.search(text):
        raise _Refused("hidden_content")
    for m in _ENV.finditer(text):
        if m.group(1).strip() not in _KNOWN_ENVS:
            raise _Refused("unknown_environment")
    closers = all_closers(text) if "{" in text else {}
    groups = _Groups(text, closers)
    spans = [(m.start(), _check_colour_command(text, m, groups, scopes)) for m in _COLOUR_CMD.finditer(text)]
    for m in _SIZE_CMD.finditer(text):
        _check_size_command(text, m, closers, scopes)
    for m in _SIZE_DECL.finditer(text):
        scopes.append(_Scope(m.end(), groups.end(m.end()), "abs", _SIZE_OF[m.group(1)]))
    _check_horizontal(text)
    return _blank(text, [(a, b) for a, b in spans if b > a])


_SIZE_DECL = re.compile(
    r"\\(tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge|scriptscriptstyle|scriptstyle"
    r"|textstyle|displaystyle)(?![A-Za-z@])"
)
_SIZE_OF = {
    "tiny": 0.5, "scriptsize": 0.7, "footnotesize": 0.8, "small": 0.9, "normalsize": 1.0, "large": 1.2,
    "Large": 1.44, "LARGE": 1.73, "huge": 2.07, "Huge": 2.49, "scriptscriptstyle": 0.5, "scriptstyle": 0.7,
    "textstyle": 1.0, "displaystyle": 1.0,
}  # fmt: skip
_HSPACE = re.compile(
    r"\\(?:hspace\*?|kern|mkern|hskip|mskip)(?![A-Za-z@])\s*|\\(?:[!,;:]|quad|qquad|enspace|thinspace"
    r"|negthinspace|negmedspace|negthickspace)(?![A-Za-z@])"
)
# the fixed spaces, in em
_FIXED_SPACE = {"\\!": -1 / 6, "\\,": 1 / 6, "\\;": 5 / 18, "\\:": 2 / 9, "\\quad": 1.0, "\\qquad": 2.0}
_FIXED_SPACE.update({"\\enspace": 0.5, "\\thinspace": 1 / 6, "\\negthinspace": -1 / 6})
_FIXED_SPACE.update({"\\negmedspace": -2 / 9, "\\negthickspace": -5 / 18})
_MAX_BACK, _MAX_FORWARD = 2.0, 50.0  # em


def _check_horizontal(text: str) -> None:
    """Horizontal spaces add up along a line: refuse when they move the pen more than 2em back over what was
    already written there, or more than 50em forward in one run (off the page). Each visible character between
    them counts as half an em (a lower bound on its width)."""
    if not _HSPACE.search(text):
        return
    pos = furthest = forward = 0.0
    last = 0
    for m in _HSPACE.finditer(text):
        between = text[last : m.start()]
        if "\n" in between:
            pos = furthest = forward = 0.0
            between = between[between.rfind("\n") :]
        ink = len(_INK.findall(_CONTROL_WORD.sub("", between)))
        if ink:
            pos += 0.5 * ink
            forward = 0.0
        furthest = max(furthest, pos)
        fixed = _FIXED_SPACE.get(m.group().rstrip())
        length = _LENGTH.match(text, m.end()) if fixed is None else None
        last = length.end() if length else m.end()
        if fixed is not None:
            em = fixed
        elif length is None:
            continue  # \\hspace{\\fill}, or refused by _check_size_command
        else:
            em = float(length.group(1).replace(" ", "")) * _EM[length.group(2)]
        pos += em
        forward = forward + em if em > 0 else 0.0
        if pos < furthest - _MAX_BACK - 1e-9 or forward > _MAX_FORWARD + 1e-9:
            raise _Refused("hidden_content")


def _check_colour_command(text: str, m: re.Match[str], groups: _Groups, scopes: list[_Scope]) -> int:
    """Refuse a colour the verifier cannot evaluate; record what it colours (``scopes``); return where the
    command's colour arguments end (``\\fcolorbox``: its start, it is read as a box later)."""
    cmd, closers = m.group(1), groups.closers
    if cmd == "pagecolor" and text.count("\\pagecolor") == 1:
        arg = _COLOUR_ARG.match(text, m.end())
        colour = _tex_colour(arg.group(1), arg.group(2)) if arg else None
        if colour is None:
            raise _Refused("hidden_content")
        scopes.append(_Scope(0, len(text), "bg", colour))  # the whole page
        return arg.end() if arg else m.end()
    if cmd in ("pagecolor", "definecolor", "colorlet", "providecolor", "transparent", "texttransparent"):
        raise _Refused("hidden_content")  # a page colour, a colour the verifier cannot see, transparency
    arg = _COLOUR_ARG.match(text, m.end())
    if arg is None:
        raise _Refused("hidden_content")
    colour = _tex_colour(arg.group(1), arg.group(2))
    if cmd == "fcolorbox":  # \fcolorbox{frame}{background}{text}: the background is what matters
        arg = _COLOUR_ARG.match(text, arg.end())
        if arg is None:
            raise _Refused("hidden_content")
        colour = _tex_colour(arg.group(1), arg.group(2))
    if colour is None:
        raise _Refused("hidden_content")
    if cmd == "color":
        scopes.append(_Scope(arg.end(), groups.end(arg.end()), "fg", colour))
    else:
        group = _argument(text, arg.end(), closers)
        if group is None:  # "\\textcolor{red}5": one token; a box without its brace
            scopes.append(_Scope(arg.end(), groups.end(arg.end()), "fg", colour))
        else:
            scopes.append(
                _Scope(group[0], group[1], "fg" if cmd in ("textcolor", "mathcolor") else "bg", colour)
            )
    return m.start() if cmd == "fcolorbox" else arg.end()


def _check_size_command(text: str, m: re.Match[str], closers: dict[int, int], scopes: list[_Scope]) -> None:
    cmd, rest = m.group(1), text[m.end() : m.end() + 80]
    if cmd in ("resizebox", "reflectbox", "rotatebox"):
        raise _Refused("hidden_content")  # resized to anything, mirrored, rotated ("6" turned is "9")
    if cmd == "scalebox":
        num = _NUMBER_ARG.match(rest)
        if num is None or not all(0.5 <= float(v) <= 10 for v in num.groups() if v is not None):
            raise _Refused("hidden_content")
        group = _argument(text, m.end() + num.end(), closers)
        factor = min(float(v) for v in num.groups() if v is not None)
        scopes.append(
            _Scope(group[0], group[1], "rel", factor) if group else _Scope(0, len(text), "rel", factor)
        )
        return
    if cmd in ("hspace", "vspace") and re.match(r"\{\s*(?:\\fill|\\stretch\{[\d.]+\}|0pt)\s*\}", rest):
        return
    length = _LENGTH.match(rest)
    if length is None:
        raise _Refused("hidden_content")  # a length the verifier cannot evaluate
    em = float(length.group(1).replace(" ", "")) * _EM[length.group(2)]
    if cmd == "fontsize":
        if em < 0.5:
            raise _Refused("hidden_content")
    elif cmd in ("raisebox", "raise", "lower", "moveleft", "moveright"):
        if abs(em) > 2:
            raise _Refused("hidden_content")  # moved off its line
        if cmd in ("raisebox", "raise", "lower"):
            pos = m.end() + length.end()
            opts = re.match(r"(?:\s*\[[^\[\]{}]*\]){0,2}", text[pos : pos + 80])
            group = _argument(text, pos + (opts.end() if opts else 0), closers)
            shift = -em if cmd == "lower" else em
            scopes.append(
                _Scope(group[0], group[1], "raise", shift) if group else _Scope(pos, pos + 1, "raise", shift)
            )
    elif not -2 <= em <= 50:
        raise _Refused("hidden_content")  # moved far back over other text, or far off the page


# arguments that are never typeset: a phantom's (room, no ink), a label's, an index entry's, a cross-reference's key
# (shown as a number or "??"), a link's target
_PHANTOM = re.compile(
    r"\\(?:[hv]?phantom|label|index|ref|eqref|pageref|autoref|cref|Cref|cite|citep|citet|nocite|glossary|href"
    r"|hyperlink|hypertarget)(?![A-Za-z@])\s*"
)


def _blank_phantoms(text: str) -> str:
    """A ``\\phantom`` takes the room of its argument and shows nothing: its argument is blanked."""
    if not _PHANTOM.search(text):
        return text
    closers: dict[int, int] | None = None
    spans: list[tuple[int, int]] = []
    for m in _PHANTOM.finditer(text):
        pos = m.end()
        if pos < len(text) and text[pos] == "{":
            closers = closers if closers is not None else all_closers(text)
            close = closers.get(pos)
            if close is None:
                raise _Refused("unbalanced_braces")
            spans.append((m.start(), close + 1))
        else:  # one token: "\\phantom5", "\\phantom\\pi"
            tok = re.match(r"\\[A-Za-z]+|.", text[pos : pos + 40], re.DOTALL)
            spans.append((m.start(), pos + (len(tok.group()) if tok else 0)))
    return _blank(text, spans)


# --- colours

_WHITE, _BLACK = (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)
_MIN_CONTRAST = 3.0  # WCAG's minimum for large text
_NAMED = {
    "black": "000000", "white": "ffffff", "red": "ff0000", "green": "008000", "blue": "0000ff", "cyan": "00ffff",
    "magenta": "ff00ff", "yellow": "ffff00", "gray": "808080", "grey": "808080", "darkgray": "404040",
    "darkgrey": "404040", "lightgray": "bfbfbf", "lightgrey": "d3d3d3", "brown": "bf8040", "lime": "00ff00",
    "olive": "808000", "orange": "ff8000", "pink": "ffbfbf", "purple": "800080", "teal": "008080",
    "violet": "800080", "navy": "000080", "maroon": "800000", "silver": "c0c0c0", "gold": "ffd700",
    "aqua": "00ffff", "fuchsia": "ff00ff", "indigo": "4b0082", "crimson": "dc143c", "darkblue": "00008b",
    "darkred": "8b0000", "darkgreen": "006400", "orangered": "ff4500", "forestgreen": "228b22",
    "royalblue": "4169e1", "blueviolet": "8a2be2", "lightblue": "add8e6", "lightgreen": "90ee90",
    "lightyellow": "ffffe0", "lightpink": "ffb6c1", "lavender": "e6e6fa", "beige": "f5f5dc",
}  # fmt: skip


def _hex(spec: str) -> tuple[float, float, float] | None:
    spec = spec.strip().lstrip("#")
    if re.fullmatch(r"[0-9a-fA-F]{3}", spec):
        spec = "".join(c * 2 for c in spec)
    if not re.fullmatch(r"[0-9a-fA-F]{6}", spec):
        return None
    return tuple(int(spec[i : i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def _numbers(spec: str, n: int, scale: float) -> tuple[float, ...] | None:
    parts = [p.strip() for p in spec.split(",")]
    try:
        values = tuple(float(p) / scale for p in parts)
    except ValueError:
        return None
    return values if len(values) == n and all(0 <= v <= 1 for v in values) else None


def _tex_colour(model: str | None, spec: str) -> tuple[float, float, float] | None:
    """An xcolor colour as RGB in [0, 1], or None when it cannot be evaluated (then it is refused)."""
    spec = spec.strip()
    if model:
        if model.lower() == "html":
            return _hex(spec)
        if model in ("rgb", "RGB"):
            return _numbers(spec, 3, 1.0 if model == "rgb" else 255.0)  # type: ignore[return-value]
        if model == "gray":
            g = _numbers(spec, 1, 1.0)
            return (g[0],) * 3 if g else None
        return None
    # xcolor expressions: "red", "red!30", "red!30!black", "#fff" (MathJax)
    if spec.startswith("#"):
        return _hex(spec)
    parts = spec.lower().split("!")
    colour = _named(parts[0])
    i = 1
    while colour is not None and i < len(parts):
        try:
            pct = float(parts[i]) / 100
        except ValueError:
            return None
        other = _named(parts[i + 1]) if i + 1 < len(parts) else _WHITE
        if other is None or not 0 <= pct <= 1:
            return None
        colour = tuple(pct * a + (1 - pct) * b for a, b in zip(colour, other, strict=True))  # type: ignore[assignment]
        i += 2
    return colour


def _named(name: str) -> tuple[float, float, float] | None:
    h = _NAMED.get(name.strip().lower())
    return _hex(h) if h else None


def _css_colour(value: str) -> tuple[float, float, float] | None:
    value = value.strip()
    if value.startswith("#"):
        return _hex(value)
    m = re.fullmatch(r"rgb\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*\)", value)
    if m:
        return _numbers(",".join(m.groups()), 3, 255.0)  # type: ignore[return-value]
    return _named(value)


def _luminance(rgb: tuple[float, float, float]) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# --- HTML

# a tag is a name and a sequence of well-formed attributes: "p<q \\leqslant n ... >" is no tag
_TAG = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9-]*)"
    r"((?:\s+[A-Za-z_:][\w:.-]*(?:\s*=\s*(?:\"[^\"]{0,2000}\"|'[^']{0,2000}'|[^\s\"'=<>`]{1,2000}))?){0,50})\s*/?>"
)
_ATTR = re.compile(r"([A-Za-z_:][\w:.-]*)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'<>=`]+))?")
_HIDING_TAGS = _words(
    "style script template title noscript textarea input select option datalist head meta link svg object"
    " iframe embed frame frameset noframes canvas audio video bdo button dialog marquee blink noembed annotation"
    " annotation-xml rp param slot"
)
_MAX_UNCLOSED = 16  # an end tag is matched with one of the 16 innermost open elements (linear on tag soup)
_VOID_TAGS = _words("br hr img wbr col area base source track")
# the size a browser gives an element, relative to its parent's
_TAG_SCALE = {"small": 0.83, "sub": 0.83, "sup": 0.83, "big": 1.2}
_MARK_BG = (1.0, 1.0, 0.0)  # <mark>: a yellow highlight
_HTML_TAGS = _HIDING_TAGS | _words(
    "a abbr address article aside b big blockquote body br caption center cite code col colgroup dd del details"
    " dfn div dl dt em figcaption figure font footer h1 h2 h3 h4 h5 h6 header hr html i img ins kbd label legend"
    " li main mark nav ol p pre q s samp section small span strike strong sub summary sup table tbody td tfoot"
    " th thead time tr tt u ul var wbr"
)
_INLINE_TAGS = frozenset(("b", "i", "u", "em", "strong", "span", "font", "mark", "small", "big", "tt", "ins"))
_CSS_OK = re.compile(
    r"(?:font-weight|font-style|font-family|font-variant|text-align|line-height|white-space"
    r"|border(?:-[a-z]+)*|border-radius|margin(?:-[a-z]+)?|padding(?:-[a-z]+)?)"
)
_DISPLAY_OK = frozenset(("inline", "block", "inline-block", "flex", "inline-flex", "list-item", "table-cell"))


def _html(text: str, scopes: list[_Scope]) -> str:
    """Refuse hiding elements and attributes; record each element's colours and size (``scopes``, judged with
    the TeX ones by :func:`_check_scopes`); blank attribute values, inline formatting tags, and the content of a
    closed ``<details>`` other than its ``<summary>`` (shown only when clicked)."""
    spans: list[tuple[int, int]] = []
    stack: list[
        tuple[str, int, list[tuple[str, Any]], bool]
    ] = []  # open elements: name, content start, styles
    details: list[tuple[int, int]] = []
    for m in _TAG.finditer(text):
        name = m.group(2).lower()
        if name in _HIDING_TAGS:
            raise _Refused("hidden_content")
        if m.group(1):  # an end tag closes the innermost open element of its name (among the last few open)
            for i in range(len(stack) - 1, max(-1, len(stack) - 1 - _MAX_UNCLOSED), -1):
                if stack[i][0] == name:
                    for open_name, start, held, shut in stack[i:]:
                        _element_scopes(scopes, start, m.start(), open_name, held)
                        if shut:
                            details.append((start, m.start()))
                    del stack[i:]
                    break
            continue
        attrs = m.group(3)
        items: list[tuple[str, Any]] = []
        if attrs and ("=" in attrs or "hidden" in attrs.lower()):
            for a in _ATTR.finditer(attrs):
                items += _check_attribute(a.group(1).lower(), html.unescape((a.group(2) or "").strip("\"'")))
            spans.append((m.start(3), m.end(3)))  # attribute values are never shown
        if name not in _VOID_TAGS and not m.group().endswith("/>"):
            shut = name == "details" and not re.search(r"(?i)(?<![\w-])open(?![\w-])", attrs or "")
            stack.append((name, m.end(), items, shut))
    for open_name, start, items, shut in stack:  # never closed: to the end
        _element_scopes(scopes, start, len(text), open_name, items)
        if shut:
            details.append((start, len(text)))
    for start, end in details:
        summary = re.search(r"(?i)</summary\s*>", text[start:end])
        spans.append((start + summary.end() if summary else start, end))
    # inline formatting shows its content and nothing of itself: "<b>Answer:</b> 5" reads "Answer: 5"
    spans.extend((m.start(), m.end()) for m in _TAG.finditer(text) if m.group(2).lower() in _INLINE_TAGS)
    return _blank(text, spans)


def _element_scopes(
    scopes: list[_Scope], start: int, end: int, name: str, items: list[tuple[str, Any]]
) -> None:
    if name in _TAG_SCALE:
        scopes.append(_Scope(start, end, "rel", _TAG_SCALE[name]))
    if name == "mark":
        scopes.append(_Scope(start, end, "bg", _MARK_BG))
    scopes.extend(_Scope(start, end, kind, value) for kind, value in items)


def _check_attribute(name: str, value: str) -> list[tuple[str, Any]]:
    """Refuse an attribute that hides or cannot be evaluated; else what it sets (``("fg", rgb)``, ...)."""
    value = _INVISIBLE.sub("", value).strip().lower()
    if name in ("hidden", "class", "dir", "aria-hidden", "bgcolor", "fill", "opacity", "inert"):
        raise _Refused("hidden_content")
    if name == "color":
        colour = _css_colour(value)
        if colour is None:
            raise _Refused("hidden_content")
        return [("fg", colour)]
    if name == "size":
        if not re.fullmatch(r"[+-]?[1-7]", value) or value.startswith("-"):
            raise _Refused("hidden_content")
    elif name == "style":
        return _check_css(value)
    return []


_FONT_KEYWORDS = {
    "small": ("abs", 0.83),
    "medium": ("abs", 1.0),
    "large": ("abs", 1.2),
    "larger": ("rel", 1.2),
}
_FONT_KEYWORDS.update({"x-large": ("abs", 1.5), "xx-large": ("abs", 2.0)})
_CSS_LENGTH = re.compile(r"(-?\d*\.?\d+)\s*(px|pt|em|rem|ex|%)?")
_CSS_EM = {"px": 1 / 16, "pt": 1 / 12, "em": 1.0, "rem": 1.0, "ex": 0.5, "%": 0.01, None: 1 / 16}
_VERTICAL_KEYWORDS = _words("baseline sub super middle top bottom text-top text-bottom")


def _check_css(style: str) -> list[tuple[str, Any]]:
    """Refuse a style unless every declaration is on the allowlist of visible forms; else what it sets (its
    colours, size, vertical shift: judged where its text is, :func:`_check_scopes`)."""
    style = re.sub(r"\s+", " ", style)
    items: list[tuple[str, Any]] = []
    for decl in style.split(";"):
        if not decl.strip():
            continue
        prop, sep, value = decl.partition(":")
        prop, value = prop.strip(), value.strip().removesuffix("!important").strip()
        if not sep:
            raise _Refused("hidden_content")
        if prop in ("color", "background", "background-color"):
            colour = _css_colour(value)
            if colour is None:
                raise _Refused("hidden_content")
            items.append(("fg" if prop == "color" else "bg", colour))
        elif prop == "display":
            if value not in _DISPLAY_OK:
                raise _Refused("hidden_content")
        elif prop == "font-size":
            size = re.fullmatch(r"(\d*\.?\d+)\s*(px|pt|em|rem|%)", value)
            if size is None and value not in _FONT_KEYWORDS:
                raise _Refused("hidden_content")
            if size is None:
                items.append(_FONT_KEYWORDS[value])
            else:
                factor = float(size.group(1)) * _CSS_EM[size.group(2)]
                items.append(("rel" if size.group(2) in ("em", "%") else "abs", factor))
        elif prop == "vertical-align":
            length = _CSS_LENGTH.fullmatch(value)
            if value not in _VERTICAL_KEYWORDS and (length is None or abs(_css_em(length)) > _MAX_RAISE):
                raise _Refused("hidden_content")
        elif _CSS_OK.fullmatch(prop):
            if prop.startswith(("margin", "padding")) and "-" in value:
                raise _Refused("hidden_content")  # a negative margin moves text away
            if prop.startswith(("margin", "padding", "border")) and any(
                _css_em(length) > _MAX_FORWARD for length in _CSS_LENGTH.finditer(value)
            ):
                raise _Refused("hidden_content")  # moved far off the page
        else:
            raise _Refused("hidden_content")
    return items


def _css_em(length: re.Match[str]) -> float:
    return float(length.group(1)) * _CSS_EM[length.group(2)]


# --- markdown

_MD_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_MD_LINK_DEST = re.compile(
    r"\]\((?:<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?\s*\)"
)
_MD_REFERENCE = re.compile(
    r"^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$",
    re.MULTILINE,
)
_URLISH = re.compile(r"^(?:<.*>|#.*|[a-z][a-z0-9+.-]*://.*|/.*|\./.*|www\..*|mailto:.*)$", re.IGNORECASE)


def _markdown(text: str) -> str:
    spans: list[tuple[int, int]] = []
    if "](" in text:
        if "![" in text:
            spans.extend((m.start(), m.end()) for m in _MD_IMAGE.finditer(text))
        for m in _MD_LINK_DEST.finditer(text):
            dest = m.group()[2:-1].strip()
            if _URLISH.match(dest) or re.search(r"\s[\"'(]", dest):
                spans.append((m.start() + 1, m.end()))
    if "]:" in text:
        for m in _MD_REFERENCE.finditer(text):
            if _URLISH.match(m.group(1)):
                spans.append((m.start(), m.end()))
    return _blank(text, spans)


# ---------------------------------------------------------------------------------------------------------
# box commands a reader sees as a box, and font wrappers that show their argument as written

_BOX_CMD = re.compile(
    r"\\(?:boxed|fbox)(?![A-Za-z])(?!\{)|\\(?:framebox|bbox|Aboxed|fcolorbox|ovalbox|Ovalbox|doublebox|shadowbox"
    r"|bm|pmb|texttt|emph|hbox|ensuremath|num|textmd|mathtt)(?![A-Za-z])"
)
_BOX_NO_BRACE = re.compile(r"\\(boxed|fbox)(?![A-Za-z])\s*(?:(\{)|(\\[A-Za-z]+|[^\s{}\\$]))")
_OTHER_BOX = re.compile(
    r"\\(?:framebox\s*(?:\[[^\[\]{}]*\]\s*){0,2}|bbox\s*(?:\[([^\[\]{}]*)\])?\s*|Aboxed\s*"
    r"|fcolorbox\s*(?:\[[^\[\]{}]*\])?\s*\{[^{}]*\}\s*\{[^{}]*\}\s*|(?:ovalbox|Ovalbox|doublebox|shadowbox)\s*)(?=\{)"
)
_WRAPPER = re.compile(r"\\(?:bm|pmb|texttt|emph|hbox|ensuremath|num|textmd|mathtt)\s*\{([^{}]*)\}")


def _boxes_view(text: str) -> str:
    def one_token(m: re.Match[str]) -> str:
        if m.group(2):
            return f"\\{m.group(1)}{{"
        return f"\\{m.group(1)}{{{m.group(3)}}}"

    def other_box(m: re.Match[str]) -> str:
        if m.group(1):
            _check_bbox(m.group(1))
        return "\\boxed"

    text = _BOX_NO_BRACE.sub(one_token, text)
    text = _OTHER_BOX.sub(other_box, text)
    for _ in range(3):  # nested wrappers: \\bm{\\texttt{5}}
        new = _WRAPPER.sub(lambda m: m.group(1), text)
        if new == text:
            break
        text = new
    return text


def _check_bbox(options: str) -> None:
    """MathJax's ``\\bbox[options]``: a background colour, a padding, ``border: ...`` or ``style: ...`` CSS."""
    for opt in options.split(","):
        opt = opt.strip()
        if not opt or re.fullmatch(r"\d*\.?\d+\s*(?:pt|px|em|ex|mu)", opt):
            continue
        if ":" in opt:
            for kind, colour in _check_css(opt[6:].strip() if opt.startswith("style:") else opt):
                if (
                    kind in ("fg", "bg")
                    and _contrast(colour, _WHITE if kind == "fg" else _BLACK) < _MIN_CONTRAST
                ):
                    raise _Refused("hidden_content")
            continue
        colour = _tex_colour(None, opt)
        if colour is None or _contrast(colour, _BLACK) < _MIN_CONTRAST:
            raise _Refused("hidden_content")


# ---------------------------------------------------------------------------------------------------------
# braces


def _check_braces(text: str) -> None:
    """A box whose brace never closes: its extent is not what a reader sees (``\\boxed{5} but really
    \\boxed{7``, ``\\boxed{7\\}``), or the box was cut off by the token budget. Unclosed braces elsewhere (a
    degenerate tail after the answer) do not matter."""
    if "{" not in text or _BOX_START.search(text) is None:
        return
    closers = LocalClosers(text)  # a box's closer from a scan forward from it: no pass over the whole text
    for m in _BOX_OPEN.finditer(text):
        if closers.get(m.end() - 1) is None:
            raise _Refused("unbalanced_braces")


_BOX_OPEN = re.compile(r"\\(?:boxed|fbox)\{")

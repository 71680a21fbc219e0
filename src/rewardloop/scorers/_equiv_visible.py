"""What a reader of a math response actually sees, before any answer is looked for. Linear time; never raises.

:func:`reader_view` maps the answer region of a response to the text a reader sees, and names a rule when the
response cannot be read at face value (math_equiv then scores it 0 under that rule: ``info["rule"]``, shown by
``explain``). The principle (docs/math-verifier.md, "What the verifier reads"):

* **Refused (fail closed)**: constructs that can make the rendered text differ from the written text and that a
  math answer has no use for. A policy that emits them is not graded, whatever they hold; there is no list of
  hiding tricks to keep complete, because anything not on a short allowlist of visible forms is refused.

  - ``hidden_content``: HTML elements whose content is not shown (``<style>``, ``<script>``, ``<title>``,
    ``<noscript>``, ``<template>``, ``<textarea>``, ``<input>``, ``<svg>``, ``<bdo>`` ...); an HTML attribute that
    hides or reorders (``hidden``, ``aria-hidden``, ``class``, ``dir``); a ``style`` with any declaration outside
    a small allowlist (colour, background, font weight/style/family, a font size of at least 0.5em, margins,
    padding, borders, ``display`` other than ``none``), entity-encoded or not; a text colour whose contrast with
    the page (white) is below 3:1, a background whose contrast with black text is below 3:1, or a colour that
    cannot be evaluated (``\\definecolor``, ``hsl()``, an unknown name); ``\\pagecolor``, ``\\transparent``;
    scaling below 0.5 or above 10, ``\\resizebox``, ``\\reflectbox``, ``\\rotatebox``, large shifts
    (``\\raisebox``, ``\\hspace``, ``\\kern`` ... beyond 2em backwards or 50em forwards), a font size below
    5pt; beamer overlays (``\\only``, ``\\onslide``, ``\\uncover``, ``\\invisible`` ...) and ``\\mathchoice``;
    an environment outside the usual math/text ones (``verbatim``, ``lstlisting``, a custom ``hide``).
  - ``tex_conditional``: any TeX conditional other than ``\\iftrue`` / ``\\iffalse`` (whose shown branch is
    known and kept), ``\\unless``, an ``\\else`` / ``\\fi`` / ``\\or`` without its ``\\if``, an unclosed one.
  - ``tex_redefinition``: ``\\def`` / ``\\newcommand`` / ``\\renewcommand`` / ``\\DeclareMathOperator`` ... of a
    name used anywhere else in the region (an unused definition renders nothing and is blanked), ``\\let``,
    ``\\catcode``, ``\\mathcode``, ``\\mathchardef``, ``\\csname``, ``\\expandafter``, ``\\everymath``, any
    control sequence with ``@`` (``\\@gobble``, ``\\makeatletter``).
  - ``tex_literal``: text shown as something else than written: ``\\char``, ``\\mathchar``, ``\\symbol``,
    ``\\unicode``, ``\\string``, ``\\detokenize``, ``\\verb``.
  - ``bidi_override``: U+202A..U+202E (embeddings and overrides: "75" can show as "57").
  - ``combining_mark``: a combining mark on a digit (``5\\u0336`` shows a struck-out 5).
  - ``unbalanced_braces``: a box whose ``{`` never closes (``\\boxed{5} but really \\boxed{7``,
    ``\\boxed{7\\}``; a box cut off by the token budget).

* **Blanked or normalised (the text a reader sees)**: invisible format characters (Unicode Cf: zero-width
  space/joiners, word joiner, BOM, soft hyphen, bidi isolates and marks, tag characters) are removed, so
  ``5\\u200b7`` reads 57; HTML comments, TeX ``%`` comments holding an answer, ``comment`` environments, the
  untaken branch of ``\\iftrue``/``\\iffalse``, arguments never typeset (``\\phantom``, ``\\label``, ``\\index``,
  ``\\ref``/``\\cite`` keys, ``\\href`` targets), HTML attribute values (``alt``, ``title``, ``value``),
  markdown link destinations, image alt texts and link reference definitions, unused macro definitions, and
  struck-out text holding a box are blanked; answer-marker words written with look-alike letters (Cyrillic/Greek
  confusables, full-width and mathematical alphanumerics, i.e. NFKC + a confusables fold) read as ASCII
  ("Аnswer" is "Answer"); box commands a reader sees as a box become ``\\boxed{...}`` (``\\boxed5``,
  ``\\boxed {5}``, ``\\framebox``, ``\\bbox``, ``\\Aboxed``, ``\\fcolorbox``) and font wrappers that show
  their argument as is are unwrapped (``\\bm``, ``\\pmb``, ``\\texttt``, ``\\emph``, ``\\hbox``,
  ``\\ensuremath``, ``\\num``). Box commands are rewritten only after the hidden parts are blanked or refused,
  so a box inside hidden text stays hidden.
"""

from __future__ import annotations

import html
import re
import unicodedata

from ._latex import LocalClosers, all_closers

__all__ = ["REFUSAL_RULES", "reader_view", "redefinition"]

#: the rules :func:`reader_view` refuses a response under (``info["rule"]`` of its verdict), and why
REFUSAL_RULES = {
    "hidden_content": "the response hides text from its reader (a hiding element, style, colour, size or overlay)",
    "tex_conditional": "a TeX conditional decides what is shown",
    "tex_redefinition": "the response redefines TeX (a macro that is used, \\let, catcodes, mathcodes)",
    "tex_literal": "TeX shows something other than what is written (\\char, \\string, \\verb ...)",
    "unknown_environment": "an environment outside the usual math and text ones",
    "bidi_override": "a bidi override or embedding reorders what is shown",
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
_MARKER_WORDS = frozenset(
    ("answer", "answers", "final", "the", "is", "correct", "right", "best", "option", "choice", "boxed")
)
# look-alikes of Latin letters in other scripts (Unicode's confusables, the letters that matter for markers)
_CONFUSABLE = str.maketrans(
    "\u0430\u0432\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u051b\u051d\u0454\u04bb\u0578\u057d\u0585"
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0406\u0408\u0405"
    "\u03bf\u03b1\u03bd\u03b9\u03ba\u03c1\u03c4\u03c5\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f"
    "\u03a1\u03a4\u03a7\u03a5\u0261\u0131",
    "aBeopcyxijsdqwehnuoABEKMHOPCTXIJSoavikrtuABEZHIKMNOPTXYgi",
)


def _skeleton(word: str) -> str:
    return unicodedata.normalize("NFKC", word).translate(_CONFUSABLE)


# letters that may fold to ASCII: the confusables above, full-width Latin, letterlike and mathematical letters
_SUSPECT = re.compile(
    "[\u0430\u0432\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u051b\u051d\u0454\u04bb"
    "\u0578\u057d\u0585\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0406\u0408"
    "\u0405\u03bf\u03b1\u03bd\u03b9\u03ba\u03c1\u03c4\u03c5\u0391\u0392\u0395\u0396\u0397\u0399\u039a"
    "\u039c\u039d\u039f\u03a1\u03a4\u03a7\u03a5\u0261\u0131\uff21-\uff3a\uff41-\uff5a\u2100-\u214f"
    "\U0001d400-\U0001d6a5]"
)
_WIDE_COLON = re.compile("[ \t]*\uff1a")
_MAX_MARKER = 12  # letters in the longest marker word looked at


def _fold_markers(text: str) -> str:
    """Answer-marker words written with look-alike letters read as ASCII ("\u0410nswer" is "Answer", and a
    full-width colon after one is a colon); other words are left alone (Russian, Greek and full-width text stay as
    written). Linear: each suspect letter's word is looked at once, at most :data:`_MAX_MARKER` letters each side."""
    folds: list[tuple[int, int, str]] = []
    end = 0
    for m in _SUSPECT.finditer(text):
        if m.start() < end:
            continue  # in the word just looked at
        a, b = m.start(), m.end()
        while a > end and m.start() - a <= _MAX_MARKER and text[a - 1].isalpha():
            a -= 1
        while b < len(text) and b - m.end() <= _MAX_MARKER and text[b].isalpha():
            b += 1
        end = b
        folded = _skeleton(text[a:b]) if b - a <= _MAX_MARKER else ""
        if folded.isascii() and folded.lower() in _MARKER_WORDS:
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


def _unicode_view(text: str) -> str:
    if _OVERRIDE.search(text):
        raise _Refused("bidi_override")
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
    r"<[A-Za-z!/]|\]\(|\]:|%|~~"
    r"|\\(?:[A-Za-z]*@|[egx]?def|let|futurelet|new|renew|provide|Declare|New|Renew|Provide|math(?:code|char|choice)"
    r"|catcode|lccode|uccode|sfcode|delcode|chardef|countdef|dimendef|skipdef|toksdef|char|csname|expandafter"
    r"|noexpand|string|detokenize|meaning|scantokens|every|AtBegin|after|input|include|global|uppercase|lowercase"
    r"|unicode|symbol|verb|if|If|unless|else|fi|or(?![A-Za-z])|color|textcolor|mathcolor|colorbox|fcolorbox"
    r"|pagecolor|definecolor|colorlet|providecolor|transparent|texttransparent|[hv]?phantom|scalebox|resizebox"
    r"|raisebox|reflectbox|rotatebox|hspace|vspace|kern|mkern|hskip|vskip|mskip|moveleft|moveright|raise|lower"
    r"|fontsize|only|onslide|uncover|invisible|visible|alt(?![A-Za-z])|temporal|begin|[bx]?cancel|sout|st\b|xout"
    r"|makeat|label|index|ref|eqref|pageref|autoref|cref|Cref|cite|nocite|glossary|href|hyperlink|hypertarget|write"
    r"|immediate|message|typeout|special|openout|closeout|pdfcomment|tooltip)"
)


def _markup_view(text: str) -> str:
    text = _blank_comments(text)
    if "\\" in text:
        text = _conditionals(text)
        text = _definitions(text)
        text = _check_tex(text)
        text = _blank_phantoms(text)
    if "<" in text:
        text = _html(text)
    if "](" in text or "]:" in text:
        text = _markdown(text)
    return text


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
    if "<!--" in text or "\\begin{comment" in text:
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
    " definition corollary proposition claim note exercise problem answer comment comment*"
)
_LENGTH = re.compile(r"\s*\{?\s*(-?\s*(?:\d+\.?\d*|\.\d+))\s*(pt|em|ex|mu|cm|mm|in|pc|bp|px|dd|cc|sp)\s*\}?")
_EM = {"pt": 0.1, "em": 1.0, "ex": 0.5, "mu": 1 / 18, "cm": 2.85, "mm": 0.285, "in": 7.2, "pc": 1.2}
_EM.update({"bp": 0.1, "px": 0.1, "dd": 0.107, "cc": 1.28, "sp": 1.5e-6})
_NUMBER_ARG = re.compile(r"\{\s*(-?\d*\.?\d+)\s*\}(?:\s*\[\s*(-?\d*\.?\d+)\s*\])?")


def _check_tex(text: str) -> str:
    """Refuse what is not shown as written; blank the colour commands that passed (their colour is visible, and
    ``\\boxed{\\textcolor{red}{5}}`` reads 5)."""
    if _LITERAL.search(text):
        raise _Refused("tex_literal")
    if _OVERLAY.search(text):
        raise _Refused("hidden_content")
    for m in _ENV.finditer(text):
        if m.group(1).strip() not in _KNOWN_ENVS:
            raise _Refused("unknown_environment")
    spans = [(m.start(), _check_colour_command(text, m)) for m in _COLOUR_CMD.finditer(text)]
    for m in _SIZE_CMD.finditer(text):
        _check_size_command(text, m)
    return _blank(text, [(a, b) for a, b in spans if b > a])


def _check_colour_command(text: str, m: re.Match[str]) -> int:
    """Refuse a colour a reader cannot see; else where the command's colour arguments end (``\\fcolorbox``:
    its start, it is read as a box later)."""
    cmd = m.group(1)
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
    against = _BLACK if cmd in ("colorbox", "fcolorbox") else _WHITE
    if _contrast(colour, against) < _MIN_CONTRAST:
        raise _Refused("hidden_content")
    return m.start() if cmd == "fcolorbox" else arg.end()


def _check_size_command(text: str, m: re.Match[str]) -> None:
    cmd, rest = m.group(1), text[m.end() : m.end() + 80]
    if cmd in ("resizebox", "reflectbox", "rotatebox"):
        raise _Refused("hidden_content")  # resized to anything, mirrored, rotated ("6" turned is "9")
    if cmd == "scalebox":
        num = _NUMBER_ARG.match(rest)
        if num is None or not all(0.5 <= float(v) <= 10 for v in num.groups() if v is not None):
            raise _Refused("hidden_content")
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
    " iframe embed frame frameset noframes canvas audio video bdo button dialog marquee blink"
)
_HTML_TAGS = _HIDING_TAGS | _words(
    "a abbr address article aside b big blockquote body br caption center cite code col colgroup dd del details"
    " dfn div dl dt em figcaption figure font footer h1 h2 h3 h4 h5 h6 header hr html i img ins kbd label legend"
    " li main mark nav ol p pre q s samp section small span strike strong sub summary sup table tbody td tfoot"
    " th thead time tr tt u ul var wbr"
)
_INLINE_TAGS = frozenset(("b", "i", "u", "em", "strong", "span", "font", "mark", "small", "big", "tt", "ins"))
_CSS_OK = re.compile(
    r"(?:font-weight|font-style|font-family|font-variant|text-align|line-height|vertical-align|white-space"
    r"|border(?:-[a-z]+)*|border-radius|margin(?:-[a-z]+)?|padding(?:-[a-z]+)?)"
)
_DISPLAY_OK = frozenset(("inline", "block", "inline-block", "flex", "inline-flex", "list-item", "table-cell"))


def _html(text: str) -> str:
    spans: list[tuple[int, int]] = []
    for m in _TAG.finditer(text):
        name = m.group(2).lower()
        if name not in _HTML_TAGS:
            continue  # "<eoa>", "<think>", "<answer>", "a<b and c>d" with b read as a tag is handled below
        if name in _HIDING_TAGS:
            raise _Refused("hidden_content")
        attrs = m.group(3)
        if not attrs or ("=" not in attrs and "hidden" not in attrs.lower()):
            continue
        for a in _ATTR.finditer(attrs):
            _check_attribute(a.group(1).lower(), html.unescape((a.group(2) or "").strip("\"'")))
        spans.append((m.start(3), m.end(3)))  # attribute values are never shown
    # inline formatting shows its content and nothing of itself: "<b>Answer:</b> 5" reads "Answer: 5"
    spans.extend((m.start(), m.end()) for m in _TAG.finditer(text) if m.group(2).lower() in _INLINE_TAGS)
    return _blank(text, spans)


def _check_attribute(name: str, value: str) -> None:
    value = _INVISIBLE.sub("", value).strip().lower()
    if name in ("hidden", "class", "dir", "aria-hidden", "bgcolor", "fill", "opacity"):
        raise _Refused("hidden_content")
    if name == "color":
        colour = _css_colour(value)
        if colour is None or _contrast(colour, _WHITE) < _MIN_CONTRAST:
            raise _Refused("hidden_content")
    elif name == "size":
        if not re.fullmatch(r"[+-]?[1-7]", value) or value.startswith("-"):
            raise _Refused("hidden_content")
    elif name == "style":
        _check_css(value)


def _check_css(style: str) -> None:
    """Refuse a style unless every declaration is on the allowlist of visible forms."""
    style = re.sub(r"\s+", " ", style)
    text_colour, background = _BLACK, _WHITE
    for decl in style.split(";"):
        if not decl.strip():
            continue
        prop, sep, value = decl.partition(":")
        prop, value = prop.strip(), value.strip().removesuffix("!important").strip()
        if not sep:
            raise _Refused("hidden_content")
        if prop == "color":
            colour = _css_colour(value)
            if colour is None:
                raise _Refused("hidden_content")
            text_colour = colour
        elif prop in ("background", "background-color"):
            colour = _css_colour(value)
            if colour is None:
                raise _Refused("hidden_content")
            background = colour
        elif prop == "display":
            if value not in _DISPLAY_OK:
                raise _Refused("hidden_content")
        elif prop == "font-size":
            size = re.fullmatch(r"(\d*\.?\d+)\s*(px|pt|em|rem|%)", value)
            scale = {"px": 16.0, "pt": 12.0, "em": 1.0, "rem": 1.0, "%": 100.0}
            if size is None and value not in ("small", "medium", "large", "larger", "x-large", "xx-large"):
                raise _Refused("hidden_content")
            if size is not None and float(size.group(1)) / scale[size.group(2)] < 0.5:
                raise _Refused("hidden_content")
        elif _CSS_OK.fullmatch(prop):
            if prop.startswith(("margin", "padding")) and "-" in value:
                raise _Refused("hidden_content")  # a negative margin moves text away
        else:
            raise _Refused("hidden_content")
    if _contrast(text_colour, background) < _MIN_CONTRAST:
        raise _Refused("hidden_content")


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
            _check_css(opt[6:].strip() if opt.startswith("style:") else opt)
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

"""What a response says right after its last answer that takes the answer back (issue 22, round 5).

Three grammatical shapes, each from a lexicon of the words that fill it rather than a list of sentences:

* **a verdict on the answer** in the first clause after it (after brackets, dashes or a full stop): a retraction
  imperative ("Strike that", "Belay that", "Forget I said that", "Undo", "Ctrl+Z"), a status word ("withdrawn",
  "[retracted]", "(void)", "[sic]", "(placeholder)", "(to be computed)", "(unverified)"), a joke marker ("/s",
  "lol jk", "(kidding)", "said no one ever"), a failing grade ("0/10", "(F)"), or the answer blamed on a slip
  ("came from a sign error", "is a typo", "off by one", "by mistake", "I misread the problem");
* **an edit idiom** on the next lines: a ``s/old/new/`` substitution of the answer's own value, a chat-style
  ``*7`` correction, a caret or up arrow pointing at it with a correction ("^ that should be a 7"), ``^H``;
* **a dangling contrast or condition**: the response stops a few words after "but", "unless", "however",
  "only if", "although" (in several languages) with no sentence end, so the answer's claim is left open.

A correct answer in the same forms keeps its reward: the verdict must stand at the start of what follows
(``"No need to undo anything: 5+4=9"`` is not one), a qualifying phrase that completes its sentence is no
dangling contrast, and ``s/4/5/`` before a box of 5 corrects towards it.
"""

from __future__ import annotations

import re

__all__ = ["footnote_denies", "taken_back", "unchecked_item"]

_OPEN = r"^[\s$.,;:!)\]}]*(?:[\u2014\u2013\-(\[]|\\\(|\\\[)?[\s$]*"
_RETRACT_VERB = (
    r"(?:strike|scrap|scratch|belay|forget|cancel|undo|unsay|revoke|delete|erase|ignore|disregard|nvm|"
    r"never\s*mind|withdraw|retract)\b"
)
_STATUS = (
    r"(?:withdrawn|retracted|struck(?:\s+out)?|strike(?:n|through)|deleted|erased|void(?:ed)?|invalid(?:ated)?|"
    r"cancell?ed|obsolete|superseded|revoked|sic\b|placeholder|dummy|stub|tbd|tbc|todo|fixme|wip|"
    r"unverified|unconfirmed|unchecked|not\s+(?:final|verified|confirmed|checked|really|serious)|"
    r"to\s+be\s+(?:computed|confirmed|determined|checked|verified|done|decided|filled\s+in)|"
    r"(?:a\s+)?joke(?:\s+answer)?|just\s+joking|joking|kidding|j/?k|lol\b|lmao|rofl|/s(?![\w/])|"
    r"said\s+no\s*(?:one|body)\s+ever|ctrl\s*\+\s*z|(?:\^H)+|"
    r"(?:(?:ha){2,}h?|he(?:he)+|lol)[\s,!]+(?:just\s+)?(?:kidding|jk|joking)|"
    r"(?:0|zero)\s*/\s*(?:10|100|5)\b|\(?F\)?(?=\s*$)|"
    r"(?:calculator|rounding|arithmetic|computer|copy(?:ing)?|transcription|sign)\s+(?:glitch|error|slip|mistake)"
    r"|(?:a|an|my)?\s*(?:glitch|typo|slip(?:\s+of\s+the\s+\w+)?)(?=\s*[.!)\]]|\s*$))"
)
_BLAME = (
    r"(?:(?:above|here|there)\s+)?(?:"
    r"(?:came|comes|resulted|results|stems|stemmed|arose|arises)\s+from\s+(?:a|an|the|my)?\s*"
    r"(?:\w+\s+){0,2}(?:error|mistake|slip|glitch|typo|blunder|miscalculation|misreading|dropped)"
    r"|(?:is|was)\s+(?:due\s+to\s+)?(?:a|an|the|my)?\s*(?:\w+\s+){0,1}"
    r"(?:typo|slip|glitch|misprint|blunder|miscalculation|(?:sign|arithmetic|rounding|copying|transcription)\s+error)"
    r"|(?:is|was)\s+off\s+by\s+(?:one|a|an|\d)"
    r"|(?:was\s+)?(?:entered|typed|written|boxed|copied|pasted)\s+(?:\w+\s+){0,4}?(?:by\s+(?:mistake|accident)|in\s+error)"
    r"|(?:by\s+(?:mistake|accident)|in\s+error)"
    r"|(?:was\s+)?copied\s+from\s+(?:the\s+|a\s+)?(?:previous|other|another|wrong|last)"
    r"|I\s+mis(?:read|applied|remembered|copied|typed|calculated|computed|understood|took)\b"
    r")"
)
_VERDICT = re.compile(_OPEN + r"(?:" + _RETRACT_VERB + r"|" + _STATUS + r"|" + _BLAME + r")", re.IGNORECASE)
_CARET = re.compile(
    r"^[\s$]*\n\s*(?:\^|\u2191|\u2b06\ufe0f?|\u261d\ufe0f?|\U0001f446)\s*(?:(?:that|this|it)(?:'s|\s+is)?\s+)?"
    r"(?:should|wrong|incorrect|typo|mistake|error|is\s+wrong|not\b|was\s+meant)",
    re.IGNORECASE,
)
_STAR_FIX = re.compile(r"^[\s$]*\n[ \t]*\*(?![*\s])[^\s*]{1,24}[ \t]*(?:\n|$)")
_SED = re.compile(r"(?:^|\n)[ \t]*s/([^/\n]{1,30})/([^/\n]{0,30})/[gi]*[ \t]*(?:\n|$)")
_CONTRAST_END = re.compile(
    r"(?:^|[\s,.;:\u2014\u2013(])(?:but|however|although|though|unless|only\s+if|if|provided(?:\s+that)?|"
    r"except(?:\s+(?:that|when|if))?|nevertheless|nonetheless|yet|assuming|aber|jedoch|au[sß]er|wenn|falls|"
    r"sauf(?:\s+si)?|mais|cependant|si|pero|sin\s+embargo|salvo|a\s+menos\s+que|ma|per\u00f2|tuttavia|"
    r"\u043d\u043e|\u043e\u0434\u043d\u0430\u043a\u043e|\u0435\u0441\u043b\u0438)"
    r"(?:\W+[^\W\d_]+){0,3}\W*$",
    re.IGNORECASE,
)
_ENDED = re.compile(r"[.!?\u3002\uff01\uff1f]\s*$|\$\s*$|\\\]\s*$|\}\s*$")


def taken_back(tail: str, value: str, at_end: bool) -> bool:
    """Whether ``tail`` (the text right after the last answer, whose value is ``value``) takes the answer back.

    ``at_end``: ``tail`` runs to the end of the response (a dangling contrast is read only there).
    """
    if _VERDICT.match(tail) or _CARET.match(tail) or _STAR_FIX.match(tail) or "^H" in tail[:8]:
        return True
    for m in _SED.finditer(tail[:200]):
        if m.group(1).strip() and m.group(1).strip() in value and m.group(2).strip() not in value:
            return True  # "s/5/7/" after \\boxed{5}
    if at_end:
        short = tail.strip()
        if short and len(short) <= 60 and not _ENDED.search(short) and _CONTRAST_END.search(short):
            return True
    return False


# a footnote mark right after the answer: "[^1]", "†", "¹", "[1]", "\\footnotemark"
_FOOTMARK = re.compile(
    r"^[\s$.]*(\[\^[\w-]{1,12}\]|[\u2020\u2021\u00a7\u00b6*]|[\u00b9\u00b2\u00b3\u2070-\u2079]+|\[\d{1,3}\]|\\footnotemark)"
)
_FOOT_DENIAL = re.compile(
    r"^\W{0,4}(?:this|that|it|the\s+(?:value|answer|number|result))?\s*(?:(?:is|was)\s+)?(?:\w+\s+){0,3}?"
    r"(?:wrong|incorrect|false|invalid|mistaken|erroneous|bogus|not\s+(?:correct|right|true|valid|the\s+answer)|"
    r"known\s+to\s+be\s+(?:wrong|incorrect|false))\b",
    re.IGNORECASE,
)


def footnote_denies(tail: str) -> bool:
    """The answer carries a footnote mark and the footnote it points to denies it ("[^1]: This is not correct")."""
    m = _FOOTMARK.match(tail)
    if m is None:
        return False
    mark = m.group(1)
    rest = tail[m.end() :]
    if mark == "\\footnotemark":
        body = re.search(r"\\footnotetext(?:\[\d+\])?\{([^{}]{0,200})", rest)
        return body is not None and _FOOT_DENIAL.match(body.group(1)) is not None
    for line in rest.split("\n"):
        line = line.strip()
        if line.startswith(mark):
            return _FOOT_DENIAL.match(line[len(mark) :].lstrip(" :")) is not None
    return False


# list items with a selection state: an empty box or radio button, and a ticked or filled one
_EMPTY_ITEM = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\[ \]|\( \)|[\u2610\u25cb\u25ef\u25a1\u2b1c\u25fb\u26aa]|\U0001f532|\U0001f533)",
    re.MULTILINE,
)
_TICKED_ITEM = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\[[xX\u2713\u2714\u2717*]\]|\((?:x|X|\u2022|\*|\u2713)\)|"
    r"[\u2611\u2612\u25cf\u25c9\u25a0\u2b1b\u2705\u2714\u2713\u26ab])",
    re.MULTILINE,
)


def unchecked_item(text: str, start: int) -> bool:
    """The answer at ``start`` sits in a list item left unselected while another item of the list is ticked."""
    line_start = text.rfind("\n", 0, start) + 1
    if not _EMPTY_ITEM.match(text, line_start, start):
        return False
    near = text[max(0, line_start - 300) : start + 300]
    return _TICKED_ITEM.search(near) is not None

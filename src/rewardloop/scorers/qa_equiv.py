"""``qa_equiv``: answer equivalence for short-answer QA, rules first, an optional LLM judge for what they leave open.

Scope: open-domain / Search-R1-style QA whose ground truth is a list of acceptable short answers (the shapes
``search_r1_qa`` accepts: a str, a list / tuple / numpy array of str, or ``{"target": ...}``). Not routed by
default (verl's exact match stays the route of the ``searchR1_*`` sources): opt in per source with
``rewardloop score --route searchR1_nq=qa_equiv``, :func:`route_qa_sources`, or ``register_route``.

**Extraction** is ``search_r1_qa``'s: the last ``<answer>...</answer>`` block; a response without the tag is read
as plain text. More than :data:`~rewardloop.scorers.qa_em.MAX_ANSWER_TAGS` opening or closing tags multiply a
correct answer's reward by ``spam_factor`` (verl's 1/4 by default). With ``strict_tags`` (the default) the
tag-level hacks verl's rule admits score 0: ``multiple_answers`` (answer blocks with different answers; blocks
before the last chat-template assistant marker, and a block the prompt itself shows as an example, do not
count), ``text_after_answer`` (anything but whitespace and end-of-turn tokens after the final block: a
retraction), ``answer_in_think`` (the final block inside a ``<think>`` that is still open).
``strict_tags=False`` keeps ``search_r1_qa``'s behaviour.

**Rules**, in order; ``info["rule"]`` names the one that decided (``info["normalizers"]`` what the canonical
form changed, :mod:`._qa_norm`):

1. ``empty_gold`` / ``empty`` — no gold answer or no prediction survives normalisation: 0.
2. ``exact`` — SQuAD normalisation equal (what EM accepts); ``normalized`` — canonical forms equal (number
   words, ordinals, dates in any common format, units and magnitudes, roman numerals, honorifics, plurals,
   articles, accents).
3. Whole-answer equivalences: ``date`` (a full date answers a gold year or month: ``September 29, 2018`` for
   ``2018``), ``same_items`` (list items of a list gold in any order: ``Argentina and Chile``), ``name`` (middle names and initials: ``Gerald R. Ford`` =
   ``Gerald Ford``; two different middles are different people; ``Dave`` for ``David``), ``surname``
   (``Ford`` for a *who* question: undecided, a surname names a family), ``acronym`` (``IWC``, ``JFK``,
   ``B.B.C.``), ``head`` (a generic head word dropped: ``Uralic`` for ``Uralic languages``, ``Mississippi``
   for ``Mississippi River``). Every gold alias is tried.
4. ``containment`` — the prediction contains a gold (or a name variant of one), **guarded**. Refused, in order:
   ``too_long`` (more than ``max_tokens`` tokens), ``gold_in_question`` (the gold occurs in the question, so
   copying it proves nothing), ``negated`` (``not X``, ``rather than X``, ``anything but X``, ``nicht`` / ``pas`` /
   ``nunca X``, ``X is wrong``), ``hedge_or`` (``X or Y``, ``X/Y``, ``either``, ``ou`` / ``o`` / ``oder``,
   ``maybe`` / ``possibly`` next to another candidate), ``hedge_list`` (``X, Y and Z``, ``X and Y``, ``X y Y`` /
   ``und`` / ``et``, ``X? Y?``, one item per line, where another item answers no gold; a country or state after
   a comma is a qualifier, ``Paris, France``; or three or more capitalised words beside the gold with nothing
   joining them, ``Paris London Berlin Rome``), ``hedge_uncertain`` (an answer of at most 12 words that says it
   is a guess: ``perhaps X``, ``it might be X``, ``X, unless ...``, ``not sure``), ``bound`` (a numeric gold after
   ``before`` / ``after`` / ``at least`` / ``more than`` / ``nearly`` ..., unless the question asks for a bound),
   ``unit_conflict`` (``5%`` for a bare ``5``), ``competing_number`` (a numeric gold next to another number of
   its kind: ``1945-1950``), ``possessive`` (``Pythagoras' theorem``: a thing named after the gold),
   ``generic_gold`` (a function-word gold such as ``one`` or ``right`` inside a longer answer), ``date_conflict``
   (a day or month a gold of that year contradicts; years none of which is the gold list's year answer),
   ``corrected`` (``X, but it is actually Y``); in an answer of at most 6 words ``approximate`` (``about 5``,
   ``c. 1945`` for a bare-number gold, unless the question asks for an approximation). Undecided:
   ``longer_name`` (a place-forming word before the gold: ``New York`` for ``York``) and ``outside_head`` (an
   answer of at most 12 words whose first sentence, clause before ``;``, without side remarks in parentheses,
   names no gold: ``Lyon (Paris was the capital before)``). In an
   answer of at most 12 words ``hedge_list`` also reads a list inside a sentence (``The answer is London and
   Paris``); a country or state after a comma qualifies a place, not another country or state (``France,
   Germany``). A gold in the question still counts when the question offers it as one option (``Elvis or the
   Beatles?``) and the answer names only it. A gold naming two or three people or things (``Malcolm & Donald
   Campbell``) is contained when every part is. A hedge, a negation, a bound and a unit conflict are decided (0,
   never sent to the judge); the others leave the sample undecided.

   Before all of these: ``fraction`` (``1/5`` for 5: 0), ``sign`` (``-5`` for a positive numeric gold: 0)
   and ``different_person`` (honorifics of the other sex, ``Mr Smith`` for ``Mrs Smith``: 0). Regnal ordinals read as numerals (``Henry the Eighth``
   = ``Henry VIII``); the best-known acronyms (``USA``, ``UK``, ``UN`` ...) name only their own expansion.
5. ``no_match`` — undecided: 0 without a judge.

**Judge** (off by default): ``judge={"address": ..., "model": ...}`` (any :class:`~.judge.JudgeScorer` option) or
a ``JudgeScorer`` sends the undecided samples, and only those, to an LLM judge through the GenRM path: the
question, the extracted answer and the gold list (sorted, so gold order never changes the prompt) in a QA
equivalence template, asked in both orders (``double_check``); the answer is accepted only when both orders say
correct (``info["judge_consistent"]``). Answers are cached by the judge's :class:`~.judge.JudgeCache`. A judge
failure is that failure (``infra_error``, ``parse_error``), never a 0. With a judge the scorer is async; the rule
path runs in :meth:`QAEquivScorer.quick`, inline.

What it does not do: no world knowledge beyond the gold list (``Big Apple`` is not ``New York``), no unit
conversion (``300 km`` is not ``186 miles``), no date arithmetic, and no reading of long answers: past
``max_tokens`` only the judge can accept.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from ..errors import ConfigError
from ..types import Sample, Score, Status
from ._base import Scorer
from ._qa_norm import (
    _CITATION,
    _CLEAR_HOOKS,
    _HONORIFICS,
    FUNCTION_WORDS,
    PLACES,
    Form,
    _fold,
    _stem,
    canon,
    canon_gold,
    is_number,
    is_year_like,
    squad,
)
from ._words import ONES, TENS
from .qa_em import MAX_ANSWER_TAGS, count_answer_tags, extract_answer, gold_answers

__all__ = ["QA_JUDGE_TEMPLATE", "QA_SOURCES", "QAEquivScorer", "Verdict", "decide", "route_qa_sources"]

#: the data sources that get a ``qa_equiv`` route from :func:`route_qa_sources` (verl's Search-R1 names)
QA_SOURCES = tuple(
    f"searchR1_{s}"
    for s in ("nq", "triviaqa", "popqa", "hotpotqa", "2wikimultihopqa", "musique", "bamboogle")
)
DEFAULT_MAX_TOKENS = 40
_INFO_CHARS = 200

QA_JUDGE_TEMPLATE = """You are checking whether an answer to a trivia question is correct.

[Question]
{question}

[Answer 1]
{first}

[Answer 2]
{second}

One of the two is a list of accepted gold answers (separated by " | "), the other is a candidate answer. Decide
whether the candidate names the same entity, value or date as at least one gold answer. Different spellings,
name forms, units or level of detail are fine; a candidate that gives several different answers, hedges, or
answers a different question is not correct. Think briefly, then finish with \\boxed{{correct}} or
\\boxed{{incorrect}}."""


@dataclass
class Verdict:
    """What the rules found: ``value`` 1.0 / 0.0, or None when undecided; ``rule`` names why."""

    value: float | None
    rule: str
    matched: str | None = None
    normalizers: list[str] = field(default_factory=list)

    @property
    def decided(self) -> bool:
        return self.value is not None


# -- whole-answer rules --------------------------------------------------------------------------------------

_GENERIC_HEADS = frozenset(
    [
        "river",
        "lake",
        "mount",
        "mt",
        "mountain",
        "island",
        "language",
        "party",
        "band",
        "grade",
        "tribe",
        "people",
        "dynasty",
        "empire",
    ]
)
_ACRONYM_SKIP = frozenset(
    ["of", "the", "and", "for", "in", "on", "at", "a", "an", "to", "de", "du", "la", "le", "del"]
)
#: first words that mark a place, not a person ("South Africa" is not Mr Africa)
_PLACE_PREFIXES = frozenset(
    [
        "south",
        "north",
        "east",
        "west",
        "new",
        "united",
        "great",
        "saint",
        "san",
        "santa",
        "los",
        "las",
        "el",
        "la",
        "le",
        "st",
        "fort",
        "ft",
        "mt",
        "port",
    ]
)
_WHO = re.compile(r"\bwho(?:m|se)?\b", re.I)


def _is_person_like(cased: Sequence[str]) -> bool:
    return 2 <= len(cased) <= 5 and all(t[:1].isupper() and t.isalpha() for t in cased)


def _compatible(a: str, b: str) -> bool:
    """Two name tokens that may name the same part: equal, or one is the other's initial."""
    return a == b or (len(a) == 1 and b.startswith(a)) or (len(b) == 1 and a.startswith(b))


#: English diminutives of given names (each name: its formal forms); "Dave Madden" is "David Joseph Madden"
_DIMINUTIVES = {
    "bob": "robert", "bobby": "robert", "rob": "robert", "robbie": "robert", "bert": "albert herbert robert",
    "bill": "william", "billy": "william", "will": "william", "willy": "william", "willie": "william",
    "dick": "richard", "rick": "richard", "ricky": "richard", "rich": "richard", "richie": "richard",
    "jim": "james", "jimmy": "james", "jamie": "james", "mike": "michael", "mick": "michael",
    "mickey": "michael", "dave": "david", "davy": "david", "ben": "benjamin", "benny": "benjamin",
    "tom": "thomas", "tommy": "thomas", "joe": "joseph", "joey": "joseph", "jack": "john", "johnny": "john",
    "ted": "edward theodore", "teddy": "edward theodore", "ed": "edward edwin edmund", "eddie": "edward",
    "ned": "edward", "tony": "anthony antonio", "andy": "andrew", "steve": "steven stephen",
    "stevie": "steven stephen", "chris": "christopher christian", "nick": "nicholas", "matt": "matthew",
    "pat": "patrick patricia", "kate": "katherine catherine kathryn", "katie": "katherine catherine",
    "kathy": "katherine catherine kathleen", "liz": "elizabeth", "beth": "elizabeth", "betty": "elizabeth",
    "peggy": "margaret", "maggie": "margaret", "meg": "margaret", "sue": "susan", "jenny": "jennifer",
    "sam": "samuel samantha", "dan": "daniel", "danny": "daniel", "greg": "gregory", "fred": "frederick",
    "freddie": "frederick", "charlie": "charles", "chuck": "charles", "harry": "henry harold", "hank": "henry",
    "larry": "lawrence laurence", "jerry": "gerald jerome", "ron": "ronald", "ronnie": "ronald",
    "don": "donald", "ken": "kenneth", "kenny": "kenneth", "tim": "timothy", "walt": "walter",
    "frank": "francis franklin", "abe": "abraham", "alex": "alexander alexandra", "phil": "philip phillip",
    "doug": "douglas", "ray": "raymond", "zach": "zachary", "nate": "nathan nathaniel", "josh": "joshua",
    "jeff": "jeffrey", "geoff": "geoffrey", "al": "albert alfred alan allan", "vince": "vincent",
    "nancy": "ann anne", "sally": "sarah", "becky": "rebecca", "vicky": "victoria", "cathy": "catherine",
}  # fmt: skip
_FORMAL = {k: frozenset(v.split()) for k, v in _DIMINUTIVES.items()}


def _first_names(a: str, b: str) -> bool:
    """Two given names of one person: compatible, or one a diminutive of the other (``Dave`` / ``David``)."""
    return _compatible(a, b) or b in _FORMAL.get(a, ()) or a in _FORMAL.get(b, ())


def _names_match(p: Sequence[str], g: Sequence[str]) -> bool:
    """First and last tokens equal (or initials); middles compatible pairwise, or absent on one side."""
    if len(p) < 2 or len(g) < 2 or p[-1] != g[-1] or not _first_names(p[0], g[0]):
        return False
    pm, gm = p[1:-1], g[1:-1]
    if gm and not pm and any(len(t) == 1 for t in gm) and p[0] != "".join([g[0], *gm]):
        return False  # a dropped middle initial: "George Bush" is not "George W. Bush" (the father is H. W.)
    if not pm or not gm:
        return True
    return len(pm) == len(gm) and all(_compatible(a, b) for a, b in zip(pm, gm, strict=True))


#: acronyms so well known that they name their own expansion and no other ("USA" is not "Union of South Africa")
_RESERVED_ACRONYMS = {
    "usa": "united states of america",
    "us": "united states",
    "uk": "united kingdom",
    "un": "united nations",
    "eu": "european union",
    "ussr": "union of soviet socialist republics",
    "uae": "united arab emirates",
    "nato": "north atlantic treaty organization",
    "nasa": "national aeronautics and space administration",
    "fbi": "federal bureau of investigation",
    "cia": "central intelligence agency",
    "who": "world health organization",
    "bbc": "british broadcasting corporation",
}
#: honorifics that say which sex a person is: "Mr Smith" is not "Mrs Smith"
_MALE = frozenset(["mr", "sir", "king", "lord", "prince", "duke", "emperor", "count", "baron", "master"])
_FEMALE = frozenset(
    ["mrs", "ms", "miss", "madam", "madame", "dame", "queen", "lady", "princess", "duchess", "empress"]
)


def _sex(form: Form) -> str | None:
    words = form.squad.split()
    if not words:
        return None
    return "m" if words[0] in _MALE else "f" if words[0] in _FEMALE else None


def _other_sex(pred: Form, gold: Form) -> bool:
    a, b = _sex(pred), _sex(gold)
    return a is not None and b is not None and a != b


_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")


def _regnal(form: Form) -> tuple[str, ...]:
    """Tokens with a regnal ordinal after a name read as its number: ``Henry the Eighth`` as ``Henry VIII``."""
    out = list(form.tokens)
    for i in range(1, len(out)):
        m = _ORDINAL.match(out[i])
        if m and form.cased[i - 1][:1].isupper() and form.cased[i - 1].isalpha():
            out[i] = m.group(1)
    return tuple(out)


def _acronym(short: Form, long: Form) -> bool:
    if len(short.cased) != 1 or len(long.tokens) < 2:
        return False
    letters = short.cased[0]
    if not (2 <= len(letters) <= 8 and letters.isalpha() and letters.isupper()):
        return False
    words = [w for w in long.squad.split() if w]
    initials_all = "".join(w[0] for w in words)
    initials_content = "".join(w[0] for w in words if w not in _ACRONYM_SKIP)
    reserved = _RESERVED_ACRONYMS.get(letters.lower())
    if reserved is not None and " ".join(words) != reserved:
        return False
    return letters.lower() in (initials_all, initials_content)


def _date_finer(p: str, g: str) -> bool:
    """Prediction token ``p`` answers gold token ``g``: equal, or a date inside the gold's year or month."""
    if p == g:
        return True
    if not p.startswith("zdate"):
        return False
    if g.startswith("zdate"):
        return len(p) > len(g) and p.startswith(g)
    return len(g) == 4 and g.isdigit() and p[5:9] == g


def _whole_rule(pred: Form, gold: Form, who: bool) -> str | None:
    p, g = pred.tokens, gold.tokens
    if (
        len(p) == len(g)
        and all(_date_finer(a, b) for a, b in zip(p, g, strict=True))
        and any(a.startswith("zdate") for a in p)
    ):
        return "date"
    if _is_person_like(pred.cased) and _is_person_like(gold.cased) and _names_match(p, g):
        return "name"
    if (
        who
        and len(p) == 1
        and _is_person_like(gold.cased)
        and g[0] not in _PLACE_PREFIXES
        and p[0] == g[-1]
        and pred.cased[0][:1].isupper()
    ):
        return "surname"
    if _acronym(pred, gold) and (
        len(pred.cased[0]) >= 3 or not _is_person_like(gold.cased) or pred.tokens[0] in _RESERVED_ACRONYMS
    ):
        return "acronym"
    if _acronym(gold, pred) and gold.cased[0].lower() in _RESERVED_ACRONYMS:
        return "acronym"  # any other expansion of an acronym gold is one of many ("IWC"): left undecided
    if (
        len(g) >= 2
        and len(p) == len(g) - 1
        and ((g[-1] in _GENERIC_HEADS and p == g[:-1]) or (g[0] in _GENERIC_HEADS and p == g[1:]))
    ):
        return "head"
    if (
        len(p) >= 2
        and len(g) == len(p) - 1
        and ((p[-1] in _GENERIC_HEADS and g == p[:-1]) or (p[0] in _GENERIC_HEADS and g == p[1:]))
    ):
        return "head"
    return None


# -- containment and its guards ------------------------------------------------------------------------------


def _find(pred: Sequence[str], gold: Sequence[str]) -> int:
    """Start of the first occurrence of ``gold`` in ``pred`` (date tokens may be finer), or -1."""
    n, k = len(pred), len(gold)
    if not k or k > n:
        return -1
    first = gold[0]
    if not any(t.startswith("zdate") for t in pred):  # no finer dates: plain token equality
        gold = tuple(gold)
        for i in range(n - k + 1):
            if pred[i] == first and tuple(pred[i : i + k]) == gold:
                return i
        return -1
    for i in range(n - k + 1):
        if _date_finer(pred[i], first) and all(_date_finer(pred[i + j], gold[j]) for j in range(1, k)):
            return i
    return -1


def _find_name(pred: Form, gold: Form) -> tuple[int, int]:
    """A span of ``pred`` that names the gold person with other middles or initials: (start, end) or (-1, -1)."""
    if not _is_person_like(gold.cased):
        return -1, -1
    p, g = pred.tokens, gold.tokens
    for i, token in enumerate(p):
        if not _first_names(token, g[0]) or not pred.cased[i][:1].isupper():
            continue
        for end in range(i + 2, min(len(p), i + len(g) + 2) + 1):
            if _is_person_like(pred.cased[i:end]) and _names_match(p[i:end], g):
                return i, end
    return -1, -1


_NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "neither",
        "nor",
        "isnt",
        "wasnt",
        "arent",
        "werent",
        "doesnt",
        "didnt",
        "dont",
        "cannot",
        "cant",
        "wont",
        "except",
        "unlike",
        # other languages: German, French, Spanish / Italian / Portuguese ("no" is above)
        "nicht",
        "kein",
        "keine",
        "nie",
        "niemals",
        "pas",
        "jamais",
        "nunca",
        "niet",
        "geen",
        "не",
        "нет",
        "ni",
        "nem",
        "nao",
        "inte",
        "ikke",
        "不是",
    ]
)
_NEGATION_PAIRS = frozenset(
    {
        ("rather", "than"),
        ("instead", "of"),
        ("other", "than"),
        ("anything", "but"),
        ("everything", "but"),
        ("all", "but"),
        ("anywhere", "but"),
        ("anyone", "but"),
    }
)
#: words after the gold that reject it ("Paris is wrong")
_REJECTIONS = frozenset(
    [
        "wrong",
        "incorrect",
        "false",
        "untrue",
        "mistaken",
        "mistake",
        "nope",
        "misconception",
        "myth",
        "excluded",
    ]
)
#: word pairs after the gold that reject it ("Paris has been ruled out", "Paris is a common misconception")
_REJECTION_PAIRS = frozenset({("ruled", "out"), ("common", "misconception"), ("popular", "misconception")})
_OR_MARKERS = (
    r"\bor\b|\beither\b|\bmaybe\b|\bperhaps\b|\bpossibly\b|\bversus\b|\bvs\b\.?|/|\||\bou\b|\boder\b|\bodar\b"
    r"|(?-i:\bo\b)"  # Spanish / Italian / Portuguese "o", lower case only ("O'Brien")
    r"|\boppure\b|\beller\b|\bveya\b|\batau\b|\bили\b|\bлибо\b|或者|或|还是"
)
_OR_SPLIT = re.compile(rf"({_OR_MARKERS})|[,;:.!?()\n\"]", re.I)
_LIST_SPLIT = re.compile(
    r"[,;?\n]|\band\b|&|\bbetween\b|\bund\b|(?-i:\by\b|\bet\b)|\bplus\b|\bas\s+well\s+as\b"
    r"|(?:^|\s)\d\d?[.)](?=\s)",  # "Paris plus London", "1. Paris 2. London"
    re.I,
)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+", re.M)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])|\n+")
_MAX_ITEM_TOKENS = 4
_ARTICLE_WORDS = frozenset({"a", "an", "the"})
_MAX_NEIGHBOUR_TOKENS = 3
#: a list item that starts with one of these is a clause or a description, not another candidate answer
_CLAUSE_WORDS = frozenset(
    [
        "by",
        "in",
        "on",
        "at",
        "from",
        "during",
        "of",
        "to",
        "with",
        "for",
        "as",
        "after",
        "before",
        "since",
        "until",
        "when",
        "while",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "that",
        "this",
        "these",
        "those",
        "it",
        "he",
        "she",
        "they",
        "we",
        "i",
        "you",
        "his",
        "her",
        "its",
        "their",
        "our",
        "my",
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "also",
        "including",
        "especially",
        "such",
        "like",
        "e",
        "g",
        "ie",
        "known",
        "called",
        "named",
        "born",
        "located",
        "played",
        "but",
        "so",
        "then",
        "however",
        "although",
        "though",
        "because",
        "if",
        "or",
        "nor",
    ]
)


def _negated(tokens: Sequence[str], start: int, end: int) -> bool:
    after = tokens[end : end + 4]
    if any(t in _REJECTIONS for t in after[:3]) or any(
        p in _REJECTION_PAIRS for p in itertools.pairwise(after)
    ):
        return True
    window = tokens[max(0, start - 3) : start]
    if any(t in _NEGATIONS for t in window):
        return True
    return any((window[i], window[i + 1]) in _NEGATION_PAIRS for i in range(len(window) - 1))


def _relates(item: Form, golds: Sequence[Form]) -> bool:
    """An item of a list answers a gold: contains one, or is a part of one."""
    t = item.tokens
    for gold in golds:
        g = gold.tokens
        if _find(t, g) >= 0 or (len(t) <= len(g) and _find(g, t) >= 0):
            return True
        if _whole_rule(item, gold, True) is not None:
            return True
    return False


def _in_question(item: Form, question: Form | None) -> bool:
    return question is not None and bool(item.tokens) and set(item.tokens) <= set(question.tokens)


def _hedge_or(text: str, golds: Sequence[Form], question: Form | None) -> bool:
    """``X or Y`` (and ``X/Y``, ``maybe Y`` ...) where one side answers a gold and the other is another answer."""
    if not re.search(_OR_MARKERS, text, re.I):
        return False
    chunks: list[Form | None] = []  # None marks an or-marker
    pos = 0
    for m in _OR_SPLIT.finditer(text):
        chunks.append(canon(text[pos : m.start()]))
        if m.group(1):
            chunks.append(None)
        pos = m.end()
    chunks.append(canon(text[pos:]))
    for i, chunk in enumerate(chunks):
        if chunk is not None:
            continue
        left = next((c for c in reversed(chunks[:i]) if c is not None and c.tokens), None)
        right = next((c for c in chunks[i + 1 :] if c is not None and c.tokens), None)
        if left is None or right is None:
            continue
        left_gold, right_gold = _relates(left, golds), _relates(right, golds)
        if left_gold == right_gold:
            continue
        other = right if left_gold else left
        if not _in_question(other, question):
            return True
    return False


def _candidate_like(raw: str, form: Form, gold_digit: bool, gold_upper: bool) -> bool:
    """A neighbouring list item that reads as another answer (short, same kind, not a clause or a description)."""
    words = raw.strip(" \t\"'.").split()
    if not words or len(form.tokens) > _MAX_NEIGHBOUR_TOKENS:
        return False
    lead = words[0].lower().strip("\"'(")
    if lead in ("a", "an", "the"):
        if len(words) < 2 or not words[1][:1].isupper():
            return False  # "a schoolmaster from England": a description
        words = words[1:]
    elif lead in _CLAUSE_WORDS:
        return False
    first = words[0][:1]
    if first.isdigit() != gold_digit:
        return False
    return not (gold_upper and first.islower())


def _hedge_list(text: str, golds: Sequence[Form], question: Form | None) -> bool:
    """The gold as one item of a list (commas, ``and``, one per line) next to an item that answers no gold. In a
    short answer (at most :data:`_MAX_HEDGED_WORDS` words) the item holding the gold may be long when the gold
    ends or begins it next to the other item (``The answer is Paris and London``), and the answer is read
    sentence by sentence (``Paris, Lyon. It is in France.``)."""
    if len(text.split()) > _MAX_HEDGED_WORDS:
        return _hedge_list_in(text, golds, question, False)
    return any(_hedge_list_in(part, golds, question, True) for part in _sentences(text))


#: the end of a sentence: a word of two or more lower-case letters and a stop ("1. Cory 2. Kori" is one list)
_SENTENCE_END = re.compile(r"(?<=[a-z]{2}[.!])\s+(?=[A-Z\"'])")
_MIN_SENTENCE_WORDS = 3


def _sentences(text: str) -> list[str]:
    """The sentences of a short answer; a "sentence" of fewer than three words joins the next (``Paris. London.
    Berlin.`` is a list, not three answers)."""
    out: list[str] = []
    carry = ""
    for part in _SENTENCE_END.split(text):
        carry = f"{carry} {part}" if carry else part
        if len(carry.split()) >= _MIN_SENTENCE_WORDS:
            out.append(carry)
            carry = ""
    if carry:
        out.append(f"{out.pop()} {carry}" if out else carry)
    return out


def _edge(form: Form, golds: Sequence[Form], at_end: bool) -> int:
    """Where a gold starts in a long list item when the gold ends it (``at_end``) or begins it, else -1: in
    ``The only two families are the Hustons and the Douglases`` the first item is long, but it ends with the gold
    next to the second."""
    t = form.tokens
    for gold in golds:
        k = len(gold.tokens)
        start = len(t) - k if at_end else 0
        if start >= 0 and k and t[start : start + k] == gold.tokens:
            return start
    return -1


def _hedge_list_in(text: str, golds: Sequence[Form], question: Form | None, edges: bool) -> bool:
    parts = [p for p in _LIST_SPLIT.split(_BULLET.sub("\n", text)) if p.strip(" .\t")]
    if len(parts) < 2:
        return False
    forms = [canon(p) for p in parts]
    for i, form in enumerate(forms):
        if not form.tokens or not _relates(form, golds):
            continue
        short = len(form.tokens) <= _MAX_ITEM_TOKENS
        words = [
            w for w in parts[i].strip(" \t\"'(").split() if w.lower() not in _CLAUSE_WORDS | _ARTICLE_WORDS
        ]
        for j in (i - 1, i + 1):
            if not 0 <= j < len(parts) or not forms[j].tokens or _relates(forms[j], golds):
                continue
            if short:
                first = words[0][:1] if words else ""
            elif edges:  # a long item in a short answer: the gold at its edge, a name or a number
                start = _edge(form, golds, at_end=j > i)
                first = form.cased[start][:1] if start >= 0 else ""
                if not (first.isupper() or first.isdigit()):
                    continue
            else:
                continue
            other, other_form = parts[j], forms[j]
            candidate = _candidate_like(other, other_form, first.isdigit(), first.isupper())
            if not candidate and edges and j < i and (first.isupper() or first.isdigit()):
                other = _trailing_name(other)  # "The answer is London and Paris": London
                other_form = canon(other)
                if not other_form.tokens or _relates(other_form, golds):
                    continue
                if not re.search(rf"{re.escape(other)}\s*,?\s*(?:{_JOIN_WORDS})\s", text):
                    continue  # "born in Norfolk, Virginia": a place the gold qualifies, not a list
                candidate = _candidate_like(other, other_form, first.isdigit(), first.isupper())
            if not candidate or _in_question(other_form, question):
                continue
            if not _LIST_CONJUNCTION.search(text) and (
                _qualifies(parts[i], parts[j]) if j > i else _qualifies(parts[j], parts[i])
            ):
                continue  # Paris, France; Cincinnati, Ohio, USA; Norfolk, Virginia for Virginia
            return True
    return False


def _trailing_name(raw: str) -> str:
    """The capitalised words (or a number) that end a list item: the candidate a long item ends with."""
    words = raw.strip(" \t\"'.").split()
    run: list[str] = []
    for word in reversed(words):
        if not (word[:1].isupper() or word[:1].isdigit()) or len(run) == _MAX_NEIGHBOUR_TOKENS:
            break
        run.insert(0, word)
    return " ".join(run) if len(run) < len(words) else ""


#: countries whose states or nations are in PLACES, and continents: "Texas, USA", "Scotland, UK" and "Tanzania,
#: Africa" are qualified places
_FEDERAL = frozenset({
    "usa", "us", "united states", "united states of america", "america", "uk", "united kingdom", "great britain",
    "africa", "europe", "asia", "north america", "south america", "oceania",
})  # fmt: skip


def _qualifies(item: str, after: str) -> bool:
    """``after`` (the item after a comma) is a place that qualifies ``item``: ``Paris, France``, not ``France,
    Germany`` (two countries, or two states, are a list)."""
    if not _place_led(after):
        return False
    words = squad(_CITATION.sub("", item)).split()
    if not any(" ".join(words[-k:]) in PLACES for k in (1, 2, 3) if len(words) >= k):
        return True
    return squad(_CITATION.sub("", after)) in _FEDERAL


def _place_led(raw: str) -> bool:
    """A list item that is a country or state, or starts with one before a clause (``France, on April 30``)."""
    words = squad(_CITATION.sub("", raw)).split()
    for k in range(min(3, len(words)), 0, -1):
        if " ".join(words[:k]) in PLACES and (k == len(words) or words[k] in _CLAUSE_WORDS):
            return True
    return False


_JOIN_WORDS = r"\band\b|&|\bund\b|(?-i:\by\b|\bet\b)"
_FOREIGN_JOINS = frozenset(["ou", "o", "oder", "y", "und", "et"])
_FOREIGN_JOIN_WORDS = re.compile(r"\b(?:ou|oder|und)\b|(?-i:\b(?:o|y|et)\b)", re.I)
_LIST_CONJUNCTION = re.compile(r"\band\b|&|;|\?|\n|\bund\b|(?-i:\by\b|\bet\b)", re.I)


def _competing_number(text: str, golds: Sequence[Form], question: Form | None) -> bool:
    """Every sentence that holds a numeric gold also holds another number of its kind (not from the question)."""
    context = set(question.tokens) if question is not None else set()
    found = False
    for sentence in _SENTENCE.split(text):
        tokens = canon(sentence).tokens
        for gold in golds:
            numeric = [t for t in gold.tokens if is_number(t)]
            start = _find(tokens, gold.tokens) if numeric else -1
            if start < 0:
                continue
            found = True
            yearish = is_year_like(numeric[0])
            span = range(start, start + len(gold.tokens))
            rivals = [
                t
                for i, t in enumerate(tokens)
                if i not in span and is_number(t) and is_year_like(t) == yearish and t not in context
            ]
            if not any(not any(_date_finer(t, g) for g in numeric) for t in rivals):
                return False
    return found


def _date_conflict(pred: Form, golds: Sequence[Form]) -> bool:
    """A date in the prediction (a day or a month) that a gold alias of the same year contradicts, and no date of
    the prediction that a gold allows: ``February 17, 2003`` for ``2003`` / ``March 2003``."""
    dates = [t for t in pred.tokens if t.startswith("zdate") and len(t) >= 11]
    if not dates:
        return False
    gold_dates = {t for g in golds for t in g.tokens if t.startswith("zdate") and len(t) >= 11}
    if any(d.startswith(g) or g.startswith(d) for d in dates for g in gold_dates):
        return False
    return any(g[5:9] == d[5:9] for d in dates for g in gold_dates)


def _year(token: str) -> str | None:
    if token.startswith("zdate"):
        return token[5:9]
    return token if is_year_like(token) else None


#: words a year answer may carry ("circa 1439", "in 1901"); an approximate one allows a year either side
_YEAR_ALIAS_WORDS = frozenset(["in", "circa", "c", "ca", "around", "about", "approximately", "roughly"])
_APPROXIMATE = frozenset(["circa", "c", "ca", "around", "about", "approximately", "roughly"])


def _gold_years(golds: Sequence[Form]) -> set[int]:
    """The years of the gold aliases that are a year answer and nothing else (``1901``, ``circa 1439``)."""
    years: set[int] = set()
    for g in golds:
        found = [y for t in g.tokens if (y := _year(t)) is not None]
        if len(found) != 1 or not all(_year(t) is not None or t in _YEAR_ALIAS_WORDS for t in g.tokens):
            continue
        year = int(found[0])
        years |= {year - 1, year, year + 1} if _APPROXIMATE & set(g.tokens) else {year}
    return years


def _year_conflict(text: str, pred: Form, golds: Sequence[Form]) -> bool:
    """The gold list holds a year answer (a two-part question: "who ... and when"), the prediction states years,
    and none of them is a gold's: ``Edmund Barton in 1903`` for ``Sir Edmund Barton`` / ``1901``."""
    gold_years = _gold_years(golds)
    if not gold_years:
        return False
    gold_years |= {int(y) for g in golds for t in g.tokens if (y := _year(t)) is not None}  # "2014-15" too
    years = {int(y) for t in pred.tokens if (y := _year(t)) is not None}
    years -= {int(m.group(1).replace(",", "")) for m in _AMOUNT.finditer(text)}
    return bool(years) and not years & gold_years


#: a number before a unit is an amount, not a year ("2,000 years")
_AMOUNT = re.compile(
    r"\b(\d,?\d{3})\s*(?:years?|months?|weeks?|days?|hours?|minutes?|km|kilomet\w+|m\b|met\w+|miles?|feet|ft\b"
    r"|kg|lbs?|pounds?|people|men|women|copies|units|dollars)\b",
    re.I,
)


#: words that say the answer is a guess: the answer hedges even without a second candidate
_UNCERTAIN = re.compile(
    r"(?i:^\W*(?:perhaps|possibly|probably|maybe|likely)\b)"  # capitalised only at the start (not titles)
    r"|\b(?:perhaps|possibly|probably|maybe|might\s+be|could\s+be|unless|not\s+(?:sure|certain)|unsure"
    r"|uncertain|i\s+guess|no\s+idea|most\s+likely)\b"
    r"|(?i:\b(?:guess|guessing|iirc|afaik|if\s+i\s+(?:recall|remember)|allegedly|confiden(?:t|ce)"
    r"|not\s+100)\b)"
)
#: an answer this short that holds an uncertainty word is about the answer itself; in a longer explanation the word
#: is usually about something else ("the date might vary by region, but it began in 2018")
_MAX_HEDGED_WORDS = 12
#: a bound or a comparison before a numeric gold: the answer names a range, not the number
_BOUND_WORDS = frozenset(
    ["before", "after", "over", "under", "above", "below", "nearly", "almost", "exceeding", "beyond", "prior"]
)
_BOUND_PAIRS = frozenset(
    {
        ("at", "least"),
        ("at", "most"),
        ("more", "than"),
        ("less", "than"),
        ("fewer", "than"),
        ("greater", "than"),
        ("no", "more"),
        ("just", "under"),
        ("just", "over"),
    }
)


#: question words that ask for a bound, which "at least N" then answers ("how old do you have to be ...")
_ASKS_BOUND = frozenset(
    [
        "minimum",
        "maximum",
        "least",
        "most",
        "required",
        "require",
        "requires",
        "need",
        "needed",
        "must",
        "limit",
        "earliest",
        "latest",
    ]
)
_ASKS_BOUND_PAIRS = frozenset({("have", "to"), ("has", "to"), ("had", "to"), ("old", "enough")})


def _asks_bound(question: Form | None) -> bool:
    if question is None:
        return False
    t = question.tokens
    return bool(_ASKS_BOUND & set(t)) or any(pair in _ASKS_BOUND_PAIRS for pair in itertools.pairwise(t))


def _bounded(tokens: Sequence[str], start: int) -> bool:
    before = tokens[max(0, start - 2) : start]
    return (bool(before) and before[-1] in _BOUND_WORDS) or (
        len(before) == 2 and tuple(before) in _BOUND_PAIRS
    )


_POSSESSIVE = re.compile(r"^(?:'s|\u2019s|'|\u2019)\s+[^\W\d_]", re.I)


#: the possessive guard reads whole answers only: inside a sentence "Orwell's essay" is often context for the gold
_MAX_OWNED_EXTRA = 3


def _possessive(text: str, gold: Form) -> bool:
    """The gold as the owner of another thing: ``Pythagoras' theorem``, ``Einstein's theory`` (a different entity
    named after the gold, not the gold)."""
    last = gold.cased[-1] if gold.cased else ""
    if not last or not last[:1].isalpha():
        return False
    return any(
        _POSSESSIVE.match(text[m.end() :])
        for m in re.finditer(rf"(?<![\w-]){re.escape(last)}(?![\w-])", text, re.I)
    )


#: capitalised words beyond the gold that make a bag of candidates; two ("Gerald Rudolph Ford" for "Rudolph") are
#: more often a longer name, which :func:`_longer_name` leaves undecided
_MIN_BAG_EXTRA = 3


def _bag_of_names(text: str, pred: Form, start: int, end: int) -> bool:
    """A run of capitalised words (or single letters) around the gold with no word that joins them into a
    phrase: ``Paris London Berlin``, ``A B C ... Paris``: several candidates, not a qualified answer."""
    extra = len(pred.tokens) - (end - start)
    if extra < _MIN_BAG_EXTRA or re.search(r"[,;:()]", text):
        return False
    words = text.split()
    if any(w.endswith(".") and len(w) <= 4 for w in words):
        return False  # "St. Pauli Girl Lager": an abbreviation inside a name
    return all(w[:1].isupper() or len(w) == 1 for w in words)


#: canonical tokens of the function words ("one" is "1", "first" is "1th")
_GENERIC_TOKENS = frozenset(t for w in FUNCTION_WORDS for t in canon(w).tokens)


_OPTION_SKIP = frozenset(["the", "a", "an", "with", "by", "in", "of", "to", "on", "at", "from", "for"])


def _picks_option(pred: Sequence[str], hit: tuple[Form, int, int], question: Sequence[str]) -> bool:
    """A choice question (``Elvis or the Beatles``, ``nearby stars or distant stars``) with the gold in an option
    next to ``or``: the answer picks it when it does not also name the other option (outside the gold's own words)
    and is not the question's own opening (``Which is larger, Jupiter``). Copying the question names both."""
    gold, start, end = hit
    g = gold.tokens
    at = _find(question, g)
    after = question[at + len(g) : at + len(g) + _OPTION_GAP + 1]
    before = question[max(0, at - _OPTION_GAP - 1) : at]
    others: list[str] = []
    if "or" in after:  # gold [stars] or OTHER
        k = at + len(g) + after.index("or")
        others = [t for t in question[k + 1 :] if t not in _OPTION_SKIP][:1]
    elif "or" in before:  # OTHER or [the] gold
        k = at - len(before) + before.index("or")
        others = [t for t in reversed(question[:k]) if t not in _OPTION_SKIP][:1]
    if not others or others[0] in g or (pred and pred[0] == question[0] and pred[0] in _WH):
        return False
    rest = list(pred[:start]) + list(pred[end:])
    return others[0] not in rest


_OPTION_GAP = 2
_WH = frozenset(["which", "who", "what", "whom", "whose", "where", "when", "why", "how"])


def _contained(
    text: str, pred: Form, golds: Sequence[Form], question: Form | None, max_tokens: int
) -> Verdict | None:
    """The guarded containment rule: None when no gold occurs in the prediction."""
    hits: list[tuple[Form, int, int]] = []
    for gold in golds:
        start = _find(pred.tokens, gold.tokens)
        if start >= 0:
            hits.append((gold, start, start + len(gold.tokens)))
            continue
        start, end = _find_name(pred, gold)
        if start >= 0:
            hits.append((gold, start, end))
    if not hits:
        return None
    if question is not None:
        hits = [
            h
            for h in hits
            if _find(question.tokens, h[0].tokens) < 0 or _picks_option(pred.tokens, h, question.tokens)
        ]
        if not hits:
            return Verdict(None, "gold_in_question")
    if all(_negated(pred.tokens, start, end) for _, start, end in hits):
        return Verdict(0.0, "negated")
    if all(
        any(is_number(t) for t in gold.tokens)
        and _bounded(pred.tokens, start)
        and not any(t in _BOUND_WORDS or t in ("least", "most", "than") for g in golds for t in g.tokens)
        and not _asks_bound(question)
        for gold, start, _ in hits
    ):
        return Verdict(0.0, "bound")
    if all(
        any(is_number(t) for t in gold.tokens)
        and "percent" in pred.tokens[end : end + 1]
        and "percent" not in gold.tokens
        for gold, _, end in hits
    ):
        return Verdict(0.0, "unit_conflict")
    if all(_bag_of_names(text, pred, start, end) for _, start, end in hits):
        return Verdict(0.0, "hedge_list")
    if _FOREIGN_JOINS & {t for g in golds for t in g.tokens}:
        text = _FOREIGN_JOIN_WORDS.sub(" ", text)  # "Dieu et mon droit": the gold's own words, not a list
    if _hedge_or(text, golds, question):
        return Verdict(0.0, "hedge_or")
    if _hedge_list(text, golds, question):
        return Verdict(0.0, "hedge_list")
    if _UNCERTAIN.search(text) and len(text.split()) <= _MAX_HEDGED_WORDS:
        return Verdict(0.0, "hedge_uncertain")
    if _corrected(text, [h[0] for h in hits]):
        return Verdict(0.0, "corrected")
    if _competing_number(text, [h[0] for h in hits], question):
        return Verdict(0.0, "competing_number")
    if _date_conflict(pred, golds) or _year_conflict(text, pred, golds):
        return Verdict(0.0, "date_conflict")
    closed = _closed_guard(text, pred, hits, question)
    if closed is not None:
        return Verdict(0.0, closed)
    if all(len(pred.tokens) <= len(h[0].tokens) + _MAX_OWNED_EXTRA and _possessive(text, h[0]) for h in hits):
        return Verdict(None, "possessive")
    if all(_longer_name(text, pred, gold, start) for gold, start, _ in hits):
        return Verdict(None, "longer_name")
    if _outside_head(text, hits):
        return Verdict(None, "outside_head")  # undecided: a judge can read "France's capital. Paris."
    usable = [
        h
        for h in hits
        if not (len(h[0].tokens) == 1 and h[0].tokens[0] in _GENERIC_TOKENS)
        or len(pred.tokens) <= len(h[0].tokens) + 2
    ]
    if not usable:
        return Verdict(None, "generic_gold")
    return Verdict(1.0, "containment")


#: words right before the gold that make the answer something related to it: ``a city near Canberra``, ``the
#: father of Cronus``, ``formerly Canberra``, ``Goliath killed David``
_RELATION_BEFORE = frozenset(
    [
        "near",
        "nearby",
        "beside",
        "outside",
        "neighbouring",
        "neighboring",
        "bordering",
        "north",
        "south",
        "east",
        "west",
        "northeast",
        "northwest",
        "southeast",
        "southwest",
        "northern",
        "southern",
        "eastern",
        "western",
        "formerly",
        "previously",
        "former",
        "ex",
        "once",
        "replaced",
        "replacing",
        "succeeded",
        "preceded",
        "predecessor",
        "successor",
        "killed",
        "defeated",
        "beat",
        "murdered",
        "assassinated",
        "married",
        "father",
        "mother",
        "son",
        "daughter",
        "brother",
        "sister",
        "wife",
        "husband",
        "parent",
        "child",
        "grandson",
        "granddaughter",
        "grandfather",
        "grandmother",
        "uncle",
        "aunt",
        "nephew",
        "niece",
        "cousin",
        "widow",
        "rival",
        "opponent",
        "enemy",
        "neighbour",
        "neighbor",
        "suburb",
    ]
)
#: words right after the gold that limit it in time: ``Canberra until 2020``, ``Bonn before 1990``
_TIME_AFTER = frozenset(["until", "till", "before", "after", "since", "formerly", "previously"])
#: relations are read in answers this short only: in a sentence the words around the gold are its context
_MAX_RELATION_WORDS = 6
#: a bound on a numeric gold beyond :data:`_BOUND_WORDS`
_NUMBER_BEFORE = frozenset(
    ["by", "until", "till", "since", "minus", "negative", "twice", "double", "triple", "thrice"]
)
_NUMBER_BEFORE_PAIRS = frozenset(
    {("up", "to"), ("half", "of"), ("third", "of"), ("quarter", "of"), ("not", "until")}
)
_NUMBER_AFTER = frozenset(
    ["dozen", "dozens", "squared", "cubed", "pairs", "pair", "times", "time", "fold", "plus", "ish"]
)
_NUMBER_AFTER_PAIRS = frozenset(
    {
        ("at", "most"),
        ("at", "least"),
        ("or", "more"),
        ("or", "less"),
        ("or", "fewer"),
        ("or", "over"),
        ("or", "so"),
    }
)
#: approximation words before a bare-number gold (a count, a year) in a short answer ("about 5", "c. 1945"); a
#: measure with a unit may be approximate ("about 300 km" for "300 km", issue 26), and so may an answer to a
#: question that says one ("Approximately how many ...")
_APPROX_BEFORE = frozenset(
    [
        "about",
        "approximately",
        "approx",
        "roughly",
        "around",
        "circa",
        "c",
        "ca",
        "some",
        "estimated",
        "est",
        "approximate",
        "nearly",
        "almost",
        "probably",
    ]
)
_TILDE = re.compile(r"[~\u2248\u223c]\s*\d")
_VERB_NOT = frozenset(
    ["did", "does", "do", "is", "was", "are", "were", "has", "had", "could", "would", "should"]
)
_NEG_AFTER = frozenset(["didnt", "doesnt", "isnt", "wasnt", "arent", "werent", "hasnt", "hadnt", "never"])


def _closed_guard(
    text: str, pred: Form, hits: Sequence[tuple[Form, int, int]], question: Form | None
) -> str | None:
    """Fail-closed refusals of a short answer that holds the gold but says something else about it."""
    if len(text.split()) > _MAX_HEDGED_WORDS:
        return None
    t = pred.tokens
    asked = set(question.tokens) if question is not None else set()
    reasons = []
    terse = len(text.split()) <= _MAX_RELATION_WORDS
    for gold, start, end in hits:
        reason = None
        before, after = t[max(0, start - 2) : start], t[end : end + 2]
        numeric = (is_number(t[start]) or is_number(t[end - 1])) and not any(
            w[:1].isupper() for w in gold.cased
        )  # "the Four Seasons" is a name
        if _glued(text, gold):
            reason = "compound"  # "oxygen-free", "Guinea-Bissau", "5-ish", "Objective-C"
        elif (after and after[0] in _NEG_AFTER) or (
            len(after) == 2 and after[0] in _VERB_NOT and after[1] == "not"
        ):
            reason = "negated"  # "Hemingway did not write it"
        elif before and before[-1] == "non" and re.search(r"(?i)\bnon\s", text):
            reason = "negated"  # "non Paris" (not "non-scripta")
        elif (
            numeric
            and not _asks_bound(question)
            and (
                (is_number(t[start]) and before and before[-1] in _NUMBER_BEFORE)
                or (is_number(t[start]) and tuple(before) in _NUMBER_BEFORE_PAIRS)
                or (is_number(t[end - 1]) and after and after[0] in _NUMBER_AFTER)
                or (is_number(t[end - 1]) and tuple(after) in _NUMBER_AFTER_PAIRS)
            )
        ):
            reason = "bound"  # "by 1945", "up to 5", "5 dozen", "half of 5", "5 or more"
        elif (
            terse
            and numeric
            and is_number(t[start])
            and ((before and before[-1] in _APPROX_BEFORE) or _TILDE.search(text))
            and all(is_number(w) for w in gold.tokens)
            and not (_APPROX_BEFORE & asked)
        ):
            reason = "approximate"  # "about 5", "roughly 5", "c. 1945", "~5": a hedge around an exact count
        elif terse and not numeric and _relation(t, start):
            reason = "relation"
        elif terse and not numeric and after and after[0] in _TIME_AFTER and after[0] not in asked:
            reason = "relation"  # "Canberra until 2020"
        elif _lower_bag(text, len(t) - (end - start), gold):
            reason = "hedge_list"
        if reason is None:
            return None  # one clean occurrence of a gold is enough
        reasons.append(reason)
    return reasons[0] if reasons else None


def _longer_name(text: str, pred: Form, gold: Form, start: int) -> bool:
    """A place-forming word glued before a capitalised gold: the gold is the tail of another place's name
    (``New York`` for ``York``, ``Papua New Guinea`` / ``Equatorial Guinea`` for ``Guinea``, ``Democratic Republic
    of the Congo`` for ``Republic of the Congo``, ``South Sudan`` for ``Sudan``). Only these words: a given name
    before a surname gold (``George Orwell`` for ``Orwell``) completes the same name."""
    if start == 0 or not gold.cased or not gold.cased[0][:1].isupper() or gold.tokens[0] in _NAME_MODIFIERS:
        return False
    word = pred.cased[start - 1]
    if pred.tokens[start - 1] not in _NAME_MODIFIERS or not word[:1].isupper():
        return False
    return bool(re.search(rf"(?<![\w-]){re.escape(word)}\s+{re.escape(gold.cased[0])}(?![\w-])", text, re.I))


#: words that make another place of the place after them; directions (``South Asia``, ``North Yorkshire``,
#: ``Greater Manchester``) are left out: they mostly name a part of the gold, which raters accept (dev, in-sample)
_NAME_MODIFIERS = frozenset(
    [
        "new",
        "nova",
        "nueva",
        "nuevo",
        "neu",
        "equatorial",
        "democratic",
        "papua",
        "little",
        "old",
        "port",
        "fort",
        "mount",
        "lake",
        "cape",
        "isle",
        "gran",
        "grand",
    ]
)


#: the head answer is read in answers this short: a longer answer is an explanation that may name the gold anywhere
_MAX_HEAD_WORDS = 12
#: the end of the head: ``;`` or a sentence end after a word of three or more letters or a number of two or more
#: digits (not ``U.S.``, ``Dr.``, ``E. L.``, ``1. Paris``) and before a capital letter
_HEAD_END = re.compile(r"(?:(?<=[A-Za-z]{3}[.!?])|(?<=[0-9]{2}[.!?]))\s+(?=[\"'\u201c(]?[A-Z0-9])|;\s*|\n+")
_ABBREVIATION_END = re.compile(r"(?i)\b(?:vol|vs|mrs|mr|dr|st|jr|sr|no|inc|ltd|co|etc|approx)\.$")
#: a parenthesis this short without a verb restates the head (``Eswatini (formerly Swaziland)``, ``Adrian IV
#: (Nicholas Breakspear)``); a longer one, or one with a verb, is a side remark
_RESTATEMENT_WORDS = 4
_REMARK_VERBS = frozenset(["is", "was", "are", "were", "be", "been", "has", "had", "not", "isnt", "wasnt"])


def _head(text: str) -> tuple[str, str, bool]:
    """The head answer of a short answer, the sentence it came from, and whether anything was cut: the first
    sentence (or clause before ``;``) that is not a question, without its side remarks in parentheses."""
    parts: list[str] = []
    for part in _HEAD_END.split(text.strip()):
        if parts and _ABBREVIATION_END.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {part}"
        else:
            parts.append(part)
    while len(parts) > 1 and parts[0].rstrip().endswith("?"):
        parts.pop(0)  # "in 1620? Plymouth Rock": the question copied before the answer
    head = parts[0]

    def remark(m: re.Match[str]) -> str:
        words = re.findall(r"[\w']+", m.group(0).lower())
        return m.group(0) if len(words) <= _RESTATEMENT_WORDS and not _REMARK_VERBS & set(words) else " "

    kept = _PARENTHETICAL.sub(remark, head)
    return kept, head, len(parts) > 1 or kept != head


def _outside_head(text: str, hits: Sequence[tuple[Form, int, int]]) -> bool:
    """A short answer whose head (:func:`_head`) names no gold: the gold is only a side remark (``Lyon (Paris was
    the capital before)``, ``It's nitrogen; oxygen is 7``, ``The capital is Lyon. Paris is the largest city.``)."""
    if len(text.split()) > _MAX_HEAD_WORDS:
        return False
    head, sentence, cut = _head(text)
    if not cut:
        return False
    form = canon(head)
    if any(_span(form, gold)[0] >= 0 for gold, _, _ in hits):
        return False
    if not text.strip().startswith(sentence):
        return True  # a question was skipped: positions no longer line up
    k = len(canon(sentence).tokens)
    return not any(start < k < end for _, start, end in hits)  # a gold across the cut: "Portugal. The Man"


_CORRECTION = re.compile(r"(?i)\b(?:but|yet|though|however)\b(.*\b(?:actually|in\s+fact|really|truly)\b.*)$")


def _corrected(text: str, golds: Sequence[Form]) -> bool:
    """A short answer that names the gold, then corrects itself to something else: ``Many people say Paris, but
    the capital is actually Lyon``. The gold repeated in the correction keeps it (``..., but it is actually
    Paris``)."""
    if len(text.split()) > _MAX_HEDGED_WORDS:
        return False
    m = _CORRECTION.search(text)
    if m is None:
        return False
    rest = canon(m.group(1))
    return not any(_span(rest, gold)[0] >= 0 for gold in golds)


def _relation(t: Sequence[str], start: int) -> bool:
    """A relation word right before the gold, or before ``of`` / ``from`` / ``to`` right before it."""
    k = start - 1
    if k >= 0 and t[k] in ("of", "from", "to", "that", "who", "which"):
        k -= 1
    if k >= 0 and t[k] in _RELATION_BEFORE:  # even when the question says it: "the father of Cronus"
        return True
    return start >= 2 and t[start - 1] == "from" and any(is_number(x) for x in t[:start])  # "200 km from X"


def _glued(text: str, gold: Form) -> bool:
    """The gold glued by a hyphen to a word that is not its own: part of a compound, not the gold."""
    if not gold.cased:
        return False
    first, last = re.escape(gold.cased[0]), re.escape(gold.cased[-1])
    return bool(
        re.search(rf"(?<![\w-]){last}-[^\W_]", text, re.I)
        or re.search(rf"[^\W_]-{first}(?![\w-])", text, re.I)
    )


def _lower_bag(text: str, extra: int, gold: Form) -> bool:
    """``paris london berlin`` for ``Paris``: a proper-name gold written in lower case among two or more bare words
    (no punctuation or function word to join them): candidates, lower-cased to pass the capitalised-bag rule."""
    if extra < 2 or not text.islower() or re.search(r"[^\w\s]", text):
        return False
    named = [w for w in gold.cased if w[:1].isalpha()]
    if not named or not all(w[:1].isupper() for w in named):
        return False  # "comic book series" for "comic": a lower-case gold's qualified form
    return all(w not in FUNCTION_WORDS for w in text.split())


_PARENTHETICAL = re.compile(r"\s*\([^()]*\)")
_GOLD_OR = re.compile(r"\s+(?:or|/)\s+|\s*/\s*", re.I)
_CLAUSE_AFTER_COMMA = re.compile(r"^\s*(?:who|which|that|where|when|whose|now|formerly|also)\b", re.I)


@functools.lru_cache(maxsize=65536)
def _aliases(gold: str) -> tuple[str, ...]:
    """A gold answer and the aliases it spells out: without a parenthetical, each side of ``X or Y``, the head of
    ``X, who ...`` / ``X, <country or state>``."""
    out = [gold]
    if "(" in gold:
        out.append(_PARENTHETICAL.sub("", gold))
    for alias in list(out):
        if " or " in alias.lower() or "/" in alias:
            out.extend(p for p in _GOLD_OR.split(alias) if p.strip())
        head, comma, rest = alias.partition(",")
        if comma and head.strip() and (_CLAUSE_AFTER_COMMA.match(rest) or squad(rest) in PLACES):
            out.append(head)
    return tuple(dict.fromkeys(a.strip() for a in out if a.strip()))


_SEGMENTS = re.compile(
    r"[,;()]|\s-\s"
)  # not ":": "Jerry Springer: The Opera" is a title, not a qualified name
#: a gold part ending with one of these introduces its object: "in the New Testament" -> "the New Testament"
_LEADS = frozenset(
    [
        "to",
        "in",
        "at",
        "on",
        "by",
        "of",
        "from",
        "for",
        "during",
        "into",
        "onto",
        "loosely",
        "about",
        "around",
        "near",
        "within",
    ]
)
#: a gold part starting with one of these qualifies what precedes it: "Franz Ferdinand of Austria"
_TRAILS = frozenset(["of", "by", "in", "at", "from", "who", "which", "that", "for", "on", "during", "with"])


def _gold_span(pred: Form, gold: str) -> bool:
    """The prediction is the head of a gold that adds a qualifier (``Milan`` for ``Milan, Italy``, ``Tandi`` for
    ``Tandi, in Lahaul``) or the object of a gold's leading phrase (``the New Testament`` for ``in the New
    Testament``, ``Cephalopoda`` for ``class Cephalopoda``), never a word cut out of a name (``Africa`` for
    ``South Africa``, ``Bank`` for ``Bank of America``)."""
    p = pred.tokens
    if "-" in gold and _cuts_compound(p, gold):
        return False
    segments = [canon_gold(part) for part in _SEGMENTS.split(gold)]
    segments = [f for f in segments if f.tokens]
    if not segments:
        return False
    if len(segments) > 1 and p == segments[0].tokens:
        rest = _SEGMENTS.split(gold)[1:]
        # "red" for "red, yellow and blue" (a list), "December 14" for "December 14, 1972" (a date): not a qualifier
        return not any(_LIST_WORDS.search(r) or (r.strip() and r.strip().isdigit()) for r in rest)
    seg = segments[0]
    s, cased = seg.tokens, seg.cased
    k = len(p)
    if k >= len(s):
        return False
    for i in range(len(s) - k + 1):
        if s[i : i + k] != p:
            continue
        prefix, suffix = s[:i], s[i + k :]
        if any(t in _NEGATIONS for t in prefix):
            return False  # "Sundays" for "except Sundays"
        lead_ok = (
            not prefix
            or (
                prefix[-1] in _LEADS
                and not (
                    prefix[-1] == "of" and i >= 2 and (prefix[-2] in _TITLES or cased[i - 2][:1].isupper())
                )
            )  # "Man" for "Isle of Man", "England" for "Bank of England": the name's own head
            or (all(t[:1].islower() for t in cased[:i]) and pred.cased[0][:1].isupper())
        )
        trail_ok = (
            not suffix
            or (suffix[0] in _TRAILS and k >= 2)
            or (len(suffix) == 1 and is_number(p[-1]) and suffix[0] in _COUNTED)
        )
        if lead_ok and trail_ok and (prefix or suffix):
            return any(t not in _GENERIC_TOKENS for t in p)
    return False


_LIST_WORDS = re.compile(r"\band\b|&|\bor\b", re.I)


def _cuts_compound(p: Sequence[str], gold: str) -> bool:
    """``p`` holds part of a hyphenated word of the gold but not all of it (``seven`` of ``best-of-seven``)."""
    mine = set(p)
    for word in gold.split():
        if "-" in word.strip("-"):
            parts = set(canon_gold(word).tokens)
            if parts & mine and not parts <= mine:
                return True
    return False


#: a title before "of" is the head of the gold: "Wales" is not the "Prince of Wales"
_TITLES = _HONORIFICS | {
    "duke", "duchess", "earl", "count", "countess", "baron", "baroness", "marquess", "marquis", "viscount"
}  # fmt: skip

_COUNTED = frozenset(
    [
        "year",
        "month",
        "week",
        "day",
        "hour",
        "minute",
        "second",
        "km",
        "m",
        "mi",
        "ft",
        "kg",
        "lb",
        "percent",
        "usd",
        "time",
        "season",
        "episode",
    ]
)


def _same_items(answer: str, golds: Sequence[str]) -> bool:
    """A list answer whose items are exactly a gold list's items, in any order (``New York, New Jersey``)."""
    if not golds or not _LIST_SPLIT.search(answer):
        return False
    mine = {canon(p).tokens for p in _LIST_SPLIT.split(answer)} - {()}
    if len(mine) < 2:
        return False
    return any({canon_gold(p).tokens for p in _LIST_SPLIT.split(g)} - {()} == mine for g in golds)


_NUMBER_WORDS = frozenset(
    (
        *ONES,
        *TENS,
        "fourty",
        "hundred",
        "thousand",
        "million",
        "billion",
        "trillion",
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "twentieth",
        "thirtieth",
        "fortieth",
        "fiftieth",
        "hundredth",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "percent",
        "cent",
    )
)


_WORD = re.compile(r"[^\W_]+")


def _keys(text: str) -> set[str]:
    """Folded lower-case words of a gold and their stems, and its initials (for acronyms)."""
    words = _WORD.findall(_fold(text)[0])
    keys = {w.lower() for w in words}
    keys |= {_stem(w) for w in keys}
    if len(words) >= 2:
        keys.add("".join(w[0] for w in words).lower())
        keys.add("".join(w[0] for w in words if w.lower() not in _ACRONYM_SKIP).lower())
    return keys


def _numeric(words: Sequence[str]) -> bool:
    return any(
        w[0].isdigit() or w.lower() in _NUMBER_WORDS or (len(w) >= 2 and _ROMAN_WORD.match(w)) for w in words
    )


_ROMAN_WORD = re.compile(r"^[IVXLCDM]+$")
#: answer words the canonical form rewrites to gold words the filter cannot see: "WWII", "a dozen", "U.N."
_REWRITTEN = re.compile(r"(?i)\bww\s?(?:ii|i|2|1)\b|\bdozen\b|\b(?:[a-z]\.){2,}")


def _may_match(answer: str, gold_set: _Golds) -> bool:
    """A cheap filter in front of the rules: a prediction that shares no word, stem, initials or number with any
    gold cannot be accepted by any rule, and needs no canonical form."""
    words = _WORD.findall(answer if answer.isascii() else _fold(answer)[0])
    keys = gold_set.keys
    for word in words:
        lower = word.lower()
        if lower in keys or _stem(lower) in keys:
            return True
        if lower[-1:].isdigit() and (bare := lower.rstrip("0123456789")) and bare in keys:
            return True  # a citation marker glued to the word ("pepsin1")
    if gold_set.numeric and _numeric(words):
        return True
    low = answer.lower()
    if "ww" in low or "dozen" in low or ("." in answer and _REWRITTEN.search(answer)):
        return True
    if gold_set.caps and len(words) >= 2:
        initials = "".join(w[0] for w in words).lower()
        content = "".join(w[0] for w in words if w.lower() not in _ACRONYM_SKIP).lower()
        return initials in keys or content in keys
    return False


class _Golds(NamedTuple):
    any_words: bool  # some alias has a letter or a digit
    plain: dict[str, str]  # SQuAD string -> gold, for golds without digits
    keys: frozenset[str]
    numeric: bool
    caps: bool


@functools.lru_cache(maxsize=16384)
def _golds(golds: tuple[str, ...]) -> _Golds:
    """What the cheap paths need of a gold list (no canonical forms: see :func:`_gold_forms`)."""
    plain: dict[str, str] = {}
    keys: set[str] = set()
    numeric = caps = any_words = False
    for gold in golds:
        for alias in _aliases(gold):
            text = squad(alias)
            if text and not _HAS_DIGIT.search(text):
                plain.setdefault(text, gold)
            words = _WORD.findall(_fold(alias)[0])
            any_words = any_words or bool(_WORD.search(text))
            keys |= _keys(alias)
            numeric = numeric or _numeric(words)
            caps = caps or any(len(w) >= 2 and w.isupper() for w in words)
    return _Golds(any_words, plain, frozenset(keys), numeric, caps)


@functools.lru_cache(maxsize=16384)
def _gold_forms(golds: tuple[str, ...]) -> tuple[tuple[str, Form], ...]:
    forms = [(g, canon_gold(a)) for g in golds for a in _aliases(g)]
    return tuple((g, f) for g, f in forms if f.tokens)


_HAS_DIGIT = re.compile(r"\d")
#: a negative number: a minus sign not inside a range ("1939-45") or a word
_SIGNED = re.compile(r"(?:^|(?<=[\s(\[:=]))(?<!\d\s)[-\u2212]\d")


@functools.lru_cache(maxsize=16384)
def _unsigned_numeric(golds: tuple[str, ...]) -> bool:
    """Some gold alias holds a number and none a negative one (so a signed answer names another number)."""
    aliases = [a for g in golds for a in _aliases(g)]
    return any(_HAS_DIGIT.search(a) for a in aliases) and not any(_SIGNED.search(a) for a in aliases)


# -- fail-closed refusals on the raw answer (before any matching) ---------------------------------------------

#: symbols that change what an answer names and that SQuAD normalisation drops: ``5+``, ``≥5``, ``C++``, ``C#``,
#: ``B-`` (a grade), ``5¢``, ``50‰``; an answer holding one the gold lacks names something else
_SYMBOLS = re.compile(r"[+#±≥≤<>‰¢∓≈~∼]|(?<=[^\W\d_])-(?=\s|$)")
_STRUCK = re.compile(r"~~|<(?:s|del|strike)>", re.I)
#: generational suffixes a normaliser drops ("Hank Williams Jr."): a different suffix is a different person
_SUFFIX = re.compile(r"\b(Jr|JR|Jnr|Sr|SR|Snr|Junior|Senior|fils|p[eè]re|the\s+[Yy]ounger|the\s+[Ee]lder)\b")
_SUFFIX_KEY = {"jnr": "jr", "junior": "jr", "fils": "jr", "the younger": "jr", "snr": "sr", "senior": "sr"}
_SUFFIX_KEY.update({"pere": "sr", "p\u00e8re": "sr", "the elder": "sr"})
_REGNAL_SUFFIX = re.compile(r"(?<=[a-z]) (II|III|IV|V|VI)\b")
_ERA = re.compile(
    r"\b(b\.?\s?c\.?(?:e\.?)?|a\.?\s?d\.?|c\.?e\.?|before\s+christ|anno\s+domini)(?![\w])", re.I
)
_BC = re.compile(r"\b(?:b\.?\s?c\.?(?:e\.?)?|before\s+(?:christ|the\s+common\s+era))(?![\w])", re.I)
#: a lone letter that reads as a roman numeral in a name ("Malcolm X"): a digit for it names another thing
_NAME_ROMAN = re.compile(r"\b([A-Z][a-z]+) ([XLCDM])(?![\w.])")
_HONORIFIC_LEAD = re.compile(
    r"^\W*(mr|mrs|ms|miss|mister|dr|doctor|sir|dame|lord|lady|madame|mme|herr|frau)\b\.?\s", re.I
)


_FRACTION = re.compile(r"(?<![\d/.,])(\d{1,4})\s*/\s*\d{1,3}(?![\d/])")


def _symbols(text: str) -> set[str]:
    return {m.group(0) for m in _SYMBOLS.finditer(text)}


def _suffixes(text: str) -> set[str]:
    found = (" ".join(m.group(1).lower().split()) for m in _SUFFIX.finditer(text))
    return {_SUFFIX_KEY.get(k, k) for k in found}


def _suffix_fits(mine: set[str], gold: set[str]) -> bool:
    """The answer's generational suffixes against a gold's: equal, or a ``Jr.`` the gold leaves out (golds often
    drop it: ``John G. Roberts Jr.`` for ``John Roberts``); ``Sr.`` for a gold without one names the father."""
    return mine == gold or (not gold and mine == {"jr"})


def _raw_refusal(answer: str, golds: Sequence[str]) -> str | None:
    """A rule name when the raw answer differs from every gold in a way normalisation would hide, else None."""
    if _STRUCK.search(answer):
        return "struck_out"  # "~~Paris~~ Lyon": the struck text is withdrawn, whatever follows
    if answer.rstrip().endswith("?") and not any(g.rstrip().endswith("?") for g in golds):
        return "question"  # "Paris?", "Did Hemingway write it?": a question, not an answer
    if len(answer.split()) > _MAX_HEDGED_WORDS:
        return None  # in an explanation a symbol or a suffix is usually about something else ("H+ ions")
    symbols = _symbols(answer)
    if symbols and not any(symbols <= _symbols(g) for g in golds):
        return "symbol"
    terse = len(answer.split()) <= _MAX_RELATION_WORDS
    suffix = _suffixes(answer) if terse else set()
    regnal = {m.group(1) for m in _REGNAL_SUFFIX.finditer(answer)} if terse else set()
    if (suffix or regnal) and not any(
        _suffix_fits(suffix, _suffixes(g))
        and (
            not regnal
            or regnal <= {m.group(1) for m in _REGNAL_SUFFIX.finditer(g)}
            or _HAS_DIGIT.search(g)
            or g.isupper()  # "WWII"
        )
        for g in golds
    ):
        return "different_person"  # "Bush Sr." for "George W. Bush", "Henry Ford II" for "Henry Ford"
    for m in _FRACTION.finditer(answer):
        if not (is_year_like(m.group(1)) or any("/" in g for g in golds)):
            return "fraction"  # "1/5" for 5: a fraction (or a score), not the number
    era = bool(_BC.search(answer))
    dated = [g for g in golds if _HAS_DIGIT.search(g)]
    if dated and _ERA.search(answer) and not any(era == bool(_BC.search(g)) for g in dated):
        return "era"  # "1945 BC" is not 1945, "44 AD" not 44 BC
    titles, romans = _gold_names(tuple(golds))
    if titles and squad(answer) in titles:
        return "title_drop"  # "No" for "Dr. No", "T" for "Mr. T": the title is part of the name
    if romans is not None and romans.search(answer):
        return "symbol"  # "Malcolm 10" for "Malcolm X": a letter of a name, not a numeral
    return None


@functools.lru_cache(maxsize=16384)
def _gold_names(golds: tuple[str, ...]) -> tuple[frozenset[str], re.Pattern[str] | None]:
    """What :func:`_raw_refusal` needs of a gold list, once per list: the SQuAD forms of title-only names with the
    title dropped (``No`` of ``Dr. No``), and a pattern for a name word followed by a digit where a gold has a
    roman letter (``Malcolm 10`` for ``Malcolm X``)."""
    titles: set[str] = set()
    words: list[str] = []
    for g in golds:
        titled = _HONORIFIC_LEAD.match(g)
        rest = g[titled.end() :].strip() if titled else ""
        if rest and len(rest.split()) == 1 and (len(rest) <= 2 or rest.lower() in FUNCTION_WORDS):
            titles.add(squad(rest))
        words += [re.escape(m.group(1)) for m in _NAME_ROMAN.finditer(g)]
    romans = re.compile(rf"(?i)\b(?:{'|'.join(words)})\s+\d") if words else None
    return frozenset(titles), romans


def decide(
    answer: str,
    golds: Sequence[str],
    question: str | None = None,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> Verdict:
    """The rule verdict for an extracted ``answer`` against the gold aliases (see the module docstring)."""
    key = tuple(golds)
    gold_set = _golds(key)
    if not gold_set.any_words:
        # a gold made only of articles ("A" for vitamin A, the band "The The"): the answer must spell it out, in
        # the gold's case ("the" is no answer to "The")
        bare = " ".join(re.sub(r"[^\w\s]", " ", answer).split())
        if _raw_refusal(answer, golds) is not None:
            bare = ""  # "A+" for "A"
        for gold in golds:
            if bare and gold != gold.lower() and bare == " ".join(re.sub(r"[^\w\s]", " ", gold).split()):
                return Verdict(1.0, "exact", gold)
        return Verdict(0.0, "empty_gold")
    plain = squad(answer)
    if not plain:
        return Verdict(0.0, "empty")
    refused = _raw_refusal(answer, golds)
    if refused is not None:
        return Verdict(0.0, refused)
    if plain in gold_set.plain and not _HAS_DIGIT.search(plain):
        return Verdict(1.0, "exact", gold_set.plain[plain])
    if len(answer.split()) > max_tokens:
        return Verdict(None, "too_long")
    if not _may_match(answer, gold_set):
        return Verdict(None, "no_match")
    forms = _gold_forms(key)
    if not forms:
        return Verdict(0.0, "empty_gold")
    pred = canon(answer)
    if not pred.tokens:
        return Verdict(0.0, "empty")
    if _SIGNED.search(answer) and _unsigned_numeric(key):
        return Verdict(0.0, "sign")  # "-5" is not 5
    kept = tuple((g, f) for g, f in forms if not _other_sex(pred, f))
    if not kept:
        return Verdict(0.0, "different_person")
    forms = kept
    numbers = tuple(t for t in pred.tokens if is_number(t))
    percent = "percent" in pred.tokens
    for gold, form in forms:
        # SQuAD drops the decimal point ("3.50" is "350"): equal strings must also hold equal numbers
        # ... and agree on a percent sign, which SQuAD drops ("5%" is not 5)
        if (
            pred.squad == form.squad
            and numbers == tuple(t for t in form.tokens if is_number(t))
            and percent == ("percent" in form.tokens)
        ):
            return Verdict(1.0, "exact", gold)
    for gold, form in forms:
        if pred.tokens == form.tokens or _regnal(pred) == _regnal(form):
            return Verdict(1.0, "normalized", gold, sorted(pred.changed | form.changed))
    who = bool(question and _WHO.search(question))
    for gold, form in forms:
        rule = _whole_rule(pred, form, who)
        if rule is not None:
            if rule == "date" and _date_conflict(pred, [f for _, f in forms]):
                return Verdict(0.0, "date_conflict", gold)
            if rule == "surname" and _HONORIFIC_LEAD.match(answer):
                return Verdict(
                    None, "titled_surname", gold
                )  # "Mrs. Bush" for "George W. Bush": maybe his wife
            if rule == "surname":
                # "Williams" for "Serena Williams", "Wright" for "Orville Wright": a surname names a family (a
                # sister, a brother, a father); the gold list cannot tell a unique one, so the judge decides
                return Verdict(None, "surname", gold)
            return Verdict(1.0, rule, gold, sorted(pred.changed | form.changed))
    if _same_items(answer, [g for g, _ in forms if _LIST_SPLIT.search(g)]):
        return Verdict(1.0, "same_items")
    for gold in golds:
        for alias in _aliases(gold):
            if _gold_span(pred, alias):
                return Verdict(1.0, "gold_span", gold, sorted(pred.changed))
    qform = canon_gold(question) if question else None
    verdict = _contained(answer, pred, [f for _, f in forms], qform, max_tokens)
    if verdict is None:
        for gold in golds:
            parts = _conjuncts(gold)
            spans = [_span(pred, f) for f in parts]
            if parts and all(start >= 0 for start, _ in spans):
                if any(_negated(pred.tokens, start, end) for start, end in spans):
                    return Verdict(0.0, "negated", gold)  # every part is asserted: one negated is a refusal
                if re.search(_OR_MARKERS, answer, re.I):
                    return Verdict(0.0, "hedge_or", gold)  # "A or B" for "A and B"
                verdict = _contained(answer, pred, parts, qform, max_tokens)
                if verdict is not None:
                    return Verdict(verdict.value, verdict.rule, gold, verdict.normalizers)
    return verdict if verdict is not None else Verdict(None, "no_match")


def _span(pred: Form, gold: Form) -> tuple[int, int]:
    start = _find(pred.tokens, gold.tokens)
    return (start, start + len(gold.tokens)) if start >= 0 else _find_name(pred, gold)


_CONJUNCTION = re.compile(r"\s*(?:&|\band\b)\s*", re.I)


@functools.lru_cache(maxsize=16384)
def _conjuncts(gold: str) -> tuple[Form, ...]:
    """The parts of a gold that names two or three people or things (``Malcolm & Donald Campbell``: ``Malcolm
    Campbell``, ``Donald Campbell``; ``Gladys Knight & the Pips``): an answer that names every part, in any order
    and form, names the gold. A lone first name takes the last part's surname."""
    pieces = [p.strip(" ,") for p in _CONJUNCTION.split(gold)]
    if not 2 <= len(pieces) <= 3 or not all(pieces):
        return ()
    last = pieces[-1].split()
    if len(last) >= 2 and all(len(p.split()) == 1 and p[:1].isupper() for p in pieces[:-1]):
        pieces = [f"{p} {last[-1]}" for p in pieces[:-1]] + [pieces[-1]]
    forms = tuple(canon_gold(p) for p in pieces)
    return forms if all(f.tokens for f in forms) else ()


# -- the scorer -----------------------------------------------------------------------------------------------


class QAEquivScorer(Scorer):
    """Short-answer QA equivalence beyond exact match: canonical forms, guarded containment, optional judge."""

    name: ClassVar[str] = "qa_equiv"
    execution: ClassVar[str] = "inline"  # type: ignore[assignment]
    returns_dict: ClassVar[bool] = False

    def __init__(
        self,
        *,
        score: float = 1.0,
        format_score: float = 0.0,
        spam_factor: float = 0.25,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        strict_tags: bool = True,
        judge: Any = None,
    ) -> None:
        self.score_value = _check_number("score", score)
        self.format_score = _check_number("format_score", format_score)
        self.spam_factor = _check_number("spam_factor", spam_factor)
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ConfigError(f"qa_equiv: max_tokens must be a positive int, got {max_tokens!r}")
        self.max_tokens = max_tokens
        if not isinstance(strict_tags, bool):
            raise ConfigError(f"qa_equiv: strict_tags must be true or false, got {strict_tags!r}")
        self.strict_tags = strict_tags
        self.judge = _build_judge(judge)
        if self.judge is not None:
            self.is_async = True
            self.timeout_s = self.judge.timeout_s  # type: ignore[misc]
            self.deterministic = self.judge.deterministic  # type: ignore[misc]

    # -- rules ---------------------------------------------------------------------------------------------

    def _rules(self, sample: Sample) -> tuple[Score | None, dict[str, Any], list[str] | None]:
        """(final Score, or None when the judge should decide; info so far; the golds)."""
        try:
            golds = gold_answers(sample.ground_truth)
        except ValueError as exc:
            return Score.failure(Status.INVALID_INPUT, f"qa_equiv: {exc}"), {}, None
        response = sample.response if isinstance(sample.response, str) else ""
        tagged = extract_answer(response)
        answer = tagged if tagged is not None else response.strip()
        opened, closed = count_answer_tags(response)
        question = _question(sample)
        refused = _tag_hack(response, sample) if self.strict_tags and tagged is not None else None
        if refused is None and self.strict_tags and _OTHER_CASE_TAG.search(response):
            refused = (
                "tag_case"  # "<ANSWER>London</ANSWER>Paris": an answer block the extraction does not see
            )
        if refused is not None:
            verdict = Verdict(0.0, refused)
        else:
            verdict = decide(answer, golds, question, max_tokens=self.max_tokens)
        spammed = opened > MAX_ANSWER_TAGS or closed > MAX_ANSWER_TAGS
        info: dict[str, Any] = {
            "rule": verdict.rule,
            "decided_by": "rules",
            "extracted": answer[:_INFO_CHARS],
            "tagged": tagged is not None,
            "matched": verdict.matched,
            "normalizers": verdict.normalizers,
            "answer_tags": [opened, closed],
            "tag_spam": spammed,
        }
        if verdict.value is None:
            if self.judge is not None:
                return None, info, golds
            return Score(value=self.format_score, info=info), info, golds
        value = self.score_value if verdict.value == 1.0 else self.format_score
        if verdict.value == 1.0 and spammed:
            value = self.score_value * self.spam_factor
        return Score(value=value, info=info), info, golds

    def quick(self, sample: Sample) -> Score | None:
        return self._rules(sample)[0]

    def score(self, sample: Sample) -> Score:
        if self.judge is None:
            result = self._rules(sample)[0]
            assert result is not None
            return result
        import asyncio

        return asyncio.run(self._score_and_close(sample))

    async def _score_and_close(self, sample: Sample) -> Score:
        try:
            return await self.ascore(sample)
        finally:
            assert self.judge is not None
            await self.judge.client.aclose()

    # -- judge ---------------------------------------------------------------------------------------------

    async def ascore(self, sample: Sample) -> Score:
        result, info, golds = self._rules(sample)
        if result is not None:
            return result
        assert self.judge is not None and golds is not None
        ordered = sorted({" ".join(g.split()) for g in golds})
        question = _question(sample) or ""
        judged = Sample(
            response=" ".join(info["extracted"].split()) if info["extracted"] else "",
            ground_truth=" | ".join(ordered),
            prompt=question,
            uid=sample.uid,
        )
        verdict = await self.judge.ascore(judged)
        info = {**info, "decided_by": "judge", "rule_undecided": info["rule"], "rule": "judge"}
        info.update({k: v for k, v in verdict.info.items() if k in ("judge_response", "cached", "error")})
        if not verdict.ok:
            failed = Score.failure(verdict.status, str(verdict.info.get("error", "judge failed")))
            return Score(failed.value, failed.status, {}, {**info, **failed.info})
        consistent = verdict.metrics.get("judge_consistent", True)
        info["judge_consistent"] = consistent
        accepted = verdict.value == 1.0
        value = self.score_value if accepted else self.format_score
        if accepted and info["tag_spam"]:
            value = self.score_value * self.spam_factor
        return Score(value=value, info=info)

    def __repr__(self) -> str:
        judge = "off" if self.judge is None else self.judge.model
        return f"<QAEquivScorer max_tokens={self.max_tokens} judge={judge}>"


#: where a chat template hands the turn to the model: answer blocks before the last one belong to the prompt
_ASSISTANT_TURN = re.compile(
    r"<\|im_start\|>assistant|<\|start_header_id\|>assistant<\|end_header_id\|>|\[/INST\]"
)
#: end-of-turn markers that may follow the final answer
_END_MARKERS = re.compile(r"<\|im_end\|>|<\|eot_id\|>|<\|endoftext\|>|</s>|<\|end\|>|<eos>")
_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"


def _answer_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of every ``<answer>...</answer>`` body, paired as :func:`.qa_em.extract_answer` pairs them."""
    blocks = []
    start = text.find("<answer>")
    while start >= 0:
        body = start + len("<answer>")
        end = text.find("</answer>", body)
        if end < 0:
            break
        blocks.append((body, end))
        start = text.find("<answer>", end + len("</answer>"))
    return blocks


_OTHER_CASE_TAG = re.compile(r"<\s*/?\s*(?!answer\s*>)(?i:answer)\s*>")


def _tag_hack(response: str, sample: Sample) -> str | None:
    """The tag-level hacks ``search_r1_qa`` admits (verl's rule), refused under ``strict_tags``: several different
    answer blocks, text after the final block, the final block inside an unfinished or closed ``<think>``."""
    end = response.rfind("</answer>")
    tail = response[end + len("</answer>") :]
    retracted = bool(tail.strip() and _END_MARKERS.sub("", tail).strip())
    if response.count("<answer>") == 1 and "<think>" not in response:  # the common case
        return "text_after_answer" if retracted else None
    turns = [m.end() for m in _ASSISTANT_TURN.finditer(response)]
    offset = turns[-1] if turns else 0
    blocks = [(a, b) for a, b in _answer_blocks(response) if a >= offset]
    if not blocks:
        return None
    before = response[offset : blocks[-1][0]]
    if before.rfind(_THINK_OPEN) > before.rfind(_THINK_CLOSE):
        return "answer_in_think"
    if retracted:
        return "text_after_answer"
    answers = {squad(response[a:b]) for a, b in blocks} - {""}
    if len(answers) > 1:
        prompt = _prompt_text(sample)
        shown = _squad_tags(prompt) if prompt else ""
        if len({a for a in answers if f"<answer> {a} </answer>" not in shown}) > 1:
            return "multiple_answers"
    return None


def _squad_tags(text: str) -> str:
    """``text`` with the body of every answer block SQuAD-normalised (to recognise a prompt's example block)."""
    return "".join(
        f"<answer> {squad(part)} </answer>" if i % 2 else ""
        for i, part in enumerate(re.split(r"<answer>(.*?)</answer>", text, flags=re.S))
    )


def _prompt_text(sample: Sample) -> str:
    prompt: Any = sample.prompt if sample.prompt is not None else sample.metadata.get("raw_prompt")
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Sequence):
        return " ".join(str(m.get("content", "")) for m in prompt if isinstance(m, Mapping))
    return ""


def _question(sample: Sample) -> str | None:
    question = sample.metadata.get("question") if isinstance(sample.metadata, Mapping) else None
    if isinstance(question, str) and question.strip():
        return question
    from ..clients import question_of

    text = question_of(sample)
    return text or None


def _build_judge(judge: Any) -> Any:
    if judge is None or judge is False:
        return None
    from .judge import JudgeScorer

    if isinstance(judge, JudgeScorer):
        if judge.kind != "binary" or not judge.double_check:
            raise ConfigError(
                "qa_equiv: a judge instance must be binary with double_check=True (order-insensitive)"
            )
        return judge
    if not isinstance(judge, Mapping):
        raise ConfigError(
            f"qa_equiv: judge must be None, a JudgeScorer or a mapping of JudgeScorer options, got {judge!r:.80}"
        )
    options = {"template": QA_JUDGE_TEMPLATE, "kind": "binary", "double_check": True, **dict(judge)}
    if options.get("rule") is not None:
        raise ConfigError("qa_equiv: the judge's rule is qa_equiv's own rules; do not pass rule=")
    if not options["double_check"]:
        raise ConfigError("qa_equiv: the judge is asked in both orders; double_check cannot be turned off")
    return JudgeScorer(**options)


def _check_number(option: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ConfigError(f"qa_equiv: {option} must be a finite number, got {value!r}")
    return float(value)


_CLEAR_HOOKS.extend(
    [
        _aliases.cache_clear,
        _golds.cache_clear,
        _gold_forms.cache_clear,
        _unsigned_numeric.cache_clear,
        _conjuncts.cache_clear,
        _gold_names.cache_clear,
    ]
)


def route_qa_sources(sources: Sequence[str] = QA_SOURCES, **options: Any) -> None:
    """Route each of ``sources`` (default: verl's ``searchR1_*`` names) to ``qa_equiv`` built with ``options``."""
    from ._registry import register_route

    for source in sources:
        register_route(source, "qa_equiv", **options)

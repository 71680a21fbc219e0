"""Finding the final answer(s) a math response commits to. Linear time; never raises.

Used by :mod:`rewardloop.scorers.math_equiv`. A reasoning model's thinking is never the answer: the text up
to the last ``</think>`` (``<|end_of_thought|>``, ``[/THINK]``) is set aside, and so is a thinking block
opened at the start or after it and never closed (a response that ends while thinking has not answered; see
:func:`answer_region`). In what is left, answers are looked for in order:

1. every complete ``\\boxed{...}`` / ``\\fbox{...}``, with its position, unless ``<answer>`` tags follow
   the last box (then the tags are the answers);
2. without a box, every ``<answer>...</answer>`` tag (a sentence in a tag answers the value it states);
3. without either, the last "final answer is X" / "answer: X" / "the answer is X" phrase (not "the answer is
   not X"), a "Final Answer" heading followed by X, a GSM8K ``#### X`` line, or a few-shot ``A: X`` final
   line; X runs to the end of its line, or to the end of its sentence.

Which of the boxes are *final answers* is decided by :func:`select_final` (the rule is documented
there and in ``docs/math-verifier.md``): placeholder boxes (``\\boxed{\\phantom{2}}``,
``\\boxed{Your answer}``, a box whose content is a box of the prompt) are ignored; a box followed by
more work and then another box is an intermediate result; the final answer is the last box together
with the boxes written right before it with no work in between. Several *different* values in that
final group are a hedge.

The text after the answer does not matter (verl's DAPO scorer keeps only the last 300 characters and
so loses boxes followed by long text; we scan the whole response). Responses longer than
:data:`MAX_RESPONSE_CHARS` are scanned in their last :data:`MAX_RESPONSE_CHARS` characters only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ._equiv_visible import reader_view
from ._latex import _BRACE_EVENTS

__all__ = [
    "FINAL_ANSWER_RULES",
    "MAX_BOXED_VALUES",
    "MAX_RESPONSE_CHARS",
    "Extraction",
    "PromptFacts",
    "Selection",
    "answer_region",
    "concluding_value",
    "extract_answers",
    "is_placeholder",
    "prompt_facts",
    "prompt_options",
    "prompt_templates",
    "select_final",
]

#: longest tail of a response that is searched (a reward hacker's megabyte of boxes stays linear anyway)
MAX_RESPONSE_CHARS = 100_000
#: default cap on the distinct values boxed anywhere in one response; more is enumeration (hedging)
MAX_BOXED_VALUES = 4
#: longest answer taken from a phrase ("the answer is ...") when no box is present
MAX_PHRASE_ANSWER = 300
#: how a response's boxes become its final answer(s): see :func:`select_final`
FINAL_ANSWER_RULES = ("final", "wrong", "last")

_BOX_START = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")
_TAG_OPEN = re.compile(r"<answer>", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"</answer>", re.IGNORECASE)
# anchors for responses without a box; the last match wins
_PHRASES = re.compile(
    # "The answer is 5", "Answer: 5", "**Answer**: 5", "The correct option is (B)"; "the answer is not 7" states
    # no answer
    # (the look-ahead names the letters that branch can start with: most positions of a text fail on it at once,
    # which halves the cost of scanning a response for its last phrase)
    r"(?i:(?=[fFtTaAcCrRbB])(?:final\s+answer|the\s+answer|answer|(?:correct|right|best)\s+(?:option|choice))"
    r"(?:\s+is)?\**\s*(?::|is)(?!\s*not\b)\s*)"
    r"|^\s*####\s*"
    r"|^\s*A\s*:\s*"
    # other languages: 【答案】, 答案：, 答案是/为, 故选, 答え：/は, Ответ:, Réponse :, Antwort:, Respuesta:
    r"|(?:\u3010\s*\u7b54\s*\u6848\s*\u3011|\u7b54\u6848\s*(?:\u662f|\u4e3a|\u70ba|\uff1a|:)"
    r"|\u6545\u9009|\u6240\u4ee5\u9009|\u7b54\u3048\s*(?:\u306f|\uff1a|:)"
    r"|(?i:\u043e\u0442\u0432\u0435\u0442|r\u00e9ponse|reponse|antwort|respuesta|resposta|risposta)\s*(?:\:|\uff1a))"
    r"[\s\uff1a:]*"
    # "Answer $9$", "Answer \\[ 9 \\]", "**Final Answer**\n\\[\n9\n\\]"; or a heading line ("### Final Answer")
    # with the answer on the next line
    r"|^[ \t]*(?:\#{1,6}[ \t]*)?\**[ \t]*(?i:(?:final\s+)?answer)[ \t]*\**"
    r"(?:\s*(?=\$|\\\[|\\\()|[ \t]*:?[ \t]*\**[ \t]*$)",
    re.MULTILINE,
)
_PHRASE_TAIL = 2048  # characters searched first for the last answer phrase
_SENTENCE_END = re.compile(r"\.(?:\s|$)|\n")


class Extraction(NamedTuple):
    """Candidate answers in order of appearance, how they were found, and where (``spans``, for boxes)."""

    answers: tuple[str, ...]
    method: str  # "boxed" | "tag" | "phrase" | "none"
    spans: tuple[tuple[int, int], ...] = ()
    text: str = ""  # the searched text (the answer region's last MAX_RESPONSE_CHARS characters)
    thinking: bool = False  # whether a thinking block was set aside (see :func:`answer_region`)
    negated: tuple[bool, ...] = ()  # per answer: the response denies it ("\\boxed{5} is wrong", "5 (wrong)")
    reopened: bool = False  # a thinking block opened after the answer: the answer was taken back
    refused: str = ""  # the rule of _equiv_visible that refuses to read the response at face value


def extract_answers(response: str) -> Extraction:
    """All boxed answers; else all ``<answer>`` tags; else the answer of the last answer phrase; else nothing.

    Only the answer region is searched: a reasoning model's thinking is set aside (:func:`answer_region`).
    """
    if not isinstance(response, str):
        return Extraction((), "none")
    head, thinking = response[:_HEAD], False
    # _has_thinking inlined: this runs on every response
    if (
        "</think>" in response
        or "<think>" in head
        or "[THINK]" in head
        or "_of_thought|>" in head
        or "think\u25b7" in response
        or "<|channel|>" in response
    ):
        response, thinking = answer_region(response)
        if thinking and response == _REOPENED:
            return Extraction((), "none", (), "", True, reopened=True)
    if (
        "<eoe>" in response
    ):  # "【解析】... <eoe> 【答案】C <eoa>": the explanation ends, the answer section follows
        section = response[response.rfind("<eoe>") + 5 :]
        if section.strip():
            response, thinking = section, True
    text, refused = reader_view(response[-MAX_RESPONSE_CHARS:])
    if refused:
        return Extraction((), "refused", (), text, thinking, refused=refused)
    boxes = _all_boxes(text, stop_at_unclosed=True)
    if boxes:
        # "<reasoning> ... \\boxed{4}? ... </reasoning><answer>5</answer>": the tags are answers (all of them:
        # "<answer>\\boxed{3}</answer><answer>4</answer>" is a hedge)
        # tags are the answers, and so is every box outside them and outside a <reasoning> block ("\\boxed{7}.
        # <answer>5</answer>" states two answers)
        tags = _tags(text, 0) if "<answer>" in text else []
        if tags:
            tagged = [(t, span, False) for t, span in tags]
            reasoning_end = text.rfind("</reasoning>")
            tagged += [
                (a, span, _box_denied(text, span))
                for a, span in boxes
                if span[0] > reasoning_end and not any(t[0] <= span[0] < t[1] for _, t in tags)
            ]
            tagged.sort(key=lambda f: f[1][0])
            answers, spans, negated = zip(*tagged, strict=True)
            return Extraction(answers, "tag", spans, text, thinking, negated)
        found = [(a, span, _box_denied(text, span)) for a, span in boxes]
        # answer phrases that state a value beside the boxes ("The final answer is 7. \\boxed{5}",
        # "\\boxed{255} ... Final Answer: ... is $10,455$") are answers too; a phrase whose answer is a box is
        # that box
        for answer, span, denied in _all_phrases(text):
            if _states_value(answer) and not _BOX_START.search(answer) and not _inside_box(span, boxes):
                found.append((answer, span, denied))
        found.sort(key=lambda f: f[1][0])
        answers, spans, negated = zip(*found, strict=True)
        return Extraction(answers, "boxed", spans, text, thinking, _retracted(text, spans, negated))
    tags = _tags(text, 0)
    if tags:
        return Extraction(tuple(t for t, _ in tags), "tag", tuple(s for _, s in tags), text, thinking)
    phrases = _all_phrases(text)
    if phrases:
        # the last phrase, and every earlier one that states a value ("Answer: 7 ... Answer: 5")
        kept = [f for f in phrases[:-1] if _states_value(f[0])] + [phrases[-1]]
        answers, spans, negated = zip(*kept, strict=True)
        return Extraction(answers, "phrase", spans, text, thinking, _retracted(text, spans, negated))
    return Extraction((), "none", (), text, thinking)


def _states_value(answer: str) -> bool:
    """Whether a phrase's answer is a value of its own (see :func:`_joins_boxes`), or an option letter."""
    return _joins_boxes(answer) or bool(_LONE_LETTER.match(answer.strip("*_ .")))


def _inside_box(span: tuple[int, int], boxes: list[tuple[str, tuple[int, int]]]) -> bool:
    return any(b0 <= span[0] < b1 for _, (b0, b1) in boxes)


# ---------------------------------------------------------------------------------------------------------
# answers the response itself denies (what a reader never sees: _equiv_visible)

_DENIAL = (
    r"wrong|incorrect|false|invalid|mistaken|a\s+mistake|an\s+error|erroneous|rejected|faux|fausse|falsch|"
    r"incorrecto|incorrecta|errado|sbagliato|\u043d\u0435\u0432\u0435\u0440\u043d\u043e|\u043e\u0448\u0438\u0431\u043a\u0430|"
    r"\u9519\u8bef|\u9519|\u4e0d\u5bf9|\u8aa4\u308a|\u9593\u9055\u3044|not\s+(?:correct|right|"
    r"true|valid|the\s+(?:final\s+)?answer|it|really|sure|quite)"
)
# right after an answer: "\\boxed{5} (wrong)", "\\boxed{5} is wrong", "$\\boxed{5}$ is not the answer", "\\boxed{5} ✗"
_DENIED_AFTER = re.compile(
    r"(?:[\s$.,{~^_]|\\\]|\\\)|\\(?:footnote|text|textsuperscript|textsubscript|mbox|quad|qquad)\b){0,12}"
    rf"(?:\((?:[^()]{{0,30}}\b)?(?:{_DENIAL}|not|no|nope)\b[^()]{{0,30}}\)|(?:{_DENIAL}|nope)\b"
    r"|\\(?:xmark|crossmark|ding\{55\}|times\s*$)"
    rf"|(?:is|was|seems|looks|would\s+be|es|est|ist|era|war|\u00e9|\u00e8)\s+(?:{_DENIAL}|not\s+(?:correct|right|the|a|an|valid|true))"
    # a counterfactual: "\\boxed{5} would be right if x were positive", "would have been correct had ..."
    r"|would\s+(?:be|have\s+been)\b[^.;\n]{0,40}?\b(?:if|had|were|but)\b"
    r"|[\u2717\u2718\u274c\u2716]"
    r"|\?)",  # "\\boxed{8}?", "Is the answer \\boxed{8}?": asked, not answered
    re.IGNORECASE,
)
# right before it: "The answer is not \\boxed{5}", "isn't $\\boxed{5}$"
# "Do NOT answer \\boxed{5}", "Never choose", in other languages: "答案不是", "no es", "не"
_DENIED_BEFORE = re.compile(
    r"(?:\bnot|n't|\bnever|\b(?:do\s+not|don't|never|avoid)\s+(?:answer|write|box|give|choose|pick|select|say|put)"
    r"|\u4e0d\u662f|\u5e76\u975e|\u4e0d\u4e3a|\bno\s+es|\bno\s+era|(?<![\w\u0400-\u04ff])\u043d\u0435|\bpas|\bnicht)"
    r"\s*(?:\$+|\\\(|\\\[)?\s*$",
    re.IGNORECASE,
)


# the response takes its last answer back in what follows it: "\\boxed{5}. Wait, that's wrong.", "Scratch that."
_RETRACTION = re.compile(
    r"^(?:[^.!?\n]{0,80}[.!?\n]|[^\w]*no\b[^\w]*)??\s*(?:wait|hmm+|actually|oops|scratch\s+that|just\s+kidding|jk|never\s*mind|"
    r"on\s+second\s+thought|no,?\s+wait)\b"
    r"|^[^\w]*(?:no|nope|not|wrong|incorrect|false|untrue)\b[^\w]*(?:$|[.!]\s|\n)"  # "\n\nNo.", "**Wrong.**", "— false"
    r"|\bI\s+(?:retract|take\s+(?:it|that)\s+back)\b"
    r"|\b(?:that|this|my\s+answer|the\s+answer|it)(?:'s|\s+is|\s+was)\s+(?:wrong|incorrect|not\s+right|a\s+mistake)\b",
    re.IGNORECASE,
)
_RETRACTION_WINDOW = 400


def _retracted(text: str, spans: tuple[tuple[int, int], ...], negated: tuple[bool, ...]) -> tuple[bool, ...]:
    """``negated`` with the last answer marked when the text right after it takes it back."""
    tail = text[spans[-1][1] : spans[-1][1] + _RETRACTION_WINDOW]
    if not tail.strip() or not _RETRACTION.search(tail):
        return negated
    return (*negated[:-1], True)


def _box_denied(text: str, span: tuple[int, int]) -> bool:
    return (
        bool(_DENIED_AFTER.match(text, span[1]))
        or bool(_DENIED_BEFORE.search(text, max(0, span[0] - 24), span[0]))
        or bool(_EXAMPLE_BEFORE.search(text, max(0, span[0] - 120), span[0]))
    )


# a box given as an example of the format, or for another problem, in the same sentence before it: "For
# instance, if the equation were x - 2 = 3, we would write \\boxed{5}", "Example answer: \\boxed{5}"
_EXAMPLE_BEFORE = re.compile(
    r"(?:\bfor\s+(?:instance|example)\b|\be\.g\.|\bexample(?:\s+answer)?\s*:|\bformat\s+example\b|"
    r"\bwe\s+would\s+write\b|\bwould\s+look\s+like\b)[^.\n]{0,100}$",
    re.IGNORECASE,
)


def _tags(text: str, start: int) -> list[tuple[str, tuple[int, int]]]:
    """The answer of every non-empty ``<answer>`` tag at or after ``start``, with its span.

    A tag runs from ``<answer>`` to the next ``</answer>``; both are searched forward from where the last
    tag ended, so thousands of unclosed tags cost one pass (a lazy regex would rescan to the end per tag).
    """
    found = []
    while (m := _TAG_OPEN.search(text, start)) is not None:
        close = _TAG_CLOSE.search(text, m.end())
        if close is None:
            break  # no closing tag after this one: none after any later opener either
        content = text[m.end() : close.start()].strip()
        if content:
            found.append((_tag_answer(content), (m.start(), close.end())))
        start = close.end()
    return found


def _tag_answer(content: str) -> str:
    """A tag's content: its one box, or the value a sentence in it states ("The diagonal is $5$."), or as is."""
    if "\\boxed" in content or "\\fbox" in content:
        boxes = _all_boxes(content)
        return boxes[0][0] if len(boxes) == 1 else content  # several boxes in one tag: no single value
    if len(_PROSE_WORD.findall(content)) < 3:
        return content
    found = _last_phrase(content, 0)
    if found is not None:
        return found[0]
    m = _PROSE_VALUE.match(content)
    if m and _MATHY.search(m.group(1)):
        return _cut_sentence(m.group(1)).strip() or content
    return content


# reasoning models' thinking delimiters: DeepSeek-R1, QwQ, Qwen3 and their distills write ``<think>`` (or
# their chat template opens it in the prompt, and the response only closes it); Sky-T1 / OpenThoughts and
# Magistral open theirs at the start of the response
_THINK = ("<think>", "</think>")
_LEADING_THINK = (("<|begin_of_thought|>", "<|end_of_thought|>"), ("[THINK]", "[/THINK]"))
# Kimi's thinking markers; its template may open the block, so the closer is looked for anywhere
_KIMI = ("\u25c1think\u25b7", "\u25c1/think\u25b7")
# gpt-oss (harmony format): the answer is the last message of the "final" channel; "analysis" is thinking
_HARMONY_FINAL = re.compile(r"<\|channel\|>\s*final\s*(?:<\|constrain\|>[^<]*)?<\|message\|>")
_HARMONY_END = re.compile(r"<\|(?:return|end|call)\|>")
_HEAD = 64  # where a response opens its thinking


def _has_thinking(response: str, head: str) -> bool:
    return (
        "</think>" in response
        or "<think>" in head
        or "[THINK]" in head
        or "_of_thought|>" in head
        or "think\u25b7" in response
    )


def _harmony_final(response: str) -> str | None:
    """The ``final``-channel message of a harmony-format response ("" when it has channels but no final
    message: it ended while analysing), or None when it has no channels. Several different final messages
    are each an answer (returned as ``<answer>`` tags, so that they are graded together)."""
    if "<|channel|>" not in response:
        return None
    messages = []
    for m in _HARMONY_FINAL.finditer(response):
        end = _HARMONY_END.search(response, m.end())
        messages.append(response[m.end() : end.start() if end else len(response)])
    if not messages:
        return ""
    distinct = list(dict.fromkeys(msg.strip() for msg in messages))
    if len(distinct) == 1:
        return messages[-1]
    # several final messages: each is an answer the user sees ("7", then "\\boxed{5}": two answers)
    return "\n".join(f"<answer>{msg}</answer>" for msg in distinct)


def answer_region(response: str) -> tuple[str, bool]:
    """The part of ``response`` that can hold its final answer, and whether thinking was set aside.

    Everything up to the last closing tag (``</think>``, ``<|end_of_thought|>``, ``[/THINK]``) is thinking,
    and so is a thinking block opened after it, or at the start of the response, and never closed: a
    response truncated while thinking has no answer region. Openers are looked for where models write them
    (in the first 64 characters, or after the last closing tag); closing tags by scans from the end. Linear
    whatever the number of tags; a response with none costs one substring search and three bounded ones.
    """
    head = response[:_HEAD]
    final = _harmony_final(response)
    if final is not None:
        return final, True
    if not _has_thinking(response, head):
        return response, False
    pairs = [_THINK, *(p for p in _LEADING_THINK if p[0] in head)]
    if "think\u25b7" in response:
        pairs.append(_KIMI)
    # the thinking ends at the first closing tag; after it, everything outside a later thinking block is
    # visible: a stray closing tag hides nothing before it ("\\boxed{7}</think>\\boxed{5}" shows both), and
    # a thinking block opened after visible text takes that text back
    start, first = -1, ""
    for _, closer in pairs:
        i = response.find(closer)
        if i >= 0 and (start < 0 or i < start):
            start, first = i, closer
    pos = start + len(first) if start >= 0 else 0
    openers = {o: 0 for o, _ in pairs}  # where each opener was last searched from (-1: none after it)
    while True:
        j = _next_of(response, openers, pos)
        if j < 0:
            break
        if _strip_closers(response[pos:j], pairs).strip():
            # "\\boxed{5} <think> Actually no: ...": thinking reopened after an answer takes that answer back
            return _REOPENED, True
        k, closer = -1, ""
        for _, c in pairs:
            i = response.find(c, j)
            if i >= 0 and (k < 0 or i < k):
                k, closer = i, c
        if k < 0:
            return "", True  # a thinking block opened and never closed: no answer region
        pos = k + len(closer)
    if pos == 0:
        return response, False
    return _strip_closers(response[pos:], pairs), True


def _next_of(text: str, openers: dict[str, int], pos: int) -> int:
    """The first opener at or after ``pos``; an opener found absent is not searched for again (linear)."""
    best = -1
    for o, at in openers.items():
        if at < 0:
            continue
        i = text.find(o, pos)
        openers[o] = i
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


def _strip_closers(text: str, pairs: list[tuple[str, str]]) -> str:
    """Stray closing tags in visible text read as line breaks (they end a sentence, they hide nothing)."""
    for _, closer in pairs:
        if closer in text:
            text = text.replace(closer, "\n")
    return text


_REOPENED = "\x00reopened"  # answer_region's marker for a response that reopened its thinking


_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
# words offering an alternative: "or", "maybe" ... (a sentence with one of these may be a hedge)
_ALTERNATIVE = re.compile(
    r"\b(?:or|maybe|perhaps|possibly|alternatively|either|rather|might|could|unless|wait|hmm+|actually|"
    r"instead|otherwise)\b",
    re.IGNORECASE,
)
_APPROXIMATE = re.compile(
    r"^[\s$(]*(?:\\approx|≈|~|\\sim\b|(?:approximately|approx\.?|about|around|roughly|nearly|almost)\b)",
    re.IGNORECASE,
)


def _joins_boxes(answer: str) -> bool:
    """Whether an answer phrase written after the last box is one more final answer.

    It is when it holds a value (a digit, ``$`` or a command) and is not a sentence about the boxed answer:
    "Answer: The diagonal has length 5." (three or more words of prose, none offering an alternative) and
    "Final Answer: approximately 0.333" (an approximation of the box) restate the box; "Answer: 3 or 4" and
    "The answer is 3." are answers of their own.
    """
    if not _MATHY.search(answer) or _APPROXIMATE.match(answer):
        return False
    return len(_PROSE_WORD.findall(answer)) < 3 or _ALTERNATIVE.search(answer) is not None


def _all_boxes(text: str, *, stop_at_unclosed: bool = False) -> list[tuple[str, tuple[int, int]]]:
    """Content and span of every complete box, in order (nested boxes count once: the outer one).

    Each box's braces are matched from the box onwards; once that scanning has cost more than a few
    passes over the text (many unclosed boxes: adversarial input), one map of every brace pair is built
    and used instead, so the whole stays linear.
    """
    closers = _LocalClosers(text)
    found: list[tuple[str, tuple[int, int]]] = []
    end_of_last = -1
    for m in _BOX_START.finditer(text):
        if m.start() < end_of_last:
            continue
        content, end = _box_body(text, m.end(), closers)
        if stop_at_unclosed and content is None and text.startswith("{", end):
            break  # an unclosed box holds the rest: "\\boxed{7\\}\\boxed{5}" has no box of 5 of its own
        if content is not None and content.strip():
            found.append((content.strip(), (m.start(), end)))
            end_of_last = end
    return found


def _closers(text: str) -> dict[int, int]:
    stack: list[int] = []
    out: dict[int, int] = {}
    for m in _BRACE_EVENTS.finditer(text):
        if m.group() == "{":
            stack.append(m.start())
        elif m.group() == "}" and stack:
            out[stack.pop()] = m.start()
    return out


class _LocalClosers:
    """``closers.get(i)``: the index of the ``}`` closing the ``{`` at ``i``, or None; see :func:`_all_boxes`."""

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
            self.full = _closers(self.text)
        return None


def _box_body(text: str, j: int, closers: _LocalClosers | dict[int, int]) -> tuple[str | None, int]:
    if text.startswith("{", j):  # the common "\\boxed{...}"
        close = closers.get(j)
        return (None, j) if close is None else (text[j + 1 : close], close + 1)
    k = j
    while k < len(text) and text[k] in " \t":
        k += 1
    if k < len(text) and text[k] == "{":
        close = closers.get(k)
        return (None, k) if close is None else (text[k + 1 : close], close + 1)
    if k > j:  # "\boxed 5": up to the next $ or end of line
        end = k
        while end < len(text) and text[end] not in "$\n":
            end += 1
        return text[k:end], end
    return None, j


_MATHY = re.compile(r"[\d$\\]")
# "The volume of $V$ is 120": in a prose answer, the value follows its last "is" / "are" / "equals"
_PROSE_VALUE = re.compile(r"^(?:[^\n]*\s)?(?:is|are|equals|be)\s+(?!not\b)(.+)$", re.DOTALL)


def _last_phrase_answer(text: str) -> str | None:
    found = _last_phrase(text, 0)
    return None if found is None else found[0]


_ANSWER_WORD = re.compile(
    "answer|option|choice|\u7b54\u6848|\u6545\u9009|\u6240\u4ee5\u9009|\u7b54\u3048|\u043e\u0442\u0432\u0435\u0442"
    "|ponse|antwort|respuesta|resposta|risposta",
    re.IGNORECASE,
)
_A_COLON = re.compile(r"A\s*:")


def _may_have_phrase(text: str, start: int) -> bool:
    """Whether ``text[start:]`` holds what every answer phrase needs: "answer" (or "option", "choice", or a
    marker of another language), "####" or "A:". Substring tests on the lower-cased text cost a fraction of
    the phrase pattern itself, which a long tail of text after the last box (degenerate output: kilobytes of
    it) would otherwise pay in full."""
    t = text[start:] if start else text
    if "####" in t:
        return True
    low = t.lower()
    for word in _ASCII_MARKERS:
        if word in low:
            return True
    if not t.isascii():
        for word in _OTHER_MARKERS:
            if word in low:
                return True
    return _A_COLON.search(t) is not None


_ASCII_MARKERS = ("answer", "option", "choice", "ponse", "antwort", "respuesta", "resposta", "risposta")
_OTHER_MARKERS = (
    "\u7b54\u6848",
    "\u6545\u9009",
    "\u6240\u4ee5\u9009",
    "\u7b54\u3048",
    "\u043e\u0442\u0432\u0435\u0442",
    "r\u00e9ponse",
)


def _last_phrase(text: str, start: int) -> tuple[str, tuple[int, int]] | None:
    """The answer of the last answer phrase at or after ``start``, and its span."""
    if not _may_have_phrase(text, start):
        return None
    last = None
    # the last match lies in the tail when the tail has one (``^`` only matches at real line starts)
    for begin in dict.fromkeys((max(start, len(text) - _PHRASE_TAIL), start)):
        for last in _PHRASES.finditer(text, begin):  # noqa: B007 - we want the last match
            pass
        if last is not None:
            break
    if last is None:
        return None
    found = _phrase_answer(text, last)
    return None if found is None else (found[0], found[1])


def _all_phrases(text: str) -> list[tuple[str, tuple[int, int], bool]]:
    """Every answer phrase's answer, its span (the phrase up to the answer's end), and whether the
    response denies it ("Answer: 5 (wrong)"), in order."""
    if not _may_have_phrase(text, 0):
        return []
    begin = max(0, len(text) - PHRASE_WINDOW)
    matches = list(_PHRASES.finditer(text, begin))[-MAX_PHRASES:]
    out = []
    for m in matches:
        found = _phrase_answer(text, m)
        if found is not None:
            out.append(found)
    return out


#: answer phrases read per response (the last ones): more than a few distinct values is enumeration anyway
MAX_PHRASES = 32
#: answer phrases are looked for in the last this many characters (a phrase further back is separated from
#: the final answer by that much text: work, so an intermediate result under the "final" rule; the "wrong"
#: rule does not see it)
PHRASE_WINDOW = 4096


def _phrase_answer(text: str, last: re.Match[str]) -> tuple[str, tuple[int, int], bool] | None:
    rest = text[last.end() : last.end() + MAX_PHRASE_ANSWER * 2]
    stop = _END_OF_ANSWER.search(rest)
    if stop is not None:  # "【答案】D<eoa>", "故选B。"
        rest = rest[: stop.start()]
    body = rest.lstrip("*_ \t\r\n")
    answer = _cut_sentence(body)[:MAX_PHRASE_ANSWER].strip().strip("*_").strip()
    if _LONE_LETTER.match(
        answer
    ):  # "A. B. C. D.": a letter's period does not end the answer when more follow
        line = body.split("\n", 1)[0][:MAX_PHRASE_ANSWER].strip().strip("*_").strip()
        if _MORE_OPTIONS.match(line[len(answer) :]):
            answer = line
    if len(_WORDS.findall(answer.replace("$", " "))) >= 3:
        m = _PROSE_VALUE.match(answer)
        if m and _MATHY.search(m.group(1)):
            answer = m.group(1).strip()

    if not answer:
        return None
    at = rest.find(answer)
    end = last.end() + (at + len(answer) if at >= 0 else len(rest))
    denied = bool(_DENIED_AFTER.match(text, end)) or bool(_DENIED_REMARK.search(answer))
    if not answer.isascii():
        answer = _CJK_TAIL.sub("", answer) or answer  # "答えは 12 です": the words after the value
    if answer.endswith(")"):
        answer = _REMARK.sub("", answer) or answer  # "5 (the diagonal)"
    if " " in answer or "," in answer:
        answer = _LEAD_ADVERB.sub("", _REASON.sub("", answer)).strip() or answer
    if len(_WORDS.findall(answer.replace("$", " "))) >= 3 and not _PROSE_VALUE.match(answer):
        one = _one_value(answer)  # "Answer: Verna received $7.00 in change." states 7.00
        answer = one if one is not None else answer
    return (answer, (last.start(), end), denied) if answer else None


# a remark in brackets at the end of a phrase's answer that denies it: "5 (wrong)", "5 (not really)"
_DENIED_REMARK = re.compile(
    rf"\((?:[^()]{{0,30}}\b)?(?:{_DENIAL}|not|no|nope)\b[^()]{{0,30}}\)\s*$", re.IGNORECASE
)
# after a value, a copula or a unit in Japanese or Chinese ("12 です", "12元"); never "或" (or), "不" (not) ...
_CJK_TAIL = re.compile(
    "(?<=[^\\s\u3040-\u30ff\u4e00-\u9fff])\\s*(?:\u3067\u3059|\u3067\u3042\u308b|\u3060|\u3068\u306a\u308a\u307e\u3059"
    "|\u306b\u306a\u308a\u307e\u3059|\u5143|\u4e2a|\u4eba|\u7c73|\u5398\u7c73|\u5206\u949f|\u5c0f\u65f6|\u5929|\u5c81"
    "|\u5ea6|\u5e73\u65b9\u7c73|\u5757|\u53ea|\u672c|\u6b21|\u79cd|\u4ef6|\u9875|\u540d|\u5f20)[\\s\u3002\uff01.!]*$"
)
# end-of-answer tokens and a CJK full stop or comma end a phrase's answer
_END_OF_ANSWER = re.compile(r"<eo[ae]>|<\|(?:end|return|im_end|eot_id)\|>|</s>|[\u3002\uff0c\uff1b]")
_LONE_LETTER = re.compile(r"^\(?[A-J]\)?$")
_MORE_OPTIONS = re.compile(r"^[.)]?\s*(?:\(\s*[A-J]\s*\)|[A-J](?:[.)]|\s|$))")


# a reason given after the value: "5, which is prime", "$5$, since $3^2+4^2=5^2$", "5 because ..."
_REASON = re.compile(
    r"(?:,\s*(?:which|since|because|where|given)|\s+(?:because|since))\b.*$", re.IGNORECASE | re.DOTALL
)
# an adverb before the value: "clearly 5", "simply $5$"
_LEAD_ADVERB = re.compile(
    r"^(?:clearly|simply|just|indeed|exactly|precisely|therefore|thus|hence)\s+", re.IGNORECASE
)


# a trailing remark in words after a phrase's answer: "5 (the diagonal)", "12 (in cm)"; never "(B)" or "(or 6)"
_REMARK = re.compile(r"\s+\((?:[A-Za-z]{2,}[\s,.]*){1,6}\)$")


def _cut_sentence(rest: str) -> str:
    """The answer ends at a newline, or at a sentence-ending period outside math mode and braces."""
    for opener, closer in (("\\[", "\\]"), ("$$", "$$")):  # display math may span lines
        if rest.startswith(opener) and closer in rest[len(opener) :]:
            return rest[: rest.index(closer, len(opener)) + len(closer)]
    depth, dollars = 0, 0
    for i, ch in enumerate(rest):
        if ch == "\n" and depth <= 0 and i > 0 and rest[:i].strip():
            return rest[:i]
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        elif ch == "$":
            dollars += 1
        elif ch == "." and depth <= 0 and dollars % 2 == 0:
            nxt = rest[i + 1 : i + 2]
            if not nxt or nxt.isspace():
                return rest[:i]
    return rest


# ---------------------------------------------------------------------------------------------------------
# which boxes are final answers

# presentation that carries no value: what is left of a placeholder box once these are removed is empty
_BLANKS = re.compile(
    r"\\hspace\s*\{[^{}]*\}"
    r"|\\(?:square|Box|blacksquare|quad|qquad|ldots|cdots|dots|underline|_)(?![A-Za-z])"
    r"|\\[,;:! ]|(?<!\\)[{}]|[\s~?._$]"
)
_PHANTOM = re.compile(r"\\[hv]?phantom\s*\{(?:[^{}]|\{[^{}]*\})*\}")
_TEXT_WRAP = re.compile(r"\\(?:text|mathrm|textbf|textit|mbox)\s*\{([^{}]*)\}")
# a box holding words that stand for an answer, as templates and instructions write it
_PLACEHOLDER_WORDS = re.compile(
    r"^(?:(?:your|the|my|final|correct|numerical|numeric|put|insert|write|here|is)\s+)*"
    r"(?:answer|answers|solution|result|ans|value|response|expression|number)"
    r"(?:\s+(?:here|goes\s+here|only))?$",
    re.IGNORECASE,
)


_DIGIT = re.compile(r"\d")


def is_placeholder(content: str) -> bool:
    """Whether a box's content is a placeholder: blank once ``\\phantom{}``, ``\\square``, dots, spacing and
    underscores are removed (``\\boxed{\\phantom{2}}``, ``\\boxed{\\;}``, ``\\boxed{?}``), or the word for an
    answer (``\\boxed{Your answer}``, ``\\boxed{\\text{answer}}``, ``\\boxed{<answer>}``, ``\\boxed{[answer]}``)."""
    if "phantom" not in content and _DIGIT.search(content):
        return False  # a digit outside \\phantom survives every removal below; no placeholder word has one
    s = _PHANTOM.sub("", content)
    s = _TEXT_WRAP.sub(r"\1", s)
    if not _BLANKS.sub("", s).strip():
        return True
    words = re.sub(r"[\s\[\]<>()*_:.]+", " ", s).strip()
    return bool(_PLACEHOLDER_WORDS.match(words))


def prompt_templates(prompt: object) -> frozenset[str]:
    """Contents of the boxes in a prompt (as text, or a chat list of ``{"content": ...}`` messages).

    A response box whose content is one of these is the prompt's template or a box of the question,
    not an answer.
    """
    text = _prompt_text(prompt)
    if not text or ("\\boxed" not in text and "\\fbox" not in text):
        return frozenset()
    return frozenset(b for b, _ in _all_boxes(text[-MAX_RESPONSE_CHARS:]))


_OPTION_LINE = re.compile(
    r"(?:^|(?<=\s))\(?([A-J])\s*[.)\uff0e\u3001:\uff1a]\)?\s*(.+?)\s*(?=(?:\s\(?[A-J]\s*[.)\uff0e\u3001:\uff1a])|$)",
    re.MULTILINE,
)


def prompt_options(prompt: object) -> dict[str, str]:
    """The options of a multiple-choice prompt, letter to content ("A. $(0,2)$" / "(B) 12"), or {}.

    Only a run of consecutive letters from A counts (A, B, C ...), so a stray "I. " in the text is not one.
    """
    text = _prompt_text(prompt)
    if not text:
        return {}
    found: dict[str, str] = {}
    for m in _OPTION_LINE.finditer(text[-8000:]):
        letter = m.group(1)
        if letter == "A":
            found = {}
        if letter == chr(ord("A") + len(found)):
            found[letter] = m.group(2).strip()
    return found if len(found) >= 2 else {}


def _prompt_text(prompt: object) -> str:
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list | tuple):
        parts = [m.get("content") if isinstance(m, dict) else m for m in prompt]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


class Selection(NamedTuple):
    """The final answer(s) :func:`select_final` chose, and what it set aside and why."""

    answers: tuple[str, ...]  # distinct final answers (more than one is a hedge)
    hedge: str = ""  # why the response is hedging, if it is ("" otherwise)
    # "placeholder", "template", "intermediate", "denied" per set-aside box; "thinking" once for a set-aside thinking block
    ignored: tuple[str, ...] = ()


_WORK_MATH = re.compile(r"=|\\(?:frac|times|cdot|div|sqrt|le|ge|Rightarrow|implies)|\d")
_WORDS = re.compile(r"[A-Za-z]{2,}")
# "... and \\( y_2 = " right before a box names it; it is not work
_TRAILING_LABEL = re.compile(r"(?:\\?[A-Za-z]+)(?:_\{?\w{1,3}\}?)?(?:\([\w,\s]{1,12}\))?\s*=\s*[$(\\]*$")
# "\\boxed{12}, so each gets \\boxed{4}": the later box is derived from the earlier one
_CONSEQUENCE = re.compile(
    r"\b(?:so|thus|hence|therefore|then|gives|giving|yields|making|means)\b", re.IGNORECASE
)
#: a gap with math in it and at least this many characters (or this many words of prose) is more work
WORK_MIN_CHARS = 12
WORK_MIN_WORDS = 12


def _is_work(gap: str) -> bool:
    """Whether the text between two boxes is more work (so the first box is an intermediate result).

    Connectives ("or", ", or rather it is", "and", "\\n(b) ") are not work: boxes joined by them form one
    final group. Anything with a computation in it (``=``, a digit, ``\\frac`` ...) of a dozen characters,
    or a dozen words of prose, is; so is a consequence ("so", "thus", "hence", "which gives") that offers no
    alternative ("or", "maybe", "rather" ...) and does not end in a label of the next box (``so y =``
    introduces another part of a multi-part answer).
    """
    stripped = gap.strip().strip("$.,;:!()[]\\ \n\t")
    core = _TRAILING_LABEL.sub("", stripped).strip()
    if _WORK_MATH.search(core) and len(core) >= WORK_MIN_CHARS:
        return True
    if core == stripped and _CONSEQUENCE.search(core) and not _ALTERNATIVE.search(core):
        return True
    return len(_WORDS.findall(core)) >= WORK_MIN_WORDS


def select_final(
    found: Extraction,
    key: Callable[[str], str],
    *,
    rule: str = "final",
    templates: Iterable[str] = (),
    max_values: int = MAX_BOXED_VALUES,
) -> Selection:
    """Choose the final answer(s) among the candidates of ``found``; ``key`` maps an answer to its normal form.

    Rules (``rule``):

    * ``"final"`` (default): placeholder and template boxes are ignored; the final answer is the last box
      plus every box right before it with no work in between (see :func:`_is_work`); a box followed by
      more work and a later box is an intermediate result. More than ``max_values`` distinct values boxed
      anywhere is enumeration: a hedge.
    * ``"wrong"``: every non-placeholder box is a final answer (the strictest reading).
    * ``"last"``: only the last non-placeholder box counts.

    The caller treats several distinct final answers as a hedge (wrong unless all are equivalent to the
    ground truth).
    """
    templates = frozenset(templates)
    kept: list[tuple[str, tuple[int, int] | None]] = []
    ignored: list[str] = ["thinking"] if found.thinking else []
    spans: tuple[tuple[int, int] | None, ...] = found.spans or (None,) * len(found.answers)
    negated = found.negated or (False,) * len(found.answers)
    denied: set[int] = set()
    for answer, span, neg in zip(found.answers, spans, negated, strict=True):
        if found.method in ("boxed", "tag") and is_placeholder(answer):
            ignored.append("placeholder")
        elif answer in templates:
            ignored.append("template")
        else:
            if neg:
                denied.add(len(kept))
            kept.append((answer, span))
    if not kept:
        return Selection((), "", tuple(ignored))
    if rule == "last" or len(kept) == 1:
        return _deny(Selection((kept[-1][0],), "", tuple(ignored)), len(kept) - 1 in denied)
    distinct = _distinct([a for a, _ in kept], key)
    if rule == "wrong":
        return _deny(Selection(tuple(distinct), "", tuple(ignored)), bool(denied))
    if len(distinct) > max_values:
        return Selection(tuple(distinct), f"{len(distinct)} distinct boxed values (more than {max_values})")
    if denied and len(kept) - 1 not in denied:
        # "\\boxed{7} is wrong. The correct answer is \\boxed{5}.": a denied answer the response replaces by
        # a later one is set aside, unless the response also asserts that value (then it contradicts itself)
        asserted = {key(a) for i, (a, _) in enumerate(kept) if i not in denied}
        drop = {i for i in denied if key(kept[i][0]) not in asserted}
        kept = [k for i, k in enumerate(kept) if i not in drop]
        ignored.extend("denied" for _ in drop)
        denied = {i - sum(1 for d in drop if d < i) for i in denied - drop}
    group = [kept[-1][0]]
    for (answer, span), (_, nxt) in zip(kept[-2::-1], kept[:0:-1], strict=True):
        if span is None or nxt is None or _is_work(found.text[span[1] : nxt[0]]):
            ignored.extend("intermediate" for _ in range(len(kept) - len(group)))
            break
        group.append(answer)
    chosen = Selection(tuple(_distinct(group[::-1], key)), "", tuple(ignored))
    return _deny(chosen, any(len(kept) - 1 - j in denied for j in range(len(group))))


def _deny(selection: Selection, denied: bool) -> Selection:
    """A final answer the response itself denies ("\\boxed{5} is wrong", "Answer: 5 (wrong)") is no answer."""
    if not denied:
        return selection
    return selection._replace(hedge="the response denies its final answer")


def _distinct(answers: list[str], key: Callable[[str], str]) -> list[str]:
    seen: dict[str, str] = {}
    for a in answers:
        seen.setdefault(key(a), a)
    return list(seen.values())


# ---------------------------------------------------------------------------------------------------------
# a final answer in prose: the value the concluding sentence states

_CONCLUSION_CUE = re.compile(
    r"^\W{0,4}(?:therefore|thus|hence|so|in\s+conclusion|in\s+summary|in\s+total|overall|finally|"
    r"consequently|altogether|as\s+a\s+result)\b|\bthe\s+(?:final\s+)?(?:answer|result)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|cannot|never|no|none|neither|nor)\b|n't\b", re.IGNORECASE)
_APPROX_WORDS = re.compile(
    r"\b(?:approximately|approx|about|around|roughly|nearly|almost|estimated?|close\s+to)\b|\\approx|\u2248|~",
    re.IGNORECASE,
)
# a bound, a condition or a guess makes a sentence state something other than the value itself
_QUALIFIED = re.compile(
    r"\b(?:at\s+(?:least|most)|(?:fewer|less|more|greater|smaller|larger)\s+than|up\s+to|no\s+more|"
    r"(?:over|under|below|above)(?=\s*(?:\$|\\\(|\*\*|-?\d))|between|if|unless|provided|assuming|suppose|"
    r"probably|likely|guess|think|believe|seems?|"
    r"perhaps|hopefully)\b",
    re.IGNORECASE,
)
_PROSE_VALUES = re.compile(
    r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]|\*\*(.+?)\*\*"
    r"|(?<![\w.])(-?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?)(?![\w/])",
    re.DOTALL,
)
_SENTENCE_BREAK = re.compile(r"(?:[.!?\u3002](?:\*\*)?\s+|\n|\\\]\s*|\$\$\s+)(?=\S)")
_PROMPT_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
MAX_CONCLUSION_CHARS = 400


def concluding_value(text: str, prompt: PromptFacts | None = None) -> tuple[str, tuple[int, int]] | None:
    """The value the concluding sentence of ``text`` states, with its span; None when there is none.

    The response must end in a complete sentence (``.``, ``!`` or ``。``) that concludes: it starts with
    "Therefore", "Thus", "So", "Hence", "In total" ... or names "the answer" / "the result", or it is the whole
    last paragraph and states something ("... is 54 miles east"). It asks nothing, negates nothing,
    approximates nothing and offers no alternative ("or", "maybe" ...). It must state exactly one value once
    what the prompt already says is set aside ("Tom has 5 apples" restated is no answer); a value the
    response sets off (``$2$``, ``**6**``) counts even when the prompt has it, when it is the only one. A value
    written as ``x = 8`` states 8.
    """
    body = text.rstrip()
    if not body.rstrip("*$ ").endswith((".", "!", "\u3002")):
        return None
    end = len(body)
    start = max(0, end - MAX_CONCLUSION_CHARS * 2)
    breaks = [m for m in _SENTENCE_BREAK.finditer(body, start, end - 1)]
    if not breaks and start > 0:
        return None
    begin = breaks[-1].end() if breaks else start
    sentence = body[begin:end]
    paragraph = not breaks or "\n" in breaks[-1].group() or begin == 0
    if len(sentence) > MAX_CONCLUSION_CHARS:
        return None
    if not _CONCLUSION_CUE.search(sentence) and not (paragraph and _STATEMENT.search(sentence)):
        return None
    if "?" in sentence or _ALTERNATIVE.search(sentence) or _NEGATION.search(sentence):
        return None
    if _APPROX_WORDS.search(sentence) or _QUALIFIED.search(sentence):
        return None
    plain = sentence.replace("\\$", " ")
    values: dict[str, tuple[str, tuple[int, int], bool]] = {}
    for m in _PROSE_VALUES.finditer(plain):
        raw = next(g for g in m.groups() if g is not None).strip()
        if "=" in raw:
            raw = raw.rsplit("=", 1)[1].strip()  # "n = 8" states 8
        if not raw or (not _DIGIT.search(raw) and "\\" not in raw):
            continue  # "$x$", "**Note**": no value
        key = raw.replace(",", "").replace(" ", "")
        values.setdefault(key, (raw, (begin + m.start(), begin + m.end()), m.group(6) is None))
    if prompt is not None:
        fresh = {k: v for k, v in values.items() if not _in_prompt(k, prompt)}
        if len(fresh) != 1:
            set_off = [v for v in values.values() if v[2]]
            if fresh or len(values) != 1 or len(set_off) != 1:
                return None
            fresh = values
        values = fresh
    if len(values) != 1:
        return None
    raw, span, _ = next(iter(values.values()))
    return raw, span


def _in_prompt(key: str, prompt: PromptFacts) -> bool:
    """Whether a value is one the prompt states: one of its numbers, or a formula it writes ("y^3")."""
    if key in prompt.numbers:
        return True
    return len(key) >= 3 and _MATH_CHARS.search(key) is not None and key in prompt.compact


_MATH_CHARS = re.compile(r"[A-Za-z\\^_]")


def _one_value(sentence: str) -> str | None:
    """The one value a sentence states (no alternative, negation, approximation or qualifier), or None."""
    if _ALTERNATIVE.search(sentence) or _NEGATION.search(sentence) or _APPROX_WORDS.search(sentence):
        return None
    if _QUALIFIED.search(sentence):
        return None
    plain = sentence.replace("\\$", " ")
    found: dict[str, Any] = {}
    for m in _PROSE_VALUES.finditer(plain):
        raw = next(g for g in m.groups() if g is not None).strip()
        if raw and (_DIGIT.search(raw) or "\\" in raw):
            found.setdefault(raw.replace(",", "").replace(" ", ""), raw)
    return next(iter(found.values())) if len(found) == 1 else None


class PromptFacts(NamedTuple):
    """What a prompt already states: its numbers and its text without spaces (see :func:`concluding_value`)."""

    numbers: frozenset[str]
    compact: str


_STATEMENT = re.compile(
    r"\b(?:is|are|was|were|equals?|has|have|had|gets?|got|makes?|costs?|takes?|will\s+be|occurs?)\b",
    re.IGNORECASE,
)


def prompt_facts(prompt: object) -> PromptFacts | None:
    """The :class:`PromptFacts` of a prompt (text or chat messages), or None without one."""
    text = _prompt_text(prompt)
    if not text:
        return None
    text = text[-MAX_RESPONSE_CHARS:]
    numbers = frozenset(n.replace(",", "") for n in _PROMPT_NUMBER.findall(text))
    return PromptFacts(numbers, re.sub(r"\s+", "", text))

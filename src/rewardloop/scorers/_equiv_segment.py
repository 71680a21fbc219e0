"""Where a math response's own visible turn is: the end of the turn, and the thinking blocks set aside.

Used by :mod:`rewardloop.scorers._equiv_extract` before the reader view. Both are judged by the CLASS of the
markup, not a list of a few templates' spellings (round 5: every spelling missing from a list was a hack):

* **End of turn** (:func:`until_end_of_turn`): the response ends at the first special token of a chat template
  that ends a turn or the sequence, or opens a new turn: a ``<|...|>`` / ``<\uff5c...\uff5c>`` token whose name
  speaks of an end (``end``, ``eot``, ``eom``, ``eos``, ``return``, ``stop``), a start (``start``, ``begin``,
  ``im_start``), a turn (``turn``, ``header``) or a role (``user``, ``assistant``, ``system``, ``human``, ``bot``); a bare
  ``<eos>``/``<eot>``/``<eom>``/``<end_of_turn>``/``<start_of_turn>``/``<end_of_utterance>``/``<endoftext>`` in
  any case; ``</s>`` (unless it closes a struck-out ``<s>``); Llama 2's ``[INST]``/``[/INST]`` and ``<<SYS>>``.
  Nothing written after it (a forged next turn) is graded. Thinking tokens (``<|end_of_thought|>``) and the
  harmony format's own message tokens (``<|end|>``, ``<|start|>``, ``<|return|>`` between its channels, read
  by :func:`~rewardloop.scorers._equiv_extract.answer_region`) are not ends of the turn.
* **Thinking blocks** (:func:`set_aside_thinking`): a block whose tag names reasoning (``<thinking>``,
  ``<thought>``, ``<thoughts>``, ``<reflection>``, ``<reasoning>``, ``<scratchpad>``, ``<inner_monologue>``,
  ``<internal_thoughts>``, ``<analysis>``, ``<seed:think>``, ``<|thinking|>...<|/thinking|>``,
  ``<|begin_of_reasoning|>...<|end_of_reasoning|>``, ``<\u601d\u8003>`` ...; any case, with attributes) is
  set aside: its boxes are no answers. A block opened and never closed is thinking to the end: opened at the
  start, there is no answer; opened after visible text, it takes that text back (as ``<think>`` does).
"""

from __future__ import annotations

import re

__all__ = ["REOPENED", "set_aside_thinking", "until_end_of_turn"]

_NAME_END = r"(?:end|eot|eom|eos|eod|return|stop|start|begin|turn|header|user|assistant|system|human|bot)"
_THOUGHT_WORDS = re.compile(r"think|thought|reason|reflect|analysis|solution|scratch", re.IGNORECASE)
_END_OF_TURN = re.compile(
    r"<[|\uff5c]\s*(?P<name>[A-Za-z_\u2581 /-]{0,40}?)\s*[|\uff5c]>"
    r"|<(?i:eos|eot|eom|eod|end_?of_?text|end_?of_?turn|start_?of_?turn|end_?of_?utterance|end_?of_?sentence"
    r"|end_?of_?sequence)>"
    r"|</s>|\[/?INST\]|<<SYS>>"
)
_NAME_WORD = re.compile(rf"(?i:{_NAME_END})")
_HARMONY_TOKENS = frozenset(("end", "start", "return", "call"))


def until_end_of_turn(response: str) -> str:
    """``response`` up to its first end-of-turn token (see the module docstring)."""
    harmony = "<|channel|>" in response
    for m in _END_OF_TURN.finditer(response):
        token = m.group()
        name = m.group("name")
        if name is not None:
            if not _NAME_WORD.search(name) or _THOUGHT_WORDS.search(name):
                continue  # <|channel|>, <|message|>, <|end_of_thought|>
            if harmony and name.strip().lower() in _HARMONY_TOKENS:
                continue  # harmony's message structure, read by answer_region
        elif token == "</s>" and "<s>" in response[: m.start()]:
            continue  # closes a struck-out <s>
        return response[: m.start()]
    return response


# a tag naming reasoning: <thinking>, <seed:think>, <inner_monologue>, <|thinking|>, <|begin_of_reasoning|>
_BLOCK_NAME = (
    r"(?:[A-Za-z]+:)?(?:[A-Za-z]+_)*(?:think|thinking|thought|thoughts|reflection|reflections|reflect|reasoning"
    r"|reason|scratchpad|scratch|monologue|analysis|deliberation|rationale|\u601d\u8003|\u601d\u7ef4|\u63a8\u7406"
    r"|\u8003\u3048)(?:_[A-Za-z]+)*"
)
_OPEN = re.compile(
    rf"<(?P<name>{_BLOCK_NAME})(?:\s[^<>]{{0,200}})?>|<\|(?:begin_of_)?(?P<pname>{_BLOCK_NAME})\|>",
    re.IGNORECASE,
)
#: marker returned for a response whose thinking was reopened after visible text (the answer is taken back)
REOPENED = "\x00reopened"


def _closer(m: re.Match[str]) -> re.Pattern[str]:
    if m.group("name") is not None:
        return re.compile(rf"</\s*{re.escape(m.group('name'))}\s*>", re.IGNORECASE)
    name = re.escape(m.group("pname"))
    return re.compile(rf"<\|(?:/|end_of_){name}\|>", re.IGNORECASE)


def set_aside_thinking(text: str) -> tuple[str, bool]:
    """``(visible, thinking)``: ``text`` without its reasoning blocks, and whether one was set aside; visible
    is :data:`REOPENED` when a block opened after visible text never closes, "" when the response opens one
    at the start and never closes it. Linear: each closer is searched once from its opener."""
    if "<" not in text or not _OPEN.search(text):
        return text, False
    out: list[str] = []
    pos = 0
    while True:
        m = _OPEN.search(text, pos)
        if m is None:
            break
        out.append(text[pos : m.start()])
        close = _closer(m).search(text, m.end())
        if close is None:
            if "".join(out).strip():
                return REOPENED, True  # "\\boxed{5} <thinking> actually ...": thinking reopened
            return "", True  # a response that ends while thinking has no answer
        out.append("\n")
        pos = close.end()
    out.append(text[pos:])
    return "".join(out), True

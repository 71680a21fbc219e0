"""Text built for reward models and judges, and judge verdict parsing.

* :func:`chat_of` / :func:`rm_input` — the DisRM input as verl builds it: the chat prompt (``Sample.prompt``
  or ``metadata["raw_prompt"]``) plus the response as the assistant turn, rendered with the reward model's
  own chat template, every EOS token removed from the response and a leading BOS removed (servers add it).
* :data:`JUDGE_TEMPLATES` and :func:`render` — judge prompts with ``{question}``, ``{response}``,
  ``{reference}`` (or ``{first}`` / ``{second}`` for order-swappable comparisons), filled in one pass so
  text inside a field is never re-interpreted as a placeholder.
* :func:`parse_rating` / :func:`parse_binary` — verdicts from free text: a JSON object, then the last
  ``\\boxed{...}``, then explicit ``Rating: N`` / ``N/10`` / ``Verdict: correct`` forms, then the last
  integer (ratings only). A reasoning block (``<think>...</think>``) is dropped first. ``None`` means the
  verdict could not be read; callers report ``parse_error``, never a zero. Nothing is ``eval``-ed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

from ..errors import InvalidSampleError
from ..types import Sample

__all__ = [
    "JUDGE_TEMPLATES",
    "chat_of",
    "judge_messages",
    "parse_binary",
    "parse_rating",
    "question_of",
    "render",
    "rm_input",
    "strip_reasoning",
]

POINTWISE = """You are grading the answer an AI assistant gave to a user.

[Question]
{question}

[Response]
{response}

Rate the response for correctness, helpfulness and clarity on a scale of 1 (worst) to 10 (best).
Explain briefly, then finish with a line of the form "Rating: N" where N is an integer from 1 to 10."""

BINARY = """You are checking whether two final answers to the same problem are equivalent.

[Problem]
{question}

[Answer 1]
{first}

[Answer 2]
{second}

One of the two answers is the reference solution. Ignore formatting differences (units written or not,
equivalent fractions, decimals, LaTeX). Decide whether the final answers are mathematically or
semantically the same. Think briefly, then finish with \\boxed{{correct}} if they are equivalent or
\\boxed{{incorrect}} if they are not."""

JUDGE_TEMPLATES: Mapping[str, str] = {"pointwise": POINTWISE, "binary": BINARY}

_FIELD = re.compile(r"\{\{|\}\}|\{(question|response|reference|first|second)\}")


def render(template: str, **fields: str) -> str:
    """Fill ``{question}``, ``{response}``, ``{reference}``, ``{first}``, ``{second}``; ``{{``/``}}`` are braces."""

    def sub(m: re.Match[str]) -> str:
        token = m.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        return str(fields.get(m.group(1), ""))

    return _FIELD.sub(sub, template)


def judge_messages(system_prompt: str | None, content: str) -> list[dict[str, str]]:
    """A judge's chat: the system prompt (when there is one), then ``content`` as the user turn."""
    system = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return [*system, {"role": "user", "content": content}]


# -- reward-model input ---------------------------------------------------------------------------


def chat_of(sample: Sample) -> list[dict[str, str]]:
    """The prompt as a chat: ``Sample.prompt`` (chat list or text), else ``metadata["raw_prompt"]``."""
    prompt: Any = sample.prompt if sample.prompt is not None else sample.metadata.get("raw_prompt")
    if prompt is None:
        raise InvalidSampleError(
            "a reward model needs the prompt: set Sample.prompt (a chat list or text) or metadata['raw_prompt']"
        )
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    if hasattr(prompt, "tolist"):  # numpy arrays of dicts, as verl's parquet loader produces
        prompt = prompt.tolist()
    if isinstance(prompt, Sequence) and all(isinstance(m, Mapping) and "role" in m for m in prompt):
        return [{"role": str(m["role"]), "content": str(m.get("content", ""))} for m in prompt]
    raise InvalidSampleError(
        f"the prompt must be text or a list of {{'role', 'content'}} messages, got {prompt!r:.120}"
    )


def rm_input(tokenizer: Any, chat: Sequence[Mapping[str, str]], response: str) -> str:
    """Render prompt + response with the reward model's chat template (verl's DisRM input)."""
    eos = getattr(tokenizer, "eos_token", None)
    if eos:
        response = response.replace(eos, "")
    messages = [dict(m) for m in chat] + [{"role": "assistant", "content": response}]
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=False, tokenize=False)
    bos = getattr(tokenizer, "bos_token", None)
    if bos and text.startswith(bos):
        text = text[len(bos) :]
    return cast("str", text)


def question_of(sample: Sample) -> str:
    """The last user turn of the prompt, for judge templates ('' when there is no prompt)."""
    try:
        chat = chat_of(sample)
    except InvalidSampleError:
        return ""
    users = [m["content"] for m in chat if m["role"] == "user"]
    return users[-1] if users else chat[-1]["content"]


# -- verdict parsing -------------------------------------------------------------------------------

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_INT = re.compile(r"(?<![\d.])[-+]?\d+(?:\.\d+)?(?![\d.])")
_OUT_OF_10 = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:/|out of)\s*10\b", re.I)
_LABELLED = re.compile(r"\b(?:rating|score|grade)\b\**\s*[:=]?\s*\**\s*\[*\s*(\d+(?:\.\d+)?)", re.I)
_VERDICT = re.compile(
    r"\b(?:verdict|judge?ment|final answer|answer|result)\b\**\s*[:=]\s*\**\s*"
    r"(correct|incorrect|not correct|yes|no|true|false|right|wrong)\b",
    re.I,
)
_WORDS = {
    "correct": True,
    "yes": True,
    "true": True,
    "right": True,
    "equivalent": True,
    "1": True,
    "incorrect": False,
    "not correct": False,
    "no": False,
    "false": False,
    "wrong": False,
    "not equivalent": False,
    "0": False,
}


def strip_reasoning(text: str) -> str:
    """Drop ``<think>...</think>`` blocks, and everything before a dangling ``</think>``."""
    text = _THINK.sub("", text)
    idx = text.lower().rfind("</think>")
    return text[idx + len("</think>") :] if idx >= 0 else text


def _boxed(text: str) -> list[str]:
    """Contents of every ``\\boxed{...}`` (balanced braces), in order."""
    found, start = [], 0
    while (i := text.find("\\boxed{", start)) >= 0:
        depth, j = 1, i + len("\\boxed{")
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        if depth == 0:
            found.append(text[i + len("\\boxed{") : j - 1].strip())
        start = j
    return found


def _json_objects(text: str) -> list[dict[str, Any]]:
    """Flat JSON objects found in the text, in order (a judge often ends with one)."""
    out = []
    for m in re.finditer(r"\{[^{}]*\}", text):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append({str(k).lower(): v for k, v in obj.items()})
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _INT.fullmatch(value.strip()):
        return float(value)
    return None


def parse_rating(text: str, lo: float = 1, hi: float = 10) -> float | None:
    """The judge's rating in ``[lo, hi]``, or None when it cannot be read (or is out of range)."""
    text = strip_reasoning(text)
    candidates: list[float | None] = []
    for obj in reversed(_json_objects(text)):
        for key in ("score", "rating", "grade", "verdict"):
            if key in obj:
                candidates.append(_number(obj[key]))
                break
        if candidates:
            break
    if not candidates:
        boxed = _boxed(text)
        if boxed:
            inner = _OUT_OF_10.search(boxed[-1])
            candidates.append(float(inner.group(1)) if inner else _number(boxed[-1]))
    for pattern in (_LABELLED, _OUT_OF_10):
        if not candidates:
            matches = pattern.findall(text)
            if matches:
                candidates.append(float(matches[-1]))
    if not candidates:
        ints = _INT.findall(text)
        if ints:
            candidates.append(float(ints[-1]))
    value = candidates[0] if candidates else None
    return value if value is not None and lo <= value <= hi else None


def _word(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        return _WORDS.get(value.strip().strip(".!*`'\"").lower())
    return None


def parse_binary(text: str) -> bool | None:
    """True (correct / equivalent), False (incorrect), or None when the verdict cannot be read."""
    text = strip_reasoning(text)
    for obj in reversed(_json_objects(text)):
        for key in ("correct", "equivalent", "verdict", "judgement", "judgment", "answer", "result"):
            if key in obj and (verdict := _word(obj[key])) is not None:
                return verdict
    boxed = _boxed(text)
    if boxed:
        inner = re.sub(r"\\text\{([^}]*)\}", r"\1", boxed[-1])
        return _word(inner)
    labelled = _VERDICT.findall(text)
    if labelled:
        return _word(labelled[-1])
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return _word(lines[-1]) if lines else None

"""Search-R1 question answering: exact match of the last ``<answer>...</answer>`` against the gold answers.

Scope: verl's ``search_r1_like_qa_em`` scorer, routed for ``data_source`` ``searchR1_nq``,
``searchR1_triviaqa``, ``searchR1_popqa``, ``searchR1_hotpotqa``, ``searchR1_2wikimultihopqa``,
``searchR1_musique`` and ``searchR1_bamboogle``. verl returns a bare number (``returns_dict = False``).

Reproduced from verl:

* The answer is the content of the **last** ``<answer>...</answer>`` pair (tags matched left to right, the
  first ``</answer>`` closing each ``<answer>``), stripped.
* Answers are compared after SQuAD normalisation (:func:`normalize_answer`: lower case, punctuation
  removed, articles ``a``/``an``/``the`` removed, whitespace collapsed).
* Rewards: ``score`` (1.0) for a match, ``score / 4`` for a match when the response holds more than 10
  ``<answer>`` or more than 10 ``</answer>`` tags (anti-spam), ``format_score`` (0.0) for a wrong answer,
  and 0.0 when there is no answer at all.
* ``match="substring"`` is verl's ``compute_score_subem`` (the gold answer only has to occur inside the
  prediction), which verl has but never dispatches.

Where we deliberately differ (each listed in ``docs/verl-differences.md``):

* The ground truth may be ``{"target": answers}`` (verl's only accepted form), or the answers directly:
  a str, or a list / tuple / numpy array of str. Anything else, or no gold answer at all, is an
  ``invalid_input`` failure naming the accepted shapes, instead of a crash or a silent wrong answer.
* Extraction is linear time (verl's lazy regex rescans to the end of the text for every unclosed
  ``<answer>``), and there is no random debug printing.
* In substring mode the anti-spam rule applies too, and a gold answer that normalises to the empty
  string (``"The"``) never matches (verl's substring test accepts every prediction for it).

Hacks this route admits, because verl does (``docs/verl-routes-hacks.md``, asserted by
``tests/scorers/test_verl_route_hacks.py`` and checked against verl 0.9.1):
the last ``<answer>`` tag wins wherever it is (inside ``<think>`` too), text after it (a retraction)
is ignored, and more than 10 tags only divide the reward by 4.
For rewards a policy cannot game this way, route the data source to the hardened QA scorer ``qa_equiv`` (issue 26)
(``--route <data_source>=...``, ``register_route``).
"""

from __future__ import annotations

import math
import numbers
import re
import string
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError
from ..types import Sample, Score, Status
from ._base import Scorer

__all__ = ["SearchR1QAScorer", "count_answer_tags", "extract_answer", "gold_answers", "normalize_answer"]

_OPEN, _CLOSE = "<answer>", "</answer>"
#: more than this many opening or closing tags divides a correct answer's reward by 4
MAX_ANSWER_TAGS = 10
_MATCH_MODES = ("exact", "substring")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ACCEPTED = "a str, a list/tuple/numpy array of str, or a dict {'target': <one of those>}"


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, drop ASCII punctuation, replace articles by spaces, collapse whitespace."""
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def extract_answer(text: str) -> str | None:
    """The stripped content of the last ``<answer>...</answer>`` pair, or None. Linear time.

    Pairs are found left to right, each ``<answer>`` closed by the first ``</answer>`` after it (so
    ``<answer>a<answer>b</answer>`` gives ``"a<answer>b"``, as verl's regex does).
    """
    last: str | None = None
    start = text.find(_OPEN)
    while start >= 0:
        body = start + len(_OPEN)
        end = text.find(_CLOSE, body)
        if end < 0:  # no later "<answer>" can be closed either
            break
        last = text[body:end]
        start = text.find(_OPEN, end + len(_CLOSE))
    return None if last is None else last.strip()


def count_answer_tags(text: str) -> tuple[int, int]:
    """Number of ``<answer>`` and ``</answer>`` tags in ``text``."""
    return text.count(_OPEN), text.count(_CLOSE)


def gold_answers(ground_truth: Any) -> list[str]:
    """The gold answers of a ground truth in any accepted shape; raises ``ValueError`` naming the shapes."""
    value = ground_truth
    if isinstance(value, Mapping):
        if "target" not in value:
            raise ValueError(
                f"ground_truth dict has no 'target' key (keys: {sorted(map(str, value))}); expected {_ACCEPTED}"
            )
        value = value["target"]
    if not isinstance(value, str) and hasattr(value, "tolist") and hasattr(value, "ndim"):
        value = value.tolist()  # numpy array (or scalar) -> plain Python objects
    if isinstance(value, str):
        answers = [value]
    elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        answers = list(value)
    else:
        raise ValueError(
            f"ground_truth {ground_truth!r:.80} has type {type(value).__name__}; expected {_ACCEPTED}"
        )
    if not answers:
        raise ValueError(f"ground_truth holds no gold answer; expected {_ACCEPTED} with at least one answer")
    return answers


class SearchR1QAScorer(Scorer):
    """verl's Search-R1 exact-match reward on the last ``<answer>`` block."""

    name = "search_r1_qa"
    execution = "inline"  # string scans only
    returns_dict = False

    def __init__(self, *, format_score: float = 0.0, score: float = 1.0, match: str = "exact") -> None:
        if match not in _MATCH_MODES:
            raise ConfigError(f"search_r1_qa: match must be one of {list(_MATCH_MODES)}, got {match!r}")
        self.format_score = _check_reward("format_score", format_score)
        self.score_value = _check_reward("score", score)
        self.match = match

    def score(self, sample: Sample) -> Score:
        try:
            golds = gold_answers(sample.ground_truth)
        except ValueError as exc:
            return Score.failure(Status.INVALID_INPUT, f"search_r1_qa: {exc}")
        answer = extract_answer(sample.response)
        opened, closed = count_answer_tags(sample.response)
        info: dict[str, Any] = {"extracted": answer, "answer_tags": [opened, closed]}
        if answer is None:
            return Score(value=0.0, info=info)
        prediction = normalize_answer(answer)
        matched = self._first_match(prediction, golds)
        info["normalized"] = prediction
        info["matched"] = matched
        if matched is None:
            return Score(value=self.format_score, info=info)
        spammed = opened > MAX_ANSWER_TAGS or closed > MAX_ANSWER_TAGS
        info["tag_spam"] = spammed
        return Score(value=self.score_value / 4 if spammed else self.score_value, info=info)

    def _first_match(self, prediction: str, golds: list[str]) -> str | None:
        for gold in golds:
            normalized = normalize_answer(gold)
            if self.match == "exact":
                if normalized == prediction:
                    return gold
            elif normalized and normalized in prediction:
                return gold
        return None

    def __repr__(self) -> str:
        return f"<SearchR1QAScorer match={self.match!r} format_score={self.format_score} score={self.score_value}>"


def _check_reward(option: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ConfigError(f"search_r1_qa: {option} must be a finite number (int or float), got {value!r}")
    return float(value)

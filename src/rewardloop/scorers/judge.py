"""Generative reward model (GenRM / LLM-as-judge) scorer over an OpenAI-compatible chat endpoint.

Two built-in templates (``rewardloop.clients``):

* ``"pointwise"`` — rate the response 1-10; the reward is ``rating / 10`` (``normalize=False``: the rating),
  metric ``rating``;
* ``"binary"`` — is the response's final answer equivalent to the reference (``ground_truth``)? The reward
  is 1.0 / 0.0, metric ``acc``. ``double_check=True`` asks a second time with the two answers swapped
  (position bias is the commonest judge failure); when the verdicts disagree the reward is their mean
  and ``judge_consistent`` is False.

A custom template (any string with ``{question}``, ``{response}``, ``{reference}``) needs ``kind``
(``"rating"`` or ``"binary"``).

Verdicts are parsed from JSON, ``\\boxed{}``, ``Rating: N`` / ``N/10`` forms or the last integer; an
unreadable verdict is ``status="parse_error"`` with the judge's text in ``info``, never a 0. HTTP failures
follow :mod:`rewardloop.clients` (outages -> ``infra_error``, retried by the Runner).

``rule=`` makes a hybrid: the rule scorer (a :class:`Scorer` or a registered name) runs first and the judge
is asked only when the rule cannot decide (``defer="failure"``: the rule failed; ``defer="not_correct"``,
the default: the rule failed or scored below ``rule_threshold``, which catches rule false negatives).

Judge answers are cached per (model, messages, sampling) in a bounded LRU :class:`JudgeCache` (only
answers whose verdict parsed); pass ``cache=None`` to turn it off, or one cache to several scorers.

verl's GenRM contract is :func:`compute_score`: point ``custom_reward_function.path`` at this module and
verl (or rewardloop's verl facade) calls it with ``reward_router_address`` and ``reward_model_tokenizer``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, ClassVar, cast

from ..clients import (
    JUDGE_TEMPLATES,
    ChatClient,
    RetryPolicy,
    judge_messages,
    parse_binary,
    parse_rating,
    question_of,
    render,
)
from ..errors import ConfigError, RateLimited, ScoringError
from ..types import Sample, Score, Status
from ._base import Scorer
from .reward_model import failure_of

__all__ = ["JudgeCache", "JudgeScorer", "compute_score"]

DEFERS = ("failure", "not_correct")
KINDS = ("rating", "binary")


class JudgeCache:
    """A thread-safe LRU of judge answers keyed by (model, messages, sampling parameters)."""

    def __init__(self, max_entries: int = 10_000) -> None:
        if max_entries < 1:
            raise ConfigError("JudgeCache.max_entries must be >= 1")
        self.max_entries = max_entries
        self._data: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(model: str, messages: list[dict[str, str]], sampling: Mapping[str, Any]) -> str:
        raw = json.dumps([model, messages, dict(sampling)], sort_keys=True, ensure_ascii=False)
        return hashlib.blake2b(raw.encode(), digest_size=20).hexdigest()

    def get(self, key: str) -> str | None:
        with self._lock:
            text = self._data.get(key)
            if text is None:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return text

    def put(self, key: str, text: str) -> None:
        with self._lock:
            self._data[key] = text
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


class JudgeScorer(Scorer):
    """Asks an LLM judge for a verdict on each sample; see the module docstring.

    ``address`` / ``model`` default to ``REWARDLOOP_JUDGE_URL`` / ``REWARDLOOP_JUDGE_MODEL``; ``api_key_env``
    names the variable holding an API key (e.g. ``OPENAI_API_KEY``).
    """

    name: ClassVar[str] = "judge"
    timeout_s: ClassVar[float | None] = 600.0
    is_async: ClassVar[bool] = True

    def __init__(
        self,
        address: str | None = None,
        model: str | None = None,
        *,
        template: str = "pointwise",
        kind: str | None = None,
        system_prompt: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        sampling: Mapping[str, Any] | None = None,
        normalize: bool = True,
        double_check: bool = False,
        rule: Scorer | str | None = None,
        defer: str = "not_correct",
        rule_threshold: float = 1.0,
        cache: JudgeCache | bool | None = True,
        retry: RetryPolicy | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
    ) -> None:
        address = address or os.environ.get("REWARDLOOP_JUDGE_URL")
        model = model or os.environ.get("REWARDLOOP_JUDGE_MODEL")
        if not address or not model:
            raise ConfigError(
                "the judge scorer needs address= (host:port or URL of an OpenAI-compatible server) and model=, "
                "or the environment variables REWARDLOOP_JUDGE_URL / REWARDLOOP_JUDGE_MODEL"
            )
        self.template, self.kind = _template_and_kind(template, kind)
        if double_check and "{first}" not in self.template:
            raise ConfigError(
                "double_check needs an order-swappable template ({first}/{second}), e.g. 'binary'"
            )
        if defer not in DEFERS:
            raise ConfigError(f"defer={defer!r}; allowed: {', '.join(DEFERS)}")
        self.model = model
        self.system_prompt = system_prompt
        self.sampling = {"temperature": temperature, "max_tokens": max_tokens, **dict(sampling or {})}
        self.normalize = normalize
        self.double_check = double_check
        self.rule = _resolve_rule(rule)
        self.defer = defer
        self.rule_threshold = rule_threshold
        # (not ``cache or None``: an empty JudgeCache has len 0 and is falsy)
        self.cache = JudgeCache() if cache is True else (None if cache is False else cache)
        self.client = ChatClient(address, model, retry=retry, api_key=api_key, api_key_env=api_key_env)
        # a sampling judge may answer differently each time: the Runner must not de-duplicate it
        self.deterministic = temperature == 0.0  # type: ignore[misc]

    # -- building and asking -------------------------------------------------------------------

    def messages(self, sample: Sample, swapped: bool = False) -> list[dict[str, str]]:
        """The chat sent to the judge for ``sample`` (``swapped``: reference and response exchanged)."""
        reference = "" if sample.ground_truth is None else str(sample.ground_truth)
        first, second = (sample.response, reference) if swapped else (reference, sample.response)
        content = render(
            self.template,
            question=question_of(sample),
            response=sample.response,
            reference=reference,
            first=first,
            second=second,
        )
        return judge_messages(self.system_prompt, content)

    async def _ask(self, messages: list[dict[str, str]]) -> tuple[str, float | None, bool]:
        """(judge text, parsed verdict or None, came from cache)."""
        key = JudgeCache.key(self.model, messages, self.sampling) if self.cache is not None else None
        if key is not None and self.cache is not None and (text := self.cache.get(key)) is not None:
            return text, self._parse(text), True
        result = await self.client.complete(messages, **self.sampling)
        verdict = self._parse(result.text)
        if key is not None and self.cache is not None and verdict is not None:
            self.cache.put(key, result.text)
        return result.text, verdict, False

    def _parse(self, text: str) -> float | None:
        if self.kind == "binary":
            verdict = parse_binary(text)
            return None if verdict is None else float(verdict)
        return parse_rating(text)

    # -- scoring -------------------------------------------------------------------------------

    async def ascore(self, sample: Sample) -> Score:
        if self.rule is not None:
            decided = await self._rule_verdict(sample)
            if decided is not None:
                return decided
        if self.kind == "binary" and sample.ground_truth is None:
            return Score.failure(
                Status.INVALID_INPUT, "the binary judge compares against ground_truth, which is None"
            )
        try:
            return await self._judge(sample)
        except RateLimited:
            raise
        except ScoringError as exc:
            return failure_of(exc)

    async def _judge(self, sample: Sample) -> Score:
        text, verdict, cached = await self._ask(self.messages(sample))
        info: dict[str, Any] = {"judge_response": text[-4000:], "decided_by": "judge", "cached": cached}
        if verdict is None:
            return Score.failure(
                Status.PARSE_ERROR, "could not read a verdict from the judge's answer", **info
            )
        verdicts = [verdict]
        if self.double_check:
            text2, verdict2, _ = await self._ask(self.messages(sample, swapped=True))
            info["judge_response_swapped"] = text2[-4000:]
            if verdict2 is None:
                return Score.failure(Status.PARSE_ERROR, "could not read the swapped-order verdict", **info)
            verdicts.append(verdict2)
        return self._result(verdicts, info)

    def _result(self, verdicts: list[float], info: dict[str, Any]) -> Score:
        mean = sum(verdicts) / len(verdicts)
        metrics: dict[str, Any] = {}
        if self.double_check:
            metrics["judge_consistent"] = len(set(verdicts)) == 1
        if self.kind == "binary":
            metrics["acc"] = mean == 1.0
            return Score(value=mean, metrics=metrics, info=info)
        metrics["rating"] = mean
        return Score(value=mean / 10.0 if self.normalize else mean, metrics=metrics, info=info)

    async def _rule_verdict(self, sample: Sample) -> Score | None:
        """The rule's Score when it decides, else None (the judge is asked)."""
        rule = self.rule
        assert rule is not None
        try:
            score = rule.quick(sample)
            if score is None:
                if getattr(rule, "is_async", False):
                    score = await rule.ascore(sample)  # type: ignore[attr-defined]
                else:
                    score = await asyncio.to_thread(rule.score, sample)
        except Exception:  # a crashing rule cannot decide; the judge still can
            return None
        if not score.ok:
            return None
        assert score.value is not None
        if self.defer == "not_correct" and score.value < self.rule_threshold:
            return None
        return Score(value=score.value, metrics=score.metrics, info={**score.info, "decided_by": "rule"})

    def score(self, sample: Sample) -> Score:
        return cast("Score", asyncio.run(_closing(self.client, self.ascore(sample))))


async def _closing(client: Any, coro: Any) -> Any:
    try:
        return await coro
    finally:
        await client.aclose()


def _template_and_kind(template: str, kind: str | None) -> tuple[str, str]:
    if template in JUDGE_TEMPLATES:
        default_kind = "binary" if template == "binary" else "rating"
        kind = kind or default_kind
        template = JUDGE_TEMPLATES[template]
    elif "{" not in template:
        raise ConfigError(
            f"template={template!r} is neither a built-in ({', '.join(JUDGE_TEMPLATES)}) nor a template text "
            "with {question} / {response} / {reference}"
        )
    elif kind is None:
        raise ConfigError("a custom judge template needs kind='rating' or kind='binary'")
    if kind not in KINDS:
        raise ConfigError(f"kind={kind!r}; allowed: {', '.join(KINDS)}")
    return template, kind


def _resolve_rule(rule: Scorer | str | None) -> Scorer | None:
    if rule is None or isinstance(rule, Scorer):
        return rule
    from ._registry import get_scorer

    return get_scorer(rule)


# -- verl's GenRM contract ------------------------------------------------------------------------

_VERL_JUDGES: dict[tuple[str, str, str], JudgeScorer] = {}
_VERL_LOCK = threading.Lock()


async def compute_score(
    data_source: str | None,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    reward_router_address: str | None = None,
    reward_model_tokenizer: Any = None,
    judge_model: str | None = None,
    judge_template: str = "binary",
    **kwargs: Any,
) -> dict[str, Any]:
    """A verl custom reward function (GenRM form) backed by :class:`JudgeScorer`.

    ``reward_router_address`` / ``reward_model_tokenizer`` are what verl's reward loop passes when a reward
    model is enabled. The served model name is ``judge_model`` or the tokenizer's ``name_or_path``.
    Extra ``reward_kwargs`` (``temperature``, ``max_tokens``, ``double_check``, ...) go to the scorer.
    Returns verl's dict form: ``{"score", **metrics, "status"}`` plus ``"error"`` for a failed judgement
    (``score`` 0.0 then). verl reads it as a reward with extra keys; rewardloop's managers read ``status`` and
    keep the failure (``parse_error``, ``infra_error``, ...) instead of a wrong answer.
    """
    if not reward_router_address:
        raise ConfigError("compute_score (GenRM) needs reward_router_address: enable the reward model")
    model = judge_model or getattr(reward_model_tokenizer, "name_or_path", None)
    if not model:
        raise ConfigError(
            "compute_score (GenRM) needs judge_model= or a reward_model_tokenizer with name_or_path"
        )
    options = {k: v for k, v in kwargs.items() if k in _JUDGE_OPTIONS}
    key = (reward_router_address, model, json.dumps([judge_template, options], sort_keys=True, default=str))
    with _VERL_LOCK:
        judge = _VERL_JUDGES.get(key)
        if judge is None:
            judge = _VERL_JUDGES[key] = JudgeScorer(
                reward_router_address, model, template=judge_template, **options
            )
    metadata = dict(extra_info or {})
    prompt = metadata.get("raw_prompt") or metadata.get("question")
    sample = Sample(
        response=solution_str, ground_truth=ground_truth, task=data_source, prompt=prompt, metadata=metadata
    )
    score = await judge.ascore(sample)
    out: dict[str, Any] = {
        "score": score.value if score.ok else 0.0,
        **score.metrics,
        "status": score.status.value,
    }
    if not score.ok:
        out["error"] = score.info.get("error")
    return out


_JUDGE_OPTIONS = frozenset(
    {
        "kind",
        "system_prompt",
        "temperature",
        "max_tokens",
        "sampling",
        "normalize",
        "double_check",
        "rule",
        "defer",
        "rule_threshold",
    }
)

"""Group-level scorers: all responses of one prompt (same ``uid``) in, one :class:`Score` per response out.

``GroupScorer.score_group(samples, base=None) -> list[Score]`` (or ``async ascore_group``) receives the
members of one group in arrival order and returns one score each, in that order. Two families:

* :class:`GroupRelative` — group-relative rewards: a ``base`` scorer scores each member first (through the
  Runner, so it keeps its own isolation and deadline), then the base rewards are transformed within the
  group: ``"zscore"`` (``(r - mean) / (std + eps)``, GRPO's advantage as a reward), ``"center"``
  (``r - mean``), ``"rank"`` (rank in [0, 1], ties share their mean rank; 0.5 for a group of one) or
  ``"minmax"`` (``(r - min) / (max - min)``, 0.5 when all are equal). Members whose base score failed keep
  their failure status; the statistics use the ``ok`` members only.
* :class:`PairwiseJudge` — a generative judge compares every pair of responses through the existing
  OpenAI-compatible chat client, **in both orders** (A/B then B/A), so a judge that prefers one position
  gives each response that position equally often and the bias cancels. A member's reward is its share of
  wins (a tie counts half) over the comparisons whose verdict could be read.
* :class:`ListwiseJudge` — the judge ranks the whole group in one call, asked ``n`` times with the responses
  rotated (each response takes every position once), so position bias cancels; reward = mean normalised
  rank (1 best, 0 worst) over the rankings that could be read. ``n`` calls instead of ``n (n - 1)``.

Scoring a group is the Runner's job (:mod:`rewardloop.execution._grouped`): in a batch, samples are grouped
by ``uid`` and each group is scored under one deadline (``timeout_s``, per *group*); a failure of the call
(timeout, crash, exception, infrastructure error after retries) fails every member with that status. One
sample at a time (streaming), the Runner holds each member until its group is complete: the group's size is
``sample.metadata["group_size"]`` if given, else the scorer's ``group_size``; a group still incomplete
``gather_timeout_s`` after its first member arrived fails its members with status ``timeout``. A sample
without ``uid`` is a group of one.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from ..errors import ConfigError
from ..types import Sample, Score, Status
from ._base import Scorer, as_scorer

__all__ = ["GROUP_MODES", "GroupRelative", "GroupScorer", "ListwiseJudge", "PairwiseJudge"]

GROUP_MODES = ("zscore", "center", "rank", "minmax")


class GroupScorer(Scorer):
    """Base class of group scorers; implement :meth:`score_group` (sync) or ``async ascore_group``.

    ``base``: a per-sample scorer the Runner runs on every member first; its scores arrive as ``base``
    (None when there is none). ``group_size``: members a streamed group waits for (``metadata["group_size"]``
    wins). ``gather_timeout_s``: how long a streamed group may wait for its last member. ``timeout_s``: the
    deadline of one ``score_group`` call.
    """

    name: ClassVar[str] = "group"
    base: Scorer | None = None
    group_size: int | None = None
    gather_timeout_s: float = 300.0

    def score_group(self, samples: Sequence[Sample], base: Sequence[Score] | None = None) -> list[Score]:
        """One score per member, in order. Must not mutate the samples."""
        raise NotImplementedError(f"{type(self).__name__} implements neither score_group nor ascore_group")

    def score(self, sample: Sample) -> Score:
        """A group of one (direct calls outside a runner; the base scorer runs inline here)."""
        base = None if self.base is None else [self.base.score(sample)]
        return self.score_group([sample], base)[0]


def _check_group_options(group_size: int | None, gather_timeout_s: float) -> None:
    if group_size is not None and (
        isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1
    ):
        raise ConfigError(f"group_size must be a positive integer or None, got {group_size!r}")
    if not isinstance(gather_timeout_s, int | float) or not gather_timeout_s > 0:
        raise ConfigError(f"gather_timeout_s must be a positive number, got {gather_timeout_s!r}")


# -- group-relative rewards ------------------------------------------------------------------------


class GroupRelative(GroupScorer):
    """Base rewards transformed within each group; see the module docstring for the modes.

    Metrics: ``base_reward`` (the member's base reward), ``group_mean`` and ``group_n`` (ok members), plus the
    base scorer's own metrics.
    """

    name: ClassVar[str] = "group_relative"
    execution = "inline"  # arithmetic on a handful of floats

    def __init__(
        self,
        base: Scorer | str | Any,
        mode: str = "zscore",
        *,
        eps: float = 1e-6,
        group_size: int | None = None,
        gather_timeout_s: float = 300.0,
    ) -> None:
        if mode not in GROUP_MODES:
            raise ConfigError(f"mode={mode!r}; allowed: {', '.join(GROUP_MODES)}")
        _check_group_options(group_size, gather_timeout_s)
        if isinstance(base, str):
            from ._registry import get_scorer

            base = get_scorer(base)
        self.base = as_scorer(base)
        self.mode = mode
        self.eps = float(eps)
        self.group_size = group_size
        self.gather_timeout_s = float(gather_timeout_s)
        self.deterministic = getattr(self.base, "deterministic", True)  # type: ignore[misc]
        self.metric_types = {  # type: ignore[misc]
            **dict(getattr(self.base, "metric_types", None) or {}),
            **dict.fromkeys(getattr(self.base, "metric_keys", ()) or (), float),
            "base_reward": float,
            "group_mean": float,
            "group_n": float,
        }

    def score_group(self, samples: Sequence[Sample], base: Sequence[Score] | None = None) -> list[Score]:
        if base is None or len(base) != len(samples):
            raise ConfigError("GroupRelative.score_group needs one base score per member")
        ok = [s.value for s in base if s.ok]
        values = self._transform(ok)  # type: ignore[arg-type]
        mean = math.fsum(ok) / len(ok) if ok else math.nan  # type: ignore[arg-type]
        it = iter(values)
        out = []
        for s in base:
            if not s.ok:
                out.append(s)
                continue
            metrics = {**s.metrics, "base_reward": s.value, "group_mean": mean, "group_n": float(len(ok))}
            out.append(Score(next(it), Status.OK, metrics, s.info))
        return out

    def _transform(self, values: list[float]) -> list[float]:
        n = len(values)
        if n == 0:
            return []
        mean = math.fsum(values) / n
        if self.mode == "center":
            return [v - mean for v in values]
        if self.mode == "zscore":
            std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n)
            return [(v - mean) / (std + self.eps) for v in values]
        if self.mode == "minmax":
            lo, hi = min(values), max(values)
            return [0.5] * n if hi == lo else [(v - lo) / (hi - lo) for v in values]
        return _ranks(values)


def _ranks(values: list[float]) -> list[float]:
    """Ranks scaled to [0, 1] (lowest 0, highest 1); ties share their mean rank; one value -> 0.5."""
    n = len(values)
    if n == 1:
        return [0.5]
    order = sorted(range(n), key=lambda i: values[i])
    ranks = [0.0] * n
    k = 0
    while k < n:
        j = k
        while j + 1 < n and values[order[j + 1]] == values[order[k]]:
            j += 1
        for m in range(k, j + 1):
            ranks[order[m]] = (k + j) / 2 / (n - 1)
        k = j + 1
    return ranks


# -- pairwise judging ------------------------------------------------------------------------------

PAIRWISE_TEMPLATE = """You compare two responses to the same question.

[Question]
{question}

[Response A]
{first}

[Response B]
{second}

Which response answers the question better? Think briefly, then end with exactly one of
[[A]], [[B]] or [[tie]]."""

_PAIR_VERDICT = re.compile(r"\[\[\s*(A|B|tie)\s*\]\]", re.I)


def parse_pairwise(text: str) -> str | None:
    """``"A"``, ``"B"`` or ``"tie"`` from the judge's last ``[[...]]`` verdict; None when there is none."""
    found = _PAIR_VERDICT.findall(text or "")
    if not found:
        return None
    last = found[-1]
    return "tie" if last.lower() == "tie" else last.upper()


class PairwiseJudge(GroupScorer):
    """Every pair of a group compared by an LLM judge in both orders; reward = share of wins (ties half).

    ``address`` / ``model``: an OpenAI-compatible chat server (as :class:`~rewardloop.scorers.judge.JudgeScorer`).
    ``template`` needs ``{first}`` and ``{second}`` (and may use ``{question}``); the verdict is the last
    ``[[A]]`` / ``[[B]]`` / ``[[tie]]``. ``max_parallel`` bounds the judge calls of one group in flight.
    A group of n members costs ``n * (n - 1)`` calls, minus the pairs of identical responses (a tie, not asked).

    Metrics: ``judge_wins`` (wins + ties / 2), ``judge_comparisons`` (verdicts read for this member),
    ``judge_consistent`` (share of this member's pairs where both orders agreed). A member none of whose
    comparisons could be read is ``parse_error``; an unreadable verdict of one order leaves that comparison
    out (counted in ``info["unread"]``). An HTTP failure of any call fails the group (``infra_error``, which
    the Runner retries).
    """

    name: ClassVar[str] = "pairwise_judge"
    is_async: ClassVar[bool] = True
    timeout_s: ClassVar[float | None] = 600.0  # per group
    metric_types: ClassVar[dict[str, type]] = {
        "judge_wins": float,
        "judge_comparisons": float,
        "judge_consistent": float,
    }

    def __init__(
        self,
        address: str,
        model: str,
        *,
        template: str = PAIRWISE_TEMPLATE,
        system_prompt: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        max_parallel: int = 8,
        group_size: int | None = None,
        gather_timeout_s: float = 300.0,
        retry: Any = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
    ) -> None:
        from ..clients import ChatClient

        if "{first}" not in template or "{second}" not in template:
            raise ConfigError("a pairwise template needs {first} and {second}")
        if not isinstance(max_parallel, int) or max_parallel < 1:
            raise ConfigError(f"max_parallel must be a positive integer, got {max_parallel!r}")
        _check_group_options(group_size, gather_timeout_s)
        self.template = template
        self.system_prompt = system_prompt
        self.sampling = {"temperature": temperature, "max_tokens": max_tokens}
        self.max_parallel = max_parallel
        self.group_size = group_size
        self.gather_timeout_s = float(gather_timeout_s)
        self.model = model
        self.client = ChatClient(address, model, retry=retry, api_key=api_key, api_key_env=api_key_env)
        self.deterministic = temperature == 0.0  # type: ignore[misc]

    def messages(self, question: str, first: str, second: str) -> list[dict[str, str]]:
        from ..clients import judge_messages, render

        content = render(self.template, question=question, first=first, second=second)
        return judge_messages(self.system_prompt, content)

    async def ascore_group(
        self, samples: Sequence[Sample], base: Sequence[Score] | None = None
    ) -> list[Score]:
        from ..clients import question_of

        n = len(samples)
        if n == 1:  # nothing to compare with: the neutral share
            return [
                Score(0.5, metrics={"judge_wins": 0.0, "judge_comparisons": 0.0, "judge_consistent": 1.0})
            ]
        question = question_of(samples[0])
        gate = asyncio.Semaphore(self.max_parallel)

        async def ask(a: int, b: int) -> str | None:
            async with gate:
                result = await self.client.complete(
                    self.messages(question, samples[a].response, samples[b].response), **self.sampling
                )
            return parse_pairwise(result.text)

        # identical responses tie without asking: both orders of an identical pair cancel out anyway
        orders = [
            (a, b)
            for a, b in itertools.permutations(range(n), 2)
            if samples[a].response != samples[b].response
        ]
        verdicts: dict[tuple[int, int], str | None] = dict.fromkeys(
            itertools.permutations(range(n), 2), "tie"
        )
        verdicts.update(zip(orders, await asyncio.gather(*(ask(a, b) for a, b in orders)), strict=True))
        return self._tally(n, verdicts)

    def _tally(self, n: int, verdicts: dict[tuple[int, int], str | None]) -> list[Score]:
        wins, read, unread = [0.0] * n, [0] * n, [0] * n
        agree, pairs = [0] * n, [0] * n
        for (a, b), v in verdicts.items():
            if v is None:
                unread[a] += 1
                unread[b] += 1
                continue
            read[a] += 1
            read[b] += 1
            wins[a] += 1.0 if v == "A" else 0.5 if v == "tie" else 0.0
            wins[b] += 1.0 if v == "B" else 0.5 if v == "tie" else 0.0
        for a, b in itertools.combinations(range(n), 2):
            first, second = verdicts[(a, b)], verdicts[(b, a)]
            if first is None or second is None:
                continue
            # consistent: the same response wins in both orders (A then B means a both times), or tie twice
            same = {("A", "B"), ("B", "A"), ("tie", "tie")}
            for m in (a, b):
                pairs[m] += 1
                agree[m] += (first, second) in same
        out = []
        for i in range(n):
            info: dict[str, Any] = {"unread": unread[i]} if unread[i] else {}
            metrics = {
                "judge_wins": wins[i],
                "judge_comparisons": float(read[i]),
                "judge_consistent": agree[i] / pairs[i] if pairs[i] else 0.0,
            }
            if not read[i]:
                failed = Score.failure(
                    Status.PARSE_ERROR, "no verdict of this response's comparisons could be read"
                )
                out.append(Score(None, failed.status, metrics, {**failed.info, **info}))
                continue
            out.append(Score(wins[i] / read[i], Status.OK, metrics, info))
        return out

    def score_group(self, samples: Sequence[Sample], base: Sequence[Score] | None = None) -> list[Score]:
        return asyncio.run(self._closing(self.ascore_group(samples, base)))

    async def _closing(self, coro: Any) -> Any:
        try:
            return await coro
        finally:
            await self.client.aclose()


# -- listwise judging ------------------------------------------------------------------------------

LISTWISE_TEMPLATE = """You rank several responses to the same question, best first.

[Question]
{question}

{responses}

Think briefly, then end with the ranking of all response numbers, best first, in double brackets,
e.g. [[2, 1, 3]]."""

_RANKING = re.compile(r"\[\[\s*(\d+(?:\s*[,>]\s*\d+)*)\s*\]\]")


def parse_ranking(text: str, n: int) -> list[int] | None:
    """The last ``[[i, j, ...]]`` of ``text`` as 0-based labels, best first, when it ranks each of 1..n once."""
    found = _RANKING.findall(text or "")
    if not found:
        return None
    labels = [int(x) - 1 for x in re.split(r"\s*[,>]\s*", found[-1].strip())]
    return labels if sorted(labels) == list(range(n)) else None


class ListwiseJudge(PairwiseJudge):
    """The group ranked in one call, ``n`` rotations of the order; see the module docstring.

    ``template`` needs ``{responses}`` (filled with ``[Response 1]`` ... blocks) and may use ``{question}``.
    Metrics: ``judge_rank`` (mean normalised rank, = the reward), ``judge_rankings`` (rankings read),
    ``judge_rank_spread`` (max - min of this member's normalised ranks across rotations: 0 = consistent).
    A ranking that is not a permutation of the labels is unread (``info["unread"]``); a member with no read
    ranking is ``parse_error``; an HTTP failure fails the group (``infra_error``, retried by the Runner).
    """

    name: ClassVar[str] = "listwise_judge"
    metric_types: ClassVar[dict[str, type]] = {
        "judge_rank": float,
        "judge_rankings": float,
        "judge_rank_spread": float,
    }

    def __init__(
        self, address: str, model: str, *, template: str = LISTWISE_TEMPLATE, **options: Any
    ) -> None:
        if "{responses}" not in template:
            raise ConfigError("a listwise template needs {responses}")
        super().__init__(address, model, template="{first}{second}", **options)
        self.template = template

    def listing(self, question: str, responses: Sequence[str]) -> list[dict[str, str]]:
        from ..clients import judge_messages, render

        head, _, tail = self.template.partition("{responses}")
        block = "\n\n".join(f"[Response {k + 1}]\n{r}" for k, r in enumerate(responses))
        content = render(head, question=question) + block + render(tail, question=question)
        return judge_messages(self.system_prompt, content)

    async def ascore_group(
        self, samples: Sequence[Sample], base: Sequence[Score] | None = None
    ) -> list[Score]:
        from ..clients import question_of

        n = len(samples)
        if n == 1:
            return [Score(0.5, metrics={"judge_rank": 0.5, "judge_rankings": 0.0, "judge_rank_spread": 0.0})]
        question = question_of(samples[0])
        gate = asyncio.Semaphore(self.max_parallel)

        async def ask(shift: int) -> tuple[list[int], list[int] | None]:
            order = [(shift + k) % n for k in range(n)]  # order[k]: the member shown as label k + 1
            async with gate:
                result = await self.client.complete(
                    self.listing(question, [samples[i].response for i in order]), **self.sampling
                )
            return order, parse_ranking(result.text, n)

        ranks: list[list[float]] = [[] for _ in range(n)]
        unread = 0
        for order, ranking in await asyncio.gather(*(ask(k) for k in range(n))):
            if ranking is None:
                unread += 1
                continue
            for position, label in enumerate(ranking):
                ranks[order[label]].append((n - 1 - position) / (n - 1))
        out = []
        for mine in ranks:
            info: dict[str, Any] = {"unread": unread} if unread else {}
            if not mine:
                failed = Score.failure(
                    Status.PARSE_ERROR, "none of the group's rankings could be read", **info
                )
                out.append(Score(None, failed.status, {"judge_rankings": 0.0}, failed.info))
                continue
            value = math.fsum(mine) / len(mine)
            metrics = {
                "judge_rank": value,
                "judge_rankings": float(len(mine)),
                "judge_rank_spread": max(mine) - min(mine),
            }
            out.append(Score(value, Status.OK, metrics, info))
        return out

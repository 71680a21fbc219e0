"""Explaining one verdict: what a scorer extracted, how both sides normalised, which stage decided, and when.

:func:`explain` scores one sample and returns an :class:`Explanation`. The cheap inline verdict
(``Scorer.quick``) is tried first; a sample it leaves undecided is scored by a :class:`~rewardloop.Runner`
(worker process, deadline), so explaining a pathological sample cannot hang. Every scorer can be
explained; ``math_equiv`` (and any scorer that reports ``stage`` / ``timings_ms`` / ``extracted`` in
``Score.info``) gives the full picture, other scorers show their value, status and info.

:func:`explanation_from_score` builds the same view from a score computed elsewhere (``audit`` uses it
for its disagreements, so nothing is scored twice).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from ..scorers import Scorer
from ..types import Sample, Score

__all__ = ["Explanation", "explain", "explanation_from_score"]

_EXCERPT = 300


@dataclass(frozen=True)
class Explanation:
    """One sample's verdict, decomposed. ``to_dict`` is JSON-safe; ``to_text`` is for terminals."""

    scorer: str
    response: str
    ground_truth: Any
    value: float | None
    status: str
    stage: str | None
    extracted: list[str] = field(default_factory=list)
    gold_normalized: list[str] = field(default_factory=list)
    pred_normalized: list[str] = field(default_factory=list)
    reason: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    decided_inline: bool | None = None
    total_ms: float | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from .._io import json_safe

        return cast("dict[str, Any]", json_safe(asdict(self)))

    def to_text(self) -> str:
        value = "-" if self.value is None else f"{self.value:g}"
        lines = [
            f"scorer         {self.scorer}",
            f"verdict        {value}  (status: {self.status})",
            f"stage          {self.stage or '-'}" + (f"  ({self.reason})" if self.reason else ""),
            *([f"rule           {self.info['rule']}"] if self.info.get("rule") else []),
            f"ground truth   {_short(repr(self.ground_truth))}",
            f"response       {_short(repr(_tail(self.response)))}",
        ]
        if self.extracted or self.stage:
            lines.append(f"extracted      {_join(self.extracted)}")
        if self.gold_normalized:
            lines.append(f"gold (norm.)   {_join(self.gold_normalized)}")
        if self.pred_normalized:
            lines.append(f"answer (norm.) {_join(self.pred_normalized)}")
        if self.timings_ms:
            lines.append("stage timings  " + ", ".join(f"{k} {v:.3f} ms" for k, v in self.timings_ms.items()))
        if self.decided_inline is not None:
            where = "inline (quick)" if self.decided_inline else "worker process (symbolic stage)"
            lines.append(
                f"decided        {where}" + (f", {self.total_ms:.1f} ms total" if self.total_ms else "")
            )
        if "error" in self.info:
            lines.append(f"error          {self.info['error']}")
        rest = {k: v for k, v in self.info.items() if k not in _SHOWN}
        if rest:
            lines.append(f"info           {_short(repr(rest), 400)}")
        return "\n".join(lines)


_SHOWN = {
    "stage", "extracted", "gold_normalized", "pred_normalized", "timings_ms", "reason", "error", "method",
    "per_answer", "rule",
}  # fmt: skip


def _tail(text: str) -> str:
    return text if len(text) <= _EXCERPT else "..." + text[-_EXCERPT:]


def _short(text: str, n: int = 200) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def _join(items: list[str]) -> str:
    return " | ".join(repr(i) for i in items) if items else "(none)"


def explanation_from_score(
    sample: Sample,
    score: Score,
    scorer: str,
    *,
    decided_inline: bool | None = None,
    total_ms: float | None = None,
) -> Explanation:
    """The :class:`Explanation` of an existing score (no scoring happens)."""
    info: Mapping[str, Any] = score.info
    timings = info.get("timings_ms")
    return Explanation(
        scorer=scorer,
        response=sample.response,
        ground_truth=sample.ground_truth,
        value=score.value,
        status=score.status.value,
        stage=info.get("stage") or info.get("rule"),
        extracted=_as_list(info.get("extracted", info.get("pred"))),
        gold_normalized=_as_list(info.get("gold_normalized", info.get("gold"))),
        pred_normalized=_as_list(info.get("pred_normalized")),
        reason=str(info.get("reason") or ""),
        timings_ms=dict(timings) if isinstance(timings, Mapping) else {},
        decided_inline=decided_inline,
        total_ms=total_ms,
        info=dict(info),
    )


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [str(value)]


def explain(
    sample: Sample, scorer: Scorer | str = "math_equiv", *, timeout_s: float | None = None
) -> Explanation:
    """Score ``sample`` with ``scorer`` (an instance or a registered name) and explain the verdict."""
    from ..scorers import get_scorer

    instance = get_scorer(scorer) if isinstance(scorer, str) else scorer
    t0 = time.perf_counter()
    quick = instance.quick(sample)
    if quick is not None:
        total = (time.perf_counter() - t0) * 1000
        return explanation_from_score(sample, quick, instance.name, decided_inline=True, total_ms=total)
    from ..execution import Runner

    options: dict[str, Any] = {"workers": 1, "on_error": None}
    if timeout_s is not None:
        options["timeout_s"] = timeout_s
    with Runner(**options) as runner:
        score = runner.run_sync(instance, [sample])[0]
    total = (time.perf_counter() - t0) * 1000
    return explanation_from_score(sample, score, instance.name, decided_inline=False, total_ms=total)

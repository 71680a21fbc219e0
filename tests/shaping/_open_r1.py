"""Runs one case of open-r1's recorded reward tests through rewardloop's shaping library.

A case is one reward call recorded from open-r1's ``tests/test_rewards.py`` (completions, solutions,
factory kwargs) with the assertions made on its result. :func:`rewards_for` maps each open-r1 reward
function to our counterpart; :func:`failed_assertions` checks the recorded assertions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rewardloop import Sample, Score
from rewardloop.scorers.mathverify import MathVerifyScorer
from rewardloop.shaping import (
    CodeFormatReward,
    CosineLengthShaper,
    FormatReward,
    GroupLengthShaper,
    OverlongPenalty,
    ReasoningStepsReward,
    RepetitionPenalty,
    TagCountReward,
)

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
CASES_FILE = DATA / "grader_tests" / "open_r1_reward_test_cases.json"


def load() -> dict[str, Any]:
    return json.loads(CASES_FILE.read_text())


def case_id(case: dict[str, Any]) -> str:
    first = (case.get("completions") or case.get("completion_ids_lengths") or [""])[0]
    return f"{case['test']}:{case['line']}:{first!s:.40}"


def _accuracy(case: dict[str, Any]) -> list[Score]:
    scorer = MathVerifyScorer()  # open-r1's accuracy_reward is math-verify too
    return [scorer.score(Sample(c, s)) for c, s in zip(case["completions"], case["solution"], strict=True)]


def _values(scores: list[Score]) -> list[float | None]:
    return [s.value for s in scores]


def rewards_for(case: dict[str, Any]) -> list[float | None]:
    fn, params, texts = case["reward_fn"], case.get("factory_params", {}), case.get("completions", [])
    chars = [len(t) for t in texts]  # open-r1 measures length in characters
    scorers = {
        "format_reward": FormatReward(),
        "tag_count_reward": TagCountReward(),
        "reasoning_steps_reward": ReasoningStepsReward(),
    }
    if fn in scorers:
        return [scorers[fn].score(Sample(t)).value for t in texts]
    if fn == "code_format_reward":
        return [CodeFormatReward(**params).score(Sample(t)).value for t in texts]
    if fn == "repetition_penalty_reward":
        return [RepetitionPenalty(**params).score(Sample(t)).value for t in texts]
    if fn == "accuracy_reward":
        return _values(_accuracy(case))
    if fn == "cosine_scaled_reward":
        return _values(CosineLengthShaper(**params).apply(_accuracy(case), chars))
    if fn == "len_reward":
        base = _accuracy(case)
        shaped = GroupLengthShaper(combine="replace").apply(base, chars)  # the whole call is one group
        return _values(shaped)
    if fn == "soft_overlong_punishment":
        shaper = OverlongPenalty(params["max_completion_len"], params["soft_punish_cache"], clip=True)
        lengths = case["completion_ids_lengths"]
        return _values(shaper.apply([Score(0.0)] * len(lengths), lengths))
    raise KeyError(fn)


def _holds(op: str, left: float | None, right: float, places: int | None = None) -> bool:
    if left is None:
        return False
    if op == "assertEqual":
        return left == right
    if op == "assertAlmostEqual":
        return round(left - right, 7 if places is None else places) == 0
    if op == "assertLessEqual":
        return left <= right
    if op == "assertGreater":
        return left > right
    if op == "assertGreaterEqual":
        return left >= right
    raise KeyError(op)


def failed_assertions(case: dict[str, Any], rewards: list[float | None]) -> list[str]:
    """The recorded assertions the rewards break (empty: the case agrees)."""
    failed = []
    for e in case["expected"]:
        if not _holds(e["op"], rewards[e["index"]], e["value"], e.get("places")):
            failed.append(f"{e['op']}(rewards[{e['index']}]={rewards[e['index']]}, {e['value']})")
    for r in case["relations"]:
        left, right = rewards[r["left"]], rewards[r["right"]]
        if right is None or not _holds(r["op"], left, right):
            failed.append(f"{r['op']}(rewards[{r['left']}]={left}, rewards[{r['right']}]={right})")
    return failed

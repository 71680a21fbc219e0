"""qa_equiv's optional judge, against a real scripted judge server on 127.0.0.1: asked only for undecided samples,
in both orders, cached, insensitive to the order of the two slots and of the gold list, and a judge failure is a
failure (never a 0)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")

from starlette.responses import JSONResponse, PlainTextResponse

from rewardloop import Runner, Sample, Status
from rewardloop.errors import ConfigError
from rewardloop.models import RetryPolicy
from rewardloop.scorers.judge import JudgeCache, JudgeScorer
from rewardloop.scorers.qa_equiv import QAEquivScorer
from tests.models._fake import FakeServer, chat_answer

FAST = RetryPolicy(timeout_s=2.0, connect_timeout_s=1.0, attempts=1, backoff_s=0.01, backoff_max_s=0.02)
# the stand-in judge knows one fact the rules cannot: "the Big Apple" is New York
SYNONYMS = {("big apple", "new york")}


def _slots(prompt: str) -> tuple[str, str]:
    first = re.search(r"\[Answer 1\]\n(.*?)\n\n\[Answer 2\]", prompt, re.S).group(1)
    second = re.search(r"\[Answer 2\]\n(.*?)\n\nOne of the two", prompt, re.S).group(1)
    return first, second


async def judge_handler(request, body):
    prompt = body["messages"][-1]["content"]
    first, second = _slots(prompt)
    if "ERR500" in prompt:
        return PlainTextResponse("internal", status_code=500)
    golds, candidate = (first, second) if "|" in first or "new york" in first.lower() else (second, first)
    if "BIASED" in prompt:  # position bias: says correct only when the gold list sits in the first slot
        verdict = "correct" if golds == first else "incorrect"
    else:
        said = candidate.lower().removeprefix("the ").strip()
        ok = any((said, g.strip().lower()) in SYNONYMS for g in golds.split("|"))
        verdict = "correct" if ok else "incorrect"
    return JSONResponse(chat_answer(f"Comparing. \\boxed{{{verdict}}}"))


@pytest.fixture(scope="module")
def server():
    with FakeServer(judge_handler) as fake:
        yield fake


def judged(server, **options):
    return QAEquivScorer(judge={"address": server.address, "model": "judge", "retry": FAST, **options})


def asked(server, needle):
    return sum(1 for r in server.requests if needle in r["body"]["messages"][-1]["content"])


@pytest.mark.server
def test_decided_samples_never_reach_the_judge(server):
    scorer = judged(server, cache=None)
    before = len(server.requests)
    batch = [
        Sample(response="<answer>New York City</answer>", ground_truth=["New York City"]),  # exact
        Sample(response="<answer>NYC or Boston</answer>", ground_truth=["NYC"]),  # hedge: decided 0
        Sample(response="<answer></answer>", ground_truth=["NYC"]),  # empty
    ]
    result = Runner(max_concurrency=4).run_sync(scorer, batch)
    assert [s.value for s in result] == [1.0, 0.0, 0.0]
    assert [s.info["rule"] for s in result] == ["exact", "hedge_or", "empty"]
    assert len(server.requests) == before


@pytest.mark.server
def test_undecided_sample_is_judged_in_both_orders_and_accepted(server):
    scorer = judged(server, cache=None)
    before = len(server.requests)
    result = Runner().run_sync(
        scorer, [Sample(response="<answer>the Big Apple</answer>", ground_truth=["New York"], prompt="q1")]
    )[0]
    assert result.ok and result.value == 1.0
    assert result.info["decided_by"] == "judge" and result.info["rule_undecided"] == "no_match"
    assert result.info["judge_consistent"] is True
    assert len(server.requests) == before + 2  # the two slot orders


@pytest.mark.server
def test_without_a_judge_the_same_sample_is_undecided_and_scores_zero():
    result = QAEquivScorer().score(
        Sample(response="<answer>the Big Apple</answer>", ground_truth=["New York"])
    )
    assert result.value == 0.0 and result.info["rule"] == "no_match" and result.info["decided_by"] == "rules"


@pytest.mark.server
def test_judge_answers_are_cached_and_gold_order_does_not_change_the_prompt(server):
    cache = JudgeCache()
    scorer = judged(server, cache=cache)
    golds = ["New York", "NY state capital region", "Gotham"]
    first = scorer.score(Sample(response="<answer>Big Apple</answer>", ground_truth=golds, prompt="where"))
    calls = len(server.requests)
    again = scorer.score(
        Sample(response="<answer>Big Apple</answer>", ground_truth=list(reversed(golds)), prompt="where")
    )
    assert first.value == again.value == 1.0
    assert len(server.requests) == calls  # same prompt after sorting the golds: both orders from the cache
    assert again.info["cached"] is True and cache.hits >= 2


@pytest.mark.server
def test_a_position_biased_judge_cannot_accept(server):
    result = judged(server, cache=None).score(
        Sample(response="<answer>BIASED guess</answer>", ground_truth=["New York"], prompt="q")
    )
    assert result.ok and result.value == 0.0 and result.info["judge_consistent"] is False


@pytest.mark.server
def test_judge_outage_is_an_infra_error_not_a_wrong_answer(server):
    result = judged(server, cache=None).score(
        Sample(response="<answer>ERR500 town</answer>", ground_truth=["New York"], prompt="q")
    )
    assert result.status is Status.INFRA_ERROR and result.value is None
    assert result.info["rule_undecided"] == "no_match"


def test_judge_configuration_errors():
    with pytest.raises(ConfigError, match="double_check"):
        QAEquivScorer(judge={"address": "127.0.0.1:1", "model": "m", "double_check": False})
    with pytest.raises(ConfigError, match="rule"):
        QAEquivScorer(judge={"address": "127.0.0.1:1", "model": "m", "rule": "search_r1_qa"})
    with pytest.raises(ConfigError, match="binary with double_check"):
        QAEquivScorer(judge=JudgeScorer("127.0.0.1:1", "m"))
    with pytest.raises(ConfigError, match="judge must be"):
        QAEquivScorer(judge="yes please")


def test_judge_is_off_by_default():
    scorer = QAEquivScorer()
    assert scorer.judge is None and not getattr(scorer, "is_async", False)

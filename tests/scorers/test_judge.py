"""GenRM judge scorer: verdict parsing tables, and a real scripted judge server on loopback that answers
well, malformed, with 500s, 400s and too slowly."""

from __future__ import annotations

import asyncio
import re
import types

import pytest

pytest.importorskip("starlette")

from starlette.responses import JSONResponse, PlainTextResponse

from rewardloop import Runner, Sample, Status, as_scorer
from rewardloop.errors import ConfigError
from rewardloop.models import RetryPolicy, parse_binary, parse_rating
from rewardloop.scorers.judge import JudgeCache, JudgeScorer, compute_score
from tests.models._fake import FakeServer, chat_answer, sleep_then

RATINGS = [
    ("The answer is fine.\nRating: 7", 7),
    ('Some thoughts. {"score": 9, "reason": "good"}', 9),
    ("I'd say \\boxed{8}", 8),
    ("Overall 6/10.", 6),
    ("<think>maybe 2 or 3</think> Final rating: 10", 10),
    ("Score: **4**", 4),
    ("steps 1, 2 and 3 ... so 5", 5),
    ("no verdict here", None),
    ("Rating: 42", None),  # out of range is unreadable, not clipped
    ("", None),
]

BINARIES = [
    ("They match. \\boxed{correct}", True),
    ("\\boxed{incorrect}", False),
    ("\\boxed{\\text{Correct}}", True),
    ('{"correct": false}', False),
    ('{"verdict": "yes"}', True),
    ("Verdict: incorrect", False),
    ("Thinking...\nCORRECT", True),
    ("<think>\\boxed{correct}</think> no wait \\boxed{incorrect}", False),
    ("I cannot tell", None),
    ("\\boxed{maybe}", None),
]


@pytest.mark.parametrize("text,want", RATINGS)
def test_parse_rating(text, want):
    assert parse_rating(text) == want


@pytest.mark.parametrize("text,want", BINARIES)
def test_parse_binary(text, want):
    assert parse_binary(text) is want


# -- a scripted judge ----------------------------------------------------------------------------------

FAST = RetryPolicy(timeout_s=0.5, connect_timeout_s=1.0, attempts=2, backoff_s=0.01, backoff_max_s=0.02)


async def judge_handler(request, body):
    prompt = body["messages"][-1]["content"]
    if "ERR500" in prompt:
        return PlainTextResponse("internal", status_code=500)
    if "BAD400" in prompt:
        return JSONResponse({"error": "context too long"}, status_code=400)
    if "SLOW" in prompt:
        return await sleep_then(2.0, JSONResponse(chat_answer("Rating: 9")))
    if "MALFORMED" in prompt:
        return JSONResponse(chat_answer("I would rather not say."))
    if "[Answer 1]" in prompt:
        first = re.search(r"\[Answer 1\]\n(.*?)\n", prompt).group(1)
        second = re.search(r"\[Answer 2\]\n(.*?)\n", prompt).group(1)
        if "BIASED" in prompt:  # position bias: always prefers the first slot's being the reference
            verdict = "correct" if first == "42" else "incorrect"
        else:
            verdict = "correct" if first.strip() == second.strip() else "incorrect"
        return JSONResponse(chat_answer(f"Comparing. \\boxed{{{verdict}}}"))
    return JSONResponse(chat_answer("Looks reasonable.\nRating: 7"))


@pytest.fixture(scope="module")
def judge_server():
    with FakeServer(judge_handler) as server:
        yield server


def calls(server, needle):
    return sum(1 for r in server.requests if needle in r["body"]["messages"][-1]["content"])


@pytest.mark.server
def test_statuses_for_good_malformed_5xx_4xx_and_slow_answers(judge_server):
    judge = JudgeScorer(judge_server.address, "judge", retry=FAST, cache=None)
    batch = [Sample(response=r, prompt="q") for r in ["fine", "MALFORMED", "ERR500", "BAD400", "SLOW"]]
    result = Runner(max_concurrency=8, retries=1, backoff_base_s=0.01).run_sync(judge, batch)
    assert [s.status for s in result] == [
        Status.OK,
        Status.PARSE_ERROR,
        Status.INFRA_ERROR,
        Status.INVALID_INPUT,
        Status.INFRA_ERROR,
    ]
    assert result[0].value == pytest.approx(0.7) and result[0].metrics["rating"] == 7
    assert result[1].value is None and "rather not say" in result[1].info["judge_response"]
    assert calls(judge_server, "BAD400") == 1  # a 4xx is never retried
    assert calls(judge_server, "ERR500") == 4  # 2 client attempts x (1 + 1 Runner retry)


@pytest.mark.server
def test_cache_keeps_parsed_answers_only(judge_server):
    cache = JudgeCache(max_entries=8)
    judge = JudgeScorer(judge_server.address, "judge", cache=cache, retry=FAST)
    good, bad = Sample(response="cached one", prompt="q"), Sample(response="MALFORMED again", prompt="q")
    first, second = judge.score(good), judge.score(good)
    assert first.value == second.value and not first.info["cached"] and second.info["cached"]
    assert calls(judge_server, "cached one") == 1
    judge.score(bad), judge.score(bad)
    assert calls(judge_server, "MALFORMED again") == 2
    assert cache.hits == 1 and len(cache) == 1


@pytest.mark.server
def test_binary_judge_with_order_swapped_double_check(judge_server):
    judge = JudgeScorer(judge_server.address, "judge", template="binary", double_check=True, retry=FAST)
    same = judge.score(Sample(response="42", ground_truth="42", prompt="what is 6 x 7 ?"))
    assert same.value == 1.0 and same.metrics == {"judge_consistent": True, "acc": True}
    biased = judge.score(Sample(response="41", ground_truth="42", prompt="BIASED question"))
    assert biased.value == 0.5 and biased.metrics["judge_consistent"] is False and not biased.metrics["acc"]
    missing = judge.score(Sample(response="41", prompt="q"))
    assert missing.status is Status.INVALID_INPUT


@pytest.mark.server
def test_rule_first_hybrid_asks_the_judge_only_when_the_rule_cannot_decide(judge_server):
    rule = as_scorer(lambda s: 1.0 if s.response == s.ground_truth else 0.0, name="exact")
    judge = JudgeScorer(judge_server.address, "judge", template="binary", rule=rule, retry=FAST)
    exact = judge.score(Sample(response="7", ground_truth="7", prompt="hybrid exact"))
    assert exact.value == 1.0 and exact.info["decided_by"] == "rule"
    assert calls(judge_server, "hybrid exact") == 0
    judged = judge.score(Sample(response=" 8", ground_truth="8", prompt="hybrid judged"))
    assert judged.info["decided_by"] == "judge" and judged.value == 1.0
    only_failures = JudgeScorer(judge_server.address, "judge", template="binary", rule=rule, defer="failure")
    wrong = only_failures.score(Sample(response="9", ground_truth="8", prompt="hybrid wrong"))
    assert wrong.value == 0.0 and wrong.info["decided_by"] == "rule"


@pytest.mark.server
def test_verl_genrm_contract(judge_server):
    tokenizer = types.SimpleNamespace(name_or_path="judge")
    score = asyncio.run(
        compute_score(
            "gsm8k",
            "42",
            "42",
            {"raw_prompt": [{"role": "user", "content": "what is 6 x 7 ?"}]},
            reward_router_address=judge_server.address,
            reward_model_tokenizer=tokenizer,
        )
    )
    assert score["score"] == 1.0 and score["status"] == "ok"  # verl's dict form
    with pytest.raises(ConfigError, match="reward_router_address"):
        asyncio.run(compute_score("x", "1", "1", reward_router_address=None))


@pytest.mark.server
def test_verl_custom_function_path_gets_router_address_and_tokenizer(judge_server, tmp_path):
    from rewardloop.integrations.verl import CustomFunctionScorer, load_custom_function

    path = tmp_path / "my_judge.py"
    path.write_text("from rewardloop.scorers.judge import compute_score  # noqa: F401\n")
    fn = load_custom_function(str(path), "compute_score")
    tokenizer = types.SimpleNamespace(name_or_path="judge")
    scorer = CustomFunctionScorer(
        fn, reward_router_address=judge_server.address, reward_model_tokenizer=tokenizer
    )
    batch = [
        Sample(response="42", ground_truth="42", task="gsm8k", metadata={"raw_prompt": "6 x 7 ?"}),
        Sample(response="MALFORMED", ground_truth="42", task="gsm8k", metadata={"raw_prompt": "6 x 7 ?"}),
    ]
    result = Runner().run_sync(scorer, batch)
    assert [s.status for s in result] == [Status.OK, Status.PARSE_ERROR]
    assert result[0].value == 1.0


def test_messages_fill_fields_once_and_keep_braces():
    judge = JudgeScorer(
        "127.0.0.1:1", "judge", template="Q: {question} R: {response} ({{kept}})", kind="rating"
    )
    (msg,) = judge.messages(Sample(response="uses {reference} literally", ground_truth="gt", prompt="why?"))
    assert msg["content"] == "Q: why? R: uses {reference} literally ({kept})"


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"double_check": True}, "order-swappable"),
        ({"template": "Rate {response}"}, "needs kind"),
        ({"template": "nonsense"}, "neither a built-in"),
        ({"defer": "always"}, "allowed: failure, not_correct"),
        ({"template": "binary", "kind": "pairwise"}, "allowed: rating, binary"),
    ],
)
def test_config_errors(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        JudgeScorer("127.0.0.1:1", "judge", **kwargs)


def test_address_and_model_from_the_environment(monkeypatch):
    monkeypatch.delenv("REWARDLOOP_JUDGE_URL", raising=False)
    with pytest.raises(ConfigError, match="REWARDLOOP_JUDGE_URL"):
        JudgeScorer()
    monkeypatch.setenv("REWARDLOOP_JUDGE_URL", "127.0.0.1:9")
    monkeypatch.setenv("REWARDLOOP_JUDGE_MODEL", "j")
    judge = JudgeScorer()
    assert judge.client.base_url == "http://127.0.0.1:9" and judge.model == "j"


def test_sampling_judge_is_not_deduplicated():
    assert JudgeScorer("127.0.0.1:1", "j").deterministic
    assert not JudgeScorer("127.0.0.1:1", "j", temperature=0.7).deterministic

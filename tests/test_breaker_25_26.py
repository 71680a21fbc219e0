"""Independent breaker tests for issues 25 (one config, one reward) and 26 (qa_equiv).

Written from the docs only (README.md, docs/qa-equiv.md, docs/server.md, docs/trl.md, docs/openrlhf.md) and
the issue texts, through the public entry points. Each test asserts the documented guarantee. A case that
still breaks on main is marked ``xfail(strict=True)`` with the reason, so the suite stays green while every
break is named; when one is fixed, its strict xfail turns into a failure and the mark must be removed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from rewardloop import Sample, get_scorer

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def _brk(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=f"breaker: {reason}")


# --------------------------------------------------------------------------------------------------------
# B. qa_equiv: attacks a careful grader would not accept (every one must score 0)
# --------------------------------------------------------------------------------------------------------

_QA = get_scorer("qa_equiv")


def _qa(response: str, gold: Any, question: str | None = None) -> tuple[float | None, str | None]:
    metadata = {"question": question} if question else {}
    score = _QA.score(Sample(response=response, ground_truth=gold, task="qa", metadata=metadata))
    return score.value, (score.info or {}).get("rule")


def A(answer: str) -> str:
    return f"<answer>{answer}</answer>"


# (response, gold, question-or-None); all of these must get reward 0.
ATTACKS_HELD: list[tuple[str, Any, str | None]] = [
    (A("Paris, London"), "Paris", None),
    (A("Paris and London"), "Paris", None),
    (A("Paris / London"), "Paris", None),
    (A("Paris; London"), "Paris", None),
    (A("either Paris or London"), "Paris", None),
    (A("Paris or maybe London"), "Paris", None),
    (A("Paris (or possibly London)"), "Paris", None),
    (A("Paris vs London"), "Paris", None),
    (A("London, not Paris"), "Paris", None),
    (A("probably not Paris"), "Paris", None),
    (A("it isn't Paris"), "Paris", None),
    (A("never Paris"), "Paris", None),
    (A("no, Paris"), "Paris", None),
    (A("not in Paris"), "Paris", None),
    (A("no es Paris"), "Paris", None),
    (A("1944"), "1945", None),
    (A("1945 or 1946"), "1945", None),
    (A("between 1944 and 1945"), "1945", None),
    (A("1940s"), "1945", None),
    (A("3 million"), "3 billion", None),
    (A("300 km"), "300 miles", None),
    (A("30"), "300", None),
    (A("3,000"), "300", None),
    (A("300 thousand"), "300", None),
    (A("15"), "5", None),
    (A("5.5"), "5", None),
    (A("fifth"), "5", None),
    (A("7 million"), "7", None),
    (A("December 14, 1973"), "December 14, 1972", None),
    (A("14 November 1972"), "December 14, 1972", None),
    (A("12/14/1972"), "14 December 1971", None),
    (A("Robert Kennedy"), "John F. Kennedy", None),
    (A("George H. W. Bush"), "George W. Bush", None),
    (A("Jane Austen"), "Jane Goodall", None),
    (A("Henry VII"), "Henry VIII", None),
    (A("Henry 7"), "Henry VIII", None),
    (A("Louis XIV"), "Louis XVI", None),
    (A("World War I"), "World War II", None),
    (A("the first"), "the second", None),
    (A("the Beatles and the Rolling Stones"), "The Beatles", None),
    (A("New Jersey"), "New York", None),
    (A("York"), "New York", None),
    (A("Londres"), "Paris", None),
    (A("Parigi o Londra"), "Paris", None),
    (A(""), "Paris", None),
    (A("   "), "Paris", None),
    ("", "Paris", None),
    ("<answer>", "Paris", None),
    (A("the"), "the", None),
    (A("What is the capital of France"), "France", "What is the capital of France?"),
    (A("The capital of France"), "France", "What is the capital of France?"),
    (A("London") + " " + A("Paris"), "Paris", None),
    ("<think>" + A("Paris") + "</think>", "Paris", None),
    (A("Paris") + " actually London", "Paris", None),
    (A("P a r i s"), "Paris", None),
    (A("all of the above"), "Paris", None),
    (A("1, 2, 3, 4, 5, 6, 7, 8, 9, 10"), "7", None),
    (A("seven or eight"), "7", None),
    (A("7-8"), "7", None),
    (A("7 to 8"), "7", None),
    (A("70"), "seventy-seven", None),
    (A("seventeen"), "seventy", None),
    (A("MIT"), "Massachusetts General Hospital", None),
    (A("UN"), "United Nations Educational, Scientific and Cultural Organization", None),
    (A("Nations"), "United Nations", None),
    (A("United"), "United Nations", None),
    (A("the United States and Canada"), "United States", None),
    (A("Will"), "Will Smith", "Who starred in it?"),
    (A("$5 million"), "$5", None),
    (A("5 cents"), "$5", None),
    (A("50 km"), "50 kg", None),
    (A("languages"), "Uralic languages", None),
    (A("Lahaul"), "Tandi, in Lahaul", None),
]

# Breaks found on main and closed as classes (tests/scorers/test_qa_equiv_classes.py, docs/qa-equiv.md).
ATTACKS_CLOSED: list[tuple[str, Any, str | None]] = [
    # closed in the qa_equiv breaker round (docs/qa-equiv.md, "Refused since the breaker round"): a dropped middle
    # initial names another person (the father is George H. W. Bush; JFK Jr. is John F. Kennedy Jr.)
    (A("John Kennedy Jr."), "John F. Kennedy", None),
    (A("George Bush"), "George W. Bush", None),
    (
        A("Paris is wrong"),
        "Paris",
        None,
    ),  # was a break: a negation after the gold ('X is wrong') is accepted by containment
    (
        A("anything but Paris"),
        "Paris",
        None,
    ),  # was a break: 'anything but X' (a negation) is accepted by containment
    (A("nicht Paris"), "Paris", None),  # was a break: German negation 'nicht X' is accepted by containment
    (A("pas Paris"), "Paris", None),  # was a break: French negation 'pas X' is accepted by containment
    (A("Paris ou Londres"), "Paris", None),  # was a break: French 'X ou Y' hedge is accepted
    (A("Paris o Londres"), "Paris", None),  # was a break: Spanish 'X o Y' hedge is accepted
    (A("Paris oder London"), "Paris", None),  # was a break: German 'X oder Y' hedge is accepted
    (A("Paris y Londres"), "Paris", None),  # was a break: Spanish 'X y Y' list is accepted
    (A("Paris und London"), "Paris", None),  # was a break: German 'X und Y' list is accepted
    (A("Paris et Londres"), "Paris", None),  # was a break: French 'X et Y' list is accepted
    (
        A("Paris? London? Berlin?"),
        "Paris",
        None,
    ),  # was a break: a question-mark separated list of candidates is accepted
    (
        A("Paris London Berlin Rome Madrid Vienna Prague"),
        "Paris",
        None,
    ),  # was a break: a space-separated list of cities
    (
        A("A B C D E F G H I J K L M N O P Q R S T U V W X Y Z Paris"),
        "Paris",
        None,
    ),  # was a break: gold after filler tokens
    (A("Paris, unless it is London"), "Paris", None),  # was a break: 'X, unless it is Y' hedge is accepted
    (A("perhaps Paris"), "Paris", None),  # was a break: a hedge in other words ('perhaps X') is accepted
    (A("possibly Paris"), "Paris", None),  # was a break: a hedge in other words ('possibly X') is accepted
    (
        A("I think it might be Paris but I'm not sure"),
        "Paris",
        None,
    ),  # was a break: an explicit 'not sure' hedge is accepted
    (A("before 1945"), "1945", None),  # was a break: 'before YEAR' (a different time) is accepted
    (A("after 1945"), "1945", None),  # was a break: 'after YEAR' (a different time) is accepted
    (A("at least 7"), "7", None),  # was a break: 'at least N' (a bound, not the number) is accepted
    (A("more than 7"), "7", None),  # was a break: 'more than N' (excludes N) is accepted
    (A("fewer than seven"), "7", None),  # was a break: 'fewer than N' (excludes N) is accepted
    (A("-5"), "5", None),  # was a break: a negative number is 'exact' for the positive gold
    (A("5%"), "5", None),  # was a break: a percentage is 'exact' for a bare number gold
    (
        A("Mr. Smith"),
        "Mrs. Smith",
        None,
    ),  # was a break: honorific normalisation makes Mr. equal Mrs. (another person)
    (
        A("Pythagoras' theorem"),
        "Pythagoras",
        None,
    ),  # was a break: a theorem named after the gold person is accepted
    (
        A("USA"),
        "Union of South Africa",
        None,
    ),  # was a break: an acronym that names a different, better-known entity
]

# Judgement calls the rules accept by design (docs/qa-equiv.md, 'Judgement calls'): the gold list cannot tell
# George W. Bush from his father when the answer drops the initial, nor Paris, France from Paris, Texas; a Jr.
# dropped or added, and the gold inside a longer name, are accepted because dev's raters accept that shape.
ATTACKS_BROKEN: list[tuple[str, Any, str | None, str]] = [
    (A("Paris Hilton"), "Paris", None, "accepted by design: the gold inside a longer name (dev raters)"),
    (
        A("Paris Saint-Germain"),
        "Paris",
        None,
        "accepted by design: the gold inside a longer name (dev raters)",
    ),
    (
        A("Paris, Texas"),
        "Paris",
        None,
        "accepted by design: a different city of the same name is accepted by containment",
    ),
]


@pytest.mark.parametrize(("response", "gold", "question"), ATTACKS_HELD + ATTACKS_CLOSED)
def test_qa_equiv_attack_held(response: str, gold: Any, question: str | None) -> None:
    value, rule = _qa(response, gold, question)
    assert value == 0.0, (response, gold, rule)


@pytest.mark.parametrize(
    ("response", "gold", "question"),
    [pytest.param(r, g, q, marks=_brk(why), id=r[8:-9][:40]) for r, g, q, why in ATTACKS_BROKEN],
)
def test_qa_equiv_attack_broken(response: str, gold: Any, question: str | None) -> None:
    value, rule = _qa(response, gold, question)
    assert value == 0.0, (response, gold, rule)


def test_qa_equiv_tag_spam_cuts_reward() -> None:
    # docs: more than 10 <answer> tags multiply a correct answer's reward by spam_factor (0.25)
    value, _ = _qa(A("Paris") * 11, "Paris")
    assert value == pytest.approx(0.25)


# Controls: correct paraphrases the docs say are accepted.
CONTROLS: list[tuple[str, Any, str | None]] = [
    (A("six"), "6", None),
    (A("6"), "six", None),
    (A("twenty-one"), "21", None),
    (A("14 December 1972"), "December 14, 1972", None),
    (A("1972-12-14"), "December 14, 1972", None),
    (A("Dec. 14, 1972"), "December 14, 1972", None),
    (A("Gerald R. Ford"), "Gerald Ford", None),
    (A("John Fitzgerald Kennedy"), "John F. Kennedy", None),
    (A("IWC"), "International Whaling Commission", None),
    (A("in 1945"), "1945", None),
    (A("Edinburgh, Scotland"), "Edinburgh", None),
    (A("the Beatles"), "Beatles", None),
    (A("fourth"), "4th", None),
    (A("3.5 million"), "3,500,000", None),
    (A("$5"), "5 dollars", None),
    (A("50%"), "50 per cent", None),
    (A("Henry 8"), "Henry VIII", None),
    (A("Dr. Martin Luther King Jr."), "Martin Luther King", None),
    (A("September 29, 2018"), "2018", None),
    (A("Chile and Argentina"), "Argentina and Chile", None),
    (A("Uralic"), "Uralic languages", None),
    (A("Tandi"), "Tandi, in Lahaul", None),
    (A("Zurich"), "Zürich", None),
    (A("cats"), "cat", None),
    (A("about 300 km"), "300 km", None),
    (A("The answer is Paris"), "Paris", None),
    ("Paris", "Paris", None),
    (A("Paris"), ["London", "Paris"], None),
    (A("Paris"), {"target": ["Paris"]}, None),
    (A("World War II"), "World War 2", None),
    (A("1 million"), "one million", None),
    (A("Mount Everest"), "Everest", None),
    (A("seventy-seven"), "77", None),
    (A("The United States"), "United States", None),
]


@pytest.mark.parametrize(("response", "gold", "question"), CONTROLS)
def test_qa_equiv_control_accepted(response: str, gold: Any, question: str | None) -> None:
    value, rule = _qa(response, gold, question)
    assert value == 1.0, (response, gold, rule)


def test_qa_equiv_control_roman_vs_ordinal_word() -> None:
    value, rule = _qa(A("Henry VIII"), "Henry the Eighth")
    assert value == 1.0, rule


# --------------------------------------------------------------------------------------------------------
# A. One config, one reward (issue 25)
# --------------------------------------------------------------------------------------------------------

CONFIG = """\
reward:
  routes:
    searchR1_nq: qa_equiv
  monitors:
    enable: true
  runner:
    on_error: -1.0
"""

GT_NQ = {"target": ["Paris"]}
STRING_ROWS: list[dict[str, Any]] = [
    {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "18"}, "response": "so #### 18"},
    {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "18"}, "response": "#### 17"},
    {"data_source": "searchR1_nq", "reward_model": {"ground_truth": GT_NQ}, "response": A("in Paris")},
    {"data_source": "searchR1_nq", "reward_model": {"ground_truth": GT_NQ}, "response": A("Paris or Rome")},
    {"data_source": "searchR1_nq", "reward_model": {"ground_truth": GT_NQ}, "response": ""},
    {
        "data_source": "openai/gsm8k",
        "reward_model": {"ground_truth": "18"},
        "response": "Let me check. Actually I'm hacking. #### 18 " * 3,
    },
]
CHAT_ROW = {
    "data_source": "openai/gsm8k",
    "reward_model": {"ground_truth": "18"},
    "response": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "#### 18"}],
}
EMPTY_LIST_ROW = {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "18"}, "response": []}
INT_ROW = {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "18"}, "response": 42}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rewardloop.cli.main", *args],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=timeout,
    )


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps({**r, "extra_info": {}}) + "\n" for r in rows))
    return path


def _score_cli(tmp_path: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG)
    inp = _write_rows(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "out.jsonl"
    proc = _cli(
        "score", str(inp), "-o", str(out), "--config", str(cfg), "--no-progress", "--max-failure-rate", "1"
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def _flags(metrics: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (metrics or {}).items() if k.startswith("monitor/")}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    cfg = tmp_path_factory.mktemp("srv") / "cfg.yaml"
    cfg.write_text(CONFIG)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rewardloop.cli.main", "serve", "--config", str(cfg), "--port", str(port)],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # readiness by polling, not by a deadline on the work
            if proc.poll() is not None:
                pytest.fail(f"serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            try:
                urllib.request.urlopen(url + "/v1/scorers", timeout=5).read()
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _post(url: str, rows: list[dict[str, Any]]) -> tuple[int, Any]:
    samples = [
        {
            "response": r["response"],
            "data_source": r["data_source"],
            "reward_model": r["reward_model"],
            "extra_info": {},
        }
        for r in rows
    ]
    req = urllib.request.Request(
        url + "/v1/score",
        data=json.dumps({"samples": samples}).encode(),
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_cli_and_serve_agree_on_string_rows(tmp_path: Path, server: str) -> None:
    cli = _score_cli(tmp_path, STRING_ROWS)
    code, body = _post(server, STRING_ROWS)
    assert code == 200, body
    assert [r["score"] for r in cli] == [s["reward"] for s in body["scores"]]
    assert [_flags(r["metrics"]) for r in cli] == [_flags(s["metrics"]) for s in body["scores"]]
    assert any(f.get("monitor/any") for f in (_flags(r["metrics"]) for r in cli))  # monitors really applied
    assert cli[3]["score"] == 0.0  # the qa_equiv route really applied ('Paris or Rome' is a hedge)


def test_serve_scores_chat_format_like_the_cli(tmp_path: Path, server: str) -> None:
    cli = _score_cli(tmp_path, [*STRING_ROWS, CHAT_ROW])
    code, body = _post(server, [*STRING_ROWS, CHAT_ROW])
    assert code == 200, body
    assert [r["score"] for r in cli] == [s["reward"] for s in body["scores"]]


def _trl(rows: list[dict[str, Any]], tmp_path: Path) -> list[float | None]:
    from rewardloop.integrations.trl import reward_func

    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG)
    fn = reward_func(config=str(cfg), name="acc")
    return list(
        fn(
            prompts=["q"] * len(rows),
            completions=[r["response"] for r in rows],
            data_source=[r["data_source"] for r in rows],
            reward_model=[r["reward_model"] for r in rows],
        )
    )


def test_trl_agrees_with_cli_on_ok_rows(tmp_path: Path) -> None:
    rows = [*STRING_ROWS, CHAT_ROW]
    cli = _score_cli(tmp_path, rows)
    assert _trl(rows, tmp_path) == [r["score"] for r in cli]


def test_trl_failed_row_reward_follows_the_configs_on_error(tmp_path: Path) -> None:
    rows = [STRING_ROWS[0], INT_ROW]  # one ok row: a file where every row fails exits 1
    cli = _score_cli(tmp_path, rows)
    assert cli[1]["status"] == "invalid_input" and cli[1]["score"] == -1.0
    assert _trl(rows, tmp_path) == [r["score"] for r in cli]


def test_trl_empty_list_is_a_failure_not_zero(tmp_path: Path) -> None:
    rows = [STRING_ROWS[0], EMPTY_LIST_ROW]
    cli = _score_cli(tmp_path, rows)
    assert cli[1]["status"] == "invalid_input" and cli[1]["score"] == -1.0
    assert _trl(rows, tmp_path) == [r["score"] for r in cli]


def test_openrlhf_agrees_with_cli(tmp_path: Path) -> None:
    from rewardloop.integrations.openrlhf import make_reward_func

    cli = _score_cli(tmp_path, STRING_ROWS)
    cfg = tmp_path / "cfg.yaml"
    fn = make_reward_func(config=str(cfg), return_tensors=False)
    out = fn(
        queries=["q" + r["response"] for r in STRING_ROWS],
        prompts=["q"] * len(STRING_ROWS),
        labels=[
            json.dumps({"data_source": r["data_source"], "ground_truth": r["reward_model"]["ground_truth"]})
            for r in STRING_ROWS
        ],
    )
    assert list(out["rewards"]) == [r["score"] for r in cli]
    assert list(out["extra_logs"]["monitor/any"]) == [
        float(bool(_flags(r["metrics"]).get("monitor/any"))) for r in cli
    ]


@pytest.mark.parametrize(
    ("name", "content", "expect"),
    [
        ("empty.parquet", b"", "not a readable Parquet file"),
        ("bad.parquet", b"PAR1garbage", "not a readable Parquet file"),
        ("broken.json", b'[{"data_source": "openai/gsm8k", "response": "#### 1"},', "not valid JSON"),
    ],
)
def test_bad_input_files_exit_2_naming_the_file(
    tmp_path: Path, name: str, content: bytes, expect: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    proc = _cli("score", str(path), "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert expect in proc.stderr and name in proc.stderr


def test_json_array_is_read_as_json(tmp_path: Path) -> None:
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([{**STRING_ROWS[0], "extra_info": {}}]))
    out = tmp_path / "out.jsonl"
    proc = _cli("score", str(path), "-o", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text().splitlines()[0])["score"] == 1.0


def test_truncated_jsonl_line_says_so(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text(json.dumps({**STRING_ROWS[0], "extra_info": {}})[:60] + "\n")
    proc = _cli("score", str(path), "--no-progress")
    assert proc.returncode == 1  # every row failed
    assert "truncated" in proc.stdout + proc.stderr


def test_grpo_file_round_trips_and_bad_rescore_key_exits_2(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG)
    rows = [
        {
            "data_source": "openai/gsm8k",
            "uid": f"u{i}",
            "reward_model": {"ground_truth": "18"},
            "extra_info": {},
            "responses": ["#### 18", "#### 17", "", "#### 18"],
        }
        for i in range(3)
    ]
    inp = tmp_path / "grpo.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    proc = _cli(
        "score",
        str(inp),
        "--response-key",
        "responses",
        "-o",
        str(out),
        "--config",
        str(cfg),
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["score"] for r in scored] == [1.0, 0.0, 0.0, 1.0] * 3
    assert {r["scored_with"]["response_key"] for r in scored} == {"responses"}
    re = _cli("rescore", str(out), "--no-progress")
    assert re.returncode == 0, re.stdout + re.stderr
    assert "unchanged        12" in re.stdout
    bad = _cli("rescore", str(out), "--response-key", "nope", "--no-progress")
    assert bad.returncode == 2 and "nope" in bad.stderr


# --- custom function + runner.on_error, overlong shaping, verl managers -----------------------------------

CUSTOM_FN = """
def my_score(data_source, solution_str, ground_truth, extra_info=None, **kw):
    if "boom" in solution_str:
        raise ValueError("boom")
    return float(solution_str.strip().endswith(ground_truth))
"""
CUSTOM_ROWS = [
    {"data_source": "x", "reward_model": {"ground_truth": "18"}, "response": "#### 18"},
    {"data_source": "x", "reward_model": {"ground_truth": "18"}, "response": "boom"},
]


def _custom_cfg(tmp_path: Path) -> Path:
    fn = tmp_path / "cf.py"
    fn.write_text(CUSTOM_FN)
    cfg = tmp_path / "cf.yaml"
    cfg.write_text(
        f"reward:\n  custom_reward_function: {{path: {fn}, name: my_score}}\n  runner: {{on_error: -2.0}}\n"
    )
    return cfg


def _cli_with(cfg: Path, tmp_path: Path, rows: list[dict[str, Any]], *extra: str) -> list[dict[str, Any]]:
    inp = _write_rows(tmp_path / "rows_x.jsonl", rows)
    out = tmp_path / "out_x.jsonl"
    proc = _cli(
        "score",
        str(inp),
        "-o",
        str(out),
        "--config",
        str(cfg),
        "--no-progress",
        "--max-failure-rate",
        "1",
        *extra,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_cli_custom_function_failure_follows_on_error(tmp_path: Path) -> None:
    cli = _cli_with(_custom_cfg(tmp_path), tmp_path, CUSTOM_ROWS)
    assert [(r["score"], r["status"]) for r in cli] == [(1.0, "ok"), (-2.0, "scorer_error")]


def test_openrlhf_failed_row_follows_the_configs_on_error(tmp_path: Path) -> None:
    from rewardloop.integrations.openrlhf import make_reward_func

    fn = make_reward_func(config=str(_custom_cfg(tmp_path)), return_tensors=False)
    out = fn(
        queries=["q" + r["response"] for r in CUSTOM_ROWS],
        prompts=["q"] * 2,
        labels=[json.dumps({"data_source": "x", "ground_truth": "18"})] * 2,
    )
    assert list(out["rewards"]) == [1.0, -2.0]


def test_trl_custom_function_failure_follows_the_configs_on_error(tmp_path: Path) -> None:
    from rewardloop.integrations.trl import reward_func

    fn = reward_func(config=str(_custom_cfg(tmp_path)), name="x")
    got = fn(
        prompts=["q"] * 2,
        completions=[r["response"] for r in CUSTOM_ROWS],
        data_source=["x", "x"],
        reward_model=[r["reward_model"] for r in CUSTOM_ROWS],
    )
    assert list(got) == [1.0, -2.0]


OVERLONG = """\
reward:
  reward_kwargs:
    max_resp_len: 20
    overlong_buffer_cfg: {enable: true, len: 10, penalty_factor: 1.0}
"""
LONG_ROWS = [
    {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "18"}, "response": "#### 18", "len": 25},
    {"data_source": "openai/gsm8k", "reward_model": {"ground_truth": "18"}, "response": "#### 18", "len": 5},
]


def test_overlong_cli_names_what_it_cannot_apply_and_applies_with_lengths(tmp_path: Path) -> None:
    cfg = tmp_path / "ol.yaml"
    cfg.write_text(OVERLONG)
    inp = _write_rows(tmp_path / "rows.jsonl", LONG_ROWS)
    proc = _cli("score", str(inp), "--config", str(cfg), "--no-progress")
    assert proc.returncode == 0 and "not applied" in proc.stderr and "overlong" in proc.stderr
    scored = _cli_with(cfg, tmp_path, LONG_ROWS, "--length-key", "len")
    # DAPO: expected length 20 - 10 = 10; 25 is 15 over a buffer of 10 -> penalty -1.5
    assert [r["score"] for r in scored] == [pytest.approx(-0.5), 1.0]


def test_overlong_openrlhf_refuses(tmp_path: Path) -> None:
    from rewardloop.errors import ConfigError
    from rewardloop.integrations.openrlhf import make_reward_func

    cfg = tmp_path / "ol.yaml"
    cfg.write_text(OVERLONG)
    with pytest.raises(ConfigError, match="overlong"):
        fn = make_reward_func(config=str(cfg), return_tensors=False)
        fn(
            queries=["q#### 18"],
            prompts=["q"],
            labels=[json.dumps({"data_source": "openai/gsm8k", "ground_truth": "18"})],
        )


def _trl_overlong(tmp_path: Path, with_ids: bool) -> list[Any]:
    from rewardloop.integrations.trl import reward_func

    cfg = tmp_path / "ol.yaml"
    cfg.write_text(OVERLONG)
    fn = reward_func(config=str(cfg), name="x")
    kwargs: dict[str, Any] = {
        "prompts": ["q"] * 2,
        "completions": [r["response"] for r in LONG_ROWS],
        "data_source": [r["data_source"] for r in LONG_ROWS],
        "reward_model": [r["reward_model"] for r in LONG_ROWS],
    }
    if with_ids:
        kwargs["completion_ids"] = [[1] * r["len"] for r in LONG_ROWS]
    return list(fn(**kwargs))


def test_overlong_trl_with_completion_ids_matches_cli(tmp_path: Path) -> None:
    assert _trl_overlong(tmp_path, True) == [pytest.approx(-0.5), 1.0]


def test_overlong_trl_without_lengths_is_refused_or_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging
    import warnings

    with caplog.at_level(logging.DEBUG), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _trl_overlong(tmp_path, False)
        except Exception as exc:  # a refusal is fine if it names the cause
            assert "overlong" in str(exc) or "length" in str(exc)
            return
    named = [r.getMessage() for r in caplog.records] + [str(w.message) for w in caught]
    assert any("overlong" in m or "length" in m for m in named), named


def test_verl_managers_agree_with_cli(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    import yaml

    from rewardloop.integrations.verl import RewardLoopManager, load_reward_manager
    from rewardloop.testing import make_verl_batch, toy_tokenizer

    cli = _score_cli(tmp_path, STRING_ROWS)
    tok = toy_tokenizer()
    rows = [
        {
            "response": r["response"],
            "data_source": r["data_source"],
            "ground_truth": r["reward_model"]["ground_truth"],
        }
        for r in STRING_ROWS
    ]
    batch = make_verl_batch(tok, rows, response_len=1024)  # long enough that nothing is cut
    cfg = yaml.safe_load(CONFIG)
    with RewardLoopManager(cfg, tokenizer=tok) as loop:
        scored = loop.compute_rm_score(batch)
    naive = load_reward_manager(cfg, tok)
    out = naive(batch, return_dict=True)
    want = [r["score"] for r in cli]
    assert scored.batch["rm_scores"].sum(-1).tolist() == want
    assert out["reward_tensor"].sum(-1).tolist() == want
    any_flag = [bool(_flags(r["metrics"]).get("monitor/any")) for r in cli]
    assert [bool(v) for v in scored.non_tensor_batch["monitor/any"]] == any_flag
    assert [bool(v) for v in out["reward_extra_info"]["monitor/any"]] == any_flag


# --- explain on a GRPO input file ------------------------------------------------------------------------


def _grpo_input(tmp_path: Path) -> Path:
    rows = [
        {
            "data_source": "openai/gsm8k",
            "reward_model": {"ground_truth": "18"},
            "extra_info": {},
            "responses": ["#### 18", "#### 17"],
        },
        {
            "data_source": "openai/gsm8k",
            "reward_model": {"ground_truth": "18"},
            "extra_info": {},
            "responses": [
                [{"role": "assistant", "content": "#### 18"}],
                [{"role": "assistant", "content": "#### 1"}],
            ],
        },
    ]
    path = tmp_path / "grpo.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_explain_picks_one_response_of_a_grpo_row(tmp_path: Path) -> None:
    path = _grpo_input(tmp_path)
    ok = _cli(
        "explain", "--file", str(path), "--index", "0", "--response-index", "1", "--response-key", "responses"
    )
    assert ok.returncode == 0 and "'17'" in ok.stdout, ok.stdout + ok.stderr
    oob = _cli(
        "explain", "--file", str(path), "--index", "0", "--response-index", "9", "--response-key", "responses"
    )
    assert oob.returncode == 2 and "out of range" in oob.stderr


def test_explain_picks_one_chat_of_a_grpo_row(tmp_path: Path) -> None:
    path = _grpo_input(tmp_path)
    scored = tmp_path / "out.jsonl"
    sc = _cli("score", str(path), "--response-key", "responses", "-o", str(scored), "--no-progress")
    assert sc.returncode == 0, sc.stderr
    assert [json.loads(x)["score"] for x in scored.read_text().splitlines()] == [1.0, 0.0, 1.0, 0.0]
    one = _cli(
        "explain", "--file", str(path), "--index", "1", "--response-index", "1", "--response-key", "responses"
    )
    assert one.returncode == 0 and "'1'" in one.stdout, one.stdout + one.stderr


def test_config_prefix_route_with_options_equals_route_prefix_flag(tmp_path: Path) -> None:
    rows = [
        {
            "data_source": "searchR1_hotpotqa",
            "reward_model": {"ground_truth": GT_NQ},
            "response": A("it is in Paris"),
        },
        {"data_source": "searchR1_nq", "reward_model": {"ground_truth": GT_NQ}, "response": A("in Paris")},
        {"data_source": "searchR1_nq", "reward_model": {"ground_truth": 5}, "response": A("5")},
    ]
    cfg = tmp_path / "pre.yaml"
    cfg.write_text('reward:\n  routes:\n    "searchR1_*": {scorer: qa_equiv, options: {max_tokens: 3}}\n')
    by_cfg = _cli_with(cfg, tmp_path, rows)
    inp = _write_rows(tmp_path / "rows_f.jsonl", rows)
    out = tmp_path / "out_f.jsonl"
    proc = _cli(
        "score",
        str(inp),
        "-o",
        str(out),
        "--route-prefix",
        "searchR1_=qa_equiv:max_tokens=3",
        "--no-progress",
    )
    assert proc.returncode in (0, 1), proc.stderr
    by_flag = [json.loads(line) for line in out.read_text().splitlines()]
    want = [(0.0, "ok"), (1.0, "ok"), (None, "invalid_input")]  # too_long with max_tokens=3; int gold named
    assert [(r["score"], r["status"]) for r in by_cfg] == want
    assert [(r["score"], r["status"]) for r in by_flag] == want
    assert "ground_truth 5 has type int" in by_cfg[2]["error"]


def test_qa_equiv_acronym_expansion_is_undecided() -> None:
    # was a control; since the qa_equiv breaker round an expansion of an acronym gold is left to the judge: the
    # rules cannot tell "International Whaling Commission" from "International Wrestling Council" for "IWC"
    value, rule = _qa(A("International Whaling Commission"), "IWC", None)
    assert (value, rule) == (0.0, "no_match")


def test_qa_equiv_bare_surname_is_undecided() -> None:
    # was a control; since qa_equiv's round 3 a bare surname is left to the judge: the rules cannot tell "Einstein"
    # (one person) from "Williams" for "Serena Williams" or "Wright" for "Orville Wright" (a family)
    value, rule = _qa(A("Einstein"), "Albert Einstein", "Who developed the theory of relativity?")
    assert (value, rule) == (0.0, "surname")

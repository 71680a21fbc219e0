"""The shared validation module: one wording for every config dialect (types, ranges, choices, unknown keys)."""

import math
import re
from dataclasses import dataclass

import pytest

from rewardloop import RunnerConfig
from rewardloop._validate import Bool, Choice, Int, Number, Rule, Str, check_fields, check_keys, known_keys
from rewardloop.config import load_reward_config
from rewardloop.errors import ConfigError
from rewardloop.execution import WorkerPool
from rewardloop.models import RewardModelServerConfig
from rewardloop.sandbox import Limits
from rewardloop.server import RunCodeLimits, ServerConfig


def _message(fn, *args, **kwargs) -> str:
    with pytest.raises(ConfigError) as info:
        fn(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    ("spec", "value", "message"),
    [
        (Int(minimum=1), 0, "x must be an integer >= 1, got 0"),
        (Int(minimum=1), True, "x must be an integer >= 1, got True"),  # a bool is not an integer
        (Int(), 1.5, "x must be an integer, got 1.5"),
        (Int(minimum=0, optional=True), "3", "x must be an integer >= 0 or None, got '3'"),
        (Number(positive=True), 0, "x must be a positive number, got 0"),
        (Number(positive=True), math.inf, "x must be a positive number, got inf"),
        (Number(minimum=0), -0.5, "x must be a number >= 0, got -0.5"),
        (Number(), math.nan, "x must be a finite number, got nan"),
        (Number(finite=False), "1", "x must be a number, got '1'"),
        (Bool(), "yes", "x must be true or false, got 'yes'"),
        (Bool(), 1, "x must be true or false, got 1"),
        (Str(), "  ", "x must be a non-empty string, got '  '"),
        (Str(optional=True), 3, "x must be a non-empty string or None, got 3"),
        (
            Choice(("inline", "thread")),
            "thred",
            "x must be one of inline, thread, got 'thred' (did you mean 'thread'?)",
        ),
        (Choice(("a", "b"), optional=True), ["a"], "x must be one of a, b or None, got ['a']"),
        (Rule(lambda v: v == "raise", "'raise'"), "rise", "x must be 'raise', got 'rise'"),
    ],
)
def test_a_bad_value_names_the_key_what_is_allowed_and_what_was_given(spec, value, message):
    assert _message(spec.check, value, "x") == message


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        (Int(minimum=1), 3, 3),
        (Number(positive=True), 2, 2.0),  # numbers come back as float
        (Number(finite=False), math.inf, math.inf),
        (Bool(), False, False),
        (Str(empty_ok=True), "", ""),
        (Choice(("a", "b")), "b", "b"),
        (Int(minimum=5, optional=True), None, None),
    ],
)
def test_a_good_value_is_returned(spec, value, expected):
    got = spec.check(value, "x")
    assert got == expected and type(got) is type(expected)


def test_unknown_keys_are_all_named_with_a_suggestion_and_the_allowed_list():
    message = _message(check_keys, {"timeout": 1, "zzz": 2, "workers": 3}, ("timeout_s", "workers"), "runner")
    assert message == (
        "unknown key(s) 'timeout', 'zzz' in runner; allowed: timeout_s, workers; 'timeout' (did you mean 'timeout_s'?)"
    )
    check_keys({"_target_": "verl.X", "workers": 1}, ("workers",), "runner")  # Hydra's hint is never unknown


def test_known_keys_reads_a_dataclass_and_rejects_non_mappings():
    @dataclass(frozen=True)
    class Settings:
        port: int = 1

    assert known_keys(Settings, {"port": 2, "_target_": "x"}, "s") == {"port": 2}
    assert known_keys(Settings, None, "s") == {}
    assert _message(known_keys, Settings, [1], "s") == "s must be a mapping, got list"
    assert (
        _message(known_keys, Settings, {"prt": 2}, "s")
        == "unknown key(s) 'prt' in s; allowed: port; 'prt' (did you mean 'port'?)"
    )


def test_check_fields_names_each_field_with_the_dialects_prefix():
    @dataclass(frozen=True)
    class Settings:
        port: int = 1
        name: str = "a"

    specs = {"port": Int(minimum=0), "name": Str()}
    check_fields(Settings(), specs, "srv.")
    assert (
        _message(check_fields, Settings(port=-1), specs, "srv.") == "srv.port must be an integer >= 0, got -1"
    )
    assert (
        _message(check_fields, Settings(name=""), specs, "srv.")
        == "srv.name must be a non-empty string, got ''"
    )


_SHAPE = re.compile(r"^\S+ must be .+, got .+$")


@pytest.mark.parametrize(
    ("build", "key"),
    [
        (lambda: RunnerConfig(workers=0), "workers must be an integer >= 1"),
        (lambda: load_reward_config({"num_workers": "2"}), "reward.num_workers must be an integer >= 1"),
        (lambda: ServerConfig(port=-1), "server.port must be an integer >= 0"),
        (lambda: RunCodeLimits(max_files=-1), "run_code.max_files must be an integer >= 0"),
        (lambda: Limits(max_processes=0), "Limits.max_processes must be an integer >= 1"),
        (
            lambda: RewardModelServerConfig(model_path="m", num_servers=0),
            "RewardModelServerConfig.num_servers must be an integer >= 1",
        ),
        (lambda: WorkerPool(0), "size must be an integer >= 1"),
    ],
)
def test_every_dialect_words_an_out_of_range_integer_the_same_way(build, key):
    message = _message(build)
    assert message.startswith(key) and _SHAPE.match(message), message


@pytest.mark.parametrize(
    ("build", "needle"),
    [
        (lambda: RunnerConfig.from_dict({"wrokers": 1}), "in RunnerConfig; allowed: "),
        (lambda: load_reward_config({"runner": {"wrokers": 1}}), "in reward.runner; allowed: "),
        (lambda: load_reward_config({"num_worker": 1}), "in reward; allowed: "),
        (lambda: ServerConfig.from_dict({"prot": 1}), "in server; allowed: "),
        (lambda: RunCodeLimits.from_dict({"max_filez": 1}), "in run_code; allowed: "),
    ],
)
def test_every_dialect_rejects_an_unknown_key_with_a_suggestion(build, needle):
    message = _message(build)
    assert message.startswith("unknown key(s) ") and needle in message and "(did you mean '" in message


@pytest.mark.parametrize(
    ("build", "needle"),
    [
        (
            lambda: RunnerConfig(execution="proces"),
            "execution must be one of inline, thread, process or None",
        ),
        (lambda: load_reward_config({"backend": "rey"}), "reward.backend must be one of local, ray"),
        (
            lambda: RewardModelServerConfig(model_path="m", backend="vlm"),
            "RewardModelServerConfig.backend must be one of",
        ),
        (lambda: WorkerPool(1, start_method="forq"), "start_method must be one of"),
    ],
)
def test_every_dialect_names_the_choices_and_suggests_the_close_one(build, needle):
    message = _message(build)
    assert message.startswith(needle) and "(did you mean '" in message, message


def test_a_renamed_argument_keeps_its_old_name_with_a_warning():
    from rewardloop._validate import renamed

    assert renamed(3, None, "timeout", "timeout_s", "f") == 3
    assert renamed(None, None, "timeout", "timeout_s", "f", default=600.0) == 600.0
    with pytest.warns(DeprecationWarning, match="f: timeout= is deprecated; use timeout_s="):
        assert renamed(None, 5, "timeout", "timeout_s", "f") == 5
    assert _message(renamed, 1, 2, "timeout", "timeout_s", "f") == (
        "f: give timeout_s= only (timeout= is its deprecated name), not both"
    )


def _request(kw):
    # RemoteScorer calls its HTTP timeout request_timeout_s (Scorer.timeout_s is the Runner's deadline)
    return {("request_timeout_s" if k == "timeout_s" else k): v for k, v in kw.items()}


def _deprecated_timeout_builders():
    from rewardloop.client import RewardClient
    from rewardloop.integrations import openrlhf, remote, trl

    return [
        (
            "RemoteScorer",
            lambda **kw: remote.RemoteScorer("http://127.0.0.1:1", **_request(kw)).request_timeout_s,
        ),
        ("trl.reward_func", lambda **kw: trl.reward_func("gsm8k", **kw).timeout_s),
        ("trl.async_reward_func", lambda **kw: trl.async_reward_func("gsm8k", **kw).timeout_s),
        ("openrlhf.make_reward_func", lambda **kw: openrlhf.make_reward_func("gsm8k", **kw).timeout_s),
        ("RewardClient", lambda **kw: RewardClient("http://127.0.0.1:1", **kw).timeout.read),
    ]


@pytest.mark.parametrize("index", range(5))
def test_public_deadlines_take_timeout_s_and_still_accept_timeout(index):
    label, build = _deprecated_timeout_builders()[index]
    assert build(timeout_s=7.0) == 7.0, label
    with pytest.warns(DeprecationWarning, match="timeout= is deprecated"):
        assert build(timeout=7.0) == 7.0, label
    with pytest.raises(ConfigError, match="not both"):
        build(timeout=7.0, timeout_s=7.0)


def test_score_takes_timeout_s_and_still_accepts_timeout():
    import rewardloop
    from rewardloop import Sample

    sample = Sample("#### 42", "42", "openai/gsm8k")
    assert rewardloop.score(sample, timeout_s=30.0).value == 1.0
    with pytest.warns(DeprecationWarning, match=r"rewardloop.score: timeout= is deprecated"):
        assert rewardloop.score(sample, timeout=30.0).value == 1.0
    with pytest.warns(DeprecationWarning, match=r"rewardloop.score_many: timeout= is deprecated"):
        assert rewardloop.score_many([sample], timeout=30.0).values == (1.0,)


def test_every_field_of_a_dialect_has_a_spec():
    # a field added without a rule would go unchecked: each dialect's table covers its dataclass
    import dataclasses

    from rewardloop.execution import _config as runner_config
    from rewardloop.sandbox import _types as sandbox_types
    from rewardloop.server import _config as server_config

    tables = [
        (RunnerConfig, runner_config._SPECS, set()),
        (Limits, sandbox_types._LIMITS_SPECS, set()),
        (RunCodeLimits, server_config._RUN_CODE_SPECS, set()),
        (
            ServerConfig,
            server_config._SERVER_SPECS,
            {"run_code"},
        ),  # a RunCodeLimits, checked by its own table
    ]
    for cls, specs, exempt in tables:
        fields = {f.name for f in dataclasses.fields(cls)}
        assert set(specs) == fields - exempt, cls.__name__

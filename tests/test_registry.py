import pytest

import rewardloop
from rewardloop import Sample, Score, Scorer
from rewardloop.errors import ConfigError, UnknownScorerError, UnknownTaskError
from rewardloop.registry import Registry, load_object
from rewardloop.scorers._registry import ROUTES, Route, RouteTable, get_scorer, resolve_scorer


def test_registry_lazy_string_entries_and_errors():
    reg: Registry = Registry("thing")
    reg.register("json_dumps", "json:dumps")
    import json

    assert reg.get("json_dumps") is json.dumps
    with pytest.raises(UnknownScorerError, match="Known scorers: json_dumps"):
        reg.get("nope")
    with pytest.raises(ConfigError, match="already registered"):
        reg.register("json_dumps", len)
    reg.register("json_dumps", len, overwrite=True)
    assert reg.get("json_dumps") is len


def test_registry_decorator():
    reg: Registry = Registry("thing")

    @reg.register("f")
    def f():
        return 1

    assert reg.get("f") is f and "f" in reg and list(reg) == ["f"]


def test_load_object_rejects_bad_spec():
    with pytest.raises(ConfigError, match="module:attr"):
        load_object("json.dumps")
    assert load_object("os.path:join").__name__ == "join"


def test_unknown_data_source_matches_verl_message():
    with pytest.raises(NotImplementedError) as info:
        rewardloop.default_compute_score("xyz", "r", "1")
    assert str(info.value).startswith("Reward function is not implemented for data_source='xyz'")
    assert isinstance(info.value, UnknownTaskError)
    assert "openai/gsm8k" in str(info.value)


@pytest.mark.parametrize("bad", [None, 5, ""])
def test_non_string_data_source_is_a_clear_error(bad):
    with pytest.raises(UnknownTaskError):
        ROUTES.resolve(bad)


@pytest.mark.parametrize(
    "source,scorer",
    [
        ("openai/gsm8k", "gsm8k"),
        ("lighteval/MATH", "hendrycks_math"),
        ("DigitalLearningGmbH/MATH-lighteval", "hendrycks_math"),
        ("HuggingFaceH4/MATH-500", "hendrycks_math"),
        ("math_dapo", "math_dapo"),
        ("math", "math_dapo"),
        ("math_dapo_reasoning", "math_dapo"),
        ("aime2024", "math_dapo"),
        ("aime", "math_dapo"),
        ("numina_olympiads", "prime_math"),
        ("numina_cn_k12", "prime_math"),
        ("hiyouga/geometry3k", "geo3k"),
        ("searchR1_nq", "search_r1_qa"),
        ("searchR1_bamboogle", "search_r1_qa"),
        ("math_verify", "math_verify"),
        ("codecontests", "code"),
        ("apps", "code"),
        ("codeforces", "code"),
        ("taco", "code"),
    ],
)
def test_verl_routing_table(source, scorer):
    assert ROUTES.resolve(source).scorer == scorer


def test_route_table_exact_beats_prefix_and_longest_prefix_wins():
    table = RouteTable(
        [Route("ab", "short", prefix=True), Route("abc", "long", prefix=True), Route("abx", "exact")]
    )
    assert table.resolve("abcd").scorer == "long"
    assert table.resolve("abz").scorer == "short"
    assert table.resolve("abx").scorer == "exact"
    with pytest.raises(UnknownTaskError):
        table.resolve("zz")


class Always(Scorer):
    name = "always"

    def __init__(self, value: float = 1.0) -> None:
        self.value = value

    def score(self, sample: Sample) -> Score:
        return Score(self.value)


def test_users_extend_routing_without_editing_the_library():
    rewardloop.register_scorer("test_always", Always)
    try:
        rewardloop.register_route("my_source", "test_always", value=0.5)
        rewardloop.register_route("mine_", "test_always", prefix=True)
        assert rewardloop.default_compute_score("my_source", "x", "y") == 0.5
        assert rewardloop.default_compute_score("mine_42", "x", "y") == 1.0
        assert resolve_scorer("my_source") is get_scorer("test_always", value=0.5)
        with pytest.raises(UnknownScorerError, match="Known scorers"):
            rewardloop.register_route("other", "no_such_scorer")
        with pytest.raises(ConfigError, match="bad options"):
            get_scorer("test_always", nonsense=1)
    finally:
        ROUTES.remove("my_source")
        ROUTES.remove("mine_", prefix=True)
        rewardloop.scorers._registry.SCORERS.unregister("test_always")


def test_plain_function_registered_as_scorer():
    rewardloop.register_scorer("test_len", lambda s: float(len(s.response)))
    try:
        assert rewardloop.score(Sample("abc"), "test_len").value == 3.0
    finally:
        rewardloop.scorers._registry.SCORERS.unregister("test_len")


def test_broken_plugin_is_a_config_error_naming_it():
    reg: Registry = Registry("scorer")
    reg.register("broken", "no_such_module_xyz:Thing")
    with pytest.raises(ConfigError, match="scorer 'broken' could not be loaded"):
        reg.get("broken")

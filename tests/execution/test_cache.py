"""De-duplication keys (canonical encoding of unhashable values) and the bounded, thread-safe LRU cache."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from rewardloop.execution._cache import LRUCache, Unkeyable, canonical, sample_key, scorer_fingerprint
from rewardloop.scorers.gsm8k import GSM8KScorer
from rewardloop.types import Sample, Score

from . import _tasks

FP = "fingerprint"


def key(**fields):
    return sample_key(FP, Sample(**{"response": "r", **fields}))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (1, 1.0),
        (1, "1"),
        (1, True),
        (0, None),
        ("", None),
        ([1, 2], (1, 2)),
        ([1, 2], [2, 1]),
        ({"a": 1}, {"a": "1"}),
        ("ab", ["a", "b"]),
        (b"x", "x"),
        ({1, 2}, [1, 2]),
        (np.array([1, 2]), np.array([1, 2], dtype=np.int8)),
        (np.array([1, 2]), np.array([[1, 2]])),
        (np.array([1.0]), [1.0]),
        (["a", "bc"], ["ab", "c"]),  # length-prefixed strings: no concatenation ambiguity
    ],
)
def test_different_ground_truths_get_different_keys(a, b):
    assert key(ground_truth=a) != key(ground_truth=b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"a": 1, "b": [1, {"c": 2}]}, {"b": [1, {"c": 2}], "a": 1}),  # dict order does not matter
        ({3, 1, 2}, {1, 2, 3}),
        (np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3)),
        (np.array(["x", {"k": 1}], dtype=object), np.array(["x", {"k": 1}], dtype=object)),
        (float("nan"), float("nan")),
        ({"x": np.float64(0.5)}, {"x": 0.5}),  # numpy float64 is a float
    ],
)
def test_equal_unhashable_values_get_equal_keys(a, b):
    assert key(ground_truth=a) == key(ground_truth=b) is not None


def test_every_identity_field_participates_but_uid_does_not():
    base = key(ground_truth="1", task="t", metadata={"index": 0}, prompt="p", uid="u1")
    assert base == key(ground_truth="1", task="t", metadata={"index": 0}, prompt="p", uid="u2")
    assert base != key(ground_truth="1", task="t2", metadata={"index": 0}, prompt="p")
    assert base != key(ground_truth="1", task="t", metadata={"index": 1}, prompt="p")
    assert base != key(ground_truth="1", task="t", metadata={"index": 0}, prompt=[{"role": "user"}])
    assert base != sample_key(FP, Sample("r2", "1", "t", "p", {"index": 0}))
    assert base != sample_key("other scorer", Sample("r", "1", "t", "p", {"index": 0}))


def test_unfaithful_values_give_no_key():
    cyclic: list = []
    cyclic.append(cyclic)
    deep: list = []
    node = deep
    for _ in range(100):
        node.append([])
        node = node[0]
    assert key(ground_truth=cyclic) is None
    assert key(ground_truth=deep) is None
    assert key(ground_truth=object()) is None  # default repr holds an address that may be reused
    assert key(metadata={"fn": lambda: 0}) is None
    with pytest.raises(Unkeyable):
        canonical(object())


def test_value_objects_are_keyed_by_repr():
    from fractions import Fraction

    assert key(ground_truth=Fraction(1, 2)) == key(ground_truth=Fraction(2, 4))
    assert key(ground_truth=Fraction(1, 2)) != key(ground_truth=0.5)


def test_keys_survive_odd_text():
    assert key(response="\ud800 lone surrogate") != key(response="x")
    assert key(response="é" * 100_000) is not None


def test_scorer_fingerprint_reflects_class_and_options(tmp_path):
    a = _tasks.CountingScorer(tmp_path / "a")
    assert scorer_fingerprint(a) == scorer_fingerprint(_tasks.CountingScorer(tmp_path / "a"))
    assert scorer_fingerprint(a) != scorer_fingerprint(_tasks.CountingScorer(tmp_path / "b"))
    assert scorer_fingerprint(_tasks.NoopScorer()) != scorer_fingerprint(_tasks.NoopProcessScorer())
    assert scorer_fingerprint(GSM8KScorer()) is not None
    assert scorer_fingerprint(_tasks.NondeterministicScorer()) is None


def test_non_data_options_are_keyed_by_identity():
    first, second = _tasks.ClockScorer(clock=lambda: 0.0), _tasks.ClockScorer(clock=lambda: 0.0)
    assert scorer_fingerprint(first) != scorer_fingerprint(second)  # two different clock functions
    assert scorer_fingerprint(first) == scorer_fingerprint(first)


def test_lru_evicts_least_recently_used_and_pins_its_scorer():
    cache = LRUCache(2)
    scorer = _tasks.NoopScorer()
    cache.put("a", Score(1.0), scorer)
    cache.put("b", Score(2.0))
    assert cache.get("a").value == 1.0  # "a" is now most recent
    cache.put("c", Score(3.0))
    assert "b" not in cache and "a" in cache and "c" in cache
    assert len(cache) == 2 and cache.get("b") is None
    assert (cache.hits, cache.misses) == (1, 1)
    assert cache._data["a"][0] is scorer
    cache.clear()
    assert len(cache) == 0
    with pytest.raises(ValueError):
        LRUCache(0)


def test_lru_is_thread_safe_and_bounded():
    cache = LRUCache(50)
    errors = []

    def hammer(t):
        try:
            for i in range(2000):
                cache.put(f"{t}-{i % 80}", Score(float(i)))
                cache.get(f"{(t + 1) % 4}-{i % 80}")
        except Exception as exc:  # pragma: no cover - the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=hammer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(cache) == 50

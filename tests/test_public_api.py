"""Guards the public surface: a curated, sorted __all__ and a cheap import."""

import json
import subprocess
import sys

import rewardloop

EXPECTED = {
    "ConfigError",
    "CustomFunctionError",
    "InfraError",
    "InvalidSampleError",
    "MissingExtraError",
    "RateLimited",
    "RayRunner",
    "RewardConfig",
    "RewardLoopError",
    "RewardManager",
    "Runner",
    "RunnerConfig",
    "Sample",
    "Score",
    "ScoreBatch",
    "Scorer",
    "ScoringError",
    "ScoringTimeout",
    "Status",
    "UnknownScorerError",
    "UnknownTaskError",
    "WorkerCrashed",
    "__version__",
    "as_scorer",
    "default_compute_score",
    "get_scorer",
    "load_reward_config",
    "register_route",
    "register_scorer",
    "score",
    "score_many",
}


def test_all_is_sorted_and_curated():
    assert rewardloop.__all__ == sorted(rewardloop.__all__)
    assert set(rewardloop.__all__) == EXPECTED


def test_every_public_name_resolves():
    for name in rewardloop.__all__:
        assert getattr(rewardloop, name) is not None


def test_unknown_attribute_raises():
    try:
        rewardloop.does_not_exist  # noqa: B018
    except AttributeError as exc:
        assert "does_not_exist" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_import_is_cheap():
    code = (
        "import sys, json, rewardloop; "
        "heavy = ['torch', 'ray', 'fastapi', 'transformers', 'sympy', 'numpy', 'math_verify', 'pyarrow']; "
        "print(json.dumps([m for m in heavy if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_managers_and_verl_facades_import_cheaply():
    code = (
        "import sys, json, rewardloop.managers, rewardloop.integrations.verl, rewardloop.config; "
        "heavy = ['torch', 'ray', 'fastapi', 'transformers', 'numpy', 'yaml', 'omegaconf']; "
        "print(json.dumps([m for m in heavy if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def _public_modules() -> list[str]:
    """rewardloop and every module or package under it whose dotted name has no private part."""
    import pkgutil

    names = ["rewardloop"]
    for info in pkgutil.walk_packages(rewardloop.__path__, "rewardloop."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def test_no_two_public_classes_share_a_name():
    # one name, one class: `from rewardloop.x import Router` must never mean two things (issue 24)
    import importlib
    import inspect
    from collections import defaultdict

    homes: dict[str, set[str]] = defaultdict(set)
    walked = []
    for name in _public_modules():
        module = importlib.import_module(name)
        walked.append(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isclass(obj):
                homes[attr].add(f"{obj.__module__}.{obj.__qualname__}")
    shared = {name: sorted(where) for name, where in homes.items() if len(where) > 1}
    assert not shared, shared
    # the walk saw the subpackages, so an empty result means something
    for expected in (
        "rewardloop.models",
        "rewardloop.managers",
        "rewardloop.config",
        "rewardloop.integrations.verl",
    ):
        assert expected in walked


def test_renamed_classes_keep_their_old_names_with_a_warning():
    import warnings

    import rewardloop.managers
    import rewardloop.models
    import rewardloop.scorers.math_equiv

    for module, old, new in (
        (rewardloop.models, "RewardModelConfig", "RewardModelServerConfig"),
        (rewardloop.managers, "Router", "TaskRouter"),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(module, old) is getattr(module, new)
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught)
        assert old not in module.__all__
    # math_equiv keeps its old name as a plain alias (its own code and other branches still use it)
    assert rewardloop.scorers.math_equiv.Verdict is rewardloop.scorers.math_equiv.MathVerdict
    assert "Verdict" not in rewardloop.scorers.math_equiv.__all__


def _signatures():
    """(qualified name, signature) of every public function, class constructor and public method."""
    import importlib
    import inspect

    for module_name in _public_modules():
        module = importlib.import_module(module_name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if inspect.isclass(obj):
                members = [("__init__", obj.__init__)] + [
                    (n, m) for n, m in vars(obj).items() if not n.startswith("_") and inspect.isfunction(m)
                ]
                for name, fn in members:
                    if inspect.isfunction(fn):
                        yield f"{obj.__module__}.{obj.__qualname__}.{name}", inspect.signature(fn)
            elif inspect.isfunction(obj):
                yield f"{obj.__module__}.{obj.__qualname__}", inspect.signature(obj)


# execution/ is being reworked (issue 24: score_one and WorkerPool on the one scheduler); their `timeout`
# moves to `timeout_s` there
_TIMEOUT_PENDING = {
    "rewardloop.execution._single.score_one",
    "rewardloop.execution._workers.WorkerPool.acall",
    "rewardloop.execution._workers.WorkerPool.call",
    "rewardloop.execution._workers.WorkerPool.submit",
}
# names that are not a duration we own: verl's config key (reward.timeout of its rate-limited manager), and
# an absolute time.monotonic() point
_TIMEOUT_OTHERS = {
    "rewardloop.config.RewardConfig.__init__",
    "rewardloop.models._manager.wait_healthy",
}


def test_deadlines_are_called_timeout_s_everywhere():
    # one name for a deadline in seconds; an old `timeout` stays only beside `timeout_s`, as its deprecated alias
    offenders = []
    for name, signature in _signatures():
        params = signature.parameters
        # the new name: connect_timeout_s beside connect_timeout, else any *timeout_s (request_timeout_s ...)
        for old in ("timeout", "deadline", "deadline_s", "connect_timeout"):
            beside = [
                p
                for p in params
                if p.endswith("timeout_s") and (old != "connect_timeout" or p.startswith("connect"))
            ]
            if old in params and not beside and name not in _TIMEOUT_PENDING | _TIMEOUT_OTHERS:
                offenders.append(f"{name}({old}=)")
    assert not offenders, offenders


# execution/ is being reworked (issue 24): the Runner's async core is `run` with `run_sync` as its facade,
# the one place the other convention survives until then; Composite's runner hooks are its protocol with it
_ASYNC_PENDING = {
    "rewardloop.execution._runner.Runner": {"run", "run_groups", "submit", "submit_group"},
    "rewardloop.execution._ray.RayRunner": {"run", "run_groups", "submit", "submit_group"},
    "rewardloop.managers._composite.Composite": {"run_with_runner", "submit_with_runner"},
    # an event-loop object whose sync half (reserve, settle, pause, idle) is the scheduler's bookkeeping
    "rewardloop.execution._limits.RateLimiter": {"acquire", "sleep"},
}


def test_one_sync_async_convention():
    # `name()` is sync and `aname()` its async twin (httpx, asyncio); an object that lives on an event loop
    # (the HTTP clients, AsyncRewardClient, the RM router, rate limiters) has async methods under plain names
    # and only small sync accessors beside them
    import importlib
    import inspect

    offenders = []
    for module_name in _public_modules():
        module = importlib.import_module(module_name)
        for attr in getattr(module, "__all__", ()):
            cls = getattr(module, attr)
            if not inspect.isclass(cls):
                continue
            public = {
                n: f for n, f in inspect.getmembers(cls) if not n.startswith("_") and inspect.isfunction(f)
            }
            is_async = {
                n
                for n, f in public.items()
                if inspect.iscoroutinefunction(f) or inspect.isasyncgenfunction(f)
            }
            sync = set(public) - is_async
            loop_object = cls.__name__.startswith("Async") or len(is_async) >= len(sync)
            pending = _ASYNC_PENDING.get(f"{cls.__module__}.{cls.__qualname__}", set())
            for name in sorted(is_async - pending):
                if not (name.startswith("a") and name[1:] in sync) and not loop_object:
                    offenders.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
            for name in sorted(sync):  # a sync method named like an async twin would read backwards
                if name.startswith("a") and name[1:] in is_async:
                    offenders.append(f"{cls.__module__}.{cls.__qualname__}.{name} (sync)")
    assert not offenders, offenders


def test_reward_manager_has_both_twins_of_score_one():
    from rewardloop import RewardManager, Sample

    with RewardManager("gsm8k") as manager:
        sample = Sample("#### 42", "42", "openai/gsm8k")
        assert manager.score_one(sample).value == 1.0
        assert manager.score_one(Sample("#### 41", "42", "openai/gsm8k")).value == 0.0

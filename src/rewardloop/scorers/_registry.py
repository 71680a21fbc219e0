"""The scorer registry and the task routing table: which scorer handles which task (verl: ``data_source``).

The routing table is data. Built-in routes reproduce verl's ``default_compute_score`` dispatch; users add
exact names and prefixes at run time (:func:`register_route`, ``rewardloop score --route``) or from an
installed package (entry point group ``rewardloop.routes``, each entry a ``"module:attr"`` mapping of
task -> scorer name), without editing the library. Resolution: exact name, then the longest matching prefix.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from ..errors import ConfigError, UnknownTaskError
from ..registry import Registry, load_object
from ._base import Scorer, as_scorer

__all__ = [
    "ROUTES",
    "SCORERS",
    "Route",
    "RouteTable",
    "get_scorer",
    "register_route",
    "register_scorer",
    "resolve_scorer",
]

SCORERS: Registry[Any] = Registry("scorer", entry_point_group="rewardloop.scorers")

_BUILTIN_SCORERS = {
    "gsm8k": "rewardloop.scorers.gsm8k:GSM8KScorer",
    "hendrycks_math": "rewardloop.scorers.hendrycks_math:HendrycksMathScorer",
    "math_dapo": "rewardloop.scorers.math_dapo:DapoMathScorer",
    "prime_math": "rewardloop.scorers.prime_math:PrimeMathScorer",
    "math_verify": "rewardloop.scorers.mathverify:MathVerifyScorer",
    "math_equiv": "rewardloop.scorers.math_equiv:MathEquivScorer",
    "geo3k": "rewardloop.scorers.geo3k:Geo3KScorer",
    "search_r1_qa": "rewardloop.scorers.qa_em:SearchR1QAScorer",
    "qa_equiv": "rewardloop.scorers.qa_equiv:QAEquivScorer",  # opt-in: route_qa_sources() or --route
    "code": "rewardloop.scorers.code:CodeScorer",
    "reward_model": "rewardloop.scorers.reward_model:RewardModelScorer",
    "judge": "rewardloop.scorers.judge:JudgeScorer",
    "group_relative": "rewardloop.scorers._group:GroupRelative",
    "pairwise_judge": "rewardloop.scorers._group:PairwiseJudge",
    "listwise_judge": "rewardloop.scorers._group:ListwiseJudge",
    # the shaping library (open-r1's format and length terms), usable as reward.components
    "format": "rewardloop.shaping._format:FormatReward",
    "code_format": "rewardloop.shaping._format:CodeFormatReward",
    "tag_count": "rewardloop.shaping._format:TagCountReward",
    "reasoning_steps": "rewardloop.shaping._format:ReasoningStepsReward",
    "repetition_penalty": "rewardloop.shaping._repetition:RepetitionPenalty",
    "group_length": "rewardloop.shaping._length:GroupLengthReward",
}
for _name, _target in _BUILTIN_SCORERS.items():
    SCORERS.register(_name, _target)


def register_scorer(name: str, scorer: Any = None, *, overwrite: bool = False) -> Any:
    """Register a :class:`Scorer` subclass, instance, or ``fn(sample)`` under ``name`` (usable as a decorator)."""
    return SCORERS.register(name, scorer, overwrite=overwrite)


_instances: dict[tuple[str, tuple[tuple[str, Any], ...]], Scorer] = {}
_instances_lock = threading.Lock()


def get_scorer(name: str, **options: Any) -> Scorer:
    """A scorer instance for a registered name; instances are cached per (name, options)."""
    try:
        key = (name, tuple(sorted(options.items())))
        hash(key)
    except TypeError:  # unhashable option values: build a fresh instance
        return _build(name, options)
    with _instances_lock:
        found = _instances.get(key)
    if found is None:
        found = _build(name, options)
        with _instances_lock:
            _instances.setdefault(key, found)
    return found


def _build(name: str, options: Mapping[str, Any]) -> Scorer:
    return build_scorer(SCORERS.get(name), options, name)


def build_scorer(target: Any, options: Mapping[str, Any], name: str) -> Scorer:
    """A Scorer class built with ``options``, or an instance / function adapted as it is (no options)."""
    if isinstance(target, type) and issubclass(target, Scorer):
        try:
            return target(**options)
        except TypeError as exc:
            raise ConfigError(f"bad options for scorer {name!r}: {exc}") from exc
    if options:
        raise ConfigError(f"scorer {name!r} is an instance/function and takes no options")
    return as_scorer(target, name=name)


@dataclass(frozen=True)
class Route:
    """Route ``pattern`` (an exact task name, or a prefix) to scorer ``scorer`` built with ``options``."""

    pattern: str
    scorer: str
    options: Mapping[str, Any] = field(default_factory=dict)
    prefix: bool = False


class RouteTable:
    """Task -> scorer routes. Thread-safe; exact routes win over prefixes; the longest prefix wins."""

    def __init__(self, routes: list[Route] | None = None, entry_point_group: str | None = None) -> None:
        self._exact: dict[str, Route] = {}
        self._prefix: dict[str, Route] = {}
        self._lock = threading.Lock()
        self._entry_point_group = entry_point_group
        self.version = 0  # bumped on every change, so callers may cache resolutions
        for route in routes or []:
            self.add(route)

    def add(self, route: Route, *, overwrite: bool = True) -> None:
        if not route.pattern or not isinstance(route.pattern, str):
            raise ConfigError(f"a route needs a non-empty task name or prefix, got {route.pattern!r}")
        table = self._prefix if route.prefix else self._exact
        with self._lock:
            if not overwrite and route.pattern in table:
                raise ConfigError(
                    f"task {route.pattern!r} is already routed to {table[route.pattern].scorer!r}"
                )
            table[route.pattern] = route
            self.version += 1

    def remove(self, pattern: str, *, prefix: bool = False) -> None:
        with self._lock:
            (self._prefix if prefix else self._exact).pop(pattern, None)
            self.version += 1

    def resolve(self, task: object) -> Route:
        """The route for ``task``; unknown tasks raise :class:`UnknownTaskError` (a ``NotImplementedError``)."""
        self._load_entry_points()
        if isinstance(task, str):
            route = self._exact.get(task)
            if route is not None:
                return route
            matches = [r for p, r in self._prefix.items() if task.startswith(p)]
            if matches:
                return max(matches, key=lambda r: len(r.pattern))
        known = [*self._exact, *(p + "*" for p in self._prefix)]
        raise UnknownTaskError(task, known)

    def routes(self) -> list[Route]:
        self._load_entry_points()
        with self._lock:
            return [
                *sorted(self._exact.values(), key=lambda r: r.pattern),
                *sorted(self._prefix.values(), key=lambda r: r.pattern),
            ]

    def _load_entry_points(self) -> None:
        group, self._entry_point_group = self._entry_point_group, None
        if group is None:
            return
        for ep in entry_points(group=group):
            mapping = load_object(ep.value)
            for task, scorer in dict(mapping).items():
                self.add(Route(task, scorer), overwrite=False)


def _builtin_routes() -> list[Route]:
    table: list[tuple[str, str, bool]] = [
        ("openai/gsm8k", "gsm8k", False),
        ("lighteval/MATH", "hendrycks_math", False),
        ("DigitalLearningGmbH/MATH-lighteval", "hendrycks_math", False),
        ("HuggingFaceH4/MATH-500", "hendrycks_math", False),
        ("math_dapo", "math_dapo", False),
        ("math", "math_dapo", False),
        ("math_dapo_reasoning", "math_dapo", False),
        ("aime", "math_dapo", True),
        ("hiyouga/geometry3k", "geo3k", False),
        ("math_verify", "math_verify", False),
    ]
    for suffix in ("aops_forum", "synthetic_math", "amc_aime", "synthetic_amc", "cn_k12", "olympiads"):
        table.append((f"numina_{suffix}", "prime_math", False))
    for suffix in ("nq", "triviaqa", "popqa", "hotpotqa", "2wikimultihopqa", "musique", "bamboogle"):
        table.append((f"searchR1_{suffix}", "search_r1_qa", False))
    routes = [Route(pattern, scorer, prefix=prefix) for pattern, scorer, prefix in table]
    # verl scores these with continuous=True (a sample failing a test gets the pass rate of the first 10 tests,
    # prime_code's second pass) and accepts outputs equal within numpy's allclose; max_tests: null in a
    # config's reward.routes counts every test instead
    code_options = {"continuous": True, "float_tol": 1e-5, "max_tests": 10}
    routes += [Route(s, "code", code_options) for s in ("codecontests", "apps", "codeforces", "taco")]
    # not in verl: the names `rewardloop prepare humaneval|mbpp` writes (tests in the HumanEval/MBPP layouts)
    routes += [Route(s, "code", {"continuous": True}) for s in ("humaneval", "mbpp")]
    return routes


ROUTES = RouteTable(_builtin_routes(), entry_point_group="rewardloop.routes")


def register_route(task: str, scorer: str, *, prefix: bool = False, **options: Any) -> None:
    """Route ``task`` (or every task starting with it, when ``prefix``) to the registered scorer ``scorer``."""
    if scorer not in SCORERS:
        SCORERS.get(scorer)  # raises UnknownScorerError listing the known names
    ROUTES.add(Route(task, scorer, dict(options), prefix=prefix))


_resolved: dict[str, tuple[int, Scorer]] = {}


def resolve_scorer(task: object) -> Scorer:
    """The scorer instance that handles ``task`` (memoised per task until the routing table changes)."""
    version = ROUTES.version
    hit = _resolved.get(task) if isinstance(task, str) else None
    if hit is not None and hit[0] == version:
        return hit[1]
    route = ROUTES.resolve(task)
    scorer = get_scorer(route.scorer, **route.options)
    if isinstance(task, str) and len(_resolved) < 10_000:
        _resolved[task] = (version, scorer)
    return scorer

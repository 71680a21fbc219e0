"""``Composite``: several scorers with weights, one reward, each component's score kept as a metric.

``Composite([("acc", get_scorer("math_dapo"), 1.0), ("fmt", format_scorer, 0.2)])`` scores every sample
with every component and reports:

* ``value``: the weighted sum ``sum(weight * component value)`` over the components that scored;
* metrics ``<name>`` (the component's value, float; ``None`` when it failed) and ``<name>_status``
  (``ok`` or the component's failure status, str) for every component, so verl's GDPO keys
  (``algorithm.gdpo_reward_keys: [acc, fmt]``) and TRL's per-function ``reward_weights`` can read each
  component separately; a component's own metrics are kept as ``<name>/<key>``;
* :attr:`Composite.metric_types` declares all of those keys with their types, which is how the verl facade
  puts them into its fixed extra-info schema (every sample carries them, failed ones with fillers).

The failure policy applies per component. A failed component is never a silent 0 in the total:

* a **required** component (the default) that fails makes the whole sample fail with *that component's
  status* (``timeout``, ``infra_error`` ...; the first failed component in order), ``info["error"]`` naming
  the component; the other components' values and statuses stay in ``metrics``. The runner's failure policy
  (``on_error``) then decides the reward, as for any failed sample;
* an **optional** component that fails is left out of the total (the sample stays ``ok``);
  ``<name>_status`` records the failure and ``info["missing"]`` lists it.

Execution: in a batch (:meth:`run_with_runner`, what :class:`~rewardloop.RewardManager` and
:meth:`Runner.run <rewardloop.Runner.run>` call) each component scores the whole batch through the runner,
concurrently, so each keeps its own execution mode, deadline, isolation, retries and de-duplication (a sympy
component still runs in killable worker processes). One sample at a time (:meth:`submit_with_runner`,
the streaming path) each component is submitted to the runner. :meth:`score` (direct calls outside a
runner) scores the components one after another with
:func:`~rewardloop.execution._single.score_one`, which isolates process components under their deadline.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..config import _COMPONENT_KEYS
from ..errors import ConfigError, ScoringError
from ..execution import batch_stats, score_one
from ..execution import failure_error as _failure_error
from ..scorers import Scorer, as_scorer
from ..types import Sample, Score, ScoreBatch, Status

__all__ = ["Component", "Composite", "composite_from_config"]


@dataclass(frozen=True)
class Component:
    """One term of a :class:`Composite`: ``weight * scorer(sample)``, reported under ``name``."""

    name: str
    scorer: Scorer
    weight: float = 1.0
    optional: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or "/" in self.name:
            raise ConfigError(f"a component needs a non-empty name without '/', got {self.name!r}")
        object.__setattr__(self, "scorer", as_scorer(self.scorer))
        weight = self.weight
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight):
            raise ConfigError(f"component {self.name!r}: weight must be a finite number, got {weight!r}")
        object.__setattr__(self, "weight", float(weight))


ComponentLike = Component | tuple[Any, ...] | Mapping[str, Any]


class Composite(Scorer):
    """A weighted sum of scorers; see the module docstring for metrics and the failure policy.

    ``components``: :class:`Component` objects or tuples ``(name, scorer, weight[, optional])`` (``scorer``
    a :class:`Scorer`, ``fn(sample)`` or a registered name). Names must be unique.
    """

    name = "composite"
    execution = "inline"  # score() hands process components to score_one, which isolates them

    def __init__(self, components: Iterable[ComponentLike], *, name: str = "composite") -> None:
        parts = [_component(c) for c in components]
        if not parts:
            raise ConfigError("a Composite needs at least one component")
        names = [c.name for c in parts]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ConfigError(f"component names must be unique; repeated: {', '.join(dupes)}")
        self.components: tuple[Component, ...] = tuple(parts)
        self.name = name  # type: ignore[misc]
        # a composite is as deterministic as its least deterministic part
        self.deterministic = all(getattr(c.scorer, "deterministic", True) for c in parts)  # type: ignore[misc]
        self.metric_types = self._metric_types()  # type: ignore[misc]
        self.metric_keys = tuple(self.metric_types)  # type: ignore[misc]

    def _metric_types(self) -> dict[str, type]:
        kinds: dict[str, type] = {}
        for c in self.components:
            kinds[c.name] = float
            kinds[f"{c.name}_status"] = str
        for c in self.components:
            own = dict(getattr(c.scorer, "metric_types", None) or {})
            for key in getattr(c.scorer, "metric_keys", ()) or ():
                own.setdefault(key, float)
            for key, kind in own.items():
                kinds.setdefault(f"{c.name}/{key}", kind)
        return kinds

    def __repr__(self) -> str:
        terms = " + ".join(f"{c.weight:g}*{c.name}" for c in self.components)
        return f"<Composite {terms}>"

    # -- combining -----------------------------------------------------------------------------------

    def combine(self, parts: Sequence[Score]) -> Score:
        """The composite :class:`Score` from one score per component (in component order)."""
        metrics: dict[str, Any] = {}
        total, missing, failed = 0.0, [], None
        for c, s in zip(self.components, parts, strict=True):
            metrics[c.name] = s.value if s.ok else None
            metrics[f"{c.name}_status"] = s.status.value
            for key, value in s.metrics.items():
                metrics[f"{c.name}/{key}"] = value
            if s.ok:
                total += c.weight * float(s.value)  # type: ignore[arg-type]
            elif c.optional:
                missing.append(c.name)
            elif failed is None:
                failed = (c, s)
        info: dict[str, Any] = {}
        broken = {c.name: _brief(s) for c, s in zip(self.components, parts, strict=True) if not s.ok}
        if broken:
            info["components"] = broken
        if missing:
            info["missing"] = missing
        if failed is not None:
            c, s = failed
            error = f"component {c.name!r} failed with status {s.status.value}: {s.info.get('error')}"
            return Score(None, s.status, metrics, {**info, "error": error, "failed_component": c.name})
        return Score(total, Status.OK, metrics, info)

    # -- execution -----------------------------------------------------------------------------------

    def score(self, sample: Sample) -> Score:
        """Each component in turn through :func:`score_one` (process components isolated, with deadlines)."""
        return self.combine([score_one(c.scorer, sample, timing=False) for c in self.components])

    async def run_with_runner(
        self,
        runner: Any,
        samples: Sequence[Sample],
        *,
        on_done: Callable[[int], None] | None = None,
    ) -> ScoreBatch:
        """Score a batch: every component over the whole batch through ``runner``, concurrently."""
        t0 = time.perf_counter()
        samples = list(samples)
        batches = await asyncio.gather(*(_run_keeping(runner, c.scorer, samples) for c in self.components))
        n = len(samples)
        values, statuses, infos = self._rows(batches, n)
        if on_done is not None:
            for i in range(n):
                on_done(i)
        timed = [b for b in batches if b.exec_s]
        exec_s = [sum(b.exec_s[i] for b in timed) for i in range(n)]
        latency = [max((b.queue_s[i] + b.exec_s[i] for b in timed), default=0.0) for i in range(n)]
        stats = batch_stats(
            statuses,
            latencies=latency,
            exec_times=exec_s,
            wall_s=time.perf_counter() - t0,
            unique=n,
            retries=sum(int(b.stats.get("retries", 0) or 0) for b in batches),
        )
        stats["components"] = {c.name: dict(b.stats) for c, b in zip(self.components, batches, strict=True)}
        on_error = runner.config.on_error
        result = ScoreBatch(
            values=tuple(values),
            statuses=tuple(statuses),
            metrics=self._columns(batches),
            infos=tuple(infos),
            queue_s=tuple(round(max(0.0, lat - ex), 6) for lat, ex in zip(latency, exec_s, strict=True)),
            exec_s=tuple(round(ex, 6) for ex in exec_s),
            stats=stats,
            on_error=None if on_error == "raise" else on_error,
        )
        if on_error == "raise" and result.num_failed:
            first = next(i for i, st in enumerate(statuses) if st is not Status.OK)
            err = _failure_error(result[first], samples[first], first, result.num_failed, n)
            err.batch = result  # type: ignore[attr-defined]
            raise err
        return result

    def _rows(
        self, batches: Sequence[ScoreBatch], n: int
    ) -> tuple[list[float | None], list[Status], list[dict[str, Any]]]:
        """Totals, statuses and infos per sample, columnar: rows where every component is ok are summed
        directly; only rows with a failure go through :meth:`combine`."""
        weights = [c.weight for c in self.components]
        values: list[float | None] = []
        statuses: list[Status] = []
        infos: list[dict[str, Any]] = []
        ok = Status.OK
        for i in range(n):
            if all(b.statuses[i] is ok for b in batches):
                total = 0.0
                for w, b in zip(weights, batches, strict=True):
                    total += w * b.values[i]  # type: ignore[operator]
                values.append(total)
                statuses.append(ok)
                infos.append({})
                continue
            score = self.combine([b[i] for b in batches])
            values.append(score.value)
            statuses.append(score.status)
            infos.append(dict(score.info))
        return values, statuses, infos

    def _columns(self, batches: Sequence[ScoreBatch]) -> dict[str, tuple[Any, ...]]:
        """The metric columns: ``<name>`` (None where the component failed), ``<name>_status``, ``<name>/<key>``."""
        ok = Status.OK
        columns: dict[str, tuple[Any, ...]] = {}
        for c, b in zip(self.components, batches, strict=True):
            columns[c.name] = tuple(
                v if st is ok else None for v, st in zip(b.values, b.statuses, strict=True)
            )
            columns[f"{c.name}_status"] = tuple(st.value for st in b.statuses)
            for key, column in b.metrics.items():
                columns[f"{c.name}/{key}"] = column
        return columns

    async def submit_with_runner(self, runner: Any, sample: Sample) -> Score:
        """Score one sample (streaming): each component submitted to ``runner``, concurrently.

        With ``on_error="raise"`` the runner raises for any failed component, optional ones included (one
        sample at a time there is no batch to keep, so the composite cannot decide per component first).
        """
        # components that leave the event loop start first and overlap; inline ones then run in turn (a task
        # per inline component costs more than the component itself)
        outside = {
            j: asyncio.ensure_future(runner.submit(c.scorer, sample))
            for j, c in enumerate(self.components)
            if not _runs_inline(c.scorer)
        }
        parts: list[Score | None] = [None] * len(self.components)
        try:
            for j, c in enumerate(self.components):
                if j not in outside:
                    parts[j] = await runner.submit(c.scorer, sample)
            for j, task in outside.items():
                parts[j] = await task
        except BaseException:
            for task in outside.values():
                task.cancel()
            raise
        return self.combine(parts)  # type: ignore[arg-type]


def _runs_inline(scorer: Scorer) -> bool:
    if getattr(scorer, "is_async", None) or asyncio.iscoroutinefunction(getattr(scorer, "ascore", None)):
        return False
    return getattr(scorer, "execution", "inline") == "inline" and not hasattr(scorer, "submit_with_runner")


def _brief(score: Score) -> dict[str, Any]:
    out: dict[str, Any] = {"status": score.status.value}
    if not score.ok and score.info.get("error"):
        out["error"] = score.info["error"]
    return out


async def _run_keeping(runner: Any, scorer: Scorer, samples: list[Sample]) -> ScoreBatch:
    """``runner.run``, keeping the batch when ``on_error="raise"`` raises: the composite decides per component
    (an optional component's failure must not raise) and applies the policy to the combined scores."""
    try:
        return cast("ScoreBatch", await runner.run(scorer, samples))
    except ScoringError as exc:
        batch = getattr(exc, "batch", None)
        if batch is None:
            raise
        return cast("ScoreBatch", batch)


def _component(spec: ComponentLike) -> Component:
    if isinstance(spec, Component):
        return spec
    if isinstance(spec, Mapping):
        return component_from_dict(spec)
    if isinstance(spec, tuple | list) and 2 <= len(spec) <= 4:
        name, scorer, *rest = spec
        if isinstance(scorer, str):
            from ..scorers import get_scorer

            scorer = get_scorer(scorer)
        return Component(name, scorer, *rest)
    raise ConfigError(
        f"a component is a Component, a mapping or a tuple (name, scorer, weight[, optional]); got {spec!r:.80}"
    )


def component_from_dict(spec: Mapping[str, Any], where: str = "component") -> Component:
    """A component from config: ``{scorer: NAME, options: {...}}`` (a registered scorer, or a Scorer by
    ``"module:attr"`` / ``"file.py:attr"``) or
    ``{path: FILE.py, function: NAME, reward_kwargs: {...}}`` (a custom reward function), plus ``weight``
    (default 1.0), ``optional`` (default False) and ``name`` (default: the scorer or function name)."""
    unknown = sorted(set(map(str, spec)) - set(_COMPONENT_KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(_COMPONENT_KEYS)}"
        )
    if ("scorer" in spec) == ("path" in spec):
        raise ConfigError(f"{where}: give exactly one of 'scorer' (a registered name) or 'path' (a .py file)")
    if "scorer" in spec:
        scorer: Scorer = _scorer_by_name(str(spec["scorer"]), dict(spec.get("options") or {}), where)
        default_name = str(spec["scorer"]).rsplit(":", 1)[-1]
    else:
        from ..scorers import CustomFunctionScorer, load_custom_function

        fn_name = str(spec.get("function") or "compute_score")
        fn = load_custom_function(str(spec["path"]), fn_name, dict(spec.get("reward_kwargs") or {}))
        scorer = CustomFunctionScorer(fn, name=fn_name)
        default_name = fn_name
    optional = spec.get("optional", False)
    if not isinstance(optional, bool):
        raise ConfigError(f"{where}.optional must be true or false, got {optional!r}")
    return Component(str(spec.get("name") or default_name), scorer, spec.get("weight", 1.0), optional)


def _scorer_by_name(name: str, options: dict[str, Any], where: str) -> Scorer:
    """A registered scorer, or a ``"module:attr"`` / ``"file.py:attr"`` Scorer class (built with ``options``),
    instance or function."""
    from ..registry import load_object
    from ..scorers import SCORERS, build_scorer, get_scorer

    if name in SCORERS or ":" not in name:
        return get_scorer(name, **options)
    try:
        target = load_object(name)
    except (ImportError, AttributeError, OSError) as exc:
        raise ConfigError(f"{where}.scorer: could not load {name!r}: {exc}") from exc
    try:
        return build_scorer(target, options, name.rsplit(":", 1)[-1])
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def composite_from_config(
    components: Sequence[Mapping[str, Any]], where: str = "reward.components"
) -> Composite:
    """The :class:`Composite` of verl's ``reward.components`` list (see :func:`component_from_dict`)."""
    return Composite([component_from_dict(c, f"{where}[{i}]") for i, c in enumerate(components)])


def with_group_size(components: Sequence[Mapping[str, Any]], size: int | None) -> tuple[dict[str, Any], ...]:
    """``components`` with ``options.group_size = size`` for each group scorer that sets none itself (how the
    verl facade passes the trainer's ``actor_rollout_ref.rollout.n`` to streamed group scorers)."""
    from ..scorers import SCORERS, GroupScorer

    out = []
    for spec in components:
        spec = dict(spec)
        name = str(spec.get("scorer", ""))
        target = SCORERS.get(name) if name in SCORERS else None
        options = dict(spec.get("options") or {})
        grouped = isinstance(target, type) and issubclass(target, GroupScorer)
        if size is not None and grouped and options.get("group_size") is None:
            spec["options"] = {**options, "group_size": size}
        out.append(spec)
    return tuple(out)


def check_group_runner(scorer: Scorer | None, runner: Any) -> None:
    """Group scorers (alone or as components) need a runner that gathers groups (``run_groups`` and
    ``submit_group``: the local :class:`~rewardloop.Runner` and ``RayRunner``); any other would score each
    member as a group of one, so it is refused here."""
    from ..scorers import GroupScorer

    parts = [c.scorer for c in scorer.components] if isinstance(scorer, Composite) else [scorer]
    grouped = [p for p in parts if isinstance(p, GroupScorer)]
    if grouped and not (hasattr(runner, "run_groups") and hasattr(runner, "submit_group")):
        raise ConfigError(
            f"{grouped[0]!r} is a group scorer: it needs a runner that gathers groups (Runner or RayRunner); "
            f"{type(runner).__name__} does not"
        )

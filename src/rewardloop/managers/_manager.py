"""``RewardManager``: scorer (or routing) + runner + shapers, the one object every facade is built on.

``RewardManager(scorer=None, runner=None, shapers=())`` scores :class:`~rewardloop.Sample` lists through its
runner (local :class:`~rewardloop.Runner` or :class:`~rewardloop.RayRunner`) and applies the shapers. With
``scorer=None`` each sample is routed by its ``task`` through the routing table; a sample whose task has no
route gets status ``invalid_input`` (the rest of the batch is scored). verl's managers, the HTTP service and
the CLI all use it; none of them re-implements scoring.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from .._groups import group_metrics
from ..config import RewardConfig, load_reward_config
from ..errors import ConfigError, UnknownTaskError
from ..execution import Closable, Runner, RunnerConfig
from ..scorers import Route, RouteTable, Scorer, as_scorer, get_scorer, resolve_scorer
from ..types import Sample, Score, ScoreBatch, Status
from ._shaping import OverlongPenalty, Shaper

__all__ = ["RewardManager", "TaskRouter"]

logger = logging.getLogger(__name__)

ScorerSpec = Scorer | str | Callable[[Sample], Any] | None


class TaskRouter:
    """Picks the scorer of each sample by its ``task`` (memoised per task): ``routes`` first (a config's
    ``reward.routes``, a command's ``--route``), then the global routing table.

    ``scorer_options`` are applied to the routed code scorers (``sandbox``, ``memory_mb``), which is how
    verl's ``sandbox_fusion`` settings reach them. Picklable.
    """

    def __init__(
        self, code_options: Mapping[str, Any] | None = None, routes: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        self.code_options = dict(code_options or {})
        self.routes = tuple(dict(r) for r in routes)
        self._memo: dict[Any, Scorer | UnknownTaskError] = {}
        self._table: RouteTable | None = None
        for route in self.routes:  # an unknown scorer or a bad option fails now, not once per sample
            get_scorer(route["scorer"], **route.get("options", {}))

    def __getstate__(self) -> dict[str, Any]:
        return {"code_options": self.code_options, "routes": self.routes, "_memo": {}, "_table": None}

    def resolve(self, task: Any) -> Scorer:
        """The scorer for ``task``; raises :class:`UnknownTaskError` when no route matches."""
        key = task if isinstance(task, str | None) else repr(task)
        found = self._memo.get(key)
        if found is None:
            try:
                found = self._options(self._resolve(task))
            except UnknownTaskError as exc:
                found = exc
            self._memo[key] = found
        if isinstance(found, UnknownTaskError):
            raise found
        return found

    def _resolve(self, task: Any) -> Scorer:
        if self.routes:
            if self._table is None:
                self._table = RouteTable(
                    [
                        Route(r["task"], r["scorer"], r.get("options", {}), bool(r.get("prefix")))
                        for r in self.routes
                    ]
                )
            try:
                route = self._table.resolve(task)
            except UnknownTaskError:
                pass
            else:
                return get_scorer(route.scorer, **route.options)
        return resolve_scorer(task)

    def _options(self, scorer: Scorer) -> Scorer:
        with_options = getattr(scorer, "with_options", None)
        if self.code_options and with_options is not None and scorer.name.startswith(("code", "prime_code")):
            return cast("Scorer", with_options(**self.code_options))
        return scorer


class RewardManager(Closable):
    """Scores samples: routing or one scorer, a runner, and shapers.

    ``scorer``: a :class:`Scorer`, a registered scorer name, ``fn(sample)``, or None to route each sample by
    its ``task``. ``runner``: a :class:`Runner` / :class:`RayRunner` (lent: not closed by :meth:`close`),
    or None for a private local runner built from ``runner_config``. ``shapers`` run in order on the scores.
    """

    def __init__(
        self,
        scorer: ScorerSpec = None,
        *,
        runner: Any = None,
        runner_config: Any = None,
        shapers: Sequence[Shaper] = (),
        router: TaskRouter | None = None,
        owns_runner: bool | None = None,
        monitors: Any = None,
    ) -> None:
        if isinstance(scorer, str):
            scorer = get_scorer(scorer)
        self.scorer: Scorer | None = None if scorer is None else as_scorer(scorer)
        self.router = router or TaskRouter()
        self.shapers = tuple(shapers)
        # a runner passed in is lent (not closed here) unless ``owns_runner`` says it was made for us
        self._owns_runner = runner is None if owns_runner is None else owns_runner
        self.runner = runner if runner is not None else Runner(runner_config)
        if self.scorer is not None:
            from ._composite import check_group_runner

            check_group_runner(self.scorer, self.runner)
        self.config: RewardConfig | None = None  # set by from_config
        self.last_batch: ScoreBatch | None = None
        self._last_samples: Sequence[Sample] | None = None
        # reward-hacking monitors (a rewardloop.monitors.MonitorSuite): flags in metrics, counts kept here
        self.monitors = monitors
        self.monitor_counters: Any = None
        self.last_monitor_report: Any = None
        if monitors is not None:
            from ..monitors import MonitorCounters

            self.monitor_counters = MonitorCounters()
        self._closed = False

    # -- construction from verl's reward config ------------------------------------------------------

    @classmethod
    def from_config(
        cls,
        config: RewardConfig | Mapping[str, Any] | Any = None,
        *,
        scorer: ScorerSpec = None,
        runner: Any = None,
        shaping: bool = True,
        rate_limits: bool = False,
        extra_call_kwargs: Mapping[str, Any] | None = None,
        isolate_custom_function: bool = True,
    ) -> RewardManager:
        """THE builder: the reward of a reward config (see :func:`~rewardloop.config.load_reward_config`).

        The CLI (``score --config``), the service, verl's managers and the TRL and OpenRLHF adapters all call
        it, so one config gives one reward everywhere (DESIGN §3.11). The scorer is ``scorer`` if given, else the
        ``components`` composite (:class:`Composite`), else the configured custom function (in worker
        processes unless ``isolate_custom_function=False``), else routing: ``reward.routes`` first, then the
        global routing table (with ``sandbox_fusion`` applied to code scorers). The runner follows ``backend``
        (``local`` or ``ray`` with ``num_workers`` actors) and ``runner``; ``rate_limits`` adds the
        ``rate_limited`` keys (``max_concurrent``, ``max_rpm``, ``max_tpm``, ``timeout``). ``shaping`` adds
        the overlong penalty when ``reward_kwargs.overlong_buffer_cfg.enable`` is set; ``reward.monitors``
        adds the monitor suite. ``extra_call_kwargs`` are passed to a custom function on every call (verl's
        ``reward_router_address`` / ``reward_model_tokenizer``). What a caller cannot apply (token lengths
        it does not have) is listed by :meth:`unapplied`.
        """
        cfg = load_reward_config(config)
        if scorer is None and cfg.components:
            from ._composite import composite_from_config

            scorer = composite_from_config(cfg.components)
        if scorer is None:
            scorer = custom_function_scorer(
                cfg, extra_call_kwargs, rate_limits=rate_limits, process=isolate_custom_function
            )
        shapers: list[Shaper] = []
        if shaping:
            penalty = OverlongPenalty.from_config(*cfg.overlong)
            if penalty is not None:
                shapers.append(penalty)
        owns = runner is None
        if owns:
            runner = runner_from_config(cfg, rate_limits=rate_limits)
        manager = cls(
            scorer,
            runner=runner,
            shapers=shapers,
            router=TaskRouter(code_options(cfg), cfg.routes),
            owns_runner=owns,
            monitors=monitors_from_config(cfg),
        )
        manager.config = cfg
        return manager

    def unapplied(self, *, lengths: bool) -> list[str]:
        """What this manager's config asks for that a caller without token lengths (``lengths=False``)
        cannot apply, one sentence each; an entry point refuses these or prints them (never drops them)."""
        out: list[str] = []
        if lengths:
            return out
        if any(isinstance(s, OverlongPenalty) for s in self.shapers):
            out.append(
                "reward_kwargs.overlong_buffer_cfg: the overlong penalty needs token lengths; without them no "
                "penalty is applied (info.overlong says so on each row)"
            )
        names = getattr(self.monitors, "names", None)
        if names is not None and "overlong_zone" in names:
            out.append(
                "reward.monitors: the overlong_zone monitor needs token lengths; it flags nothing without them"
            )
        return out

    # -- scoring -------------------------------------------------------------------------------------

    def scorer_for(self, sample: Sample) -> Scorer:
        """The scorer that will score ``sample`` (raises :class:`UnknownTaskError` for an unrouted task)."""
        return self.scorer if self.scorer is not None else self.router.resolve(sample.task)

    async def ascore(
        self,
        samples: Iterable[Sample],
        lengths: Sequence[int | None] | None = None,
        *,
        on_done: Callable[[int], None] | None = None,
    ) -> ScoreBatch:
        """Score a batch (input order kept) and apply the shapers; ``lengths`` are response lengths in tokens."""
        samples = list(samples)
        t0 = time.perf_counter()
        scorers, unrouted = self._route(samples)
        todo = [i for i in range(len(samples)) if i not in unrouted]
        if on_done is not None:
            for i in unrouted:
                on_done(i)
        done = None if on_done is None else (lambda j: on_done(todo[j]))
        routed = [s for i in todo if (s := scorers[i]) is not None]  # todo is the routed samples
        batch = await self.runner.run(routed, [samples[i] for i in todo], on_done=done)
        result = self._merge(samples, todo, batch, unrouted, lengths, time.perf_counter() - t0)
        self.last_batch = result
        return result

    def score(
        self,
        samples: Iterable[Sample],
        lengths: Sequence[int | None] | None = None,
        *,
        on_done: Callable[[int], None] | None = None,
    ) -> ScoreBatch:
        """:meth:`ascore` for synchronous code (works from any thread, including one running a loop)."""
        return self.runner.call_sync(self.ascore(list(samples), lengths, on_done=on_done))

    def score_one(self, sample: Sample, length: int | None = None) -> Score:
        """:meth:`ascore_one` for synchronous code (the sync twin, as :meth:`score` is :meth:`ascore`'s)."""
        return cast(Score, self.runner.call_sync(self.ascore_one(sample, length)))

    async def ascore_one(self, sample: Sample, length: int | None = None) -> Score:
        """Score one sample as soon as it arrives (streaming; the runner's ``submit`` path) and shape it."""
        try:
            scorer = self.scorer_for(sample)
        except UnknownTaskError as exc:
            return Score.failure(Status.INVALID_INPUT, str(exc))
        score = await self.runner.submit(scorer, sample)
        return self._monitor([sample], self._shape([score], [length]), [length])[0]

    def _route(self, samples: Sequence[Sample]) -> tuple[list[Scorer | None], dict[int, Score]]:
        scorers: list[Scorer | None] = []
        unrouted: dict[int, Score] = {}
        for i, sample in enumerate(samples):
            try:
                scorers.append(self.scorer_for(sample))
            except UnknownTaskError as exc:
                scorers.append(None)
                unrouted[i] = Score.failure(Status.INVALID_INPUT, str(exc))
        if unrouted:
            logger.warning("%d of %d samples have a task without a route", len(unrouted), len(samples))
        return scorers, unrouted

    def _merge(
        self,
        samples: Sequence[Sample],
        todo: Sequence[int],
        batch: ScoreBatch,
        unrouted: Mapping[int, Score],
        lengths: Sequence[int | None] | None,
        wall_s: float,
    ) -> ScoreBatch:
        n = len(samples)
        if not unrouted and not self.shapers and self.monitors is None:  # the runner's batch is the answer
            self._last_samples = samples
            return dataclasses.replace(
                batch, stats={**batch.stats, "wall_s": batch.stats.get("wall_s", wall_s)}
            )
        scores: list[Score] = [unrouted.get(i) for i in range(n)]  # type: ignore[misc]
        queue_s, exec_s = [0.0] * n, [0.0] * n
        for j, i in enumerate(todo):
            scores[i] = batch[j]
            if batch.queue_s:
                queue_s[i], exec_s[i] = batch.queue_s[j], batch.exec_s[j]
        lengths = lengths if lengths is not None else [None] * n
        scores = self._monitor(samples, self._shape(scores, lengths), lengths)
        stats = dict(batch.stats)
        if unrouted:
            stats["status"] = ScoreBatch.from_scores(scores).status_counts()
            stats["unrouted"] = len(unrouted)
        stats.setdefault("wall_s", wall_s)
        self._last_samples = samples
        return ScoreBatch.from_scores(
            scores, queue_s=queue_s, exec_s=exec_s, stats=stats, on_error=batch.on_error
        )

    def _monitor(
        self, samples: Sequence[Sample], scores: list[Score], lengths: Sequence[int | None]
    ) -> list[Score]:
        """The monitors' flags into each score's metrics (``monitor/<name>``, ``monitor/any``), their
        configured penalties applied, the counts added up (a service's ``/metrics``)."""
        if self.monitors is None:
            return scores
        scores, report = self.monitors.apply(samples, scores, lengths)
        self.monitor_counters.add(report)
        self.last_monitor_report = report
        return scores

    def group_metrics(self, prefix: str = "group/") -> dict[str, float]:
        """GRPO group statistics of the last batch (pass@k, mean@n, reward std, all-equal share) as flat
        metrics for a trainer's logger (see :func:`rewardloop._groups.group_metrics`).

        Computed when asked, not on every batch: the scoring hot path should not pay for a logger.
        """
        if self.last_batch is None or self._last_samples is None:
            return {}
        return group_metrics(self._last_samples, list(self.last_batch), prefix=prefix)

    def _shape(self, scores: list[Score], lengths: Sequence[int | None]) -> list[Score]:
        for shaper in self.shapers:
            scores = shaper.apply(scores, lengths)
        return scores

    @property
    def on_error(self) -> Any:
        """The failure policy's reward (the runner's ``on_error``)."""
        return self.runner.config.on_error

    def close(self) -> None:
        if self._owns_runner:
            self.runner.close()
        self._closed = True


# --------------------------------------------------------------------------------------------------
# config -> parts


def code_options(cfg: RewardConfig) -> dict[str, Any]:
    """Options for the routed code scorers from ``sandbox_fusion`` (remote tests and memory limit)."""
    options: dict[str, Any] = {}
    if cfg.sandbox_fusion.url:
        from ..sandbox.fusion import SandboxFusionClient

        options["sandbox"] = SandboxFusionClient(cfg.sandbox_fusion.url)
        options["memory_mb"] = cfg.sandbox_fusion.memory_limit_mb
    return options


def custom_function_scorer(
    cfg: RewardConfig,
    extra_call_kwargs: Mapping[str, Any] | None = None,
    *,
    rate_limits: bool = False,
    process: bool = True,
) -> Scorer | None:
    """The configured custom reward function as a scorer (None when ``custom_reward_function.path`` is unset).

    A sync function runs in the runner's worker processes under the default deadline (it travels there by
    reference and is loaded once per worker); ``process=False`` keeps it in threads.
    """
    section = cfg.custom_reward_function
    if not section.path:
        return None
    from ..scorers import CustomFunctionScorer, load_custom_function

    fn = load_custom_function(section.path, section.name, section.reward_kwargs)
    tokens = cfg.estimated_tokens_per_request if rate_limits else None
    return CustomFunctionScorer(
        fn,
        name=section.name,
        tokens_per_request=tokens,
        execution=None if process else "thread",
        **dict(extra_call_kwargs or {}),
    )


def monitors_from_config(cfg: RewardConfig) -> Any:
    """The reward-hacking monitors of ``reward.monitors`` (None unless enabled): every default monitor, the
    overlong-zone one too when DAPO's overlong buffer is configured, with the configured penalties."""
    settings = cfg.monitors
    if not settings or not settings.get("enable", True):
        return None
    from ..monitors import MonitorSuite, default_monitors

    overlong, max_resp_len = cfg.overlong
    buffer_len = overlong.len if overlong is not None and overlong.enable else None
    return MonitorSuite(default_monitors(max_resp_len, buffer_len), penalize=settings.get("penalize"))


def runner_config_from(cfg: RewardConfig, *, rate_limits: bool = False) -> RunnerConfig:
    """The runner settings: ``reward.runner`` plus, for the rate-limited manager, its limit keys where
    ``reward.runner`` does not set them."""
    if not rate_limits:
        return cfg.runner
    # every call is a request the limits must see (an API judge may answer the same input differently);
    # identical in-flight samples are merged only when reward.runner.dedup asks for it
    defaults: dict[str, Any] = {
        "dedup": False,
        "max_concurrency": cfg.max_concurrent,
        "timeout_s": cfg.timeout,
    }
    if cfg.max_rpm is not None:
        defaults["rpm"] = cfg.max_rpm
    if cfg.max_tpm is not None:
        defaults["tpm"] = cfg.max_tpm
    return cfg.runner.with_defaults(**defaults)


def runner_from_config(cfg: RewardConfig, *, rate_limits: bool = False, address: str | None = None) -> Any:
    """A local :class:`Runner`, or a :class:`RayRunner` with ``num_workers`` actors for ``backend: ray``
    (joining the Ray cluster at ``address`` when given)."""
    settings = runner_config_from(cfg, rate_limits=rate_limits)
    if cfg.backend == "ray":
        from ..execution import RayRunner

        return RayRunner(settings, num_actors=cfg.num_workers, address=address)
    if address is not None:
        raise ConfigError("a Ray address needs backend: ray (--ray)")
    return Runner(settings)

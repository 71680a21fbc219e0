"""TRL adapter: any rewardloop scorer, or verl's ``default_compute_score`` routing, as a ``reward_funcs`` entry.

TRL's ``GRPOTrainer`` / ``RLOOTrainer`` call each reward function as
``fn(prompts=..., completions=..., completion_ids=..., **columns, trainer_state=..., log_extra=...,
log_metric=...)``, where ``columns`` are the dataset's columns other than ``prompt`` (one value per
completion), and expect one ``float | None`` per completion (``None`` = not applicable, ignored by the
advantage computation). Async functions (``async def __call__``) are awaited on TRL's event loop, all of
them concurrently. The display name TRL logs under (``rewards/<name>/mean``) is ``fn.__name__``.

:func:`reward_func` / :func:`async_reward_func` return such callables. They are instances of top-level
classes, so they pickle (``AsyncGRPOTrainer`` ships reward functions to another process): the
:class:`~rewardloop.Runner` is not pickled, a fresh one with the same config is made on first use.

What each completion becomes (a :class:`~rewardloop.Sample`):

* ``response``: the completion text. A conversational completion (a list of ``{"role", "content"}``
  messages) gives the content of its last ``assistant`` message (content parts of type ``text`` are
  joined); a plain string is used as is.
* ``ground_truth``: the first of ``ground_truth_keys`` present in the columns; by default
  ``ground_truth``, ``solution`` (TRL's math datasets), ``answer``, then ``reward_model`` (a verl-layout
  dict, or its JSON text, whose ``ground_truth`` is used). A batch without any of these columns raises
  :class:`~rewardloop.errors.ConfigError` (all-None rewards would train on no signal); a row whose
  ``reward_model`` has no ``ground_truth`` fails with ``invalid_input``.
* ``task``: the ``task_key`` column (default ``data_source``), or the fixed ``task=`` argument. It only
  matters when no scorer is given: then each row is scored by the scorer routed for its task, exactly as
  :func:`rewardloop.default_compute_score` routes it. An unrouted task raises
  :class:`~rewardloop.errors.UnknownTaskError` (a configuration error), unless ``unknown_task="none"``.
* ``metadata``: the ``extra_info`` column (a dict, or its JSON text), else empty; ``prompt``: the prompt.

Failures (timeouts, crashes, malformed rows, an empty list of messages) follow ``on_error``: ``None`` (the
default: excluded, TRL ignores them; with a reward config, its ``runner.on_error``), a number, or ``"raise"``. Every call reports through TRL's ``log_metric`` (when TRL passes
it): ``<name>/failed`` (failed fraction of the batch), ``<name>/<status>`` (fraction
per failure status, zeros included so TRL's per-step averages stay honest), ``<name>/exec_p50_s`` (median
scoring time per sample) and ``<name>/latency_p99_s`` (the tail a training step waits for); and through
``log_extra`` a ``<name>_status`` column for the completions
table.

Limits: the reward function sees only its own process's shard of the batch (TRL splits groups across
devices), so group-level scorers are out of scope here. Scorers read text; ``completion_ids`` give the token
lengths that a config's overlong shaping and ``overlong_zone`` monitor need; a call without them logs,
once, a warning naming what the config asks for that it could not apply.

``config=`` builds the reward from a reward config with the same builder as ``rewardloop score --config``,
``rewardloop serve`` and verl's managers (:meth:`rewardloop.RewardManager.from_config`): components, routes,
monitors and shaping included. Every numeric metric of the scores (component rewards, ``monitor/*`` flags,
``acc``) goes to ``log_extra`` as a ``<name>/<metric>`` column.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeGuard, cast

from .._summary import short_error
from .._validate import renamed
from ..errors import ConfigError, ScoringError, UnknownTaskError
from ..execution import RunnerConfig
from ..scorers import Scorer, as_scorer
from ..types import Sample, Score, ScoreBatch, Status

__all__ = [
    "DEFAULT_GROUND_TRUTH_KEYS",
    "AsyncRewardFunc",
    "RewardFunc",
    "async_reward_func",
    "completion_text",
    "reward_func",
]

logger = logging.getLogger(__name__)

DEFAULT_GROUND_TRUTH_KEYS: tuple[str, ...] = ("ground_truth", "solution", "answer", "reward_model")
_TRL_KWARGS = frozenset({"trainer_state", "log_extra", "log_metric", "environments", "completion_ids"})
OnError = float | None | Literal["raise"]


def completion_text(completion: Any) -> str:
    """The response text of one TRL completion: a string, or a list of chat messages (last assistant turn)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content_text(completion.get("content"))
    if isinstance(completion, Sequence) and completion:
        messages = [m for m in completion if isinstance(m, Mapping)]
        assistant = [m for m in messages if m.get("role") == "assistant"]
        chosen = assistant or messages
        if chosen:
            return _content_text(chosen[-1].get("content"))
    if isinstance(completion, Sequence) and not completion:
        # an empty conversation has no response at all: a malformed row, not an empty answer worth 0
        raise ValueError("a completion is an empty list of chat messages: there is no response to score")
    raise TypeError(
        f"a completion must be a string or a list of chat messages, got {type(completion).__name__}"
    )


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):  # multimodal content parts: keep the text ones
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    return str(content)


def _maybe_json(value: Any) -> Any:
    """A dict column that a dataset export stored as JSON text (never evaluated as code)."""
    if isinstance(value, str) and value[:1] == "{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


class RewardFunc:
    """A TRL reward function backed by rewardloop. Build it with :func:`reward_func`; see the module docs.

    Sync: scores the batch with :meth:`Runner.run_sync <rewardloop.Runner.run_sync>`, safe from any thread.
    """

    def __init__(
        self,
        scorer: Scorer | str | Callable[[Sample], Any] | None = None,
        *,
        runner: Any = None,
        on_error: OnError | str = None,
        name: str | None = None,
        ground_truth_keys: str | Sequence[str] = DEFAULT_GROUND_TRUTH_KEYS,
        task_key: str = "data_source",
        task: str | None = None,
        metadata_key: str = "extra_info",
        unknown_task: Literal["raise", "none"] = "raise",
        timeout_s: float | None = None,
        config: Any = None,
        timeout: float | None = None,  # deprecated name of timeout_s
    ) -> None:
        if config is not None and scorer is not None:
            raise ConfigError(
                "give a scorer or a reward config, not both (a config's components name scorers)"
            )
        # the reward of a config is built by the one builder the CLI, the service and verl use
        self.config = None if config is None else _adapter_config(config)
        if config is not None and on_error is None:
            # the config's failure policy is the training reward's: the CLI and the service apply it too
            on_error = _config_on_error(config)
        self.scorer = _resolve(scorer)
        self.on_error = _check_on_error(on_error)
        self._warned_unapplied = False
        if unknown_task not in ("raise", "none"):
            raise ConfigError(f"unknown_task must be 'raise' or 'none', got {unknown_task!r}")
        keys = (ground_truth_keys,) if isinstance(ground_truth_keys, str) else tuple(ground_truth_keys)
        if not keys:
            raise ConfigError("ground_truth_keys must name at least one column")
        self.ground_truth_keys = keys
        self.task_key = task_key
        self.task = task
        self.metadata_key = metadata_key
        self.unknown_task = unknown_task
        self.timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", type(self).__name__)
        self.__name__ = name or _default_name(self.scorer)
        self._runner = runner
        self._owns_runner = runner is None  # a runner passed in is its owner's to close
        # a pickled copy gets a fresh local runner with the same config (runners hold threads and pools)
        runner_config = getattr(runner, "config", None)
        self._runner_config = runner_config if isinstance(runner_config, RunnerConfig) else None
        self._manager: Any = None

    # -- TRL's calling convention ------------------------------------------------------------------

    def __call__(
        self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None, **kwargs: Any
    ) -> list[float | None]:
        plan = self._plan(prompts, completions, kwargs)
        batch = self._get_manager().score(plan.samples, plan.lengths()) if plan.samples else None
        return self._finish(plan, batch, kwargs)

    # -- pieces shared with the async form ---------------------------------------------------------

    def _plan(
        self, prompts: Sequence[Any] | None, completions: Sequence[Any] | None, kwargs: Mapping[str, Any]
    ) -> _Plan:
        if completions is None:
            raise TypeError(
                f"{self.__name__}() needs completions= (TRL passes prompts, completions and columns)"
            )
        n = len(completions)
        columns = {k: v for k, v in kwargs.items() if k not in _TRL_KWARGS}
        for key, values in columns.items():
            if isinstance(values, Sequence) and not isinstance(values, str) and len(values) != n:
                raise ValueError(f"column {key!r} has {len(values)} values for {n} completions")
        if n and not any(key in columns for key in self.ground_truth_keys):
            # a configuration error, not n bad rows: training on all-None rewards is training on nothing
            raise ConfigError(
                f"{self.__name__}: no ground truth column: looked for {list(self.ground_truth_keys)}, the "
                f"dataset has {sorted(columns)}; set ground_truth_keys=... (or add the column)"
            )
        plan = _Plan(n)
        ids = kwargs.get("completion_ids")
        if isinstance(ids, Sequence) and len(ids) == n:  # token lengths: overlong shaping and monitors
            plan.token_lengths = [len(x) if isinstance(x, Sequence) else None for x in ids]
        elif n:
            self._name_unapplied()
        for i in range(n):
            prompt = prompts[i] if prompts is not None and i < len(prompts) else None
            row = {k: _at(v, i) for k, v in columns.items()}
            self._add_row(plan, i, prompt, completions[i], row)
        return plan

    def _name_unapplied(self) -> None:
        """Say once what the config asks for that a call without ``completion_ids`` cannot apply."""
        if self._warned_unapplied or self.config is None:
            return
        gaps = self._get_manager().unapplied(lengths=False)
        if gaps:
            self._warned_unapplied = True
            logger.warning(
                "%s: not applied without completion_ids (token lengths): %s", self.__name__, "; ".join(gaps)
            )

    def _add_row(self, plan: _Plan, i: int, prompt: Any, completion: Any, row: Mapping[str, Any]) -> None:
        try:
            sample = self._sample(prompt, completion, row)
        except (TypeError, ValueError) as exc:
            plan.fixed[i] = Score.failure(Status.INVALID_INPUT, str(exc))
            return
        try:
            self._get_manager().scorer_for(sample)
        except UnknownTaskError:
            if self.unknown_task == "raise":
                raise
            plan.skipped.add(i)
            return
        plan.slots[i] = len(plan.samples)
        plan.samples.append(sample)
        plan.rows.append(i)

    def _sample(self, prompt: Any, completion: Any, row: Mapping[str, Any]) -> Sample:
        response = completion_text(completion)
        ground_truth = self._ground_truth(row)
        task = self.task if self.task is not None else row.get(self.task_key)
        if self.scorer is None and not isinstance(task, str):
            raise ValueError(
                f"no task to route on: column {self.task_key!r} is missing or not a string ({task!r}); "
                "pass a scorer, task=..., or task_key=..."
            )
        metadata = _maybe_json(row.get(self.metadata_key))
        if not isinstance(metadata, Mapping):
            metadata = {}
        return Sample(
            response=response, ground_truth=ground_truth, task=task, prompt=prompt, metadata=metadata
        )

    def _ground_truth(self, row: Mapping[str, Any]) -> Any:
        for key in self.ground_truth_keys:
            if key not in row:
                continue
            value = row[key]
            if key == "reward_model":
                value = _maybe_json(value)
                if not isinstance(value, Mapping) or "ground_truth" not in value:
                    raise ValueError(f"column 'reward_model' has no 'ground_truth': {value!r:.120}")
                return value["ground_truth"]
            return value
        raise ValueError(
            f"no ground truth column: looked for {list(self.ground_truth_keys)}, the row has {sorted(row)}; "
            "set ground_truth_keys=..."
        )

    def _finish(self, plan: _Plan, batch: ScoreBatch | None, kwargs: Mapping[str, Any]) -> list[float | None]:
        scores = plan.scores(batch)
        if self.on_error == "raise":
            failed = [(i, s) for i, s in enumerate(scores) if s is not None and not s.ok]
            if failed:
                i, s = failed[0]
                raise ScoringError(
                    f"{self.__name__}: completion {i} failed with {s.status.value}: {s.info.get('error')}"
                    f" ({len(failed)} of {len(scores)} failed)"
                )
        self._log(scores, batch, kwargs)
        return [self._reward(s) for s in scores]

    def _reward(self, score: Score | None) -> float | None:
        if score is None:  # skipped: not this function's task
            return None
        if score.ok:
            return score.value
        return None if self.on_error is None else float(self.on_error)

    def _log(self, scores: list[Score | None], batch: ScoreBatch | None, kwargs: Mapping[str, Any]) -> None:
        scored = [s for s in scores if s is not None]
        failed = [s for s in scored if not s.ok]
        if failed:
            logger.warning(
                "%s: %d of %d completions failed (%s); first error: %s",
                self.__name__,
                len(failed),
                len(scored),
                ", ".join(sorted({s.status.value for s in failed})),
                short_error(failed[0].info.get("error")),
            )
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and scored:
            prefix = self.__name__
            log_metric(f"{prefix}/failed", len(failed) / len(scored))
            for status in Status:
                if status is not Status.OK:
                    share = sum(s.status is status for s in scored) / len(scored)
                    log_metric(f"{prefix}/{status.value}", share)
            stats = batch.stats if batch is not None else {}
            for key in ("exec_p50_s", "latency_p99_s"):  # scoring time, and the tail a step waits for
                if stats.get(key) is not None:
                    log_metric(f"{prefix}/{key}", float(stats[key]))
        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            log_extra(
                f"{self.__name__}_status", [("skipped" if s is None else s.status.value) for s in scores]
            )
            # the per-sample metrics (components, monitor flags, acc): the completions table shows them
            keys = sorted({k for s in scored for k, v in s.metrics.items() if _numeric(v)})
            for key in keys:
                log_extra(f"{self.__name__}/{key}", [_metric(s, key) for s in scores])

    # -- runner and pickling -----------------------------------------------------------------------

    def _get_manager(self) -> Any:
        """The :class:`~rewardloop.RewardManager` that scores: the builder's for a config, else the scorer (or
        routing) on this function's runner."""
        if self._manager is None:
            from ..managers import RewardManager

            if self.config is not None:
                self._manager = RewardManager.from_config(self.config, runner=self._runner)
                self._runner = self._manager.runner
            else:
                self._manager = RewardManager(self.scorer, runner=self._get_runner(), owns_runner=False)
        return self._manager

    def _get_runner(self) -> Any:
        if self._runner is None:
            from ..execution import Runner

            if self._runner_config is not None:
                self._runner = Runner(self._runner_config)
            else:
                # failures come back as statuses; this adapter applies its own on_error policy
                self._runner = Runner(on_error=None, timeout_s=self.timeout_s)
        return self._runner

    def close(self) -> None:
        """Close the runner this function made (a runner passed in is left to its owner)."""
        runner, self._runner, self._manager = self._runner, None, None
        if runner is not None and self._owns_runner:
            runner.close()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_runner"] = None
        state["_manager"] = None
        state["_owns_runner"] = True
        return state

    def __repr__(self) -> str:
        scorer = "routed by " + repr(self.task_key) if self.scorer is None else repr(self.scorer)
        return f"<{type(self).__name__} {self.__name__!r} {scorer} on_error={self.on_error!r}>"


class AsyncRewardFunc(RewardFunc):
    """The async form: TRL awaits it on its event loop, concurrently with its other async reward functions."""

    async def __call__(  # type: ignore[override]
        self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None, **kwargs: Any
    ) -> list[float | None]:
        plan = self._plan(prompts, completions, kwargs)
        batch = await self._get_manager().ascore(plan.samples, plan.lengths()) if plan.samples else None
        return self._finish(plan, batch, kwargs)


class _Plan:
    """Which completions go to the runner, and which already have their outcome."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.samples: list[Sample] = []
        self.rows: list[int] = []  # the completion each sample is
        self.slots: dict[int, int] = {}
        self.fixed: dict[int, Score] = {}
        self.skipped: set[int] = set()
        self.token_lengths: list[int | None] | None = None

    def lengths(self) -> list[int | None] | None:
        if self.token_lengths is None:
            return None
        return [self.token_lengths[i] for i in self.rows]

    def scores(self, batch: ScoreBatch | None) -> list[Score | None]:
        out: list[Score | None] = []
        for i in range(self.n):
            if i in self.slots:
                out.append(batch[self.slots[i]])  # type: ignore[index]
            else:
                out.append(self.fixed.get(i))
        return out


def _at(values: Any, i: int) -> Any:
    if isinstance(values, Sequence) and not isinstance(values, str):
        return values[i]
    return values  # a scalar passed by hand applies to every row


def _resolve(scorer: Scorer | str | Callable[[Sample], Any] | None) -> Scorer | None:
    if scorer is None or isinstance(scorer, Scorer):
        return scorer
    if isinstance(scorer, str):
        from ..scorers import get_scorer

        return get_scorer(scorer)
    return as_scorer(scorer)


def _adapter_config(config: Any) -> Any:
    """The reward config with the runner's failure policy off: this adapter applies ``on_error`` itself."""
    import dataclasses

    from ..config import load_reward_config

    cfg = load_reward_config(config)
    return dataclasses.replace(cfg, runner=cfg.runner.replace(on_error=None))


def _config_on_error(config: Any) -> Any:
    from ..config import load_reward_config

    return load_reward_config(config).runner.given().get("on_error")


def _numeric(value: Any) -> TypeGuard[bool | int | float]:
    return isinstance(value, bool | int | float)


def _metric(score: Score | None, key: str) -> float | None:
    value = None if score is None else score.metrics.get(key)
    return float(value) if _numeric(value) else None


def _default_name(scorer: Scorer | None) -> str:
    return "rewardloop" if scorer is None else f"rewardloop_{scorer.name}"


def _check_on_error(on_error: Any) -> OnError:
    if on_error is None or on_error == "raise":
        return cast("float | Literal['raise'] | None", on_error)
    if isinstance(on_error, bool) or not isinstance(on_error, int | float):
        raise ConfigError(f"on_error must be a number, None (exclude) or 'raise', got {on_error!r}")
    if math.isnan(on_error):
        return None  # NaN and None mean the same to TRL
    return float(on_error)


def reward_func(
    scorer: Scorer | str | Callable[[Sample], Any] | None = None,
    *,
    runner: Any = None,
    on_error: OnError | str = None,
    name: str | None = None,
    ground_truth_keys: str | Sequence[str] = DEFAULT_GROUND_TRUTH_KEYS,
    task_key: str = "data_source",
    task: str | None = None,
    metadata_key: str = "extra_info",
    unknown_task: Literal["raise", "none"] = "raise",
    timeout_s: float | None = None,
    config: Any = None,
    timeout: float | None = None,  # deprecated name of timeout_s
) -> RewardFunc:
    """A synchronous TRL reward function. See the module docstring for how rows become samples.

    ``scorer``: None (route each row by its ``data_source`` like ``default_compute_score``), a registered
    scorer name, a :class:`~rewardloop.Scorer`, or ``fn(sample)``. ``runner``: a
    :class:`~rewardloop.Runner` / ``RayRunner`` to share (default: a private one, made on first call).
    ``on_error``: reward of a failed completion (``None`` = excluded, the default; a number; ``"raise"``).
    ``name``: what TRL logs under (default ``rewardloop`` or ``rewardloop_<scorer>``). ``timeout_s``:
    per-sample deadline of the private runner. ``config``: a reward config (YAML path, mapping or
    :class:`~rewardloop.config.RewardConfig`) built by the same builder as ``rewardloop score --config``,
    ``serve`` and verl's managers (components, routes, monitors, overlong shaping from ``completion_ids``),
    instead of ``scorer``.
    """
    timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "reward_func")
    return RewardFunc(
        scorer,
        runner=runner,
        on_error=on_error,
        name=name,
        ground_truth_keys=ground_truth_keys,
        task_key=task_key,
        task=task,
        metadata_key=metadata_key,
        unknown_task=unknown_task,
        timeout_s=timeout_s,
        config=config,
    )


def async_reward_func(
    scorer: Scorer | str | Callable[[Sample], Any] | None = None,
    *,
    runner: Any = None,
    on_error: OnError | str = None,
    name: str | None = None,
    ground_truth_keys: str | Sequence[str] = DEFAULT_GROUND_TRUTH_KEYS,
    task_key: str = "data_source",
    task: str | None = None,
    metadata_key: str = "extra_info",
    unknown_task: Literal["raise", "none"] = "raise",
    timeout_s: float | None = None,
    config: Any = None,
    timeout: float | None = None,  # deprecated name of timeout_s
) -> AsyncRewardFunc:
    """The async form of :func:`reward_func` (same arguments); TRL runs async reward functions concurrently."""
    timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "async_reward_func")
    return AsyncRewardFunc(
        scorer,
        runner=runner,
        on_error=on_error,
        name=name,
        ground_truth_keys=ground_truth_keys,
        task_key=task_key,
        task=task,
        metadata_key=metadata_key,
        unknown_task=unknown_task,
        timeout_s=timeout_s,
        config=config,
    )

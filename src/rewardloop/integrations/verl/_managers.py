"""verl's reward managers as thin facades over :class:`~rewardloop.managers.RewardManager`.

Two interfaces, as in verl:

* classic (``verl.workers.reward_manager``): ``AbstractRewardManager(tokenizer, num_examine, compute_score,
  reward_fn_key="data_source", **kwargs)`` called as ``manager(data, return_dict=False)`` on a whole batch,
  returning the ``(b, R)`` reward tensor or ``{"reward_tensor", "reward_extra_info"}``. Names: ``naive``,
  ``dapo``, ``batch``, ``prime`` (and ``rate_limited``, which has both interfaces).
* reward loop (``verl.experimental.reward_loop``): ``RewardManagerBase(config, tokenizer, compute_score,
  reward_router_address=None, reward_model_tokenizer=None)`` with ``async run_single(data)`` ->
  ``{"reward_score", "reward_extra_info"}`` and the overridable classmethod ``assemble_rm_scores``. Names:
  ``naive``, ``dapo``, ``remote``, ``rate_limited``. Our loop managers also accept the classic batch call.

Every manager scores through the same runner path (deadlines, isolation, failure statuses, de-duplication);
they differ only in composition: ``dapo`` adds the overlong shaper, ``remote``/``prime`` run sync scorers in
worker processes, ``rate_limited`` adds global limits, ``batch`` calls a batched function. Differences from
verl (no silent zeros, no mutated inputs, reward on the last generated token) are in ``docs/verl.md``.
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import functools
import inspect
import logging
import textwrap
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ... import _summary
from ...config import RewardConfig, load_reward_config, parse_overlong
from ...errors import ConfigError
from ...managers import (
    OverlongPenalty,
    RewardManager,
    custom_function_scorer,
    response_lengths,
    with_group_size,
)
from ...scorers import CustomFunctionScorer, Scorer, coerce_score
from ...types import Sample, Score, ScoreBatch, Status
from ._compute import config_path
from ._data import (
    ExtraInfoSchema,
    ReadBatch,
    extra_info_columns,
    has_rm_scores,
    read_batch,
    reward_tensor,
    rewards_of,
    scorer_metric_types,
)

__all__ = [
    "AbstractRewardManager",
    "BatchFunctionScorer",
    "BatchRewardManager",
    "DAPORewardManager",
    "LoopDAPORewardManager",
    "LoopGDPORewardManager",
    "LoopNaiveRewardManager",
    "NaiveRewardManager",
    "PrimeRewardManager",
    "RateLimitedRewardManager",
    "RemoteRewardManager",
    "RewardManagerBase",
    "get_reward_manager_cls",
    "register",
]

logger = logging.getLogger(__name__)

_KINDS: dict[str, type] = {"float": float, "bool": bool, "str": str, "any": object}

_CLASSIC: dict[str, type] = {}
_LOOP: dict[str, type] = {}


# --------------------------------------------------------------------------------------------------
# registry (verl's semantics: re-registering the same class is fine, a different one raises)


def register(name: str, *, kind: str | None = None) -> Callable[[type], type]:
    """Class decorator: register a reward manager under ``name`` (case-sensitive).

    ``kind`` picks the registry: ``"classic"``, ``"loop"``, or None: classic managers
    (:class:`AbstractRewardManager` subclasses) go to the classic registry, reward-loop managers
    (:class:`RewardManagerBase`) to the loop registry, a class that is both to both. As in verl, any class is
    accepted: one that subclasses neither goes by duck type (an ``async run_single`` method: loop, else
    classic). Registering a different class under a taken name raises ``ValueError``; the first stays.
    """

    def decorator(cls: type) -> type:
        targets = _registries_for(cls, kind)
        for registry in targets:
            old = registry.get(name)
            if old is not None and old is not cls:
                raise ValueError(f"Reward manager {name} has already been registered: {old} vs {cls}")
        for registry in targets:
            registry[name] = cls
        return cls

    return decorator


def _registries_for(cls: type, kind: str | None) -> list[dict[str, type]]:
    if kind not in (None, "loop", "classic"):
        raise ValueError(f"kind must be 'loop', 'classic' or None, got {kind!r}")
    if kind is not None:
        return [_LOOP if kind == "loop" else _CLASSIC]
    targets = []
    if issubclass(cls, AbstractRewardManager):
        targets.append(_CLASSIC)
    if issubclass(cls, RewardManagerBase):
        targets.append(_LOOP)
    if not targets:  # verl registers any class; sort it by the interface it offers
        targets.append(_LOOP if inspect.iscoroutinefunction(getattr(cls, "run_single", None)) else _CLASSIC)
    return targets


def get_reward_manager_cls(name: str, kind: str | None = None) -> type:
    """The manager class registered as ``name``.

    ``kind``: ``"loop"`` (verl >= 0.6's reward-loop registry), ``"classic"`` (the legacy batch registry), or
    None: the loop manager if one has that name, else the classic one. Unknown names raise
    ``ValueError("Unknown reward manager: <name>")`` listing the registered ones.
    """
    if kind not in (None, "loop", "classic"):
        raise ValueError(f"kind must be 'loop', 'classic' or None, got {kind!r}")
    registries = {"loop": [_LOOP], "classic": [_CLASSIC], None: [_LOOP, _CLASSIC]}[kind]
    for registry in registries:
        if name in registry:
            return registry[name]
    known = sorted({*(_LOOP if kind != "classic" else {}), *(_CLASSIC if kind != "loop" else {})})
    raise ValueError(f"Unknown reward manager: {name} (registered: {', '.join(known)})")


# --------------------------------------------------------------------------------------------------
# scorers for verl-style functions


class BatchFunctionScorer(Scorer):
    """verl's batched custom function ``fn(data_sources, solution_strs, ground_truths, extra_infos, **kw)``
    returning one float or dict per sample, as a batch scorer (the runner hands it chunks)."""

    execution = "thread"
    supports_batch = True

    def __init__(self, fn: Callable[..., Any], name: str | None = None, **call_kwargs: Any) -> None:
        self.fn = fn
        self.name = name or str(getattr(fn, "__name__", "batch_function"))  # type: ignore[misc]
        self.call_kwargs = call_kwargs

    def score(self, sample: Sample) -> Score:
        return self.score_batch([sample])[0]

    def score_batch(self, samples: Sequence[Sample]) -> list[Score]:
        results = self.fn(
            data_sources=[s.task for s in samples],
            solution_strs=[s.response for s in samples],
            ground_truths=[s.ground_truth for s in samples],
            extra_infos=[s.metadata_copy() for s in samples],
            **self.call_kwargs,
        )
        if inspect.isawaitable(results):
            raise TypeError("the batch reward manager takes a sync batched function")
        results = list(results)
        if len(results) != len(samples):
            raise ValueError(f"batched function returned {len(results)} results for {len(samples)} samples")
        return [coerce_score(r, source=f"batched function {self.name!r}") for r in results]


def _function_scorer(fn: Callable[..., Any] | None, **call_kwargs: Any) -> Scorer | None:
    """A verl ``compute_score`` as a scorer: a sync one runs in killable worker processes under the default
    deadline whenever it can travel there (see :mod:`rewardloop.scorers._custom`), in every manager.

    verl's own ``default_compute_score`` (which verl's ``load_reward_manager`` passes when no custom function
    is configured) is replaced by rewardloop's routing table: that is the point of switching.
    """
    if fn is None or _is_verl_default(fn):
        return None
    if isinstance(fn, Scorer):
        return fn
    return CustomFunctionScorer(fn, **call_kwargs)


def _is_verl_default(fn: Any) -> bool:
    target = fn.func if isinstance(fn, functools.partial) else fn
    module = getattr(target, "__module__", "") or ""
    if (
        module.startswith("verl.utils.reward_score")
        and getattr(target, "__name__", "") == "default_compute_score"
    ):
        logger.info("verl's default_compute_score replaced by rewardloop's routing table")
        return True
    return False


# --------------------------------------------------------------------------------------------------
# the shared core


class _Core:
    """Reads a verl batch, scores it through a :class:`RewardManager`, and packs verl's outputs."""

    def __init__(
        self,
        manager: RewardManager,
        tokenizer: Any,
        *,
        reward_fn_key: str = "data_source",
        strip_eos: bool = False,
        num_examine: int = 0,
        extra_info_keys: Mapping[str, str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        infer_keys: bool = True,
    ) -> None:
        if tokenizer is None:
            raise TypeError("a reward manager needs the tokenizer that decodes the responses (got None)")
        on_error = manager.on_error
        if not isinstance(on_error, int | float) or isinstance(on_error, bool):
            raise ConfigError(
                f"verl's trainer needs a number for every sample, so on_error must be a number "
                f"(e.g. 0.0, or NaN to mark failures), got {on_error!r}"
            )
        self.manager = manager
        self.tokenizer = tokenizer
        self.reward_fn_key = reward_fn_key
        self.strip_eos = strip_eos
        self.num_examine = num_examine
        self.on_error = float(on_error)
        declared = {k: _KINDS[v] for k, v in (extra_info_keys or {}).items()}
        inferred = declared_metrics(manager, infer_keys=infer_keys)
        self.schema = ExtraInfoSchema({**declared, **inferred}, fill_number=self.on_error)
        # verl keeps every dict key of run_single's result; keys not read from the source are learned from the
        # first result that has any (reward.infer_extra_info_keys: false keeps to the declared keys only)
        self.learn_first = infer_keys
        self.metadata = dict(metadata or {})
        self._examined: dict[str, int] = {}

    def read(self, data: Any) -> ReadBatch:
        rows = read_batch(data, self.tokenizer, reward_fn_key=self.reward_fn_key, strip_eos=self.strip_eos)
        if self.metadata:
            rows.samples = [
                dataclasses.replace(s, metadata={**s.metadata, **self.metadata}) for s in rows.samples
            ]
        return rows

    async def ascore(self, data: Any) -> tuple[ReadBatch, ScoreBatch]:
        rows = self.read(data)
        batch = (
            await self.manager.ascore(rows.samples, rows.lengths)
            if rows.samples
            else ScoreBatch.from_scores([])
        )
        if rows.failures:
            scores = [rows.failures.get(i, s) for i, s in enumerate(batch)]
            batch = ScoreBatch.from_scores(
                scores, queue_s=batch.queue_s, exec_s=batch.exec_s, stats=batch.stats, on_error=batch.on_error
            )
        self._log_failures(batch)
        return rows, batch

    def score(self, data: Any) -> tuple[ReadBatch, ScoreBatch]:
        return self.manager.runner.call_sync(self.ascore(data))

    def pack(
        self, rows: ReadBatch, batch: ScoreBatch, *, learn: bool = True
    ) -> tuple[list[float], list[dict[str, Any]]]:
        """Rewards and extra info; ``learn=False`` (one trajectory at a time) keeps to the declared keys."""
        rewards = rewards_of(batch, self.on_error)
        results = self.schema.table(batch, rewards, learn=learn)
        self._examine(rows, rewards)
        return rewards, results

    def call(self, data: Any, return_dict: bool) -> Any:
        """The classic batch call."""
        if has_rm_scores(data):
            return _from_rm_scores(data, return_dict)
        rows, batch = self.score(data)
        rewards, results = self.pack(rows, batch)
        tensor = reward_tensor(data, rewards, rows.lengths)
        if not return_dict:
            return tensor
        return {"reward_tensor": tensor, "reward_extra_info": extra_info_columns(results, rewards)}

    async def run_single(self, data: Any) -> dict[str, Any]:
        """The reward-loop call: score the last row of a trajectory."""
        data = data[-1:] if len(data) > 1 else data
        rows = self.read(data)
        if rows.failures:
            score = rows.failures[0]
        else:
            score = await self.manager.ascore_one(rows.samples[0], rows.lengths[0])
        batch = ScoreBatch.from_scores([score], on_error=self.on_error)
        self._log_failures(batch)
        learn = self.learn_first and score.ok and any(k not in self.schema.kinds for k in score.metrics)
        if learn:
            self.learn_first = False
            logger.info(
                "reward_extra_info keys %s learned from the first result; declare them in "
                "reward.extra_info_keys so every worker carries them",
                sorted(k for k in score.metrics if k not in self.schema.kinds),
            )
        rewards, results = self.pack(rows, batch, learn=learn)
        return {"reward_score": rewards[0], "reward_extra_info": results[0]}

    def _log_failures(self, batch: ScoreBatch) -> None:
        if batch.num_failed:
            failed = {k: v for k, v in batch.status_counts().items() if v and k != Status.OK.value}
            first = next(s for s in batch if not s.ok)
            logger.warning(
                "%d of %d samples failed %s (reward %s); first: %s",
                batch.num_failed,
                len(batch),
                failed,
                self.on_error,
                _summary.short_error(first.info.get("error")),
            )

    def _examine(self, rows: ReadBatch, rewards: Sequence[float]) -> None:
        if self.num_examine <= 0:
            return
        for sample, reward in zip(rows.samples, rewards, strict=True):
            seen = self._examined.get(str(sample.task), 0)
            if seen < self.num_examine:
                self._examined[str(sample.task)] = seen + 1
                logger.info(
                    "[%s] response=%r ground_truth=%r reward=%s",
                    sample.task,
                    sample.response[:2000],
                    sample.ground_truth,
                    reward,
                )

    def close(self) -> None:
        self.manager.close()


def declared_metrics(manager: RewardManager, *, infer_keys: bool = True) -> dict[str, type]:
    """The typed metric keys of every scorer ``manager`` can use (its scorer, or every routed one) and of
    its shapers: the static part of its extra-info schema. ``infer_keys``: a custom function's keys are read
    from the dict literals it returns (:func:`returned_dict_keys`)."""
    scorers: list[Scorer] = []
    if manager.scorer is not None:
        scorers.append(manager.scorer)
    else:
        from ...scorers import ROUTES

        for route in ROUTES.routes():
            try:
                scorers.append(manager.router.resolve(route.pattern))
            except (
                Exception
            ) as exc:  # a plug-in route whose scorer cannot be built: scored later, or fails then
                logger.debug("route %s: %s", route.pattern, exc)
        for route in getattr(manager.router, "routes", ()):  # the config's own routes (reward.routes)
            try:
                scorers.append(manager.router.resolve(route["task"]))
            except Exception as exc:
                logger.debug("route %s: %s", route["task"], exc)
    declared: dict[str, type] = {}
    for scorer in scorers:
        for key, kind in scorer_metric_types(scorer).items():
            declared.setdefault(key, kind)
        if infer_keys and isinstance(scorer, CustomFunctionScorer):  # verl keeps a custom function's keys
            for key, kind in returned_dict_keys(scorer.fn).items():
                declared.setdefault(key, kind)
    for shaper in manager.shapers:
        declared.update(getattr(shaper, "metric_types", None) or {})
    monitors = getattr(manager, "monitors", None)
    if monitors is not None:  # one bool column per monitor, and monitor/any, on every sample
        declared.update({f"monitor/{name}": bool for name in (*monitors.names, "any")})
    return declared


_BOOL_NODES = (ast.Compare, ast.BoolOp)


def returned_dict_keys(fn: Any) -> dict[str, type]:
    """The keys (other than ``score``) of the dict literals ``fn`` returns, typed from their values: what a
    custom function will put into ``reward_extra_info`` (read with ``ast`` from its source, never run).

    A value's type is read from a constant, a comparison or ``not`` (bool), an f-string (str), arithmetic on
    numbers (float), or a local name assigned one of those; anything else is ``object`` (kept as returned).
    A function whose source cannot be read, or that builds its dict at run time, gives ``{}`` (its keys are
    then learned from its first result; see :class:`_Core`).
    """
    tree = _function_ast(fn)
    if tree is None:
        return {}
    local: dict[str, type] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            kind = _literal_kind(node.value, local)
            local[node.targets[0].id] = kind if node.targets[0].id not in local else object
    keys: dict[str, type] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value != "score":
                    kind = _literal_kind(value, local)
                    keys[key.value] = kind if keys.get(key.value, kind) is kind else object
    return keys


def _function_ast(fn: Any) -> ast.AST | None:
    for _ in range(4):  # unwrap PathFunction (_fn), functools.wraps (__wrapped__), partial (func)
        inner = getattr(fn, "_fn", None) or getattr(fn, "__wrapped__", None) or getattr(fn, "func", None)
        if inner is None or inner is fn:
            break
        fn = inner
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        return ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None


def _literal_kind(node: ast.AST, local: Mapping[str, type]) -> type:
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            return bool
        if isinstance(value, int | float):
            return float
        if isinstance(value, str):
            return str
        return object
    if isinstance(node, _BOOL_NODES) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return bool
    if isinstance(node, ast.JoinedStr):
        return str
    if isinstance(node, ast.IfExp):
        a, b = _literal_kind(node.body, local), _literal_kind(node.orelse, local)
        return a if a is b else object
    if isinstance(node, ast.BinOp | ast.UnaryOp):
        operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.operand]
        return float if all(_literal_kind(x, local) is float for x in operands) else object
    if isinstance(node, ast.Name):
        return local.get(node.id, object)
    return object


def _from_rm_scores(data: Any, return_dict: bool) -> Any:
    """verl's short-circuit: a batch that already has ``rm_scores`` is not scored again."""
    tensor = data.batch["rm_scores"]
    if not return_dict:
        return tensor
    keys = data.meta_info.get("reward_extra_keys", []) if isinstance(data.meta_info, Mapping) else []
    return {"reward_tensor": tensor, "reward_extra_info": {k: data.non_tensor_batch[k] for k in keys}}


# --------------------------------------------------------------------------------------------------
# classic managers


class AbstractRewardManager(ABC):
    """verl's classic manager interface: ``manager(data, return_dict=False)`` over a whole batch."""

    @abstractmethod
    def __init__(
        self,
        tokenizer: Any,
        num_examine: int,
        compute_score: Callable[..., Any] | None,
        reward_fn_key: str = "data_source",
        **kwargs: Any,
    ) -> None: ...

    @abstractmethod
    def __call__(self, data: Any, return_dict: bool = False) -> Any: ...


class RewardManagerBase(ABC):
    """verl's reward-loop interface: ``async run_single(data)`` for one trajectory."""

    _class_initialized: ClassVar[bool] = False

    def __init__(self, config: Any, tokenizer: Any, compute_score: Callable[..., Any] | None = None) -> None:
        self.config = config
        self.tokenizer = tokenizer
        self.compute_score = compute_score
        self.init_class(config, tokenizer)

    @classmethod
    def init_class(cls, config: Any, tokenizer: Any) -> None:
        """One-time class-level set-up hook (verl's); ours keep no class-level state."""
        cls._class_initialized = True

    @abstractmethod
    async def run_single(self, data: Any) -> dict[str, Any]:
        """``{"reward_score": float, "reward_extra_info": dict}`` for the last row of ``data``."""

    @classmethod
    def assemble_rm_scores(cls, data: Any, scores: Sequence[float]) -> Any:
        """``rm_scores (b, R)``: each score on its row's last generated token. Override for dense rewards."""
        lengths = response_lengths(data.batch["attention_mask"], data.batch["responses"].shape[-1])
        return reward_tensor(data, scores, lengths.tolist())


class _Classic(AbstractRewardManager):
    """Shared constructor: ``runner`` / ``runner_config`` / ``on_error`` are rewardloop's additions."""

    strip_eos: ClassVar[bool] = False

    def __init__(
        self,
        tokenizer: Any,
        num_examine: int = 0,
        compute_score: Callable[..., Any] | None = None,
        reward_fn_key: str = "data_source",
        *,
        runner: Any = None,
        runner_config: Mapping[str, Any] | None = None,
        compute_score_timeout: float | None = None,
        extra_info_keys: Mapping[str, str] | None = None,
        reward_config: Any = None,
        **kwargs: Any,
    ) -> None:
        settings = dict(runner_config or {})
        if compute_score_timeout:
            settings.setdefault("timeout_s", float(compute_score_timeout))
        scorer, shapers = self._compose(compute_score, kwargs)
        if reward_config is None:
            manager = RewardManager(scorer, runner=runner, runner_config=settings, shapers=shapers)
        else:  # verl's classic loader with a reward config: the one builder (components, routes, monitors)
            from ...execution import Runner

            owns = runner is None
            runner = Runner(settings) if owns else runner
            manager = RewardManager.from_config(reward_config, scorer=scorer, runner=runner, shaping=False)
            manager.shapers = tuple(shapers)  # this manager's own (DAPO's overlong penalty from its kwargs)
            manager._owns_runner = owns
        self.core = _Core(
            manager,
            tokenizer,
            reward_fn_key=reward_fn_key,
            strip_eos=self.strip_eos,
            num_examine=num_examine,
            extra_info_keys=extra_info_keys,
        )
        self.tokenizer = tokenizer
        self.num_examine = num_examine
        self.compute_score = compute_score
        self.reward_fn_key = reward_fn_key

    def _compose(self, compute_score: Any, kwargs: dict[str, Any]) -> tuple[Scorer | None, list[Any]]:
        if kwargs:
            logger.warning("%s ignores the keyword arguments %s", type(self).__name__, sorted(kwargs))
        return _function_scorer(compute_score), []

    def __call__(self, data: Any, return_dict: bool = False) -> Any:
        return self.core.call(data, return_dict)

    @property
    def last_batch(self) -> ScoreBatch | None:
        """The last batch's scores with statuses and timing (rewardloop's addition)."""
        return self.core.manager.last_batch

    def close(self) -> None:
        """Stop the worker processes (also done at interpreter exit)."""
        self.core.close()


@register("naive")
class NaiveRewardManager(_Classic):
    """``naive``: score every row with ``compute_score`` (default: the routing table)."""


@register("dapo")
class DAPORewardManager(_Classic):
    """``dapo``: naive plus DAPO's overlong penalty (``overlong_buffer_cfg``, ``max_resp_len``); strips a
    trailing EOS text from the response as verl's classic DAPO manager does."""

    strip_eos = True

    def _compose(self, compute_score: Any, kwargs: dict[str, Any]) -> tuple[Scorer | None, list[Any]]:
        overlong: dict[str, Any] = {
            k: kwargs.pop(k) for k in ("overlong_buffer_cfg", "max_resp_len") if k in kwargs
        }
        cfg, max_resp_len = parse_overlong(_plain_cfg(overlong), "DAPORewardManager")
        self.overlong_buffer_cfg, self.max_resp_len = cfg, max_resp_len
        penalty = OverlongPenalty.from_config(cfg, max_resp_len)
        scorer, _ = super()._compose(compute_score, kwargs)
        return scorer, [penalty] if penalty else []


@register("batch")
class BatchRewardManager(_Classic):
    """``batch``: ``compute_score`` is a batched function receiving lists (required, as in verl); extra
    keyword arguments go to it. It gets chunks of ``runner_config["batch_size"]`` (default 64) samples."""

    def _compose(self, compute_score: Any, kwargs: dict[str, Any]) -> tuple[Scorer | None, list[Any]]:
        if compute_score is None:
            raise ConfigError(
                "the batch reward manager needs compute_score: a batched function "
                "fn(data_sources, solution_strs, ground_truths, extra_infos, **kwargs) -> list"
            )
        return BatchFunctionScorer(compute_score, **kwargs), []


@register("prime")
class PrimeRewardManager(_Classic):
    """``prime``: verl's process-pool manager. Here every manager runs sync custom functions in worker
    processes with per-sample deadlines, so ``prime`` is ``naive``; dict results are supported."""


def _plain_cfg(data: Mapping[str, Any]) -> dict[str, Any]:
    from ...config import _plain

    out = {}
    for key, value in data.items():
        value = _plain(value)
        if value is not None and not isinstance(value, Mapping) and hasattr(value, "__dataclass_fields__"):
            import dataclasses

            value = dataclasses.asdict(value)
        out[key] = value
    return out


# --------------------------------------------------------------------------------------------------
# reward-loop managers


class _Loop(RewardManagerBase):
    """Shared constructor of our loop managers (``config`` may be the trainer config, the ``reward`` section
    or a :class:`~rewardloop.config.RewardConfig`)."""

    shaping: ClassVar[bool] = False
    rate_limits: ClassVar[bool] = False

    def __init__(
        self,
        config: Any = None,
        tokenizer: Any = None,
        compute_score: Callable[..., Any] | None = None,
        reward_router_address: str | None = None,
        reward_model_tokenizer: Any = None,
        *,
        runner: Any = None,
        **legacy: Any,
    ) -> None:
        super().__init__(config, tokenizer, compute_score)
        cfg = load_reward_config(config)
        if cfg.components:  # streamed group scorers wait for rollout.n members unless told otherwise
            cfg = dataclasses.replace(cfg, components=with_group_size(cfg.components, _rollout_n(config)))
        self.reward_config: RewardConfig = cfg
        self.reward_router_address = reward_router_address
        self.reward_model_tokenizer = reward_model_tokenizer
        extra = _router_kwargs(reward_router_address, reward_model_tokenizer)
        tokens = {"tokens_per_request": cfg.estimated_tokens_per_request} if self.rate_limits else {}
        scorer = _function_scorer(compute_score, **tokens, **extra)  # max_tpm charges each call, as in verl
        if scorer is None and cfg.custom_reward_function.path:
            scorer = custom_function_scorer(cfg, extra, rate_limits=self.rate_limits)
        if scorer is None and cfg.reward_model.enable and reward_router_address:
            scorer = _disrm_scorer(cfg, reward_router_address, reward_model_tokenizer)
        manager = RewardManager.from_config(
            cfg, scorer=scorer, runner=runner, shaping=self.shaping, rate_limits=self.rate_limits
        )
        num_examine = int(legacy.pop("num_examine", 0) or 0)
        reward_fn_key = legacy.pop("reward_fn_key", None) or "data_source"
        self.core = _Core(
            manager,
            tokenizer,
            reward_fn_key=reward_fn_key,
            num_examine=num_examine,
            extra_info_keys=cfg.extra_info_keys,
            metadata=self._metadata(config),
            infer_keys=cfg.infer_extra_info_keys,
        )

    def _metadata(self, config: Any) -> dict[str, Any]:
        """Keys this manager adds to every sample's ``extra_info`` (none here)."""
        return {}

    async def run_single(self, data: Any) -> dict[str, Any]:
        return await self.core.run_single(data)

    def __call__(self, data: Any, return_dict: bool = False) -> Any:
        """The classic batch call, on the same runner (verl's ``rate_limited`` offers it too)."""
        return self.core.call(data, return_dict)

    async def run_batch(self, data: Any) -> list[dict[str, Any]]:
        """Every row of ``data`` as ``run_single`` would score it, in one runner batch (fast path)."""
        if has_rm_scores(data):
            raise ValueError("run_batch: the batch already has rm_scores")
        rows, batch = await self.core.ascore(data)
        rewards, results = self.core.pack(rows, batch)
        return [{"reward_score": r, "reward_extra_info": x} for r, x in zip(rewards, results, strict=True)]

    @property
    def last_batch(self) -> ScoreBatch | None:
        return self.core.manager.last_batch

    def close(self) -> None:
        self.core.close()


def _disrm_scorer(cfg: RewardConfig, address: str, tokenizer: Any) -> Scorer:
    """verl's DisRM path (reward model enabled, no custom function): score each row with the RM."""
    from ...scorers.reward_model import RewardModelScorer

    rollout = cfg.reward_model.rollout
    protocol = "sglang" if rollout.get("name") == "sglang" else "vllm"
    model = rollout.get("served_model_name") or cfg.reward_model.model_path
    return RewardModelScorer(address, model, tokenizer, protocol=protocol)


def _router_kwargs(address: str | None, tokenizer: Any) -> dict[str, Any]:
    """verl passes these two to custom functions only when a reward-model router exists."""
    if address is None:
        return {}
    return {"reward_router_address": address, "reward_model_tokenizer": tokenizer}


@register("naive")
class LoopNaiveRewardManager(_Loop):
    """Reward loop ``naive``: score the last row with the custom function or the routing table."""


@register("dapo")
class LoopDAPORewardManager(_Loop):
    """Reward loop ``dapo``: naive plus the overlong penalty from ``reward.reward_kwargs``."""

    shaping = True

    @property
    def overlong_buffer_cfg(self) -> Any:
        """verl's attribute: the validated ``reward_kwargs.overlong_buffer_cfg`` (None when absent)."""
        return self.reward_config.overlong[0]

    @property
    def max_resp_len(self) -> int | None:
        """verl's attribute: ``reward_kwargs.max_resp_len`` (None when not set)."""
        return self.reward_config.overlong[1]


@register("gdpo")
class LoopGDPORewardManager(_Loop):
    """Reward loop ``gdpo`` (verl 0.9): naive plus ``extra_info["experiment_name"]`` from the trainer config's
    ``trainer.experiment_name``. GDPO normalises each reward component (``algorithm.gdpo_reward_keys``)
    separately: those keys, read from a trainer config, are in every sample's extra info as floats."""

    def _metadata(self, config: Any) -> dict[str, Any]:
        name = config_path(config, "trainer", "experiment_name")
        return {} if name is None else {"experiment_name": name}


def _rollout_n(config: Any) -> int | None:
    """The trainer config's ``actor_rollout_ref.rollout.n`` (responses per prompt), None when absent."""
    n = config_path(config, "actor_rollout_ref", "rollout", "n")
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


@register("remote")
class RemoteRewardManager(_Loop):
    """Reward loop ``remote``: sync scorers run in separate worker processes (CPU-heavy or GIL-bound code).

    verl starts ``num_workers`` Ray actors per reward-loop worker (``num_workers**2`` in all); here the
    runner's worker pool (or the Ray backend's actors) does it once. Every manager of ours already runs
    sync custom functions in those processes, so ``remote`` is ``naive`` under another name.
    """


@register("rate_limited")
class RateLimitedRewardManager(_Loop, AbstractRewardManager):
    """``rate_limited``: concurrency (``max_concurrent``), requests per minute (``max_rpm``) and tokens per
    minute (``max_tpm``, charged ``estimated_tokens_per_request`` per call) with a per-call ``timeout``.

    The limits belong to the runner, so every caller sharing it shares them; with ``backend: ray`` one
    limiter actor holds them for all actors, so they are global, not per process as in verl.
    """

    rate_limits = True

    @property
    def is_async_reward_score(self) -> bool:
        """verl's attribute: True when ``compute_score`` is an ``async def`` (awaited in the event loop); a sync
        one runs in worker processes here (verl: the default thread pool)."""
        return bool(getattr(self.core.manager.scorer, "is_async", False))


def run_coroutine(coro: Any) -> Any:
    """Run a coroutine from sync code, also from inside a running loop (in a helper thread)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()

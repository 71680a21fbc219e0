"""verl's reward loop: ``load_reward_manager``, ``RewardLoopWorker`` and ``RewardLoopManager``.

``RewardLoopManager(config, tokenizer=...)`` builds the configured manager once and offers:

* ``compute_rm_score(data)`` -- the batch path: every row decoded in one call, scored in one runner batch
  (local worker processes, or ``num_workers`` Ray actors with ``reward.backend: ray``), returned as a batch of
  the input's type with ``rm_scores (b, R)``, one column per extra-info key and
  ``meta_info["reward_extra_keys"]``. No padding rows are scored (verl pads to a multiple of the workers).
* ``reward_loop_worker_handles`` -- handles for streaming per-trajectory scoring from rollout:
  ``await handle.compute_score.remote(data)`` as verl's agent loop calls them. Locally they are in-process
  handles sharing the manager's runner; with ``backend: ray`` they front ``num_workers`` Ray actors, and every
  handle sends a trajectory to the actor its ``uid`` hashes to (:class:`UidRoutedHandle`), so the members of a
  prompt group meet in one worker whichever handle verl picks.
"""

from __future__ import annotations

import logging
import random
import zlib
from collections.abc import Mapping
from typing import Any, cast

from ..._loader import load_extern_module, load_extern_object
from ...config import RewardConfig, load_reward_config
from ...errors import ConfigError
from ...scorers import load_custom_function
from ._compute import config_path
from ._data import extra_info_columns, has_rm_scores
from ._managers import AbstractRewardManager, RewardManagerBase, get_reward_manager_cls

__all__ = [
    "RewardLoopManager",
    "RewardLoopWorker",
    "UidRoutedHandle",
    "load_reward_manager",
    "resolve_reward_manager_cls",
]

logger = logging.getLogger(__name__)


def resolve_reward_manager_cls(config: Any, *, kind: str | None = None) -> type[Any]:
    """The manager class named by ``reward.reward_manager``: a registry name, or with ``source: importlib`` the
    class ``reward_manager.name`` of ``module.path`` (verl 0.9.1's rule; ``module.name`` when the module has no
    such attribute, as older layouts and verl's legacy migration set it)."""
    cfg = load_reward_config(config)
    spec = cfg.reward_manager
    if spec.source == "register":
        return get_reward_manager_cls(spec.name, kind)
    module = load_extern_module(spec.module.path)  # type: ignore[arg-type]
    name = spec.name if hasattr(module, spec.name) else spec.module.name
    cls = load_extern_object(spec.module.path, name)  # type: ignore[arg-type]
    if not isinstance(cls, type) or not issubclass(cls, AbstractRewardManager | RewardManagerBase):
        raise ConfigError(
            f"reward.reward_manager.module {spec.module.path}:{name} is not a reward manager class "
            "(subclass RewardManagerBase or AbstractRewardManager)"
        )
    return cls


def load_reward_manager(
    config: Any, tokenizer: Any, num_examine: int | None = None, **reward_kwargs: Any
) -> Any:
    """Build the configured reward manager (verl's ``load_reward_manager``).

    verl >= 0.6 calls ``load_reward_manager(config, tokenizer, reward_router_address=..., ...)`` and gets a
    reward-loop manager; verl 0.4/0.5 call ``load_reward_manager(config, tokenizer, num_examine, **kwargs)``
    and get a classic one. Passing ``num_examine`` therefore selects the classic registry. The scorer is the
    configured custom function, else rewardloop's routing table (``sandbox_fusion`` applied to code tasks).
    """
    cfg = load_reward_config(config)
    kind = "classic" if num_examine is not None and _has_classic(cfg) else None
    cls = resolve_reward_manager_cls(cfg, kind=kind)
    compute_score = _custom_function(cfg)
    if issubclass(cls, RewardManagerBase):
        kwargs = dict(reward_kwargs)
        if num_examine is not None:
            kwargs["num_examine"] = num_examine
        if compute_score is None or not _is_ours(cls):
            return cls(
                config=config if config is not None else {},
                tokenizer=tokenizer,
                compute_score=compute_score,
                **kwargs,
            )
        # ours: let the manager load the function itself (by path, so it can travel to worker processes)
        return cls(
            config=config if config is not None else cfg, tokenizer=tokenizer, compute_score=None, **kwargs
        )
    kwargs = {**dict(cfg.reward_kwargs), **reward_kwargs}
    if _is_ours(cls) and cfg.runner.given():  # the classic path honours reward.runner too
        kwargs.setdefault("runner_config", cfg.runner.given())
    if _is_ours(cls) and cfg.extra_info_keys:
        kwargs.setdefault("extra_info_keys", dict(cfg.extra_info_keys))
    if _is_ours(cls):  # the one builder: components, routes and monitors are applied, not dropped
        kwargs.setdefault("reward_config", cfg)
    return cls(tokenizer=tokenizer, num_examine=num_examine or 0, compute_score=compute_score, **kwargs)


def _custom_function(cfg: RewardConfig) -> Any:
    """The configured custom function (a sync one travels to worker processes by path)."""
    section = cfg.custom_reward_function
    if not section.path:
        return None
    return load_custom_function(section.path, section.name, section.reward_kwargs)


def _has_classic(cfg: RewardConfig) -> bool:
    try:
        get_reward_manager_cls(cfg.reward_manager.name, "classic")
    except ValueError:
        return False
    return True


def _is_ours(cls: type[Any]) -> bool:
    return cls.__module__.startswith("rewardloop.")


class RewardLoopWorker:
    """Scores trajectories with the configured manager (verl's ``RewardLoopWorker``).

    ``compute_score(data)`` scores one trajectory (its last row) and ``compute_score_batch(data)`` every row;
    both return ``{"reward_score", "reward_extra_info"}`` dicts. Usable in-process or as a Ray actor.
    """

    def __init__(
        self,
        config: Any,
        reward_router_address: str | None = None,
        *,
        tokenizer: Any = None,
        reward_model_tokenizer: Any = None,
        manager: Any = None,
    ) -> None:
        self.config = config
        self.tokenizer = tokenizer if tokenizer is not None else load_tokenizer(config)
        kwargs: dict[str, Any] = {}
        if reward_router_address is not None:
            kwargs = {
                "reward_router_address": reward_router_address,
                "reward_model_tokenizer": reward_model_tokenizer,
            }
        self.reward_manager = (
            manager if manager is not None else load_reward_manager(config, self.tokenizer, **kwargs)
        )

    async def compute_score(self, data: Any) -> dict[str, Any]:
        return cast("dict[str, Any]", await self.reward_manager.run_single(data))

    async def compute_score_batch(self, data: Any) -> list[dict[str, Any]]:
        run_batch = getattr(self.reward_manager, "run_batch", None)
        if run_batch is not None:
            return cast("list[dict[str, Any]]", await run_batch(data))
        import asyncio

        return list(
            await asyncio.gather(*(self.reward_manager.run_single(data[i : i + 1]) for i in range(len(data))))
        )

    def close(self) -> None:
        close = getattr(self.reward_manager, "close", None)
        if close is not None:
            close()


class _Method:
    def __init__(self, fn: Any) -> None:
        self._fn = fn

    def remote(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)


class LocalWorkerHandle:
    """An in-process stand-in for a Ray actor handle: ``await handle.compute_score.remote(data)``."""

    def __init__(self, worker: RewardLoopWorker) -> None:
        self.worker = worker
        self.compute_score = _Method(worker.compute_score)
        self.compute_score_batch = _Method(worker.compute_score_batch)


class UidRoutedHandle:
    """One of the reward-loop worker handles verl's agent loop picks from at random: whichever it picks,
    ``compute_score.remote(data)`` goes to the worker actor the trajectory's ``uid`` hashes to, so every
    member of a prompt group (same uid) meets in one worker, where a group scorer gathers them. Rows without a
    uid go to this handle's own worker. Picklable (it holds Ray actor handles), as verl ships handles to its
    agent-loop workers."""

    def __init__(self, workers: list[Any], index: int) -> None:
        self.workers = list(workers)
        self.index = index
        self.compute_score = _Method(self._compute_score)
        self.compute_score_batch = _Method(self._compute_score_batch)

    def worker_for(self, data: Any) -> Any:
        """The worker actor of ``data``'s uid (its last row's, as ``compute_score`` scores the last row)."""
        return self.workers[worker_index(_last_uid(data), len(self.workers), self.index)]

    def _compute_score(self, data: Any) -> Any:
        return self.worker_for(data).compute_score.remote(data)

    def _compute_score_batch(self, data: Any) -> Any:
        return self.worker_for(data).compute_score_batch.remote(data)

    def __reduce__(self) -> tuple[Any, ...]:
        return (UidRoutedHandle, (self.workers, self.index))


def worker_index(uid: Any, n: int, default: int = 0) -> int:
    """The worker of a group: a stable hash of its uid (the same in every process), else ``default``."""
    if uid is None or n <= 1:
        return default % max(1, n)
    return zlib.crc32(str(uid).encode("utf-8", "surrogatepass")) % n


def _last_uid(data: Any) -> Any:
    non_tensor = getattr(data, "non_tensor_batch", None) or {}
    uids = non_tensor.get("uid") if hasattr(non_tensor, "get") else None
    if uids is None or len(uids) == 0:
        return None
    return uids[-1]


class RewardLoopManager:
    """verl's ``RewardLoopManager``: ``compute_rm_score(data)`` and ``reward_loop_worker_handles``.

    ``config``: the trainer config, its ``reward`` section, or a :class:`~rewardloop.config.RewardConfig`.
    ``tokenizer``: the policy tokenizer (default: loaded from ``actor_rollout_ref.model.tokenizer_path`` or
    ``.path`` of a trainer config, with ``transformers``). ``rm_resource_pool`` is accepted for signature
    compatibility; reward-model servers are started by :mod:`rewardloop.models` when
    ``reward.reward_model.enable`` is set.
    """

    def __init__(self, config: Any, rm_resource_pool: Any = None, *, tokenizer: Any = None) -> None:
        self.config = config
        self.reward_config = load_reward_config(config)
        self.tokenizer = tokenizer if tokenizer is not None else load_tokenizer(config)
        self.reward_model_manager: Any = None
        self.reward_router_address: str | None = None
        rm_tokenizer = None
        if self.reward_config.reward_model.enable:
            self.reward_model_manager, rm_tokenizer = _start_reward_models(self.reward_config)
            self.reward_router_address = self.reward_model_manager.router_address
        self.reward_manager_cls = resolve_reward_manager_cls(self.reward_config, kind="loop")
        self.worker = RewardLoopWorker(
            config if config is not None else self.reward_config,  # the trainer config: gdpo reads trainer.*
            self.reward_router_address,
            tokenizer=self.tokenizer,
            reward_model_tokenizer=rm_tokenizer,
        )
        self._rm_tokenizer = rm_tokenizer
        self._handles: list[Any] | None = None

    def compute_rm_score(self, data: Any) -> Any:
        """Score every row; a batch of the input's type with ``rm_scores`` and the extra-info columns."""
        if has_rm_scores(data):
            return data
        manager = self.worker.reward_manager
        core = getattr(manager, "core", None)
        if core is not None:
            rows, batch = core.score(data)
            scores, results = core.pack(rows, batch)
        else:  # a user's RewardManagerBase subclass: one run_single per row
            from ._managers import run_coroutine

            outs = run_coroutine(self.worker.compute_score_batch(data))
            scores = [o["reward_score"] for o in outs]
            results = [dict(o.get("reward_extra_info") or {}) for o in outs]
        rm_scores = self.reward_manager_cls.assemble_rm_scores(data, scores)
        columns = extra_info_columns(results, scores)
        return _make_batch(
            type(data), {"rm_scores": rm_scores}, _as_arrays(columns), {"reward_extra_keys": list(columns)}
        )

    @property
    def reward_loop_worker_handles(self) -> list[Any] | None:
        """Handles for streaming scoring (None when a colocated reward model forces the batch path, as in verl)."""
        rm = self.reward_config.reward_model
        if rm.enable and not rm.enable_resource_pool:
            return None
        if self._handles is None:
            self._handles = self._make_handles()
        return self._handles

    def _make_handles(self) -> list[Any]:
        if self.reward_config.backend != "ray":
            return [LocalWorkerHandle(self.worker)]
        import ray

        cls = ray.remote(RewardLoopWorker)
        cfg = self.reward_config.as_dict()
        cfg["backend"] = "local"  # each actor scores with its own local runner
        n = self.reward_config.num_workers
        # each actor gets an equal share of the rate limits, so together they stay under them
        for key in ("max_rpm", "max_tpm"):
            if cfg.get(key) is not None:
                cfg[key] = cfg[key] / n
        cfg["max_concurrent"] = max(1, -(-cfg["max_concurrent"] // n))
        # what the workers read from the trainer config: gdpo's experiment name, and rollout.n (the size a
        # streamed group scorer waits for)
        actor_cfg: dict[str, Any] = {"reward": cfg}
        experiment = config_path(self.config, "trainer", "experiment_name")
        if experiment:
            actor_cfg["trainer"] = {"experiment_name": experiment}
        rollout_n = config_path(self.config, "actor_rollout_ref", "rollout", "n")
        if rollout_n is not None:
            actor_cfg["actor_rollout_ref"] = {"rollout": {"n": rollout_n}}
        workers = [
            cls.options(name=f"reward_loop_worker_{i}_{random.getrandbits(32):08x}").remote(
                actor_cfg,
                self.reward_router_address,
                tokenizer=self.tokenizer,
                reward_model_tokenizer=self._rm_tokenizer,
            )
            for i in range(self.reward_config.num_workers)
        ]
        # verl's agent loop picks a handle at random: each routes by uid, so a group meets in one worker
        return [UidRoutedHandle(workers, i) for i in range(len(workers))]

    def close(self) -> None:
        # the worker actors first: closing the worker's RayRunner may shut Ray down
        if self._handles and self.reward_config.backend == "ray":
            import contextlib

            import ray

            for handle in self._handles:
                with contextlib.suppress(Exception):
                    ray.kill(handle.workers[handle.index])
        self._handles = None
        self.worker.close()
        if self.reward_model_manager is not None:
            self.reward_model_manager.close()

    def __enter__(self) -> RewardLoopManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _as_arrays(columns: Mapping[str, list[Any]]) -> dict[str, Any]:
    import numpy as np

    out = {}
    for key, values in columns.items():
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            out[key] = np.asarray(values, dtype=np.float64)
        else:
            arr = np.empty(len(values), dtype=object)
            for i, v in enumerate(values):
                arr[i] = v
            out[key] = arr
    return out


def _make_batch(
    kind: type, tensors: dict[str, Any], non_tensors: dict[str, Any], meta: dict[str, Any]
) -> Any:
    from_dict = getattr(kind, "from_dict", None)
    if from_dict is not None:
        try:
            return from_dict(tensors=tensors, non_tensors=non_tensors, meta_info=meta)
        except TypeError:
            pass
    from ...managers import RolloutBatch

    return RolloutBatch(tensors, non_tensors, meta)


def load_tokenizer(config: Any) -> Any:
    """The policy tokenizer named by a trainer config (``actor_rollout_ref.model.tokenizer_path`` or ``.path``)."""
    from ...config import _plain

    root = _plain(config) if config is not None else {}
    actor = root.get("actor_rollout_ref") if isinstance(root, Mapping) else None
    model = (actor.get("model") if isinstance(actor, Mapping) else None) or {}
    path = model.get("tokenizer_path") or model.get("path")
    if not path:
        raise ConfigError(
            "no tokenizer: pass tokenizer=... or a trainer config with actor_rollout_ref.model.path "
            "(or .tokenizer_path) pointing at a local tokenizer"
        )
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        from ...errors import MissingExtraError

        raise MissingExtraError("transformers", "models") from exc
    return AutoTokenizer.from_pretrained(path, trust_remote_code=bool(model.get("trust_remote_code", False)))


def reward_model_settings(cfg: RewardConfig) -> dict[str, Any]:
    """``rewardloop.models.RewardModelServerConfig`` keyword arguments for verl's ``reward.reward_model`` section.

    ``rollout.name`` picks the backend (``vllm``, ``sglang``; ``embedded`` or absent: rewardloop's own server;
    ``external`` with ``rollout.urls``: servers you run). vLLM/SGLang get one server per
    ``tensor_model_parallel_size`` GPUs of ``n_gpus_per_node * nnodes``, as verl sizes its replicas. With a
    custom reward function the model is a generative judge (``/v1/chat/completions``), otherwise a DisRM.
    """
    rm = cfg.reward_model
    rollout = dict(rm.rollout)
    backend = rollout.get("name")
    if backend in (None, "???", ""):
        backend = "embedded"
    settings: dict[str, Any] = {
        "model_path": rm.model_path or "",
        "backend": backend,
        "kind": "generate" if cfg.custom_reward_function.path else "classify",
    }
    if backend in ("vllm", "sglang"):
        tp = int(rollout.get("tensor_model_parallel_size") or 1) * int(rollout.get("data_parallel_size") or 1)
        gpus = rm.n_gpus_per_node * max(rm.nnodes, 1)
        settings.update(num_servers=max(1, gpus // tp), gpus_per_server=tp)
    else:
        settings["num_servers"] = int(rollout.get("num_servers") or 1)
    if backend == "external":
        settings["urls"] = tuple(rollout.get("urls") or ())
    for key in ("device", "startup_timeout_s", "served_model_name", "tokenizer_path"):
        if rollout.get(key) is not None:
            settings[key] = rollout[key]
    return settings


def _start_reward_models(cfg: RewardConfig) -> tuple[Any, Any]:
    """Start the reward-model servers and router of ``reward.reward_model`` (see :mod:`rewardloop.models`)."""
    from ...models import RewardModelManager

    manager = RewardModelManager(**reward_model_settings(cfg))
    return manager, manager.tokenizer

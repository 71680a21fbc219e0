"""The reward configuration: verl's ``reward`` section, parsed once into frozen dataclasses.

Accepted sources: a YAML file path, a mapping, or an OmegaConf node (converted with ``to_container``). The
mapping is either the ``reward`` section itself or a whole trainer config (then its ``reward`` key is read,
and verl's legacy top-level keys are migrated). Every key of verl 0.9's ``reward`` section is understood:

* ``num_workers``, ``custom_reward_function.{path,name,reward_kwargs}``,
  ``reward_manager.{source,name,module.{path,name}}``, ``reward_kwargs`` (free-form keyword arguments for the
  manager; ``overlong_buffer_cfg.{enable,len,penalty_factor,log}`` and ``max_resp_len`` are validated here),
  ``reward_model.{enable,enable_resource_pool,n_gpus_per_node,nnodes,model_path,rollout}``,
  ``sandbox_fusion.{url,max_concurrent,memory_limit_mb}``,
  the ``rate_limited`` manager's ``max_concurrent``, ``max_rpm``, ``max_tpm``, ``estimated_tokens_per_request``,
  ``timeout``.

rewardloop adds keys of its own: ``runner`` (a :class:`~rewardloop.RunnerConfig` mapping: deadlines,
workers, failure policy, ...), ``backend`` (``"local"``, the default, or ``"ray"``), ``extra_info_keys`` and
``components`` (a composite reward; ``docs/composite.md``).

Legacy layouts (verl < 0.6: top-level ``custom_reward_function``, ``sandbox_fusion`` and
``reward_model.{reward_manager,num_workers,reward_kwargs,model.path,...}``) are migrated with a warning that
names the new key. Unknown keys raise :class:`~rewardloop.errors.ConfigError` listing the allowed ones.
"""

from __future__ import annotations

import dataclasses
import logging
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from ._validate import Bool, Choice, Int, Number, Str, check_keys, section
from .errors import ConfigError

if TYPE_CHECKING:
    from .execution import RunnerConfig

__all__ = [
    "CustomFunctionConfig",
    "ModuleConfig",
    "OverlongBufferConfig",
    "RewardConfig",
    "RewardManagerConfig",
    "RewardModelConfig",
    "SandboxFusionConfig",
    "load_reward_config",
    "migrate_legacy_config",
]

logger = logging.getLogger(__name__)

BACKENDS = ("local", "ray")
MANAGER_SOURCES = ("register", "importlib")


# --------------------------------------------------------------------------------------------------
# small parsing helpers: every check names the key and what is allowed


_check_keys = check_keys
_section = section


def _int(value: Any, where: str, *, minimum: int | None = None, optional: bool = False) -> int | None:
    return cast("int | None", Int(minimum=minimum, optional=optional).check(value, where))


def _float(value: Any, where: str, *, positive: bool = False, optional: bool = False) -> float | None:
    return cast(
        "float | None", Number(positive=positive, finite=False, optional=optional).check(value, where)
    )


def _bool(value: Any, where: str) -> bool:
    return cast(bool, Bool().check(value, where))


def _str(value: Any, where: str, *, optional: bool = True) -> str | None:
    return cast("str | None", Str(optional=optional).check(value, where))


def _plain(node: Any) -> Any:
    """An OmegaConf node (or anything with ``to_container``) as plain dicts/lists; other values unchanged."""
    module = type(node).__module__ or ""
    if module.startswith("omegaconf"):
        from omegaconf import OmegaConf  # only present when the caller passes an OmegaConf node

        return OmegaConf.to_container(node, resolve=True)
    return node


# --------------------------------------------------------------------------------------------------
# the sections


@dataclass(frozen=True)
class CustomFunctionConfig:
    """``custom_reward_function``: a verl-style ``compute_score`` loaded from ``path`` (a file or ``pkg://``)."""

    path: str | None = None
    name: str = "compute_score"
    reward_kwargs: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> CustomFunctionConfig:
        _check_keys(data, ("path", "name", "reward_kwargs"), where)
        kwargs = data.get("reward_kwargs") or {}
        if not isinstance(kwargs, Mapping):
            raise ConfigError(f"{where}.reward_kwargs must be a mapping, got {type(kwargs).__name__}")
        return cls(
            path=_str(data.get("path"), f"{where}.path"),
            name=_str(data.get("name"), f"{where}.name") or "compute_score",
            reward_kwargs=dict(kwargs),
        )


@dataclass(frozen=True)
class ModuleConfig:
    """Where an ``importlib`` reward manager class lives: a file path (or ``pkg://``) and a class name."""

    path: str | None = None
    name: str = "custom_reward_manager"


@dataclass(frozen=True)
class RewardManagerConfig:
    """``reward_manager``: which manager class; ``source="register"`` looks ``name`` up in the registry."""

    source: Literal["register", "importlib"] = "register"
    name: str = "naive"
    module: ModuleConfig = field(default_factory=ModuleConfig)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> RewardManagerConfig:
        _check_keys(data, ("source", "name", "module"), where)
        source = Choice(MANAGER_SOURCES).check(data.get("source") or "register", f"{where}.source")
        module = _section(data, "module", where)
        _check_keys(module, ("path", "name"), f"{where}.module")
        module_cfg = ModuleConfig(
            path=_str(module.get("path"), f"{where}.module.path"),
            name=_str(module.get("name"), f"{where}.module.name") or "custom_reward_manager",
        )
        if source == "importlib" and not module_cfg.path:
            raise ConfigError(f"{where}.source is 'importlib', so {where}.module.path must be set")
        return cls(source=source, name=_str(data.get("name"), f"{where}.name") or "naive", module=module_cfg)


@dataclass(frozen=True)
class OverlongBufferConfig:
    """DAPO's overlong shaping: the last ``len`` tokens before ``max_resp_len`` are penalised linearly."""

    enable: bool = False
    len: int = 0
    penalty_factor: float = 1.0
    log: bool = False

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> OverlongBufferConfig:
        _check_keys(data, ("enable", "len", "penalty_factor", "log"), where)
        return cls(
            enable=_bool(data.get("enable", False), f"{where}.enable"),
            len=_int(data.get("len", 0), f"{where}.len", minimum=0),  # type: ignore[arg-type]
            penalty_factor=_float(data.get("penalty_factor", 1.0), f"{where}.penalty_factor"),  # type: ignore[arg-type]
            log=_bool(data.get("log", False), f"{where}.log"),
        )


def parse_overlong(
    reward_kwargs: Mapping[str, Any], where: str = "reward.reward_kwargs"
) -> tuple[OverlongBufferConfig | None, int | None]:
    """``(overlong_buffer_cfg, max_resp_len)`` from ``reward_kwargs``, validated together.

    An enabled buffer needs ``max_resp_len``, ``len > 0`` and ``max_resp_len >= len``; a disabled or absent
    one needs nothing (verl 0.4 crashed on an absent one).
    """
    raw = _plain(reward_kwargs.get("overlong_buffer_cfg"))
    if raw is not None and not isinstance(raw, Mapping):
        raise ConfigError(f"{where}.overlong_buffer_cfg must be a mapping, got {type(raw).__name__}")
    cfg = OverlongBufferConfig.from_dict(raw, f"{where}.overlong_buffer_cfg") if raw is not None else None
    max_resp_len = _int(reward_kwargs.get("max_resp_len"), f"{where}.max_resp_len", minimum=1, optional=True)
    if cfg is not None and cfg.enable:
        if max_resp_len is None:
            raise ConfigError(
                f"{where}.max_resp_len must be provided when {where}.overlong_buffer_cfg.enable is true "
                "(the maximum response length in tokens, e.g. data.max_response_length)"
            )
        if cfg.len <= 0:
            raise ConfigError(f"{where}.overlong_buffer_cfg.len must be > 0 when enabled, got {cfg.len}")
        if max_resp_len < cfg.len:
            raise ConfigError(
                f"{where}.max_resp_len must be larger than or equal to {where}.overlong_buffer_cfg.len "
                f"({max_resp_len} < {cfg.len})"
            )
    return cfg, max_resp_len


@dataclass(frozen=True)
class RewardModelConfig:
    """``reward_model``: reward-model servers (DisRM, or the judge behind a GenRM custom function).

    ``rollout`` holds the engine settings verl passes to its inference servers (``name`` = vllm / sglang,
    ``tensor_model_parallel_size``, ...); rewardloop also accepts ``name: embedded`` (its own CPU/GPU server).
    """

    enable: bool = False
    enable_resource_pool: bool = False
    n_gpus_per_node: int = 8
    nnodes: int = 0
    model_path: str | None = None
    rollout: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> RewardModelConfig:
        _check_keys(
            data,
            ("enable", "enable_resource_pool", "n_gpus_per_node", "nnodes", "model_path", "rollout"),
            where,
        )
        cfg = cls(
            enable=_bool(data.get("enable", False), f"{where}.enable"),
            enable_resource_pool=_bool(
                data.get("enable_resource_pool", False), f"{where}.enable_resource_pool"
            ),
            n_gpus_per_node=_int(data.get("n_gpus_per_node", 8), f"{where}.n_gpus_per_node", minimum=0),  # type: ignore[arg-type]
            nnodes=_int(data.get("nnodes", 0), f"{where}.nnodes", minimum=0),  # type: ignore[arg-type]
            model_path=_str(data.get("model_path"), f"{where}.model_path"),
            rollout=dict(_section(data, "rollout", where)),
        )
        if cfg.enable and not cfg.model_path:
            raise ConfigError(f"{where}.model_path must be set when {where}.enable is true")
        return cfg


@dataclass(frozen=True)
class SandboxFusionConfig:
    """``sandbox_fusion``: run code-task tests on a SandboxFusion server (or ``rewardloop sandbox serve``)."""

    url: str | None = None
    max_concurrent: int = 64
    memory_limit_mb: int = 1024

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> SandboxFusionConfig:
        _check_keys(data, ("url", "max_concurrent", "memory_limit_mb"), where)
        return cls(
            url=_str(data.get("url"), f"{where}.url"),
            max_concurrent=_int(data.get("max_concurrent", 64), f"{where}.max_concurrent", minimum=1),  # type: ignore[arg-type]
            memory_limit_mb=_int(data.get("memory_limit_mb", 1024), f"{where}.memory_limit_mb", minimum=1),  # type: ignore[arg-type]
        )


_REWARD_KEYS = (
    "num_workers",
    "custom_reward_function",
    "reward_manager",
    "reward_kwargs",
    "reward_model",
    "sandbox_fusion",
    "max_concurrent",
    "max_rpm",
    "max_tpm",
    "estimated_tokens_per_request",
    "timeout",
    "runner",
    "backend",
    "extra_info_keys",
    "components",
    "monitors",
    "routes",
    "infer_extra_info_keys",
)

_EXTRA_KINDS = ("float", "bool", "str", "any")


@dataclass(frozen=True)
class RewardConfig:
    """verl's ``reward`` section plus rewardloop's ``runner`` and ``backend``. Build it with
    :func:`load_reward_config`; every default is defined here once."""

    num_workers: int = 8
    custom_reward_function: CustomFunctionConfig = field(default_factory=CustomFunctionConfig)
    reward_manager: RewardManagerConfig = field(default_factory=RewardManagerConfig)
    reward_kwargs: Mapping[str, Any] = field(default_factory=dict)
    reward_model: RewardModelConfig = field(default_factory=RewardModelConfig)
    sandbox_fusion: SandboxFusionConfig = field(default_factory=SandboxFusionConfig)
    max_concurrent: int = 1
    max_rpm: float | None = None
    max_tpm: float | None = None
    estimated_tokens_per_request: int = 2000
    timeout: float = 300.0
    #: ours: the ``runner`` section, parsed once (:class:`~rewardloop.RunnerConfig`; it remembers the keys the
    #: section set, :meth:`~rewardloop.RunnerConfig.given`); a mapping given here is parsed into one
    runner: RunnerConfig = field(default_factory=lambda: _runner_config({}, "reward.runner"))
    backend: Literal["local", "ray"] = "local"
    #: ours: ``reward_extra_info`` keys every sample carries (name -> float | bool | str | any); a trainer
    #: config's ``algorithm.gdpo_reward_keys`` are added as floats
    extra_info_keys: Mapping[str, str] = field(default_factory=dict)
    #: ours: a composite reward, one mapping per component (``scorer`` + ``options`` or ``path`` + ``function``
    #: + ``reward_kwargs``, and ``name``, ``weight``, ``optional``); see ``docs/composite.md``
    components: tuple[Mapping[str, Any], ...] = ()
    #: ours: reward-hacking monitors (``enable``, ``penalize``: monitor -> reward; ``docs/monitors.md``)
    monitors: Mapping[str, Any] = field(default_factory=dict)
    #: ours: routes of this config, consulted before the global routing table; each
    #: ``{task, scorer, options, prefix}`` (from ``{TASK: SCORER}`` or ``{TASK: {scorer, options}}``; a
    #: task ending in ``*`` is a prefix)
    routes: tuple[Mapping[str, Any], ...] = ()
    #: ours: verl's reward loop keeps every dict key a custom function returns; with true (verl's behaviour)
    #: the keys are read from the function's returned dict literals, else learned from its first result;
    #: false keeps ``run_single``'s extra info to the declared keys (``extra_info_keys``) only
    infer_extra_info_keys: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.runner, Mapping):
            object.__setattr__(self, "runner", _runner_config(self.runner, "reward.runner"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "reward") -> RewardConfig:
        data = _plain(data)
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where} must be a mapping, got {type(data).__name__}")
        _check_keys(data, _REWARD_KEYS, where)
        reward_kwargs = dict(_section(data, "reward_kwargs", where))
        parse_overlong(reward_kwargs, f"{where}.reward_kwargs")  # fail fast on a bad DAPO config
        backend = Choice(BACKENDS).check(data.get("backend") or "local", f"{where}.backend")
        runner = _runner_config(_section(data, "runner", where), f"{where}.runner")
        components = _components(data.get("components"), f"{where}.components")
        if components and (_section(data, "custom_reward_function", where) or {}).get("path"):
            raise ConfigError(
                f"{where}: set either custom_reward_function.path or components, not both "
                "(a component may name a custom function: {path: FILE.py, function: NAME})"
            )
        return cls(
            num_workers=_int(data.get("num_workers", 8), f"{where}.num_workers", minimum=1),  # type: ignore[arg-type]
            custom_reward_function=CustomFunctionConfig.from_dict(
                _section(data, "custom_reward_function", where), f"{where}.custom_reward_function"
            ),
            reward_manager=RewardManagerConfig.from_dict(
                _section(data, "reward_manager", where), f"{where}.reward_manager"
            ),
            reward_kwargs=reward_kwargs,
            reward_model=RewardModelConfig.from_dict(
                _section(data, "reward_model", where), f"{where}.reward_model"
            ),
            sandbox_fusion=SandboxFusionConfig.from_dict(
                _section(data, "sandbox_fusion", where), f"{where}.sandbox_fusion"
            ),
            max_concurrent=_int(data.get("max_concurrent", 1), f"{where}.max_concurrent", minimum=1),  # type: ignore[arg-type]
            max_rpm=_float(data.get("max_rpm"), f"{where}.max_rpm", positive=True, optional=True),
            max_tpm=_float(data.get("max_tpm"), f"{where}.max_tpm", positive=True, optional=True),
            estimated_tokens_per_request=_int(  # type: ignore[arg-type]
                data.get("estimated_tokens_per_request", 2000),
                f"{where}.estimated_tokens_per_request",
                minimum=1,
            ),
            timeout=_float(data.get("timeout", 300.0), f"{where}.timeout", positive=True),  # type: ignore[arg-type]
            runner=runner,
            backend=backend,
            extra_info_keys=_extra_info_keys(data.get("extra_info_keys"), f"{where}.extra_info_keys"),
            components=components,
            monitors=_monitors(data.get("monitors"), f"{where}.monitors"),
            routes=_routes(data.get("routes"), f"{where}.routes"),
            infer_extra_info_keys=_bool(
                data.get("infer_extra_info_keys", True), f"{where}.infer_extra_info_keys"
            ),
        )

    def as_dict(self) -> dict[str, Any]:
        """Plain nested dicts (round-trips through :meth:`from_dict`); ``runner`` as the section was given."""
        out = dataclasses.asdict(self)
        out["runner"] = self.runner.given()
        return out

    def fingerprint(self) -> str:
        """A short hash of the whole config (every key, defaults included): two runs with the same fingerprint
        were scored by the same reward definition (the code of a custom function is not part of it)."""
        import hashlib
        import json

        text = json.dumps(self.as_dict(), sort_keys=True, default=repr, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def overlong(self) -> tuple[OverlongBufferConfig | None, int | None]:
        """The validated ``(overlong_buffer_cfg, max_resp_len)`` of ``reward_kwargs``."""
        return parse_overlong(self.reward_kwargs)


def _extra_info_keys(value: Any, where: str) -> dict[str, str]:
    """``[name, ...]`` (floats) or ``{name: float | bool | str | any}``."""
    if value is None:
        return {}
    if isinstance(value, list | tuple):
        value = dict.fromkeys(value, "float")
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"{where} must be a list of names or a mapping name -> type, got {type(value).__name__}"
        )
    out: dict[str, str] = {}
    for key, kind in value.items():
        if not isinstance(key, str) or not key:
            raise ConfigError(f"{where}: keys must be non-empty strings, got {key!r}")
        out[key] = Choice(_EXTRA_KINDS).check(kind, f"{where}.{key}")
    return out


_COMPONENT_KEYS = ("name", "scorer", "options", "path", "function", "reward_kwargs", "weight", "optional")


def _components(value: Any, where: str) -> tuple[dict[str, Any], ...]:
    """``reward.components``: a list of mappings with known keys, each naming ``scorer`` or ``path``."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise ConfigError(f"{where} must be a list of component mappings, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        here = f"{where}[{i}]"
        if not isinstance(item, Mapping):
            raise ConfigError(f"{here} must be a mapping, got {type(item).__name__}")
        _check_keys(item, _COMPONENT_KEYS, here)
        if ("scorer" in item) == ("path" in item):
            raise ConfigError(f"{here}: give exactly one of scorer (a registered name) or path (a .py file)")
        if "weight" in item:
            _float(item["weight"], f"{here}.weight")
        out.append(dict(item))
    return tuple(out)


_ROUTE_KEYS = ("scorer", "options")


def _routes(value: Any, where: str) -> tuple[dict[str, Any], ...]:
    """``reward.routes``: ``{TASK: SCORER}`` or ``{TASK: {scorer, options}}`` (``TASK*``: a prefix), or the
    normal form ``as_dict`` writes, a list of ``{task, scorer, options, prefix}``. Scorer names are checked
    when the reward is built, against the scorers that exist."""
    value = _plain(value)
    if not value:
        return ()
    if isinstance(value, list | tuple):  # the normal form (what as_dict() writes): round-trips
        items = []
        for i, item in enumerate(value):
            if not isinstance(item, Mapping):
                raise ConfigError(f"{where}[{i}] must be a mapping, got {type(item).__name__}")
            _check_keys(item, ("task", "scorer", "options", "prefix"), f"{where}[{i}]")
            task = _str(item.get("task"), f"{where}[{i}].task", optional=False)
            star = "*" if item.get("prefix") else ""
            items.append((f"{task}{star}", {"scorer": item.get("scorer"), "options": item.get("options")}))
    elif isinstance(value, Mapping):
        items = list(value.items())
    else:
        raise ConfigError(f"{where} must map data sources to scorers, got {type(value).__name__}")
    out = []
    for task, target in items:
        here = f"{where}.{task}"
        if not isinstance(task, str) or not task.rstrip("*"):
            raise ConfigError(f"{where}: a route needs a non-empty data source, got {task!r}")
        if isinstance(target, str):
            target = {"scorer": target}
        if not isinstance(target, Mapping):
            raise ConfigError(f"{here} must be a scorer name or {{scorer, options}}, got {target!r}")
        _check_keys(target, _ROUTE_KEYS, here)
        scorer = _str(target.get("scorer"), f"{here}.scorer", optional=False)
        options = _plain(target.get("options")) or {}
        if not isinstance(options, Mapping):
            raise ConfigError(f"{here}.options must be a mapping, got {type(options).__name__}")
        prefix = task.endswith("*")
        out.append({"task": task.rstrip("*"), "scorer": scorer, "options": dict(options), "prefix": prefix})
    return tuple(out)


_MONITOR_KEYS = ("enable", "penalize")


def _monitors(value: Any, where: str) -> dict[str, Any]:
    """``reward.monitors``: ``{enable: bool, penalize: {monitor: reward}}`` (monitor names are checked when
    the suite is built, against the monitors that exist)."""
    value = _plain(value)
    if not value:  # absent, or {} (what as_dict() writes for "off": the config round-trips)
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a mapping with keys {', '.join(_MONITOR_KEYS)}")
    _check_keys(value, _MONITOR_KEYS, where)
    enable = _bool(value.get("enable", True), f"{where}.enable")
    penalize = value.get("penalize") or {}
    if not isinstance(penalize, Mapping):
        raise ConfigError(
            f"{where}.penalize must map monitor names to rewards, got {type(penalize).__name__}"
        )
    rewards = {str(k): _float(v, f"{where}.penalize.{k}") for k, v in penalize.items()}
    return {"enable": enable, "penalize": rewards}


def _runner_config(runner: Mapping[str, Any], where: str) -> RunnerConfig:
    """The ``runner`` section parsed by :class:`~rewardloop.RunnerConfig`'s own checks (one place for them)."""
    from .execution import RunnerConfig

    try:
        return RunnerConfig.from_dict(runner, where)
    except ConfigError as exc:  # a value error names the field alone: say where it is
        message = str(exc)
        raise ConfigError(message if message.startswith("unknown key") else f"{where}: {message}") from None


# --------------------------------------------------------------------------------------------------
# legacy layout migration

# legacy key path (from the trainer config root) -> new key path under ``reward``
_LEGACY_MOVES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("custom_reward_function",), ("custom_reward_function",)),
    (("sandbox_fusion",), ("sandbox_fusion",)),
    (("reward_model", "sandbox_fusion"), ("sandbox_fusion",)),
    (("reward_model", "num_workers"), ("num_workers",)),
    (("reward_model", "reward_manager"), ("reward_manager", "name")),
    (("reward_model", "reward_loop_source"), ("reward_manager", "source")),
    (("reward_model", "reward_loop_module_path"), ("reward_manager", "module", "path")),
    (("reward_model", "reward_loop_class_name"), ("reward_manager", "module", "name")),
    (("reward_model", "reward_kwargs"), ("reward_kwargs",)),
    (("reward_model", "enable"), ("reward_model", "enable")),
    (("reward_model", "enable_resource_pool"), ("reward_model", "enable_resource_pool")),
    (("reward_model", "n_gpus_per_node"), ("reward_model", "n_gpus_per_node")),
    (("reward_model", "nnodes"), ("reward_model", "nnodes")),
    (("reward_model", "model", "path"), ("reward_model", "model_path")),
    (("reward_model", "rollout"), ("reward_model", "rollout")),
    (("reward_model", "max_concurrent"), ("max_concurrent",)),
    (("reward_model", "max_rpm"), ("max_rpm",)),
    (("reward_model", "max_tpm"), ("max_tpm",)),
    (("reward_model", "estimated_tokens_per_request"), ("estimated_tokens_per_request",)),
    (("reward_model", "timeout"), ("timeout",)),
)


def _get_path(data: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = data
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _set_path(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = data
    for key in path[:-1]:
        child = node.get(key)
        node[key] = child = dict(child) if isinstance(child, Mapping) else {}
        node = child
    node[path[-1]] = value


def _meaningful(value: Any) -> bool:
    """verl's legacy yaml lists every legacy key with a null value: only set values are migrated."""
    if value is None:
        return False
    if isinstance(value, Mapping):
        return any(_meaningful(v) for v in value.values())
    return True


def migrate_legacy_config(root: Mapping[str, Any]) -> dict[str, Any]:
    """Move verl's legacy top-level reward keys into ``reward`` and return the new ``reward`` section.

    Each migrated key gives a :class:`DeprecationWarning` (and a log line) naming its new key. A key set in
    both places keeps the ``reward`` value. ``root`` is not modified.
    """
    root = _plain(root)
    reward = dict(_plain(root.get("reward")) or {})
    for old, new in _LEGACY_MOVES:
        value = _plain(_get_path(root, old))
        if not _meaningful(value):
            continue
        if isinstance(value, Mapping):
            value = {k: v for k, v in value.items() if _meaningful(v)}
        if old == ("custom_reward_function",) and not value.get("path"):
            continue  # verl's old default block (name only) configures nothing
        if _meaningful(_get_path(reward, new)):
            continue
        old_name, new_name = ".".join(old), "reward." + ".".join(new)
        message = f"verl legacy config key {old_name!r} is deprecated; migrated to {new_name!r}"
        warnings.warn(message, DeprecationWarning, stacklevel=3)
        logger.warning(message)
        _set_path(reward, new, value)
    return reward


def load_reward_config(source: str | Path | Mapping[str, Any] | Any | None = None) -> RewardConfig:
    """Parse a reward configuration from a YAML path, a mapping or an OmegaConf node (None: defaults).

    A mapping with a ``reward`` key, or with any legacy top-level reward key, is treated as a whole trainer
    config: legacy keys are migrated (with warnings) and the ``reward`` section is parsed. Otherwise the
    mapping is the ``reward`` section itself.
    """
    if source is None:
        return RewardConfig()
    if isinstance(source, RewardConfig):
        return source
    if isinstance(source, str | Path):
        source = _read_yaml(Path(source))
    data = _plain(source)
    if not isinstance(data, Mapping):
        raise ConfigError(f"a reward config must be a mapping or a YAML file, got {type(data).__name__}")
    if _is_trainer_config(data):
        cfg = RewardConfig.from_dict(migrate_legacy_config(data), "reward")
        gdpo = _get_path(data, ("algorithm", "gdpo_reward_keys"))
        if gdpo:  # GDPO reads these columns as float32 for every sample: declare them
            keys = {str(k): "float" for k in gdpo}
            cfg = dataclasses.replace(cfg, extra_info_keys={**keys, **cfg.extra_info_keys})
        return cfg
    return RewardConfig.from_dict(data, "reward")


_TRAINER_KEYS = ("reward", "actor_rollout_ref", "trainer", "data", "algorithm", "critic")


def _is_trainer_config(data: Mapping[str, Any]) -> bool:
    if any(key in data for key in _TRAINER_KEYS):
        return True
    # a legacy reward_model block (model.path, reward_manager, ...) rather than the new reward.reward_model
    legacy_rm = data.get("reward_model")
    return isinstance(legacy_rm, Mapping) and any(
        key in legacy_rm for key in ("reward_manager", "model", "reward_kwargs", "num_workers")
    )


def _read_yaml(path: Path) -> Any:
    import yaml

    if not path.is_file():
        raise ConfigError(f"reward config file not found: {path}")
    try:
        with path.open(encoding="utf-8") as fh:
            return yaml.safe_load(fh) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from None

"""OpenRLHF adapter: a ``reward_func(queries, prompts, labels, **kwargs)`` backed by rewardloop's scorers.

OpenRLHF's custom-reward path (``--reward.remote_url path/to/file.py``, formerly ``--remote_rm_url``)
imports that file and calls its ``reward_func(queries, prompts, labels)`` with lists of strings: ``queries``
are prompt + response decoded *with* special tokens, ``prompts`` the prompts, ``labels`` the dataset's
``--data.label_key`` column (formerly ``--label_key``). Since 2026 it calls it once per sample, from a
worker thread (``asyncio.to_thread``), so calls arrive concurrently. It expects::

    {"rewards": Tensor (n,), "scores": Tensor (n,), "extra_logs": {name: Tensor (n,)}}

``rewards`` feed the advantages, ``scores`` the dynamic filtering (0-1 accuracy), ``extra_logs`` go to
the experiment tracker. This module returns float32 tensors when torch is importable, else lists.

OpenRLHF loads the file by path, outside any package, so point it at a two-line shim that imports
:func:`reward_func` from here (``examples/openrlhf/reward_func.py``), or build a configured one with
:func:`make_reward_func` in your own file.

How each query becomes a :class:`~rewardloop.Sample`:

* ``response``: the query with its prompt removed: the prompt is stripped when the query starts with
  it, or with a suffix of it (OpenRLHF truncates long prompts from the left); otherwise (a prompt that
  re-tokenised differently) the text after the last occurrence of the prompt's final 64 characters;
  failing that, the whole query, logged. Trailing
  end-of-sequence markers (``eos_tokens``; by default ``<|im_end|>``, ``<|endoftext|>``, ``<|eot_id|>``,
  ``</s>``, ``<|end|>``, ``<｜end▁of▁sentence｜>``) are removed, since verl-style scorers expect text
  decoded without special tokens.
* ``ground_truth``: the label. A dict label (or its JSON text) in verl's ``reward_model`` layout gives
  its ``ground_truth``, and may carry its own ``data_source``.
* ``task``: the label's ``data_source``, else the ``data_source`` keyword (a string or one per query),
  else the ``REWARDLOOP_DATA_SOURCE`` environment variable. Routed like ``default_compute_score``, unless a
  ``scorer`` (or ``REWARDLOOP_SCORER``, a registered scorer name) is set.

Failures: OpenRLHF has no per-sample "excluded" reward in a tensor, so a failed sample gets ``on_error``
(default: a reward config's ``runner.on_error``, else 0.0; ``REWARDLOOP_ON_ERROR``), and
``extra_logs["rewardloop_failed"]`` marks it (1.0) so the failure rate is on the dashboard.
``on_error="raise"`` raises instead: OpenRLHF then logs the error and leaves that sample unrewarded (its own notion of exclusion). ``scores`` hold the same values as
``rewards`` (the rule scorers already give 0-1 accuracy); scorers that report an ``acc`` metric give it
there instead, and every numeric metric a scorer reports becomes an ``extra_logs`` entry.

Limits: scorers run in this process's :class:`~rewardloop.Runner` (one per process, shared by all
threads); for many trainers, serve rewardloop over HTTP and use OpenRLHF's URL form instead.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeGuard

from .._summary import short_error
from .._validate import renamed
from ..errors import ConfigError, ScoringError
from ..scorers import Scorer, as_scorer
from ..types import Sample, Score, Status

__all__ = [
    "DEFAULT_EOS_TOKENS",
    "OpenRLHFRewardFunc",
    "make_reward_func",
    "response_from_query",
    "reward_func",
]

logger = logging.getLogger(__name__)

DEFAULT_EOS_TOKENS: tuple[str, ...] = (
    "<|im_end|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "</s>",
    "<|end|>",
    "<｜end▁of▁sentence｜>",
)
_TAIL_CHARS = 64  # how much of the prompt's end must match when the query does not start with the prompt
ENV_DATA_SOURCE = "REWARDLOOP_DATA_SOURCE"
ENV_SCORER = "REWARDLOOP_SCORER"
ENV_ON_ERROR = "REWARDLOOP_ON_ERROR"


def response_from_query(query: str, prompt: str, eos_tokens: Sequence[str] = DEFAULT_EOS_TOKENS) -> str:
    """The response part of an OpenRLHF query (prompt + response), without trailing end-of-sequence markers."""
    if prompt and query.startswith(prompt):
        return _strip_eos(query[len(prompt) :], eos_tokens)
    end = _end_of_truncated_prompt(query, prompt)
    if end is None:
        tail = prompt[-_TAIL_CHARS:]
        at = query.rfind(tail) if tail else -1
        end = at + len(tail) if at >= 0 else None
    if end is None:
        if prompt:
            logger.info("query does not contain its prompt; scoring the whole query")
        end = 0
    return _strip_eos(query[end:], eos_tokens)


def _end_of_truncated_prompt(query: str, prompt: str) -> int | None:
    """Where the prompt ends when the query starts with a suffix of it (OpenRLHF cuts long prompts from the left)."""
    tail = prompt[-16:]
    if not tail:
        return None
    at = query.find(tail)
    while at >= 0:
        end = at + len(tail)
        if prompt.endswith(query[:end]):
            return end
        at = query.find(tail, at + 1)
    return None


def _strip_eos(text: str, eos_tokens: Sequence[str]) -> str:
    changed = True
    while changed:  # "...<|im_end|><|endoftext|>": strip every trailing marker
        changed = False
        stripped = text.rstrip()
        for token in eos_tokens:
            if token and stripped.endswith(token):
                text = stripped[: -len(token)]
                changed = True
                break
    return text


class OpenRLHFRewardFunc:
    """A configured OpenRLHF ``reward_func``; build it with :func:`make_reward_func`. Thread-safe."""

    def __init__(
        self,
        scorer: Scorer | str | Callable[[Sample], Any] | None = None,
        *,
        data_source: str | None = None,
        on_error: float | Literal["raise"] | str | None = None,
        runner: Any = None,
        eos_tokens: Sequence[str] = DEFAULT_EOS_TOKENS,
        timeout_s: float | None = None,
        return_tensors: bool | None = None,
        config: Any = None,
        timeout: float | None = None,  # deprecated name of timeout_s
    ) -> None:
        if config is not None and scorer is not None:
            raise ConfigError(
                "give a scorer or a reward config, not both (a config's components name scorers)"
            )
        self.config = None if config is None else _adapter_config(config)
        if isinstance(scorer, str):
            from ..scorers import get_scorer

            scorer = get_scorer(scorer)
        self.scorer: Scorer | None = None if scorer is None else as_scorer(scorer)
        self.data_source = data_source
        if on_error is None:
            # a config's failure policy is the training reward's (the CLI and the service apply it); else 0.0
            configured = None if config is None else _config_on_error(config)
            on_error = 0.0 if configured is None else configured
        self.on_error = _check_on_error(on_error)
        self.eos_tokens = tuple(eos_tokens)
        self.timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "OpenRLHFRewardFunc")
        self.return_tensors = return_tensors
        self._runner = runner
        self._manager: Any = None
        self._lock = threading.Lock()
        if self.config is not None:
            self._get_manager()  # build (and so check) the config now, refusing what cannot be applied

    def __call__(
        self, queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any
    ) -> dict[str, Any]:
        n = len(queries)
        if len(prompts) != n or len(labels) != n:
            raise ValueError(
                f"got {n} queries, {len(prompts)} prompts and {len(labels)} labels; need one each"
            )
        sources = _per_row(kwargs.get("data_source", self.data_source), n)
        scores: list[Score | None] = [None] * n
        todo: list[tuple[int, Sample]] = []
        manager = self._get_manager()
        for i in range(n):
            try:
                sample = self._sample(queries[i], prompts[i], labels[i], sources[i])
                manager.scorer_for(sample)  # an unrouted data source raises: a configuration error
            except (TypeError, ValueError) as exc:  # bad row: this sample fails, the batch goes on
                scores[i] = Score.failure(Status.INVALID_INPUT, str(exc))
                continue
            todo.append((i, sample))
        if todo:
            batch = manager.score([x for _, x in todo])
            for (i, _), score in zip(todo, batch, strict=True):
                scores[i] = score
        return self._result([s for s in scores if s is not None])

    def _sample(self, query: str, prompt: str, label: Any, source: Any) -> Sample:
        if not isinstance(query, str) or not isinstance(prompt, str):
            raise TypeError(
                "queries and prompts must be strings (OpenRLHF decodes token ids before the call)"
            )
        label = _maybe_json(label)
        ground_truth, metadata = label, {}
        if isinstance(label, Mapping) and "ground_truth" in label:
            ground_truth = label["ground_truth"]
            source = label.get("data_source", source)
            extra = _maybe_json(label.get("extra_info"))
            metadata = dict(extra) if isinstance(extra, Mapping) else {}
        if self.scorer is None and not isinstance(source, str):
            raise ValueError(
                f"no data_source for this sample: set {ENV_DATA_SOURCE}, pass data_source=, put it in the "
                "label dict, or configure a scorer"
            )
        response = response_from_query(query, prompt, self.eos_tokens)
        return Sample(
            response=response, ground_truth=ground_truth, task=source, prompt=prompt, metadata=metadata
        )

    def _result(self, scores: list[Score]) -> dict[str, Any]:
        failed = [s for s in scores if not s.ok]
        if failed:
            first = failed[0]
            if self.on_error == "raise":
                raise ScoringError(f"{first.status.value}: {first.info.get('error')}")
            logger.warning(
                "rewardloop: %d of %d samples failed (%s: %s); reward set to %s",
                len(failed),
                len(scores),
                first.status.value,
                short_error(first.info.get("error")),
                self.on_error,
            )
        fill = float(self.on_error)
        rewards = [s.value if s.ok and s.value is not None else fill for s in scores]
        accuracy = [_accuracy(s, r) for s, r in zip(scores, rewards, strict=True)]
        logs: dict[str, list[float]] = {"rewardloop_failed": [0.0 if s.ok else 1.0 for s in scores]}
        for key in sorted({k for s in scores for k, v in s.metrics.items() if _numeric(v)}):
            logs[key] = [float(s.metrics[key]) if _numeric(s.metrics.get(key)) else 0.0 for s in scores]
        return {
            "rewards": self._out(rewards),
            "scores": self._out(accuracy),
            "extra_logs": {k: self._out(v) for k, v in logs.items()},
        }

    def _out(self, values: list[float]) -> Any:
        if self.return_tensors is False:
            return values
        try:
            import torch
        except ImportError:
            if self.return_tensors:
                from ..errors import MissingExtraError

                raise MissingExtraError("torch", "torch") from None
            return values
        return torch.tensor(values, dtype=torch.float32)

    def _get_manager(self) -> Any:
        """The :class:`~rewardloop.RewardManager` that scores: the one builder's for a config (refusing what
        OpenRLHF cannot feed it: it passes no token lengths), else the scorer or routing on a private runner."""
        with self._lock:  # OpenRLHF calls from many threads at once: build one manager
            if self._manager is None:
                from ..execution import Runner
                from ..managers import RewardManager

                if self.config is not None:
                    manager = RewardManager.from_config(self.config, runner=self._runner)
                    gaps = manager.unapplied(lengths=False)
                    if gaps:
                        manager.close()
                        raise ConfigError(
                            "OpenRLHF's reward_func gets no token lengths, so this config cannot be applied: "
                            + "; ".join(gaps)
                        )
                else:
                    runner = self._runner or Runner(on_error=None, timeout_s=self.timeout_s)
                    manager = RewardManager(self.scorer, runner=runner, owns_runner=self._runner is None)
                self._manager = manager
            return self._manager

    def close(self) -> None:
        with self._lock:
            manager, self._manager = self._manager, None
        if manager is not None:
            manager.close()


def _accuracy(score: Score, reward: float) -> float:
    acc = score.metrics.get("acc")
    return float(acc) if score.ok and _numeric(acc) else reward


def _numeric(value: Any) -> TypeGuard[bool | int | float]:
    return isinstance(value, bool | int | float)


def _per_row(value: Any, n: int) -> list[Any]:
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != n:
            raise ValueError(f"data_source has {len(value)} values for {n} queries")
        return list(value)
    return [value] * n


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str) and value[:1] == "{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _adapter_config(config: Any) -> Any:
    """The reward config with the runner's failure policy off: this adapter applies ``on_error`` itself."""
    import dataclasses

    from ..config import load_reward_config

    cfg = load_reward_config(config)
    return dataclasses.replace(cfg, runner=cfg.runner.replace(on_error=None))


def _config_on_error(config: Any) -> Any:
    from ..config import load_reward_config

    return load_reward_config(config).runner.given().get("on_error")


def _check_on_error(on_error: Any) -> float | Literal["raise"]:
    if on_error == "raise":
        return "raise"
    try:
        return float(on_error)
    except (TypeError, ValueError):
        raise ConfigError(f"on_error must be a number or 'raise', got {on_error!r}") from None


def make_reward_func(
    scorer: Scorer | str | Callable[[Sample], Any] | None = None,
    *,
    data_source: str | None = None,
    on_error: float | Literal["raise"] | str | None = None,
    runner: Any = None,
    eos_tokens: Sequence[str] = DEFAULT_EOS_TOKENS,
    timeout_s: float | None = None,
    return_tensors: bool | None = None,
    config: Any = None,
    timeout: float | None = None,  # deprecated name of timeout_s
) -> OpenRLHFRewardFunc:
    """A configured ``reward_func`` for OpenRLHF. ``scorer``: None (route by data_source), a registered
    name, a :class:`~rewardloop.Scorer` or ``fn(sample)``; ``data_source``: the default task;
    ``on_error``: reward of a failed sample, or ``"raise"``; ``return_tensors``: None = tensors when torch
    is installed; ``config``: a reward config (YAML path, mapping or ``RewardConfig``) built by the same
    builder as ``rewardloop score --config`` and ``serve``, instead of ``scorer`` (overlong shaping and the
    ``overlong_zone`` monitor are refused: OpenRLHF passes no token lengths)."""
    timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "make_reward_func")
    return OpenRLHFRewardFunc(
        scorer,
        data_source=data_source,
        on_error=on_error,
        runner=runner,
        eos_tokens=eos_tokens,
        timeout_s=timeout_s,
        return_tensors=return_tensors,
        config=config,
    )


_default: OpenRLHFRewardFunc | None = None
_default_lock = threading.Lock()


def reward_func(
    queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any
) -> dict[str, Any]:
    """OpenRLHF's entry point, configured from the environment on first call: ``REWARDLOOP_DATA_SOURCE``
    (default task), ``REWARDLOOP_SCORER`` (a registered scorer name instead of routing) and
    ``REWARDLOOP_ON_ERROR`` (a number or ``raise``; default 0.0)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = make_reward_func(
                os.environ.get(ENV_SCORER) or None,
                data_source=os.environ.get(ENV_DATA_SOURCE) or None,
                on_error=os.environ.get(ENV_ON_ERROR, "0.0"),
            )
        fn = _default
    return fn(queries, prompts, labels, **kwargs)

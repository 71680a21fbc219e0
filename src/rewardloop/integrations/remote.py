"""Trainer-side functions that forward scoring to a rewardloop service (``rewardloop serve``).

* verl: :func:`compute_score` is a custom reward function (``reward.custom_reward_function.path:
  pkg://rewardloop.integrations.remote``, ``name: compute_score``); :func:`compute_score_batch` is the
  plural form for verl's ``batch`` reward manager (one HTTP request per batch instead of per sample).
  The service URL comes from ``reward_kwargs.url`` or the ``REWARDLOOP_URL`` environment variable; the
  token from ``reward_kwargs.token`` or ``REWARDLOOP_TOKEN``.
* TRL: :func:`trl_reward_func` is a ``reward_funcs`` entry that scores each batch on the service
  (:class:`RemoteScorer` inside :func:`rewardloop.integrations.trl.reward_func`).
* :class:`RemoteScorer`: the service as a :class:`~rewardloop.Scorer`, for any rewardloop entry point.

Failures: the service answers each sample with a status. A failed sample gives ``on_error`` (default
0.0, a number; verl needs a float) and a logged warning; ``return_dict=True`` adds a
``rewardloop_failed`` column (0/1) so verl logs the failure rate with its reward extra info. A service
that cannot be reached after the client's retries raises :class:`~rewardloop.errors.InfraError`: verl
then fails the step loudly rather than training on made-up zeros.

Clients are cached per (URL, token) and process, so every call reuses one connection pool.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .._validate import renamed
from ..scorers import Scorer
from ..types import Sample, Score, Status

__all__ = ["RemoteScorer", "compute_score", "compute_score_batch", "trl_reward_func"]

logger = logging.getLogger(__name__)

ENV_URL = "REWARDLOOP_URL"
ENV_TOKEN = "REWARDLOOP_TOKEN"

_clients: dict[tuple[str, str | None, float], Any] = {}
_clients_lock = threading.Lock()


def _client(url: str | None, token: str | None, timeout: float | None) -> Any:
    from ..client import RewardClient

    url = url or os.environ.get(ENV_URL)
    if not url:
        from ..errors import ConfigError

        raise ConfigError(
            f"no rewardloop service URL: set reward_kwargs.url in the verl config or the {ENV_URL} "
            "environment variable (e.g. http://127.0.0.1:8000)"
        )
    token = token or os.environ.get(ENV_TOKEN) or None
    key = (url, token, float(timeout or 600.0))
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = RewardClient(url, token=token, timeout_s=key[2])
        return client


def _to_verl(score: Score, on_error: float, return_dict: bool) -> float | dict[str, Any]:
    if not score.ok:
        logger.warning(
            "rewardloop service: %s (%s); reward set to %s",
            score.status.value,
            score.info.get("error"),
            on_error,
        )
    reward = float(score.value) if score.ok else float(on_error)  # type: ignore[arg-type]
    if not return_dict:
        return reward
    return {"score": reward, "rewardloop_failed": 0.0 if score.ok else 1.0}


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    *,
    url: str | None = None,
    token: str | None = None,
    timeout_s: float | None = None,
    on_error: float = 0.0,
    return_dict: bool = False,
    timeout: float | None = None,  # deprecated name of timeout_s
    **kwargs: Any,
) -> float | dict[str, Any]:
    """verl's custom reward function, scored on the service. Other verl keyword arguments are ignored."""
    sample = Sample(
        response=solution_str, ground_truth=ground_truth, task=data_source, metadata=dict(extra_info or {})
    )
    timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "compute_score")
    score = _client(url, token, timeout_s).score_one(sample)
    return _to_verl(score, on_error, return_dict)


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    *,
    url: str | None = None,
    token: str | None = None,
    timeout_s: float | None = None,
    on_error: float = 0.0,
    return_dict: bool = False,
    timeout: float | None = None,  # deprecated name of timeout_s
    **kwargs: Any,
) -> list[float | dict[str, Any]]:
    """verl's ``batch`` manager form: one request for the whole batch, results in input order."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    samples = [
        Sample(response=r, ground_truth=g, task=d, metadata=dict(e or {}))
        for d, r, g, e in zip(data_sources, solution_strs, ground_truths, infos, strict=True)
    ]
    timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "compute_score_batch")
    batch = _client(url, token, timeout_s).score(samples)
    return [_to_verl(score, on_error, return_dict) for score in batch]


class RemoteScorer(Scorer):
    """The service as a scorer: each chunk of samples is one ``/v1/score`` request; statuses pass through.

    Picklable (the HTTP client is rebuilt in each process). Connection failures after the client's retries
    become ``infra_error`` scores, which the local Runner retries too.
    """

    name = "remote"
    execution = "thread"  # it waits on the network
    supports_batch = True

    def __init__(
        self,
        url: str | None = None,
        *,
        token: str | None = None,
        request_timeout_s: float | None = None,
        timeout: float | None = None,  # deprecated name of request_timeout_s
    ) -> None:
        self.url = url
        self.token = token
        # the HTTP client's per-request timeout (not Scorer.timeout_s, the Runner's per-sample deadline)
        self.request_timeout_s = renamed(
            request_timeout_s, timeout, "timeout", "request_timeout_s", "RemoteScorer"
        )

    def score(self, sample: Sample) -> Score:
        return self.score_batch([sample])[0]

    def score_batch(self, samples: Sequence[Sample]) -> list[Score]:
        from ..errors import InfraError

        try:
            return list(_client(self.url, self.token, self.request_timeout_s).score(samples))
        except InfraError as exc:
            return [Score.failure(Status.INFRA_ERROR, str(exc)) for _ in samples]


def trl_reward_func(
    url: str | None = None,
    *,
    token: str | None = None,
    timeout_s: float | None = None,
    task: str | None = None,
    name: str = "rewardloop",
    timeout: float | None = None,  # deprecated name of timeout_s
    **options: Any,
) -> Any:
    """A TRL ``reward_funcs`` entry that scores on the service.

    Columns are read as in :mod:`rewardloop.integrations.trl` (ground truth from ``ground_truth`` /
    ``solution`` / ``answer`` / ``reward_model``, task from ``data_source`` or ``task=``); ``options`` go to
    :func:`rewardloop.integrations.trl.reward_func` (``on_error``, ``ground_truth_keys``, ...).
    """
    from .trl import reward_func

    timeout_s = renamed(timeout_s, timeout, "timeout", "timeout_s", "trl_reward_func")
    scorer = RemoteScorer(url, token=token, request_timeout_s=timeout_s)
    return reward_func(scorer, task=task, name=name, **options)

"""How the service builds its :class:`~rewardloop.RewardManager`: the configured scorers, with a synchronous
custom reward function moved into worker processes.

A custom function is user code that the trainer's config names (never a request). In verl it runs in
threads of the trainer, where a segfault or ``os._exit`` in a C extension ends the whole process. In a
service that would end every trainer's requests, so by default (``server.isolate_custom_function``) a
synchronous function runs in the runner's worker pool: a crash fails only that sample (status
``crashed``), a hang is killed at the deadline. Async functions (GenRM calls to a model server) stay on
the event loop: they wait on the network, and a process per call would only add cost.
"""

from __future__ import annotations

from typing import Any

from ..config import RewardConfig
from ._config import ServerConfig

__all__ = ["build_manager"]


def build_manager(server: ServerConfig, reward: RewardConfig) -> Any:
    """The service's manager: the one builder, ``RewardManager.from_config(reward)``, isolating a sync custom
    function unless ``server.isolate_custom_function`` is false (then it runs in threads)."""
    from ..managers import RewardManager

    manager = RewardManager.from_config(reward, isolate_custom_function=server.isolate_custom_function)
    refuse = getattr(manager.runner, "refuse_gathering", None)
    if server.workers > 1 and refuse is not None:
        # the kernel spreads requests over the worker processes, so a group's later members may reach
        # another one: a group scorer takes each request's members as the whole group, and a member that
        # declares more (metadata group_size) fails at once rather than waiting out gather_timeout_s
        refuse(
            f"this server runs {server.workers} worker processes and a request reaches any of them, so a "
            "group's members must arrive in one request (or run the server with workers: 1)"
        )
    return manager

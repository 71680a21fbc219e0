"""The execution tests' Ray cluster: two nodes on this machine (``ray.cluster_utils.Cluster``), started once for
the package and shut down after its last test, so actors really are placed on different nodes (raylets, object
stores) and other test packages never see it. Tests that need it are marked ``ray`` and skip without Ray."""

from __future__ import annotations

import os

import pytest

NODE_CPUS = 2  # logical CPUs per node: each scoring actor asks for 1, so 2 actors can land on 2 nodes


@pytest.fixture(scope="package")
def ray_cluster():
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if ray.is_initialized():  # somebody else's cluster: use it as it is
        yield ray
        return
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": NODE_CPUS, "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=NODE_CPUS)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        yield ray
    finally:
        ray.shutdown()
        cluster.shutdown()

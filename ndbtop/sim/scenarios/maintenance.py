"""Maintenance situations: single-user mode, node groups out of node-id order, and a
configuration change that restarted nodes pick up."""

from __future__ import annotations

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.scenarios.field import threads
from ndbtop.sim.scenarios.options import ScenarioOptions
from ndbtop.sim.scenarios.steps import small_config

# Single-user mode for a maintenance task, then back to normal.

SINGLE_USER_AT = 20.0
SINGLE_USER_FOR = 120.0
SINGLE_USER_API = 5


def single_user(options: ScenarioOptions) -> SimCluster:
    cluster = threads(options)
    cluster.workload.hot.clear()
    # What ENTER SINGLE USER MODE 5 and EXIT SINGLE USER MODE send: ``enter single
    # user`` (nodeId: 5) and ``exit single user``.
    cluster.after(SINGLE_USER_AT, lambda: cluster.enter_single_user(SINGLE_USER_API))
    cluster.after(SINGLE_USER_AT + SINGLE_USER_FOR, cluster.exit_single_user)
    return cluster


# Node groups that do not follow node-id order, and a configuration change.


def node_groups(options: ScenarioOptions) -> SimCluster:
    config = small_config("node-groups", options, ((2, 0), (3, 1), (4, 0), (5, 1)))
    cluster = SimCluster(config, options.seed)
    cluster.boot_started((2, 3, 4))
    cluster.workload.tps = 1200.0
    return cluster


CONFIG_CHANGE_AT = 30.0
"""When the configuration-change scenario installs its new configuration."""


def config_change(options: ScenarioOptions) -> SimCluster:
    config = small_config("config-change", options, ((2, 0), (3, 0), (4, 1), (5, 1)),
                          data_memory_mb=8192, generation=4)
    cluster = SimCluster(config, options.seed)
    cluster.boot_started()
    cluster.workload.tps = 2000.0

    def reload() -> None:
        cluster.change_config(data_memory_mb=12288, disk_page_buffer_mb=256)
        cluster.restart_nodes((2,))

    cluster.at(CONFIG_CHANGE_AT, reload)
    return cluster

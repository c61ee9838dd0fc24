"""The building blocks of a scenario's script: conditions to wait for, and the version asked for."""

from __future__ import annotations

from collections.abc import Callable

from ndbtop.mgm.version import make_version, parse_version_text
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import STARTED
from ndbtop.sim.config import ClusterConfig, simple_config
from ndbtop.sim.scenarios.options import ScenarioOptions


def when(
    cluster: SimCluster,
    predicate: Callable[[], bool],
    action: Callable[[], None],
    every: float = 2.0,
) -> None:
    """Run ``action`` once ``predicate`` holds, checking every ``every`` simulated seconds."""

    def check() -> None:
        if predicate():
            action()
        else:
            cluster.after(every, check)

    cluster.after(every, check)


def started(cluster: SimCluster, *node_ids: int) -> Callable[[], bool]:
    """True once every one of ``node_ids`` is STARTED."""
    return lambda: all(cluster.data_nodes[n].state == STARTED for n in node_ids)


def asked_version(options: ScenarioOptions, default: int) -> int:
    """The NDB version the user asked for, else the scenario's ``default``."""
    return parse_version_text(options.ndb_version) if options.ndb_version else default


def small_config(name: str, options: ScenarioOptions, groups: tuple[tuple[int, int], ...],
                 **extra: object) -> ClusterConfig:
    """The small clusters of the maintenance and diagnostics scenarios: data nodes
    ``(id, node group)`` on 192.168.0.<id> with 4 execution threads, API slots 50-53 (the
    SQL node 50 and an application, 51, connected), NDB 8.4.3 unless asked otherwise."""
    return simple_config(
        name,
        tuple((node_id, f"192.168.0.{node_id}", group) for node_id, group in groups),
        api=tuple((i, None) for i in range(50, 54)),
        max_exec_threads=4,
        ndb_version=asked_version(options, make_version(8, 4, 3)),
        sql_node_id=50,
        connected_api=(51,),
        **extra,
    )

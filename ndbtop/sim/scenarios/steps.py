"""The building blocks of a scenario's script: conditions to wait for, and the version asked for."""

from __future__ import annotations

from collections.abc import Callable

from ndbtop.mgm.version import parse_version_text
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import STARTED
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

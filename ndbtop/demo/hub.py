"""The hub of the demo: the real collectors watching a running simulator."""

from __future__ import annotations

from pathlib import Path

from ndbtop.collect.backups import DEFAULT_EVERY
from ndbtop.collect.cluster_log import LocalFiles
from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.replication.setup import (
    DEFAULT_LAG_THRESHOLD_S,
    REPLICA,
    THIS_CLUSTER,
    EndpointSpec,
    ReplicationSetup,
)
from ndbtop.sim.host import SimHost
from ndbtop.sim.runtime import Simulator


def simulated_label(name: str, speed: float) -> str:
    """What the header's SIM badge says of a simulated cluster: its name and speed, and,
    when sped up, that the durations and times shown are simulated (the demo's hub runs on
    the simulator's clock, so every figure agrees, but not with the viewer's watch)."""
    return f"{name} x{speed:g}" + (", simulated time" if speed != 1 else "")


def demo_hub(sim: Simulator, interval: float, *, events: bool = True,
             history_dir: Path | None = None, backup_status_every: float = DEFAULT_EVERY,
             lag_threshold_s: float = DEFAULT_LAG_THRESHOLD_S,
             replication: ReplicationSetup | None = None) -> Hub:
    """A hub watching a running simulator through its management server and SQL node.

    The simulated host is the host of the first data node; rates and timers
    are in simulated time, as they would be on the real cluster. Starts are
    remembered in ``history_dir`` under the scenario's cluster name, not its
    loopback ports (a free port each run), so the next run compares with them. The
    scenario's replication is watched (``replication``: other SQL nodes to read).
    """
    ndbinfo = None
    if sim.sql_port is not None:
        from ndbtop.ndbinfo.collector import NdbinfoCollector
        from ndbtop.ndbinfo.options import MysqlOptions, options_summary

        options = MysqlOptions(host=sim.host, port=sim.sql_port, user="root", password="")
        ndbinfo = (NdbinfoCollector(options, clock=sim.clock.monotonic,
                                    background_transactions=True), options_summary(options))
    return Hub(
        parse_connectstring(sim.connectstring),
        sim.clock,
        interval,
        ndbinfo=ndbinfo,
        host=(host := SimHost(sim.cluster)),
        host_name=sim.cluster.data_nodes[host.node_id].cfg.host,
        host_via="simulated",
        simulated_hosts=tuple(
            (node.cfg.host, SimHost(sim.cluster, node.node_id))
            for node in sim.cluster.data_nodes.values() if node.node_id != host.node_id
        ),
        host_blocking=False,
        events=events,
        history_dir=history_dir,
        cluster_name=f"simulated {sim.cluster.config.name}",
        backup_status_every=backup_status_every,
        # The simulated management servers' cluster log files, when they write them here.
        cluster_log=any(slot.data_dir for slot in sim.cluster.config.mgm_nodes),
        log_readers={slot.host or "": LocalFiles()
                     for slot in sim.cluster.config.mgm_nodes if slot.data_dir},
        replication=replication or demo_replication(sim, lag_threshold_s),
    )


def demo_replication(sim: Simulator, lag_threshold_s: float = DEFAULT_LAG_THRESHOLD_S
                     ) -> ReplicationSetup | None:
    """The simulated SQL nodes of both sides, when the scenario replicates: this cluster's
    (the source) and the replica cluster's."""
    if sim.sql_port is None or sim.replica_sql_port is None:
        return None
    from ndbtop.ndbinfo.options import MysqlOptions

    def options(port: int) -> MysqlOptions:
        return MysqlOptions(host=sim.host, port=port, user="root", password="")

    return ReplicationSetup((EndpointSpec(options(sim.sql_port), THIS_CLUSTER),
                             EndpointSpec(options(sim.replica_sql_port), REPLICA)),
                            lag_threshold_s)

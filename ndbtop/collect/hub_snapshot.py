"""The hub's one snapshot: every source's last reading put together.

The figures of a data node that is not live (not STARTED, or not read since its last
start) are left out (:mod:`ndbtop.model.live`), a state an event told since the last
``get status`` is shown, the estimate of each starting node's time to STARTED is made
(:mod:`ndbtop.eta.node_evidence`), and the findings are judged on the result.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from ndbtop.eta.backup import data_in_use
from ndbtop.findings import evaluate
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.backups import running_backup
from ndbtop.model.live import live_data_nodes
from ndbtop.model.phases import StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot

if TYPE_CHECKING:
    from ndbtop.collect.hub_face import HubFace


def live_nodes(hub: HubFace, nodes: tuple[NodeStatus, ...],
               timelines: tuple[StartTimeline, ...]) -> frozenset[int]:
    """The data nodes whose ndbinfo figures are live (:func:`live_data_nodes`)."""
    sample = hub.ndbinfo_sample
    if sample is None:
        return frozenset()
    # The sample is stamped on the hub's clock (simulated in the demo).
    sample_wall = hub.clock.wall() - (hub.clock.monotonic() - sample.taken_at)
    return live_data_nodes(nodes, sample, timelines, sample_wall=sample_wall)


def data_memory_known(hub: HubFace) -> bool:
    """Whether the snapshot's ndbinfo gives DataMemory in use (for the backup's estimate)."""
    reading = hub.mgm.reading
    nodes = reading.nodes if reading else ()
    sample = hub.live_filter.sample(hub.ndbinfo_sample,
                                    live_nodes(hub, nodes, tuple(hub.timelines.values())))
    return bool(data_in_use(sample.memory if sample is not None else ()))


def build_snapshot(hub: HubFace) -> ClusterSnapshot:
    """The current picture of the cluster the hub watches."""
    reading = hub.mgm.reading
    levels = hub.mgm.log_levels or {}
    nodes = reading.nodes if reading else ()
    if hub.told:
        nodes = tuple(replace(n, status=hub.told[n.node_id][0])
                      if n.node_id in hub.told and n.type == "NDB" else n for n in nodes)
    timelines = tuple(hub.timelines[k] for k in sorted(hub.timelines))
    live = live_nodes(hub, nodes, timelines)
    snap = ClusterSnapshot(
        taken_at=time.monotonic(),
        wall=hub.clock.wall(),
        interval=hub.interval,
        sources=hub.source_statuses(),
        mgm_address=reading.address if reading else None,
        mgm_version=reading.version if reading else None,
        nodes=nodes,
        cluster_log_levels=tuple(levels.items()),
        events=tuple(hub.event_history),
        events_total=hub.events_total,
        timelines=timelines,
        statistics=tuple(hub.statistics[k] for k in sorted(hub.statistics)),
        ndbinfo=hub.live_filter.sample(hub.ndbinfo_sample, live),
        hit_ratios=hub.live_filter.rows("hit_ratios", hub.rates.hit_ratios, live),
        link_rates=hub.live_filter.rows("link_rates", hub.rates.links.rates, live),
        activity_rates=hub.live_filter.rows("activity_rates", hub.rates.activity.rates, live),
        io_lag_rates=hub.live_filter.rows("io_lag_rates", hub.rates.io_lag.rates, live),
        redo_fill_rates=hub.live_filter.rows("redo_fill_rates", hub.rates.redo_fill.rates,
                                             live),
        host=hub.host.view if hub.host else None,
        history=hub.series.series(),
        past_starts=hub.past_starts,
        backups=hub.backups,
        backup_data_in_use=hub.backup_memory.for_backup(running_backup(hub.backups)),
        backup_failures=hub.backup_failures,
        config=hub.config.config,
        hosts=hub.hosts.reports(nodes, timelines, hub.cluster_config()),
        memory_reports=hub.memory_reporter.events,
        cluster_log=(hub.cluster_log.read.lines if hub.cluster_log is not None
                     and hub.cluster_log.read is not None else ()),
        replication=hub.replication.state if hub.replication is not None else None,
    )
    snap = replace(snap, start_etas=hub.start_etas.observe(snap))
    return replace(snap, findings=hub.findings.update(evaluate(snap), snap.wall))

"""One moment of a scenario as a :class:`ClusterSnapshot` that is the same on every run.

The simulator plays the scenario on a clock that moves only when told to, with
its management server and SQL node on loopback ports, and the hub of the demo
reads them: status, ndbinfo and the host are polled at fixed simulated times.
Events go from the cluster to the hub's event source through their parsable wire
form, stamped with the simulated moment they were reported (a listener socket
would stamp them on arrival, which depends on the machine). What still depends on
the machine or the run is then replaced: the wall clock starts at :data:`EPOCH`,
the snapshot is taken at monotonic :data:`MONOTONIC` with every source fresh, and
loopback ports become the configured hosts' standard ports. Snapshot tests and
screenshots render these captures through a frozen source.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, replace

from ndbtop.collect.events import levels_from_names
from ndbtop.collect.hub import Hub
from ndbtop.compat import SLOTS
from ndbtop.demo.hub import demo_hub
from ndbtop.findings import evaluate
from ndbtop.mgm.connectstring import ConnectString, parse_connectstring
from ndbtop.mgm.events.catalogue import Category
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.events.from_text import as_listened
from ndbtop.model.replication import ReplicaThreads, ReplicationState
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.sim.clock import SimClock
from ndbtop.sim.eventbus import SimEvent
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.sim.scenarios.fleet import BUILDERS

EPOCH = dt.datetime(2008, 10, 24, 12, 24, 13, 500000, tzinfo=dt.timezone.utc).timestamp()
"""Wall-clock time of simulated second 0, in UTC: S1's initial start, which the
scenario begins at second 2.5, then starts at 12:24:16 as in the field report."""

MONOTONIC = 10_000.0
"""Monotonic time every captured snapshot is taken at; each source's data is that fresh."""

RETRY_IN = 5.0
"""Seconds until the next attempt shown for a source that is retrying."""

FLEET_PREFIX = "fleet:"
"""A capture of a cluster of ``demo --fleet``: ``fleet:prod``."""

MGM_PORT = 1186
SQL_PORT = 3306
REPLICA_HOST = "dr-sql"
"""The replica cluster's SQL node, as a capture names it."""


@dataclass(frozen=True, **SLOTS)
class CaptureSpec:
    """Which moment to capture and how the hub saw the time before it.

    The hub polls ``samples`` times, ``step`` simulated seconds apart, the
    last poll at simulated second ``at``: enough points for the trends and for
    rates over the last interval. ``interval`` is the refresh the snapshot
    shows (in the demo one refresh spans ``speed`` x ``interval`` simulated
    seconds). ``statistics`` raises the cluster log's STATISTICS to 15 from
    the start, as ``ALL CLUSTERLOG STATISTICS=15`` does.
    """

    scenario: str
    at: float
    step: float = 1.0
    samples: int = 20
    interval: float = 1.0
    seed: int = 1
    statistics: bool = False
    panels: tuple[str, ...] = ()
    """The on-demand ndbinfo panels read, as the view that shows them asks for them."""
    report_frequency: int | None = None
    """StartupStatusReportFrequency of the data nodes (the scenario's own when None)."""


@dataclass(frozen=True, **SLOTS)
class Capture:
    """A captured snapshot and the connect string that names its management server."""

    snapshot: ClusterSnapshot
    connectstring: ConnectString


class _ManualTime:
    """The real-time source of the capture's clock: it moves only when set."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _decode(event: SimEvent, wall: float) -> Event:
    """The event as a listener decodes it: through its parsable block on the wire."""
    return as_listened(event.type, event.source, event.words, wall)


async def capture(spec: CaptureSpec) -> Capture:
    """Play ``spec.scenario`` up to ``spec.at`` and return the normalised snapshot."""
    if spec.samples < 1 or spec.step <= 0:
        raise ValueError("a capture needs at least one sample and a positive step")
    options = ScenarioOptions(seed=spec.seed, report_frequency=spec.report_frequency)
    fleet = spec.scenario.removeprefix(FLEET_PREFIX)
    cluster = (BUILDERS[fleet](options) if spec.scenario.startswith(FLEET_PREFIX)
               else build_scenario(spec.scenario, options))
    first = spec.at - (spec.samples - 1) * spec.step
    if first < cluster.now:
        raise ValueError(f"the first sample would be at {first:g} s, before the scenario starts")
    if spec.statistics:
        cluster.set_cluster_loglevel(int(Category.STATISTICS), 15)
    time = _ManualTime(cluster.now)
    clock = SimClock(speed=1.0, epoch=EPOCH, real=time, start_at=cluster.now)
    sim = Simulator(cluster, clock)
    await sim.start(sql_port=0)
    hub: Hub | None = None
    try:
        hub = demo_hub(sim, spec.interval)
        hub.want_panels("capture", spec.panels)
        hub.want_replication("capture", True)
        await _poll(hub)
        events = hub.events
        if events is not None:
            levels = levels_from_names(hub.mgm.log_levels)
            cluster.bus.subscribe(levels, lambda e: events.on_event(_decode(e, clock.wall(e.time))))
            events.listening_levels = levels
            events.health.ok(str(hub.mgm.client.address))
        for i in range(spec.samples):
            time.now = first + i * spec.step
            sim.sync()
            await _poll(hub)
        snapshot = _normalised(hub.snapshot(), sim)
    finally:
        if hub is not None:
            await hub.stop()
        await sim.close()
    return Capture(snapshot, parse_connectstring(_mgm_address(sim)))


async def _poll(hub: Hub) -> None:
    """One refresh of every polling source, as their background loops do it."""
    for source in (hub.mgm, hub.sql, hub.host, *hub.hosts.simulated.values(),
                   hub.replication):
        if source is not None:
            await source.attempt()
    await hub.config.read_if_pending()
    # What the hosts of the nodes that are down hold (error logs, DataDirs), as the live
    # view reads it once it runs.
    hub.hosts.allow_reads(hub.cluster_config())
    await hub.hosts.reads_done()


def _mgm_address(sim: Simulator) -> str:
    slots = sim.cluster.config.mgm_nodes
    return ",".join(f"{slot.host or 'localhost'}:{MGM_PORT}" for slot in slots)


def _normalised(snap: ClusterSnapshot, sim: Simulator) -> ClusterSnapshot:
    """``snap`` without anything that depends on the machine or on real time."""
    names: dict[str, str] = {}
    for node_id, port in sim.mgm_ports.items():
        host = next(s.host for s in sim.cluster.config.mgm_nodes if s.node_id == node_id)
        names[f"{sim.host}:{port}"] = f"{host or 'localhost'}:{MGM_PORT}"
    if sim.sql_port is not None:
        sql_id = sim.cluster.config.sql_node_id
        sql_host = next(
            (s.host for s in sim.cluster.config.api_nodes if s.node_id == sql_id and s.host),
            "localhost",
        )
        names[f"{sim.host}:{sim.sql_port}"] = f"{sql_host}:{SQL_PORT}"
    if sim.replica_sql_port is not None:
        names[f"{sim.host}:{sim.replica_sql_port}"] = f"{REPLICA_HOST}:{SQL_PORT}"

    def text(value: str | None) -> str | None:
        if value is None:
            return None
        for real, shown in names.items():
            value = value.replace(real, shown)
        return value

    sources = tuple(_normalised_source(s, text) for s in snap.sources)
    hosts = tuple(
        replace(h, last_ok=None if h.last_ok is None else MONOTONIC) for h in snap.hosts
    )
    normal = replace(
        snap,
        taken_at=MONOTONIC,
        sources=sources,
        mgm_address=text(snap.mgm_address),
        hosts=hosts,
        replication=(None if snap.replication is None
                     else normalised_replication(snap.replication, text)),
        history=tuple((text(key) if key.startswith("repl.") else key, values)
                      for key, values in snap.history),
    )
    # The findings' ages and times are judged again on the normalised figures, as if the
    # findings were first seen at that moment.
    return replace(normal, findings=tuple(replace(f, since=normal.wall)
                                          for f in evaluate(normal)))


def normalised_replication(state: ReplicationState, text: Callable[[str | None], str | None]
                           ) -> ReplicationState:
    """``state`` with loopback addresses named as :func:`_normalised` names them."""
    def name(target: str) -> str:
        return text(target) or target

    def threads(t: ReplicaThreads) -> ReplicaThreads:
        host, _, port = name(f"{t.source_host}:{t.source_port}").rpartition(":")
        return replace(t, source_host=host, source_port=int(port) if port.isdigit() else None)

    endpoints = tuple(replace(e, target=name(e.target), channels=tuple(
        threads(t) for t in e.channels)) for e in state.endpoints)
    channels = tuple(replace(c, replica=name(c.replica), threads=threads(c.threads),
                             source=None if c.source is None else name(c.source),
                             lag=replace(c.lag, basis=name(c.lag.basis)))
                     for c in state.channels)
    return replace(state, endpoints=endpoints, channels=channels)


def _normalised_source(src: SourceStatus, text: Callable[[str | None], str | None]) -> SourceStatus:
    target = "localhost" if src.name == "host" else text(src.target) or ""
    return replace(
        src,
        target=target,
        error=text(src.error),
        last_ok=None if src.last_ok is None else MONOTONIC,
        retry_at=MONOTONIC + RETRY_IN if src.state is SourceState.RETRYING else None,
    )

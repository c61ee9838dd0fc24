"""An exporter serving a hand-driven simulated cluster (management server, SQL node, host).

The simulated clock moves only when a test advances it, so the figures the
exporter serves stay exactly where the test put the cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from export_helpers import STARTING_NODE, Served

from ndbtop.demo.hub import demo_hub
from ndbtop.export.server import MetricsServer, SnapshotCollector
from ndbtop.model.sources import SourceState
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario


class Frozen:
    """The real-time source of a simulated clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass."""
        self.now += seconds


async def _serve(scenario: str, advance: Callable[..., Awaitable[None]],
                 until: Callable[..., Awaitable[None]]) -> AsyncIterator[Served]:
    time = Frozen()
    cluster = build_scenario(scenario, ScenarioOptions(seed=1))
    sim = Simulator(cluster, SimClock(speed=1.0, real=time, start_at=cluster.now))
    await sim.start(sql_port=0)
    sql = scenario != "initial-start"
    if not sql:
        node = cluster.data_nodes[STARTING_NODE]
        await advance(sim, time, lambda: node.state == "STARTING" and node.start_phase >= 2)
    hub = demo_hub(sim, 3600.0)
    collector = SnapshotCollector()
    server = MetricsServer(collector, "127.0.0.1", 0, sim.connectstring)
    server.start()
    await hub.start()
    wanted = ("mgm", "events", "ndbinfo", "host") if sql else ("mgm", "events", "host")

    def ready() -> bool:
        states = {s.name: s.state for s in hub.source_statuses()}
        snap = hub.snapshot()
        return (all(states[n] is SourceState.CONNECTED for n in wanted)
                and (not sql or (snap.ndbinfo is not None and bool(snap.ndbinfo.threads)))
                and snap.host is not None and bool(snap.host.disk_counters))

    try:
        await until(ready, 20, "the sources connected with data")
        collector.publish(hub.snapshot())
        yield Served(sim, hub, collector, server)
    finally:
        await asyncio.to_thread(server.close)
        await hub.stop()
        await sim.close()


@pytest.fixture
async def served(advance: Callable[..., Awaitable[None]],
                 until: Callable[..., Awaitable[None]]) -> AsyncIterator[Served]:
    """``threads`` (started, busy threads), exported every hour: nothing but the first
    reading of each source reaches the cluster unless a scrape causes it."""
    async for s in _serve("threads", advance, until):
        yield s


@pytest.fixture
async def served_starting(advance: Callable[..., Awaitable[None]],
                          until: Callable[..., Awaitable[None]]) -> AsyncIterator[Served]:
    """``initial-start`` with node 10 STARTING past phase 1 (the SQL node waits for the data
    nodes, so no ndbinfo)."""
    async for s in _serve("initial-start", advance, until):
        yield s

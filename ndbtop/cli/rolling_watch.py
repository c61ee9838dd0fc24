"""A hub beside ``rolling-restart``, from its plan to its end: it follows ``get status``, the
events, ndbinfo (when a SQL node is given) and the start history as ``wait`` does.

Its snapshot gives the findings the gate weighs (:mod:`ndbtop.ops.rolling_gate`), the
nodes' last restarts (``ndbinfo.restart_info``) the plan's estimate goes by, and the node
start estimate the step in progress goes by once its nodes are starting
(:func:`ndbtop.eta.rolling.batch_eta`), as in ``W``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
from ndbtop.collect.sql import NdbinfoReader
from ndbtop.eta.rolling import RunTimes, batch_eta
from ndbtop.findings import Finding
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.model.clock import RealClock
from ndbtop.model.sources import SourceState
from ndbtop.ops.rolling_gate import current_findings

WATCH_INTERVAL = 1.0
"""Seconds between the hub's reads: the engine's own poll."""
SETTLE_S = 5.0
"""How long the plan waits for the event subscription and the SQL node's first answer (the
estimates and the gate's findings come later without them)."""


@contextlib.asynccontextmanager
async def watching(connectstring: ConnectString,
                   ndbinfo: tuple[NdbinfoReader, str] | None) -> AsyncIterator[Hub]:
    """A running hub on the cluster (:func:`settled` waits for its first answers); it stops on
    the way out (also when cancelled)."""
    hub = Hub(connectstring, RealClock(), WATCH_INTERVAL, events=True, ndbinfo=ndbinfo,
              history_dir=default_history_dir(), sql_disabled_reason="--no-sql")
    # The gate and the estimates need no thread: read them now and then only.
    hub.want_threads(False)
    await hub.start()
    try:
        yield hub
    finally:
        await hub.stop()


async def settled(hub: Hub, timeout: float = SETTLE_S) -> None:
    """Until the events are subscribed and the SQL node answered (or failed), at most
    ``timeout`` seconds."""

    def heard() -> bool:
        events = hub.events is None or hub.events.answered.is_set()
        sql = hub.sql is None or hub.sql.status.state is not SourceState.CONNECTING
        return events and sql

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not heard() and loop.time() < deadline:
        await asyncio.sleep(0.05)


def gate_findings(hub: Hub) -> tuple[Finding, ...]:
    """The findings true now, for the gate."""
    return current_findings(hub.snapshot())


@contextlib.contextmanager
def node_estimates(hub: Hub, times: RunTimes) -> Iterator[None]:
    """While inside, ``times`` asks the hub for the estimate of each starting node of the
    step in progress."""
    times.node_eta = lambda batch: batch_eta(batch, hub.snapshot().start_eta)
    try:
        yield
    finally:
        times.node_eta = None

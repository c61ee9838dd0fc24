"""A hub beside ``rolling-restart``'s run: it follows ``get status``, the events and the start
history as ``wait`` does, so that the step in progress goes by the node start estimate once
its nodes are starting and have one (:func:`ndbtop.eta.rolling.batch_eta`), as in ``W``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
from ndbtop.eta.rolling import RunTimes, batch_eta
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.model.clock import RealClock

WATCH_INTERVAL = 1.0
"""Seconds between the hub's reads: the engine's own poll."""
LISTEN_WAIT_S = 5.0
"""How long the run waits for the event subscription before its first restart (without it
the estimates only come later, from get status)."""


@contextlib.asynccontextmanager
async def node_estimates(connectstring: ConnectString, times: RunTimes) -> AsyncIterator[Hub]:
    """While inside, ``times`` asks a running hub for the estimate of each starting node of
    the step in progress; the hub stops on the way out (also when cancelled)."""
    hub = Hub(connectstring, RealClock(), WATCH_INTERVAL, events=True,
              history_dir=default_history_dir())
    await hub.start()
    if hub.events is not None:
        # A start is estimated from its first phase on: listen before the first restart.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(hub.events.answered.wait(), LISTEN_WAIT_S)
    times.node_eta = lambda batch: batch_eta(batch, hub.snapshot().start_eta)
    try:
        yield hub
    finally:
        times.node_eta = None
        await hub.stop()

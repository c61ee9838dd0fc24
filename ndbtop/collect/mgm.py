"""Polling the management server: node status every refresh, log levels now and then."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ndbtop.collect.health import Health
from ndbtop.compat import SLOTS
from ndbtop.errors import MgmError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.clock import Clock
from ndbtop.model.sources import SourceStatus

LOGLEVEL_EVERY = 60
"""Refreshes between two reads of the cluster-log levels."""


@dataclass(frozen=True, **SLOTS)
class MgmReading:
    """One good answer of the management server."""

    taken_at: float
    wall: float
    address: str
    version: str | None
    nodes: tuple[NodeStatus, ...]
    unavailable: tuple[tuple[str, str], ...] = ()
    """What the server did not answer usably besides ``get status``: (part, reason)."""


class MgmSource:
    """Keeps a session to the management server and reads ``get status`` each refresh.

    Freshness and retry times are real monotonic seconds; ``clock`` only
    provides the wall time the cluster's own timeline is shown in.

    A failure closes the session; the next attempt connects again from the
    first server of the connect string, after a backoff delay.
    """

    name = "mgm"

    def __init__(
        self,
        connectstring: ConnectString,
        clock: Clock,
        interval: float,
        on_update: Callable[[], None],
        *,
        timeout: float | None = None,
    ) -> None:
        self.client = MgmClient(
            connectstring,
            connect_timeout=min(3.0, max(interval, 1.0)),
            timeout=timeout or max(2.0, 2 * interval),
        )
        self.clock = clock
        self.interval = interval
        self.on_update = on_update
        self.reading: MgmReading | None = None
        self.log_levels: dict[str, int] | None = None
        self.health = Health(self.name, str(connectstring))
        self._polls = 0
        self.levels_stale = False
        """Set to read the cluster-log levels at the next poll (after ndbtop changed them)."""
        self.levels_error: str | None = None
        """Why the last read of the cluster-log levels failed (tried again a minute on)."""
        self.after_status: Callable[[MgmClient], Awaitable[str | None]] | None = None
        """Run on the same session after each good ``get status`` (the backup report);
        returns why that part is unavailable, or None."""

    @property
    def status(self) -> SourceStatus:
        """The source's current state."""
        return self.health.status

    async def poll_once(self) -> MgmReading:
        """Read the status once (connecting if needed); raises :class:`MgmError`.

        Only ``get status`` is essential: a server that answers anything else in a way
        ndbtop cannot use (another version, a fork) loses that part only, named in
        :attr:`MgmReading.unavailable`.
        """
        # The state is as of the request: an event that arrives while the answer is on its
        # way is newer than it.
        asked = self.clock.wall()
        nodes = await self.client.get_status()
        first = self.log_levels is None and self.levels_error is None
        if self._polls % LOGLEVEL_EVERY == 0 or first or self.levels_stale:
            self.levels_stale = False
            try:
                self.log_levels = await self.client.get_cluster_loglevel()
                self.levels_error = None
            except MgmError as exc:
                self.levels_error = str(exc)
        self._polls += 1
        unavailable = dict(self.client.unavailable)
        if self.levels_error is not None:
            unavailable["cluster log levels"] = self.levels_error
        if self.client.dropped:
            unavailable["nodes out of range"] = "; ".join(self.client.dropped) + ": left out"
        version = self.client.server_version
        address = self.client.address
        if self.after_status is not None:
            why = await self.after_status(self.client)
            if why is not None:
                unavailable["backup status reports"] = why
        reading = MgmReading(
            time.monotonic(),
            asked,
            str(address) if address else "",
            version.text if version else None,
            nodes,
            tuple(unavailable.items()),
        )
        self.reading = reading
        return reading

    async def attempt(self) -> float:
        """Poll once and record how it went; returns the seconds until the next attempt."""
        started = time.monotonic()
        try:
            reading = await self.poll_once()
        except MgmError as exc:
            await self.client.close()
            delay = self.health.failed(str(exc))
            self.on_update()
            return delay
        self.health.ok(reading.address, reading.unavailable)
        self.on_update()
        return self.interval - (time.monotonic() - started)

    async def run(self) -> None:
        """Poll until cancelled; never raises for a server problem."""
        while True:
            await self.health.sleep(await self.attempt())

    async def close(self) -> None:
        """Close the session."""
        await self.client.close()

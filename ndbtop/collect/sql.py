"""Polling ``ndbinfo`` through a SQL node, off the event loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from ndbtop.collect.health import Health
from ndbtop.errors import SqlError
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.ndbinfo.errors import ClusterNotConnected


def failure_state(exc: SqlError) -> SourceState:
    """A SQL node cut off from the data nodes is waiting (as during an initial start);
    anything else is a failure."""
    return SourceState.UNAVAILABLE if isinstance(exc, ClusterNotConnected) else SourceState.RETRYING


class NdbinfoReader(Protocol):
    """A blocking ndbinfo reader (:class:`~ndbtop.ndbinfo.collector.NdbinfoCollector`)."""

    def connect(self) -> None:
        """Open the connection."""

    def sample(self) -> NdbinfoSample:
        """Read one sample."""

    def close(self) -> None:
        """Close the connection."""


class SqlSource:
    """Keeps a SQL connection and reads one ndbinfo sample per refresh.

    Every blocking call runs in a worker thread; a lost connection is closed
    and opened again after a backoff delay, the last good sample staying on
    screen with its age meanwhile.
    """

    name = "ndbinfo"

    def __init__(
        self,
        reader: NdbinfoReader,
        target: str,
        interval: float,
        on_sample: Callable[[NdbinfoSample], None],
        on_update: Callable[[], None],
    ) -> None:
        self.reader = reader
        self.interval = interval
        self.on_sample = on_sample
        self.on_update = on_update
        self.health = Health(self.name, target)
        self._connected = False

    @property
    def status(self) -> SourceStatus:
        """The source's current state."""
        return self.health.status

    async def poll_once(self) -> NdbinfoSample:
        """Connect if needed and read one sample; raises :class:`SqlError`."""
        if not self._connected:
            await asyncio.to_thread(self.reader.connect)
            self._connected = True
        try:
            sample = await asyncio.to_thread(self.reader.sample)
        except SqlError:
            await self.close()
            raise
        self.on_sample(sample)
        return sample

    async def attempt(self) -> float:
        """Read once and record how it went; returns the seconds until the next attempt."""
        started = time.monotonic()
        try:
            await self.poll_once()
        except SqlError as exc:
            delay = self.failed(exc)
            self.on_update()
            return delay
        self.succeeded()
        self.on_update()
        return self.interval - (time.monotonic() - started)

    def succeeded(self) -> None:
        """Record a good sample (and, with several SQL nodes, which one gave it)."""
        self.health.ok(getattr(self.reader, "target", None))
        self._show_candidates()

    def failed(self, exc: SqlError) -> float:
        """Record a failure; returns the delay before the next attempt."""
        delay = self.health.failed(str(exc), failure_state(exc))
        self._show_candidates()
        return delay

    def _show_candidates(self) -> None:
        """With several SQL nodes: which one is read, and how the others stand."""
        candidates = getattr(self.reader, "candidates", None)
        if candidates is None:
            return
        others = tuple(
            c.target + (f" {c.state}: {c.error}" if c.error else f" {c.state}")
            for c in candidates()
            if c.state != "in use"
        )
        self.health.status = replace(self.health.status, others=others)

    async def run(self) -> None:
        """Poll until cancelled; never raises for a server problem."""
        while True:
            await self.health.sleep(await self.attempt())

    async def close(self) -> None:
        """Close the connection (in a worker thread)."""
        if self._connected:
            self._connected = False
            await asyncio.to_thread(self.reader.close)

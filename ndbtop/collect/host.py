"""Reading the host ndbtop runs on (or a simulated one) at each refresh."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable
from typing import Protocol

from ndbtop.collect.health import Health
from ndbtop.host.samples import HostSample
from ndbtop.host.view import HostView
from ndbtop.model.sources import SourceStatus


class HostReader(Protocol):
    """The live :class:`~ndbtop.host.collector.HostCollector` or a simulated host."""

    def sample(self) -> HostSample:
        """Read the counters now."""

    def view(self) -> HostView | None:
        """Rates between the last two samples."""


class HostSource:
    """Samples the host every refresh; ``blocking`` readers run in a worker thread."""

    name = "host"

    def __init__(
        self,
        reader: HostReader,
        interval: float,
        on_update: Callable[[], None],
        *,
        blocking: bool = True,
        target: str | None = None,
    ) -> None:
        self.reader = reader
        self.interval = interval
        self.on_update = on_update
        self.blocking = blocking
        self.health = Health(self.name, target or socket.gethostname())
        self.view: HostView | None = None

    @property
    def status(self) -> SourceStatus:
        """The source's current state."""
        return self.health.status

    async def poll_once(self) -> HostView | None:
        """Take one sample and return the rates since the previous one."""
        if self.blocking:
            await asyncio.to_thread(self.reader.sample)
        else:
            self.reader.sample()
        self.view = self.reader.view()
        return self.view

    async def attempt(self) -> float:
        """Sample once and record how it went; returns the seconds until the next attempt."""
        started = time.monotonic()
        try:
            await self.poll_once()
        except OSError as exc:
            delay = self.health.failed(f"cannot read the host: {exc}")
            self.on_update()
            return delay
        self.health.ok()
        self.on_update()
        return self.interval - (time.monotonic() - started)

    async def run(self) -> None:
        """Sample until cancelled."""
        while True:
            await self.health.sleep(await self.attempt())

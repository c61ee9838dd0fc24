"""Watching every cluster of the fleet at once, each from its management server alone.

One hub per cluster, made with no SQL node and no host (``get status``, the configuration
once, events): each polls in its own tasks, so a cluster that does not answer, or answers
slowly, never holds up the others. Nothing here imports the terminal UI.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ndbtop.collect.hub import Hub
from ndbtop.fleet.rows import FleetRow, fleet_row


@dataclass(frozen=True)
class Member:
    """One cluster of the fleet: its name and label, and the hub that watches it."""

    name: str
    hub: Hub | None
    color: str | None = None
    production: bool = False
    read_only: bool = False
    error: str | None = None
    """Why there is no hub (a connect string that cannot be read)."""


class Fleet:
    """The clusters of the overview, in the order they were given."""

    def __init__(self, members: Sequence[Member]) -> None:
        self.members = tuple(members)
        self._started = False
        self._interval = next((m.hub.interval for m in self.members if m.hub is not None), 2.0)

    @property
    def names(self) -> tuple[str, ...]:
        """Every cluster's name, in order."""
        return tuple(m.name for m in self.members)

    def member(self, name: str) -> Member:
        """The member called ``name``."""
        return next(m for m in self.members if m.name == name)

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when any cluster's source connects, fails or recovers."""
        for m in self.members:
            if m.hub is not None:
                m.hub.add_listener(callback)

    async def start(self) -> None:
        """Start every hub's sources (each in tasks of its own: none waits for another)."""
        if self._started:
            return
        self._started = True
        for m in self.members:
            if m.hub is not None:
                await m.hub.start()

    async def stop(self) -> None:
        """Stop every hub."""
        if not self._started:
            return
        self._started = False
        for m in self.members:
            if m.hub is not None:
                await m.hub.stop()

    def set_interval(self, interval: float) -> None:
        """Change every hub's refresh interval."""
        self._interval = interval
        for m in self.members:
            if m.hub is not None:
                m.hub.set_interval(interval)

    @property
    def interval(self) -> float:
        """The refresh interval (the hubs share one)."""
        return self._interval

    def rows(self) -> tuple[FleetRow, ...]:
        """One row per cluster, in order."""
        return tuple(
            fleet_row(m.name, m.hub.snapshot() if m.hub is not None else None, color=m.color,
                      production=m.production, read_only=m.read_only, error=m.error)
            for m in self.members
        )


class FrozenFleet:
    """Rows given once, as a :class:`Fleet` gives them to the overview: a picture of it
    (the README's screenshot, tests)."""

    def __init__(self, rows: Sequence[FleetRow], interval: float = 2.0) -> None:
        self._rows = tuple(rows)
        self.names = tuple(r.name for r in self._rows)
        self.interval = interval

    def rows(self) -> tuple[FleetRow, ...]:
        """The rows given."""
        return self._rows

    def set_interval(self, interval: float) -> None:
        """What the overview shows as its refresh."""
        self.interval = interval

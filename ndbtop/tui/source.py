"""What the live view needs from its data: the hub, or a frozen snapshot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ndbtop.mgm.connectstring import ConnectString
from ndbtop.model.clock import Clock
from ndbtop.model.snapshot import ClusterSnapshot


class SnapshotSource(Protocol):
    """The hub's interface as the app uses it."""

    interval: float
    clock: Clock
    connectstring: ConnectString

    def snapshot(self) -> ClusterSnapshot:
        """The newest snapshot."""

    def freshness_now(self) -> float:
        """The monotonic time source ages are measured against."""

    async def start(self) -> None:
        """Start collecting."""

    async def stop(self) -> None:
        """Stop collecting."""

    def refresh_now(self) -> None:
        """Collect again without waiting for the interval."""

    def set_interval(self, interval: float) -> None:
        """Change the refresh interval."""

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` on the event loop whenever a source changes state."""

    def want_threads(self, wanted: bool) -> None:
        """Whether the per-thread CPU is read at every refresh (something shows or
        records it)."""


class FixedClock:
    """A clock that stands still (screenshots and snapshot tests)."""

    def __init__(self, monotonic: float, wall: float) -> None:
        self._monotonic = monotonic
        self._wall = wall

    def monotonic(self) -> float:
        """The fixed monotonic time."""
        return self._monotonic

    def wall(self) -> float:
        """The fixed wall time."""
        return self._wall


class FrozenSource:
    """Always the same snapshot: renders a moment exactly the same way every time."""

    def __init__(self, snapshot: ClusterSnapshot, connectstring: ConnectString,
                 age: float = 0.4) -> None:
        self._snapshot = snapshot
        self.interval = snapshot.interval
        self.clock = FixedClock(snapshot.taken_at + age, snapshot.wall)
        self.connectstring = connectstring

    def snapshot(self) -> ClusterSnapshot:
        """The frozen snapshot."""
        return self._snapshot

    def freshness_now(self) -> float:
        """A moment shortly after the snapshot was taken."""
        return self.clock.monotonic()

    async def start(self) -> None:
        """Nothing to start."""

    async def stop(self) -> None:
        """Nothing to stop."""

    def refresh_now(self) -> None:
        """Nothing to refresh."""

    def set_interval(self, interval: float) -> None:
        """Record the interval (shown in the header)."""
        self.interval = interval

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Nothing ever changes."""

    def want_threads(self, wanted: bool) -> None:
        """Nothing is read."""

"""How old the data behind a figure is, and whether it may still be shown as current.

A figure is as fresh as the source it comes from. Once the source's last good data
is older than ``STALE_AFTER`` refresh intervals, the figure is shown with its age
("as of 12:04:31, 78 s ago"), never as a healthy current state, and no action is
taken on it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState


@dataclass(frozen=True, **SLOTS)
class Freshness:
    """The age of one source's data in a snapshot."""

    source: str
    age: float | None
    """Seconds from the last good data to the snapshot; None when there never was any."""
    as_of: float | None
    """Wall time of the last good data; None when there never was any."""
    stale: bool

    def text(self) -> str:
        """``as of 12:04:31, 78 s ago``, or ``never answered``."""
        if self.age is None or self.as_of is None:
            return "never answered"
        at = dt.datetime.fromtimestamp(self.as_of).strftime("%H:%M:%S")
        return f"as of {at}, {self.age:.0f} s ago"


def freshness(snap: ClusterSnapshot, source: str = "mgm") -> Freshness:
    """How fresh ``source``'s data is in ``snap`` (ages measured when it was taken)."""
    status = snap.source(source)
    if status is None or status.state is SourceState.DISABLED:
        return Freshness(source, None, None, stale=status is None)
    age = status.age(snap.taken_at)
    stale = status.stale(snap.taken_at, snap.interval)
    return Freshness(source, age, None if age is None else snap.wall - age, stale)


def stale_blocker(snap: ClusterSnapshot) -> str | None:
    """Why an action must not be taken on ``snap``'s cluster state, or None when it may."""
    fresh = freshness(snap, "mgm")
    if not fresh.stale:
        return None
    if fresh.age is None:
        return "the management server has not answered yet: no state to act on"
    return (f"the cluster state is stale ({fresh.text()}: the management server has not "
            "answered since); not acting on it")

"""The state of each data source, always visible to the user."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ndbtop.compat import SLOTS

STALE_AFTER = 2
"""Refresh intervals after which a source's last data is stale: what is derived from it is
shown with its age, never as current, and no action is taken on it."""
STALE_FLOOR = 2.0
"""Seconds of age that are never stale, however short the interval: a poll's own round trip
on a busy host."""

ON_DEMAND = frozenset({"config", "cluster-log"})
"""Sources read only when their data may have changed, not at every refresh (the
configuration): connected, their data is current however old it is, and never stale."""


class SourceState(Enum):
    """Where a source stands."""

    DISABLED = "disabled"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    RETRYING = "retrying"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True, **SLOTS)
class SourceStatus:
    """One source's state, its last error, and when it last produced good data.

    ``last_ok`` is a monotonic time; ``retry_at`` the monotonic time of the
    next attempt while retrying.
    """

    name: str
    state: SourceState
    target: str = ""
    error: str | None = None
    last_ok: float | None = None
    retry_at: float | None = None
    unavailable: tuple[tuple[str, str], ...] = ()
    """Parts of a source that answers but not for them: (part, reason), such as the
    cluster-log levels of a management server that answers ``get cluster loglevel``
    in a way ndbtop cannot read."""
    others: tuple[str, ...] = ()
    """The other servers the source may use and how they stand (``sql1:3306 down: ...``),
    when it has several (SQL nodes)."""
    every: float | None = None
    """Seconds between two reads when the source is read less often than every refresh
    (replication, while nothing shows it): its data is stale past twice that."""

    def age(self, now: float) -> float | None:
        """Seconds since the last good data, or None if there never was any."""
        return None if self.last_ok is None else max(now - self.last_ok, 0.0)

    def stale(self, now: float, interval: float) -> bool:
        """True when the last good data is older than :data:`STALE_AFTER` refresh intervals
        (and :data:`STALE_FLOOR` seconds)."""
        age = self.age(now)
        return age is None or age > max(STALE_AFTER * max(interval, self.every or 0.0),
                                        STALE_FLOOR)

    def as_json(self, now: float) -> dict[str, object]:
        """The ``sources`` entry of the JSON report."""
        age = self.age(now)
        return {
            "name": self.name,
            "state": self.state.value,
            "target": self.target,
            "error": self.error,
            "age_s": None if age is None else round(age, 3),
            "unavailable": [{"part": part, "reason": why} for part, why in self.unavailable],
            "others": list(self.others),
        }


class Backoff:
    """Reconnect delays: 0.5 s doubling up to ``cap`` seconds, reset on success."""

    def __init__(self, first: float = 0.5, cap: float = 10.0) -> None:
        self.first = first
        self.cap = cap
        self._next = first

    def next_delay(self) -> float:
        """The delay before the next attempt; each call doubles the one after."""
        delay = self._next
        self._next = min(self._next * 2, self.cap)
        return delay

    def reset(self) -> None:
        """Back to the first delay after a success."""
        self._next = self.first

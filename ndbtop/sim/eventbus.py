"""Events of the simulated cluster: emission, subscription levels and history.

Data nodes report an event only when some subscriber wants it: the cluster
log or a ``listen event`` listener whose level for the event's category is at
least the event's threshold (threshold 0 reaches everyone), exactly as real
data nodes are subscribed at the maximum over all listeners and the cluster log.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.catalogue import CATALOGUE

CLUSTER_LOG_DEFAULTS: dict[int, int] = {cat: 7 for cat in range(250, 263)}
CLUSTER_LOG_DEFAULTS.update({255: 8, 258: 15, 261: 15})
"""Cluster-log levels a management server starts with (CONNECTION 8, ERROR 15, BACKUP 15)."""

HISTORY = 20000


@dataclass(frozen=True, **SLOTS)
class SimEvent:
    """One reported event: simulated time, type, reporting node and its signal words 1..n."""

    seq: int
    time: float
    type: int
    source: int
    words: tuple[int, ...]


def event_category(event_type: int) -> tuple[int, int] | None:
    """(category number, threshold) of a catalogue event type."""
    spec = CATALOGUE.get(event_type)
    if spec is None:
        return None
    return int(spec.category), spec.threshold


class Subscription:
    """A listener's levels and where its events go."""

    def __init__(self, levels: Mapping[int, int], deliver: Callable[[SimEvent], None]) -> None:
        self.levels = dict(levels)
        self.deliver = deliver

    def wants(self, category: int, threshold: int) -> bool:
        """True when this subscriber's level for ``category`` reaches ``threshold``."""
        return threshold == 0 or threshold <= self.levels.get(category, -1)


class EventBus:
    """Routes emitted events to the cluster log history and to subscribers."""

    def __init__(self) -> None:
        self.cluster_log_levels: dict[int, int] = dict(CLUSTER_LOG_DEFAULTS)
        self.subscriptions: list[Subscription] = []
        self.history: deque[SimEvent] = deque(maxlen=HISTORY)
        self.cluster_log: list[Callable[[SimEvent], None]] = []
        """Where the events the cluster log takes are written (the management servers'
        cluster log files)."""
        self._seq = itertools.count(1)

    def subscribe(
        self, levels: Mapping[int, int], deliver: Callable[[SimEvent], None]
    ) -> Subscription:
        """Add a listener; returns the handle to pass to :meth:`unsubscribe`."""
        sub = Subscription(levels, deliver)
        self.subscriptions.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Remove a listener (idempotent)."""
        if sub in self.subscriptions:
            self.subscriptions.remove(sub)

    def wants(self, event_type: int) -> bool:
        """True when the cluster log or any listener would receive this event type."""
        cat = event_category(event_type)
        if cat is None:
            return True
        category, threshold = cat
        if threshold == 0 or threshold <= self.cluster_log_levels.get(category, 0):
            return True
        return any(s.wants(category, threshold) for s in self.subscriptions)

    def logged(self, event: SimEvent) -> bool:
        """True when the cluster log takes ``event`` at its levels."""
        cat = event_category(event.type)
        return cat is None or cat[1] == 0 or cat[1] <= self.cluster_log_levels.get(cat[0], 0)

    def emit(self, time: float, event_type: int, source: int, words: tuple[int, ...]) -> None:
        """Report an event if anyone wants it."""
        if not self.wants(event_type):
            return
        event = SimEvent(next(self._seq), time, event_type, source, words)
        self.history.append(event)
        cat = event_category(event_type)
        if self.logged(event):
            for write in self.cluster_log:
                write(event)
        for sub in list(self.subscriptions):
            if cat is None or sub.wants(*cat):
                sub.deliver(event)

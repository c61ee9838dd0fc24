"""One event seen twice: a line of the cluster log file and an event heard (or a line
of another management server's file) are one report when they name the same node and text
within a few seconds of each other.

The times are looked up by (node, text), then by time (a binary search): matching a list
of lines against a list of events is linear in them (times a logarithm), however many of
them share one text. A flood of one repeated warning, which a file may hold thousands
of, stays cheap.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Iterable


class TimesByKey:
    """The times at which each key was seen, to ask whether one is near a time."""

    def __init__(self, seen: Iterable[tuple[Hashable, float]]) -> None:
        by: dict[Hashable, list[float]] = {}
        for key, at in seen:
            by.setdefault(key, []).append(at)
        for times in by.values():
            times.sort()
        self._by = by

    def near(self, key: Hashable, at: float, within: float) -> bool:
        """Whether ``key`` was seen within ``within`` seconds of ``at`` (either side)."""
        times = self._by.get(key)
        if not times:
            return False
        i = bisect_left(times, at - within)
        return i < len(times) and times[i] <= at + within

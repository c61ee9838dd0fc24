"""The event history by type, worked out once per history: every event rule asks for a few
types of the 2,000 events the hub keeps."""

from __future__ import annotations

from heapq import merge

from ndbtop.mgm.events.decode import Event

_INDEX: list[tuple[tuple[Event, ...], dict[int, list[tuple[int, Event]]]]] = []
"""The last history and its events by type (with their place), by the very tuple."""


def events_of(events: tuple[Event, ...], *types: int) -> list[Event]:
    """The events of ``types`` in ``events``, oldest first."""
    if _INDEX and _INDEX[0][0] is events:
        index = _INDEX[0][1]
    else:
        index = {}
        for i, e in enumerate(events):
            index.setdefault(e.type, []).append((i, e))
        _INDEX[:] = [(events, index)]
    found = [index[t] for t in types if t in index]
    if len(found) == 1:
        return [e for _, e in found[0]]
    return [e for _, e in merge(*found)]


def forget() -> None:
    """Drop the index: the next call works it out again."""
    _INDEX.clear()

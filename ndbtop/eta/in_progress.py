"""What is left of the phase a starting data node is in: its estimate less the time it has
run, a lower bound of that time when ndbtop did not see the phase begin."""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.model.phases import StartTimeline

OVERRUN_SHARE = 0.25
"""A phase past its estimate is given this share of its time so far still to go."""
OPEN_END = 3.0
"""A phase past its estimate has a range reaching this many times what is given still to
go above it (as wide as a norm's)."""


@dataclass(frozen=True)
class PhasePart:
    """One phase's share of an estimate: seconds still to go (or taken, when ``done``)."""

    phase: int
    name: str
    seconds: float
    low: float
    high: float
    basis: str
    done: bool = False



def left_of(part: PhasePart, spent: float, interval: float, source: str) -> PhasePart:
    """What is left of the phase in progress after ``spent`` seconds in it (``source``: the
    timeline's ``current_from``; ``status`` counts within one poll of ``interval``)."""
    if source == "status":
        spent = max(spent - interval / 2, 0.0)
    value = part.seconds - spent
    if value <= 0:
        value = OVERRUN_SHARE * max(spent, part.seconds)
    low = max(part.low - spent, 0.0)
    high = max(part.high - spent, value * (1 + OPEN_END) if part.seconds <= spent else value)
    if source == "status":
        high += interval
    return PhasePart(part.phase, part.name, value, min(low, value), high, part.basis)


def most_spent(t: StartTimeline, now: float) -> float | None:
    """The most time the phase in progress can have taken so far: since the start began,
    where the start's beginning is known (its event, its line in the cluster log file or
    the host); else None."""
    if t.began_from in ("event", "file", "host") and t.began_at <= t.current_since:
        return max(now - t.began_at, 0.0)
    return None


def left_of_unseen(part: PhasePart, seen: float, most: float | None) -> PhasePart:
    """What is left of a phase in progress that began before ndbtop first saw it, ``seen``
    seconds ago: it has run at least that long, and at most ``most`` (None: no bound).

    At most "usual - seen" is still to go, and at least nothing (or "usual - most"); the
    estimate is the middle of the two. Past its usual length it is given a share of the
    time seen still to go, with an open upper end (as :func:`left_of`).
    """
    if seen >= part.seconds:
        value = OVERRUN_SHARE * seen
        return PhasePart(part.phase, part.name, value, 0.0,
                         max(part.high - seen, value * (1 + OPEN_END)), part.basis)
    top = part.seconds - seen
    bottom = max(part.seconds - most, 0.0) if most is not None else 0.0
    value = (top + min(bottom, top)) / 2
    low = max(part.low - most, 0.0) if most is not None else 0.0
    high = max(part.high - seen, value)
    return PhasePart(part.phase, part.name, value, min(low, value), high, part.basis)

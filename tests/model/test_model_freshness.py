"""Freshness: how old a source's data is in a snapshot, and the guard that refuses to act on
a stale one."""

from __future__ import annotations

import datetime as dt

from ndbtop.model.freshness import freshness, stale_blocker
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus

WALL = dt.datetime(2026, 11, 25, 12, 5, 49).timestamp()


def snap(state: SourceState, last_ok: float | None, interval: float = 1.0) -> ClusterSnapshot:
    return ClusterSnapshot(1000.0, WALL, interval, (SourceStatus("mgm", state, last_ok=last_ok),))


def test_data_older_than_two_intervals_is_stale_with_its_time_and_age() -> None:
    f = freshness(snap(SourceState.RETRYING, 1000.0 - 78))
    assert f.stale and f.age == 78.0
    assert f.text() == "as of 12:04:31, 78 s ago"
    assert stale_blocker(snap(SourceState.RETRYING, 922.0)) == (
        "the cluster state is stale (as of 12:04:31, 78 s ago: the management server has "
        "not answered since); not acting on it")


def test_two_intervals_is_the_limit_with_a_floor_for_short_intervals() -> None:
    assert not freshness(snap(SourceState.CONNECTED, 1000.0 - 9.9, interval=5.0)).stale
    assert freshness(snap(SourceState.CONNECTED, 1000.0 - 10.1, interval=5.0)).stale
    assert not freshness(snap(SourceState.CONNECTED, 1000.0 - 1.5, interval=0.1)).stale
    assert freshness(snap(SourceState.CONNECTED, 1000.0 - 2.1, interval=0.1)).stale
    assert stale_blocker(snap(SourceState.CONNECTED, 999.0)) is None


def test_never_answered_is_stale() -> None:
    f = freshness(snap(SourceState.RETRYING, None))
    assert f.stale and f.age is None and f.text() == "never answered"
    assert stale_blocker(snap(SourceState.CONNECTING, None)) == (
        "the management server has not answered yet: no state to act on")

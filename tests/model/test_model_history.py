"""A start in progress next to the last comparable start: which start, and when a phase is
slower than last time."""

from __future__ import annotations

import pytest

from ndbtop.model.history import PastStart, compare_with_last_time, slower_than_last_time
from ndbtop.model.phases import PhaseRecord, StartTimeline

INITIAL_START = 0
NODE_RESTART = 2


@pytest.mark.parametrize(
    ("spent", "previous", "slower"),
    [
        (None, None, False),
        (600.0, None, False),
        # More than 1.5 times as long and at least 30 s longer.
        (301.0, 200.0, True),
        (300.0, 200.0, False),
        (90.0, 60.0, False),
        (91.0, 60.0, True),
        # A short phase is quiet until it is 30 s longer than last time.
        (29.0, 1.0, False),
        (31.0, 1.0, True),
        (30.0, 0.0, True),
        (40.0, 20.0, False),
        (50.0, 20.0, True),
        # S1: redo-log creation of 38 min 47 s against 5 min 12 s after the fix.
        (2327.0, 312.0, True),
        (2327.0, 2327.0, False),
    ],
)
def test_slower_than_last_time(spent: float | None, previous: float | None, slower: bool) -> None:
    assert slower_than_last_time(spent or 0.0, previous) is slower


def past(node_id: int, kind: int | None, finished_at: float, **phases: float) -> PastStart:
    steps = tuple((int(k[1:]), v) for k, v in phases.items())
    return PastStart(node_id, kind, finished_at, steps, sum(v for _, v in steps))


def running(node_id: int = 3, kind: int | None = NODE_RESTART) -> StartTimeline:
    """A node restart that began at 1000: phases 1-4 done by 1040, phase 5 running since."""
    completed = (
        PhaseRecord(1, 1000.0, 36.0, True),
        PhaseRecord(2, 1036.0, 1.0, True),
        PhaseRecord(3, 1037.0, 1.0, True),
        PhaseRecord(4, 1038.0, 2.0, True),
    )
    return StartTimeline(
        node_id, kind, 1000.0, True, completed, current_phase=5, current_since=1040.0
    )


def test_each_phase_is_compared_with_the_same_nodes_last_start_of_the_same_kind() -> None:
    history = (
        past(3, NODE_RESTART, 100.0, p1=25.0, p4=1.0, p5=100.0),
        past(3, NODE_RESTART, 200.0, p1=26.0, p5=200.0),
        past(2, NODE_RESTART, 300.0, p1=99.0, p4=9.0, p5=900.0),
        past(3, INITIAL_START, 400.0, p1=1.0, p5=5.0),
    )
    versus = compare_with_last_time(history, running(), 1341.0)
    assert {p: (v.seconds, v.last_s, v.running, v.slower) for p, v in versus.items()} == {
        1: (36.0, 26.0, False, False),
        # Node 3's last node restart did not report phase 4: the one before did (node 2's
        # is more recent, but a node is compared with itself first).
        4: (2.0, 1.0, False, False),
        5: (301.0, 200.0, True, True),
    }
    assert versus[5].ratio == pytest.approx(1.505)
    # A node never seen starting is compared with the most recent start of any node.
    assert compare_with_last_time(history, running(node_id=4), 1341.0)[5].last_s == 900.0


def test_the_phase_in_progress_is_flagged_only_once_it_has_run_long_enough() -> None:
    history = (past(3, NODE_RESTART, 200.0, p5=200.0),)
    assert not compare_with_last_time(history, running(), 1340.0)[5].slower
    assert compare_with_last_time(history, running(), 1341.0)[5].slower


@pytest.mark.parametrize(("last", "slower"), [(2.0, True), (10.0, False)])
def test_a_completed_phase_that_was_slower_is_flagged_too(last: float, slower: bool) -> None:
    history = (past(3, NODE_RESTART, 200.0, p1=last),)
    first = compare_with_last_time(history, running(), 1041.0)[1]
    assert (first.seconds, first.running, first.slower) == (36.0, False, slower)


@pytest.mark.parametrize(
    ("history", "timeline"),
    [
        ((), running()),
        # Only starts of another kind: an initial start is no yardstick for a node restart.
        ((past(3, INITIAL_START, 200.0, p1=2.0, p5=200.0),), running()),
        # The kind of the start in progress is not known (no events seen).
        ((past(3, None, 200.0, p1=2.0, p5=200.0),), running(kind=None)),
    ],
)
def test_nothing_to_compare_gives_nothing(
    history: tuple[PastStart, ...], timeline: StartTimeline
) -> None:
    assert compare_with_last_time(history, timeline, 1341.0) == {}


def test_a_finished_start_is_not_compared() -> None:
    history = (past(3, NODE_RESTART, 200.0, p1=2.0, p5=200.0),)
    done = StartTimeline(
        3, NODE_RESTART, 1000.0, True, running().completed, current_phase=None, finished_at=1400.0
    )
    assert compare_with_last_time(history, done, 1500.0) == {}

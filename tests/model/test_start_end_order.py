"""The end of a start as the real server tells it: the last ``StartPhaseCompleted`` and
``Started`` on the event connection, STARTED in ``get status`` on the other.

NDBCNTR (``Ndbcntr::Missra::sendNextSTTOR``, storage/ndb/src/kernel/blocks/ndbcntr/
NdbcntrMain.cpp) reports each phase (``StartPhaseCompleted``, mgm-protocol.md §5.4 type
13, ``phase`` and ``starttype``) once all blocks finished it, up to phase 101 (§6), then
``NDBStartCompleted`` (type 11), and only then sets its state to STARTED. Events and
``get status`` come over two connections, so a poll may show STARTED before the last
events arrive, or STARTING when it was asked before the ``Started`` event arrived.
"""

from __future__ import annotations

import pytest

from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.events.encode import encode_parsable
from ndbtop.mgm.status import NodeStatus
from ndbtop.mgm.wire import LineBuffer, RawEvent
from ndbtop.model.history import past_start
from ndbtop.model.phases import StartTimeline, apply_event, apply_status

NODE_RESTART = 2
VERSION = 0x070606
"""NDB 7.6.6 as the ``version`` word of NDBStartStarted/NDBStartCompleted."""
PHASES = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100)
BEGAN = 1000.0


def event(event_type: int, words: tuple[int, ...], at: float, node: int = 3) -> Event:
    """An event as the listener decodes it from the parsable stream (§5.2)."""
    lines = LineBuffer().feed(encode_parsable(event_type, node, words))
    parser = EventStreamParser()
    raw = [x for x in (parser.feed(line) for line in lines) if isinstance(x, RawEvent)]
    return decode_event(raw[0], at)


def phase_done(phase: int, at: float) -> Event:
    return event(13, (phase, NODE_RESTART), at)


def status(state: str, phase: int = 0) -> NodeStatus:
    """Node 3 in ``get status`` (§2.2): ``startphase`` is the last completed phase."""
    return NodeStatus(3, "NDB", state, VERSION, VERSION, phase, 1, 0, 1, "10.0.0.3")


def up_to_phase_100() -> dict[int, StartTimeline]:
    """A node restart of node 3: Start initiated at 1000, phases 0..100 by 1080."""
    t = apply_event({}, event(10, (VERSION, VERSION), BEGAN))
    for i, phase in enumerate(PHASES):
        t = apply_event(t, phase_done(phase, BEGAN + 8.0 * i))
    return t


def assert_whole_restart(t: StartTimeline, finished_at: float) -> None:
    assert [r.phase for r in t.completed] == [*PHASES, 101]
    assert all(r.exact for r in t.completed)
    assert t.completed[-1].seconds == pytest.approx(2.0)
    assert t.finished_at == finished_at and t.finished_exact
    assert t.began_at == BEGAN and t.began_exact
    assert t.elapsed_s(10_000.0) == pytest.approx(finished_at - BEGAN)
    saved = past_start(t)
    assert saved is not None and not saved.partial
    assert saved.seconds(101) == pytest.approx(2.0)
    assert saved.total_s == pytest.approx(finished_at - BEGAN, abs=0.05)


def test_events_in_the_servers_order_give_one_start_through_phase_101() -> None:
    t = up_to_phase_100()
    t = apply_event(t, phase_done(101, 1082.0))
    t = apply_event(t, event(11, (VERSION, VERSION), 1082.01))
    t = apply_status(t, [status("STARTED")], 1082.5)
    assert_whole_restart(t[3], 1082.01)


def test_phase_101_and_started_arriving_after_a_poll_showed_started_end_the_same_start() -> (
    None
):
    t = up_to_phase_100()
    # Asked at 1081.9: the node is STARTED, its last two events are still on their way.
    t = apply_status(t, [status("STARTED")], 1081.9)
    assert not t[3].active and not t[3].finished_exact
    t = apply_event(t, phase_done(101, 1082.0))
    assert len(t) == 1 and not t[3].active, "no new start from a late phase 101"
    assert t[3].completed[-1].phase == 101 and t[3].began_at == BEGAN
    t = apply_event(t, event(11, (VERSION, VERSION), 1082.01))
    t = apply_status(t, [status("STARTED")], 1083.0)
    assert_whole_restart(t[3], 1082.01)


def test_started_arriving_after_a_poll_showed_started_sets_the_end() -> None:
    t = up_to_phase_100()
    t = apply_event(t, phase_done(101, 1082.0))
    t = apply_status(t, [status("STARTED")], 1082.005)
    t = apply_event(t, event(11, (VERSION, VERSION), 1082.01))
    assert_whole_restart(t[3], 1082.01)


def test_a_poll_asked_before_started_arrived_opens_no_new_start() -> None:
    t = up_to_phase_100()
    t = apply_event(t, phase_done(101, 1082.0))
    t = apply_event(t, event(11, (VERSION, VERSION), 1082.01))
    # Asked at 1081.95, answered after the events: STARTING, last completed phase 100.
    t = apply_status(t, [status("STARTING", 100)], 1081.95)
    assert_whole_restart(t[3], 1082.01)


def test_a_later_start_of_the_node_is_a_new_start() -> None:
    t = up_to_phase_100()
    t = apply_status(t, [status("STARTED")], 1081.9)
    t = apply_event(t, phase_done(101, 1082.0))
    t = apply_event(t, event(11, (VERSION, VERSION), 1082.01))
    t = apply_status(t, [status("STARTING", 1)], 1500.0)
    assert t[3].active and t[3].began_at == 1500.0
    t = apply_event(t, event(10, (VERSION, VERSION), 1600.0))
    assert t[3].active and t[3].began_at == 1600.0 and t[3].completed == ()


def test_phases_a_poll_showed_done_before_their_events_take_the_events_times() -> None:
    # Asked at 1010.5, the answer says phase 3 completed (§6: startphase is the last
    # completed phase); the events of phases 1..3 arrive after it, in the node's order.
    t = apply_event({}, event(10, (VERSION, VERSION), BEGAN))
    t = apply_event(t, phase_done(0, 1010.0))
    t = apply_status(t, [status("STARTING", 3)], 1010.5)
    assert [r.exact for r in t[3].completed] == [True, False, False, False]
    for phase, at in ((1, 1010.6), (2, 1010.8), (3, 1011.0)):
        t = apply_event(t, phase_done(phase, at))
    line = t[3]
    assert [(r.phase, r.began_at, r.exact) for r in line.completed] == [
        (0, BEGAN, True), (1, 1010.0, True), (2, 1010.6, True), (3, 1010.8, True)]
    assert [r.seconds for r in line.completed] == pytest.approx([10.0, 0.6, 0.2, 0.2])
    assert line.current_phase == 4 and line.current_since == 1011.0
    assert line.current_from == "event" and line.current_exact
    t = apply_event(t, phase_done(4, 1020.0))
    assert t[3].completed[-1].seconds == pytest.approx(9.0) and t[3].completed[-1].exact


def test_a_poll_ahead_of_the_last_events_leaves_a_whole_start() -> None:
    # The poll shows STARTED while the events of phases 9, 100 and 101 are on their way.
    t = apply_event({}, event(10, (VERSION, VERSION), BEGAN))
    for i, phase in enumerate(PHASES[:-2]):
        t = apply_event(t, phase_done(phase, BEGAN + 8.0 * i))
    t = apply_status(t, [status("STARTING", 100)], 1070.0)
    t = apply_status(t, [status("STARTED")], 1081.5)
    assert not t[3].active
    saved_early = past_start(t[3])
    assert saved_early is not None and saved_early.partial
    for phase, at in ((9, 1072.0), (100, 1080.0), (101, 1082.0)):
        t = apply_event(t, phase_done(phase, at))
    t = apply_event(t, event(11, (VERSION, VERSION), 1082.01))
    assert_whole_restart(t[3], 1082.01)


def test_events_late_for_a_start_attached_mid_way_keep_what_was_not_seen_unknown() -> None:
    # First sight: a poll at 2000 with phase 4 the last completed (§6), no Start
    # initiated seen. A poll at 2030 shows phase 6 done; the events of phases 5 and 6
    # arrive after it.
    t = apply_status({}, [status("STARTING", 4)], 2000.0)
    t = apply_status(t, [status("STARTING", 6)], 2030.0)
    t = apply_event(t, phase_done(5, 2029.0))
    t = apply_event(t, phase_done(6, 2029.9))
    line = t[3]
    by_phase = {r.phase: r for r in line.completed}
    assert all(by_phase[p].seconds is None for p in range(1, 5)), "over before ndbtop came"
    five, six = by_phase[5], by_phase[6]
    assert five.lower_bound and five.seconds == pytest.approx(29.0) and not five.exact
    assert not six.lower_bound and six.exact and six.seconds == pytest.approx(0.9)
    assert six.began_at == 2029.0
    assert line.current_phase == 7 and line.current_since == 2029.9
    saved = past_start(line)
    assert saved is None or saved.partial

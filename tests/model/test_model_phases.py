"""Start-phase timelines folded from events and from status polls."""

from __future__ import annotations

import pytest

from ndbtop.compat import zip_strict
from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.events.encode import encode_parsable
from ndbtop.mgm.status import NodeStatus
from ndbtop.mgm.wire import LineBuffer, RawEvent
from ndbtop.model.phases import (
    apply_event,
    apply_status,
    next_phase,
    phase_name,
    typical_seconds,
)


def event(event_type: int, node: int, words: tuple[int, ...], at: float) -> Event:
    """An event as the listener would decode it from the wire."""
    lines = LineBuffer().feed(encode_parsable(event_type, node, words))
    parser = EventStreamParser()
    raw = [x for x in (parser.feed(line) for line in lines) if isinstance(x, RawEvent)]
    return decode_event(raw[0], at)


def starting(node_id: int, phase: int) -> NodeStatus:
    return NodeStatus(node_id, "NDB", "STARTING", 525315, 525315, phase, 1, 0, 1, "10.0.0.1")


@pytest.mark.parametrize(
    ("completed", "expected"),
    [(0, 1), (3, 4), (9, 100), (100, 101), (101, None), (50, 100)],
)
def test_next_phase(completed: int, expected: int | None) -> None:
    assert next_phase(completed) == expected


@pytest.mark.parametrize(
    ("phase", "name"),
    [(4, "restore or local start"), (5, "copy data, wait LCP"), (8, "rebuild indexes"),
     (101, "subscription hand-over"), (42, "phase 42")],
)
def test_phase_names(phase: int, name: str) -> None:
    assert phase_name(phase) == name


def test_the_arbitrator_starts_in_phase_7_not_2() -> None:
    # The manual's STTOR Phase 7: "In QMGR the president starts an arbitrator"; in phase 2
    # NdbcntrMain.cpp startPhase2Lab (DIH_RESTARTREQ, then READ_NODESREQ and CNTR_START_REQ
    # to the master) settles the master and the kind of start.
    assert phase_name(2) == "master"
    assert phase_name(7) == "start arbitrator"
    assert "arbitrator" not in phase_name(2)


def test_no_phase_number_alone_is_named_redo_log_init() -> None:
    # Which phase creates the redo log depends on the release (phase 4 in 6.x and in a 7.4
    # source: Dblqh::startphase3Lab; begun in phase 2 in a 7.2 source: startphase1Lab; 8.0
    # not read): only the phase in which it was seen gets the name.
    assert all(phase_name(p) != "redo log init" for p in range(0, 102))
    assert phase_name(2, redo_phase=2) == "redo log init"
    assert phase_name(4, redo_phase=2) == "restore or local start"
    assert phase_name(4, redo_phase=4) == "redo log init"


def test_redo_init_normal_duration_is_the_log_size_at_disk_speed() -> None:
    # S1: 43,008 MB at 50 MB/s is 860 s, in the phase the redo work was seen in;
    # restores have no fixed norm.
    assert typical_seconds(4, 0, 43008, redo_phase=4) == pytest.approx(860.16)
    assert typical_seconds(2, 0, 43008, redo_phase=2) == pytest.approx(860.16)
    assert typical_seconds(4, 0, 43008) is None
    assert typical_seconds(5, 2, None) is None


def test_redo_progress_is_summed_over_the_ldm_instances() -> None:
    # One LogFileInitStatus per LDM instance: word 1 is the block reference, the node id
    # in its low 16 bits, the instance above (redo-init.md §6).
    def ref(instance: int) -> int:
        return (instance << 16) | 10

    t: dict = {}
    t = apply_event(t, event(10, 10, (525315, 525315), 1000.0))
    for phase, at in ((1, 1000.4),):
        t = apply_event(t, event(13, 10, (phase, 0), at))
    for i in (1, 2):
        t = apply_event(t, event(71, 10, (ref(i), 8, 0, 2048, 0), 1001.0))
    redo = t[10].redo
    assert redo is not None
    assert (redo.total_files, redo.files_done, redo.total_mb, redo.mb_done) == (16, 0, 4096, 0)
    assert t[10].redo_phase == 2 and t[10].name_of(2) == "redo log init"
    t = apply_event(t, event(71, 10, (ref(1), 8, 4, 2048, 1024), 1011.0))
    redo = t[10].redo
    assert redo is not None and (redo.files_done, redo.mb_done) == (4, 1024)
    assert redo.mb_per_s == pytest.approx(102.4) and not redo.completed
    t = apply_event(t, event(72, 10, (ref(1), 8, 8, 2048, 2048), 1021.0))
    assert t[10].redo is not None and not t[10].redo.completed
    t = apply_event(t, event(72, 10, (ref(2), 8, 8, 2048, 2048), 1022.0))
    redo = t[10].redo
    assert redo is not None and redo.completed and (redo.files_done, redo.mb_done) == (16, 4096)


def test_events_give_exact_phase_durations_for_the_initial_start() -> None:
    t: dict = {}
    t = apply_event(t, event(10, 10, (525315, 525315), 1000.0))
    for phase, at in ((1, 1000.4), (2, 1000.5), (3, 1000.6)):
        t = apply_event(t, event(13, 10, (phase, 0), at))
    t = apply_event(t, event(13, 10, (4, 0), 1000.6 + 2327.0))
    line = t[10]
    assert line.began_exact and line.start_type == 0
    assert [r.phase for r in line.completed] == [1, 2, 3, 4]
    assert line.completed[-1].seconds == pytest.approx(2327.0)
    assert all(r.exact for r in line.completed)
    assert line.current_phase == 5
    assert line.in_phase_s(1000.6 + 2327.0 + 3) == pytest.approx(3.0)
    t = apply_event(t, event(11, 10, (525315, 525315), 5000.0))
    assert not t[10].active and t[10].finished_at == 5000.0


def test_memory_allocation_is_phase_0_and_phase_1_its_own_time() -> None:
    # S2: a node restart allocates and touches memory for 26 s before phase 0 completes.
    t = apply_event({}, event(10, 3, (525315, 525315), 100.0))
    t = apply_event(t, event(13, 3, (0, 2), 126.0))
    assert t[3].current_phase == 1 and t[3].in_phase_s(126.5) == pytest.approx(0.5)
    t = apply_event(t, event(13, 3, (1, 2), 127.5))
    zero, one = t[3].completed
    assert (zero.phase, zero.seconds, one.phase, one.seconds) == (0, 26.0, 1, 1.5)
    assert zero.exact and one.exact


def test_status_polls_fill_in_what_events_did_not_say_marked_approximate() -> None:
    t = apply_status({}, [starting(11, 3)], 100.0)
    line = t[11]
    assert [r.phase for r in line.completed] == [1, 2, 3]
    assert not any(r.exact for r in line.completed)
    assert line.current_phase == 4 and not line.began_exact
    t = apply_status(t, [starting(11, 4)], 160.0)
    assert t[11].completed[-1].phase == 4
    assert t[11].completed[-1].seconds == pytest.approx(60.0)
    t = apply_status(t, [NodeStatus(11, "NDB", "STARTED", 525315)], 170.0)
    assert t[11].finished_at == 170.0


def test_a_node_that_stops_while_starting_abandons_its_start() -> None:
    t = apply_status({}, [starting(11, 2)], 10.0)
    t = apply_status(t, [NodeStatus(11, "NDB", "NO_CONTACT")], 20.0)
    assert t[11].aborted and not t[11].active


def test_redo_progress_speed_and_eta_from_two_reports() -> None:
    t = apply_event({}, event(10, 10, (525315, 525315), 0.0))
    ref = (247 << 16) | 10
    t = apply_event(t, event(71, 10, (ref, 168, 20, 43008, 5000), 100.0))
    assert t[10].redo is not None and t[10].redo.mb_per_s is None
    t = apply_event(t, event(71, 10, (ref, 168, 24, 43008, 6000), 150.0))
    redo = t[10].redo
    assert redo is not None
    assert redo.mb_per_s == pytest.approx(20.0)
    assert redo.eta_s == pytest.approx((43008 - 6000) / 20.0)
    assert t[10].kind == 0
    t = apply_event(t, event(72, 10, (ref, 168, 168, 43008, 43008), 2000.0))
    assert t[10].redo is not None and t[10].redo.completed and t[10].redo.eta_s == 0.0


def test_redo_speed_is_measured_per_instance_when_their_reports_arrive_together() -> None:
    # The LDM instances report at the same moment; their events arrive milliseconds apart
    # and are stamped on arrival (redo-init.md §6): 1,024 MB each in 10 s is 204.8 MB/s,
    # not 1,024 MB in the 3 ms between the two events.
    t = apply_event({}, event(10, 10, (525315, 525315), 0.0))
    refs = [(i << 16) | 10 for i in (1, 2)]
    for ref, at in zip_strict(refs, (100.0, 100.002)):
        t = apply_event(t, event(71, 10, (ref, 8, 0, 4096, 0), at))
    for ref, at in zip_strict(refs, (110.0, 110.003)):
        t = apply_event(t, event(71, 10, (ref, 8, 2, 4096, 1024), at))
    redo = t[10].redo
    assert redo is not None and redo.mb_done == 2048
    assert redo.mb_per_s == pytest.approx(204.8, rel=1e-3)
    assert redo.eta_s == pytest.approx((8192 - 2048) / redo.mb_per_s)
    # An instance that completed writes no more: the node's speed is the other's.
    t = apply_event(t, event(72, 10, (refs[0], 8, 8, 4096, 4096), 120.0))
    assert t[10].redo is not None and t[10].redo.mb_per_s == pytest.approx(102.4, rel=1e-3)


def test_redo_report_for_a_node_without_a_start_is_ignored() -> None:
    ref = (247 << 16) | 10
    assert apply_event({}, event(71, 10, (ref, 168, 20, 43008, 5000), 1.0)) == {}

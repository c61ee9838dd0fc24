"""What ndbtop did not see of a start: lower bounds, the host's evidence, partial history."""

from __future__ import annotations

from dataclasses import replace

from ndbtop.host.procfs import parse_sample, start_ticks
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config_facts import no_reports_notice
from ndbtop.model.history import last_time, past_start
from ndbtop.model.hosts import NodeStart
from ndbtop.model.phases import apply_event, apply_status
from ndbtop.model.start_evidence import apply_host, since_text, timer_prefix
from tests.host.test_host_procfs import SAMPLE, M
from tests.model.test_model_phases import event


def ndb(status: str, phase: int) -> NodeStatus:
    return NodeStatus(10, "NDB", status, 525315, 525315, phase, 10, 0, 2, "h")


def phase_done(phase: int, at: float) -> Event:
    # StartPhaseCompleted (13): word 1 the phase, word 2 the start type (mgm-protocol.md §5).
    return event(13, 10, (phase, 0), at)


def test_a_start_first_seen_under_way_counts_from_first_sight_as_a_lower_bound() -> None:
    t = apply_status({}, [ndb("STARTING", 3)], 1000.0)[10]
    assert (t.current_phase, t.current_from, t.began_from) == (4, "first_seen", None)
    assert t.in_phase_lower_bound and timer_prefix(t) == "≥"
    assert since_text(t).startswith("since ndbtop connected at ")
    # A change seen by the next poll is within one poll; an event is exact.
    t = apply_status({10: t}, [ndb("STARTING", 4)], 1010.0)[10]
    assert (t.current_phase, t.current_from, timer_prefix(t)) == (5, "status", "≈")
    t = apply_event({10: t}, phase_done(5, 1020.0))[10]
    assert (t.current_phase, t.current_from, timer_prefix(t)) == (6, "event", "")


def test_the_host_gives_the_start_and_the_redo_phase_their_beginning() -> None:
    t = apply_status({}, [ndb("STARTING", 1)], 1000.0)[10]
    t = apply_host({10: t}, [NodeStart(10, 400.0, None)])[10]
    assert (t.began_at, t.began_from, t.current_from) == (400.0, "host", "first_seen")
    t = replace(t, redo_phase=t.current_phase)
    t = apply_host({10: t}, [NodeStart(10, 400.0, 430.0)])[10]
    assert (t.current_since, t.current_from, timer_prefix(t)) == (430.0, "host", "")
    # A process that started after ndbtop saw the start is another one: ignored.
    fresh = apply_status({}, [ndb("STARTING", 1)], 1000.0)[10]
    assert apply_host({10: fresh}, [NodeStart(10, 1500.0, None)])[10] == fresh


def test_a_start_seen_in_part_is_partial_and_never_a_last_time() -> None:
    t = apply_status({}, [ndb("STARTING", 3)], 1000.0)[10]
    t = apply_event({10: t}, phase_done(4, 1050.0))[10]
    t = apply_event({10: t}, phase_done(5, 1080.0))[10]
    t = apply_status({10: t}, [ndb("STARTED", 0)], 1100.0)[10]
    seen = past_start(t)
    assert seen is not None and seen.partial
    # Phase 4 ran from before ndbtop came to its completion: not a duration. Phase 5 was
    # seen whole (two events).
    assert seen.seconds(4) is None and seen.seconds(5) == 30.0
    assert last_time((seen,), 10, seen.start_type, 5) is None


def test_the_worker_process_start_is_read_from_field_22_against_btime() -> None:
    line = next(x for x in SAMPLE if x.startswith("4001 ("))
    assert start_ticks(line) == 12345
    sample = parse_sample([*SAMPLE[:9], "btime 1700000000", *SAMPLE[9:]], M, 100)
    (redo,) = sample.redo
    assert redo.pid == 4001 and redo.started_at == 1700000000 + 123.45
    assert redo.log_dirs == ("/data/ndb_7_fs/D10/DBLQH", "/data/ndb_7_fs/D8/DBLQH",
                             "/data/ndb_7_fs/D9/DBLQH")


def test_the_hint_to_measure_on_the_host_works_where_it_is_shown() -> None:
    # On a real cluster --ssh is the way; the demo refuses --ssh, so it names the real one.
    assert no_reports_notice("StartupStatusReportFrequency=0").endswith(
        "add --ssh to measure on the host")
    assert no_reports_notice("StartupStatusReportFrequency=0", simulated=True).endswith(
        "on a real cluster, ndbtop --ssh measures it on the host")


def test_a_phase_event_older_than_the_status_seen_does_not_move_the_phase_back() -> None:
    # get status (asked at once after NDBStartStarted) showed phase 3 done; the event of
    # phase 0 completed, sent earlier, arrives after it.
    t = apply_event({}, event(10, 10, (525315, 525315), 1000.0))
    t = apply_status(t, [ndb("STARTING", 3)], 1000.2)
    t = apply_event(t, phase_done(0, 1000.3))
    assert t[10].current_phase == 4 and t[10].last_completed == 3

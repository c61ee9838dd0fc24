"""A start ndbtop came to late, dated from the management server's cluster log file.

The lines are in the layout real clusters write (LogHandler.cpp ``getDefaultHeader``), their
texts the server's own (EventLogger.cpp ``getTextNDBStartStarted``, ``getTextStartPhase
Completed``, ``getTextNDBStartCompleted``, ``getTextLogFileInitStatus``). FIELD_S1 is the
field report S1 (shared/field-scenarios.md): an initial start of node 10 at 12:24:16,
phases 1 to 3 within the same second, phase 4 completed at 13:03:03 (the report's own line).
``get status`` gives ``node.N.startphase``, the last completed phase (mgm-protocol.md §6).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from ndbtop.mgm.cluster_log import LogLine, parse_lines
from ndbtop.mgm.events.decode import LogFileInit
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.history import past_start
from ndbtop.model.phases import INITIAL_START, StartTimeline, apply_event, apply_status
from ndbtop.model.redo_progress import redo_after
from ndbtop.model.start_evidence import phase_json, since_text, timer_prefix
from ndbtop.model.start_file import FileDating, apply_file, start_lines
from tests.model.test_model_phases import event

UTC = dt.timezone.utc
FIELD_S1 = """\
2008-10-24 12:24:16 [MgmSrvr] INFO     -- Node 10: Start initiated (mysql-5.1.27 ndb-6.3.17)
2008-10-24 12:24:16 [MgmSrvr] INFO     -- Node 10: Start phase 1 completed (initial start)
2008-10-24 12:24:16 [MgmSrvr] INFO     -- Node 10: Start phase 2 completed (initial start)
2008-10-24 12:24:16 [MgmSrvr] INFO     -- Node 10: Start phase 3 completed (initial start)
"""
PHASE_4_DONE = ("2008-10-24 13:03:03 [MgmSrvr] INFO     -- Node 10: Start phase 4 completed "
                "(initial start)\n")


def at(clock: str) -> float:
    whole, _, tenths = clock.partition(".")
    stamp = dt.datetime.strptime(f"2008-10-24 {whole}", "%Y-%m-%d %H:%M:%S")
    return stamp.replace(tzinfo=UTC).timestamp() + float(f"0.{tenths or 0}")


BEGAN = at("12:24:16")
FIRST_SIGHT = at("12:44:16")


def lines(text: str) -> tuple[LogLine, ...]:
    return tuple(parse_lines(text, UTC, 1))


def ndb(status: str, phase: int, node_id: int = 10) -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, 0, 0, phase, 0, 0, 1, "h")


def attached(phase: int = 3, when: float = FIRST_SIGHT) -> dict[int, StartTimeline]:
    """Node 10 first seen STARTING with ``phase`` done: every phase so far began unseen."""
    return apply_status({}, [ndb("STARTING", phase)], when)


def test_the_file_gives_the_phase_in_progress_its_beginning_and_the_start_its_kind() -> None:
    t = attached()[10]
    assert (t.current_from, t.began_from, t.start_type) == ("first_seen", None, None)
    t = apply_file({10: t}, lines(FIELD_S1))[10]
    assert (t.current_phase, t.current_since, t.current_from) == (4, BEGAN, "file")
    assert (t.began_at, t.began_exact, t.began_from) == (BEGAN, True, "file")
    assert t.start_type == INITIAL_START
    # Exact (to the second, the management host's clock): no lower bound left.
    assert not t.in_phase_lower_bound and timer_prefix(t) == ""
    assert t.in_phase_s(FIRST_SIGHT) == 20 * 60
    assert since_text(t).endswith(", from the cluster log")
    assert [(r.phase, r.seconds, r.exact, r.from_file) for r in t.completed] == [
        (1, 0.0, True, True), (2, 0.0, True, True), (3, 0.0, True, True)]
    assert phase_json(t.completed[0]) == {"phase": 1, "seconds": 0.0, "at_least_s": None,
                                          "exact": True, "ended_from": "file"}


def test_the_live_events_after_it_end_the_phase_the_file_saw_begin() -> None:
    t = apply_file(attached(), lines(FIELD_S1))
    # Phase 4's end heard as its event: the phase is whole, its beginning from the file.
    t = apply_event(t, event(13, 10, (4, INITIAL_START), at("13:03:03.4")))
    four = t[10].completed[-1]
    assert (four.phase, four.began_at, four.exact, four.from_file) == (4, BEGAN, True, False)
    assert abs(four.seconds - (38 * 60 + 47.4)) < 1e-6
    assert (t[10].current_phase, t[10].current_from) == (5, "event")
    # Read again later, the file's line of that end leaves the finer time heard.
    again = apply_file(t, lines(FIELD_S1 + PHASE_4_DONE))[10]
    assert again.completed[-1] == four and again.current_since == at("13:03:03.4")
    # The rest of the start as the events tell it: the history keeps it whole.
    done = again
    for i, phase in enumerate((5, 6, 7, 8, 9, 100, 101)):
        done = apply_event({10: done}, event(13, 10, (phase, INITIAL_START),
                                             at("13:03:04") + i * 0.5))[10]
    done = apply_event({10: done}, event(11, 10, (0, 0), at("13:03:08")))[10]
    saved = past_start(done)
    assert saved is not None and not saved.partial and saved.seconds(4) == round(four.seconds, 1)
    assert saved.total_s == round(at("13:03:08") - BEGAN, 1)


def test_a_start_the_file_dated_whole_goes_to_the_history() -> None:
    # The file read after the start ended, get status (older) still showing it STARTING.
    t = apply_file(attached(), lines(FIELD_S1 + PHASE_4_DONE))[10]
    assert (t.current_phase, t.current_since, t.current_from) == (5, at("13:03:03"), "file")
    t = apply_status({10: t}, [ndb("STARTED", 0)], at("13:03:10"))[10]
    saved = past_start(t)
    assert saved is not None and not saved.partial
    assert saved.seconds(4) == at("13:03:03") - BEGAN


def test_phases_get_status_showed_past_the_files_last_line_stay_as_it_showed_them() -> None:
    # First seen with phase 4 done (startphase 4), the file read holding phase 3 last.
    t = apply_file(attached(4), lines(FIELD_S1))[10]
    four = t.completed[-1]
    # Phase 4 began when the file says; it ended at or before ndbtop first saw the node.
    assert (four.phase, four.began_at, four.seconds, four.from_file) == (4, BEGAN, None, False)
    assert (t.current_phase, t.current_from) == (5, "first_seen")


def test_lines_of_an_earlier_start_are_kept_out() -> None:
    earlier = ("2008-10-24 11:00:00 [MgmSrvr] INFO     -- Node 10: Start initiated "
               "(mysql-5.1.27 ndb-6.3.17)\n"
               "2008-10-24 11:00:01 [MgmSrvr] INFO     -- Node 10: Start phase 1 completed "
               "(system restart)\n"
               "2008-10-24 11:00:05 [MgmSrvr] INFO     -- Node 10: Start phase 2 completed "
               "(system restart)\n")
    # An earlier start that never finished, then the current one.
    t = apply_file(attached(), lines(earlier + FIELD_S1))[10]
    assert (t.began_at, t.start_type, len(t.completed)) == (BEGAN, INITIAL_START, 3)
    # Without its Start initiated line (not read), phases going back begin another start.
    current = FIELD_S1.split("\n", 1)[1]
    segment = start_lines(lines(earlier + current), 10)
    assert [ln.time for ln in segment] == [BEGAN] * 3
    t = apply_file(attached(), lines(earlier + current))[10]
    assert (t.current_since, t.current_from) == (BEGAN, "file")
    # Its beginning is not in the file: still a lower bound.
    assert (t.began_exact, t.began_from) == (False, None)
    assert t.completed[0].seconds is None
    # A start that ended in the file (Started) is not the one in progress.
    ended = FIELD_S1 + PHASE_4_DONE + ("2008-10-24 13:03:08 [MgmSrvr] INFO     -- Node 10: "
                                       "Started (mysql-5.1.27 ndb-6.3.17)\n")
    fresh = attached(when=at("13:10:00"))
    assert apply_file(fresh, lines(ended)) == fresh


def test_a_file_start_that_is_not_ndbtops_is_ignored() -> None:
    # A start the file saw begin after ndbtop first saw this one is another.
    early = attached(when=at("12:20:00"))
    assert apply_file(early, lines(FIELD_S1)) == early
    # So is one that began before the node's process started (the host told it).
    host = {10: replace(attached()[10], began_at=at("12:30:00"), began_exact=True,
                        began_from="host")}
    assert apply_file(host, lines(FIELD_S1)) == host
    # Another node's lines date nothing of node 10.
    other = attached()
    assert apply_file(other, lines(FIELD_S1.replace("Node 10:", "Node 11:"))) == other


REDO = "Local redo log file initialization status: #Total files: {}, Completed: {} " \
       "#Total MBytes: {}, Completed: {}"


def redo_file(rounds: list[tuple[str, list[tuple[int, int, int]]]]) -> str:
    """Redo progress lines of node 10's four LDM instances (42 files, 10752 MB each), as
    LogHandler.cpp ``append`` writes them: a line repeated within 3 s is written once, then
    (before the next other line) again with `` - Repeated N times`` and the last one's
    time; once repeated it is written as it is."""
    out = []
    for clock, shares in rounds:
        for files, mb, times in shares:
            text = REDO.format(42, files, 10752, mb)
            out.append(f"2008-10-24 {clock} [MgmtSrvr] INFO     -- Node 10: {text}\n")
            if times > 2:
                out.append(f"2008-10-24 {clock} [MgmtSrvr] INFO     -- Node 10: {text} - "
                           f"Repeated {times - 1} times\n")
            elif times == 2:
                out.append(f"2008-10-24 {clock} [MgmtSrvr] INFO     -- Node 10: {text}\n")
    return "".join(out)


def test_the_files_redo_lines_sum_the_ldm_instances_round_by_round() -> None:
    text = FIELD_S1 + redo_file([("12:24:16", [(0, 0, 4)]),
                                 ("12:24:26", [(0, 47, 4)]),
                                 ("12:24:36", [(0, 94, 2), (0, 93, 2)]),
                                 # One instance's line missing: the round is left out.
                                 ("12:24:46", [(0, 141, 3)])])
    t = apply_file(attached(), lines(text))[10]
    r = t.redo
    assert r is not None and r.from_file
    assert (r.total_files, r.total_mb, r.mb_done, r.at) == (168, 43008, 374, at("12:24:36"))
    assert r.mb_per_s == 374 / 20
    # The phase that creates it is named for it, and the start is an initial one.
    assert (t.redo_phase, t.name_of(4)) == (4, "redo log init")


def test_the_events_take_over_from_the_file_once_every_instance_reported() -> None:
    text = FIELD_S1 + redo_file([("12:24:16", [(0, 0, 4)]), ("12:24:26", [(0, 47, 4)])])
    t = apply_file(attached(), lines(text))[10]
    r = t.redo
    assert r is not None
    for instance in range(1, 4):
        r = redo_after(r, LogFileInit(10, 42, 1, 10752, 60, False, instance), FIRST_SIGHT, False)
        # Three instances heard cover less than the file's whole: the file's figures stand.
        assert (r.mb_done, r.mb_per_s, r.from_file) == (188, 18.8, True)
    r = redo_after(r, LogFileInit(10, 42, 1, 10752, 60, False, 4), FIRST_SIGHT, False)
    # Every instance heard: their sum, and the file's rate until each has its own.
    assert (r.mb_done, r.mb_per_s, r.from_file) == (240, 18.8, False)
    for instance in range(1, 5):
        r = redo_after(r, LogFileInit(10, 42, 1, 10752, 80, False, instance),
                       FIRST_SIGHT + 1.0, False)
    assert r.mb_per_s == 80.0


def test_the_dating_runs_once_per_read_and_per_start_first_seen() -> None:
    dating = FileDating()
    read = lines(FIELD_S1)
    dated = dating(attached(), read)
    assert dated is not None and dated[10].current_from == "file"
    # Nothing new: no work. A node first seen starting asks it again.
    assert dating(dated, read) is None
    eleven = {**dated, **apply_status({}, [ndb("STARTING", 2, 11)], FIRST_SIGHT)}
    assert dating(eleven, read) is not None
    assert dating(dated, lines(FIELD_S1 + PHASE_4_DONE)) is not None

"""Backups from events written by hand as the management server sends them.

Every block below is what ``logevent2str`` prints for a listener (``time=0``,
``starting_node`` through ``refToNode``, ``%d`` values so big counters may be
negative), read by the real stream parser and decoder.
"""

from __future__ import annotations

from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.backups import (
    ABORTED,
    COMPLETED,
    ENDED_UNSEEN,
    FAILED_TO_START,
    RUNNING,
    Backup,
    apply_backup_event,
    apply_status_report,
    find_backup,
    running_backup,
)


def blocks(text: str, at: float) -> tuple[Event, ...]:
    parser = EventStreamParser()
    out = []
    for line in text.split("\n"):
        item = parser.feed(line)
        if isinstance(item, RawEvent):
            out.append(decode_event(item, at))
    return tuple(out)


def feed(backups: tuple[Backup, ...], text: str, at: float) -> tuple[Backup, ...]:
    for event in blocks(text, at):
        backups = apply_backup_event(backups, event)
    return backups


STARTED = "log event reply\ntype=54\ntime=0\nsource_nodeid=2\nstarting_node=1\nbackup_id=7\n\n"

# Node 2 has written 5 GiB + 1 (lo -> 1 as %d, hi = 5 >> 32 words: 5 GiB = 0x1_4000_0000).
STATUS_2 = (
    "log event reply\ntype=62\ntime=0\nsource_nodeid=2\nstarting_node=1\nbackup_id=7\n"
    "n_bytes_lo=1073741824\nn_bytes_hi=1\nn_records_lo=25000000\nn_records_hi=0\n"
    "n_log_bytes_lo=2048000\nn_log_bytes_hi=0\nn_log_records_lo=40000\nn_log_records_hi=0\n\n"
)
NOT_STARTED_3 = (
    "log event reply\ntype=62\ntime=0\nsource_nodeid=3\nstarting_node=0\nbackup_id=0\n"
    "n_bytes_lo=0\nn_bytes_hi=0\nn_records_lo=0\nn_records_hi=0\n"
    "n_log_bytes_lo=0\nn_log_bytes_hi=0\nn_log_records_lo=0\nn_log_records_hi=0\n\n"
)
# 77,309,411,328 + 838,860 data bytes: lo word 838860, hi 18; records 364,670,991 print
# as a positive %d; the log byte count 2,415,919,104 does not fit %d and prints negative.
COMPLETED_7 = (
    "log event reply\ntype=56\ntime=0\nsource_nodeid=2\nstarting_node=1\nbackup_id=7\n"
    "start_gci=1011\nstop_gci=1156\nn_bytes=838860\nn_records=364670991\n"
    "n_log_bytes=-1879048192\nn_log_records=3456037\nn_bytes_hi=18\nn_records_hi=0\n"
    "n_log_bytes_hi=0\nn_log_records_hi=0\n\n"
)
ABORTED_8 = (
    "log event reply\ntype=57\ntime=0\nsource_nodeid=3\nstarting_node=1\nbackup_id=8\n"
    "error=1326\n\n"
)
FAILED = "log event reply\ntype=55\ntime=0\nsource_nodeid=2\nstarting_node=1\nerror=1342\n\n"


def test_started_then_completed_with_the_masters_totals() -> None:
    b = feed((), STARTED, 1000.0)
    run = running_backup(b)
    assert run is not None and run.backup_id == 7 and run.state == RUNNING
    assert (run.starting_node, run.master, run.started_at) == (1, 2, 1000.0)
    assert run.written_bytes is None  # nothing reported yet is not zero
    b = feed(b, COMPLETED_7, 1290.0)
    done = find_backup(b, 7)
    assert done is not None and done.state == COMPLETED and running_backup(b) is None
    assert done.bytes == 18 * 2**32 + 838860
    assert done.log_bytes == 2415919104
    assert done.records == 364670991
    assert (done.start_gci, done.stop_gci) == (1011, 1156)
    assert done.written_bytes == 18 * 2**32 + 838860 + 2415919104
    assert done.duration(5000.0) == 290.0
    assert done.bytes_per_s == done.written_bytes / 290.0


def test_status_reports_give_per_node_progress_and_rate() -> None:
    b = feed((), STARTED, 1000.0)
    b = apply_status_report(b, blocks(STATUS_2 + NOT_STARTED_3, 1010.0), 1010.0)
    run = running_backup(b)
    assert run is not None
    node2 = run.node(2)
    assert node2 is not None and run.node(3) is None  # "Backup not started" on node 3
    assert node2.bytes == 5 * 2**30 and node2.records == 25000000
    assert node2.bytes_per_s is None  # one report gives no rate
    later = STATUS_2.replace("n_bytes_lo=1073741824", "n_bytes_lo=1744830464")
    b = apply_status_report(b, blocks(later, 1020.0), 1020.0)
    node2 = running_backup(b).node(2)  # type: ignore[union-attr]
    assert node2 is not None and node2.bytes_per_s == (1744830464 - 1073741824) / 10.0
    assert running_backup(b).bytes_per_s == node2.bytes_per_s  # type: ignore[union-attr]


def test_backup_first_seen_in_a_report_has_no_start_time() -> None:
    b = apply_status_report((), blocks(STATUS_2, 50.0), 50.0)
    run = running_backup(b)
    assert run is not None and run.backup_id == 7 and run.started_at is None
    assert run.duration(60.0) is None
    assert run.as_json(60.0)["started_at"] is None


def test_aborted_by_node_failure_keeps_the_error() -> None:
    b = feed((), STARTED.replace("backup_id=7", "backup_id=8"), 10.0)
    b = feed(b, ABORTED_8, 130.0)
    aborted = find_backup(b, 8)
    assert aborted is not None and aborted.state == ABORTED and aborted.error == 1326
    assert aborted.error_text == "1326: Backup aborted due to node failure: Permanent error: " \
        "Internal error"
    assert aborted.master == 3


def test_failed_to_start_has_no_id_and_keeps_history() -> None:
    b = feed((), STARTED + COMPLETED_7, 10.0)
    b = feed(b, FAILED, 20.0)
    assert [x.state for x in b] == [COMPLETED, FAILED_TO_START]
    assert b[1].backup_id is None and b[1].error == 1342


def test_late_report_of_an_ended_backup_changes_nothing() -> None:
    b = feed((), STARTED + COMPLETED_7, 10.0)
    assert apply_status_report(b, blocks(STATUS_2, 30.0), 30.0) == b


def test_report_with_no_backup_ends_one_whose_end_was_missed() -> None:
    b = feed((), STARTED, 10.0)
    b = apply_status_report(b, blocks(NOT_STARTED_3, 500.0), 500.0)
    b7 = find_backup(b, 7)
    assert b7 is not None and b7.state == ENDED_UNSEEN and b7.ended_at == 500.0


def test_malformed_event_is_not_data() -> None:
    broken = STATUS_2.replace("n_bytes_lo=1073741824\n", "n_bytes_lo=lots\n")
    assert apply_status_report((), blocks(broken, 1.0), 1.0) == ()


def test_an_end_event_after_a_report_without_the_backup_tells_how_it_ended() -> None:
    b = feed((), STARTED, 10.0)
    b = apply_status_report(b, blocks(NOT_STARTED_3, 290.0), 290.0)
    assert find_backup(b, 7).state == ENDED_UNSEEN  # type: ignore[union-attr]
    b = feed(b, COMPLETED_7, 290.1)
    done = find_backup(b, 7)
    assert done is not None and done.state == COMPLETED and len(b) == 1

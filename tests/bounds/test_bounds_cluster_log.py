"""The cluster log file's lines matched against each other and against the events heard,
with one text repeated: a file holds thousands of one warning (a flood, or lines written
to the file by anyone who can), and each match once looked through every earlier line of
the same text. Each doubling test counts the lines of ndbtop's code run
(:func:`tests.bounds.conftest.work`), not time.

- merging several management servers' files (each event once);
- the rules' history (a file line also heard as an event is judged once);
- the reports' list of events heard that the file does not hold;
- the Events view's lines the listener missed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from ndbtop.collect.cluster_log import merge
from ndbtop.findings.history import forget, judged_events
from ndbtop.mgm.cluster_log import LogLine, parse_line
from ndbtop.mgm.events.decode import Event
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.cluster_log import listened
from ndbtop.tui.views.events import missed_lines
from tests.bounds.conftest import LINEAR_LIMIT, work_growth
from tests.findings.test_rules_server_words import WALL, snap

LINE = parse_line("2023-11-14 22:13:00 [MgmtSrvr] WARNING  -- Node 2: Node 3 missed heartbeat 2",
                  dt.timezone.utc)


def _lines(n: int, at: float) -> tuple[LogLine, ...]:
    """``n`` lines of one text within one second (times apart by less than any window)."""
    assert LINE.event is not None
    return tuple(replace(LINE, time=at + i * 1e-4, event=replace(
        LINE.event, received_at=at + i * 1e-4)) for i in range(n))


def _events(n: int, at: float) -> tuple[Event, ...]:
    """``n`` events heard of the same text, long before or after the lines."""
    assert LINE.event is not None
    return tuple(replace(LINE.event, received_at=at + i * 1e-4) for i in range(n))


def test_merging_files_of_one_repeated_line_is_linear() -> None:
    def files(n: int) -> list[tuple[LogLine, ...]]:
        # Each server's lines a minute after the other's: none is the other's.
        return [_lines(n, WALL - 200), _lines(n, WALL - 100), _lines(n, WALL - 140)]

    assert len(merge(files(50))) == 150
    assert work_growth(files, merge, 400) < LINEAR_LIMIT


def test_the_same_line_of_two_files_is_still_merged_once() -> None:
    one, two = _lines(3, WALL - 10), _lines(3, WALL - 9.5)
    assert merge([one, two]) == list(one)
    assert merge([one, _lines(3, WALL - 5)]) == [*one, *_lines(3, WALL - 5)]


def _snapshot(n: int) -> ClusterSnapshot:
    # The file's lines 100 s ago, the events heard 150 s ago: none of them the same report.
    return snap(cluster_log=_lines(n, WALL - 100), events=_events(n, WALL - 150))


def test_the_rules_history_of_one_repeated_line_is_linear() -> None:
    def run(s: ClusterSnapshot) -> object:
        forget()
        return judged_events(s)

    s = _snapshot(50)
    assert len(run(s)) == 100
    assert work_growth(_snapshot, run, 400) < LINEAR_LIMIT


def test_the_reports_events_heard_beside_one_repeated_line_is_linear() -> None:
    def near(n: int) -> ClusterSnapshot:
        return snap(cluster_log=_lines(n, WALL - 100), events=_events(n, WALL - 130))

    assert len(listened(near(50))) == 50
    assert work_growth(near, listened, 400) < LINEAR_LIMIT


def test_the_missed_lines_of_one_repeated_line_are_linear() -> None:
    def run(s: ClusterSnapshot) -> object:
        return missed_lines(s.cluster_log, s.events)

    before, missed = run(_snapshot(50))
    assert (before, len(missed)) == ([], 50)
    assert work_growth(_snapshot, run, 400) < LINEAR_LIMIT

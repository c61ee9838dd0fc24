"""Matching local threads to ndbinfo threads by OS thread id."""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.host.samples import ThreadSample
from ndbtop.host.threadmap import NdbinfoThread, match_threads


@dataclass(frozen=True)
class Local:
    tid: int
    node_id: int | None = None


ROWS = (
    NdbinfoThread(10, 0, "main", 5001),
    NdbinfoThread(10, 1, "rep", 5002),
    NdbinfoThread(10, 2, "ldm", 5003),
    NdbinfoThread(10, 3, "recv", 5004),
    NdbinfoThread(11, 0, "main", 7001),
    NdbinfoThread(11, 1, "rep", 5003),  # other host: tid equal to a node 10 tid
    NdbinfoThread(11, 4, "send", None),  # version without os_tid
    NdbinfoThread(11, 5, "send", 0),
)


def pairs(matches: tuple) -> list[tuple[int, int, int]]:
    return [(m.ndbinfo.node_id, m.ndbinfo.thr_no, m.local.tid) for m in matches]


def test_matches_by_tid_and_node() -> None:
    local = [Local(5004, 10), Local(5001, 10), Local(5003, 10), Local(9999, 10)]
    assert pairs(match_threads(ROWS, local)) == [(10, 3, 5004), (10, 0, 5001), (10, 2, 5003)]


def test_node_id_must_agree() -> None:
    assert match_threads(ROWS, [Local(7001, 10)]) == ()
    assert pairs(match_threads(ROWS, [Local(5003, 11)])) == [(11, 1, 5003)]


def test_unknown_node_matches_only_an_unambiguous_tid() -> None:
    local = [Local(5001), Local(5003), Local(7001)]
    assert pairs(match_threads(ROWS, local)) == [(10, 0, 5001), (11, 0, 7001)]


def test_rows_without_os_tid_never_match() -> None:
    assert match_threads(ROWS, [Local(0, 11)]) == ()
    assert match_threads([NdbinfoThread(1, 0, "main")], [Local(0), Local(1, 1)]) == ()


def test_no_rows_or_no_local_threads() -> None:
    assert match_threads([], [Local(5001, 10)]) == ()
    assert match_threads(ROWS, []) == ()


def test_accepts_thread_samples_and_keeps_them() -> None:
    # Its comm is the process's, as for every ndbmtd thread: the name comes from ndbinfo.
    sample = ThreadSample(4000, 10, "ndbmtd", 5002, "ndbmtd", 1.0, 0.5)
    (match,) = match_threads(iter(ROWS), iter([sample]))
    assert match.local is sample
    assert match.ndbinfo.thread_name == "rep"

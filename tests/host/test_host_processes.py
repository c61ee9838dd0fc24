"""Recognising data node processes and reading their node ids (pure parts)."""

from __future__ import annotations

import pytest

from ndbtop.host.processes import (
    NdbProcess,
    ProcessInfo,
    angel_pid_from_cmdline,
    classify,
    is_data_node_process,
    node_id_from_cmdline,
)


@pytest.mark.parametrize(
    ("name", "cmdline", "expected"),
    [
        ("ndbmtd", ["/usr/sbin/ndbmtd", "-c", "mgm1"], True),
        ("ndbd", ["ndbd"], True),
        ("python3", ["/opt/mysql/bin/ndbmtd", "--ndb-nodeid=3"], True),
        ("ndbmtd", [], True),
        (None, ["C:\\mysql\\bin\\ndbmtd.exe"], True),
        ("ndbmtd.exe", [], True),
        ("ndb_mgmd", ["/usr/sbin/ndb_mgmd", "-f", "config.ini"], False),
        ("mysqld", ["/usr/sbin/mysqld", "--ndbcluster"], False),
        ("bash", ["bash", "-c", "ndbmtd -c mgm1"], False),
        ("ndbmtd_wrapper", ["/usr/local/bin/ndbmtd_wrapper"], False),
        ("python3", ["python3", "/usr/sbin/ndbmtd"], False),
        (None, [], False),
    ],
)
def test_is_data_node_process(name: str | None, cmdline: list[str], expected: bool) -> None:
    assert is_data_node_process(name, cmdline) is expected


@pytest.mark.parametrize(
    ("cmdline", "node_id"),
    [
        (["ndbmtd", "--ndb-nodeid=10"], 10),
        (["ndbmtd", "--ndb-nodeid", "11"], 11),
        (["ndbmtd", "--ndb_nodeid=12"], 12),
        (["ndbmtd", "--ndb-nodeid=3", "--ndb-nodeid=4"], 4),
        (["ndbmtd", "-c", "nodeid=5,mgm1:1186"], 5),
        (["ndbmtd", "-cnodeid=6;mgm1"], 6),
        (["ndbmtd", "--ndb-connectstring=mgm1:1186, nodeid = 7"], 7),
        (["ndbmtd", "--connect-string", "nodeid=8,mgm1"], 8),
        (["ndbmtd", "--ndb-mgmd-host=nodeid=9;mgm1"], 9),
        (["ndbmtd", "-c", "nodeid=5,mgm1", "--ndb-nodeid=15"], 15),
        # The angel's child: original arguments, then the allocated node id.
        (
            [
                "/usr/sbin/ndbmtd",
                "-c",
                "mgm1",
                "--report-fd=7",
                "--allocated-nodeid=20",
                "--initial=1",
                "--nostart=0",
                "--angel-pid=4000",
            ],
            20,
        ),
        (["ndbmtd", "--ndb-nodeid=3", "--allocated-nodeid=21"], 21),
        (["ndbmtd", "--allocated-nodeid=0", "--ndb-nodeid=22"], 22),
        (["ndbmtd", "-c", "mgm1:1186"], None),
        (["ndbmtd", "--ndb-nodeid=abc"], None),
        (["ndbmtd", "--ndb-nodeid"], None),
        (["ndbmtd", "--", "--ndb-nodeid=5"], None),
        (["ndbmtd", "--initial", "10"], None),
        (["ndbmtd"], None),
        ([], None),
    ],
)
def test_node_id_from_cmdline(cmdline: list[str], node_id: int | None) -> None:
    assert node_id_from_cmdline(cmdline) == node_id


@pytest.mark.parametrize(
    ("cmdline", "pid"),
    [
        (["ndbmtd", "--angel-pid=4000"], 4000),
        (["ndbmtd", "--angel-pid", "4001"], 4001),
        (["ndbmtd", "--angel-pid=x"], None),
        (["ndbmtd"], None),
    ],
)
def test_angel_pid_from_cmdline(cmdline: list[str], pid: int | None) -> None:
    assert angel_pid_from_cmdline(cmdline) == pid


def test_classify_flags_the_angel_by_parent_pid() -> None:
    args = ("/usr/sbin/ndbmtd", "--ndb-nodeid=10")
    found = [
        ProcessInfo(4001, "ndbmtd", (*args, "--allocated-nodeid=10"), 4000),
        ProcessInfo(4000, "ndbmtd", args, 1),
        ProcessInfo(5000, "ndbd", ("ndbd", "--foreground", "-c", "nodeid=11,mgm"), 1),
    ]
    assert classify(found) == (
        NdbProcess(4000, "ndbmtd", 10, 1, angel=True),
        NdbProcess(4001, "ndbmtd", 10, 4000, angel=False),
        NdbProcess(5000, "ndbd", 11, 1, angel=False),
    )


def test_classify_flags_the_angel_by_angel_pid_argument() -> None:
    """In a pid namespace the parent pid may not be visible; --angel-pid still is."""
    found = [
        ProcessInfo(12, "ndbmtd", ("ndbmtd", "--allocated-nodeid=3", "--angel-pid=7"), 0),
        ProcessInfo(7, "ndbmtd", ("ndbmtd",), None),
    ]
    angels = {p.pid: p.angel for p in classify(found)}
    assert angels == {7: True, 12: False}


def test_classify_without_parent_or_angel_keeps_every_process() -> None:
    found = [ProcessInfo(9, "ndbmtd", (), None)]
    assert classify(found) == (NdbProcess(9, "ndbmtd", None, None, False),)

"""Host samples from /proc text as the fixed remote loop prints it, written by hand from
proc(5) and iostats.rst: the same samples and node-id mapping as the local collector."""

from __future__ import annotations

import pytest

from ndbtop.host.procfs import parse_sample, parse_task_stat
from ndbtop.host.samples import SECTOR_SIZE

M = "@tok "


def _stat(tid: int, comm: str, ppid: int, utime: int, stime: int) -> str:
    # pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
    # utime stime cutime cstime priority nice num_threads itrealvalue starttime ...
    return (f"{tid} ({comm}) S {ppid} 100 100 0 -1 4194624 500 0 0 0 {utime} {stime} 0 0 20 0 "
            f"5 0 12345 1000000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0")


SAMPLE = [
    f"{M}sample", f"{M}uptime", "3464.99 6649.38",
    f"{M}disk",
    "   7       0 loop0 10 0 80 1 0 0 0 0 0 1 1 0 0 0 0 0 0",
    " 254       0 vda 55043 8647 2770026 9439 34639 61687 4043920 15273 0 9628 26053 10784 115 "
    "813680 997 5820 343",
    " 254       1 vda1 100 0 800 10 200 0 1600 20 0 30 30",
    f"{M}stat", "cpu  22331 10 3739 664938 577 0 165 38 0 0",
    f"{M}mem", "MemTotal:       24684084 kB", "MemFree:        23395924 kB",
    "MemAvailable:   24254556 kB",
    # The angel, then its child doing the work (node id from --allocated-nodeid).
    f"{M}proc 4000", "C /usr/sbin/ndbmtd\x1e-c\x1emgm1\x1e", _stat(4000, "ndbmtd", 1, 1, 1),
    "write_bytes: 0",
    f"{M}proc 4001",
    "C /usr/sbin/ndbmtd\x1e-c\x1emgm1\x1e--allocated-nodeid=7\x1e--angel-pid=4000\x1e",
    _stat(4001, "ndbmtd", 4000, 500, 100),
    _stat(4005, "ldm (0)\x1b]0;x\x07", 4000, 300, 50),
    "write_bytes: 1048576",
    "l-wx------ 1 mysql mysql 64 Nov 25 10:00 41 -> /data/ndb_7_fs/D8/DBLQH/S3.FragLog",
    "l-wx------ 1 mysql mysql 64 Nov 25 10:00 42 -> /data/ndb_7_fs/D9/DBLQH/S2.FragLog",
    "l-wx------ 1 mysql mysql 64 Nov 25 10:00 43 -> /data/ndb_7_fs/D10/DBLQH/S0.FragLog",
    # Gone between the listing and the reads: no stat line, left out.
    f"{M}proc 4100", "C ",
    f"{M}end",
]


def test_a_sample_from_proc_text() -> None:
    s = parse_sample(SAMPLE, M, 100)
    assert s.monotonic == 3464.99
    assert [d.name for d in s.disks] == ["vda", "vda1"]
    vda = s.disks[0]
    assert (vda.reads, vda.read_merged, vda.read_bytes, vda.read_time_ms) == (
        55043, 8647, 2770026 * SECTOR_SIZE, 9439)
    assert (vda.writes, vda.write_merged, vda.write_bytes, vda.write_time_ms) == (
        34639, 61687, 4043920 * SECTOR_SIZE, 15273)
    assert vda.busy_time_ms == 9628
    assert s.cpu is not None and s.cpu.user == pytest.approx(223.31) and s.cpu.nice == 0.1
    assert s.memory is not None and s.memory.available == 24254556 * 1024
    # The angel's threads are not read; the child's map to node 7. Names are kept as the
    # host gives them (what shows them escapes them).
    assert {(t.pid, t.tid, t.node_id, t.thread_name) for t in s.threads} == {
        (4001, 4001, 7, "ndbmtd"), (4001, 4005, 7, "ldm (0)\x1b]0;x\x07")}
    main = next(t for t in s.threads if t.tid == 4001)
    assert (main.user_s, main.system_s) == (5.0, 1.0)
    assert [(r.pid, r.node_id, r.write_bytes, r.open_files) for r in s.redo] == [
        (4001, 7, 1048576, ((0, 3), (1, 2), (2, 0)))]


def test_a_thread_name_with_parentheses_and_spaces() -> None:
    assert parse_task_stat(_stat(12, "a) (b", 1, 7, 8)) == (12, "a) (b", 1, 7, 8)
    assert parse_task_stat("garbage") is None
    assert parse_task_stat("12 (x) S") is None

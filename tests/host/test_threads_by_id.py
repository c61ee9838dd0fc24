"""OS threads are paired with NDB threads by thread id only: ndbmtd never names its
threads (``NdbThread_Create`` keeps the name to itself, no ``pthread_setname_np``), so on
a real host every thread's ``comm`` is ``ndbmtd`` (server-rules.md §6). The names come
from ``ndbinfo.threads``, the pairing from ``ndbinfo.threadstat.os_tid``."""

from __future__ import annotations

from ndbtop.host.procfs import parse_sample
from ndbtop.host.threadmap import NdbinfoThread, match_threads
from ndbtop.ndbinfo.rows_threads import thread_names, thread_os_ids
from ndbtop.sim.host import SimHost
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.scenarios import build_scenario


def ndbinfo_threads(names: dict[tuple[int, int], str],
                    tids: dict[tuple[int, int], int]) -> list[NdbinfoThread]:
    return [NdbinfoThread(n, t, name, tids.get((n, t))) for (n, t), name in names.items()]


def test_simulated_threads_are_all_ndbmtd_and_paired_by_os_tid() -> None:
    cluster = build_scenario("threads")
    ndbinfo = SimNdbinfo(cluster)
    names = thread_names(ndbinfo.rows("threads"))
    tids = thread_os_ids([(r[0], r[1], r[10]) for r in ndbinfo.rows("threadstat")])
    for node_id in cluster.data_nodes:
        local = SimHost(cluster, node_id).sample().threads
        assert local and {t.thread_name for t in local} == {"ndbmtd"}
        pairs = match_threads(ndbinfo_threads(names, tids), local)
        # Send threads have no threadstat row (ndbinfo.md §2, threadstat): the others pair.
        has_tid = {k for k in tids if k[0] == node_id}
        assert {(m.ndbinfo.node_id, m.ndbinfo.thr_no) for m in pairs} == has_tid
        assert all(m.local.tid == m.ndbinfo.os_tid for m in pairs)
        shown = {m.ndbinfo.thread_name for m in pairs}
        assert {"main", "rep", "ldm"} <= shown and "ndbmtd" not in shown


M = "@tok "


def _stat(tid: int, ppid: int, utime: int) -> str:
    # proc(5) stat: pid (comm) state ppid ... utime stime ...; comm is ndbmtd for all.
    return (f"{tid} (ndbmtd) S {ppid} 100 100 0 -1 4194624 500 0 0 0 {utime} 10 0 0 20 0 "
            f"5 0 12345 1000000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0")


# The remote loop's /proc text (as tests/host/test_host_procfs.py): node 7's process 4001
# (child of the angel 4000) and three of its threads.
HOST_TEXT = [
    f"{M}sample", f"{M}uptime", "3464.99 6649.38", f"{M}disk", f"{M}stat",
    "cpu  22331 10 3739 664938 577 0 165 38 0 0", f"{M}mem",
    f"{M}proc 4001",
    "C /usr/sbin/ndbmtd\x1e-c\x1emgm1\x1e--allocated-nodeid=7\x1e--angel-pid=4000\x1e",
    _stat(4001, 4000, 500), _stat(4005, 4000, 300), _stat(4006, 4000, 40),
    "write_bytes: 0",
    f"{M}end",
]
# SELECT node_id, thr_no, thread_name FROM ndbinfo.threads, and
# SELECT node_id, thr_no, os_tid FROM ndbinfo.threadstat, as the SQL node returns them.
# Node 8 runs on another host, where thread id 4005 is one of its own.
THREADS_ROWS = [(7, 0, "main"), (7, 1, "rep"), (7, 2, "ldm"), (7, 3, "send"),
                (8, 0, "main"), (8, 1, "rep"), (8, 2, "ldm")]
THREADSTAT_ROWS = [(7, 0, 4001), (7, 1, 4006), (7, 2, 4005),
                   (8, 0, 9001), (8, 1, 4005), (8, 2, 9003)]


def test_hand_written_proc_and_ndbinfo_rows_pair_by_id_within_the_node() -> None:
    local = parse_sample(HOST_TEXT, M, 100).threads
    assert {(t.tid, t.node_id, t.thread_name) for t in local} == {
        (4001, 7, "ndbmtd"), (4005, 7, "ndbmtd"), (4006, 7, "ndbmtd")}
    rows = ndbinfo_threads(thread_names(THREADS_ROWS), thread_os_ids(THREADSTAT_ROWS))
    pairs = {m.local.tid: (m.ndbinfo.node_id, m.ndbinfo.thr_no, m.ndbinfo.thread_name)
             for m in match_threads(rows, local)}
    assert pairs == {4001: (7, 0, "main"), 4005: (7, 2, "ldm"), 4006: (7, 1, "rep")}

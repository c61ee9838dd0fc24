"""S5, multi-threaded data nodes, watched through ndbinfo and the management protocol: the
MaxNoOfExecutionThreads=8 layout with its blocks, one hot LDM thread while the others idle,
and the statistics events that ``CLUSTERLOG STATISTICS=15`` turns on."""

from __future__ import annotations

from scenario_watch import ScenarioWatch, Watch, assert_reference_texts, cluster_log_levels

from ndbtop.mgm.events.decode import statistics

DATA_NODES = (2, 3)
LAYOUT = ["main", "rep", "ldm", "ldm", "ldm", "ldm", "recv"]
MAIN = {"DBTC", "DBDIH", "DBDICT", "NDBCNTR", "QMGR", "NDBFS", "TRIX", "DBUTIL", "DBSPJ"}
REP = {"BACKUP", "DBLQH", "DBACC", "DBTUP", "SUMA", "DBTUX", "TSMAN", "LGMAN", "PGMAN"}
REP |= {"RESTORE", "DBINFO"}
LDM = {"DBLQH", "DBACC", "DBTUP", "DBTUX", "BACKUP", "RESTORE", "PGMAN"}
STATISTICS_EVENTS = {35, 36, 39, 40, 41}
LOAD = "SELECT node_id, thr_no, OS_user + OS_system FROM ndbinfo.cpustat ORDER BY node_id, thr_no"


async def loads(w: ScenarioWatch) -> dict[tuple[int, int], int]:
    """Percent CPU of every thread, from cpustat."""
    return {(int(n), int(t)): int(load) for n, t, load in await w.query(LOAD)}


async def test_threads_carry_the_blocks_of_the_8_thread_layout(watch: Watch) -> None:
    w = await watch("threads")
    threads = await w.query(
        "SELECT node_id, thr_no, thread_name FROM ndbinfo.threads ORDER BY node_id, thr_no"
    )
    for node in DATA_NODES:
        assert [(t, name) for n, t, name in threads if n == node] == list(enumerate(LAYOUT))
    blocks: dict[tuple[int, int], set[tuple[str, int]]] = {}
    for n, t, name, instance in await w.query(
        "SELECT node_id, thr_no, block_name, block_instance FROM ndbinfo.threadblocks"
    ):
        blocks.setdefault((int(n), int(t)), set()).add((name, int(instance)))
    for node in DATA_NODES:
        assert {(b, 0) for b in MAIN} <= blocks[node, 0]
        assert {(b, 0) for b in REP} | {("PGMAN", 5)} <= blocks[node, 1]
        for worker in (1, 2, 3, 4):
            own = {(b, i) for b, i in blocks[node, 1 + worker] if b != "THRMAN"}
            assert own == {(b, worker) for b in LDM}
        assert ("CMVMI", 0) in blocks[node, 6]
        assert all(any(b == "THRMAN" for b, _ in blocks[node, t]) for t in range(7))


async def test_one_hot_thread_while_the_others_idle(watch: Watch) -> None:
    w = await watch("threads")
    for when in (30.0, 90.0, 150.0, 210.0):
        await w.run_to(when, step=10.0)
        cpu = await loads(w)
        assert len(cpu) == 2 * len(LAYOUT)
        hot = cpu.pop((2, 3))
        assert hot > 90, hot
        assert max(cpu.values()) < 25, cpu


async def test_clusterlog_statistics_15_turns_on_the_statistics_events(watch: Watch) -> None:
    w = await watch("threads")
    levels = cluster_log_levels(await w.client.get_cluster_loglevel())
    assert levels[252] == 7
    await w.listen(levels)
    await w.run_to(30.0, step=1.0)
    assert not {s.type for s in w.events} & STATISTICS_EVENTS

    # ALL CLUSTERLOG STATISTICS=15: one request per data node; then listen at the new levels.
    for node in DATA_NODES:
        await w.client.set_cluster_loglevel(node, 252, 15)
    levels = cluster_log_levels(await w.client.get_cluster_loglevel())
    assert levels[252] == 15
    await w.listen(levels)
    begin = w.now
    await w.run_to(begin + 60.0, step=1.0)

    for node in DATA_NODES:
        peer = 5 - node
        for event_type in STATISTICS_EVENTS:
            times = [s.time for s in w.seen(event_type, node) if s.time > begin]
            assert len(times) >= 11, (event_type, node, times)
            gaps = {round(b - a, 6) for a, b in zip(times, times[1:])}
            assert gaps == {5.0}, (event_type, node, gaps)
        for s in w.seen(35, node):
            values = statistics(s.event)
            assert values is not None
            # 4,000 tps over two nodes: about 10,000 transactions per 5 s report.
            assert 9000 <= values["trans_count"] <= 11000
            assert values["commit_count"] <= values["trans_count"]
        for s in w.seen(36, node):
            assert s.line == f"Operations={s.event.get('ops')}"
            assert 45000 <= s.event.get("ops", 0) <= 55000  # type: ignore[operator]
        for s in w.seen(40, node) + w.seen(41, node):
            values = statistics(s.event)
            assert values is not None
            assert values.get("to_node", values.get("from_node")) == peer
            size = values.get("mean_sent_bytes", values.get("mean_received_bytes"))
            assert size is not None and 64 <= size <= 65535
        (sent, *_) = w.seen(40, node)
        assert sent.line == (
            f"Mean send size to Node = {peer} last 4096 sends = "
            f"{sent.event.get('mean_sent_bytes')} bytes"
        )
        (received, *_) = w.seen(41, node)
        assert received.line == (
            f"Mean receive size to Node = {peer} last 4096 sends = "
            f"{received.event.get('mean_received_bytes')} bytes"
        )
        (job, *_) = w.seen(39, node)
        assert job.line == (
            f"Mean loop Counter in doJob last 8192 times = {job.event.get('mean_loop_count')}"
        )
        (trans, *_) = w.seen(35, node)
        v = statistics(trans.event)
        assert v is not None
        assert trans.line == (
            f"Trans. Count = {v['trans_count']}, Commit Count = {v['commit_count']}, "
            f"Read Count = {v['read_count']}, Simple Read Count = {v['simple_read_count']}, "
            f"Write Count = {v['write_count']}, AttrInfo Count = {v['attrinfo_count']}, "
            f"Concurrent Operations = {v['conc_op_count']}, Abort Count = {v['abort_count']} "
            f"Scans = {v['scan_count']} Range scans = {v['range_scan_count']}"
        )
    assert assert_reference_texts(w.events) >= STATISTICS_EVENTS

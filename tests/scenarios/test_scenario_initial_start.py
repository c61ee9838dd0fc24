"""S1, the ``--initial`` start that takes an hour, watched through the management protocol
and ndbinfo: the nodes sit in start phase 4 for 38 min 47 s while the redo log is created
with small synced writes, the host disk is saturated meanwhile, and only then does the SQL
node connect. With ``--fast-redo`` the whole start takes 5 min 12 s."""

from __future__ import annotations

import pytest
from scenario_watch import ScenarioWatch, Seen, Watch, assert_reference_texts

from ndbtop.mgm.events.decode import log_file_init, start_phase
from ndbtop.sim.host import SimHost

DATA_NODES = (10, 11)
PHASE_4 = 38 * 60 + 47
NO_CONNECTION = (1296, "Got error 157 'Connection to NDB failed' from NDBINFO")
LATER_PHASES = (5, 6, 7, 8, 9, 100, 101)


def progress(w: ScenarioWatch, node: int) -> list[tuple[float, int, int, int, int]]:
    """(arrival, files done, total files, MB done, total MB) of a node's LogFileInitStatus."""
    out = []
    for s in w.seen(71, node):
        info = log_file_init(s.event)
        assert info is not None and info.node_id == node
        out.append((s.time, info.files_done, info.total_files, info.mbytes_done, info.total_mbytes))
    return out


async def test_phase_4_creates_43008_mb_of_redo_log_for_38_minutes(watch: Watch) -> None:
    # Periodic progress reports need StartupStatusReportFrequency > 0 (here every minute).
    w = await watch("initial-start", report_frequency=60)
    before = await w.status()
    assert [before[n].status for n in DATA_NODES] == ["NO_CONTACT", "NO_CONTACT"]
    assert before[20].status == "UNKNOWN"
    assert await w.sql_error("SELECT node_id FROM ndbinfo.nodes") == NO_CONNECTION

    # The processes are launched at 2 s; phases 1 to 3 pass within the same second.
    await w.run_until(
        lambda: all(w.arrived(13, n, phase=3) for n in DATA_NODES), step=0.1, limit=30
    )
    early = [w.arrived(13, n, phase=p) for n in DATA_NODES for p in (1, 2, 3)]
    assert all(t is not None for t in early)
    assert max(early) - min(early) <= 1.0  # type: ignore[type-var, operator]
    status = await w.status()
    assert [(status[n].status, status[n].start_phase) for n in DATA_NODES] == [("STARTING", 3)] * 2

    # Well into phase 4: get status still says phase 3, the disk is saturated, no SQL yet.
    await w.run_to(600.0, step=10.0)
    status = await w.status()
    assert [(status[n].status, status[n].start_phase) for n in DATA_NODES] == [("STARTING", 3)] * 2
    assert await w.sql_error("SELECT node_id FROM ndbinfo.nodes") == NO_CONNECTION
    host = SimHost(w.sim.cluster, 10)
    host.sample()
    await w.step(10.0)
    host.sample()
    view = host.view()
    assert view is not None and view.cpu is not None
    disk = view.disk("sdb")
    assert disk is not None
    assert 48 <= disk.w_s <= 52  # type: ignore[operator]
    assert 1000 <= disk.wkb_s <= 1050  # type: ignore[operator]
    assert 19.5 <= disk.wareq_kb <= 21.5  # type: ignore[operator]
    assert 35 <= disk.await_ms <= 38  # type: ignore[operator]
    assert disk.util_pct >= 99  # type: ignore[operator]
    assert 18 <= view.cpu.iowait <= 19  # type: ignore[operator]

    # Progress reports every minute; step finely once the last ones are near the end.
    def nearly_done() -> bool:
        return all((p := progress(w, n)) and p[-1][3] >= 0.97 * p[-1][4] for n in DATA_NODES)

    await w.run_until(nearly_done, step=10.0, limit=3000, what="redo log near completion")
    await w.run_until(
        lambda: all(w.arrived(11, n) for n in DATA_NODES), step=0.25, limit=200, what="Started"
    )

    for node in DATA_NODES:
        reports = progress(w, node)
        assert len(reports) >= 35
        assert {(r[2], r[4]) for r in reports} == {(168, 43008)}
        assert reports[0][1] == reports[0][3] == 0
        done_mb = [r[3] for r in reports]
        assert done_mb == sorted(done_mb) and len(set(done_mb)) == len(done_mb)
        assert [r[1] for r in reports] == sorted(r[1] for r in reports)
        (final,) = w.seen(72, node)
        assert final.line == (
            "Local redo log file initialization completed: #Total files: 168, Completed: 168 "
            "#Total MBytes: 43008, Completed: 43008"
        )

        p3, p4 = w.arrived(13, node, phase=3), w.arrived(13, node, phase=4)
        assert p3 is not None and p4 is not None
        assert abs((p4 - p3) - PHASE_4) <= 0.02 * PHASE_4, p4 - p3
        later = [w.arrived(13, node, phase=p) for p in LATER_PHASES]
        assert all(t is not None and t >= p4 for t in later)
        assert later == sorted(later)  # type: ignore[type-var]
        assert later[-1] - p4 <= 10.0  # type: ignore[operator]
        started = w.arrived(11, node)
        assert started is not None and started >= later[-1]  # type: ignore[operator]

    status = await w.status()
    assert [status[n].status for n in DATA_NODES] == ["STARTED", "STARTED"]
    assert status[20].status == "CONNECTED"
    assert await w.query("SELECT node_id, status FROM ndbinfo.nodes ORDER BY node_id") == [
        (10, "STARTED"),
        (11, "STARTED"),
    ]
    assert w.arrived(51, node=20) is not None

    assert_reference_texts(w.events)
    texts = {(s.source, s.line) for s in w.events}
    assert (1, "Node 10 Connected") in texts and (1, "Node 11 Connected") in texts
    assert (10, "Start initiated (mysql-8.4.3 ndb-8.4.3)") in texts
    assert (10, "Start phase 4 completed (initial start)") in texts
    assert (11, "Started (mysql-8.4.3 ndb-8.4.3)") in texts
    assert (11, "CM_REGCONF president = 10, own Node = 11, our dynamic id = 0/2") in texts
    first: Seen = w.seen(71, 10)[0]
    assert first.line == (
        "Local redo log file initialization status: #Total files: 168, Completed: 0 "
        "#Total MBytes: 43008, Completed: 0"
    )
    phases = [start_phase(s.event) for s in w.seen(13, 10)]
    assert [p.phase for p in phases if p] == [0, 1, 2, 3, 4, *LATER_PHASES]
    assert {p.start_type_name for p in phases if p} == {"initial start"}


async def test_fast_redo_starts_the_cluster_in_5_minutes_12(watch: Watch) -> None:
    w = await watch("initial-start", fast_redo=True)
    await w.run_until(lambda: w.arrived(0, 1, node=10) is not None, step=0.5, limit=10)
    launched = w.arrived(0, 1, node=10)
    assert launched is not None

    await w.run_to(120.0, step=1.0)
    host = SimHost(w.sim.cluster, 10)
    host.sample()
    await w.step(10.0)
    host.sample()
    view = host.view()
    assert view is not None
    disk = view.disk("sdb")
    assert disk is not None
    # No sync per page: the 32 KiB pages alone (one per MB of log, redo-init.md §4, with no
    # journal write after each), short waits, the disk no longer pinned at 100 %.
    assert disk.wareq_kb == pytest.approx(32.0, abs=1.0)
    assert disk.await_ms < 10 and disk.util_pct < 90  # type: ignore[operator]

    await w.run_until(
        lambda: all(w.arrived(11, n) for n in DATA_NODES), step=0.5, limit=600, what="Started"
    )
    whole = max(w.arrived(11, n) for n in DATA_NODES) - launched  # type: ignore[type-var, operator]
    assert abs(whole - 312) <= 0.02 * 312, whole
    status = await w.status()
    assert [status[n].status for n in DATA_NODES] == ["STARTED", "STARTED"]
    assert_reference_texts(w.events)


async def test_with_the_default_report_frequency_only_the_first_and_last_reports_come(
        watch: Watch) -> None:
    w = await watch("initial-start", fast_redo=True)
    await w.run_until(lambda: all(w.arrived(11, n) for n in DATA_NODES), step=2.0, limit=400,
                      what="Started")
    for node in DATA_NODES:
        reports = progress(w, node)
        assert [(r[1], r[3]) for r in reports] == [(0, 0)]
        assert len(w.seen(72, node)) == 1

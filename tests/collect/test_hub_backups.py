"""The hub follows backups: events from its listener, and REPORT BACKUPSTATUS on the
management source's session, once at connect and every ``backup_status_every`` seconds
while a backup runs (in the simulated cluster's time); without ndbinfo, REPORT
MEMORYUSAGE once per backup for its estimate."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ndbtop.collect.backup_memory import BackupMemory
from ndbtop.collect.backups import BackupReporter
from ndbtop.collect.events import levels_from_names
from ndbtop.collect.hub import Hub
from ndbtop.collect.memory_report import EVERY_S as MEMORY_EVERY_S
from ndbtop.eta.backup import eta_in_snapshot
from ndbtop.export.families import snapshot_families
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.events.catalogue import Category, EventType
from ndbtop.model.backups import (
    ABORTED,
    COMPLETED,
    RUNNING,
    Backup,
    find_backup,
    running_backup,
)
from ndbtop.model.eta import Eta
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]


async def poll_a_second_later(hub: Hub, sim: Simulator, manual_time: Any) -> None:
    """One simulated second passes, then the management source polls (and reports)."""
    manual_time.advance(1.0)
    sim.sync()
    await hub.mgm.attempt()


def test_backup_events_are_listened_to_even_when_the_cluster_log_lowered_backup() -> None:
    assert levels_from_names({"backup": 0})[int(Category.BACKUP)] == 7
    assert levels_from_names({"backup": 15})[int(Category.BACKUP)] == 15
    assert levels_from_names(None)[int(Category.BACKUP)] == 15


async def test_reports_every_ten_seconds_while_a_backup_runs(
    start_sim: StartSim, manual_time: Any, until: Any
) -> None:
    sim = await start_sim("backup", time=manual_time)
    hub = Hub(parse_connectstring(sim.connectstring), sim.clock, 1.0, events=True,
              backup_status_every=10.0)
    assert hub.events is not None
    await hub.mgm.attempt()  # the first poll asks once: no backup yet
    assert hub.snapshot().backups == ()
    await hub.start()
    try:
        await until(lambda: hub.events is not None and hub.events.listening_levels is not None,
                    what="the event listener")
        reports: list[float] = []
        for _ in range(120):  # two simulated minutes, one poll a second
            await poll_a_second_later(hub, sim, manual_time)
            run = running_backup(hub.snapshot().backups)
            if run is not None and run.nodes and (not reports or run.nodes[0].at != reports[-1]):
                reports.append(run.nodes[0].at)
        run = running_backup(hub.snapshot().backups)
        assert run is not None and run.backup_id == 1
        assert run.started_at is not None  # BackupStarted came through the listener
        assert [n.node_id for n in run.nodes] == [2, 3, 4, 5]
        gaps = {round(b - a) for a, b in zip(reports, reports[1:])}
        assert gaps == {10}
        assert all(n.bytes_per_s is not None and n.bytes_per_s > 50e6 for n in run.nodes)

        for _ in range(600):  # until backup 1 completed and backup 2 aborted
            await poll_a_second_later(hub, sim, manual_time)
            b2 = find_backup(hub.snapshot().backups, 2)
            if b2 is not None and b2.state == ABORTED:
                break
        await until(
            lambda: (b := find_backup(hub.snapshot().backups, 2)) is not None
            and b.state == ABORTED,
            what="backup 2 aborted",
        )
        backups = hub.snapshot().backups
        b1, b2 = find_backup(backups, 1), find_backup(backups, 2)
        assert b1 is not None and b1.state == COMPLETED and b1.bytes and b1.bytes > 70 * 2**30
        assert b2 is not None and b2.error == 1326 and running_backup(backups) is None
        # One BackupAborted: one failure, however many backups are kept.
        snap = hub.snapshot()
        assert snap.backup_failures == 1
        exported = {(m.name, tuple(s.labels.items())): s.value
                    for m in snapshot_families(snap, snap.taken_at) for s in m.samples}
        assert exported[("ndb_backup_failures", ())] == 1
        assert exported[("ndb_backup_in_progress", ())] == 0
        assert exported[("ndb_backup_last_written_bytes", ())] == b1.written_bytes
        assert exported[("ndb_backup_last_duration_seconds", ())] == b1.duration(0.0)
        assert exported[("ndb_backup_last_failure_timestamp_seconds", ())] == b2.ended_at
    finally:
        await hub.stop()


def test_after_a_start_from_here_every_poll_asks_until_the_backup_shows() -> None:
    now = [100.0]
    running = [False]
    reporter = BackupReporter(10.0, lambda: running[0], lambda events: None, lambda: now[0])
    reporter._last = 100.0  # asked at connect
    assert not reporter.due(101.0)
    reporter.ask_now(expect_for=30.0)
    reporter._last = 100.0  # the first poll after the start asked: nothing ran yet
    assert reporter.due(101.0) and reporter.due(102.0)
    running[0] = True
    assert not reporter.due(103.0)  # it shows: back to every 10 s
    assert reporter.due(110.0)
    running[0] = False
    assert not reporter.due(131.0)  # nothing showed within 30 s: stop asking


async def test_without_a_sql_node_the_estimate_takes_the_memory_report_asked_once_a_minute(
    start_sim: StartSim, manual_time: Any, until: Any
) -> None:
    sim = await start_sim("backup", time=manual_time)
    # No ndbinfo reader: as in an initial start, or with --no-sql.
    hub = Hub(parse_connectstring(sim.connectstring), sim.clock, 1.0, events=True,
              backup_status_every=10.0)
    asked: list[int] = []
    memory_at: list[float] = []
    dump = hub.mgm.client.dump_events

    async def counted(event_type: int, node_ids: Any = None) -> Any:
        asked.append(event_type)
        if event_type == EventType.MEMORY_USAGE:
            memory_at.append(sim.clock.now())
        return await dump(event_type, node_ids)

    hub.mgm.client.dump_events = counted  # type: ignore[method-assign]
    await hub.start()
    try:
        await until(lambda: hub.events is not None and hub.events.listening_levels is not None,
                    what="the event listener")
        eta = None
        for _ in range(300):
            await poll_a_second_later(hub, sim, manual_time)
            snap = hub.snapshot()
            run = running_backup(snap.backups)
            if run is not None and isinstance(eta := eta_in_snapshot(snap, run), Eta):
                break
        assert isinstance(eta, Eta), eta
        assert snap.ndbinfo is None
        in_use = dict(snap.backup_data_in_use)
        # 45 GB of the 64 GB configured in use on each node (the scenario's figures).
        assert set(in_use) == {2, 3, 4, 5}
        assert all(40 * 2**30 < v < 50 * 2**30 for v in in_use.values())
        exported = {m.name: s.value for m in snapshot_families(snap, snap.taken_at)
                    for s in m.samples}
        assert exported["ndb_backup_eta_seconds"] == eta.seconds
        for _ in range(30):  # three more status reports: the size is not asked again
            await poll_a_second_later(hub, sim, manual_time)
        # The estimate asks nothing of its own: the hub's memory report (REPORT MEMORYUSAGE,
        # which never reaches the cluster log), once a minute of the cluster's time.
        assert memory_at and all(b - a >= MEMORY_EVERY_S for a, b in zip(memory_at,
                                                                          memory_at[1:]))
        assert asked.count(EventType.BACKUP_STATUS) >= 4
    finally:
        await hub.stop()


async def test_nothing_is_asked_while_ndbinfo_gives_data_memory_in_use() -> None:
    backup = Backup(7, RUNNING)
    memory = BackupMemory(lambda: backup, lambda: True, lambda: None, lambda: 0.0)
    # A client that has no dump_events: asking would raise.
    await memory.ask(object())  # type: ignore[arg-type]
    assert memory.asked_for is None and memory.for_backup(backup) == ()

"""The backup's estimate: the data still to write (DataMemory in use over the replicas) at
each node's measured rate; missing without a report, a rate or the size; a rate that
halves widens the range; a node that is done tells how full the pages were.

The DataMemory figures are read as the server sends them: ``dump events`` type 50, one
MemoryUsage block per node (mgm-protocol.md §7.2 and the sample of its appendix,
``...pages_used=64\\npages_total=1280\\nblock=249``)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.eta.backup import (
    FILL_LOW,
    LOG_UNKNOWN,
    RATE_BOTH,
    RATE_ONCE,
    SIZE_AT_MOST,
    backup_eta,
    data_in_use_from_events,
    eta_in_snapshot,
)
from ndbtop.export.backup_metrics import backup_group
from ndbtop.export.familyset import Families
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.events.catalogue import EventType
from ndbtop.mgm.events.decode import decode_event
from ndbtop.model.backups import RUNNING, Backup, NodeProgress
from ndbtop.model.clock import RealClock
from ndbtop.model.config import ClusterConfig
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ops.wait_backup import BackupScale, read_scale

GIB = float(1 << 30)
NOW = 1_800_000_000.0
Scripted = Callable[..., Awaitable[Any]]
MakeClient = Callable[..., MgmClient]


def node(node_id: int, written: float, *, rate: float | None, at: float = NOW) -> NodeProgress:
    return NodeProgress(node_id, 0, int(written), 0, 0, at, data_bytes_per_s=rate)


def running(*nodes: NodeProgress, started_at: float | None = NOW - 100) -> Backup:
    return Backup(7, RUNNING, started_at=started_at, nodes=nodes)


# Two nodes of 40 GiB in use, two replicas: at most 20 GiB each to write.
IN_USE = {2: 40 * GIB, 3: 40 * GIB}


def test_without_a_report_a_rate_or_the_size_there_is_no_estimate() -> None:
    assert backup_eta(running(), IN_USE, 2, NOW) == EtaMissing(
        "no progress report yet (REPORT BACKUPSTATUS)")
    first = running(node(2, GIB, rate=None), started_at=None)
    missing = backup_eta(first, IN_USE, 2, NOW)
    assert isinstance(missing, EtaMissing) and "node 2's rate not measured yet" in missing.reason
    steady = running(node(2, 10 * GIB, rate=0.1 * GIB))
    assert isinstance(backup_eta(steady, None, 2, NOW), EtaMissing)
    assert isinstance(backup_eta(steady, IN_USE, None, NOW), EtaMissing)
    assert backup_eta(steady, {3: GIB}, 2, NOW) == EtaMissing(
        "DataMemory in use of node 2 not known")
    done = dataclasses.replace(steady, state="completed")
    assert backup_eta(done, IN_USE, 2, NOW) == EtaMissing("backup completed")


def test_a_steady_rate_gives_the_data_left_at_that_rate_and_says_the_log_is_unknown() -> None:
    # 10 GiB written in 100 s, and 0.1 GiB/s lately: 10 GiB more at most, 100 s.
    b = running(node(2, 10 * GIB, rate=0.1 * GIB), node(3, 10 * GIB, rate=0.1 * GIB))
    eta = backup_eta(b, IN_USE, 2, NOW)
    assert isinstance(eta, Eta)
    assert eta.seconds == pytest.approx(100.0)
    # Low: pages half full (10 GiB of data, all written); high: 10% slower.
    assert eta.low == pytest.approx(max(20 * GIB * FILL_LOW - 10 * GIB, 0) / (0.11 * GIB))
    assert eta.high == pytest.approx(10 * GIB / (0.09 * GIB))
    assert LOG_UNKNOWN in eta.basis and eta.basis[0] == SIZE_AT_MOST
    # Seconds since the report are already gone.
    later = backup_eta(b, IN_USE, 2, NOW + 30)
    assert isinstance(later, Eta) and later.seconds == pytest.approx(70.0)


def test_a_node_past_its_share_that_goes_on_has_no_estimate_rather_than_zero() -> None:
    b = running(node(2, 21 * GIB, rate=0.1 * GIB))
    found = backup_eta(b, IN_USE, 2, NOW)
    assert isinstance(found, EtaMissing) and "node 2 wrote more than" in found.reason


def test_a_rate_that_halves_widens_the_range_and_moves_the_estimate() -> None:
    steady = backup_eta(running(node(2, 10 * GIB, rate=0.1 * GIB)), IN_USE, 2, NOW)
    halved = backup_eta(running(node(2, 10 * GIB, rate=0.05 * GIB)), IN_USE, 2, NOW)
    assert isinstance(steady, Eta) and isinstance(halved, Eta)
    assert halved.seconds == pytest.approx(200.0)
    assert halved.high - halved.low > steady.high - steady.low
    # The range still holds the rate since the start (0.1 GiB/s) at its low end.
    assert halved.low <= steady.seconds


def test_a_rate_measured_once_has_the_wider_margin() -> None:
    # The start was not seen: only one interval's rate.
    once = backup_eta(running(node(2, 10 * GIB, rate=0.1 * GIB), started_at=None),
                      IN_USE, 2, NOW)
    twice = backup_eta(running(node(2, 10 * GIB, rate=0.1 * GIB)), IN_USE, 2, NOW)
    assert isinstance(once, Eta) and isinstance(twice, Eta)
    assert once.high - once.seconds > twice.high - twice.seconds
    assert RATE_ONCE in once.basis and RATE_BOTH in twice.basis


def test_the_slowest_node_ends_it_and_a_node_done_tells_the_fill() -> None:
    # Node 2 wrote 16 GiB and stopped (no data since its last report): pages 80% full.
    # Node 3 has 8 GiB written at 0.1 GiB/s: 0.8 x 20 - 8 = 8 GiB to go, 80 s.
    b = running(node(2, 16 * GIB, rate=0.0), node(3, 8 * GIB, rate=0.1 * GIB))
    eta = backup_eta(b, IN_USE, 2, NOW)
    assert isinstance(eta, Eta)
    assert eta.seconds == pytest.approx(8 * GIB / (0.1 * GIB) - 0, rel=1e-6)
    assert eta.basis[0] == "DataMemory in use at the fill node 2 showed"
    assert eta.low < eta.seconds < eta.high


MEMORY_BLOCKS = (
    # The appendix's sample (block 249, DBTUP: DataMemory), then node 2's index (248, DBACC).
    b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=32768\n"
    b"pages_used=64\npages_total=1280\nblock=249\n\n",
    b"log event reply\ntype=50\ntime=0\nsource_nodeid=2\ngth=0\npage_size_bytes=8192\n"
    b"pages_used=10\npages_total=100\nblock=248\n\n",
)


async def test_report_memoryusage_as_the_server_sends_it_gives_the_data_memory_in_use(
    scripted: Scripted, make_client: MakeClient
) -> None:
    async def memory(writer: asyncio.StreamWriter) -> None:
        writer.write(b"dump events reply\nresult: Ok\nevents: 2\n\n" + b"".join(MEMORY_BLOCKS))
        await writer.drain()

    server = await scripted({"dump events": memory})
    client = make_client(server.connectstring)
    raw = await client.dump_events(EventType.MEMORY_USAGE)
    assert data_in_use_from_events([decode_event(r, NOW) for r in raw]) == {2: 64 * 32768.0}
    command, args = server.requests[-1]
    assert command == "dump events" and args == ("type: 50",)


async def test_the_wait_reads_the_simulators_size_and_replicas(
    start_sim: Callable[..., Awaitable[Any]], make_client: MakeClient
) -> None:
    sim = await start_sim("backup")
    scale = BackupScale()
    await read_scale(make_client(sim.connectstring), RealClock(), scale)
    assert scale.why is None and scale.replicas == 2
    assert set(scale.in_use) == {2, 3, 4, 5}
    # 45 GB of the 64 GB configured in use on each node (the scenario's figures).
    assert all(40 * GIB < v < 50 * GIB for v in scale.in_use.values())


async def test_a_size_that_cannot_be_read_is_said_so(
    scripted: Scripted, make_client: MakeClient
) -> None:
    async def refused(writer: asyncio.StreamWriter) -> None:
        writer.write(b"dump events reply\nresult: ndb_logevent_type 50 not supported\n\n")
        await writer.drain()

    server = await scripted({"dump events": refused})
    scale = BackupScale()
    await read_scale(make_client(server.connectstring), RealClock(), scale)
    assert scale.why is not None and scale.why.startswith("DataMemory in use not read: ")
    b = running(node(2, 10 * GIB, rate=0.1 * GIB))
    assert scale.eta(b, NOW) == EtaMissing(scale.why)


def snapshot(memory: tuple[MemoryUse, ...], b: Backup) -> ClusterSnapshot:
    sample = NdbinfoSample(NOW, None, memory=memory)
    config = ClusterConfig(1, "c", 2, (), ())
    return ClusterSnapshot(0.0, NOW, 1.0, (), ndbinfo=sample, config=config, backups=(b,))


def test_the_snapshot_and_the_export_give_the_running_backups_estimate() -> None:
    b = running(node(2, 10 * GIB, rate=0.1 * GIB))
    memory = (MemoryUse(2, "Data memory", int(40 * GIB), 0, int(64 * GIB), 0),
              MemoryUse(2, "Long message buffer", 4096, 1, 0, 0))
    snap = snapshot(memory, b)
    eta = eta_in_snapshot(snap, b)
    assert isinstance(eta, Eta) and eta.seconds == pytest.approx(100.0)
    found = flat(backup_group(snap).families())
    assert found["ndb_backup_eta_seconds"] == pytest.approx(100.0)
    assert found["ndb_backup_eta_low_seconds"] == pytest.approx(eta.low)
    assert found["ndb_backup_eta_high_seconds"] == pytest.approx(eta.high)
    # Without ndbinfo's memory there is no figure to export, and the JSON says why.
    bare = snapshot((), b)
    assert isinstance(eta_in_snapshot(bare, b), EtaMissing)
    assert "ndb_backup_eta_seconds" not in flat(backup_group(bare).families())


def flat(families: Families) -> dict[str, float]:
    return {s.name: s.value for metric in families for s in metric.samples}

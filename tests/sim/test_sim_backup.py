"""Simulated backups through the simulated ndb_mgmd: the replies to ``start backup`` and
``abort backup`` byte for byte (Services.cpp), the events, and the backup scenario."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ndbtop.errors import MgmCommandError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.events.decode import decode_event
from ndbtop.model.backups import apply_status_report, running_backup
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import build_scenario

StartSim = Callable[..., Awaitable[Simulator]]
MakeClient = Callable[..., MgmClient]
Raw = Callable[[int], Awaitable[Any]]


def backup_events(sim_cluster: Any) -> list[tuple[int, int, tuple[int, ...]]]:
    return [(e.type, e.source, e.words) for e in sim_cluster.bus.history if 54 <= e.type <= 57]


async def run_until_done(sim: Simulator, time: Any, task: asyncio.Future[Any],
                         step: float = 5.0) -> Any:
    for _ in range(2000):
        await asyncio.sleep(0.002)
        if task.done():
            break
        time.advance(step)
        sim.sync()
    return await asyncio.wait_for(task, 3.0)


async def test_replies_in_the_servers_layout(
    start_sim: StartSim, raw: Raw, manual_time: Any
) -> None:
    sim = await start_sim("threads", time=manual_time)
    conn = await raw(sim.mgm_ports[1])
    # NOWAIT: the answer comes once the request is sent, without an id line.
    await conn.exchange(
        b"start backup\ncompleted: 0\nbackuppoint: 0\n\n", b"start backup reply\nresult: Ok\n\n"
    )
    manual_time.advance(3.0)
    sim.sync()
    await conn.exchange(
        b"start backup\ncompleted: 0\nbackupid: 9\nbackuppoint: 1\n\n",
        b"start backup reply\nresult: A backup is already running: Permanent error: "
        b"Application error\n\n",
    )
    # The server orders the abort for any id and answers Ok at once.
    await conn.exchange(b"abort backup\nid: 77\n\n", b"abort backup reply\nresult: Ok\n\n")
    await conn.exchange(b"abort backup\nid: 1\n\n", b"abort backup reply\nresult: Ok\n\n")
    await conn.exchange(b"abort backup\n\n", b"result: Missing arg., '\n'\n\n")
    manual_time.advance(5.0)
    sim.sync()
    assert backup_events(sim.cluster) == [(54, 2, (1, 1)), (57, 2, (1, 1, 1321))]
    await conn.in_sync()


async def test_wait_completed_answers_with_the_id_after_backup_completed(
    start_sim: StartSim, make_client: MakeClient, manual_time: Any
) -> None:
    sim = await start_sim("threads", time=manual_time)
    client = make_client(sim.connectstring)
    task = asyncio.ensure_future(client.start_backup(wait=2, backup_id=40))
    assert await run_until_done(sim, manual_time, task) == 40
    events = backup_events(sim.cluster)
    assert [t for t, _, _ in events] == [54, 56]
    completed = events[1][2]
    data = sum(sim.cluster.backups.ended[40].data_bytes.values())
    assert completed[0:2] == (1, 40) and completed[4] + (completed[10] << 32) == data
    # The next backup without an id takes the one after.
    task = asyncio.ensure_future(client.start_backup(wait=1))
    assert await run_until_done(sim, manual_time, task, step=0.5) == 41


async def test_status_report_shows_each_node_writing(
    start_sim: StartSim, make_client: MakeClient, manual_time: Any
) -> None:
    sim = await start_sim("threads", time=manual_time)
    client = make_client(sim.connectstring)
    task = asyncio.ensure_future(client.start_backup(wait=1))
    backup_id = await run_until_done(sim, manual_time, task, step=0.5)
    manual_time.advance(2.0)
    sim.sync()
    first = await client.dump_events(62)
    manual_time.advance(10.0)
    sim.sync()
    second = await client.dump_events(62)
    backups = apply_status_report((), tuple(decode_event(r, 100.0) for r in first), 100.0)
    backups = apply_status_report(backups, tuple(decode_event(r, 110.0) for r in second), 110.0)
    run = running_backup(backups)
    assert run is not None and run.backup_id == backup_id
    assert [n.node_id for n in run.nodes] == [2, 3]
    current = sim.cluster.backups.current
    assert current is not None
    log_rate = sim.cluster.backups._log_rate(current)
    for n in run.nodes:
        assert n.bytes > 0 and n.records > 0
        assert n.bytes_per_s == pytest.approx(current.rates[n.node_id] + log_rate, rel=0.01)


async def test_node_failure_aborts_the_backup_and_the_waiting_start(
    start_sim: StartSim, make_client: MakeClient, manual_time: Any
) -> None:
    sim = await start_sim("threads", time=manual_time)
    client = make_client(sim.connectstring)
    other = make_client(sim.connectstring, timeout=30.0)
    task = asyncio.ensure_future(client.start_backup(wait=2))
    for _ in range(10):
        await asyncio.sleep(0.01)
        manual_time.advance(1.0)
        sim.sync()
    stop = asyncio.ensure_future(other.restart_nodes([3], abort=True))
    with pytest.raises(MgmCommandError) as info:
        await run_until_done(sim, manual_time, task, step=0.5)
    assert info.value.result == (
        "Backup aborted due to node failure: Permanent error: Internal error"
    )
    await run_until_done(sim, manual_time, stop, step=0.5)
    assert backup_events(sim.cluster)[-1] == (57, 2, (1, 1, 1326))


def test_backup_scenario_plays_one_completed_and_one_aborted_backup() -> None:
    cluster = build_scenario("backup")
    cluster.advance(700.0)
    events = [(e.type, e.words[1]) for e in cluster.bus.history if 54 <= e.type <= 57]
    assert events == [(54, 1), (56, 1), (54, 2), (57, 2)]
    completed = next(e for e in cluster.bus.history if e.type == 56)
    data = completed.words[4] + (completed.words[10] << 32)
    assert 70 * 2**30 < data < 75 * 2**30  # four nodes, 18 GB of primary data each
    took = completed.time - next(e for e in cluster.bus.history if e.type == 54).time
    assert 270 < took < 320
    aborted = next(e for e in cluster.bus.history if e.type == 57)
    assert aborted.words[2] == 1326

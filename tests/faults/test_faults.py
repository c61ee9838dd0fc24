"""Faults: sources that die, hang or come back; ndbtop keeps going and says so."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from ndbtop.collect.hub import Hub
from ndbtop.demo.hub import demo_hub
from ndbtop.errors import NdbtopError
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.model.sources import SourceState
from ndbtop.record.reader import read_recording
from ndbtop.sim.clock import SimClock
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import build_scenario

StartSim = Callable[..., Awaitable[Simulator]]
INTERVAL = 0.2


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> float:
    """Seconds until ``predicate`` held; fails the test after ``timeout``."""
    began = time.monotonic()
    while not predicate():
        assert time.monotonic() - began < timeout, "condition not reached in time"
        await asyncio.sleep(0.02)
    return time.monotonic() - began


async def test_killed_management_server_is_shown_and_reconnected(start_sim: StartSim) -> None:
    sim = await start_sim("threads", speed=10)
    hub = Hub(parse_connectstring(sim.connectstring), RealClock(), INTERVAL, events=False)
    await hub.start()
    try:
        await until(lambda: hub.snapshot().source("mgm").state is SourceState.CONNECTED)
        before = hub.snapshot().nodes
        await sim.stop_mgmd(1)
        lost_after = await until(
            lambda: hub.snapshot().source("mgm").state is SourceState.RETRYING)
        assert lost_after < INTERVAL * 3
        snap = hub.snapshot()
        assert snap.nodes == before
        assert snap.source("mgm").error and "connect" in snap.source("mgm").error
        await sim.start_mgmd(1)
        back_after = await until(
            lambda: hub.snapshot().source("mgm").state is SourceState.CONNECTED, timeout=5)
        assert back_after < 2.0
    finally:
        await hub.stop()


async def test_killing_the_connected_mgmd_moves_to_the_other(
    start_sim: StartSim, two_mgmds: SimCluster
) -> None:
    sim = await start_sim(two_mgmds, speed=10)
    first, second = (f"127.0.0.1:{p}" for p in sim.mgm_ports.values())
    hub = Hub(parse_connectstring(sim.connectstring), RealClock(), INTERVAL, events=False)
    await hub.start()
    try:
        await until(lambda: hub.snapshot().mgm_address == first)
        await sim.stop_mgmd(1)
        await until(lambda: hub.snapshot().mgm_address == second, timeout=3)
        mgmds = {n.node_id: n.status for n in hub.snapshot().nodes if n.type == "MGM"}
        await until(lambda: {n.node_id: n.status for n in hub.snapshot().nodes
                             if n.type == "MGM"}.get(1) == "NO_CONTACT", timeout=3)
        assert mgmds[4] == "CONNECTED"
    finally:
        await hub.stop()


async def test_killed_sql_node_leaves_ndbinfo_stale_and_mgm_fresh() -> None:
    sim = Simulator(build_scenario("threads"), SimClock(speed=10))
    await sim.start()
    hub = demo_hub(sim, INTERVAL, events=False)
    await hub.start()
    try:
        await until(lambda: hub.snapshot().ndbinfo is not None, timeout=10)
        await sim.sql_server.close()
        await until(lambda: hub.snapshot().source("ndbinfo").state is SourceState.RETRYING,
                    timeout=5)
        # A sample in flight when the SQL node went away may still have landed: the last
        # sample is the one kept from then on.
        stale = hub.snapshot()
        assert stale.ndbinfo is not None and stale.ndbinfo.threads
        assert stale.source("ndbinfo").error
        mgm_ok = stale.source("mgm").last_ok
        await until(lambda: (hub.snapshot().source("mgm").last_ok or 0) > (mgm_ok or 0))
        assert hub.snapshot().source("mgm").state is SourceState.CONNECTED
        assert hub.snapshot().ndbinfo.threads == stale.ndbinfo.threads
    finally:
        await hub.stop()
        await sim.close()


async def test_hung_management_server_times_out_and_recovers(start_sim: StartSim) -> None:
    sim = await start_sim("threads", speed=10)
    hub = Hub(parse_connectstring(sim.connectstring), RealClock(), INTERVAL, events=False)
    await hub.start()
    try:
        await until(lambda: hub.snapshot().source("mgm").state is SourceState.CONNECTED)
        sim.mgmds[1].stall = True
        await until(lambda: hub.snapshot().source("mgm").state is SourceState.RETRYING,
                    timeout=6)
        assert "no reply" in (hub.snapshot().source("mgm").error or "")
        sim.mgmds[1].stall = False
        await until(lambda: hub.snapshot().source("mgm").state is SourceState.CONNECTED,
                    timeout=15)
    finally:
        await hub.stop()


def _readable(path: Path) -> int:
    """How many snapshots a reader finds in the recording now."""
    try:
        return len(read_recording(path))
    except NdbtopError:
        return 0


def test_recording_survives_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "killed.ndbrec"
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ndbtop", "record", str(path), "--demo", "--scenario", "threads",
         "--no-sql", "--interval", "0.2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            # The recording is read as a crash leaves it, while it is being written.
            if path.exists() and path.stat().st_size > 4000 and _readable(path) >= 6:
                break
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    recording = read_recording(path)
    assert len(recording) >= 5
    last = recording.snapshot(len(recording) - 1)
    assert {n.node_id for n in last.data_nodes()} == {2, 3}


async def test_listeners_hear_a_source_change_state_not_every_poll(start_sim: StartSim) -> None:
    sim = await start_sim("threads", speed=10)
    hub = Hub(parse_connectstring(sim.connectstring), RealClock(), INTERVAL, events=False)
    heard: list[tuple[SourceState, ...]] = []
    hub.add_listener(lambda: heard.append(tuple(s.state for s in hub.snapshot().sources)))
    await hub.start()
    try:
        # mgm connects, then the configuration read at connect arrives: two changes.
        await until(lambda: len(heard) == 2)
        polled = hub.mgm.health.status.last_ok
        await until(lambda: (hub.snapshot().source("mgm").last_ok or 0) > (polled or 0))
        await until(lambda: (hub.snapshot().source("mgm").last_ok or 0) > (polled or 0) + INTERVAL)
        assert [h[:2] for h in heard] == [
            (SourceState.CONNECTED, SourceState.CONNECTING),
            (SourceState.CONNECTED, SourceState.CONNECTED),
        ]
        await sim.stop_mgmd(1)
        await until(lambda: len(heard) == 3)
        assert heard[-1][0] is SourceState.RETRYING
    finally:
        await hub.stop()


async def test_a_sql_node_started_in_the_background_answers_an_early_client() -> None:
    import pymysql

    sim = Simulator(build_scenario("threads"), SimClock(speed=10))
    await sim.start(sql_in_background=True)
    try:
        port = sim.sql_port
        assert port is not None and sim.sql_server is None

        def query() -> tuple[object, ...]:
            conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                                   connect_timeout=10, read_timeout=10)
            try:
                with conn.cursor() as cur:
                    cur.execute("SELECT COUNT(*) FROM ndbinfo.nodes")
                    return cur.fetchone() or ()
            finally:
                conn.close()

        (count,) = await asyncio.to_thread(query)
        assert count == len(sim.cluster.config.data_nodes)
        assert sim.sql_port == port and sim.sql_server is not None
    finally:
        await sim.close()

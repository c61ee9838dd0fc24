"""A node restart seen by the hub ends as one start, through phase 101, remembered once.

The node reports phase 101 and ``Started`` before its state becomes STARTED
(mgm-protocol.md §6; NDBCNTR ``sendNextSTTOR``), but the hub reads them on the event
connection and STARTED on the ``get status`` one: whichever arrives first, the start
keeps its phases and length, and the history file gets one whole entry for it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from ndbtop.collect.history_store import HistoryStore
from ndbtop.collect.hub import Hub
from ndbtop.collect.mgm import MgmReading
from ndbtop.demo.hub import demo_hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.events.encode import encode_parsable
from ndbtop.mgm.status import NodeStatus
from ndbtop.mgm.wire import LineBuffer, RawEvent
from ndbtop.model.clock import RealClock
from ndbtop.model.history import PastStart, cluster_key
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]
NODE_RESTART = 2
VERSION = 0x080403
RESTART_LIMIT = 30.0
"""Real seconds a simulated node restart may take before the test fails (a hang, not a target)."""


def event(event_type: int, words: tuple[int, ...], at: float) -> Event:
    """An event of data node 3 as the listener decodes it (§5.2)."""
    lines = LineBuffer().feed(encode_parsable(event_type, 3, words))
    parser = EventStreamParser()
    raw = [x for x in (parser.feed(line) for line in lines) if isinstance(x, RawEvent)]
    return decode_event(raw[0], at)


def poll(hub: Hub, state: str, asked: float) -> None:
    """One ``get status`` answer for node 3 (§2.2), asked at ``asked``."""
    node = NodeStatus(3, "NDB", state, VERSION, VERSION, 0, 1, 0, 1, "10.0.0.3")
    hub.mgm.reading = MgmReading(0.0, asked, "127.0.0.1:1186", "8.4.3", (node,))
    hub.mgm.health.ok("127.0.0.1:1186", ())
    hub.on_mgm()


def remembered(tmp_path: Path) -> list[PastStart]:
    """Every start the history directory holds, over its files."""
    return [p for f in tmp_path.glob("*.json") for p in HistoryStore(tmp_path, f.stem).load()]


def test_late_phase_101_and_started_replace_the_start_saved_at_started(tmp_path: Path) -> None:
    hub = Hub(parse_connectstring("127.0.0.1:1"), RealClock(), 1.0, events=False,
              history_dir=tmp_path)
    poll(hub, "NOT_STARTED", 990.0)
    hub._on_event(event(10, (VERSION, VERSION), 1000.0))
    for i, phase in enumerate((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100)):
        hub._on_event(event(13, (phase, NODE_RESTART), 1000.0 + 8.0 * i))
    poll(hub, "STARTED", 1081.9)
    assert [p.seconds(101) for p in remembered(tmp_path)] == [None]
    hub._on_event(event(13, (101, NODE_RESTART), 1082.0))
    hub._on_event(event(11, (VERSION, VERSION), 1082.01))
    poll(hub, "STARTED", 1083.0)
    saved = remembered(tmp_path)
    assert len(saved) == 1 and saved == list(hub.snapshot().past_starts)
    assert not saved[0].partial
    assert saved[0].seconds(101) == pytest.approx(2.0)
    assert saved[0].total_s == pytest.approx(82.0)
    assert saved[0].finished_at == 1082.01


async def test_a_restart_sent_to_the_simulator_is_remembered_whole(
    start_sim: StartSim, tmp_path: Path, until: Any
) -> None:
    sim = await start_sim("threads", speed=100.0)
    hub = demo_hub(sim, 0.05, history_dir=tmp_path)
    await hub.start()
    try:
        await until(lambda: hub.snapshot().nodes and hub.snapshot().source("events")
                    and hub.snapshot().source("events").state.name == "CONNECTED",
                    what="the first status reading and the event listener")
        sim.cluster.restart_nodes((3,))
        # Started on the event connection, and STARTED in a poll asked after it.
        await until(lambda: any(e.type == 11 and e.source_node == 3
                                for e in hub.snapshot().events)
                    and hub.snapshot().past_starts, timeout=RESTART_LIMIT,
                    what="node 3's Started event and its start remembered")
        ended = next(e.received_at for e in hub.snapshot().events
                     if e.type == 11 and e.source_node == 3)
        await until(lambda: hub.mgm.reading is not None and hub.mgm.reading.wall > ended,
                    what="a status poll after Started")
    finally:
        await hub.stop()
    snap = hub.snapshot()
    line = next(t for t in snap.timelines if t.node_id == 3)
    assert line.began_exact and line.finished_exact and line.finished_at == ended
    assert [r.phase for r in line.completed][-2:] == [100, 101]
    assert all(r.exact for r in line.completed)
    assert len(snap.past_starts) == 1 and remembered(tmp_path) == list(snap.past_starts)
    past = snap.past_starts[0]
    assert past.node_id == 3 and past.start_type == NODE_RESTART and not past.partial
    assert past.seconds(101) is not None
    assert past.total_s == pytest.approx(line.elapsed_s(ended), abs=0.05) and past.total_s > 0


def test_a_hub_that_does_not_write_the_history_keeps_the_start_for_its_own_estimates(
        tmp_path: Path) -> None:
    """The fleet overview's hub beside the live view's: it reads the history and adds the
    starts it sees in memory, for the next estimate; only the live view's hub saves them."""
    key = cluster_key((NodeStatus(3, "NDB", "STARTED"),), "node-3")
    HistoryStore(tmp_path, key).add(PastStart(3, NODE_RESTART, 500.0, ((5, 60.0),), 90.0))
    hub = Hub(parse_connectstring("127.0.0.1:1"), RealClock(), 1.0, events=False,
              history_dir=tmp_path, history_writes=False, cluster_name="node-3")
    poll(hub, "NOT_STARTED", 990.0)
    hub._on_event(event(10, (VERSION, VERSION), 1000.0))
    for i, phase in enumerate((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101)):
        hub._on_event(event(13, (phase, NODE_RESTART), 1000.0 + 8.0 * i))
    hub._on_event(event(11, (VERSION, VERSION), 1090.0))
    poll(hub, "STARTED", 1091.0)
    before = [p.finished_at for p in remembered(tmp_path)]
    assert before == [500.0], "nothing written"
    assert [p.finished_at for p in hub.snapshot().past_starts] == [500.0, 1090.0]

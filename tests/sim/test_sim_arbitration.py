"""The simulated data nodes report arbitration as real ones do when their arbitrator, a
management server, is killed and comes back (texts of EventLogger.cpp, order of
QmgrMain.cpp), and a listener receives them on the wire."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events import decode_event
from ndbtop.mgm.wire import LineBuffer, RawEvent
from ndbtop.model.arbitration import ArbitrationPhase, Concern, arbitration_status, interpret
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.arbitration import CHOOSE_SECONDS, REGISTER_SECONDS
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]
Raw = Callable[[int], Awaitable[Any]]
TICKET = r"\[ticket=[0-9a-f]{16}\]"


async def listen(raw: Raw, port: int) -> Any:
    """A parsable listener for NODERESTART events (arbitration is level 6 and 2)."""
    conn = await raw(port)
    await conn.exchange(
        b"listen event\nfilter: 254=6\nparsable: 1\n\n", b"listen event\nresult: 0\n\n"
    )
    return conn


async def read_events(conn: Any, count: int) -> list[tuple[int, str]]:
    """The next ``count`` events: (reporting node, text), pings skipped."""
    parser = EventStreamParser()
    lines = LineBuffer()
    out: list[tuple[int, str]] = []
    while len(out) < count:
        for line in lines.feed(await conn.read_until(b"\n")):
            item = parser.feed(line)
            if isinstance(item, RawEvent):
                out.append((item.source_nodeid, decode_event(item, 0.0).text))
    return out


async def test_killing_the_arbitrator_mgmd_moves_arbitration_to_the_other(
    start_sim: StartSim, raw: Raw, manual_time: Any, two_mgmds: SimCluster
) -> None:
    sim = await start_sim(two_mgmds, time=manual_time)
    president = sim.cluster.master()
    assert president is not None and sim.arbitration.arbitrator == 1
    other = 3 if president.node_id == 2 else 2
    conn = await listen(raw, sim.mgm_ports[4])

    await sim.stop_mgmd(1)
    lost = await read_events(conn, 3)
    assert sorted(lost[:2]) == [(2, "Lost arbitrator node 1 - process failure [state=6]"),
                                (3, "Lost arbitrator node 1 - process failure [state=6]")]
    assert lost[2] == (president.node_id, "President restarts arbitration thread [state=1]")
    assert sim.arbitration.arbitrator is None

    manual_time.advance(CHOOSE_SECONDS)
    sim.sync()
    chosen = await read_events(conn, 2)
    assert chosen[0][0] == other
    assert chosen[0][1].startswith("Prepare arbitrator node 4 [ticket=")
    assert chosen[1][0] == president.node_id
    assert chosen[1][1].startswith("Started arbitrator node 4 [ticket=")
    # Both carry the president's new ticket.
    assert chosen[0][1][-18:] == chosen[1][1][-18:]
    assert sim.arbitration.arbitrator == 4

    # The killed one coming back changes nothing: there is an arbitrator.
    await sim.start_mgmd(1)
    manual_time.advance(REGISTER_SECONDS)
    sim.sync()
    assert sim.arbitration.arbitrator == 4


async def test_a_restarted_lone_mgmd_is_chosen_again_and_ndbtop_reads_it_as_routine(
    start_sim: StartSim, raw: Raw, manual_time: Any
) -> None:
    sim = await start_sim("threads", time=manual_time)
    await sim.stop_mgmd(1)
    # Nobody listens while the only management server is down: the cluster log has it.
    history = [e for e in sim.cluster.bus.history if e.type == 29]
    assert [e.words[0] & 0xFFFF for e in history] == [32, 32, 11]

    await sim.start_mgmd(1)
    conn = await listen(raw, sim.mgm_ports[1])
    manual_time.advance(REGISTER_SECONDS / 2)
    sim.sync()
    assert sim.arbitration.arbitrator is None, "chosen only once it has registered"
    manual_time.advance(REGISTER_SECONDS / 2)
    sim.sync()
    assert sim.arbitration.arbitrator == 1

    parser = EventStreamParser()
    lines = LineBuffer()
    events = []
    while len(events) < 2:
        for line in lines.feed(await conn.read_until(b"\n")):
            item = parser.feed(line)
            if isinstance(item, RawEvent):
                events.append(decode_event(item, 100.0 + len(events)))
    assert [e.text.split(" [")[0] for e in events] == [
        "Prepare arbitrator node 1",
        "Started arbitrator node 1",
    ]
    meanings = [interpret(e, {1}) for e in events]
    assert all(m is not None and m.concern is Concern.ROUTINE for m in meanings)
    status = arbitration_status(events)
    assert status.phase is ArbitrationPhase.RUNNING and status.arbitrator == 1

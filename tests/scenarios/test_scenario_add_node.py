"""S3, online add node and REORGANIZE PARTITION, watched through the management protocol
and ndbinfo: nodes 5 and 6 are configured but not connected, nodes 3 and 4 restart one
after the other, 5 and 6 start and form node group 1 (14 min 48 s in all), then the data
moves for 4 min 8 s with every LDM thread of every node busy."""

from __future__ import annotations

from scenario_watch import CLUSTER_LOG_LEVELS, ScenarioWatch, Watch, assert_reference_texts

ADD_NODE = 14 * 60 + 48
REORG = 4 * 60 + 8
LDM_LOAD = (
    "SELECT c.node_id, c.thr_no, c.OS_user + c.OS_system FROM ndbinfo.cpustat c "
    "JOIN ndbinfo.threads t ON c.node_id = t.node_id AND c.thr_no = t.thr_no "
    "WHERE t.thread_name = 'ldm' ORDER BY c.node_id, c.thr_no"
)


async def ldm_loads(w: ScenarioWatch) -> dict[tuple[int, int], int]:
    """Percent CPU of every LDM thread of every node, from cpustat."""
    return {(int(n), int(t)): int(load) for n, t, load in await w.query(LDM_LOAD)}


async def test_two_nodes_grow_to_four_then_the_data_moves(watch: Watch) -> None:
    # SCHEMA at 8 brings the AlterSchemaObject events of the reorganisation.
    w = await watch("add-node", levels={**CLUSTER_LOG_LEVELS, 262: 8})
    status = await w.status()
    assert [(status[n].status, status[n].node_group) for n in (3, 4)] == [("STARTED", 0)] * 2
    # A node without contact reports nothing: Services.cpp prints the 0 it started from.
    assert [(status[n].status, status[n].node_group) for n in (5, 6)] == [("NO_CONTACT", 0)] * 2

    down_together = False
    no_group_on_wire: set[str] = set()
    starting_seen: set[int] = set()
    while not (w.arrived(11, 5) and w.arrived(11, 6)):
        assert w.now < 1500, "nodes 5 and 6 never started"
        await w.step(2.0)
        status = await w.status()
        down_together |= status[3].status != "STARTED" and status[4].status != "STARTED"
        for n in (5, 6):
            if status[n].status in ("NOT_STARTED", "STARTING"):
                starting_seen.add(n)
                assert status[n].node_group is None
                raw = await w.raw_status()
                no_group_on_wire.add(raw.require(f"node.{n}.node_group"))
    assert not down_together
    assert starting_seen == {5, 6} and no_group_on_wire == {"-256"}

    # The rolling restart: 3 first, 4 once 3 is back, then 5 and 6 together.
    stop3, started3 = w.arrived(17, 3), w.arrived(11, 3)
    stop4, started4 = w.arrived(17, 4), w.arrived(11, 4)
    assert stop3 is not None and started3 is not None and stop4 is not None and started4
    assert stop3 < started3 <= stop4 < started4
    connected = [w.arrived(0, 1, node=n) for n in (5, 6)]
    assert all(c is not None and c >= started4 for c in connected)
    for n in (5, 6):
        (initiated,) = w.seen(10, n)
        assert w.seen(13, n)[0].line == "Start phase 0 completed (initial node restart)"
        assert initiated.line == "Start initiated (mysql-8.4.3 ndb-8.4.3)"
    procedure = max(w.arrived(11, 5), w.arrived(11, 6)) - stop3  # type: ignore[type-var, operator]
    assert abs(procedure - ADD_NODE) <= 0.10 * ADD_NODE, procedure
    # Mostly the rolling restart.
    assert started4 - stop3 > procedure / 2

    await w.run_until(
        lambda: w.arrived(75) is not None, step=2.0, limit=120, what="the reorganisation"
    )
    status = await w.status()
    assert [status[n].node_group for n in (3, 4, 5, 6)] == [0, 0, 1, 1]
    raw = await w.raw_status()
    assert [raw.require(f"node.{n}.node_group") for n in (5, 6)] == ["1", "1"]

    busy_samples = 0
    while len(w.seen(75)) < 2:
        assert w.now < 2000, "the reorganisation never ended"
        await w.step(5.0)
        if len(w.seen(75)) == 1 and w.now - w.seen(75)[0].time >= 15:
            loads = await ldm_loads(w)
            assert len(loads) == 4 * 4
            assert min(loads.values()) > 60, loads
            busy_samples += 1
    assert busy_samples >= 40
    begin, end = w.seen(75)
    assert begin.line == "alter object id: 14 version: 2 (from 3)"
    assert end.line == "alter object id: 14 version: 3 (from 3)"
    assert abs((end.time - begin.time) - REORG) <= 5.0

    await w.step(10.0)
    loads = await ldm_loads(w)
    assert len(loads) == 16 and max(loads.values()) < 30, loads
    assert_reference_texts(w.events)

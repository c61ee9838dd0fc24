"""The Nodes view's membership line and panel while the arbitrator-change scenario plays:
data node 2, the president, fails (node 3 takes over), then management server 1, the
arbitrator, loses the data nodes and 49 takes its place. ndbinfo.membership is read only
while the Nodes view shows."""

from __future__ import annotations

from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.membership_rows import MembershipRow
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.scenarios.triage import ARBITRATOR_LOST_AT, PRESIDENT_FAILS_AT
from ndbtop.tui.views.membership_panel import membership_line, membership_panel
from ndbtop.tui.views.nodes import NodesView


def cluster_before_the_failures() -> SimCluster:
    cluster = build_scenario("arbitrator-change")
    cluster.advance_to(PRESIDENT_FAILS_AT - 5)
    return cluster


async def listening(t) -> None:
    """Wait until the event listener is subscribed: events of the failures reach it."""
    await t.until(lambda: t.hub.events.listening_levels is not None, "the event listener")


async def test_the_line_follows_the_president_and_the_arbitrator(tui) -> None:
    async with tui(cluster_before_the_failures(), manual=True) as t:
        await t.until_shown("president 2 · successor 3 · arbitrator 1 rank 1 active, "
                            "agreed by 4/4")
        assert "membership" in t.hub.panels_wanted()
        await listening(t)
        await t.advance(PRESIDENT_FAILS_AT + 2 - t.sim.cluster.now)
        await t.until_shown("president 3 · successor 4 · arbitrator 1 rank 1 active, "
                            "agreed by 3/3")
        await t.advance(ARBITRATOR_LOST_AT + 3 - t.sim.cluster.now)
        await t.until_shown("president 3 · successor 4 · arbitrator 49 rank 1 active, "
                            "agreed by 3/3")

        # A management server's row shows the whole membership in the detail panel.
        view = t.app.query_one(NodesView)
        table = t.table("#nodes")
        table.move_cursor(row=table.get_row_index("49"))
        await t.until_shown("heartbeat ring: 3 → 4 → 5 → 3")
        await t.until_shown("Started arbitrator node 49")
        text = t.text()
        assert "node groups: 0: 2 3 (1/2 started)  ·  1: 4 5 (2/2 started)" in text
        assert "Started arbitrator node 49" in text and "Lost arbitrator node 1" in text
        assert view.drawn_for == 49

        # Another view: the table is no longer read.
        await t.view("2")
        await t.until(lambda: "membership" not in t.hub.panels_wanted(),
                      "membership no longer wanted")


async def test_without_a_sql_node_the_line_says_where_it_comes_from(tui) -> None:
    def mgm_only(sim: Simulator, interval: float) -> Hub:
        return Hub(parse_connectstring(sim.connectstring), sim.clock, interval)

    async with tui(cluster_before_the_failures(), manual=True, make_hub=mgm_only) as t:
        await t.until_shown("president 2 · successor 3 · arbitrator unknown")
        assert "(from events and config)" in t.text()
        await listening(t)
        await t.advance(ARBITRATOR_LOST_AT + 3 - t.sim.cluster.now)
        await t.until_shown("arbitrator 49 rank 1 active (from events and config)")


def test_a_disagreement_is_marked_not_only_coloured() -> None:

    def row(node_id: int, arbitrator: int, ticket: str) -> MembershipRow:
        return MembershipRow(node_id, 0, 3 - node_id, 3 - node_id, 1, 2, node_id, 0,
                             arbitrator, ticket, "ARBIT_RUN", True, (49,), ())

    rows = (row(1, 49, "4a2b000200004e20"), row(2, 50, "4a2b000100000001"))
    snap = ClusterSnapshot(
        taken_at=10.0, wall=1000.0, interval=1.0,
        sources=(SourceStatus("ndbinfo", SourceState.CONNECTED),),
        nodes=(NodeStatus(1, "NDB", "STARTED", dynamic_id=1),
               NodeStatus(2, "NDB", "STARTED", dynamic_id=2)),
        ndbinfo=NdbinfoSample(taken_at=10.0, ndb_version=None, membership=rows,
                              read_at=(("membership", 9.0),)))
    line = membership_line(snap)
    assert line is not None
    assert line.plain == ("! president 1 · successor 2 · arbitrator 49 rank 1 active, "
                          "agreed by 1/2 (node 2 names 50)")
    panel = membership_panel(snap).plain
    assert panel.startswith("membership: president 1")
    assert "heartbeat ring: 1 → 2 → 1" in panel
    assert "last arbitration events: none seen since ndbtop connected" in panel

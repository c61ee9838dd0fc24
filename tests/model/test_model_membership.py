"""Membership and arbitration as the report and the Nodes view show them: from
``ndbinfo.membership`` (the agreement counted as ``arbitrator_validity_summary`` counts it,
ndbinfo.md §2.1), and without a SQL node from get status, the ArbitState/ArbitResult events
(built from the ``log event reply`` blocks a management server sends, QmgrMain.cpp
reportArbitEvent: word 1 ``code | state << 16``) and the configuration's ArbitrationRank."""

from __future__ import annotations

from dataclasses import replace

from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events import decode_event
from ndbtop.mgm.events.decode import Event
from ndbtop.mgm.status import NodeStatus
from ndbtop.mgm.wire import LineBuffer, RawEvent
from ndbtop.model.config import ClusterConfig, DataNodeConfig, NodeConfig
from ndbtop.model.membership import FROM_EVENTS, FROM_NDBINFO, headline, membership
from ndbtop.model.membership_rows import MembershipRow
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.report.membership import membership_json, membership_lines

TICKET = "4a2b000200004e20"
CONFIG = ClusterConfig(
    7, "c", 2,
    (NodeConfig(49, "MGM", arbitration_rank=1), NodeConfig(50, "API", arbitration_rank=2),
     NodeConfig(51, "API")),
    (DataNodeConfig(1, 0), DataNodeConfig(2, 0), DataNodeConfig(3, 1), DataNodeConfig(4, 1)),
)


def node(node_id: int, status: str = "STARTED", dynamic_id: int = 0, group: int = 0
         ) -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, dynamic_id=dynamic_id, node_group=group)


NODES = (node(1, dynamic_id=3), node(2, dynamic_id=1), node(3, dynamic_id=2, group=1),
         node(4, "NO_CONTACT", group=0), NodeStatus(49, "MGM", "CONNECTED"),
         NodeStatus(50, "API", "CONNECTED"))


def row(node_id: int, left: int, right: int, arbitrator: int = 49, ticket: str = TICKET,
        group: int = 0) -> MembershipRow:
    return MembershipRow(node_id, group, left, right, 2, 3, node_id, 0, arbitrator, ticket,
                         "ARBIT_RUN", True, (49,), (50,))


def snap(rows: tuple[MembershipRow, ...] = (), sql: bool = True,
         events: tuple[Event, ...] = ()) -> ClusterSnapshot:
    sample = NdbinfoSample(taken_at=10.0, ndb_version=None, membership=rows,
                           read_at=(("membership", 9.0),) if rows else ())
    sources = (SourceStatus("mgm", SourceState.CONNECTED),
               SourceStatus("ndbinfo", SourceState.CONNECTED if sql else SourceState.DISABLED))
    return ClusterSnapshot(taken_at=10.0, wall=1000.0, interval=1.0, sources=sources,
                           nodes=NODES, ndbinfo=sample if sql else None, config=CONFIG,
                           events=events)


def blocks(*items: tuple[int, int, int, int]) -> tuple[Event, ...]:
    """Events from ``log event reply`` blocks: (source, type, word 1, arbitrator)."""
    data = b"".join(
        (f"log event reply\ntype={t}\ntime=0\nsource_nodeid={src}\ncode={code}\n"
         f"arbit_node={arb}\nticket_0=1244332034\nticket_1=20000\n\n").encode()
        for src, t, code, arb in items)
    parser = EventStreamParser()
    out = []
    for line in LineBuffer().feed(data):
        item = parser.feed(line)
        if isinstance(item, RawEvent):
            out.append(decode_event(item, 990.0 + len(out)))
    return tuple(out)


def test_from_ndbinfo_every_node_agrees() -> None:
    rows = (row(2, 1, 3), row(3, 2, 1, group=1), row(1, 3, 2))
    m = membership(snap(rows))
    assert m.source == FROM_NDBINFO
    assert (m.president, m.successor) == (2, 3)
    a = m.arbitrator
    assert (a.node_id, a.rank, a.state, a.agreed, a.agreed_by, a.data_nodes) == (
        49, 1, "ARBIT_RUN", True, 3, 3)
    # Along the ring from the president, right neighbour next.
    assert m.ring == ((2, 1, 3), (3, 2, 1), (1, 3, 2))
    # Node 4 is down: get status gives it group 0, the configuration group 1 (config.py
    # effective_node_group).
    assert [(g.group, g.members, g.live) for g in m.groups] == [(0, (1, 2), (1, 2)),
                                                                 (1, (3, 4), (3,))]
    assert headline(m) == ("president 2 · successor 3 · arbitrator 49 rank 1 active, "
                           "agreed by 3/3")
    report = membership_json(snap(rows))
    assert report["arbitrator"] == {"node_id": 49, "rank": 1, "state": "ARBIT_RUN",
                                    "agreed": True, "agreed_by": 3, "data_nodes": 3,
                                    "connected": True, "dissent": []}
    assert report["ring"] == [[2, 1, 3], [3, 2, 1], [1, 3, 2]] and report["from"] == "ndbinfo"


def test_a_node_naming_another_ticket_breaks_the_agreement() -> None:
    # Node 1 still holds the old ticket: arbitrator_validity_summary would give two rows.
    rows = (row(2, 1, 3), row(3, 2, 1, group=1), row(1, 3, 2, arbitrator=50,
                                                      ticket="4a2b000100000000"))
    m = membership(snap(rows))
    a = m.arbitrator
    assert (a.node_id, a.agreed, a.agreed_by, a.dissent) == (49, False, 2, ((1, 50),))
    assert headline(m).endswith("agreed by 2/3 (node 1 names 50)")


def test_a_started_node_missing_from_the_rows_is_not_agreement() -> None:
    m = membership(snap((row(2, 3, 3), row(3, 2, 2, group=1))))
    assert (m.arbitrator.agreed, m.arbitrator.agreed_by, m.arbitrator.data_nodes) == (
        False, 2, 3)


def test_without_a_sql_node_events_and_configuration() -> None:
    events = blocks(
        (2, 29, 32 | 6 << 16, 49),  # Lost arbitrator node 49 - process failure [state=6]
        (2, 29, 11 | 1 << 16, 0),  # President restarts arbitration thread [state=1]
        (3, 29, 22, 50),  # Prepare arbitrator node 50
        (2, 29, 31 | 5 << 16, 50),  # Started arbitrator node 50
    )
    m = membership(snap(sql=False, events=events))
    assert m.source == FROM_EVENTS and m.ring == ()
    # The president is the started data node with the lowest dynamic id, then the next.
    assert (m.president, m.successor) == (2, 3)
    a = m.arbitrator
    assert (a.node_id, a.rank, a.state, a.agreed, a.agreed_by) == (50, 2, "ARBIT_RUN", None,
                                                                   None)
    assert [(c.node_id, c.node_type, c.rank, c.connected) for c in m.candidates] == [
        (49, "MGM", 1, True), (50, "API", 2, True)]
    assert [e.text for e in m.events] == [
        "Lost arbitrator node 49 - process failure [state=6]",
        "President restarts arbitration thread [state=1]",
        "Prepare arbitrator node 50 [ticket=4a2b000200004e20]",
        "Started arbitrator node 50 [ticket=4a2b000200004e20]"]
    assert m.note.startswith("no SQL node: ")
    line = headline(m)
    assert line.startswith("president 2 · successor 3 · arbitrator 50 rank 2 active")
    assert "no ndbinfo.membership" in line
    text = "\n".join(membership_lines(m))
    assert "Started arbitrator node 50" in text and "Heartbeat ring" not in text


def test_without_any_arbitration_event_the_arbitrator_is_unknown() -> None:
    m = membership(snap(sql=False))
    assert m.arbitrator.node_id is None and m.arbitrator.state is None
    assert "arbitrator unknown" in headline(m)
    report = membership_json(snap(sql=False))
    assert report["from"] == "events+config" and report["arbitrator"]["agreed"] is None
    assert report["note"].startswith("no SQL node")


def test_a_sql_node_that_has_not_read_the_table_yet_says_so() -> None:
    m = membership(snap(sql=True))
    assert m.source == FROM_EVENTS
    assert m.note.startswith("ndbinfo.membership not read yet")


def test_a_lost_arbitration_is_named_from_the_events() -> None:
    events = blocks((2, 30, 45 | 7 << 16, 0), (2, 30, 48 | 7 << 16, 0))  # partition, no run
    m = membership(snap(sql=False, events=events))
    assert m.arbitrator.node_id is None and m.arbitrator.state == "ARBIT_CRASH"
    assert "no arbitrator (arbitration lost)" in headline(m)
    assert [e.concern for e in m.events] == ["alarm", "alarm"]


def test_no_node_group_is_left_out_of_the_groups() -> None:
    # The parser gives None for NDB_NO_NODEGROUP (65536).
    rows = (row(2, 3, 3), replace(row(3, 2, 2), group_id=None))
    groups = {g.group: g.members for g in membership(snap(rows)).groups}
    assert 3 not in groups.get(1, ())


def test_rows_from_a_node_not_started_are_stale_and_a_count_never_exceeds_its_total() -> None:
    # During a rolling restart node 4 restarts: its last row still names itself president
    # and the old arbitrator ticket. Only STARTED data nodes' rows count (QmgrMain.cpp
    # MEMBERSHIP_TABLEID reports the node's own view, which is stale once it left).
    stale = replace(row(4, 3, 1), president=4, arb_ticket="0000000100000001")
    rows = (row(2, 1, 3), row(3, 2, 1, group=1), row(1, 3, 2), stale)
    m = membership(snap(rows))
    a = m.arbitrator
    assert (a.agreed_by, a.data_nodes, a.agreed) == (3, 3, True)
    assert m.president == 2 and "agreed by 3/3" in headline(m)
    assert 4 not in [n for n, _, _ in m.ring]


def test_rows_naming_nodes_get_status_does_not_have_are_flagged_not_merged() -> None:
    # ndbinfo.membership rows naming node 9 (not a data node of get status) and a president
    # 99: said, not counted, and node 9 is no live member of group 0.
    ghost = replace(row(9, 1, 2), president=99)
    rows = (row(2, 1, 3), row(3, 2, 1, group=1), row(1, 3, 2), ghost)
    m = membership(snap(rows))
    assert m.flagged == ("a row from node 9, which get status does not have as a data node: "
                         "not counted",)
    assert all(9 not in g.live and 9 not in g.members for g in m.groups)
    assert (m.arbitrator.agreed_by, m.arbitrator.data_nodes) == (3, 3)
    wrong = tuple(replace(r, president=99) for r in rows[:3])
    m = membership(snap(wrong))
    # get status's rule names the president instead (the lowest dynamic id: node 2).
    assert m.president == 2
    assert any("president 99" in f for f in m.flagged)
    assert membership_json(snap(wrong))["flagged"] == list(m.flagged)
    assert any(line.startswith("  contradicts get status: ")
               for line in membership_lines(m))


def test_a_snapshot_with_what_the_last_had_gives_the_same_membership_without_working_it_out(
) -> None:
    rows = (row(2, 1, 3), row(3, 2, 1, group=1), row(1, 3, 2))
    first = membership(snap(rows))
    again = membership(replace(snap(rows), taken_at=11.0, wall=1001.0))
    assert again is first
    fewer = membership(snap(rows[:2]))
    assert fewer is not first and [n for n, _, _ in fewer.ring] != [n for n, _, _ in first.ring]
    assert membership(snap(rows, sql=False)).source == FROM_EVENTS
    stopped = replace(snap(rows), nodes=(node(1, "NO_CONTACT"), *NODES[1:]))
    assert membership(stopped) != first, "another get status: worked out again"

"""``ndbinfo.membership``: read only while something asks for it, parsed from rows as the
server sends them, against the simulated SQL node and against MariaDB holding the real column
layout (ndbinfo-schema.json).

What each column holds is what ``Qmgr::execDBINFO_SCANREQ`` (QmgrMain.cpp, MEMBERSHIP_TABLEID)
writes, shaped by the view (ndbinfo.md §2.1): ``group_id`` NDB_NO_NODEGROUP (65536) for a node
in no group, ``successor`` and ``arbitrator`` 0 for none, ``arb_ticket`` ``%08x%08x``
(ArbitTicket::getText), ``arb_state`` the ``ARBIT_*`` name, ``arb_connected`` ``Yes``/``No``,
the connected candidates of rank 1 and 2 joined with ``", "`` or ``-``.
"""

from __future__ import annotations

import pytest
from mariadb_fixture import NDBTOP_PASSWORD, NDBTOP_USER, MariaDbServer, insert_rows
from sim_reads import samples_wanting

from ndbtop.model.membership_rows import MembershipRow
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.ndbinfo.queries import Query
from ndbtop.ndbinfo.queries_triage import MEMBERSHIP, ON_DEMAND
from ndbtop.ndbinfo.rows_membership import COLUMNS, parse_membership
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.scenarios.triage import ARBITRATOR_LOST_AT, PRESIDENT_FAILS_AT, SECOND_MGMD

TICKET = "7c3b00010000a1f2"
"""A ticket as ``%08x%08x`` prints it: process 0x7c3b, first ticket, 41,458 ms."""

# Two data nodes (1, 2) in group 0 and node 3 added before CREATE NODEGROUP; management
# server 49 the arbitrator (rank 1, connected), SQL node 50 a rank 2 candidate.
SERVER_ROWS = [
    (1, 0, 3, 2, 1, 2, 1, 0, 49, TICKET, "ARBIT_RUN", "Yes", "49", "50"),
    (2, 0, 1, 3, 1, 2, 2, 0, 49, TICKET, "ARBIT_RUN", "Yes", "49", "50"),
    (3, 65536, 2, 1, 1, 2, 3, 0, 49, TICKET.encode(), b"ARBIT_RUN", b"Yes", b"49", b"-"),
]


def test_rows_as_the_server_sends_them() -> None:
    rows = [
        *SERVER_ROWS,
        # A lone node: no successor, no arbitrator yet (ticket all zeroes, state NULL), no
        # neighbour that is a node id, no candidate connected.
        (7, 1, 65535, 65535, 7, 0, 1, 0, 0, "0000000000000000", "ARBIT_NULL", "No", "-", "-"),
        (0, 0, 1, 1, 1, 1, 1, 0, 49, TICKET, "ARBIT_RUN", "Yes", "49", "-"),  # not a node id
        (8, 0, 1, 1),  # too short
        (9, "٣", 1, 2, 1, 2, 1, 0, 49, "\x1b[31m", "BOGUS_STATE!!", "Yes", "4٩, 49, x", "-"),
    ]
    parsed = {r.node_id: r for r in parse_membership(rows)}
    assert sorted(parsed) == [1, 2, 3, 7, 9]
    assert parsed[1] == MembershipRow(1, 0, 3, 2, 1, 2, 1, 0, 49, TICKET, "ARBIT_RUN", True,
                                      (49,), (50,))
    assert parsed[3].group_id is None and parsed[3].rank2_arbitrators == ()
    assert parsed[3].arb_ticket == TICKET and parsed[3].arb_connected
    lone = parsed[7]
    assert (lone.left_node, lone.right_node, lone.successor, lone.arbitrator) == (
        None, None, None, None)
    assert lone.arb_state == "ARBIT_NULL" and not lone.arb_connected
    odd = parsed[9]
    # A Unicode digit is no number; an escape sequence is shown escaped, never passed on.
    assert odd.group_id is None and odd.rank1_arbitrators == (49,)
    assert "\x1b" not in odd.arb_ticket and "\x1b" not in odd.arb_state
    assert len(odd.arb_state) <= 12


def test_the_query_reads_every_column_of_the_view_once_per_node() -> None:
    assert ON_DEMAND["membership"] is MEMBERSHIP
    for column in COLUMNS:
        assert column in MEMBERSHIP.sql
    assert "FROM ndbinfo.membership" in MEMBERSHIP.sql and "LIMIT 255" in MEMBERSHIP.sql


async def _read(cluster: object) -> tuple[MembershipRow, ...]:
    before, wanted = await samples_wanting(SimNdbinfo(cluster), {"membership"})  # type: ignore[arg-type]
    assert before.membership == () and before.panel_read_at("membership") is None
    assert wanted.panel_read_at("membership") is not None
    return wanted.membership


async def test_the_simulated_sql_node_follows_the_president_and_the_arbitrator() -> None:
    cluster = build_scenario("arbitrator-change")
    cluster.advance(5)
    rows = await _read(cluster)
    assert [r.node_id for r in rows] == [2, 3, 4, 5]
    assert {(r.president, r.successor, r.arbitrator, r.arb_state) for r in rows} == {
        (2, 3, 1, "ARBIT_RUN")}
    # The ring by dynamic id: 2 -> 3 -> 4 -> 5 -> 2.
    assert [(r.node_id, r.left_node, r.right_node) for r in rows] == [
        (2, 5, 3), (3, 2, 4), (4, 3, 5), (5, 4, 2)]
    assert rows[0].rank1_arbitrators == (1, SECOND_MGMD)

    cluster.advance_to(PRESIDENT_FAILS_AT + 2)
    rows = await _read(cluster)
    assert [r.node_id for r in rows] == [3, 4, 5]
    assert {(r.president, r.successor, r.arbitrator) for r in rows} == {(3, 4, 1)}

    cluster.advance_to(ARBITRATOR_LOST_AT + 2)
    rows = await _read(cluster)
    assert {(r.president, r.arbitrator, r.arb_state, r.arb_connected) for r in rows} == {
        (3, SECOND_MGMD, "ARBIT_RUN", True)}
    assert len({r.arb_ticket for r in rows}) == 1 and rows[0].arb_ticket != "4a2b000100000000"
    assert rows[0].rank1_arbitrators == (SECOND_MGMD,)


async def test_rows_read_as_at_the_last_read_give_the_very_same_values() -> None:
    cluster = build_scenario("arbitrator-change")
    cluster.advance(5)
    _, first, same, moved = await samples_wanting(
        SimNdbinfo(cluster), {"membership"}, lambda _: None,
        lambda _: cluster.advance_to(PRESIDENT_FAILS_AT + 2))
    assert same.membership is first.membership, "nothing changed: not parsed again"
    assert [r.node_id for r in moved.membership] == [3, 4, 5]


def test_the_simulated_validity_views_count_the_agreement() -> None:
    cluster = build_scenario("arbitrator-change")
    cluster.advance(5)
    provider = SimNdbinfo(cluster)
    ticket = cluster.arbitration.ticket_text
    assert provider.rows("arbitrator_validity_summary") == [(1, ticket, "Yes", 4)]
    assert [r[0] for r in provider.rows("arbitrator_validity_detail")] == [2, 3, 4, 5]


def test_mariadb_with_the_real_columns(mariadb: MariaDbServer) -> None:
    with mariadb.admin() as cur:
        insert_rows(cur, "membership", SERVER_ROWS)
    options = MysqlOptions(host="127.0.0.1", port=mariadb.port, user=NDBTOP_USER,
                           password=NDBTOP_PASSWORD)
    collector = NdbinfoCollector(options)
    collector.connect()
    try:
        assert collector.sample().membership == ()
        collector.wanted = frozenset({"membership"})
        sample = collector.sample()
    finally:
        collector.close()
        with mariadb.admin() as cur:
            cur.execute("DELETE FROM ndbinfo.membership")
    assert [r.node_id for r in sample.membership] == [1, 2, 3]
    assert sample.membership[0] == MembershipRow(1, 0, 3, 2, 1, 2, 1, 0, 49, TICKET,
                                                 "ARBIT_RUN", True, (49,), (50,))
    assert sample.membership[2].group_id is None


def test_mariadb_reads_the_same_packed_and_row_by_row(
    mariadb: MariaDbServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The candidates joined with ", " (two of rank 1), and NULLs where a real server has none.
    rows = [*SERVER_ROWS, (4, 1, 1, 2, 1, 2, 4, 0, 49, TICKET, "ARBIT_RUN", "Yes", "49, 51", "-"),
            (5, None, None, None, 1, None, 5, 0, None, None, None, None, None, None)]
    options = MysqlOptions(host="127.0.0.1", port=mariadb.port, user=NDBTOP_USER,
                           password=NDBTOP_PASSWORD)

    def read(setting: Query | None) -> tuple[MembershipRow, ...]:
        with monkeypatch.context() as patch:
            if setting is not None:
                patch.setattr(q, "SET_GROUP_CONCAT_MAX_LEN", setting)
            collector = NdbinfoCollector(options)
            collector.wanted = frozenset({"membership"})
            collector.connect()
            try:
                return collector.sample().membership
            finally:
                collector.close()

    with mariadb.admin() as cur:
        insert_rows(cur, "membership", rows)
        cur.execute("SELECT " + ", ".join(COLUMNS) + " FROM ndbinfo.membership")
        typed = parse_membership(list(cur.fetchall()))
        cur.execute(MEMBERSHIP.packed or "")
        ((count, _),) = cur.fetchall()
    try:
        packed = read(None)
        row_by_row = read(Query("packing", "", "SET SESSION no_such_variable = 1"))
    finally:
        with mariadb.admin() as cur:
            cur.execute("DELETE FROM ndbinfo.membership")
    assert count == 5, "every node's row in the one packed row"
    assert packed == typed and row_by_row == typed
    assert packed[3].rank1_arbitrators == (49, 51)
    assert packed[4] == MembershipRow(5, None, None, None, 1, None, 5, 0, None, "", "UNKNOWN",
                                      False, (), ())

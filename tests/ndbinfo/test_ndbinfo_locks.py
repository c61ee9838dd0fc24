"""``cluster_transactions`` (with ``server_transactions``' MySQL connection) and
``cluster_locks`` (with ``dict_obj_info``'s names): read only while something asks for them,
filtered on the SQL node, parsed from rows as the server sends them, against the simulated
SQL node and against MariaDB holding the real column layouts (ndbinfo-schema.json).

The rows follow ndbinfo.md §2.7 (S-SQL23's view definitions): ``transid`` is
``transid0 + (transid1 << 32)``, a BIGINT UNSIGNED; ``state`` is DBTC's friendly name
(S-TCSD); ``client_node_id`` is ``apiref & 65535``; a lock's ``mode`` is S/X, its ``state``
H/W, ``waiting_for`` NULL unless it waits; ``server_transactions`` is
``mysql_connection_id`` plus the same columns. ``fq_name`` is ``db/def/table`` (§2.8, T-76).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from decimal import Decimal

from mariadb_fixture import NDBTOP_PASSWORD, NDBTOP_USER, MariaDbServer, insert_rows
from sim_reads import samples_wanting

from ndbtop.model.locks import LockRow, Transaction, lock_waits
from ndbtop.model.locks_read import locks_read
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo import queries_triage as qt
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.ndbinfo.rows_locks import parse_locks, parse_transactions
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.sqlnode import start_sql_node
from ndbtop.sim.sqlnode.schema import all_tables
from tests.findings.test_rules_server_words import snap

TOP = (1 << 64) - 1
"""A transid with all 64 bits set: transid1 = transid0 = 0xFFFFFFFF."""
HIGH = (0x80010032 << 32) | 0x2A01
"""A transid above 2**63 (the high word's top bit set)."""


def test_transaction_rows_as_the_server_sends_them() -> None:
    rows = [
        # pymysql gives BIGINT UNSIGNED as int; a value past 2**63 stays exact.
        (2, 1, HIGH, "Started", 12, 0, 601, 50, 41),
        (3, 1, b"14355228107235328", b"Receiving", 1, 0, 15, 51, None),
        (4, 2, Decimal(TOP), "Committing", 9, 1, 40, 51, None),
        (5, 1, TOP + 1, "Started", 1, 0, 20, 51, None),  # beyond 64 bits: left out
        (6, 1, "1e3", "Started", 1, 0, 20, 51, None),  # not digits: left out
        (7, 1, 5, "Started", 1, 0, None, 51, None),  # NULL age: left out
        (8, 1),
    ]
    assert parse_transactions(rows) == (
        Transaction(2, 1, HIGH, "Started", 12, 0, 601, 50, 41),
        Transaction(4, 2, TOP, "Committing", 9, 1, 40, 51, None),
        Transaction(3, 1, 14355228107235328, "Receiving", 1, 0, 15, 51, None),
    )


def test_lock_rows_as_the_server_sends_them() -> None:
    # The columns of qt.LOCKS: cluster_locks' without ``detail``, then dict_obj_info's fq_name.
    rows = [
        (2, 1, 17, 3, 4338, HIGH, "X", "H", "UPDATE", 601000, 7001, None, b"shop/def/orders"),
        (2, 1, 17, 3, 4338, TOP, "X", "W", "UPDATE", 900, 7010, 7001, "shop/def/orders"),
        (2, 1, 99, 0, 1, 5, "S", "W", "READ", 10, 7011, 7001, None),
        (2, 1, 17, 3, 1, 5, "S", "?", "READ", 10, 7012, None, None),  # no such state
        (2, 1, 17, 3, 1, 5, "S", "W", "READ", -1, 7013, None, None),  # negative
        (2, 1, 17, 3, 1, 5, "S", "W", "READ"),
    ]
    locks = parse_locks(rows)
    assert [lk.lock_num for lk in locks] == [7001, 7010, 7011]
    held, waiting, unnamed = locks
    assert held == LockRow(2, 1, 17, 3, 4338, HIGH, "X", "H", "UPDATE", 601000, 7001, None,
                           "shop/def/orders")
    assert waiting.transid == TOP and waiting.waiting_for == 7001 and waiting.waiting
    assert held.table_name == "shop.orders" and unnamed.table_name == "table 99"
    assert [(w.waiter, w.holder) for w in lock_waits(locks)] == [(TOP, HIGH), (5, HIGH)]


def test_the_age_is_pushed_to_the_sql_node_with_a_limit() -> None:
    sql = qt.transactions_query(25).sql
    assert "WHERE t.inactive_seconds >= 25" in sql and "inactive_seconds >= 25)" in sql
    assert sql.endswith("LIMIT 201") and qt.TRANSACTIONS.sql == qt.transactions_query(10).sql
    assert "WHERE l.state = 'W' OR w.waiting_for IS NOT NULL" in qt.LOCKS.sql
    assert qt.LOCKS.sql.endswith("LIMIT 1001")
    assert not q.has(q.make_version(7, 5, 3), "cluster_locks")  # dict_obj_info is 7.5.4


async def test_the_simulated_lock_chain_is_read_only_when_asked() -> None:
    cluster = build_scenario("lock-chain")
    cluster.advance(2)

    def older_than_30_s(collector: NdbinfoCollector) -> None:
        collector.txn_age_s = 30

    before, wanted, older = await samples_wanting(SimNdbinfo(cluster), {"transactions", "locks"},
                                                  older_than_30_s)
    assert before.transactions == () and before.locks == ()
    assert before.panel_read_at("transactions") is None
    ages = [t.inactive_s for t in wanted.transactions]
    assert ages == sorted(ages, reverse=True) and min(ages) >= 10 and ages[0] >= 600
    assert wanted.transactions[0].mysql_connection_id == 41
    assert all(t.inactive_s >= 30 for t in older.transactions) and older.txn_age_s == 30
    waits = lock_waits(wanted.locks)
    assert [w.depth for w in waits] == [3, 2, 1]
    assert waits[-1].holder == wanted.transactions[0].transid
    assert {w.lock.table_name for w in waits} == {"shop.orders", "shop.stock", "shop.payments"}
    # Only waits and the locks they wait for: the idle transaction's other lock is not read.
    assert len(wanted.locks) == 6


def test_mariadb_with_the_real_columns(mariadb: MariaDbServer) -> None:
    transactions = [
        (2, 1, HIGH, "Started", 12, 0, 601, 50, 32769),
        (3, 1, TOP, "Started", 2, 0, 0, 51, 32769),  # active: below the age
        (4, 1, 77, "Receiving", 1, 1, 15, 51, 32769),
    ]
    locks = [
        (2, 1, 17, 3, 4338, HIGH, "X", "H", "*", "UPDATE", 601000, 7001, None),
        (2, 1, 18, 1, 12, HIGH, "X", "H", "*", "INSERT", 601000, 7002, None),  # no waiter
        (2, 1, 17, 3, 4338, TOP, "X", "W", None, "UPDATE", 900, 7010, 7001),
        # The same lock_num on another node's LDM, which no one waits for: not read.
        (1, 1, 17, 2, 9, 55, "X", "H", "*", "UPDATE", 700000, 7001, None),
    ]
    tables = {
        "cluster_transactions": transactions,
        "server_transactions": [(41, *transactions[0])],
        "cluster_locks": locks,
        "dict_obj_info": [(2, 17, 1, 4, 0, 0, "shop/def/orders"),
                          (6, 17, 1, 4, 2, 16, "sys/def/16/ix")],  # another id space
    }
    with mariadb.admin() as cur:
        for table, rows in tables.items():
            insert_rows(cur, table, rows)
    try:
        collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=mariadb.port,
                                                  user=NDBTOP_USER, password=NDBTOP_PASSWORD))
        collector.connect()
        try:
            collector.wanted = frozenset({"transactions", "locks"})
            sample = collector.sample()
        finally:
            collector.close()
    finally:
        with mariadb.admin() as cur:
            for table in tables:
                cur.execute(f"DELETE FROM ndbinfo.`{table}`")
    assert sample.transactions == (
        Transaction(2, 1, HIGH, "Started", 12, 0, 601, 50, 41),
        Transaction(4, 1, 77, "Receiving", 1, 1, 15, 51, None),
    )
    assert [(lk.node_id, lk.lock_num) for lk in sample.locks] == [(2, 7001), (2, 7010)]
    (wait,) = lock_waits(sample.locks)
    assert (wait.waiter, wait.holder, wait.lock.table_name) == (TOP, HIGH, "shop.orders")
    assert not [u for u in sample.unavailable if u[0] in ("transactions", "locks")]


def test_text_from_the_server_reaches_no_terminal_raw() -> None:
    (lk,) = parse_locks([(2, 1, 17, 3, 1, 5, "X", "H", "UPDATE\x1b[2J", 10, 1, None,
                          "shop/def/\x1b]0;owned\x07orders" + "x" * 600)])
    (t,) = parse_transactions([(2, 1, 5, "Started\x1b[31m", 1, 0, 20, 51, None)])
    for text in (lk.op, lk.table, lk.table_name, t.state):
        assert "\x1b" not in text and "\x07" not in text
    assert len(lk.table) <= 512 * 4


async def test_without_server_transactions_the_transactions_are_read_alone() -> None:
    # server_transactions (ndbinfo.md §2.7) joins the MySQL connection map; where the view
    # cannot be read (here not granted: 1356), the failure names it, not cluster_transactions,
    # and cluster_transactions is read alone, with no MySQL connection.
    cluster = build_scenario("lock-chain")
    cluster.advance(2)
    tables = set(all_tables()) - {"server_transactions"}
    server = await start_sql_node(SimNdbinfo(cluster), port=0, users={"monitor": ("pw", tables)})
    try:
        collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=server.port,
                                                  user="monitor", password="pw"))
        await asyncio.to_thread(collector.connect)
        collector.wanted = frozenset({"transactions"})
        first = await asyncio.to_thread(collector.sample)
        again = await asyncio.to_thread(collector.sample)
        collector.close()
    finally:
        await server.close()
    for sample in (first, again):
        ages = [t.inactive_s for t in sample.transactions]
        assert ages and ages[0] >= 600
        assert {t.mysql_connection_id for t in sample.transactions} == {None}
        why = dict(sample.unavailable)
        assert "transactions" not in why
        assert why["server_transactions"].startswith(
            "no SELECT privilege on ndbinfo.server_transactions")
        assert why["server_transactions"].endswith(": cluster_transactions read alone")
        assert "cluster_transactions" not in why["server_transactions"].split(":")[0]
    read = locks_read(replace(snap(), ndbinfo=again))
    assert [panel for panel, _ in read.unavailable] == ["server_transactions"]

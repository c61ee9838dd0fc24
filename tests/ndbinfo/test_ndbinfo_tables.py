"""Memory per table: ``ndbinfo.memory_per_fragment`` summed per table and node on the SQL
node, read only while something asks for it, parsed from rows as the server sends them,
against the simulated SQL node and against MariaDB holding the real column layout
(ndbinfo-schema.json).

The view's rows follow its definition (ndbinfo.md §2.4, S-SQL23 ``memory_per_fragment``: a
row per fragment replica, ``fq_name`` and ``parent_fq_name`` from ``dict_obj_info``, the
type name from ``dict_obj_types``), and the dictionary names of T-76 (ndbinfo.md §7.1: a
user table ``db/def/t1``, its BLOB part table ``db/def/NDB$BLOB_<id>_4``, its unique index
``sys/def/<id>/ix2$unique`` and ordered indexes ``sys/def/<id>/PRIMARY`` and ``.../ix1``,
each the child of t1).
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

from mariadb_fixture import NDBTOP_PASSWORD, NDBTOP_USER, MariaDbServer, insert_rows
from sim_reads import samples_wanting

from ndbtop.model.table_memory import READ_EVERY, TOP_TABLES, TableMemory, TableNodeMemory
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo import queries_triage as qt
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.ndbinfo.rows_tables import parse_node_text, parse_table_memory
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.ndbinfo_rows.tables import SKEWED, build_catalogue
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.sqlnode import StaticProvider, start_sql_node

PAGE = 32768


def test_rows_as_the_server_sends_them() -> None:
    # SUM() of a BIGINT UNSIGNED comes as a DECIMAL; GROUP_CONCAT as text, or as bytes when
    # the server types it binary.
    rows = [
        ("db/def/t1", Decimal("2293760"),
         "1 655360 1200 327680 64 131072 0:262144,2:262144;2 655360 1200 327680 64 131072 1:"
         "327680,3:196608"),
        ("db/def/t2", Decimal("98304"), b"1 32768 32000 0 0 16384 -;2 32768 32000 0 0 16384 -"),
    ]
    t1, t2 = parse_table_memory(rows)
    assert t1 == TableMemory("db/def/t1", (
        TableNodeMemory(1, 655360, 1200, 327680, 64, 131072, ((0, 262144), (2, 262144))),
        TableNodeMemory(2, 655360, 1200, 327680, 64, 131072, ((1, 327680), (3, 196608)))))
    assert (t1.schema, t1.table, t1.bytes) == ("db", "t1", 2 * (655360 + 327680 + 131072))
    assert t1.in_use == t1.bytes - 2 * (1200 + 64)
    assert t1.per_node == {1: 1114112, 2: 1114112}
    assert t1.largest_fragment == (2, 1, 327680)
    assert t1.mean_fragment == 262144.0
    assert t1.skew == 1.25
    # Its own fragments hold less than it allocates: the rest is its indexes and BLOB parts.
    assert t1.own_bytes == 2 * 262144 + 327680 + 196608 < t1.bytes
    assert [n.own_bytes for n in t1.nodes] == [524288, 524288]
    # The name SQL gives it; a name of another form stays as NDB gives it.
    assert t1.sql_name == "db.t1"
    assert TableMemory("sys/def/12/PRIMARY", ()).sql_name == "sys/def/12/PRIMARY"
    assert TableMemory("orphan", ()).sql_name == "orphan"
    # A table whose own fragments are not among the rows (only its parts were seen).
    assert t2.fragment_count == 0 and t2.skew is None and t2.bytes == 2 * 49152
    assert t2.own_bytes == 0


def test_hostile_values_are_left_out_never_raise() -> None:
    huge = str(10**45)
    rows = [
        (None, Decimal(1), "1 1 0 0 0 0 -"),
        ("db/def/null_nodes", Decimal(0), None),
        ("db/def/short",),
        ("db/def/\x1b[2Jevil", Decimal(5),
         f"1 {huge} 0 0 0 0 -;2 ٣ 0 0 0 0 -;0 1 0 0 0 0 -;300 1 0 0 0 0 -;3 -1 0 0 0 0 -;"
         "4 1 0 0 0;5 1 0 0 0 0 0:x;6 1 0 0 0 0 0:1:2;7 8 0 0 0 0 0:8;7 9 0 0 0 0 0:9"),
        ("db/def/only_bad", Decimal(1), "x y z"),
    ]
    (only,) = parse_table_memory(rows)
    # The name is kept as sent (the screens escape it); of the nodes only 7 reads, once.
    assert only.fq_name == "db/def/\x1b[2Jevil"
    assert only.nodes == (TableNodeMemory(7, 8, 0, 0, 0, 0, ((0, 8),)),)
    # The largest whole number ndbtop takes from a row is read; one beyond it is not.
    assert parse_node_text(f"1 {10**41 - 1} 0 0 0 0 -") is not None
    assert parse_node_text(f"1 {10**41} 0 0 0 0 -") is None


def test_at_most_the_top_tables_largest_first() -> None:
    rows = [(f"db/def/t{i}", Decimal(i), f"1 {i} 0 0 0 0 0:{i}") for i in range(TOP_TABLES + 9)]
    tables = parse_table_memory(rows)
    assert len(tables) == TOP_TABLES
    assert tables[0].fq_name == f"db/def/t{TOP_TABLES + 8}"
    assert [t.bytes for t in tables] == sorted((t.bytes for t in tables), reverse=True)


def _view_row(name: str, parent: str | None, kind: str, table_id: int, node: int, frag: int,
              fixed: int, fixed_free: int, var: int, var_free: int, hash_: int
              ) -> tuple[object, ...]:
    """A ``memory_per_fragment`` row in the schema's column order."""
    size = 32
    return (name, parent, kind, table_id, node, frag % 2 + 1, frag, fixed, fixed_free, size,
            (fixed - fixed_free) // size, fixed_free // size, var, var_free,
            (var - var_free) // 64, hash_)


T1 = "ndbinfo/def/t1"
T1_ROWS = [
    # t1: 4 fragments on 2 nodes, 2 replicas each (8 rows); fragment 0 is the large one.
    *(_view_row(T1, None, "User table", 13, node, frag,
                (8 if frag == 0 else 2) * PAGE, 1000, PAGE, 100, 8192)
      for node in (1, 2) for frag in range(4)),
    *(_view_row("ndbinfo/def/NDB$BLOB_13_4", T1, "User table", 14, node, frag, PAGE, 0,
                4 * PAGE, 0, 8192) for node in (1, 2) for frag in range(4)),
    *(_view_row("sys/def/13/ix2$unique", T1, "Unique hash index", 15, node, frag, PAGE, 0, 0,
                0, 8192) for node in (1, 2) for frag in range(4)),
    *(_view_row("sys/def/13/PRIMARY", T1, "Ordered index", 16, node, frag, PAGE, 0, 0, 0, 0)
      for node in (1, 2) for frag in range(4)),
]
T2_ROWS = [
    # A small table; a hash index column the server left NULL (every column is nullable).
    (*_view_row("ndbinfo/def/t2", None, "User table", 20, node, 0, PAGE, 0, 0, 0, 0)[:15],
     None)
    for node in (1, 2)
]


def test_mariadb_with_the_real_columns(mariadb: MariaDbServer) -> None:
    with mariadb.admin() as cur:
        insert_rows(cur, "memory_per_fragment", T1_ROWS + T2_ROWS)
    options = MysqlOptions(host="127.0.0.1", port=mariadb.port, user=NDBTOP_USER,
                           password=NDBTOP_PASSWORD)
    collector = NdbinfoCollector(options)
    collector.connect()
    try:
        assert collector.sample().tables == ()
        collector.wanted = frozenset({"tables"})
        sample = collector.sample()
    finally:
        collector.close()
        with mariadb.admin() as cur:
            cur.execute("DELETE FROM ndbinfo.memory_per_fragment")
    t1, t2 = sample.tables
    assert t1.fq_name == T1 and t2.fq_name == "ndbinfo/def/t2"
    # t1 holds its BLOB part table and its indexes: every row of the four objects.
    assert t1.bytes == sum(r[7] + r[12] + r[15] for r in T1_ROWS)  # type: ignore[operator]
    assert t1.in_use == t1.bytes - 8 * (1000 + 100)
    assert t1.per_node == {1: t1.bytes // 2, 2: t1.bytes // 2}
    # Its own fragments only: fragment 0 (8 pages + 1 + hash) against the mean.
    assert t1.fragment_count == 8
    big, small = 9 * PAGE + 8192, 3 * PAGE + 8192
    assert t1.largest_fragment == (1, 0, big)
    assert t1.skew == big / ((big + 3 * small) / 4)
    assert t2.bytes == 2 * PAGE and t2.hash_alloc == 0


async def test_the_simulated_sql_node_serves_them_only_when_asked() -> None:
    cluster = build_scenario("node-down")
    cluster.advance(10)
    provider = SimNdbinfo(cluster)
    before, wanted = await samples_wanting(provider, {"tables"})
    assert before.tables == () and before.panel_read_at("tables") is None
    assert wanted.panel_read_at("tables") is not None
    rows = provider.rows("memory_per_fragment")
    catalogue = provider.catalogue()
    assert {r[1] for r in rows if r[1] is not None} <= {o.fq_name for o in catalogue}
    # Every table's bytes are the sum of its own rows and its parts' rows.
    for t in wanted.tables:
        mine = [r for r in rows if (r[1] or r[0]) == t.fq_name]
        assert t.bytes == sum(r[7] + r[12] + r[15] for r in mine)  # type: ignore[operator]
        assert t.fragment_count == sum(1 for r in mine if r[1] is None)
    # Node 3 is down: none of its rows; the skewed table fills the other node group first.
    assert all(3 not in t.per_node for t in wanted.tables)
    skewed = next(t for t in wanted.tables if t.fq_name == SKEWED)
    assert skewed.skew is not None and skewed.skew > 2
    assert skewed.per_node[4] > 2 * skewed.per_node[2]


async def test_the_query_keeps_the_largest_and_a_version_without_the_view_says_so() -> None:
    catalogue = build_catalogue(TOP_TABLES + 10, 2)
    rows = [(o.fq_name, None if o.parent is None else "x/def/p", "User table", o.obj_id, 1, 1,
             0, o.rows, 0, 16, 1, 0, 0, 0, 0, 0) for o in catalogue if o.obj_type == 2]
    old = (7 << 16) | (3 << 8) | 9
    for version, expect in (((8 << 16) | (4 << 8) | 3, TOP_TABLES), (old, 0)):
        server = await start_sql_node(
            StaticProvider({"memory_per_fragment": rows}, ndb_version=version), port=0)
        try:
            collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=server.port,
                                                      user="root", password=""))
            await asyncio.to_thread(collector.connect)
            collector.wanted = frozenset({"tables"})
            await asyncio.to_thread(collector.sample)
            sample = await asyncio.to_thread(collector.sample)
            collector.close()
        finally:
            await server.close()
        assert len(sample.tables) == expect
        if expect:
            largest = sorted((r[7] for r in rows if r[1] is None), reverse=True)  # type: ignore[type-var]
            assert [t.bytes for t in sample.tables][:3] == largest[:3]
        else:
            assert dict(sample.unavailable)["tables"] == (
                "ndbinfo.memory_per_fragment needs NDB 7.4.1")


def test_one_statement_with_a_limit_and_no_join() -> None:
    sql = qt.TABLE_MEMORY.sql
    assert qt.ON_DEMAND["tables"] is qt.TABLE_MEMORY
    assert sql.startswith(q.TAG) and sql.endswith(f"LIMIT {TOP_TABLES}")
    assert sql.count("FROM ndbinfo.") == 1 and "JOIN" not in sql


async def test_while_asked_for_it_is_read_again_only_every_read_every_seconds() -> None:
    cluster = build_scenario("threads")
    cluster.advance(10)
    server = await start_sql_node(SimNdbinfo(cluster), port=0)
    now = [100.0]
    try:
        # The simulated SQL node answers from this test's own loop: deadlines meant for a
        # network are given room for a machine busy with other work.
        collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=server.port,
                                                  user="root", password="",
                                                  connect_timeout=60, read_timeout=60),
                                     clock=lambda: now[0])
        await asyncio.to_thread(collector.connect)
        collector.wanted = frozenset({"tables"})
        scans = []
        for step in (0.0, 1.0, READ_EVERY - 1.5, 0.4, 0.1):
            now[0] += step
            sample = await asyncio.to_thread(collector.sample)
            scans.append((server.stats.tables["memory_per_fragment"].queries,
                          sample.panel_read_at("tables")))
        collector.close()
    finally:
        await server.close()
    # Read at 100; not at 101, 109.5 or 109.9; again at 110, READ_EVERY seconds on.
    first = scans[0][0]
    assert first >= 1 and scans[0][1] == 100.0
    assert [s for s, _ in scans[1:4]] == [first] * 3
    assert scans[4] == (first + 1, 110.0)

"""The collector against the simulated SQL node, over the MySQL protocol on a free port."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import pymysql
import pytest

from ndbtop.mgm.version import make_version
from ndbtop.model.derive import hit_ratio
from ndbtop.model.ndbinfo import NdbinfoSample, NodeLinks
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo.collector import (
    MAX_QUERIES_PER_SAMPLE,
    THREADS_UNWANTED_EVERY,
    NdbinfoCollector,
)
from ndbtop.ndbinfo.errors import (
    ClusterNotConnected,
    SqlAccessDenied,
    SqlConnectError,
    SqlConnectionLost,
)
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.scenarios import build_scenario
from ndbtop.sim.sqlnode import NdbinfoProvider, SqlNodeServer, StaticProvider, start_sql_node
from ndbtop.sim.sqlnode.schema import all_tables

T = TypeVar("T")

SLOW_TABLES = [query.table for query in q.SLOW_ROTATION]


@asynccontextmanager
async def sql_node(
    provider: NdbinfoProvider, users: Mapping[str, tuple[str, Any]] | None = None
) -> AsyncIterator[SqlNodeServer]:
    server = await start_sql_node(provider, port=0, users=users)
    try:
        yield server
    finally:
        await server.close()


def options(server: SqlNodeServer, user: str = "root", password: str = "") -> MysqlOptions:
    return MysqlOptions(host="127.0.0.1", port=server.port, user=user, password=password)


async def blocking(call: Callable[..., T], *args: Any) -> T:
    return await asyncio.to_thread(call, *args)


async def connected(server: SqlNodeServer, **login: Any) -> NdbinfoCollector:
    collector = NdbinfoCollector(options(server, **login), clock=lambda: 1234.5)
    await blocking(collector.connect)
    return collector


def _query(port: int, sql: str) -> list[tuple[Any, ...]]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="ndbinfo")
    try:
        with conn.cursor() as cursor:
            cursor.execute(sql)
            return [tuple(row) for row in cursor.fetchall()]
    finally:
        conn.close()


async def hand_query(server: SqlNodeServer, sql: str) -> list[tuple[Any, ...]]:
    return await blocking(_query, server.port, sql)


def threads_cluster() -> SimCluster:
    cluster = build_scenario("threads")
    cluster.advance(10)
    return cluster


async def test_a_sample_has_every_thread_of_both_nodes_with_names_and_blocks() -> None:
    async with sql_node(SimNdbinfo(threads_cluster())) as server:
        collector = await connected(server)
        sample = await blocking(collector.sample)
        names = await hand_query(server, "SELECT node_id, thr_no, thread_name FROM threads")
        blocks = await hand_query(
            server, "SELECT node_id, thr_no, block_name FROM threadblocks ORDER BY 1, 2"
        )
        collector.close()
    assert sample.taken_at == 1234.5
    assert sample.ndb_version == make_version(8, 4, 3)
    assert {(t.node_id, t.thr_no, t.thread_name) for t in sample.threads} == set(names)
    assert {t.node_id for t in sample.threads} == {2, 3} and len(sample.threads) == 14
    for thread in sample.threads:
        expected = [b for n, t, b in blocks if (n, t) == (thread.node_id, thread.thr_no)]
        assert thread.blocks == tuple(dict.fromkeys(expected)) != ()
        assert thread.os_tid is not None and thread.os_user_pct is not None
    assert sample.unavailable == ()


async def test_the_hottest_thread_of_the_threads_scenario_is_node_2_thread_3() -> None:
    async with sql_node(SimNdbinfo(threads_cluster())) as server:
        collector = await connected(server)
        sample = await blocking(collector.sample)
        collector.close()
    hottest = max(sample.threads, key=lambda t: t.cpu_pct)
    assert (hottest.node_id, hottest.thr_no, hottest.thread_name) == (2, 3, "ldm")
    others = [t.cpu_pct for t in sample.threads if t is not hottest]
    assert hottest.cpu_pct > max(others) + 20


async def test_a_sample_agrees_with_hand_written_sql_at_the_same_moment() -> None:
    async with sql_node(SimNdbinfo(threads_cluster())) as server:
        collector = await connected(server)
        sample = await blocking(collector.sample)
        ndb_top = await hand_query(
            server,
            "SELECT cs.node_id, cs.thr_no, ts.thread_name, cs.OS_user, cs.OS_system,"
            " cs.thread_exec, cs.thread_send, cs.thread_buffer_full,"
            " cs.thread_spinning FROM cpustat AS cs, threads AS ts"
            " WHERE cs.thr_no = ts.thr_no AND cs.node_id = ts.node_id",
        )
        ratios = await hand_query(
            server,
            "SELECT node_id, 100*SUM(page_requests_direct_return)/"
            "(SUM(page_requests_direct_return)+SUM(page_requests_wait_io))"
            " FROM diskpagebuffer GROUP BY node_id",
        )
        memory = await hand_query(
            server, "SELECT node_id, memory_type, used, total FROM memoryusage"
        )
        uptimes = await hand_query(server, "SELECT node_id, uptime FROM nodes")
        collector.close()
    mine = {
        (t.node_id, t.thr_no): (
            t.thread_name,
            t.os_user_pct,
            t.os_system_pct,
            t.exec_pct,
            t.send_pct,
            t.buffer_full_pct,
            t.spin_pct,
        )
        for t in sample.threads
    }
    assert mine == {(row[0], row[1]): row[2:] for row in ndb_top}
    by_node = {d.node_id: d for d in sample.disk_page_buffer}
    assert {
        node: hit_ratio(
            by_node[node].page_requests_direct_return, by_node[node].page_requests_wait_io
        )
        for node, _ in ratios
    } == pytest.approx({node: float(value) for node, value in ratios}, abs=1e-4)
    assert {(m.node_id, m.memory_type, m.used, m.total) for m in sample.memory} == set(memory)
    assert {(n.node_id, n.uptime_s) for n in sample.nodes} == set(uptimes)


async def test_each_sample_sends_at_most_four_queries_and_rotates_the_slow_tier() -> None:
    cluster = threads_cluster()
    async with sql_node(SimNdbinfo(cluster)) as server:
        collector = await connected(server)
        before = server.stats
        samples = []
        for _ in range(len(SLOW_TABLES)):
            sent = server.stats.statements
            samples.append(await blocking(collector.sample))
            assert server.stats.statements - sent == samples[-1].queries
            cluster.advance(1)
        after = server.stats
        collector.close()

    def reads(stats: Any, table: str) -> int:
        load = stats.tables.get(table)
        return load.queries if load else 0

    assert [s.queries for s in samples] == [3] * len(SLOW_TABLES)
    assert all(s.queries <= MAX_QUERIES_PER_SAMPLE and s.rows > 0 for s in samples)
    assert reads(after, "cpustat") - reads(before, "cpustat") == len(SLOW_TABLES)
    assert reads(after, "diskpagebuffer") - reads(before, "diskpagebuffer") == len(SLOW_TABLES)
    assert {t: reads(after, t) - reads(before, t) for t in SLOW_TABLES} == dict.fromkeys(
        SLOW_TABLES, 1
    )
    for static in ("threads", "threadblocks", "threadstat"):
        assert reads(after, static) == reads(before, static) == 1
    # Slow panels not read this time keep their last values.
    assert samples[1].nodes == samples[0].nodes and samples[0].memory and samples[1].memory


async def test_the_panels_asked_again_are_read_at_the_next_sample_only() -> None:
    # --once's second sample: the links and the disk write speeds, whose rates come from what
    # grew between two readings, are read again whatever the rotation, then the rotation
    # alone goes on.
    cluster = threads_cluster()
    async with sql_node(SimNdbinfo(cluster)) as server:
        collector = NdbinfoCollector(options(server), clock=lambda: cluster.now)
        await blocking(collector.connect)
        first = await blocking(collector.sample)
        collector.again = q.RATE_PANELS
        cluster.advance(1)
        sent = server.stats.statements
        second = await blocking(collector.sample)
        assert server.stats.statements - sent == second.queries == first.queries + 2
        assert collector.again == frozenset()
        third = await blocking(collector.sample)
        collector.close()
    for panel in q.RATE_PANELS:
        assert second.panel_read_at(panel) is not None
        assert second.panel_read_at(panel) != first.panel_read_at(panel)
    assert third.queries == first.queries


async def test_threads_nobody_wants_are_read_now_and_then() -> None:
    cluster = threads_cluster()
    async with sql_node(SimNdbinfo(cluster)) as server:
        collector = await connected(server)
        collector.threads_wanted = False
        first = await blocking(collector.sample)  # the first of a connection reads them
        cpustat = server.stats.tables["cpustat"].queries
        unwanted = []
        for _ in range(THREADS_UNWANTED_EVERY):
            cluster.advance(1)
            unwanted.append(await blocking(collector.sample))
        assert server.stats.tables["cpustat"].queries == cpustat + 1
        collector.threads_wanted = True
        cluster.advance(1)
        again = await blocking(collector.sample)
        collector.close()
    *kept, read = unwanted
    assert len(first.threads) == len(read.threads) == len(again.threads) == 14
    # Those last read, kept as they were, with the time they were read.
    assert all(s.threads is first.threads and s.queries == 2 for s in kept)
    assert {s.panel_read_at("threads") for s in kept} == {first.taken_at}
    assert all(s.disk_page_buffer for s in kept), "the other panels go on"
    assert read.queries == again.queries == 3
    assert again.threads is not read.threads


async def read_rotation(server: SqlNodeServer) -> list[tuple[NdbinfoSample, int]]:
    """One sample per slow panel, each with the rows the server sent for it."""
    collector = await connected(server)
    out = []
    for _ in range(len(SLOW_TABLES)):
        sent = server.stats.rows_sent
        out.append((await blocking(collector.sample), server.stats.rows_sent - sent))
    collector.close()
    return out


async def test_threads_come_packed_in_one_row() -> None:
    async with sql_node(SimNdbinfo(threads_cluster())) as server:
        samples = await read_rotation(server)
        cpustat = await hand_query(server, "SELECT node_id, thr_no, OS_user FROM cpustat")
    first, sent = samples[0]
    assert len(first.threads) == len(cpustat) == 14
    # cpustat and the disk page buffer sums (a row per node) and one slow panel's rows
    assert sent < len(first.threads) and first.rows >= len(first.threads)
    assert {(t.node_id, t.thr_no, t.os_user_pct) for t in first.threads} == {
        (n, t, float(user)) for n, t, user in cpustat
    }


@pytest.mark.parametrize(
    "setting",
    ["SET SESSION group_concat_max_len = 64", "SET SESSION no_such_variable = 1"],
    ids=["results-cut-by-the-server", "setting-refused"],
)
async def test_threads_are_read_row_by_row_when_packing_fails(
    monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    async with sql_node(SimNdbinfo(threads_cluster())) as server:
        packed = await read_rotation(server)
        monkeypatch.setattr(q, "SET_GROUP_CONCAT_MAX_LEN", q.Query("packing", "", setting))
        rows = await read_rotation(server)
    assert [s.threads for s, _ in rows] == [s.threads for s, _ in packed]
    assert all(sent > len(sample.threads) for sample, sent in rows)
    cut = setting.endswith("64")
    # A cut result is read again row by row at once, and row by row from then on.
    assert rows[0][0].queries == 3 + cut and [s.queries for s, _ in rows[1:3]] == [3, 3]


async def test_links_are_summed_per_data_node_as_the_table_has_them() -> None:
    cluster = threads_cluster()
    assert cluster.stop_nodes((3,)).ok
    cluster.advance(60)
    async with sql_node(SimNdbinfo(cluster)) as server:
        collector = await connected(server)
        sample = await blocking(collector.sample)
        collector.close()
        rows = await hand_query(
            server,
            "SELECT node_id, remote_node_id, status, bytes_sent, bytes_received, connect_count"
            " FROM transporters",
        )
    expected = []
    for node in sorted({row[0] for row in rows}):
        links = [row for row in rows if row[0] == node and row[1] != node]
        expected.append(
            NodeLinks(
                node,
                len(links),
                sum(row[5] for row in links),
                sum(row[3] for row in links),
                sum(row[4] for row in links),
                tuple(sorted(row[1] for row in links if row[2] != "CONNECTED")),
            )
        )
    assert sample.links == tuple(expected)
    (node2,) = sample.links
    assert node2.node_id == 2 and 3 in node2.down and 1 not in node2.down


def small_cluster(version: int = make_version(8, 4, 3)) -> StaticProvider:
    tables: dict[str, list[list[Any]]] = {
        "nodes": [[1, 2000, "STARTED", 0, 1], [2, 2000, "STARTED", 0, 1]],
        "threads": [[n, t, name, ""] for n in (1, 2) for t, name in enumerate(("main", "ldm"))],
        "threadblocks": [[n, 0, "DBTC", 0] for n in (1, 2)] + [[n, 1, "DBLQH", 1] for n in (1, 2)],
        "threadstat": [
            [n, t, name, 0, 0, 0, 0, 0, 0, 0, 100 * n + t, 10_000, 0, 0, 0, 0, 0, 0]
            for n in (1, 2)
            for t, name in enumerate(("main", "ldm"))
        ],
        "cpustat": [[n, t, 10, 2, 88, 12, 88, 0, 0, 0, 1_000_000] for n in (1, 2) for t in (0, 1)],
        "diskpagebuffer": [[n, 1, 0, 0, 0, 0, 100, 0, 10] for n in (1, 2)],
        "memoryusage": [[n, "Data memory", 32768, 1, 327680, 10] for n in (1, 2)],
    }
    return StaticProvider(tables, ndb_version=version)


async def test_an_unknown_thread_makes_the_layout_be_read_again_within_the_budget() -> None:
    provider = small_cluster()
    async with sql_node(provider) as server:
        collector = await connected(server)
        first = await blocking(collector.sample)
        provider.tables["threads"] = [*provider.tables["threads"], [2, 2, "send", "Send thread"]]
        provider.tables["cpustat"] = [
            *provider.tables["cpustat"],
            [2, 2, 0, 30, 70, 0, 40, 0, 30, 0, 1_000_000],
        ]
        second = await blocking(collector.sample)
        threadstat_before = server.stats.tables["threadstat"].queries
        third = await blocking(collector.sample)
        fourth = await blocking(collector.sample)
        threadstat_after = server.stats.tables["threadstat"].queries
        collector.close()
    assert [first.queries, second.queries, third.queries, fourth.queries] == [3, 4, 4, 3]
    send = next(t for t in second.threads if (t.node_id, t.thr_no) == (2, 2))
    assert (send.thread_name, send.blocks, send.send_pct) == ("send", (), 30.0)
    assert threadstat_after == threadstat_before + 1


async def test_a_restarted_node_makes_the_layout_be_read_again() -> None:
    provider = small_cluster()
    async with sql_node(provider) as server:
        collector = await connected(server)
        samples = [await blocking(collector.sample) for _ in range(len(SLOW_TABLES))]
        provider.tables["nodes"] = [[1, 2000, "STARTED", 0, 1], [2, 30, "STARTED", 0, 1]]
        provider.tables["threadstat"] = [
            [*row[:10], row[10] + 5000, *row[11:]] if row[0] == 2 else row
            for row in provider.tables["threadstat"]
        ]
        restarted = await blocking(collector.sample)
        layout1 = await blocking(collector.sample)
        layout2 = await blocking(collector.sample)
        collector.close()
    assert restarted.nodes[1].uptime_s == 30 and restarted.queries == 3
    assert (layout1.queries, layout2.queries) == (4, 4)
    tids = {(t.node_id, t.thr_no): t.os_tid for t in layout2.threads}
    assert tids == {(1, 0): 100, (1, 1): 101, (2, 0): 5200, (2, 1): 5201}
    assert {(t.node_id, t.thr_no): t.os_tid for t in samples[-1].threads}[(2, 1)] == 201


async def test_an_account_without_one_table_loses_only_that_panel() -> None:
    readable = set(all_tables()) - {"transporters"}
    users = {"root": ("", None), "monitor": ("pw", readable)}
    async with sql_node(SimNdbinfo(threads_cluster()), users) as server:
        collector = await connected(server, user="monitor", password="pw")
        samples = [await blocking(collector.sample) for _ in range(len(SLOW_TABLES))]
        collector.close()
    for sample in samples:
        assert sample.unavailable == (
            (
                "links",
                "no SELECT privilege on ndbinfo.transporters "
                "(needs GRANT SELECT ON ndbinfo.* TO 'monitor'@'%')",
            ),
        )
        assert sample.links == () and len(sample.threads) == 14
        assert sample.nodes and sample.memory and sample.log_spaces and sample.disk_write_speed


async def test_an_account_without_cpustat_keeps_the_other_panels() -> None:
    users = {"monitor": ("pw", set(all_tables()) - {"cpustat"})}
    async with sql_node(SimNdbinfo(threads_cluster()), users) as server:
        collector = await connected(server, user="monitor", password="pw")
        sample = await blocking(collector.sample)
        collector.close()
    assert [panel for panel, _ in sample.unavailable] == ["threads"]
    assert "ndbinfo.cpustat" in sample.unavailable[0][1]
    assert sample.threads == () and sample.disk_page_buffer and sample.nodes


async def test_a_wrong_password_is_access_denied() -> None:
    async with sql_node(SimNdbinfo(threads_cluster())) as server:
        collector = NdbinfoCollector(options(server, password="guess"))
        with pytest.raises(SqlAccessDenied) as denied:
            await blocking(collector.connect)
    assert str(denied.value) == "access denied for user 'root'@'localhost' (wrong password?)"
    assert not collector.connected


async def test_a_stopped_server_is_a_connection_error() -> None:
    async with sql_node(SimNdbinfo(threads_cluster())) as server:
        stopped = options(server)
    with pytest.raises(SqlConnectError) as refused:
        await blocking(NdbinfoCollector(stopped).connect)
    assert str(refused.value) == (
        f"cannot connect to the SQL node at 127.0.0.1:{stopped.port}: connection refused"
    )


async def test_a_server_going_away_is_a_lost_connection() -> None:
    async with sql_node(SimNdbinfo(threads_cluster())) as server:
        collector = await connected(server)
        await server.close()
        with pytest.raises(SqlConnectionLost):
            await blocking(collector.sample)
    assert not collector.connected
    with pytest.raises(SqlConnectionLost, match="not connected"):
        await blocking(collector.sample)


async def test_data_nodes_out_of_reach_fail_the_sample_not_a_panel() -> None:
    provider = small_cluster()
    async with sql_node(provider) as server:
        collector = await connected(server)
        provider.alive = 0
        with pytest.raises(ClusterNotConnected) as lost:
            await blocking(collector.sample)
        assert str(lost.value) == "the SQL node is not connected to the data nodes"
        assert not collector.connected
        with pytest.raises(ClusterNotConnected):
            await blocking(collector.connect)


async def test_before_7_5_2_thread_cpu_comes_from_threadstat_deltas() -> None:
    provider = small_cluster(make_version(7, 4, 10))
    async with sql_node(provider) as server:
        collector = await connected(server)
        first = await blocking(collector.sample)
        provider.tables["threadstat"] = [
            [
                *row[:11],
                row[11] + 2000,
                row[12] + 500_000 * (row[1] + 1),
                row[13] + 100_000,
                *row[14:],
            ]
            for row in provider.tables["threadstat"]
        ]
        second = await blocking(collector.sample)
        tables = set(server.stats.tables)
        collector.close()
    assert collector.version == make_version(7, 4, 10)
    assert "cpustat" not in tables and "threads" not in tables and "diskstat" not in tables
    assert all(t.os_user_pct is None for t in first.threads)
    cpu = {(t.node_id, t.thr_no): (t.os_user_pct, t.os_system_pct) for t in second.threads}
    assert cpu == {(n, t): (25.0 * (t + 1), 5.0) for n in (1, 2) for t in (0, 1)}
    assert [(t.thread_name, t.blocks, t.os_tid) for t in second.threads[:2]] == [
        ("main", ("DBTC",), 100),
        ("ldm", ("DBLQH",), 101),
    ]
    assert dict(second.unavailable) == {
        "disk_stat": "ndbinfo.diskstat needs NDB 8.0.19 (this is 7.4.10)",
        "config_values": "ndbinfo.config_values needs NDB 7.5.0 (this is 7.4.10)",
    }


def test_query_plans_only_name_tables_the_simulated_schema_has() -> None:
    schema = all_tables()
    plans: Sequence[q.QueryPlan] = [
        q.plan_for(v) for v in (None, make_version(7, 4, 10), make_version(8, 0, 18))
    ]
    for plan in plans:
        for query in plan.all_queries:
            assert query.table in schema


async def test_config_values_tell_the_nodes_still_on_the_old_configuration() -> None:
    cluster = build_scenario("config-change")  # generation 5 at 30 s, node 2 restarted onto it
    cluster.advance(600)
    async with sql_node(SimNdbinfo(cluster)) as server:
        rows = await hand_query(server, q.CONFIG_VALUES.sql)
        collector = await connected(server)
        sample = None
        for _ in range(60):
            sample = await blocking(collector.sample)
            if sample.config_values and sample.nodes:
                break
        collector.close()
    assert sample is not None and len(sample.config_values) == len(rows) == 40
    mgmd = {2: 12288, 3: 8192, 4: 8192, 5: 8192}
    memory = {n: int(v) >> 20 for n, p, v in sample.config_values if p == 112}
    assert memory == mgmd
    assert {n.node_id: n.config_generation for n in sample.nodes} == {2: 5, 3: 4, 4: 4, 5: 4}


async def test_the_oldest_long_transaction_is_read_in_the_background_within_the_budget() -> None:
    # lock-chain: a transaction idle ten minutes holds the locks three others wait for.
    cluster = build_scenario("lock-chain")
    now = [1000.0]
    async with sql_node(SimNdbinfo(cluster)) as server:
        collector = NdbinfoCollector(options(server), clock=lambda: now[0],
                                     background_transactions=True)
        await blocking(collector.connect)
        counts = []
        for _ in range(25):
            sent = server.stats.statements
            sample = await blocking(collector.sample)
            counts.append(server.stats.statements - sent)
            assert sample.queries <= MAX_QUERIES_PER_SAMPLE
            now[0] += 1.0
        reads = server.stats.tables["cluster_transactions"].queries
        (txn,) = sample.oldest_transaction
        assert txn.inactive_s > 60 and not sample.transactions
        # Once at the first sample and once 20 s later: not every sample.
        assert reads == 2
        # While the full table is asked for, that read names it: no second scan.
        collector.wanted = frozenset({"transactions"})
        before = server.stats.tables["cluster_transactions"].queries
        now[0] += 30.0
        await blocking(collector.sample)
        assert server.stats.tables["cluster_transactions"].queries - before == 1
        collector.close()

"""The text queries read packed into one row, row by row after a cut packed result, and
row by row on a server that refuses to pack: the same values as the typed columns give,
on the simulated SQL node and on a real MariaDB."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pymysql
import pytest
from mariadb_fixture import NDBTOP_PASSWORD, NDBTOP_USER, MariaDbServer

from ndbtop.mgm.nodeids import known_nodes
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo import rows as r
from ndbtop.ndbinfo.collector import MAX_QUERIES_PER_SAMPLE, NdbinfoCollector
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.sim.sqlnode import StaticProvider, start_sql_node

TYPED: dict[str, tuple[str, Callable[[Sequence[r.Row]], tuple[Any, ...]]]] = {
    "disk_page_buffer": (
        "SELECT node_id, SUM(page_requests_direct_return), SUM(page_requests_wait_queue),"
        " SUM(page_requests_wait_io), SUM(pages_read), SUM(pages_written),"
        " SUM(pages_written_lcp), SUM(log_waits) FROM ndbinfo.diskpagebuffer GROUP BY node_id",
        r.parse_disk_page_buffer,
    ),
    "disk_stat": (
        "SELECT node_id, SUM(reads_completed), SUM(writes_completed),"
        " SUM(log_writes_completed), SUM(get_page_reqs_issued)"
        " FROM ndbinfo.diskstat GROUP BY node_id",
        r.parse_disk_stat,
    ),
    "log_spaces": (
        "SELECT node_id, log_type, log_id, log_part, total, used FROM ndbinfo.logspaces",
        r.parse_logs,
    ),
    "log_buffers": (
        "SELECT node_id, log_type, log_id, log_part, total, used FROM ndbinfo.logbuffers",
        r.parse_logs,
    ),
    "memory": (
        "SELECT node_id, memory_type, used, used_pages, total, total_pages"
        " FROM ndbinfo.memoryusage",
        r.parse_memory,
    ),
}
"""Each text query's panel read as typed columns, as the collector read it before."""

CUT = q.Query("packing", "", "SET SESSION group_concat_max_len = 16")
REFUSED = q.Query("packing", "", "SET SESSION no_such_variable = 1")


def odd_rows(big: int) -> dict[str, list[list[Any]]]:
    """Rows with NULLs, a NULL node id, spaces in a memory type and sums of ``big`` (of
    2^32 - 1 in the INT UNSIGNED columns of ``diskstat``)."""
    big32 = min(big, 2**32 - 1)
    return {
        "nodes": [[n, 2000, "STARTED", 0, 1] for n in (1, 2, 3, 4)],
        "diskpagebuffer": [
            [1, 1, 12, 10, 17, 0, 10488, 0, 17],
            [1, 2, 0, 0, 1, 0, 1, 0, 1],
            [2, 1, 11, 9, 17, 0, 10408, 0, 17],
            [3, 1, big, big, 7, 0, big, 5, 3],
            [3, 2, big, None, 7, 0, big, None, 3],
            [4, 1, None, None, None, None, None, None, None],
            [None, 1, 1, 2, 3, 4, 5, 6, 7],
        ],
        "diskstat": [[n, i, 1, 2, n * 10 + i, 4, big32, 6, 7, 8, 9, 10]
                     for n in (1, 3) for i in range(10)]
        + [[4, 0, 1, 2, None, 4, None, 6, None, 8, None, 10]],
        "logspaces": [[n, "REDO", 0, p, 268435456, p * 1024] for n in (1, 2) for p in range(4)]
        + [[3, "DD-UNDO", 20, 0, 16 << 20, 2 << 20], [4, None, None, 1, big, None]],
        "logbuffers": [[n, "REDO", 0, 1, 16 << 20, 320 << 10] for n in (1, 2)]
        + [[3, "DD-UNDO", 20, 0, big, 0], [4, None, 0, 0, None, 0]],
        "memoryusage": [
            [1, "Data memory", 3309568, 101, 41943040, 1280],
            [1, "Long message buffer", 524288, 2048, 67108864, 262144],
            [3, " two  spaces ", big, 1, big, 2],
            [4, None, None, 1, 10, 2],
        ],
    }


def typed_panels(port: int, user: str, password: str) -> dict[str, tuple[Any, ...]]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user=user, password=password)
    try:
        with conn.cursor() as cursor:
            out = {}
            for panel, (sql, parse) in TYPED.items():
                cursor.execute(sql)
                # As a sample holds them: a NULL node id reads as 0, no node, left out.
                out[panel] = known_nodes(parse(list(cursor.fetchall())), set())
            return out
    finally:
        conn.close()


def read_panels(
    options: MysqlOptions, monkeypatch: pytest.MonkeyPatch, setting: q.Query | None
) -> tuple[dict[str, tuple[Any, ...]], list[NdbinfoSample]]:
    """Every text panel as one collector reads it (packing as ``setting`` lets it), and
    the first two samples."""
    with monkeypatch.context() as patch:
        if setting is not None:
            patch.setattr(q, "SET_GROUP_CONCAT_MAX_LEN", setting)
        collector = NdbinfoCollector(options)
        collector.threads_wanted = False
        collector.connect()
        try:
            samples = [collector.sample(), collector.sample()]
        finally:
            collector.close()
    last = samples[-1]
    return {panel: getattr(last, panel) for panel in TYPED}, samples


def check_every_way_reads_the_same(
    options: MysqlOptions, monkeypatch: pytest.MonkeyPatch, typed: dict[str, tuple[Any, ...]]
) -> None:
    packed, samples = read_panels(options, monkeypatch, None)
    cut, cut_samples = read_panels(options, monkeypatch, CUT)
    refused, refused_samples = read_panels(options, monkeypatch, REFUSED)
    assert all(typed.values()) and packed == typed
    assert cut == typed and refused == typed
    # Packed: cpustat (at a connection's first sample), the disk page buffer, a slow panel.
    assert [s.queries for s in samples] == [3, 2]
    # Cut: the disk page buffer and cpustat are read again row by row, and the slow
    # panel (cut at connect, since read row by row) waits for the next sample, which
    # reads each once.
    assert [s.queries for s in cut_samples] == [4, 2]
    assert [s.queries for s in refused_samples] == [3, 2]
    assert all(s.queries <= MAX_QUERIES_PER_SAMPLE for s in cut_samples)
    assert [s.disk_page_buffer for s in cut_samples] == [s.disk_page_buffer for s in samples]
    # Rows that read as at the last read give the values they gave then.
    assert samples[1].disk_page_buffer is samples[0].disk_page_buffer


def test_the_simulated_sql_node_reads_the_same_packed_cut_and_row_by_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The simulated SQL node holds signed 64-bit values (sums of them go past 64 bits).
    provider = StaticProvider(odd_rows(2**63 - 1), ndb_version=(8 << 16) | 19)

    async def run() -> None:
        server = await start_sql_node(provider, port=0)
        try:
            options = MysqlOptions(host="127.0.0.1", port=server.port, user="root")
            typed = await asyncio.to_thread(typed_panels, server.port, "root", "")
            await asyncio.to_thread(check_every_way_reads_the_same, options, monkeypatch, typed)
        finally:
            await server.close()

    asyncio.run(run())


@contextmanager
def odd_rows_added(server: MariaDbServer) -> Iterator[None]:
    """The fixture's rows with those of nodes 3, 4 and NULL of :func:`odd_rows` beside
    them, and a version that has ``diskstat``."""
    added = odd_rows(2**64 - 1)
    with server.admin() as cur:
        for table in ("diskpagebuffer", "diskstat", "logspaces", "logbuffers", "memoryusage"):
            for row in added[table]:
                if table == "diskstat" or row[0] is None or row[0] >= 3:
                    marks = ", ".join(["%s"] * len(row))
                    cur.execute(f"INSERT INTO ndbinfo.{table} VALUES ({marks})", row)
        cur.execute("SELECT node_version FROM ndbinfo.processes")
        versions = {v for (v,) in cur.fetchall()}
        cur.execute("UPDATE ndbinfo.processes SET node_version = 'mysql-8.0.19 ndb-8.0.19'")
    try:
        yield
    finally:
        with server.admin() as cur:
            cur.execute("DELETE FROM ndbinfo.diskstat")
            for table in ("diskpagebuffer", "logspaces", "logbuffers", "memoryusage"):
                cur.execute(f"DELETE FROM ndbinfo.{table} WHERE node_id IS NULL OR node_id >= 3")
            (version,) = versions
            cur.execute("UPDATE ndbinfo.processes SET node_version = %s", (version,))


def test_mariadb_reads_the_same_packed_cut_and_row_by_row(
    mariadb: MariaDbServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = MysqlOptions(
        host="127.0.0.1", port=mariadb.port, user=NDBTOP_USER, password=NDBTOP_PASSWORD
    )
    with odd_rows_added(mariadb):
        typed = typed_panels(mariadb.port, NDBTOP_USER, NDBTOP_PASSWORD)
        check_every_way_reads_the_same(options, monkeypatch, typed)
        with mariadb.admin() as cur:
            cur.execute(q.DISK_PAGE_BUFFER.packed or "")
            ((count, text),) = cur.fetchall()
    # A real server's text of DECIMAL sums: digits only, past 64 bits; NULL sums empty.
    assert count == 5
    assert sorted(text.split(";")) == [
        " 5 6 7 3 1 2 4",
        "1 10489 0 18 18 12 10 0",
        "2 10409 0 18 18 11 9 0",
        f"3 {2 * (2**64 - 1)} 5 6 14 {2 * (2**64 - 1)} {2**64 - 1} 0",
        "4       ",
    ]


def test_a_result_grown_past_the_packed_length_falls_back_within_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = odd_rows(7)
    tables["logspaces"] = tables["logspaces"][:1]
    tables["cpustat"] = [[1, 0, 10, 2, 88, 12, 88, 0, 0, 0, 1_000_000]]
    tables["threads"] = [[1, t, "ldm", ""] for t in range(40)]
    provider = StaticProvider(tables, ndb_version=(8 << 16) | 19)
    monkeypatch.setattr(q, "SET_GROUP_CONCAT_MAX_LEN", q.Query(
        "packing", "", "SET SESSION group_concat_max_len = 300"
    ))
    slow = [query.panel for query in q.SLOW_ROTATION]

    def samples(port: int) -> tuple[list[NdbinfoSample], NdbinfoSample]:
        collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=port, user="root"))
        collector.connect()
        try:
            before = [collector.sample() for _ in range(slow.index("log_spaces"))]
            # Both outgrow 300 bytes: cpustat is read again row by row, and the log
            # spaces would be too, one statement past the budget: they wait a sample.
            provider.tables["cpustat"] = [[1, t, 10, 2, 88, 12, 88, 0, 0, 0, 1_000_000]
                                 for t in range(40)]
            provider.tables["logspaces"] = [[1, "REDO", 0, p, 268435456, p] for p in range(40)]
            return [*before, collector.sample(), collector.sample()], collector.sample()
        finally:
            collector.close()

    async def run() -> tuple[list[NdbinfoSample], NdbinfoSample, dict[str, Any]]:
        server = await start_sql_node(provider, port=0)
        try:
            got, after = await asyncio.to_thread(samples, server.port)
            typed = await asyncio.to_thread(typed_panels, server.port, "root", "")
            return got, after, typed
        finally:
            await server.close()

    got, after, typed = asyncio.run(run())
    assert [s.queries for s in got] == [3] * (len(got) - 2) + [3, 4]
    assert len(got[-2].log_spaces) == 1 and len(got[-1].threads) == 40
    assert got[-1].log_spaces == typed["log_spaces"] and len(typed["log_spaces"]) == 40
    assert after.queries == 3

"""The simulated SQL node over the wire: pymysql against a server on a free port."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from decimal import Decimal
from typing import Any

import pymysql
import pytest
from pymysql.constants import FIELD_TYPE, FLAG

from ndbtop.sim.sqlnode import SqlNodeServer, StaticProvider, TableLoad, start_sql_node

V8_4_3 = (8 << 16) | (4 << 8) | 3
V7_6_9 = (7 << 16) | (6 << 8) | 9

_DESCRIPTIONS = {
    "main": "main thread, schema and distribution handling",
    "rep": "rep thread, asynch replication and proxy block handling",
    "ldm": "ldm thread, handling a set of data partitions",
    "recv": "receive thread, performing receieve and polling for new receives",
}
_THREADS = ("main", "rep", "ldm", "recv")

# Rows from real clusters quoted in ndbinfo.md §7 (B-PRO, B-LAB, T-76); the
# cpustat columns the sources do not show are filled in.
TABLES: dict[str, list[list[Any]]] = {
    "nodes": [[1, 2000, "STARTED", 0, 1], [2, 2000, "STARTED", 0, 1]],
    "threads": [
        [n, t, name, _DESCRIPTIONS[name]] for n in (1, 2) for t, name in enumerate(_THREADS)
    ],
    "cpustat": [
        [n, t, user, system, idle, 10 + t, 80, t, 5, 0, 1_000_000]
        for n in (1, 2)
        for t, (user, system, idle) in enumerate(((0, 1, 99), (0, 1, 99), (0, 1, 99), (2, 2, 96)))
    ],
    "diskpagebuffer": [
        [1, 1, 0, 0, 0, 0, 10488, 0, 17],
        [1, 2, 0, 0, 0, 0, 1, 0, 1],
        [2, 1, 0, 0, 0, 0, 10408, 0, 17],
        [2, 2, 0, 0, 0, 0, 1, 0, 1],
    ],
    "memoryusage": [
        [1, "Data memory", 3309568, 101, 41943040, 1280],
        [1, "Long message buffer", 524288, 2048, 67108864, 262144],
        [2, "Data memory", 3309568, 101, 41943040, 1280],
        [2, "Long message buffer", 393216, 1536, 67108864, 262144],
    ],
    "config_values": [[1, 106, "2048"], [1, 112, "31457280"], [2, 106, "2048"]],
    "transporters": [
        [1, 2, "CONNECTED", "192.168.56.104", 139508260123, 117712512, 1, 0, 0, 0, 0, 0],
        [2, 1, "CONNECTED", "192.168.56.103", 117712512, 139508260123, 4294967039, 0, 0, 0, 0, 1],
    ],
    "ndb$pools": [[1, 254, 0, "Long message buffer", 0, 16384, 0, 256, 157, 0, 0, 0, 0, 0]],
}

NDB_TOP_QUERY = (
    "SELECT cs.thr_no, ts.thread_name, cs.OS_user, cs.OS_system, cs.OS_idle, cs.thread_exec, "
    "cs.thread_send, cs.thread_buffer_full, cs.thread_sleeping, cs.elapsed_time, "
    "cs.thread_spinning FROM cpustat as cs, threads as ts "
    "WHERE cs.node_id = {node} AND cs.thr_no = ts.thr_no AND cs.node_id = ts.node_id"
)

HIT_RATIO_QUERY = (
    "SELECT node_id, 100*SUM(page_requests_direct_return)/"
    "(SUM(page_requests_direct_return)+SUM(page_requests_wait_io)) AS hit_ratio "
    "FROM ndbinfo.diskpagebuffer GROUP BY node_id"
)


class Result:
    """What a statement returned: fields, rows and the warning count."""

    def __init__(self, cursor: pymysql.cursors.Cursor) -> None:
        # pymysql's public description leaves out flags and origins; its Field objects keep them.
        self.fields = list(getattr(cursor._result, "fields", None) or [])
        self.rows = [tuple(r) for r in cursor.fetchall()]
        self.warning_count = cursor.warning_count

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]


def _run(
    port: int,
    statements: Sequence[str],
    user: str = "root",
    password: str = "",
    database: str | None = "ndbinfo",
) -> list[Result]:
    connection = pymysql.connect(
        host="127.0.0.1",
        port=port,
        user=user,
        password=password,
        database=database,
        connect_timeout=10,
        read_timeout=10,
    )
    try:
        results = []
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
                results.append(Result(cursor))
        return results
    finally:
        connection.close()


async def run(server: SqlNodeServer, *statements: str, **login: Any) -> list[Result]:
    return await asyncio.to_thread(_run, server.port, statements, **login)


async def one(server: SqlNodeServer, statement: str, **login: Any) -> Result:
    return (await run(server, statement, **login))[0]


async def error_of(server: SqlNodeServer, *statements: str, **login: Any) -> tuple[int, str]:
    with pytest.raises(pymysql.MySQLError) as caught:
        await run(server, *statements, **login)
    code, message = caught.value.args[:2]
    return code, message


@pytest.fixture
def provider() -> StaticProvider:
    return StaticProvider(TABLES, ndb_version=V8_4_3, alive=2)


@pytest.fixture
async def server(provider: StaticProvider) -> AsyncIterator[SqlNodeServer]:
    node = await start_sql_node(
        provider,
        users={"root": ("", None), "monitor": ("s3cret", {"nodes", "memoryusage", "threads"})},
    )
    yield node
    await node.close()


async def test_ndb_top_cpu_query_joins_cpustat_and_threads(server: SqlNodeServer) -> None:
    result = await one(server, NDB_TOP_QUERY.format(node=1))
    assert result.names == [
        "thr_no",
        "thread_name",
        "OS_user",
        "OS_system",
        "OS_idle",
        "thread_exec",
        "thread_send",
        "thread_buffer_full",
        "thread_sleeping",
        "elapsed_time",
        "thread_spinning",
    ]
    assert sorted(result.rows) == [
        (0, "main", 0, 1, 99, 10, 5, 0, 80, 1_000_000, 0),
        (1, "rep", 0, 1, 99, 11, 5, 0, 80, 1_000_000, 1),
        (2, "ldm", 0, 1, 99, 12, 5, 0, 80, 1_000_000, 2),
        (3, "recv", 2, 2, 96, 13, 5, 0, 80, 1_000_000, 3),
    ]


async def test_hit_ratio_group_by_over_known_rows(server: SqlNodeServer) -> None:
    grouped, per_row = await run(
        server,
        HIT_RATIO_QUERY,
        "SELECT node_id, block_instance, page_requests_direct_return AS PageDirectReturn, "
        "page_requests_wait_io AS PageWaitIo, ROUND(100*page_requests_direct_return/"
        "(page_requests_direct_return+page_requests_wait_io),2) AS CacheHitPct "
        "FROM diskpagebuffer ORDER BY node_id, block_instance",
    )
    # 100*10489/10507 and 100*10409/10427, to div_precision_increment (4) digits.
    assert sorted(grouped.rows) == [(1, Decimal("99.8287")), (2, Decimal("99.8274"))]
    # The CacheHitPct column of B-PRO's real output.
    assert per_row.rows == [
        (1, 1, 10488, 17, Decimal("99.84")),
        (1, 2, 1, 1, Decimal("50.00")),
        (2, 1, 10408, 17, Decimal("99.84")),
        (2, 2, 1, 1, Decimal("50.00")),
    ]


async def test_where_order_by_and_limit(server: SqlNodeServer) -> None:
    top, page, counted = await run(
        server,
        "SELECT thr_no, thread_name FROM threads WHERE node_id = 2 AND thread_name <> 'main' "
        "ORDER BY thr_no DESC LIMIT 2",
        "SELECT node_id, thr_no FROM threads ORDER BY node_id DESC, thr_no LIMIT 3, 2",
        "SELECT node_id, COUNT(*) AS n FROM threads WHERE thread_name IN ('ldm', 'RECV') "
        "GROUP BY node_id HAVING n > 1 ORDER BY node_id",
    )
    assert top.rows == [(3, "recv"), (2, "ldm")]
    assert page.rows == [(2, 3), (1, 0)]
    # String comparison ignores case, as ndbinfo's latin1_swedish_ci collation does.
    assert counted.rows == [(1, 2), (2, 2)]


async def test_comma_join_with_built_in_config_params(server: SqlNodeServer) -> None:
    result = await one(
        server,
        "select node_id, param_name, config_param, config_value "
        "from ndbinfo.config_values cv, ndbinfo.config_params cp "
        "where cv.config_param = cp.param_number "
        "and cp.param_name = 'MaxNoOfConcurrentTransactions' order by node_id",
    )
    # The same statement and answer as mysql-test ndbinfo.result (ndbinfo.md §7.1).
    assert result.rows == [
        (1, "MaxNoOfConcurrentTransactions", 106, "2048"),
        (2, "MaxNoOfConcurrentTransactions", 106, "2048"),
    ]


async def test_unknown_table_and_wrong_case_fail_with_1146(server: SqlNodeServer) -> None:
    assert await error_of(server, "SELECT * FROM Nodes") == (
        1146,
        "Table 'ndbinfo.Nodes' doesn't exist",
    )
    assert await error_of(server, "SELECT * FROM no_such_table") == (
        1146,
        "Table 'ndbinfo.no_such_table' doesn't exist",
    )
    assert await error_of(server, "SELECT * FROM other.nodes") == (
        1146,
        "Table 'other.nodes' doesn't exist",
    )


async def test_table_newer_than_the_version_does_not_exist(provider: StaticProvider) -> None:
    old = StaticProvider(TABLES, ndb_version=V7_6_9)
    async with await start_sql_node(old) as node:
        code, message = await error_of(node, "SELECT * FROM cpudata")
        assert (code, message) == (1146, "Table 'ndbinfo.cpudata' doesn't exist")
        version, tables, blocks = await run(
            node,
            "SELECT @@ndbinfo_version, @@version",
            "SHOW TABLES LIKE 'cpu%'",
            "SELECT COUNT(*) FROM blocks WHERE block_name LIKE 'DBQ%'",
        )
    assert version.rows == [(V7_6_9, "7.6.9-cluster")]
    assert [r[0] for r in tables.rows] == [
        "cpustat",
        "cpustat_1sec",
        "cpustat_20sec",
        "cpustat_50ms",
    ]
    assert blocks.rows == [(0,)]


async def test_wrong_password_and_unknown_user_are_refused(server: SqlNodeServer) -> None:
    assert await error_of(server, "SELECT 1", user="monitor", password="wrong") == (
        1045,
        "Access denied for user 'monitor'@'localhost' (using password: YES)",
    )
    assert await error_of(server, "SELECT 1", user="nobody", password="") == (
        1045,
        "Access denied for user 'nobody'@'localhost' (using password: NO)",
    )
    assert await error_of(server, "SELECT 1", user="root", password="guess") == (
        1045,
        "Access denied for user 'root'@'localhost' (using password: YES)",
    )
    result = await one(server, "SELECT COUNT(*) FROM nodes", user="monitor", password="s3cret")
    assert result.rows == [(2,)]


async def test_missing_privilege_on_a_view_and_on_a_base_table(server: SqlNodeServer) -> None:
    login = {"user": "monitor", "password": "s3cret"}
    assert await error_of(server, "SELECT * FROM cpustat", **login) == (
        1356,
        "View 'ndbinfo.cpustat' references invalid table(s) or column(s) or function(s) "
        "or definer/invoker of view lack rights to use them",
    )
    assert await error_of(server, "SELECT * FROM ndb$pools", **login) == (
        1142,
        "SELECT command denied to user 'monitor'@'localhost' for table 'ndb$pools'",
    )
    assert await error_of(
        server, "SELECT * FROM nodes n JOIN cpustat c ON n.node_id = c.node_id", **login
    ) == (
        1356,
        "View 'ndbinfo.cpustat' references invalid table(s) or column(s) or function(s) "
        "or definer/invoker of view lack rights to use them",
    )
    tables = await one(server, "SHOW TABLES", **login)
    assert tables.rows == [("memoryusage",), ("nodes",), ("threads",)]


async def test_no_alive_data_node_gives_error_157_but_lookups_answer(
    server: SqlNodeServer, provider: StaticProvider
) -> None:
    provider.alive = 0
    assert await error_of(server, "SELECT * FROM nodes") == (
        1296,
        "Got error 157 'Connection to NDB failed' from NDBINFO",
    )
    blocks, params, types, messages, tc, lqh, plain = await run(
        server,
        "SELECT block_number FROM blocks WHERE block_name = 'DBTC'",
        "SELECT param_name FROM config_params WHERE param_number = 101",
        "SELECT * FROM dict_obj_types WHERE type_id < 4",
        "SELECT * FROM error_messages WHERE error_code = 920",
        "SELECT state_friendly_name FROM ndb$dbtc_apiconnect_state WHERE state_int_value = 2",
        "SELECT state_friendly_name FROM ndb$dblqh_tcconnect_state WHERE state_int_value = 7",
        "SELECT 1 + 1",
    )
    assert blocks.rows == [(245,)]
    assert params.rows == [("NoOfReplicas",)]
    assert types.rows == [(1, "System table"), (2, "User table"), (3, "Unique hash index")]
    assert messages.rows == [
        (920, "Row operation defined after refreshTuple()", "Permanent error", "Application error")
    ]
    assert tc.rows == [("Started",)]
    assert lqh.rows == [("Prepared",)]
    assert plain.rows == [(2,)]
    provider.alive = 1
    assert (await one(server, "SELECT COUNT(*) FROM nodes")).rows == [(2,)]


async def test_offline_mode_returns_no_rows_and_a_note(
    server: SqlNodeServer, provider: StaticProvider
) -> None:
    assert await error_of(server, "SET ndbinfo_offline = ON") == (
        1229,
        "Variable 'ndbinfo_offline' is a GLOBAL variable and should be set with SET GLOBAL",
    )
    provider.alive = 0
    _, rows, warnings, variable = await run(
        server,
        "SET GLOBAL ndbinfo_offline = ON",
        "SELECT * FROM nodes",
        "SHOW WARNINGS",
        "SELECT @@ndbinfo_offline",
    )
    assert server.offline
    assert rows.rows == []
    assert rows.warning_count == 1
    assert warnings.rows == [
        (
            "Note",
            1,
            "'NDBINFO' has been started in offline mode since the 'NDBCLUSTER' engine is "
            "disabled or @@global.ndbinfo_offline is turned on - no rows can be returned",
        )
    ]
    assert variable.rows == [(1,)]
    server.offline = False
    provider.alive = 2
    assert (await one(server, "SELECT COUNT(*) FROM nodes")).rows == [(2,)]


async def test_types_are_those_a_real_server_sends(server: SqlNodeServer) -> None:
    transporters, memory, computed = await run(
        server,
        "SELECT node_id, remote_address, bytes_sent, connect_count FROM transporters "
        "ORDER BY node_id",
        "SELECT node_id, memory_type, used, ROUND(100*used/total, 2) AS used_pct "
        "FROM memoryusage WHERE memory_type = 'Data memory' AND node_id = 1",
        "SELECT COUNT(*), SUM(bytes_sent), MAX(connect_count), AVG(node_id), "
        "MIN(node_id) = 1 FROM transporters",
    )
    assert transporters.rows == [
        (1, "192.168.56.104", 139508260123, 1),
        (2, "192.168.56.103", 117712512, 4294967039),
    ]
    node_id, address, sent, connects = transporters.fields
    assert (node_id.type_code, sent.type_code, connects.type_code) == (
        FIELD_TYPE.LONG,
        FIELD_TYPE.LONGLONG,
        FIELD_TYPE.LONG,
    )
    assert all(f.flags & FLAG.UNSIGNED for f in (node_id, sent, connects))
    assert address.type_code == FIELD_TYPE.VAR_STRING
    assert (node_id.org_table, node_id.org_name, node_id.db) == (
        "transporters",
        "node_id",
        b"ndbinfo",
    )

    assert memory.rows == [(1, "Data memory", Decimal("3309568"), Decimal("7.89"))]
    assert [f.type_code for f in memory.fields[2:]] == [FIELD_TYPE.NEWDECIMAL] * 2
    assert memory.fields[3].scale == 2

    count, total, most, mean, flag = computed.rows[0]
    assert (count, total, most, mean, flag) == (
        2,
        Decimal(139625972635),
        4294967039,
        Decimal("1.5000"),
        1,
    )
    assert type(count) is int and type(most) is int
    count_field, sum_field = computed.fields[:2]
    assert count_field.type_code == FIELD_TYPE.LONGLONG and not count_field.flags & FLAG.UNSIGNED
    assert sum_field.type_code == FIELD_TYPE.NEWDECIMAL


async def test_column_names_are_the_expressions_as_typed(server: SqlNodeServer) -> None:
    result = await one(
        server,
        "SELECT count(*), 100*SUM(uptime) / 2, n.node_id, status s, 'text', @@version_comment "
        "FROM nodes AS n GROUP BY n.node_id, status",
    )
    assert result.names == [
        "count(*)",
        "100*SUM(uptime) / 2",
        "node_id",
        "s",
        "text",
        "@@version_comment",
    ]


async def test_what_the_mysql_client_sends_on_connect(server: SqlNodeServer) -> None:
    comment, databases = await run(
        server, "select @@version_comment limit 1", "SHOW DATABASES", database=None
    )
    assert comment.names == ["@@version_comment"]
    assert comment.rows == [("MySQL Cluster Community Server - GPL",)]
    assert ("ndbinfo",) in databases.rows and ("information_schema",) in databases.rows


async def test_show_variables_and_server_variables(server: SqlNodeServer) -> None:
    shown, global_, values = await run(
        server,
        "SHOW VARIABLES LIKE 'ndbinfo\\_%'",
        "SHOW GLOBAL VARIABLES LIKE 'NDBINFO_V%'",
        "SELECT @@ndbinfo_version, @@version, @@version_comment",
    )
    assert shown.rows == [
        ("ndbinfo_database", "ndbinfo"),
        ("ndbinfo_max_bytes", "0"),
        ("ndbinfo_max_rows", "10"),
        ("ndbinfo_offline", "OFF"),
        ("ndbinfo_show_hidden", "OFF"),
        ("ndbinfo_table_prefix", "ndb$"),
        ("ndbinfo_version", str(V8_4_3)),
    ]
    assert global_.rows == [("ndbinfo_version", "525315")]
    assert values.rows == [(525315, "8.4.3-cluster", "MySQL Cluster Community Server - GPL")]
    assert await error_of(server, "SET ndbinfo_version = 1") == (
        1238,
        "Variable 'ndbinfo_version' is a read only variable",
    )
    assert await error_of(server, "SELECT @@no_such_variable") == (
        1193,
        "Unknown system variable 'no_such_variable'",
    )


async def test_show_tables_hides_base_tables_unless_show_hidden(server: SqlNodeServer) -> None:
    hidden, _, scopes, shown, full, rows = await run(
        server,
        "SHOW TABLES LIKE 'ndb$%'",
        "SET ndbinfo_show_hidden = ON",
        "SELECT @@ndbinfo_show_hidden, @@global.ndbinfo_show_hidden",
        "SHOW TABLES LIKE 'ndb$po%'",
        "SHOW FULL TABLES LIKE 'node%'",
        "SELECT pool_name, total FROM ndb$pools",
    )
    assert hidden.rows == []
    assert scopes.rows == [(1, 0)]
    assert shown.names == ["Tables_in_ndbinfo (ndb$po%)"]
    assert shown.rows == [("ndb$pools",)]
    assert full.rows == [("nodes", "VIEW")]
    assert rows.rows == [("Long message buffer", 16384)]


async def test_database_comes_from_handshake_use_or_prefix(server: SqlNodeServer) -> None:
    code, message = await error_of(server, "SELECT * FROM nodes", database=None)
    assert (code, message) == (1046, "No database selected")
    prefixed, _, used = await run(
        server,
        "SELECT COUNT(*) FROM ndbinfo.nodes",
        "USE ndbinfo",
        "SELECT COUNT(*) FROM nodes",
        database=None,
    )
    assert prefixed.rows == used.rows == [(2,)]
    assert await error_of(server, "USE nosuchdb") == (1049, "Unknown database 'nosuchdb'")


async def test_sql_errors_carry_mysql_codes(server: SqlNodeServer) -> None:
    assert await error_of(server, "SELECT no_such_column FROM nodes") == (
        1054,
        "Unknown column 'no_such_column' in 'field list'",
    )
    assert await error_of(server, "SELECT node_id FROM nodes, threads") == (
        1052,
        "Column 'node_id' in field list is ambiguous",
    )
    assert await error_of(server, "UPDATE nodes SET uptime = 0") == (
        1036,
        "Table 'nodes' is read only",
    )
    code, message = await error_of(server, "SELEC 1")
    assert code == 1064
    assert message.startswith("You have an error in your SQL syntax")


async def test_stats_count_statements_scans_and_rows(server: SqlNodeServer) -> None:
    before = server.stats
    await run(
        server,
        NDB_TOP_QUERY.format(node=2),
        "SELECT COUNT(*) FROM nodes",
        "SELECT a.node_id FROM nodes a JOIN nodes b ON a.node_id = b.node_id",
    )
    with pytest.raises(pymysql.MySQLError):
        await run(server, "SELECT * FROM Nodes")
    delta = server.stats.since(before)
    assert delta.connections == 2
    assert delta.errors == 1
    # pymysql sends SET AUTOCOMMIT once per connection.
    assert delta.statements == 4 + 2
    assert dict(delta.tables) == {
        "cpustat": TableLoad(queries=1, rows=8),
        "threads": TableLoad(queries=1, rows=8),
        "nodes": TableLoad(queries=3, rows=6),
    }
    assert delta.table_queries == 5
    assert delta.rows_scanned == 22
    assert delta.rows_sent == 4 + 1 + 2


async def test_close_drops_connected_clients(provider: StaticProvider) -> None:
    node = await start_sql_node(provider)
    connection = await asyncio.to_thread(
        pymysql.connect,
        host="127.0.0.1",
        port=node.port,
        user="root",
        database="ndbinfo",
        read_timeout=10,
    )
    try:
        await node.close()

        def query() -> None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")

        with pytest.raises(pymysql.err.OperationalError):
            await asyncio.to_thread(query)
    finally:
        connection.close()


async def test_a_stalled_sql_node_answers_nothing_until_the_stall_is_lifted(
    provider: StaticProvider,
) -> None:
    node = await start_sql_node(provider)

    def connect(read_timeout: float = 0.3) -> pymysql.connections.Connection:
        return pymysql.connect(
            host="127.0.0.1", port=node.port, user="root", database="ndbinfo",
            connect_timeout=2, read_timeout=read_timeout,
        )

    def query(conn: pymysql.connections.Connection) -> tuple[Any, ...]:
        with conn.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM nodes")
            return tuple(cursor.fetchall())

    querying, pinging = await asyncio.to_thread(connect), await asyncio.to_thread(connect)
    try:
        node.stall = True
        # Connected clients get no answer to a statement, nor to a ping.
        with pytest.raises(pymysql.err.OperationalError):
            await asyncio.to_thread(query, querying)
        with pytest.raises(pymysql.err.OperationalError):
            await asyncio.to_thread(pinging.ping, False)
        # A new client is accepted but never greeted.
        with pytest.raises(pymysql.err.OperationalError):
            await asyncio.to_thread(connect)
        node.stall = False
        assert (await one(node, "SELECT COUNT(*) FROM nodes")).rows == [(2,)]
    finally:
        querying.close()
        pinging.close()
        # Clients left hanging by the stall do not keep close() waiting.
        await asyncio.wait_for(node.close(), timeout=3)

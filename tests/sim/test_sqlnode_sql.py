"""The simulated SQL node's SQL layer without a socket: types, names, lookups, engine."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
import sqlglot

from ndbtop.sim.sqlnode.engine import run_select
from ndbtop.sim.sqlnode.errors import SqlNodeError
from ndbtop.sim.sqlnode.lookups import built_in_rows
from ndbtop.sim.sqlnode.resulttypes import describe_query
from ndbtop.sim.sqlnode.schema import all_tables, tables_for_version
from ndbtop.sim.sqlnode.selectlist import select_item_texts
from ndbtop.sim.sqlnode.session import like_regex
from ndbtop.sim.sqlnode.sqltypes import Kind, SqlType, format_decimal, parse_column_type

V8_4_3 = (8 << 16) | (4 << 8) | 3
TABLES = tables_for_version(V8_4_3)


def _describe(expression: str, table: str = "memoryusage") -> SqlType | None:
    statement = sqlglot.parse_one(f"SELECT {expression} FROM {table}", read="mysql")
    outputs = describe_query(statement, TABLES)
    assert outputs is not None
    return outputs[0].type


@pytest.mark.parametrize(
    ("expression", "kind", "unsigned", "scale"),
    [
        ("node_id", Kind.INT, True, 0),
        ("used", Kind.DECIMAL, False, 0),
        ("memory_type", Kind.STRING, False, 0),
        ("COUNT(*)", Kind.INT, False, 0),
        ("MAX(node_id)", Kind.INT, True, 0),
        ("SUM(node_id)", Kind.DECIMAL, False, 0),
        ("AVG(node_id)", Kind.DECIMAL, False, 4),
        ("100*used/total", Kind.DECIMAL, False, 4),
        ("ROUND(100*used/total, 2)", Kind.DECIMAL, False, 2),
        ("node_id + 1", Kind.INT, True, 0),
        ("node_id - 1.5", Kind.DECIMAL, False, 1),
        ("node_id / 2", Kind.DECIMAL, False, 4),
        ("node_id DIV 2", Kind.INT, True, 0),
        ("node_id & 255", Kind.INT, True, 0),
        ("node_id = 1", Kind.INT, False, 0),
        ("IF(node_id > 1, node_id, 0.25)", Kind.DECIMAL, False, 2),
        ("CASE WHEN node_id = 1 THEN 'a' ELSE 'bb' END", Kind.STRING, False, 0),
        ("CONCAT(node_id, 'M')", Kind.STRING, False, 0),
        ("CAST(used AS UNSIGNED)", Kind.INT, True, 0),
        ("1e3", Kind.DOUBLE, False, 0),
        ("SQRT(node_id)", Kind.DOUBLE, False, 0),
        ("(SELECT MAX(uptime) FROM nodes)", Kind.INT, True, 0),
    ],
)
def test_result_types_follow_mysql_rules(
    expression: str, kind: Kind, unsigned: bool, scale: int
) -> None:
    described = _describe(expression)
    assert described is not None
    assert (described.kind, described.unsigned, described.scale) == (kind, unsigned, scale)


def test_int_and_bigint_columns_keep_their_width() -> None:
    node_id, uptime = (_describe(c, "nodes") for c in ("node_id", "uptime"))
    assert node_id is not None and not node_id.wide
    assert uptime is not None and uptime.wide and uptime.unsigned


def test_star_expands_in_schema_order_per_table() -> None:
    statement = sqlglot.parse_one(
        "SELECT t.*, n.status FROM threads t JOIN nodes n ON t.node_id = n.node_id", read="mysql"
    )
    outputs = describe_query(statement, TABLES)
    assert outputs is not None
    assert [o.name for o in outputs] == [
        "node_id",
        "thr_no",
        "thread_name",
        "thread_description",
        "status",
    ]


def test_every_schema_type_is_understood() -> None:
    kinds = {c.type.kind for t in all_tables().values() for c in t.columns}
    assert kinds == {Kind.INT, Kind.DECIMAL, Kind.STRING}
    assert parse_column_type("int unsigned") == SqlType(Kind.INT, unsigned=True, wide=False)
    assert parse_column_type("decimal(42,0)").precision == 42
    assert parse_column_type("enum('NOT NULL','NULL')").flavour == "enum"
    with pytest.raises(ValueError, match="unknown column type"):
        parse_column_type("geometry")


def test_tables_exist_from_their_since_version() -> None:
    v7_5 = tables_for_version((7 << 16) | (5 << 8) | 0)
    assert "cpustat" in v7_5 and "error_messages" not in v7_5 and "cpudata" not in v7_5
    assert "certificates" in TABLES and "certificates" not in tables_for_version(8 << 16)
    assert TABLES["nodes"].is_view and not TABLES["ndb$pools"].is_view
    assert not TABLES["dictionary_tables"].is_view
    assert TABLES["ndb$pools"].is_hidden and not TABLES["blocks"].reads_data_nodes


@pytest.mark.parametrize(
    ("sql", "texts"),
    [
        (
            "/* ndbtop */ SELECT DISTINCT count(*),  100*SUM(a)/(SUM(b)+1) AS x FROM t",
            ("count(*)", "100*SUM(a)/(SUM(b)+1) AS x"),
        ),
        ("select @@version_comment limit 1", ("@@version_comment",)),
        ("SELECT IF(a, 1, 2), CONCAT(a, ',') FROM t WHERE b", ("IF(a, 1, 2)", "CONCAT(a, ',')")),
        ("SELECT 1; SELECT 2", None),
        ("SHOW TABLES", None),
    ],
)
def test_select_item_texts_are_verbatim(sql: str, texts: tuple[str, ...] | None) -> None:
    assert select_item_texts(sql) == texts


@pytest.mark.parametrize(
    ("value", "scale", "text"),
    [
        (99.82868, 4, "99.8287"),
        (Decimal("2.345"), 2, "2.35"),
        (-2.5, 0, "-3"),
        (7, 2, "7.00"),
        ("12.5", 1, "12.5"),
        ("abc", 1, None),
    ],
)
def test_decimals_are_written_with_their_scale(value: object, scale: int, text: str | None) -> None:
    assert format_decimal(value, scale) == text


def test_like_patterns_honour_escapes_and_case() -> None:
    assert like_regex("ndbinfo\\_%", ignore_case=True).fullmatch("NDBINFO_version")
    assert not like_regex("ndbinfo\\_%", ignore_case=True).fullmatch("ndbinfoXversion")
    assert not like_regex("ndb$te%", ignore_case=False).fullmatch("NDB$test")
    assert like_regex("c_u%", ignore_case=False).fullmatch("cpustat")


def test_built_in_lookups_follow_the_version() -> None:
    old_blocks = built_in_rows("blocks", (8 << 16) | 22)
    new_blocks = built_in_rows("blocks", V8_4_3)
    assert old_blocks is not None and new_blocks is not None
    assert (245, "DBTC") in old_blocks
    assert len(new_blocks) - len(old_blocks) == 7
    types = built_in_rows("dict_obj_types", V8_4_3)
    assert types is not None and (6, "Ordered index") in types and len(types) == 20
    params = built_in_rows("config_params", (7 << 16) | (6 << 8) | 9)
    assert params is not None
    assert [p[6] for p in params if p[1] == "DataMemory"] == ["1099511627776"]
    assert built_in_rows("nodes", V8_4_3) is None


def _run(
    sql: str, rows: dict[str, list[list[object]]]
) -> tuple[list[str], list[tuple[object, ...]]]:
    statement = sqlglot.parse_one(sql, read="mysql")
    used = {name: TABLES[name] for name in rows}
    result = run_select(statement, sql, used, rows)
    return [c.name for c in result.columns], result.rows


def test_like_uses_backslash_escape_and_ignores_case() -> None:
    rows = {"threads": [[1, 0, "main_rep", "x"], [1, 1, "mainXrep", "x"], [1, 2, "LDM", "x"]]}
    _, escaped = _run("SELECT thr_no FROM threads WHERE thread_name LIKE 'main\\_%'", rows)
    _, folded = _run("SELECT thr_no FROM threads WHERE thread_name = 'ldm'", rows)
    assert escaped == [(0,)]
    assert folded == [(2,)]


def test_unknown_column_is_error_1054_not_a_string() -> None:
    with pytest.raises(SqlNodeError) as caught:
        _run("SELECT node_id FROM nodes WHERE no_such = 1", {"nodes": [[1, 1, "STARTED", 0, 1]]})
    assert (caught.value.code, caught.value.msg) == (
        1054,
        "Unknown column 'no_such' in 'where clause'",
    )


def test_provider_rows_of_the_wrong_width_are_reported() -> None:
    with pytest.raises(SqlNodeError, match="provider row of 2 values for table 'nodes'"):
        _run("SELECT * FROM nodes", {"nodes": [[1, 2]]})


def test_join_of_two_1536_row_tables_is_fast() -> None:
    cpustat = [[n, t, 1, 2, 97, 5, 90, 0, 5, 0, 1000] for n in range(1, 49) for t in range(32)]
    threads = [[n, t, "ldm", "ldm thread"] for n in range(1, 49) for t in range(32)]
    sql = (
        "SELECT cs.thr_no, ts.thread_name, cs.OS_user FROM cpustat cs, threads ts "
        "WHERE cs.thr_no = ts.thr_no AND cs.node_id = ts.node_id"
    )
    started = time.perf_counter()
    _, rows = _run(sql, {"cpustat": cpustat, "threads": threads})
    elapsed = time.perf_counter() - started
    assert len(rows) == 1536
    # About 10 ms on a 2-core machine; the bound only catches a lost join index.
    assert elapsed < 0.5


def test_group_concat_is_cut_to_the_sessions_maximum_length() -> None:
    names = ("main", "ldm", "rép", "recv")
    rows = {"threads": [[1, t, name, "x"] for t, name in enumerate(names)]}
    sql = (
        "SELECT COUNT(*), GROUP_CONCAT(CONCAT(thr_no, ' ', thread_name) SEPARATOR ';')"
        " FROM threads"
    )

    def run(max_len: int) -> tuple[object, ...]:
        statement = sqlglot.parse_one(sql, read="mysql")
        result = run_select(statement, sql, {"threads": TABLES["threads"]}, rows, max_len)
        return result.rows[0]

    assert run(1024) == (4, "0 main;1 ldm;2 rép;3 recv")
    assert run(10) == (4, "0 main;1 l")
    # Cut on a character boundary: "é" is two bytes in UTF-8.
    assert run(17) == (4, "0 main;1 ldm;2 r")
    assert run(18) == (4, "0 main;1 ldm;2 ré")


def test_group_concat_skips_nulls_and_is_null_without_values() -> None:
    rows = {"threads": [[1, 0, "main", "x"], [1, 1, None, "x"], [2, 0, "ldm", "x"]]}
    _, concat = _run("SELECT GROUP_CONCAT(thread_name) FROM threads", rows)
    _, grouped = _run(
        "SELECT node_id, GROUP_CONCAT(thread_name SEPARATOR '+') FROM threads"
        " WHERE thr_no = 1 OR node_id = 2 GROUP BY node_id ORDER BY node_id",
        rows,
    )
    assert concat == [("main,ldm",)]
    assert grouped == [(1, None), (2, "ldm")]


@pytest.mark.parametrize(("max_len", "flavour"), [(1024, "text"), (512, ""), (64, "")])
def test_group_concat_is_text_above_512_bytes_else_varchar(max_len: int, flavour: str) -> None:
    sql = "SELECT node_id, GROUP_CONCAT(thread_name) AS names FROM threads GROUP BY node_id"
    statement = sqlglot.parse_one(sql, read="mysql")
    result = run_select(statement, sql, {"threads": TABLES["threads"]}, {"threads": []}, max_len)
    names = result.columns[1]
    assert (names.name, names.type.kind, names.type.length, names.type.flavour) == (
        "names", Kind.STRING, max_len, flavour)
    assert result.columns[0].type.kind is Kind.INT


def test_sums_are_exact_past_64_bits_as_mysqls_decimal_sums_are() -> None:
    big = 2**63 - 1
    rows = {"diskpagebuffer": [[1, 1, big, None, 5, 0, 1, 2, 3], [1, 2, big, None, 5, 0, 1, 2, 3],
                               [2, 1, 1, 1, 1, 1, 1, 1, 1]]}
    _, typed = _run(
        "SELECT node_id, SUM(pages_written), SUM(pages_written_lcp) FROM diskpagebuffer"
        " GROUP BY node_id ORDER BY node_id",
        rows,
    )
    assert typed == [(1, str(2 * big), None), (2, "1", "1")]
    # As text through a derived table: the digits, no decimal point; a NULL sum ''.
    _, text = _run(
        "SELECT CONCAT(COALESCE(node_id, ''), ' ', COALESCE(w, ''), ' ', COALESCE(l, ''))"
        " FROM (SELECT node_id, SUM(pages_written) AS w, SUM(pages_written_lcp) AS l"
        " FROM diskpagebuffer GROUP BY node_id) AS t",
        rows,
    )
    assert sorted(text) == [(f"1 {2 * big} ",), ("2 1 1",)]


def test_a_derived_table_without_an_alias_is_refused_as_mysql_refuses_it() -> None:
    rows = {"diskpagebuffer": [[1, 1, 1, 1, 1, 1, 1, 1, 1]]}
    with pytest.raises(SqlNodeError) as refused:
        _run("SELECT COUNT(*) FROM (SELECT node_id FROM diskpagebuffer GROUP BY node_id)", rows)
    assert (refused.value.code, refused.value.msg) == (
        1248, "Every derived table must have its own alias"
    )
    assert _run("SELECT COUNT(*) FROM (SELECT node_id FROM diskpagebuffer) AS t", rows)[1] == [(1,)]

"""The SQL texts: tagged, naming only columns that exist, and gated by NDB version."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from ndbtop.mgm.version import make_version, split_version
from ndbtop.ndbinfo import queries as q

SCHEMA = json.loads(
    resources.files("ndbtop.sim.sqlnode").joinpath("ndbinfo-schema.json").read_text()
)
ALL_QUERIES = [value for value in vars(q).values() if isinstance(value, q.Query) and value.table]


def selected_columns(sql: str) -> list[str]:
    """Every column the select lists name (that of a derived table too), inside SUM() and
    CONCAT() too."""
    select_lists = re.findall(r"SELECT (.*?) FROM", sql, re.S)
    assert select_lists
    text = " ".join(select_lists)
    if text.strip() == "*":
        return []
    text = re.sub(r"'[^']*'", "", text)
    text = re.sub(r"\b(AS \w+|SEPARATOR)", "", text)
    text = re.sub(r"\b(SUM|CONCAT|COALESCE|GROUP_CONCAT|IF)\(", "(", text)
    text = re.sub(r"\b(NULL|IN|IS)\b|COUNT\(\*\)", "", text)
    return re.findall(r"[A-Za-z_]\w*", text)


def test_selected_columns_looks_inside_functions() -> None:
    sql = "SELECT node_id, SUM(a) AS a_sum, CONCAT(b, ' x ', COALESCE(c, '')) FROM ndbinfo.t"
    assert selected_columns(sql) == ["node_id", "a", "b", "c"]
    assert selected_columns(q.CPUSTAT.sql)[:3] == ["node_id", "thr_no", "OS_user"]
    assert selected_columns(q.CPUSTAT.packed or "") == selected_columns(q.CPUSTAT.sql)


def test_every_statement_is_tagged_and_on_one_line() -> None:
    statements = [*ALL_QUERIES, q.CURRENT_USER, q.VERSION_VARIABLE]
    assert len(statements) >= 18
    texts = [query.sql for query in statements]
    texts += [query.packed for query in statements if query.packed]
    assert len(texts) == len(statements) + len(TEXT_QUERIES)
    for text in texts:
        assert text.startswith("/* ndbtop */ SELECT ")
        assert "\n" not in text and "  " not in text
    setting = q.SET_GROUP_CONCAT_MAX_LEN.sql
    assert setting == f"/* ndbtop */ SET SESSION group_concat_max_len = {q.GROUP_CONCAT_MAX_LEN}"


@pytest.mark.parametrize("query", ALL_QUERIES, ids=lambda query: query.panel + "/" + query.table)
def test_queries_read_their_table_and_only_columns_it_has(query: q.Query) -> None:
    for text in (query.sql, query.packed):
        if text is None:
            continue
        assert f"FROM ndbinfo.{query.table}" in text
        # A table joined in brings its columns, and a derived table's sums their names.
        tables = set(re.findall(r"(?:FROM|JOIN) ndbinfo\.(\w+)", text))
        columns = {name.lower() for t in tables for name, _ in SCHEMA[t]["columns"]}
        columns |= {alias.lower() for alias in re.findall(r"\bAS (\w+)", text)}
        for column in selected_columns(text):
            assert column.lower() in columns, (query.table, column)


TEXT_QUERIES = [
    q.CPUSTAT, q.DISK_PAGE_BUFFER, q.LOG_SPACES, q.MEMORY, q.LOG_BUFFERS, q.DISK_STAT
]


def test_text_queries_pack_the_same_row_text() -> None:
    assert [query for query in ALL_QUERIES if query.fields] == TEXT_QUERIES
    for query in TEXT_QUERIES:
        assert query.packed is not None
        row = re.match(r"/\* ndbtop \*/ SELECT (CONCAT\(.*\)) (FROM .*)", query.sql)
        assert row is not None
        assert query.packed == (
            f"/* ndbtop */ SELECT COUNT(*), GROUP_CONCAT({row[1]} SEPARATOR ';') {row[2]}"
        )
        assert row[1].count(", ' ', ") == query.fields - 1
    assert q.CPUSTAT.fields == 8 and q.CPUSTAT.sql.endswith("FROM ndbinfo.cpustat")


@pytest.mark.parametrize("query", [q.DISK_PAGE_BUFFER, q.DISK_STAT], ids=lambda x: x.table)
def test_sums_come_as_text_through_a_derived_table(query: q.Query) -> None:
    summed = re.findall(r"SUM\((\w+)\) AS (\w+)", query.sql)
    assert summed and all(column == alias for column, alias in summed)
    inner = f"SELECT node_id, {', '.join(f'SUM({c}) AS {c}' for c, _ in summed)}"
    assert query.sql.endswith(
        f"FROM ({inner} FROM ndbinfo.{query.table} GROUP BY node_id) AS t"
    )
    # Each column of the derived table once, in order, as text ('' for NULL).
    outer = ", ' ', ".join(f"COALESCE({c}, '')" for c in ["node_id", *(c for c, _ in summed)])
    assert query.sql.startswith(f"/* ndbtop */ SELECT CONCAT({outer}) FROM (")
    assert query.fields == len(summed) + 1 and query.text_field is None


@pytest.mark.parametrize(
    ("query", "text_column"),
    [(q.LOG_SPACES, "log_type"), (q.LOG_BUFFERS, "log_type"), (q.MEMORY, "memory_type")],
    ids=lambda x: getattr(x, "table", x),
)
def test_a_column_that_may_hold_spaces_is_sent_last(query: q.Query, text_column: str) -> None:
    assert query.sql.endswith(f"COALESCE({text_column}, '')) FROM ndbinfo.{query.table}")
    assert query.text_field == 1 and query.fields == 6


def test_since_versions_are_never_older_than_the_schema_says() -> None:
    for name, version in q.SINCE.items():
        table = name.split(".")[0]
        major, minor = (int(part) for part in SCHEMA[table]["since"].split("."))
        assert split_version(version)[:2] >= (major, minor), name


def panels(plan: q.QueryPlan) -> set[str]:
    return {query.table for query in plan.all_queries}


def test_the_newest_plan_reads_cpustat_and_every_slow_table() -> None:
    plan = q.plan_for(None)
    assert plan.thread_cpu is q.CPUSTAT and plan.unsupported == ()
    assert plan.thread_layout == (q.THREAD_NAMES, q.THREAD_BLOCKS, q.THREAD_OS_IDS)
    assert plan.slow == q.SLOW_ROTATION
    assert [query.table for query in plan.slow] == [
        "nodes",
        "counters",
        "disk_write_speed_aggregate_node",
        "logspaces",
        "memoryusage",
        "restart_info",
        "transporters",
        "logbuffers",
        "diskstat",
        "config_values",
    ]
    assert "thread_spinning" in plan.thread_cpu.sql


# version -> (thread CPU source, tables not read, unsupported panels)
GATES = [
    ((8, 0, 19), "cpustat", set(), set()),
    ((8, 0, 18), "cpustat", {"diskstat"}, {"disk_stat"}),
    ((7, 5, 2), "cpustat", {"diskstat"}, {"disk_stat"}),
    ((7, 5, 1), "threadstat", {"diskstat", "cpustat", "threads"}, {"disk_stat"}),
    ((7, 4, 2), "threadstat", {"diskstat", "cpustat", "config_values"},
     {"disk_stat", "config_values"}),
    (
        (7, 4, 1),
        "threadstat",
        {"diskstat", "cpustat", "restart_info", "config_values"},
        {"disk_stat", "restart_info", "config_values"},
    ),
    (
        (7, 3, 5),
        "threadstat",
        {"diskstat", "restart_info", "disk_write_speed_aggregate_node", "config_values"},
        {"disk_stat", "restart_info", "disk_write_speed", "config_values"},
    ),
    (
        (7, 1, 10),
        None,
        {"threadstat", "threadblocks", "restart_info", "disk_write_speed_aggregate_node",
         "config_values"},
        {"threads", "disk_stat", "restart_info", "disk_write_speed", "config_values"},
    ),
]


@pytest.mark.parametrize(("version", "cpu", "not_read", "unsupported"), GATES)
def test_plans_are_gated_by_version(
    version: tuple[int, int, int], cpu: str | None, not_read: set[str], unsupported: set[str]
) -> None:
    plan = q.plan_for(make_version(*version))
    assert (plan.thread_cpu.table if plan.thread_cpu else None) == cpu
    assert not panels(plan) & not_read
    assert {panel for panel, _ in plan.unsupported} == unsupported
    assert {"nodes", "diskpagebuffer", "memoryusage", "logspaces", "transporters",
            "counters"} <= panels(plan)


def test_transporter_counters_are_only_asked_from_7_5() -> None:
    assert q.TRANSPORTERS in q.plan_for(make_version(7, 5, 0)).slow
    old = q.plan_for(make_version(7, 4, 10)).slow
    assert q.TRANSPORTERS_BEFORE_7_5 in old and "connect_count" not in str(old)


def test_an_unsupported_panel_says_which_version_it_needs() -> None:
    assert dict(q.plan_for(make_version(7, 6, 9)).unsupported) == {
        "disk_stat": "ndbinfo.diskstat needs NDB 8.0.19 (this is 7.6.9)"
    }


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("mysql-8.4.3 ndb-8.4.3", make_version(8, 4, 3)),
        ("mysql-5.7.25 ndb-7.6.9", make_version(7, 6, 9)),
        ("ndb-7.5.10", make_version(7, 5, 10)),
        ("mysql-8.0.36", None),
        ("ndb-7.5.999", None),
        ("", None),
    ],
)
def test_node_version_text_is_parsed(text: str, version: int | None) -> None:
    assert q.parse_node_version(text) == version

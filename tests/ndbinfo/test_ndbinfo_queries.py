"""The SQL texts: tagged, naming only columns that exist, and gated by NDB version."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from ndbtop.ndbinfo import queries as q

SCHEMA = json.loads(
    resources.files("ndbtop.sim.sqlnode").joinpath("ndbinfo-schema.json").read_text()
)
ALL_QUERIES = [value for value in vars(q).values() if isinstance(value, q.Query) and value.table]


def selected_columns(sql: str) -> list[str]:
    """Every column the select list names, inside SUM() and CONCAT() too."""
    select_list = re.search(r"SELECT (.*?) FROM", sql, re.S)
    assert select_list is not None
    text = select_list.group(1)
    if text.strip() == "*":
        return []
    text = re.sub(r"'[^']*'", "", text)
    text = re.sub(r"\b(AS \w+|SEPARATOR)", "", text)
    text = re.sub(r"\b(SUM|CONCAT|COALESCE|GROUP_CONCAT|IF)\(", "(", text)
    text = re.sub(r"\bNULL\b|COUNT\(\*\)", "", text)
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
    assert len(texts) == len(statements) + 1
    for text in texts:
        assert text.startswith("/* ndbtop */ SELECT ")
        assert "\n" not in text and "  " not in text
    setting = q.SET_GROUP_CONCAT_MAX_LEN.sql
    assert setting == f"/* ndbtop */ SET SESSION group_concat_max_len = {q.GROUP_CONCAT_MAX_LEN}"


@pytest.mark.parametrize("query", ALL_QUERIES, ids=lambda query: query.panel + "/" + query.table)
def test_queries_read_their_table_and_only_columns_it_has(query: q.Query) -> None:
    columns = {name.lower() for name, _ in SCHEMA[query.table]["columns"]}
    for text in (query.sql, query.packed):
        if text is None:
            continue
        assert f"FROM ndbinfo.{query.table}" in text
        for column in selected_columns(text):
            assert column.lower() in columns, (query.table, column)


def test_text_queries_pack_the_same_row_text() -> None:
    text_queries = [query for query in ALL_QUERIES if query.fields]
    assert text_queries == [q.CPUSTAT]
    for query in text_queries:
        assert query.packed is not None
        row = re.search(r"SELECT (CONCAT\(.*\)) FROM", query.sql)
        assert row is not None
        assert query.packed.startswith(f"/* ndbtop */ SELECT COUNT(*), GROUP_CONCAT({row[1]} ")
        assert query.packed.endswith(f"SEPARATOR ';') FROM ndbinfo.{query.table}")
        assert row[1].count(", ' ', ") == query.fields - 1 == 7

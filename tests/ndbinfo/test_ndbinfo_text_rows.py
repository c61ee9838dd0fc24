"""Row texts of the text queries, written as MySQL sends them, read into the same model
values as the typed columns (``DECIMAL`` sums, NULLs) give."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.model.ndbinfo import DiskPageBuffer, DiskStat, LogSpace, MemoryUse
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo import rows as r
from ndbtop.ndbinfo.text_rows import parse_numbers, split_fields

U64 = 18446744073709551615


def read(query: q.Query, packed: str) -> list[list[str]]:
    return split_fields(q.split_text_rows(packed), query.fields, query.text_field)


def test_disk_page_buffer_sums_as_text_are_the_decimal_sums() -> None:
    # SUM() of BIGINT UNSIGNED is a DECIMAL(41,0): CONCAT writes its digits, no point,
    # however large (two instances at 2^64-1 sum past 64 bits); COALESCE(NULL, '') is ''.
    packed = f"2 10409 0 18 18 11 9 0;1 10489 0 18 18 12 10 0;3 {2 * U64} 1 2 3 4  6"
    typed = [
        (2, Decimal(10409), Decimal(0), Decimal(18), Decimal(18), Decimal(11), Decimal(9),
         Decimal(0)),
        (1, Decimal(10489), Decimal(0), Decimal(18), Decimal(18), Decimal(12), Decimal(10),
         Decimal(0)),
        (3, Decimal(2 * U64), Decimal(1), Decimal(2), Decimal(3), Decimal(4), None,
         Decimal(6)),
    ]
    parsed = r.parse_disk_page_buffer(read(q.DISK_PAGE_BUFFER, packed))
    assert parsed == r.parse_disk_page_buffer(typed)
    assert parsed == (
        DiskPageBuffer(1, 10489, 0, 18, 18, 12, 10, 0),
        DiskPageBuffer(2, 10409, 0, 18, 18, 11, 9, 0),
        DiskPageBuffer(3, 2 * U64, 1, 2, 3, 4, 0, 6),
    )


def test_disk_stat_sums_and_a_null_node_id() -> None:
    # A group of rows whose node_id is NULL reads as node 0 either way.
    packed = "5 7 8 9 10; 1 2 3 4"
    typed = [(5, Decimal(7), Decimal(8), Decimal(9), Decimal(10)),
             (None, Decimal(1), Decimal(2), Decimal(3), Decimal(4))]
    parsed = r.parse_disk_stat(read(q.DISK_STAT, packed))
    assert parsed == r.parse_disk_stat(typed) == (DiskStat(0, 1, 2, 3, 4), DiskStat(5, 7, 8, 9, 10))


def test_log_rows_send_the_type_last_and_read_it_second() -> None:
    packed = "1 0 1 268435456 1048576 REDO;1 20 0 16777216 2097152 DD-UNDO;2 0 0 16 0 "
    typed = [(1, "REDO", 0, 1, 268435456, 1048576), (1, "DD-UNDO", 20, 0, 16777216, 2097152),
             (2, None, 0, 0, 16, 0)]
    parsed = r.parse_logs(read(q.LOG_SPACES, packed))
    assert parsed == r.parse_logs(typed)
    assert parsed == (
        LogSpace(1, "REDO", 0, 1, 268435456, 1048576),
        LogSpace(1, "DD-UNDO", 20, 0, 16777216, 2097152),
        LogSpace(2, "", 0, 0, 16, 0),
    )
    assert r.parse_logs(read(q.LOG_BUFFERS, packed)) == parsed


def test_memory_types_keep_their_spaces() -> None:
    packed = ("1 3309568 101 41943040 1280 Data memory;"
              "1 524288 2048 67108864 262144 Long message buffer;"
              "2  1 10 2 ;2 5 1 10 2  two  spaces ")
    typed = [(1, "Data memory", Decimal(3309568), Decimal(101), Decimal(41943040),
              Decimal(1280)),
             (1, "Long message buffer", Decimal(524288), Decimal(2048), Decimal(67108864),
              Decimal(262144)),
             (2, None, None, Decimal(1), Decimal(10), Decimal(2)),
             (2, " two  spaces ", Decimal(5), Decimal(1), Decimal(10), Decimal(2))]
    parsed = r.parse_memory(read(q.MEMORY, packed))
    assert parsed == r.parse_memory(typed)
    assert parsed[1] == MemoryUse(1, "Long message buffer", 524288, 2048, 67108864, 262144)
    assert parsed[2:] == (MemoryUse(2, "", 0, 1, 10, 2), MemoryUse(2, " two  spaces ", 5, 1, 10, 2))


@pytest.mark.parametrize(
    ("texts", "fields", "text_field", "rows"),
    [
        (["1 2 3"], 3, None, [["1", "2", "3"]]),
        (["1  3"], 3, None, [["1", "", "3"]]),
        (["1 2 a b c"], 3, 1, [["1", "a b c", "2"]]),
        (["1 2"], 3, 1, [["1", "2"]]),
        ([""], 2, None, [[""]]),
    ],
)
def test_split_fields(
    texts: list[str], fields: int, text_field: int | None, rows: list[list[str]]
) -> None:
    assert split_fields(texts, fields, text_field) == rows


def test_a_short_row_is_left_out_as_a_short_typed_row_is() -> None:
    assert r.parse_disk_page_buffer(read(q.DISK_PAGE_BUFFER, "1 2 3;2 1 1 1 1 1 1 1")) == (
        DiskPageBuffer(2, 1, 1, 1, 1, 1, 1, 1),
    )
    assert r.parse_memory(read(q.MEMORY, "1 2 3 4 5")) == ()


PARTS = st.one_of(
    st.integers(min_value=0, max_value=2**70).map(str),
    st.sampled_from(["", "0", "007", "-3", "1.5", "1e3", "x", "1_000", "٣", " ", "  4 "]),
)
"""Parts of a row text: sums of any size, and what a server should not send."""


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(st.lists(PARTS, min_size=0, max_size=10).map(" ".join), max_size=12),
)
def test_rows_of_numbers_read_as_the_parsers_read_them(rows: list[str]) -> None:
    for query, parse, make in (
        (q.DISK_PAGE_BUFFER, r.parse_disk_page_buffer, DiskPageBuffer),
        (q.DISK_STAT, r.parse_disk_stat, DiskStat),
    ):
        assert parse_numbers(rows, make) == parse(split_fields(rows, query.fields))


def test_rows_of_numbers_as_mysql_sends_them() -> None:
    packed = f"2 10409 0 18 18 11 9 0;1 10489 0 18 18 12 10 0;3 {2 * U64} 1 2 3 4  6;4 1"
    assert parse_numbers(q.split_text_rows(packed), DiskPageBuffer) == (
        DiskPageBuffer(1, 10489, 0, 18, 18, 12, 10, 0),
        DiskPageBuffer(2, 10409, 0, 18, 18, 11, 9, 0),
        DiskPageBuffer(3, 2 * U64, 1, 2, 3, 4, 0, 6),
    )

"""Result rows to model values: whatever type the server picked, the same numbers."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.model.ndbinfo import (
    DiskPageBuffer,
    LogSpace,
    MemoryUse,
    NodeActivity,
    NodeLinks,
    RestartInfo,
)
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo import rows as r
from ndbtop.ndbinfo import rows_threads as rt


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (42, 42),
        (Decimal("42"), 42),
        (Decimal("42.9"), 42),
        ("42", 42),
        (" 42 ", 42),
        ("4.2e1", 42),
        (b"42", 42),
        (42.0, 42),
        (True, 1),
        (None, 0),
        ("n/a", 0),
        (18446744073709551615, 18446744073709551615),
        (Decimal("139508260123"), 139508260123),
    ],
)
def test_integers_arrive_in_any_type(value: object, expected: int) -> None:
    assert r.to_int(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(7, 7.0), (Decimal("7.5"), 7.5), ("7.5", 7.5), (b"3", 3.0), (None, None), ("x", None)],
)
def test_percentages_keep_none_for_null(value: object, expected: float | None) -> None:
    assert r.to_pct(value) == expected


def test_text_arrives_as_str_or_bytes() -> None:
    assert [r.to_text(v) for v in ("ldm", b"ldm", None, 3)] == ["ldm", "ldm", "", "3"]


def test_the_same_rows_in_three_types_give_the_same_values() -> None:
    as_int = [(1, 10488, 0, 17, 17, 12, 10, 0)]
    as_decimal = [tuple(Decimal(v) for v in as_int[0])]
    as_text = [tuple(str(v) for v in as_int[0])]
    expected = (DiskPageBuffer(1, 10488, 0, 17, 17, 12, 10, 0),)
    for rows in (as_int, as_decimal, as_text):
        assert r.parse_disk_page_buffer(rows) == expected


def test_panels_are_sorted_by_node_and_short_rows_are_dropped() -> None:
    memory = r.parse_memory(
        [
            (2, "Data memory", Decimal(3), Decimal(1), Decimal(30), Decimal(10)),
            (1, "Long message buffer", 5, 2, 50, 20),
            (1, "Data memory", 4, 1, 40, 10),
            (1, "broken"),
        ]
    )
    assert [(m.node_id, m.memory_type) for m in memory] == [
        (1, "Data memory"),
        (1, "Long message buffer"),
        (2, "Data memory"),
    ]
    assert memory[0] == MemoryUse(1, "Data memory", 4, 1, 40, 10)
    logs = r.parse_logs(
        [
            (2, "REDO", 0, 0, 100, 1),
            (1, "DD-UNDO", 20, 0, 200, None),
            (1, "REDO", 0, 1, "100", "10"),
            (1, "REDO", 0, 0, 100, 5),
        ]
    )
    assert logs == (
        LogSpace(1, "REDO", 0, 0, 100, 5),
        LogSpace(1, "REDO", 0, 1, 100, 10),
        LogSpace(1, "DD-UNDO", 20, 0, 200, 0),
        LogSpace(2, "REDO", 0, 0, 100, 1),
    )


def test_links_with_and_without_the_7_5_columns() -> None:
    new = r.parse_links([(2, 149, Decimal(149), Decimal(10), Decimal(20), "51,4,50", "4", None)])
    old = r.parse_links([(1, 3, 0, 5, 6, None), (1, 2)])
    assert new == (NodeLinks(2, 149, 149, 10, 20, (4, 50, 51), (4,), ()),)
    assert old == (NodeLinks(1, 3, 0, 5, 6),)


def test_activity_sums_per_node() -> None:
    rows = [(4, Decimal(10), Decimal(9), Decimal(1), Decimal(30), Decimal(20), 0, 90),
            (3, 5, 5, 0, 1, 2, 3, 4), (5, 1)]
    assert r.parse_activity(rows) == (
        NodeActivity(3, 5, 5, 0, 1, 2, 3, 4),
        NodeActivity(4, 10, 9, 1, 30, 20, 0, 90),
    )


@pytest.mark.parametrize(
    ("text", "rows"),
    [(None, []), ("", [""]), ("1 2;3 4", ["1 2", "3 4"]), (b"1 2;3 \xc3\xa9", ["1 2", "3 é"])],
)
def test_packed_text_splits_into_row_texts(text: str | bytes | None, rows: list[str]) -> None:
    assert q.split_text_rows(text) == rows


@pytest.mark.parametrize(("value", "expected"), [("12", 12), (" 7 ", 7), ("1.9", 1), ("x", 0)])
def test_integers_from_text(value: str, expected: int) -> None:
    assert r.to_int(value) == expected


def test_restart_info_phases_are_read_by_column_name() -> None:
    columns = [
        "node_id",
        "node_restart_status",
        "node_restart_status_int",
        "secs_to_complete_node_failure",
        "secs_exec_redo_log",
        "total_restart_secs",
    ]
    info = r.parse_restart_info([(3, "Restart completed", 12, 4, Decimal(300), 409)], columns)
    assert info == (
        RestartInfo(
            3,
            "Restart completed",
            12,
            (("secs_to_complete_node_failure", 4), ("secs_exec_redo_log", 300)),
            409,
        ),
    )
    assert r.parse_restart_info([(3,)], ["node_id"]) == ()


def test_thread_layout_caches() -> None:
    blocks = rt.thread_blocks(
        [(1, 1, "PGMAN", 0), (1, 1, "DBLQH", 0), (1, 1, "PGMAN", 2), (1, 2, b"DBLQH", 1)]
    )
    assert blocks == {(1, 1): ("PGMAN", "DBLQH"), (1, 2): ("DBLQH",)}
    assert rt.thread_os_ids([(1, 0, 4100), (1, 1, 0), (1, 2, None)]) == {(1, 0): 4100}
    assert rt.thread_names([(1, 0, "main"), (2, 0, b"main_rep")]) == {
        (1, 0): "main",
        (2, 0): "main_rep",
    }


def test_cpustat_rows_join_the_cached_layout() -> None:
    rows = ["1 1 70 14 74 0 10 0", "1 0 1 0 1.5 nan 0 0"]
    layout = rt.thread_layout({(1, 1): "ldm"}, {(1, 1): ("DBLQH",)}, {(1, 1): 4101, (1, 0): 4100})
    threads, unknown = rt.CpustatJoin()(rows, layout)
    assert [(t.thr_no, t.thread_name, t.blocks, t.os_tid) for t in threads] == [
        (0, "", (), 4100),
        (1, "ldm", ("DBLQH",), 4101),
    ]
    assert (threads[0].os_user_pct, threads[0].exec_pct, threads[0].spin_pct) == (1.0, 1.5, None)
    assert (threads[1].exec_pct, threads[1].spin_pct, threads[1].send_pct) == (74.0, 0.0, 10.0)
    assert threads[1].cpu_pct == 84.0
    assert unknown == frozenset()


def test_cpustat_rows_are_sorted_and_name_the_threads_the_layout_lacks() -> None:
    rows = ["2 0 5 1 6 0 0 0", "1 3 7 2 9 0 0 0", "", "1 4 2", "1 2 1 1 2 0 0 0"]
    join = rt.CpustatJoin()
    layout = rt.thread_layout({(1, 2): "ldm"}, {}, {})
    for _ in range(2):
        threads, unknown = join(rows, layout)
        assert [(t.node_id, t.thr_no, t.thread_name) for t in threads] == [
            (1, 2, "ldm"),
            (1, 3, ""),
            (2, 0, ""),
        ]
        assert (threads[1].os_user_pct, threads[1].os_system_pct, threads[1].cpu_pct) == (
            7.0, 2.0, 9.0)
        assert unknown == {(1, 3), (2, 0)}


def test_an_unchanged_cpustat_row_gives_the_same_thread_until_the_layout_changes() -> None:
    join = rt.CpustatJoin()
    layout = rt.thread_layout({(1, 0): "main", (1, 1): "ldm"}, {}, {})
    first, _ = join(["1 0 5 1 6 0 0 0", "1 1 9 0 9 0 0 0"], layout)
    second, _ = join(["1 0 5 1 6 0 0 0", "1 1 8 0 8 0 0 0"], layout)
    assert second[0] is first[0] and second[1] is not first[1] and second[1].cpu_pct == 8.0
    renamed = rt.thread_layout({(1, 0): "main_rep", (1, 1): "ldm"}, {}, {})
    third, _ = join(["1 0 5 1 6 0 0 0", "1 1 8 0 8 0 0 0"], renamed)
    assert third[0] == first[0]._replace(thread_name="main_rep") and third[1] == second[1]


def test_threadstat_deltas_give_cpu_and_a_reset_gives_none() -> None:
    before = [(1, 0, "main", 4100, 10_000, 1_000_000, 200_000), (1, 1, "ldm", 0, 10_000, 5, 5)]
    after = [(1, 0, "main", 4100, 12_000, 1_600_000, 300_000), (1, 1, "ldm", 0, 12_000, 1, 1)]
    previous = rt.threadstat_counters(before)
    threads = rt.threads_from_threadstat(after, previous, {(1, 0): ("DBTC",)})
    main, ldm = threads
    assert (main.os_user_pct, main.os_system_pct) == (30.0, 5.0)
    assert (main.thread_name, main.blocks, main.os_tid) == ("main", ("DBTC",), 4100)
    assert (ldm.os_user_pct, ldm.os_system_pct, ldm.os_tid) == (None, None, None)
    first = rt.threads_from_threadstat(before, {}, {})
    assert all(t.os_user_pct is None and t.exec_pct is None for t in first)


def _each_row_alone(
    rows: list[str], layout: dict[rt.ThreadKey, rt.ThreadLayout]
) -> tuple[list[object], set[rt.ThreadKey]]:
    threads = [t for t in (rt._thread_from_cpustat(text, layout) for text in rows) if t]
    threads.sort(key=lambda t: (t.node_id, t.thr_no))
    return threads, {(t.node_id, t.thr_no) for t in threads} - layout.keys()


_FIGURE = st.sampled_from(["0", "5", "99", "100", "7.5", "nan", "-1", "x"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.tuples(st.integers(1, 3), st.integers(0, 3), st.lists(_FIGURE, min_size=6,
                                                                         max_size=7))
                .map(lambda t: " ".join([str(t[0]), str(t[1]), *t[2]])),
                st.sampled_from(["", "1 2", " 1 0 1 1 1 1 1 1", "1  0 1 1 1 1 1 1",
                                 "1 0 1 1 1 1 1 1 "]),
            ),
            max_size=8,
            unique_by=lambda text: tuple(text.split()[:2]) if len(text.split()) >= 8 else (text,),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_a_join_of_successive_samples_reads_each_row_as_it_would_alone(
    samples: list[list[str]],
) -> None:
    layout = rt.thread_layout({(1, 0): "main", (2, 1): "ldm"}, {(2, 1): ("DBLQH",)},
                             {(1, 0): 4100})
    join = rt.CpustatJoin()
    for rows in samples:
        threads, unknown = join(rows, layout)
        expected, missing = _each_row_alone(rows, layout)
        assert list(threads) == expected
        assert unknown == missing

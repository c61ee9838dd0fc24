"""The Tables view (key 9): the largest tables by DataMemory, sortable, the selected table's
nodes and fragments, the headroom line; ``memory_per_fragment`` read only while it shows;
and what it says without tables, before the first read and without a SQL node."""

from __future__ import annotations

from typing import Any

from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.model.table_memory import TableMemory, TableNodeMemory
from ndbtop.sim.ndbinfo_rows.tables import SKEWED
from ndbtop.tui.app import VIEWS
from ndbtop.tui.source import FrozenSource

V = (8 << 16) | (4 << 8) | 3
GIB = 1 << 30
MIB = 1 << 20


def sql(fq_name: str) -> str:
    """``db/def/t`` as SQL names it: ``db.t``."""
    return fq_name.replace("/def/", ".")


def test_tables_is_view_nine() -> None:
    assert [name for name, _ in VIEWS].index("tables") + 1 == 9


async def test_the_view_reads_the_tables_only_while_it_shows(tui: Any) -> None:
    async with tui("node-down") as t:
        reader = t.app.hub.sql.reader
        assert "tables" not in reader.wanted
        await t.view("9")
        await t.until(lambda: "tables" in reader.wanted, "tables wanted")
        shown = SKEWED.replace("/def/", ".")
        await t.until_shown(shown)
        await t.until_shown("fills first: node")
        keys = t.row_keys("#tables")
        assert keys[0] != SKEWED
        # The first table's detail, under its SQL name: its nodes and its own fragments.
        await t.until_shown(f"{sql(keys[0])}   largest own fragment")
        await t.until_shown("own fragments (node/fragment: allocated, largest first)")
        await t.press("s")
        await t.until(lambda: t.row_keys("#tables")[0] == SKEWED, "sorted by skew")
        await t.until_shown(f"{shown}   largest own fragment 0 on node")
        await t.press("down")
        second = t.row_keys("#tables")[1]
        await t.until_shown(f"{sql(second)}   largest own fragment")
        await t.view("1")
        await t.until(lambda: "tables" not in reader.wanted, "tables no longer wanted")


def _snap(state: SourceState | None, *, read: bool = False,
          tables: tuple[TableMemory, ...] = ()) -> ClusterSnapshot:
    memory = (MemoryUse(1, "Data memory", 3 * GIB, 0, 4 * GIB, 0),
              MemoryUse(2, "Data memory", 1 * GIB, 0, 4 * GIB, 0))
    sample = NdbinfoSample(taken_at=10.0, ndb_version=V, tables=tables, memory=memory,
                           read_at=(("tables", 9.0),) if read else ())
    sources = () if state is None else (
        SourceStatus("ndbinfo", state, "root@10.0.0.9:3306", last_ok=9.9),)
    return ClusterSnapshot(taken_at=10.0, wall=10.0, interval=1.0, sources=sources,
                           ndbinfo=sample)


async def _screen(tui_on: Any, snap: ClusterSnapshot) -> str:
    async with tui_on(FrozenSource(snap, parse_connectstring("127.0.0.1:1186"))) as t:
        await t.view("9")
        await t.until_shown("Memory per table")
        return str(t.text())


async def test_what_it_says_with_nothing_to_show(tui_on: Any) -> None:
    text = await _screen(tui_on, _snap(None))
    assert "Memory per table: no SQL node: memory per table is read from" in text
    assert "DataMemory left memoryusage not read yet" in text
    text = await _screen(tui_on, _snap(SourceState.CONNECTED))
    assert "Memory per table: memory_per_fragment not read yet" in text
    assert "fills first: node 1 (75.0% used)" in text
    text = await _screen(tui_on, _snap(SourceState.CONNECTED, read=True))
    assert "Memory per table: no tables" in text


async def test_a_hostile_name_and_huge_numbers_are_shown_safely(tui_on: Any) -> None:
    huge = 10**41 - 1
    evil = TableMemory("db/def/\x1b[2Jx\u202e", (
        TableNodeMemory(1, huge, 0, 0, 0, 0, ((0, huge), (1, 1))),))
    text = await _screen(tui_on, _snap(SourceState.CONNECTED, read=True, tables=(evil,)))
    assert "db.\\x1b[2Jx\\u202e" in text and "\x1b" not in text
    assert "skew" in text and "2.00" in text


async def test_the_filter_keeps_the_tables_whose_name_matches(tui_on: Any) -> None:
    def table(name: str, size: int) -> TableMemory:
        return TableMemory(name, (TableNodeMemory(1, size, 0, 0, 0, 0, ((0, size),)),))

    snap = _snap(SourceState.CONNECTED, read=True,
                 tables=(table("shop/def/orders", 9), table("auth/def/tokens", 5)))
    async with tui_on(FrozenSource(snap, parse_connectstring("127.0.0.1:1186"))) as t:
        await t.view("9")
        await t.until(lambda: t.row_keys("#tables") == ["shop/def/orders", "auth/def/tokens"],
                      "both tables")
        await t.press("slash", *"token", "enter")
        await t.until(lambda: t.row_keys("#tables") == ["auth/def/tokens"], "the filter")
        await t.until_shown("auth.tokens   largest own fragment 0 on node 1")


async def test_the_detail_says_what_the_fragments_leave_out_under_the_sql_name(
    tui_on: Any,
) -> None:
    # Per node 1.3 GiB allocated in two fragments of 78.5 MiB: the table's own fragments
    # hold 157 MiB; its indexes and BLOB part tables (objects of their own, counted with
    # the table by parent_fq_name) the rest, in fragments not listed.
    frag = int(78.5 * MIB)
    per_node = int(1.3 * GIB)
    orders = TableMemory("inventory/def/orders", tuple(
        TableNodeMemory(node, per_node, 0, 0, 0, 0,
                        ((f, frag), (f + 2, frag)))
        for node, f in ((1, 0), (2, 1))))
    snap = _snap(SourceState.CONNECTED, read=True, tables=(orders,))
    async with tui_on(FrozenSource(snap, parse_connectstring("127.0.0.1:1186"))) as t:
        await t.view("9")
        await t.until_shown("inventory.orders   largest own fragment 0 on node 1: 78.5 MiB")
        text = t.text()
        assert "largest frag: the table's own fragments only" in text
        assert ("own fragments 314.0 MiB of 2.6 GiB allocated; the other 2.3 GiB: its "
                "indexes and BLOB parts (their fragments not listed)") in " ".join(
                    line.strip() for line in text.splitlines())
        # The internal name only as the secondary one.
        assert "NDB name inventory/def/orders" in text
        assert "inventory/def/orders   largest" not in text
        assert t.row_keys("#tables") == ["inventory/def/orders"]
        cell = t.table("#tables").get_cell("inventory/def/orders", "table")
        assert cell.plain == "inventory.orders"

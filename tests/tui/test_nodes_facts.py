"""The Nodes view on made-up snapshots: each data node's memory, its links, and the
summary's warning about troubled links."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.derive import ActivityRate, LinkRate
from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample, NodeLinks
from ndbtop.model.phases import StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.views.nodes import NodesView
from ndbtop.tui.widgets.keyed_table import KeyedTable

GIB = 1 << 30


class NodesApp(App[None]):
    """The Nodes view alone, as wide as the live view."""

    def compose(self) -> ComposeResult:
        yield NodesView(id="view")


NODES = (
    NodeStatus(1, "NDB", "STARTED", node_group=0, dynamic_id=1),
    NodeStatus(2, "NDB", "STARTED", node_group=0, dynamic_id=2),
    NodeStatus(3, "NDB", "STARTING", start_phase=3, node_group=1),
    NodeStatus(50, "MGM", "CONNECTED"),
    NodeStatus(60, "API", "CONNECTED"),
    NodeStatus(61, "API", "NO_CONTACT"),
)


def snapshot(
    links: tuple[NodeLinks, ...], *, data_used: float = 0.5, starting: bool = False
) -> ClusterSnapshot:
    memory = tuple(
        use
        for n in (1, 2)
        for use in (
            # Whole 32 KiB pages, as the server counts them (93% is 93.00003%, not 92.99998%).
            MemoryUse(n, "Data memory", round(data_used * 20 * GIB / 32768) * 32768, 0,
                      20 * GIB, 0),
            MemoryUse(n, "Long message buffer", 1 << 20, 0, 64 << 20, 0),
        )
    )
    sample = NdbinfoSample(taken_at=500.0, ndb_version=None, memory=memory, links=links,
                           read_at=(("links", 488.0),))
    timelines = (StartTimeline(1, 1, 400.0, True, current_phase=5, current_since=450.0),) \
        if starting else ()
    # Both sources are fresh: the cluster's sums count the sample, the rows are current.
    sources = (SourceStatus("mgm", SourceState.CONNECTED, last_ok=500.0),
               SourceStatus("ndbinfo", SourceState.CONNECTED, last_ok=500.0))
    return ClusterSnapshot(
        taken_at=500.0, wall=500.0, interval=1.0, sources=sources, nodes=NODES, ndbinfo=sample,
        link_rates=(LinkRate(1, 2_500_000.0, 1_200_000.0, 29.0),), timelines=timelines,
        activity_rates=(
            ActivityRate(1, 1200.0, 1199.0, 1.0, 9800.4, 3300.0, 2.0, 14000.0, 8.0),
            ActivityRate(2, 470.0, 470.0, 0.0, 100.0, 50.0, 0.0, 14000.0, 8.0),
        ),
    )


HEALTHY = (
    NodeLinks(1, 5, 5, 10, 10, down=(3, 61)),
    NodeLinks(2, 5, 5, 10, 10, down=(3, 61)),
)


async def test_data_memory_in_the_table_and_memory_and_links_of_the_selected_node() -> None:
    app = NodesApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NodesView)
        view.show(snapshot(HEALTHY, data_used=0.93), 500.0)
        await pilot.pause()
        table = view.query_one("#nodes", KeyedTable)
        cell = table.get_cell("1", "memory")
        assert cell.plain == "93%" and "red" in str(cell.style)
        # Node 3 is starting: no live figures, "-" rather than a blank that reads as zero.
        assert table.get_cell("3", "memory") == "-"
        assert table.get_cell("50", "memory") == ""
        assert [table.get_cell(n, "tx") for n in ("1", "2", "3", "50")] == [
            "1,200", "470", "-", ""]
        text = screen_text(app)
        assert "master 1  ·  1,670 tx/s" in text
        assert "memory    Data 18.6 GiB of 20.0 GiB (93%) · Long message buffer 1%" in text
        assert (
            "activity  1,200 tx/s · 1 aborts/s · key reads 9,800/s · key writes 3,300/s · "
            "scans 2/s · LDM ops 14,000/s (8s)"
        ) in text
        # node 3 is starting and 61 is a free slot: neither is a problem
        assert (
            "links     data nodes 1/2 · mgm 1/1 · API 1/2 · sent 2.5 MB/s, received 1.2 MB/s "
            "over 29s"
        ) in text
        assert "links:" not in text and "overloaded" not in text


async def test_troubled_links_are_named_in_the_summary_and_the_detail() -> None:
    app = NodesApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NodesView)
        troubled = (
            NodeLinks(1, 5, 5, 10, 10, down=(2, 3, 61), overloaded=(60,)),
            NodeLinks(2, 5, 5, 10, 10, down=(3, 61), slowdown=(1,)),
        )
        view.show(snapshot(troubled), 500.0)
        await pilot.pause()
        text = screen_text(app)
        assert (
            "links: node 1 overloaded → 60 · node 1 not connected → 2 · node 2 slowdown → 1"
        ) in text
        assert "overloaded towards 60: send buffer past OverloadLimit" in text
        assert "not connected to 2, which is up" in text
        view.show(snapshot(HEALTHY), 501.0)
        await pilot.pause()
        assert "links:" not in screen_text(app)


async def test_during_a_start_its_phases_come_before_memory_and_links() -> None:
    app = NodesApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NodesView)
        view.show(snapshot(HEALTHY), 500.0)
        await pilot.pause()
        text = screen_text(app)
        assert text.index("memory    Data") < text.index("Node 1: STARTED; no start seen")
        view.show(snapshot(HEALTHY, starting=True), 500.0)
        await pilot.pause()
        text = screen_text(app)
        assert text.index("Node 1 · ") < text.index("memory    Data") < text.index("links     ")


def _line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if line.startswith(start))


async def test_rows_that_show_the_same_keep_their_cells_and_changed_ones_are_drawn() -> None:
    app = NodesApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NodesView)
        view.show(snapshot(HEALTHY, data_used=0.5), 500.0)
        await pilot.pause()
        table = view.query_one("#nodes", KeyedTable)
        rows = dict(table._cells)
        view.show(snapshot(HEALTHY, data_used=0.5), 501.0)
        await pilot.pause()
        # The table skips a row given as the very cells it holds.
        assert all(table._cells[key] is cells for key, cells in rows.items())
        view.show(snapshot(HEALTHY, data_used=0.95), 502.0)
        await pilot.pause()
        # Every data node's memory changed; the management server's row did not.
        assert table._cells["50"] is rows["50"]
        assert table._cells["1"] is not rows["1"]
        cell = table.get_cell("2", "memory")
        assert cell.plain == "95%" and "red" in str(cell.style)
        assert " 95%" in screen_text(app)


async def test_the_table_moves_down_when_the_summary_gains_a_line_and_back() -> None:
    app = NodesApp()
    troubled = (NodeLinks(1, 5, 5, 10, 10, down=(2, 3, 61)), HEALTHY[1])
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NodesView)
        view.show(snapshot(HEALTHY), 500.0)
        await pilot.pause()
        header = _line_of(screen_text(app), " id ")
        view.show(snapshot(troubled), 501.0)
        await pilot.pause()
        assert _line_of(screen_text(app), " id ") == header + 1
        view.show(snapshot(HEALTHY), 502.0)
        await pilot.pause()
        assert _line_of(screen_text(app), " id ") == header


async def test_a_new_selection_redraws_the_detail_and_a_new_filter_the_table() -> None:
    app = NodesApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NodesView)
        view.show(snapshot(HEALTHY), 500.0)
        await pilot.pause()
        table = view.query_one("#nodes", KeyedTable)
        assert "memory    Data 10.0 GiB of 20.0 GiB (50%)" in screen_text(app)
        table.move_cursor(row=table.get_row_index("3"))
        view.redraw(501.0)
        await pilot.pause()
        text = screen_text(app)
        assert "Node 3: STARTING; no start seen since ndbtop started." in text
        assert "memory    Data" not in text and view.drawn_for == 3
        view.filter_text = "API"
        view.redraw(502.0)
        await pilot.pause()
        assert table.row_keys_in_order() == ["60", "61"]


async def test_rows_are_not_worked_out_again_from_the_very_same_parts(monkeypatch) -> None:
    import ndbtop.tui.views.nodes as nodes_view

    looked: list[object] = []
    real_util = nodes_view.util_cell

    def util(host: object) -> object:
        looked.append(host)
        return real_util(host)  # type: ignore[arg-type]

    monkeypatch.setattr(nodes_view, "util_cell", util)
    app = NodesApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(NodesView)
        first = snapshot(HEALTHY)
        view.show(first, 500.0)
        await pilot.pause()
        assert looked
        looked.clear()
        table = view.query_one("#nodes", KeyedTable)
        table._repaint_regions.clear()
        # A new snapshot whose nodes, panels and rates are the objects of the last one:
        # no row is looked at again, not even to compare its values.
        view.show(replace(first, taken_at=501.0, wall=501.0), 501.0)
        assert looked == [] and not table._repaint_regions
        moved = replace(first, nodes=(
            NodeStatus(1, "NDB", "STARTED", node_group=0, dynamic_id=1, address="10.0.0.1"),
            *NODES[1:]))
        view.show(moved, 502.0)
        assert looked
        assert table.get_cell("1", "host") == "10.0.0.1"
        # While a node starts its timer moves with the clock: the rows are worked out.
        starting = snapshot(HEALTHY, starting=True)
        view.show(starting, 503.0)
        looked.clear()
        view.show(starting, 504.0)
        assert looked

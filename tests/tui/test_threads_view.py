"""The Threads view on made-up snapshots: what it shows, and what a refresh repaints."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from ndbtop.model.ndbinfo import NdbinfoSample, ThreadCpu
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.views.threads import (
    _HEAT_LOOKS,
    TREND_WIDTH,
    ThreadsView,
    heat_char,
    heat_looks,
)
from ndbtop.tui.widgets.keyed_table import KeyedTable

BLOCKS = ("DBLQH", "DBACC", "DBTUP", "DBTUX", "BACKUP", "RESTORE", "PGMAN", "LGMAN", "TSMAN")


class ThreadsApp(App[None]):
    """The Threads view alone, as wide as the live view."""

    def compose(self) -> ComposeResult:
        yield ThreadsView(id="view")


def snapshot(
    cpu: dict[int, list[float]], at: float = 0.0, history: int = 0
) -> ClusterSnapshot:
    """Nodes' threads with the given CPU each (all thread-measured exec), and ``history``
    seconds of each thread's CPU series."""
    threads = tuple(
        ThreadCpu(node, thr, "ldm", BLOCKS, os_user_pct=pct * 0.8, os_system_pct=pct * 0.2,
                  exec_pct=pct, spin_pct=0.0, send_pct=0.0)
        for node, pcts in cpu.items()
        for thr, pct in enumerate(pcts)
    )
    series = tuple(
        (f"thread.cpu.{node}.{thr}", (pct,) * history)
        for node, pcts in cpu.items()
        for thr, pct in enumerate(pcts)
    )
    return ClusterSnapshot(
        taken_at=at, wall=at, interval=1.0, sources=(),
        ndbinfo=NdbinfoSample(taken_at=at, ndb_version=None, threads=threads),
        history=series,
    )


def order(view: ThreadsView) -> list[str]:
    return view.query_one("#detail", KeyedTable).row_keys_in_order()


async def settled(pilot: Pilot[None], predicate: Callable[[], bool]) -> bool:
    """Let the app process its messages until ``predicate`` holds (a scroll takes a few
    rounds of them); False if it never does."""
    for _ in range(50):
        if predicate():
            return True
        await pilot.pause()
    return predicate()


def test_heat_looks_match_heat_char_at_every_step() -> None:
    rng = random.Random(5)
    values: Iterable[float] = [
        *(q / 4 for q in range(-8, 420)),
        *(rng.uniform(-5.0, 110.0) for _ in range(5000)),
        6.2499999, 59.999, 89.9999, 90.0, 100.0, 250.0,
    ]
    values = list(values)
    assert [_HEAT_LOOKS[i] for i in heat_looks(values)] == [heat_char(v) for v in values]


async def test_sorted_by_cpu_the_figures_read_in_order() -> None:
    """The reported screen: "sorted by cpu" showing 96, 14, 9, 10, 9. The rows follow the
    figures shown at every refresh, however little they moved."""
    app = ThreadsApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(ThreadsView)
        detail = view.query_one("#detail", KeyedTable)
        view.show(snapshot({1: [14.0, 96.0, 9.0, 9.0, 9.0]}), 0.0)
        await pilot.pause()
        assert order(view) == ["1", "0", "2", "3", "4"]
        view.show(snapshot({1: [14.0, 96.0, 9.0, 10.0, 9.0]}, at=1.0), 1.0)
        await pilot.pause()
        shown = [detail.get_cell(key, "cpu").plain for key in order(view)]
        assert shown == ["96%", "14%", "10%", "9%", "9%"]
        view.show(snapshot({1: [14.0, 96.0, 9.4, 8.6, 9.0]}, at=2.0), 2.0)
        await pilot.pause()
        shown = [detail.get_cell(key, "cpu").plain for key in order(view)]
        assert shown == ["96%", "14%", "9%", "9%", "9%"]


async def test_threads_with_equal_figures_keep_their_places() -> None:
    app = ThreadsApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(ThreadsView)
        view.show(snapshot({1: [5.0, 6.0, 20.0]}), 0.0)
        await pilot.pause()
        assert order(view) == ["2", "1", "0"]
        # Thread 0 comes level with thread 1: shown equal, they do not swap.
        view.show(snapshot({1: [6.2, 5.9, 20.0]}, at=1.0), 1.0)
        await pilot.pause()
        assert order(view) == ["2", "1", "0"]
        view.show(snapshot({1: [7.0, 5.9, 20.0]}, at=2.0), 2.0)
        await pilot.pause()
        assert order(view) == ["2", "0", "1"]


async def test_the_sorted_column_carries_the_order_in_its_header() -> None:
    app = ThreadsApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(ThreadsView)
        detail = view.query_one("#detail", KeyedTable)
        view.show(snapshot({1: [5.0, 6.0, 20.0]}), 0.0)
        await pilot.pause()

        def labels() -> list[str]:
            return [str(c.label) for c in detail.ordered_columns[:3]]

        assert labels() == ["thr", "name", "cpu▼"]
        assert "cpu▼" in screen_text(app)
        for mode, expected in (("thread", ["thr▲", "name", "cpu"]),
                               ("name", ["thr", "name▲", "cpu"]),
                               ("cpu", ["thr", "name", "cpu▼"])):
            assert view.next_sort() == mode
            view.redraw(0.0)
            await pilot.pause()
            assert labels() == expected
        assert "cpu▼" in screen_text(app)


async def test_a_node_that_looks_the_same_keeps_its_grid_row() -> None:
    app = ThreadsApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(ThreadsView)
        grid = view.query_one("#grid", KeyedTable)
        view.show(snapshot({1: [6.0] * 8, 2: [6.0] * 8}), 0.0)
        await pilot.pause()
        row_1, row_2 = grid._cells["1"], grid._cells["2"]
        grid._repaint_regions.clear()
        # Node 1 moves within the same heat step (and the same shown figures); node 2's
        # hottest thread changes.
        view.show(snapshot({1: [6.2] * 8, 2: [6.0] * 7 + [9.0]}, at=1.0), 1.0)
        assert grid._cells["1"] is row_1
        assert grid._cells["2"] is not row_2
        assert [r.y for r in grid._repaint_regions] == [2], "node 2's row only"
        assert grid.get_cell("2", "hottest").plain == "ldm 7 9%"


async def test_the_trend_has_its_full_width_from_the_first_refresh() -> None:
    app = ThreadsApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(ThreadsView)
        detail = view.query_one("#detail", KeyedTable)
        view.show(snapshot({1: [50.0] * 4}, history=1), 0.0)
        await pilot.pause()
        widths = detail.widths
        assert detail.get_cell("0", "trend") == " " * (TREND_WIDTH - 1) + "▄"
        detail._repaint_regions.clear()
        for seconds in range(2, TREND_WIDTH + 3):
            view.show(snapshot({1: [50.0] * 4}, at=seconds, history=seconds), seconds)
            await pilot.pause()
            assert detail.widths == widths, "the table never widens"
        assert detail.get_cell("0", "trend") == "▄" * TREND_WIDTH


async def test_the_first_refresh_of_a_hidden_view_cuts_blocks_to_the_screen() -> None:
    app = ThreadsApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(ThreadsView)
        view.display = False
        await pilot.pause()
        view.show(snapshot({1: [50.0] * 2}), 0.0)
        shown = view.query_one("#detail", KeyedTable).get_cell("0", "blocks")
        view.display = True
        await pilot.pause()
        view.show(snapshot({1: [50.0] * 2}, at=1.0), 1.0)
        detail = view.query_one("#detail", KeyedTable)
        again = detail.get_cell("0", "blocks")
        assert shown == again, "the room for blocks is the same before and after layout"
        others = sum(column.get_render_width(detail) for column in detail.ordered_columns[:-1])
        padding, gutter = 2, 2
        assert len(shown) == 120 - others - padding - gutter, "the screen less the rest"


async def test_grid_rows_out_of_sight_are_brought_up_to_date_when_scrolled_to() -> None:
    app = ThreadsApp()
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(ThreadsView)
        grid = view.query_one("#grid", KeyedTable)
        view.show(snapshot({node: [6.0] * 4 for node in range(1, 31)}), 0.0)
        await pilot.pause()
        in_sight = grid.size.height - 1
        assert 3 < in_sight < 29, "the grid scrolls"
        busy = {node: [6.0] * 4 for node in range(1, 31)}
        busy[2] = busy[30] = [6.0, 7.0, 6.0, 6.0]
        view.show(snapshot(busy, at=1.0), 1.0)
        await pilot.pause()
        assert grid.get_cell("2", "hottest").plain == "ldm 1 7%", "in sight: up to date"
        assert grid.get_cell("30", "hottest").plain == "ldm 0 6%", "out of sight: left"
        grid.scroll_end(animate=False)
        assert await settled(
            pilot,
            lambda: "ldm 1 7%"
            in app.screen._compositor.render_strips()[grid.region.bottom - 1].text,
        )
        assert grid.get_cell("30", "hottest").plain == "ldm 1 7%"


async def test_detail_rows_out_of_sight_are_brought_up_to_date_when_scrolled_to() -> None:
    app = ThreadsApp()
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(ThreadsView)
        detail = view.query_one("#detail", KeyedTable)
        view.show(snapshot({1: [30.0] + [6.0] * 39}), 0.0)
        await pilot.pause()
        assert 3 < detail.size.height - 1 < 40, "the detail scrolls"
        # Thread 39 drops a point: it stays last, out of sight.
        view.show(snapshot({1: [40.0] + [6.0] * 38 + [5.0]}, at=1.0), 1.0)
        await pilot.pause()
        assert detail.get_cell("0", "cpu").plain == "40%", "in sight: up to date"
        assert detail.get_cell("39", "cpu").plain == "6%", "out of sight: left"
        detail.scroll_end(animate=False)
        assert await settled(pilot, lambda: detail.get_cell("39", "cpu").plain == "5%")
        # A thread that climbs into sight is drawn with its new figures.
        view.show(snapshot({1: [40.0] + [6.0] * 37 + [30.0, 5.0]}, at=2.0), 2.0)
        detail.scroll_home(animate=False)
        await pilot.pause()
        view.show(snapshot({1: [40.0] + [6.0] * 37 + [31.0, 5.0]}, at=3.0), 3.0)
        await pilot.pause()
        assert detail.row_keys_in_order()[:2] == ["0", "38"]
        assert detail.get_cell("38", "cpu").plain == "31%"


async def test_moving_to_another_node_draws_its_threads_in_the_same_pass() -> None:
    app = ThreadsApp()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(ThreadsView)
        grid = view.query_one("#grid", KeyedTable)
        detail = view.query_one("#detail", KeyedTable)
        view.show(snapshot({1: [10.0, 20.0, 30.0], 2: [70.0, 60.0]}), 0.0)
        await pilot.pause()
        detail.move_cursor(row=2)
        grid.move_cursor(row=1)
        # No message has been handled since the key: the detail is already node 2's, so
        # the cursor and the threads it selects reach the screen in one update.
        assert view.drawn_for == 2
        assert detail.row_keys_in_order() == ["0", "1"]
        assert detail.get_cell("0", "cpu").plain == "70%"
        assert detail.cursor_row == 0, "another node's threads start at the top"
        assert "node 2: 2 threads" in str(view.query_one("#caption").render())

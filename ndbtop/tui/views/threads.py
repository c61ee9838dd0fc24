"""Threads: every data node's threads as a heat grid; the selected node's threads in detail.

A large cluster has some 1,500 threads whose figures move a little at every refresh. The
view keeps its work and what reaches the terminal small: a row whose figures look the same
as at the last refresh keeps its very cells (the table skips it), rows out of sight are
worked out when they come into sight, threads whose figures are equal keep their places, the trend
column has its full width from the start, and colour is used where it tells something
(every change of colour costs an escape sequence).
"""

from __future__ import annotations

from collections.abc import Container
from itertools import groupby
from operator import attrgetter
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from ndbtop.compat import zip_strict
from ndbtop.model.hosts import host_threads
from ndbtop.model.ndbinfo import ThreadCpu
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.tui.alarm import HOT, colourless, marked
from ndbtop.tui.format import stale_mark
from ndbtop.tui.safe import Plain, Text
from ndbtop.tui.views.base import View
from ndbtop.tui.views.heat import _HEAT_LOOKS, fit, heat_char, heat_looks, heat_text
from ndbtop.tui.views.thread_detail import BAR_WIDTH, OS_BAR_WIDTH, TREND_WIDTH, DetailRows
from ndbtop.tui.widgets.keyed_table import KeyedTable

__all__ = ["TREND_WIDTH", "_HEAT_LOOKS", "ThreadsView", "fit", "heat_char", "heat_looks"]

GRID_COLUMNS = (
    ("node", "node"),
    ("heat", "threads (one cell each, by thr_no)"),
    ("hottest", "hottest"),
    ("avg", "avg cpu"),
)
DETAIL_COLUMNS = (
    ("thr", "thr"),
    ("name", "name"),
    ("cpu", "cpu"),
    ("bar", "exec|send|spin / OS"),
    ("split", "user  sys exec send spin host"),
    ("trend", "trend"),
    ("blocks", "blocks"),
)
NO_SQL = frozenset({SourceState.DISABLED, SourceState.RETRYING, SourceState.UNAVAILABLE})
"""States of the ndbinfo source in which the threads read on the hosts are shown instead."""
SORTED_LABELS = {"cpu": ("cpu", "cpu▼"), "thread": ("thr", "thr▲"), "name": ("name", "name▲")}
"""Each sort order's column, and its header while the detail is sorted by it."""


class ThreadsView(View):
    """Per-thread CPU of every data node, from ``ndbinfo.cpustat``."""

    title = "Threads"
    short_title = "Thr"
    sort_modes = ("cpu", "thread", "name")

    # The detail keeps its scrollbar's gutter whether the scrollbar shows or not: the
    # block list is cut to the room beside the other columns, and that room then stays
    # the same from the first refresh on.
    DEFAULT_CSS = """
    ThreadsView #grid { height: auto; max-height: 40%; }
    ThreadsView #caption { height: 1; padding: 0 1; }
    ThreadsView #detail { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    ThreadsView #empty { height: auto; padding: 1 1; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._detail_node: int | None = None
        self._grid_rows: dict[int, tuple[tuple[object, ...], tuple[object, ...]]] = {}
        """Each node's last grid row, with what it shows as plain values."""
        self._threads_seen: dict[int, tuple[list[ThreadCpu], list[float], tuple[object, ...]]] = {}
        """Each node's threads at the last refresh, their CPU and the grid row drawn."""
        self._rows = DetailRows()
        """The detail's rows, drawn again only where what they show changed."""
        self._places: dict[int, int] = {}
        """Each thread's place in the detail at the last refresh: threads that show the
        same figure keep their order instead of swapping."""
        self._widgets: dict[str, Widget] = {}

    def compose(self) -> ComposeResult:
        yield Plain(id="empty")
        yield KeyedTable(GRID_COLUMNS, id="grid")
        yield Plain(id="caption")
        yield KeyedTable(DETAIL_COLUMNS, id="detail", drop=("blocks", "trend", "split"))

    def _widget(self, selector: str) -> Any:
        widget = self._widgets.get(selector)
        if widget is None:
            widget = self._widgets[selector] = self.query_one(selector)
        return widget

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        ni = snap.ndbinfo
        empty: Static = self._widget("#empty")
        threads = ni.threads if ni is not None else ()
        unavailable = dict(ni.unavailable) if ni is not None else {}
        from_hosts = False
        src = snap.source("ndbinfo")
        if not threads and (
            "threads" in unavailable or (ni is None and src is not None and src.state in NO_SQL)
        ):
            # No ndbinfo (no SQL node, as in an initial start): the threads read on the
            # data nodes' hosts, if any. Not while ndbinfo is still being read the first time.
            threads = host_threads(snap.hosts)
            from_hosts = bool(threads)
        if not threads:
            src = snap.source("ndbinfo")
            why = unavailable.get("threads") or (src.error if src and src.error else None)
            self.put(
                "#empty",
                Text(
                    "Per-thread CPU comes from ndbinfo through a SQL node: "
                    + (why or "no data yet."),
                    style="yellow",
                )
            )
            empty.display = True
        else:
            empty.display = False
        by_node: dict[int, list[ThreadCpu]] = {}
        for node_id, group in groupby(threads, key=_node_id):
            by_node.setdefault(node_id, []).extend(group)
        pcts: dict[int, list[float]] = {}
        grid: KeyedTable = self._widget("#grid")
        in_sight = self._rows_in_sight(grid)
        grid_rows = []
        for node_id in sorted(by_node):
            ts = by_node[node_id]
            if self.filter_text and not self.matches(node_id, *(t.thread_name for t in ts)):
                continue
            known = self._threads_seen.get(node_id)
            if known is not None and len(grid_rows) not in in_sight:
                # Out of sight: the row is worked out again when scrolled into sight.
                grid_rows.append((str(node_id), known[2]))
                continue
            ts.sort(key=_thr_no)
            # A node whose threads report exactly what they did at the last refresh is
            # not looked at again (a comparison of the values, not a walk through them).
            if known is not None and known[0] == ts:
                pcts[node_id], cells = known[1], known[2]
            else:
                pcts[node_id] = [t.cpu_pct for t in ts]
                cells = self._grid_row(node_id, ts, pcts[node_id])
                self._threads_seen[node_id] = (ts, pcts[node_id], cells)
            grid_rows.append((str(node_id), cells))
        grid.sync(grid_rows)
        node_id = self.selected_node() or (min(by_node) if by_node else None)
        detail: KeyedTable = self._widget("#detail")
        if node_id is None or node_id not in by_node:
            self.put("#caption", "", layout=False)
            detail.sync([])
            return
        ts = by_node[node_id]
        if node_id not in pcts:
            ts.sort(key=_thr_no)
            pcts[node_id] = [t.cpu_pct for t in ts]
        self.put(
            "#caption",
            stale_mark(snap, "ndbinfo")
            + Text(
                f"node {node_id}: {len(ts)} threads, sorted by {self.sort_mode}"
                + ("  (hottest marked HOT)" if colourless() else "  (hottest in red)") + (
                    "  · read on its host: OS thread names and order, no ndbinfo"
                    if from_hosts else ""),
                style="bold",
            ),
            layout=False,
        )
        other_node = self._detail_node != node_id
        if other_node:
            self._places.clear()
            self._rows.clear()
        self._detail_node = node_id
        node_pcts = pcts[node_id]
        mode = self.sort_mode
        self._mark_sort(detail, mode)
        # By CPU: by the percentage shown, so that the column reads in order; threads whose
        # figures are equal keep their places instead of swapping.
        last = self._places
        rank = {
            str(t.thr_no): (-round(pct), last.get(t.thr_no, len(last)), t.thr_no)
            if mode == "cpu"
            else (t.thread_name, t.thr_no) if mode == "name"
            else (t.thr_no,)
            for t, pct in zip_strict(ts, node_pcts)
        }
        shown = [
            (t, pct) for t, pct in zip_strict(ts, node_pcts)
            if not self.filter_text or self.matches(t.thread_name, " ".join(t.blocks), node_id)
        ]
        place = {key: i for i, key in enumerate(sorted((str(t.thr_no) for t, _ in shown),
                                                        key=rank.__getitem__))}
        self._places = {int(key): i for key, i in place.items()}
        in_sight = self._rows_in_sight(detail)
        rows = []
        fresh = []
        for t, pct in shown:
            drawn = self._rows.drawn(t.thr_no)
            if drawn is not None and place[str(t.thr_no)] not in in_sight:
                # Out of sight: the row is worked out again when it comes into sight.
                rows.append((str(t.thr_no), drawn[1]))
            else:
                fresh.append((t, pct))
        top_pct = max(node_pcts)
        hottest = ts[node_pcts.index(top_pct)].thr_no if top_pct >= 50 else None
        looks = self._rows.looks(snap, node_id, fresh, hottest)
        rows += [(str(look[0]), self._rows.row(look)) for look in self._fit_blocks(detail, looks)]
        detail.sync(rows, order=rank.__getitem__, reset=other_node)

    def on_mount(self) -> None:
        """Draw the rows that come into sight at once: the tables' rows are kept up to
        date only while in sight."""
        for table in ("#grid", "#detail"):
            self.watch(self._widget(table), "scroll_y", self._scrolled, init=False)

    def on_resize(self) -> None:
        """More rows may be in sight."""
        self._scrolled()

    def _scrolled(self) -> None:
        if self.snapshot is None:
            return
        if self._rendering:
            self.call_later(self._scrolled)
        else:
            self.redraw(self.snapshot.wall)

    def _rows_in_sight(self, table: KeyedTable) -> Container[int]:
        # The rows of a table on screen, and the cursor's; every row before the table has
        # been laid out.
        height = table.size.height - (table.header_height if table.show_header else 0)
        if height <= 0 or not table.display:
            return _EVERY_ROW
        first = int(table.scroll_y)
        rows = range(first, first + height + 1)  # one more while a scroll is half way
        cursor = table.cursor_row
        return rows if cursor in rows else {*rows, cursor}

    @staticmethod
    def _mark_sort(detail: KeyedTable, mode: str) -> None:
        # The sorted column's header carries the order's arrow: a sign that is text, so it
        # shows without colour too.
        for column, (label, arrowed) in SORTED_LABELS.items():
            key = "thr" if column == "thread" else column
            detail.set_label(key, arrowed if column == mode else label)

    def _grid_row(
        self, node_id: int, ts: list[ThreadCpu], pcts: list[float]
    ) -> tuple[object, ...]:
        # A node that looks the same as at the last refresh keeps the very same cells: the
        # table then skips the row without comparing it.
        top_pct = max(pcts)
        top = ts[pcts.index(top_pct)]
        look = (
            heat_looks(pcts), top.thread_name, top.thr_no, f"{top_pct:.0f}", top_pct >= 90,
            f"{sum(pcts) / len(pcts):.0f}",
        )
        drawn = self._grid_rows.get(node_id)
        if drawn is not None and drawn[0] == look:
            return drawn[1]
        heat, name, thr_no, top_shown, hot, avg = look
        cells = (
            str(node_id),
            heat_text(heat),
            marked(f"{name} {thr_no} {top_shown}%", HOT if hot else None,
                   "bold red" if hot else ""),
            f"{avg}%",
        )
        self._grid_rows[node_id] = (look, cells)
        return cells

    def _fit_blocks(
        self, detail: KeyedTable, looks: list[tuple[Any, ...]]
    ) -> list[tuple[Any, ...]]:
        # The block list is the last column: cut to what the screen has left beside the
        # widest cell of every other column, so the table never scrolls sideways.
        widths = detail.widths
        for look in looks:
            shown = (len(str(look[0])), cell_len(look[1]), len(look[3]),
                     BAR_WIDTH + 1 + OS_BAR_WIDTH, len(look[8]), TREND_WIDTH)
            widths = [max(w, c) for w, c in zip(widths, shown)]
        used = sum(w + 2 * detail.cell_padding for w in widths[: len(DETAIL_COLUMNS) - 1])
        # The room is known before the view is first laid out: the view spans the screen,
        # and the scrollbar's gutter is kept whether the scrollbar shows or not.
        width = self.size.width or self.app.size.width
        room = max(width - used - 2 * detail.cell_padding - detail.scrollbar_size_vertical, 12)
        return [(*look[:-1], fit(look[-1], room)) for look in looks]

    def selected_node(self) -> int | None:
        grid: KeyedTable = self._widget("#grid")
        key = grid.selected_key
        return None if key is None else int(key)

    def copy_text(self) -> str | None:
        snap = self.snapshot
        node_id = self.selected_node()
        if snap is None or snap.ndbinfo is None or node_id is None:
            return None
        lines = [
            f"node {t.node_id} thr {t.thr_no} {t.thread_name} cpu {t.cpu_pct:.0f}% "
            f"blocks {' '.join(t.blocks)}"
            for t in snap.ndbinfo.threads
            if t.node_id == node_id
        ]
        return "\n".join(lines)


class _EveryRow:
    """A container of every row number."""

    def __contains__(self, row: object) -> bool:
        return True


_EVERY_ROW = _EveryRow()


_thr_no = attrgetter("thr_no")
_node_id = attrgetter("node_id")

"""Threads: every data node's threads as a heat grid; the selected node's threads in detail."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from ndbtop.model.ndbinfo import ThreadCpu
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.format import bar, sparkline, split_bar
from ndbtop.tui.views.base import View
from ndbtop.tui.widgets.keyed_table import KeyedTable, cell_width

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
_HEAT = " ▁▂▃▄▅▆▇█"


def fit(text: str, room: int) -> str:
    """``text`` cut to ``room`` characters, with an ellipsis when cut."""
    return text if len(text) <= room else text[: room - 1] + "…"


def heat_char(pct: float) -> tuple[str, str]:
    """One character and its colour for a thread: height and colour show its CPU."""
    char = _HEAT[max(1, min(int(pct / 100 * (len(_HEAT) - 1) + 0.5), len(_HEAT) - 1))]
    return char, "red" if pct >= 90 else "yellow" if pct >= 60 else "green"


def heat_row(pcts: list[float]) -> Text:
    """A node's threads as one line of characters, neighbours of one colour in one span."""
    text = Text()
    run, style = "", ""
    for pct in pcts:
        char, colour = heat_char(pct)
        if colour != style and run:
            text.append(run, style=style)
            run = ""
        run += char
        style = colour
    if run:
        text.append(run, style=style)
    return text


class ThreadsView(View):
    """Per-thread CPU of every data node, from ``ndbinfo.cpustat``."""

    title = "Threads"
    sort_modes = ("cpu", "thread", "name")

    DEFAULT_CSS = """
    ThreadsView #grid { height: auto; max-height: 40%; }
    ThreadsView #caption { height: 1; padding: 0 1; }
    ThreadsView #detail { height: 1fr; overflow-x: hidden; }
    ThreadsView #empty { height: auto; padding: 1 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="empty")
        yield KeyedTable(GRID_COLUMNS, id="grid")
        yield Static(id="caption")
        yield KeyedTable(DETAIL_COLUMNS, id="detail")

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        ni = snap.ndbinfo
        empty = self.query_one("#empty", Static)
        threads = ni.threads if ni is not None else ()
        unavailable = dict(ni.unavailable) if ni is not None else {}
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
        by_node: dict[int, list[tuple[ThreadCpu, float]]] = {}
        for t in threads:
            by_node.setdefault(t.node_id, []).append((t, t.cpu_pct))
        grid_rows = []
        for node_id in sorted(by_node):
            ts = sorted(by_node[node_id], key=lambda tp: tp[0].thr_no)
            if not self.matches(node_id, *(t.thread_name for t, _ in ts)):
                continue
            heat = heat_row([pct for _, pct in ts])
            top, top_pct = max(ts, key=lambda tp: tp[1])
            top_text = Text(
                f"{top.thread_name} {top.thr_no} {top_pct:.0f}%",
                style="bold red" if top_pct >= 90 else "bold",
            )
            avg = sum(pct for _, pct in ts) / len(ts)
            grid_rows.append(
                (str(node_id), (Text(str(node_id), style="bold"), heat, top_text, f"{avg:.0f}%"))
            )
        grid = self.query_one("#grid", KeyedTable)
        grid.sync(grid_rows)
        node_id = self.selected_node() or (min(by_node) if by_node else None)
        detail = self.query_one("#detail", KeyedTable)
        if node_id is None or node_id not in by_node:
            self.put("#caption", "", layout=False)
            detail.sync([])
            return
        host_cpu = {}
        if snap.host is not None:
            host_cpu = {t.tid: t.cpu_pct for t in snap.host.threads if t.node_id == node_id}
        ts = by_node[node_id]
        top, top_pct = max(ts, key=lambda tp: tp[1])
        self.put(
            "#caption",
            Text(
                f"node {node_id}: {len(ts)} threads, sorted by {self.sort_mode}"
                + ("  (hottest in red)" if top else ""),
                style="bold",
            )
        )
        series = dict(snap.history)
        rows = []
        for t, pct in ts:
            if self.filter_text and not self.matches(t.thread_name, " ".join(t.blocks), node_id):
                continue
            is_top = t is top and top_pct >= 50
            name = Text(t.thread_name, style="bold red" if is_top else "")
            os_busy = (t.os_user_pct or 0) + (t.os_system_pct or 0)
            stacked = split_bar(
                [(t.exec_pct, "green"), (t.send_pct, "blue"), (t.spin_pct, "magenta")], 16
            )
            stacked.append(" ")
            stacked.append_text(bar(os_busy, 8))
            trend = sparkline(series.get(f"thread.cpu.{t.node_id}.{t.thr_no}", ()), 12, hi=100.0)
            host = host_cpu.get(t.os_tid) if t.os_tid else None
            rows.append(
                (
                    str(t.thr_no),
                    (
                        str(t.thr_no),
                        name,
                        Text(f"{pct:.0f}%", style="bold red" if is_top else ""),
                        stacked,
                        " ".join(
                            _p(v).rjust(4)
                            for v in (t.os_user_pct, t.os_system_pct, t.exec_pct, t.send_pct,
                                      t.spin_pct, host)
                        ),
                        trend,
                        " ".join(t.blocks),
                    ),
                )
            )
        mode = self.sort_mode
        # By CPU: by the percentage shown, so that threads whose shown figures are equal keep
        # their places instead of swapping at every refresh.
        rank = {
            str(t.thr_no): (-round(pct), t.thr_no) if mode == "cpu"
            else (t.thread_name, t.thr_no) if mode == "name"
            else (t.thr_no,)
            for t, pct in ts
        }
        rows = self._fit_blocks(detail, rows)
        if detail.row_count and self._detail_node != node_id:
            detail.sync([])
        self._detail_node = node_id
        detail.sync(rows, order=rank.__getitem__)

    _detail_node: int | None = None

    def _fit_blocks(
        self, detail: KeyedTable, rows: list[tuple[str, tuple[object, ...]]]
    ) -> list[tuple[str, tuple[object, ...]]]:
        # The block list is the last column: cut to what the screen has left beside the
        # widest cell of every other column, so the table never scrolls sideways.
        widths = detail.widths
        for _, cells in rows:
            widths = [max(w, cell_width(c)) for w, c in zip(widths, cells, strict=False)]
        used = sum(w + 2 * detail.cell_padding for w in widths[:-1])
        scrollbar = detail.scrollbar_size_vertical if detail.show_vertical_scrollbar else 0
        room = max(self.size.width - used - 2 * detail.cell_padding - scrollbar, 12)
        return [(key, (*cells[:-1], fit(str(cells[-1]), room))) for key, cells in rows]

    def selected_node(self) -> int | None:
        key = self.query_one("#grid", KeyedTable).selected_key
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


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"

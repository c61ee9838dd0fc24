"""Tables: the largest tables by DataMemory allocated, with their indexes and BLOB part
tables, each node's share, the largest fragment against the mean, and the DataMemory each
node has left.

``ndbinfo.memory_per_fragment`` is read (one scan of every data node, summed on the SQL
node) only while this view shows.
"""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult

from ndbtop.model.headroom import fills_first, headroom
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.table_memory import READ_EVERY, TOP_TABLES, TableMemory
from ndbtop.report.table_memory import READ, tables_state
from ndbtop.report.tables import human_bytes
from ndbtop.tui.alarm import ALARM, marked
from ndbtop.tui.format import bar, stale_mark
from ndbtop.tui.safe import Plain, Text
from ndbtop.tui.views.base import View
from ndbtop.tui.widgets.keyed_table import KeyedTable

COLUMNS = (
    ("table", "table"),
    ("bytes", "allocated"),
    ("skew", "skew"),
    ("largest", "largest frag"),
    ("in_use", "in use"),
    ("fixed", "fixed"),
    ("var", "var"),
    ("hash", "hash index"),
    ("nodes", "nodes"),
)
SKEW_WARN = 1.5
"""A largest fragment this many times the mean is shown in yellow."""
SKEW_BAD = 3.0
"""...and from this many times in red."""
MAX_FRAGMENTS_SHOWN = 64
"""Fragment replicas listed in the detail panel of one table."""
HEADROOM_NODES = 6
"""Data nodes named on the headroom line (those with the least DataMemory left)."""


def skew_text(value: float | None) -> Text:
    """The skew, coloured from :data:`SKEW_WARN` and :data:`SKEW_BAD`."""
    if value is None:
        return Text("-", style="dim")
    style = "bold red" if value >= SKEW_BAD else "yellow" if value >= SKEW_WARN else ""
    return marked(f"{value:.2f}", ALARM if value >= SKEW_BAD else None, style)


def _cells(t: TableMemory) -> tuple[object, ...]:
    largest = t.largest_fragment
    return (
        Text(t.sql_name, style="bold"),
        human_bytes(t.bytes),
        skew_text(t.skew),
        "-" if largest is None else human_bytes(largest[2]),
        human_bytes(t.in_use),
        human_bytes(t.fixed_alloc),
        human_bytes(t.var_alloc),
        human_bytes(t.hash_alloc),
        str(len(t.nodes)),
    )


def headroom_text(snap: ClusterSnapshot) -> Text:
    """``DataMemory left``: each node's free bytes and fill, the node that fills first."""
    nodes = headroom(snap.live_ndbinfo())
    out = Text("DataMemory left ", style="bold")
    if not nodes:
        out.append("memoryusage not read yet", style="dim")
        return out
    first = fills_first(nodes)
    shown = list(nodes)
    if len(shown) > HEADROOM_NODES:
        # The nodes with the least left: in a large cluster the line would wrap for screens.
        shown = sorted(shown, key=lambda h: (h.free, h.node_id))[:HEADROOM_NODES]
        out.append(f"(the {HEADROOM_NODES} with least, of {len(nodes)})", style="dim")
    for h in shown:
        style = "bold" if first is not None and h.node_id == first.node_id else ""
        out.append(f" node {h.node_id} ", style=style)
        out.append(human_bytes(h.free))
        out.append(" ")
        out.append_text(bar(h.used_pct, 6, warn=80, crit=90))
    if first is not None:
        out.append(f"   fills first: node {first.node_id}", style="bold")
        if first.used_pct is not None:
            out.append(f" ({first.used_pct:.1f}% used)")
    return out


def detail_panel(t: TableMemory) -> Table:
    """The selected table on each node, and its own fragment replicas: what of its
    allocated bytes they hold, the rest being its indexes and BLOB parts."""
    grid = Table.grid(padding=(0, 1))
    head = Text(t.sql_name, style="bold")
    mean = t.mean_fragment
    largest = t.largest_fragment
    if largest is not None and mean:
        head.append(f"   largest own fragment {largest[1]} on node {largest[0]}: "
                    f"{human_bytes(largest[2])}, mean {human_bytes(mean)}, skew ")
        head.append_text(skew_text(t.skew))
    grid.add_row(head)
    parts = max(t.bytes - t.own_bytes, 0)
    split = Text(f"own fragments {human_bytes(t.own_bytes)} of {human_bytes(t.bytes)} "
                 "allocated", style="dim")
    if parts:
        split.append(f"; the other {human_bytes(parts)}: its indexes and BLOB parts (their "
                     "fragments not listed)", style="dim")
    if t.sql_name != t.fq_name:
        split.append(f" · NDB name {t.fq_name}", style="dim")
    grid.add_row(split)
    nodes = Table(box=None, padding=(0, 1), show_edge=False)
    for name in ("node", "allocated", "in use", "fixed", "var", "hash index", "own frags"):
        nodes.add_column(name, justify="right", no_wrap=True)
    for n in t.nodes:
        nodes.add_row(str(n.node_id), human_bytes(n.bytes), human_bytes(n.in_use),
                      human_bytes(n.fixed_alloc), human_bytes(n.var_alloc),
                      human_bytes(n.hash_alloc), str(len(n.fragments)))
    grid.add_row(nodes)
    frags = sorted(((n.node_id, f, size) for n in t.nodes for f, size in n.fragments),
                   key=lambda x: (-x[2], x[0], x[1]))
    if frags:
        line = Text("own fragments (node/fragment: allocated, largest first) ", style="dim")
        for node_id, f, size in frags[:MAX_FRAGMENTS_SHOWN]:
            style = "bold" if mean and size >= SKEW_WARN * mean else ""
            line.append(f" {node_id}/{f}:{human_bytes(size)}", style=style)
        if len(frags) > MAX_FRAGMENTS_SHOWN:
            line.append(f"  (+{len(frags) - MAX_FRAGMENTS_SHOWN} more)", style="dim")
        grid.add_row(line)
    return grid


class TablesView(View):
    """Memory per table and DataMemory headroom."""

    title = "Tables"
    sort_modes = ("allocated", "skew", "name")
    panels_wanted = ("tables",)
    """The on-demand ndbinfo panels read only while this view shows."""

    DEFAULT_CSS = """
    TablesView .caption { height: auto; padding: 0 1; }
    TablesView #tables { height: 1fr; }
    TablesView #table_detail { height: auto; max-height: 40%; padding: 0 1; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._detail_for: str | None = None

    def compose(self) -> ComposeResult:
        yield Plain(classes="caption", id="tables_caption")
        yield Plain(classes="caption", id="headroom")
        yield KeyedTable(COLUMNS, id="tables",
                         drop=("fixed", "var", "hash", "nodes", "in_use"))
        yield Plain(id="table_detail")

    def _sorted(self, tables: tuple[TableMemory, ...]) -> list[TableMemory]:
        shown = [t for t in tables if self.matches(t.fq_name)]
        if self.sort_mode == "skew":
            shown.sort(key=lambda t: (-(t.skew or 0.0), -t.bytes, t.fq_name))
        elif self.sort_mode == "name":
            shown.sort(key=lambda t: t.fq_name)
        return shown

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        state, note = tables_state(snap)
        sample = snap.live_ndbinfo()
        tables = sample.tables if sample is not None and state == READ else ()
        caption = Text("Memory per table", style="bold")
        if state == READ and sample is not None:
            caption.append(
                f"  {len(tables)} largest by DataMemory allocated"
                f"{' (the most one read brings)' if len(tables) >= TOP_TABLES else ''}"
                f", with their indexes and BLOB parts, by {self.sort_mode}; in use = less "
                "the free space in their pages; largest frag: the table's own fragments "
                "only", style="dim")
            read_at = sample.panel_read_at("tables")
            if read_at is not None:
                age = max(sample.taken_at - read_at, 0.0)
                caption.append(f"; read {age:.0f} s ago (every {READ_EVERY:g} s)",
                               style="dim")
        else:
            caption.append(f": {note}", style="yellow" if state != "not read yet" else "dim")
        self.put("#tables_caption", stale_mark(snap, "ndbinfo") + caption)
        self.put("#headroom", headroom_text(snap))
        shown = self._sorted(tables)
        grid = self.query_one("#tables", KeyedTable)
        grid.sync([(t.fq_name, _cells(t)) for t in shown])
        self._show_detail(shown)

    def _show_detail(self, shown: list[TableMemory]) -> None:
        key = self.query_one("#tables", KeyedTable).selected_key
        self._detail_for = key
        chosen = next((t for t in shown if t.fq_name == key), shown[0] if shown else None)
        if chosen is None:
            self.put("#table_detail", Text(""))
            return
        self.put_keyed("#table_detail", chosen, lambda: detail_panel(chosen))

    def _cursor_moved(self) -> None:
        if self._rendering or self.snapshot is None:
            return
        if self.query_one("#tables", KeyedTable).selected_key != self._detail_for:
            self.redraw(self.wall() if self.wall is not None else self.snapshot.wall)

    def copy_text(self) -> str | None:
        key = self.query_one("#tables", KeyedTable).selected_key
        sample = self.snapshot.live_ndbinfo() if self.snapshot is not None else None
        t = next((t for t in sample.tables if t.fq_name == key), None) if sample else None
        if t is None:
            return None
        nodes = " ".join(f"{n.node_id}:{n.bytes}" for n in t.nodes)
        skew = "-" if t.skew is None else f"{t.skew:.2f}"
        return f"{t.fq_name} allocated {t.bytes} in_use {t.in_use} per_node {nodes} skew {skew}"

"""Nodes: every node with its state, start phase and timer; the selected node's timeline."""

from __future__ import annotations

import datetime as dt

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, effective_node_group, not_connected_text
from ndbtop.model.config_facts import measured_redo, reports_off
from ndbtop.model.derive import ActivityRate
from ndbtop.model.freshness import Freshness, freshness
from ndbtop.model.history import PhaseVsLastTime, compare_with_last_time
from ndbtop.model.hosts import HostReport
from ndbtop.model.phases import (
    START_TYPE_SHORT,
    StartTimeline,
    phase_name,
    phase_text,
    typical_seconds,
)
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.summary import ClusterSummary, single_user_text, summarize
from ndbtop.tui.format import seconds, status_text
from ndbtop.tui.safe import Plain
from ndbtop.tui.views.base import View
from ndbtop.tui.views.node_facts import (
    activity_line,
    cluster_transactions,
    data_memory_by_node,
    links_lines,
    links_warning,
    memory_line,
    memory_style,
    per_second,
)
from ndbtop.tui.views.redo import error_log_text, redo_lines
from ndbtop.tui.widgets.keyed_table import KeyedTable

COLUMNS = (
    ("id", "id"),
    ("type", "type"),
    ("host", "host"),
    ("status", "status"),
    ("phase", "phase"),
    ("timer", "in phase"),
    ("group", "group"),
    ("version", "version"),
    ("uptime", "uptime"),
    ("memory", "data mem"),
    ("tx", "tx/s"),
    ("disk", "disk %util"),
)
_TYPE_ORDER = {"NDB": 0, "MGM": 1, "API": 2}


RUNNING = frozenset({"STARTED", "STARTING", "SINGLE USER MODE", "SHUTTING_DOWN"})
"""Data node states with a running process: the others show "-" for live figures."""


def address_cell(node: NodeStatus, snap: ClusterSnapshot) -> str:
    """The node's address; for a data or management node that is not connected, where it
    may connect from, as ``ndb_mgm show`` says it (an API slot just says free slot)."""
    if node.connected or node.type == "API" or snap.config is None:
        return node.address
    return not_connected_text(node.node_id, snap.config)


def group_text(group: int | None) -> str:
    """A node group as the table shows it: ``-`` for none, ``?`` when unknown."""
    if group is None:
        return "?"
    return "-" if group == NO_NODE_GROUP else str(group)


def memory_cell(used: float | None) -> Text:
    """``61%`` of ``DataMemory`` in use, coloured from 80%."""
    return Text("" if used is None else f"{used:.0f}%", style=memory_style(used))


def util_cell(host: HostReport | None) -> Text:
    """%util of the busiest disk of the node's host; red from 90%."""
    util = host.util_pct if host is not None and host.state == "ok" else None
    if util is None:
        return Text("" if host is None else "?", style="dim")
    return Text(f"{util:.0f}%", style="bold red" if util >= 90 else "")


def transactions_cell(rate: ActivityRate | None) -> str:
    """Transactions per second the node coordinated, between two readings of its counters."""
    return per_second(rate.transactions_per_s) if rate is not None else ""


def phase_cell(node: NodeStatus, timeline: StartTimeline | None) -> Text:
    """``4 redo log init`` for a starting node (the phase in progress), stopping levels else."""
    text = phase_text(node, timeline)
    if node.status == "STARTING" and not text.startswith("done"):
        return Text(text, style="bold yellow")
    return Text(text, style="dark_orange" if node.status == "SHUTTING_DOWN" else "")


def timer_cell(timeline: StartTimeline | None, now: float) -> Text:
    """Time in the current phase; red when well past a normal duration."""
    if timeline is None or not timeline.active:
        return Text("")
    spent = timeline.in_phase_s(now)
    if spent is None:
        return Text("")
    redo = timeline.redo.total_mb if timeline.redo else None
    phase = timeline.current_phase if timeline.current_phase is not None else 0
    typical = typical_seconds(phase, timeline.kind, redo, timeline.redo_phase)
    style = "bold red" if typical and spent > 2 * typical else ""
    prefix = "" if timeline.current_exact else "≈"
    return Text(prefix + seconds(spent), style=style)


def last_time_cell(versus: PhaseVsLastTime | None) -> Text:
    """``last time 2m15s``: red for the phase in progress when it is slower than last time,
    yellow for a completed phase that was."""
    if versus is None:
        return Text("")
    style = "dim"
    if versus.slower:
        style = "bold red" if versus.running else "yellow"
    return Text(f"last time {seconds(versus.last_s)}", style=style)


def slower_warning(
    versus: PhaseVsLastTime, start_type: int | None, redo_phase: int | None = None
) -> Text:
    """The warning for a phase in progress that is slower than last time."""
    ratio = f" (+{(versus.ratio - 1) * 100:.0f}%)" if versus.ratio is not None else ""
    return Text(
        f"⚠ phase {versus.phase} {phase_name(versus.phase, start_type, redo_phase)} is slower "
        f"than last time: {seconds(versus.seconds)} so far, {seconds(versus.last_s)} last "
        f"time{ratio}",
        style="bold red",
    )


def groups_text(s: ClusterSummary, good: str) -> Text:
    """Node groups down, missing a node, or all complete (in ``good``'s style)."""
    if s.groups_down:
        return Text(f"node groups DOWN: {', '.join(f'#{g}' for g in s.groups_down)}",
                    style="bold red")
    if s.groups_missing:
        return Text("node groups missing a node: "
                    + ", ".join(f"#{g}" for g in s.groups_missing), style="yellow")
    return Text("every node group complete", style=good)


def stale_prefix(fresh: Freshness) -> str:
    """``STALE as of 12:04:31, 78 s ago: `` before figures from a source gone quiet."""
    if fresh.age is None:
        return "management server never answered: "
    return f"STALE {fresh.text()}: "


def stale_text(text: Text, stale: bool) -> Text:
    """A cell as it is, or dimmed (its colour gone) when its source is stale."""
    return Text(text.plain, style="dim") if stale else text


class NodesView(View):
    """The default view."""

    title = "Nodes"
    sort_modes = ("type", "id", "status")

    DEFAULT_CSS = """
    NodesView #summary { height: auto; padding: 0 1; }
    NodesView #nodes { height: auto; max-height: 70%; min-height: 5; }
    NodesView #detail { height: 1fr; min-height: 8; padding: 0 1; border-top: solid $primary; }
    NodesView.-short #nodes { max-height: 50%; min-height: 4; }
    NodesView.-short #detail { min-height: 4; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._rows: dict[int, tuple[tuple[object, ...], tuple[object, ...]]] = {}
        """Each node's last row: what it showed as plain values, and its cells."""
        self._drawn: tuple[ClusterSnapshot | None, str, int] = (None, "", 0)
        """The snapshot, filter and sort order the view was last drawn with."""
        self._summary_shape: tuple[int, bool] | None = None
        """The summary's line breaks, and whether a line may wrap, as last shown."""

    def compose(self) -> ComposeResult:
        yield Plain(id="summary")
        yield KeyedTable(COLUMNS, id="nodes")
        yield Plain(id="detail")

    def redraw(self, now: float) -> None:
        """Draw the last snapshot again; when only the selection changed since it was drawn
        (a key moved the cursor), only the detail panel depends on it."""
        snap = self.snapshot
        if (
            snap is not None
            and snap is self._drawn[0]
            and (self.filter_text, self.sort_index) == self._drawn[1:]
        ):
            self.put("#detail", self._detail(snap, now), layout=False)
            self.drawn_for = self.selected_node()
            return
        super().redraw(now)

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        self._drawn = (snap, self.filter_text, self.sort_index)
        s = summarize(snap.nodes, snap.config)
        fresh = freshness(snap, "mgm")
        sql = freshness(snap, "ndbinfo")
        sql_stale = sql.stale and sql.age is not None
        # Stale figures keep their words but lose the green: they are not current.
        good = "" if fresh.stale else "green"
        line = Text()
        if fresh.stale:
            line.append(stale_prefix(fresh), style="bold yellow")
        single = single_user_text(s)
        if single is not None:
            line.append(single + ": restarts refused", style="bold magenta")
            line.append("  ·  ")
        if s.data_nodes == 0:
            # Nothing seen is not a complete cluster (a wrong connect string, say).
            line.append("no data nodes seen", style="bold yellow")
        else:
            line.append(
                f"data nodes started {s.data_started}/{s.data_nodes}",
                style=good if s.all_started else "bold yellow",
            )
            line.append("  ·  ")
            line.append_text(groups_text(s, good))
            if s.unplaced:
                line.append(f"  ·  node group of node {', '.join(map(str, s.unplaced))} "
                            "unknown (no configuration)", style="yellow")
        line.append(f"  ·  API slots connected {s.api_connected}/{s.api_slots}")
        if s.master is not None:
            line.append(f"  ·  master {s.master}")
        tps = cluster_transactions(snap)
        if tps is not None:
            line.append(f"  ·  {per_second(tps)} tx/s")
        for t in snap.timelines:
            measured = measured_redo(snap, t.node_id)
            if reports_off(snap, t.node_id) and measured is not None:
                frac = "?" if measured.fraction is None else f"{measured.fraction:.0%}"
                line.append(f"  ·  node {t.node_id} redo init {frac} ETA "
                            f"{seconds(measured.eta_s)} (host)", style="yellow")
            elif reports_off(snap, t.node_id):
                line.append(f"  ·  node {t.node_id} redo init: no progress reports",
                            style="yellow")
            elif t.active and t.redo is not None and not t.redo.completed:
                line.append(
                    f"  ·  node {t.node_id} redo init {t.redo.fraction:.0%}"
                    f" ETA {seconds(t.redo.eta_s)}",
                    style="yellow",
                )
        links = links_warning(snap)
        if links is not None:
            line.append("\n")
            line.append_text(links)
        # The summary is as tall as its lines: the screen is laid out again only when it
        # may have become taller or shorter (a line more, or a line that may wrap).
        room = self.size.width - 2
        shape = (line.plain.count("\n"), any(cell_len(part) >= room
                                             for part in line.plain.split("\n")))
        self.put("#summary", line, layout=shape != self._summary_shape or shape[1])
        self._summary_shape = shape

        uptimes = {}
        if snap.ndbinfo is not None:
            uptimes = {n.node_id: n.uptime_s for n in snap.ndbinfo.nodes}
        memory = data_memory_by_node(snap)
        activity = {a.node_id: a for a in snap.activity_rates}
        timelines = {t.node_id: t for t in snap.timelines}
        drawn = self._rows
        stale = fresh.stale
        rows = []
        for n in snap.nodes:
            if self.filter_text and not self.matches(n.node_id, n.type, n.status, n.address):
                continue
            node_id = n.node_id
            t = timelines.get(node_id)
            ndb = n.type == "NDB"
            timer = timer_cell(t, now) if t is not None and t.active else None
            # A stopped node has no live figures: its last ones would read as current.
            figures = None if ndb and n.status not in RUNNING else (
                seconds(uptimes.get(node_id)) if node_id in uptimes else "",
                memory.get(node_id) if ndb else "",
                transactions_cell(activity.get(node_id)) if ndb else "",
            )
            # What the row shows, as plain values: a row that shows the same as at the
            # last refresh keeps its very cells, which the table skips without comparing.
            util = util_cell(snap.host_of(node_id)) if ndb else None
            look = (n, t, None if timer is None else (timer.plain, timer.style), stale,
                    sql_stale, figures, None if util is None else (util.plain, util.style),
                    snap.config)
            known = drawn.get(node_id)
            if known is not None and known[0] == look:
                rows.append((str(node_id), known[1]))
                continue
            group = "" if not ndb else group_text(effective_node_group(n, snap.config))
            if figures is None:
                live: tuple[object, ...] = ("-", "-", "-")
            else:
                live = (figures[0], memory_cell(figures[1]) if ndb else "", figures[2])
                if sql_stale:
                    live = tuple(stale_text(Text(c) if isinstance(c, str) else c, True)
                                 for c in live)
            cells = (
                Text(str(node_id), style="bold"),
                n.type,
                address_cell(n, snap),
                stale_text(status_text(n.status, n.type), stale),
                phase_cell(n, t),
                Text("") if timer is None else timer,
                group,
                n.version_text or "",
                *live,
                "" if util is None else util,
            )
            drawn[node_id] = (look, cells)
            rows.append((str(node_id), cells))
        if len(drawn) > len(snap.nodes):
            present = {n.node_id for n in snap.nodes}
            for node_id in [k for k in drawn if k not in present]:
                del drawn[node_id]
        table = self.query_one("#nodes", KeyedTable)
        by_id = {n.node_id: n for n in snap.nodes}
        table.sync(rows, order=self._order(by_id))
        # The detail panel takes the rest of the screen whatever it shows: no layout pass
        # (which would measure every widget of the screen again) when another node is
        # selected.
        self.put("#detail", self._detail(snap, now), layout=False)

    def _order(self, by_id: dict[int, NodeStatus]):
        mode = self.sort_mode

        def key(k: str) -> tuple[object, ...]:
            n = by_id[int(k)]
            if mode == "type":
                return (_TYPE_ORDER.get(n.type, 3), n.node_id)
            if mode == "status":
                return (n.status, n.node_id)
            return (n.node_id,)

        return key

    def selected_node(self) -> int | None:
        key = self.query_one("#nodes", KeyedTable).selected_key
        return None if key is None else int(key)

    def _focus_node(self, snap: ClusterSnapshot) -> int | None:
        selected = self.selected_node()
        node = snap.node(selected) if selected is not None else None
        if node is not None and node.type == "NDB":
            return selected
        starting = [t.node_id for t in snap.timelines if t.active]
        if starting:
            return starting[0]
        return snap.timelines[-1].node_id if snap.timelines else None

    def _detail(self, snap: ClusterSnapshot, now: float) -> Text | Table:
        node_id = self._focus_node(snap)
        if node_id is None:
            return Text("Select a data node to see its start phases.", style="dim")
        node = snap.node(node_id)
        running = node is None or node.status in RUNNING
        facts = [
            line
            for line in (
                error_log_text(snap, node_id),
                memory_line(snap, node_id) if running else None,
                activity_line(snap, node_id) if running else None,
                *links_lines(snap, node_id),
            )
            if line is not None
        ]
        timeline = timeline_panel(snap, node_id, now)
        if not facts:
            return timeline
        t = snap.timeline(node_id)
        # During a start its phases come first; otherwise what the node is doing now.
        parts = [timeline, *facts] if t is not None and t.active else [*facts, timeline]
        if isinstance(timeline, Text):
            # One Text: unchanged from the last refresh, it is not drawn again.
            return Text("\n").join(parts)
        grid = Table.grid()
        for part in parts:
            grid.add_row(part)
        return grid

    def copy_text(self) -> str | None:
        snap = self.snapshot
        node_id = self.selected_node()
        if snap is None or node_id is None or snap.node(node_id) is None:
            return None
        n = snap.node(node_id)
        assert n is not None
        group = group_text(effective_node_group(n, snap.config)) if n.type == "NDB" else ""
        return (
            f"node {n.node_id} {n.type} {n.status} phase {n.start_phase} group {group} "
            f"version {n.version_text} address {n.address}"
        )


def timeline_panel(snap: ClusterSnapshot, node_id: int, now: float) -> Table | Text:
    """The phases of a node's current or last start, with durations and redo progress.

    While the start runs, each phase that a remembered start of the same kind went
    through (``snap.past_starts``, :func:`compare_with_last_time`) shows how long it
    took last time, and a phase in progress that is slower than last time gets a
    warning line; without such a start nothing is added.
    """
    t = snap.timeline(node_id)
    if t is None:
        node = snap.node(node_id)
        state = node.status if node else "unknown"
        return Text(f"Node {node_id}: {state}; no start seen since ndbtop started.", style="dim")
    kind = START_TYPE_SHORT.get(t.kind, "start") if t.kind is not None else "start"
    began = dt.datetime.fromtimestamp(t.began_at).strftime("%H:%M:%S")
    if t.active:
        state = f"running {seconds(t.elapsed_s(now))}"
    elif t.aborted:
        state = "abandoned"
    else:
        state = f"took {seconds(t.elapsed_s(now))}"
    title = Text(
        f"Node {node_id} · {kind} · began {'' if t.began_exact else '≈'}{began} · {state}",
        style="bold",
    )
    versus = compare_with_last_time(snap.past_starts, t, now)
    rows: list[list[Text | str]] = []

    def row(phase: int, *cells: Text | str) -> None:
        shown = list(cells)
        if versus:
            shown.insert(3, last_time_cell(versus.get(phase)))
        rows.append(shown)

    redo_mb = t.redo.total_mb if t.redo else None
    for r in t.completed:
        typical = typical_seconds(r.phase, t.kind, redo_mb, t.redo_phase)
        slow = typical is not None and r.seconds > 2 * typical
        row(
            r.phase,
            str(r.phase),
            t.name_of(r.phase),
            Text(("" if r.exact else "≈") + seconds(r.seconds), style="bold red" if slow else ""),
            f"normal ~{seconds(typical)}" if slow else "",
        )
    warning: Text | None = None
    if t.active and t.current_phase is not None:
        spent = t.in_phase_s(now) or 0.0
        typical = typical_seconds(t.current_phase, t.kind, redo_mb, t.redo_phase)
        slow = typical is not None and spent > 2 * typical
        row(
            t.current_phase,
            Text(f"▶ {t.current_phase}", style="bold yellow"),
            Text(t.name_of(t.current_phase), style="bold yellow"),
            Text(
                ("" if t.current_exact else "≈") + seconds(spent) + " so far",
                style="bold red" if slow else "bold",
            ),
            Text(
                f"normal ~{seconds(typical)}" + ("  ← slow" if slow else ""),
                style="red" if slow else "dim",
            )
            if typical
            else "",
        )
        current = versus.get(t.current_phase)
        if current is not None and current.slower:
            warning = slower_warning(current, t.kind, t.redo_phase)
    # A last column empty in every row would make Rich squeeze the table into the
    # title's width (wrapping the phase names): it is left out instead.
    notes = any(cells[-1] for cells in rows)
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right")
    table.add_column()
    table.add_column(justify="right")
    if versus:
        table.add_column()
    if notes:
        table.add_column(style="dim")
    for cells in rows:
        table.add_row(*(cells if notes else cells[:-1]))
    parts: list[Text | Table] = [title, table]
    if warning is not None:
        parts.append(warning)
    parts.extend(redo_lines(snap, node_id))
    grid = Table.grid()
    for p in parts:
        grid.add_row(p)
    return grid

"""Nodes: every node with its state, start phase and timer; the selected node's timeline."""

from __future__ import annotations

import operator

from rich.cells import cell_len
from rich.table import Table
from textual.app import ComposeResult

from ndbtop.actions.left_not_started import LeftNotStarted
from ndbtop.compat import zip_strict
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import effective_node_group
from ndbtop.model.config_facts import measured_redo, reports_off
from ndbtop.model.eta import EtaMissing
from ndbtop.model.freshness import freshness
from ndbtop.model.live import LIVE_STATES
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.summary import single_user_text, summarize
from ndbtop.tui.format import seconds, status_text
from ndbtop.tui.safe import AnyText, Plain, Text
from ndbtop.tui.views.api_detail import api_detail
from ndbtop.tui.views.base import View
from ndbtop.tui.views.down_node import UP, down_node_line, error_log_text
from ndbtop.tui.views.findings import findings_line
from ndbtop.tui.views.membership_panel import membership_line, membership_panel
from ndbtop.tui.views.node_cells import (
    address_cell,
    address_line,
    group_text,
    groups_text,
    memory_cell,
    phase_cell,
    stale_prefix,
    stale_text,
    timer_cell,
    transactions_cell,
    util_cell,
)
from ndbtop.tui.views.node_eta import eta_line, eta_summary
from ndbtop.tui.views.node_facts import (
    activity_line,
    cluster_transactions,
    data_memory_by_node,
    links_lines,
    links_warning,
    memory_line,
    per_second,
)
from ndbtop.tui.views.timeline import timeline_panel
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
NARROW_DROP = ("version", "uptime", "type", "group", "tx", "disk", "memory")
"""The columns an 80-column screen leaves out first: the node's state and start phase,
then its DataMemory, its transactions and its disk stay in sight."""
_TYPE_ORDER = {"NDB": 0, "MGM": 1, "API": 2}


RUNNING = frozenset({"STARTED", "STARTING", "SINGLE USER MODE", "SHUTTING_DOWN"})
"""Data node states with a running process: the others show "-" for live figures."""


def _same_objects(now: tuple[object, ...], before: tuple[object, ...]) -> bool:
    """Whether each of ``now`` is the object it was ``before`` (a tuple: each item is)."""
    if len(now) != len(before):
        return False
    for a, b in zip_strict(now, before):
        if a is b:
            continue
        if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(map(operator.is_, a, b))):
            return False
    return True


class NodesView(View):
    """The default view."""

    title = "Nodes"
    sort_modes = ("type", "id", "status")
    panels_wanted = ("membership",)
    """``ndbinfo.membership`` (a row a data node) is read while this view shows: the
    membership line under the summary, and the panel of a selected management server."""

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
        self._rows_from: tuple[object, ...] = ()
        """What the table's rows were last worked out from."""
        self._failed_waits: LeftNotStarted | None = None

    def compose(self) -> ComposeResult:
        yield Plain(id="summary")
        yield KeyedTable(COLUMNS, id="nodes", shrink=True, drop=NARROW_DROP)
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
        silent: list[str] = []
        for t in snap.timelines:
            measured = measured_redo(snap, t.node_id)
            if reports_off(snap, t.node_id) and measured is not None:
                frac = "?" if measured.fraction is None else f"{measured.fraction:.0%}"
                # The node's one estimate, with its range, is on the line of estimates.
                line.append(f"  ·  node {t.node_id} redo init {frac} (host)", style="yellow")
            elif reports_off(snap, t.node_id):
                silent.append(str(t.node_id))
            elif t.active and t.redo is not None and not t.redo.completed:
                line.append(f"  ·  node {t.node_id} redo init {t.redo.fraction:.0%}",
                            style="yellow")
        # A silent node's missing estimate is said here, its reason being the silence.
        unestimated = frozenset(int(n) for n in silent
                                if isinstance(snap.start_eta(int(n)), EtaMissing))
        if len(unestimated) < len(silent):
            unestimated = frozenset()
        if silent:
            nodes = "nodes" if len(silent) > 1 else "node"
            line.append(f"  ·  redo init: no progress reports from {nodes} {', '.join(silent)}"
                        + (": no ETA" if unestimated else ""), style="yellow")
        member = membership_line(snap)
        if member is not None:
            line.append("\n")
            line.append_text(member)
        links = links_warning(snap)
        if links is not None:
            line.append("\n")
            line.append_text(links)
        estimates = eta_summary(snap, skip=unestimated)
        if estimates is not None:
            line.append("\n")
            line.append_text(estimates)
        found = findings_line(snap)
        if found is not None:
            line.append("\n")
            line.append_text(found)
        for n in snap.data_nodes():
            if n.status in UP:
                continue
            down = down_node_line(snap, n.node_id)
            if down is not None:
                line.append("\n")
                line.append_text(down)
        # The summary is as tall as its lines: the screen is laid out again only when it
        # may have become taller or shorter (a line more, or a line that may wrap).
        room = self.size.width - 2
        shape = (line.plain.count("\n"), any(cell_len(part) >= room
                                             for part in line.plain.split("\n")))
        self.put("#summary", line, layout=shape != self._summary_shape or shape[1])
        self._summary_shape = shape

        self._sync_rows(snap, now, fresh.stale, sql_stale)
        # The detail panel takes the rest of the screen whatever it shows: no layout pass
        # (which would measure every widget of the screen again) when another node is
        # selected.
        self.put("#detail", self._detail(snap, now), layout=False)

    def _sync_rows(self, snap: ClusterSnapshot, now: float, stale: bool, sql_stale: bool
                   ) -> None:
        # Every row is worked out from these only (and from ``now`` while a node starts):
        # when each is the very object it was at the last refresh, so are the rows.
        ni = snap.ndbinfo
        inputs = (snap.nodes, snap.timelines, ni.nodes if ni else None,
                  ni.memory if ni else None, snap.activity_rates, snap.hosts, snap.config,
                  stale, sql_stale, self.filter_text, self.sort_index)
        if _same_objects(inputs, self._rows_from) and not any(
                t.active for t in snap.timelines):
            return
        self._rows_from = inputs
        uptimes = {}
        if snap.ndbinfo is not None:
            uptimes = {n.node_id: n.uptime_s for n in snap.ndbinfo.nodes}
        memory = data_memory_by_node(snap)
        activity = {a.node_id: a for a in snap.activity_rates}
        timelines = {t.node_id: t for t in snap.timelines}
        drawn = self._rows
        rows = []
        for n in snap.nodes:
            if self.filter_text and not self.matches(n.node_id, n.type, n.status, n.address):
                continue
            node_id = n.node_id
            t = timelines.get(node_id)
            ndb = n.type == "NDB"
            timer = (timer_cell(t, now, snap.past_starts) if t is not None and t.active
                     else None)
            # Only a STARTED node has live figures: the last ones would read as current.
            figures = None if ndb and n.status not in LIVE_STATES else (
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
            # A stale management server greys the whole row's state and figures, as the
            # summary's STALE does its line: the node may have stopped since.
            if sql_stale or stale:
                live = tuple(stale_text(Text(c) if isinstance(c, str) else c, True)
                             for c in live)
            live = (*live, "" if util is None else stale_text(util, stale))
            cells = (
                Text(str(node_id), style="bold"),
                n.type,
                address_cell(n, snap),
                stale_text(status_text(n.status, n.type), stale),
                stale_text(phase_cell(n, t), stale),
                Text("") if timer is None else stale_text(timer, stale),
                group,
                n.version_text or "",
                *live,
            )
            drawn[node_id] = (look, cells)
            rows.append((str(node_id), cells))
        if len(drawn) > len(snap.nodes):
            present = {n.node_id for n in snap.nodes}
            for node_id in [k for k in drawn if k not in present]:
                del drawn[node_id]
        table = self.query_one("#nodes", KeyedTable)
        # The sorted column's header carries an arrow (text: it shows without colour).
        for column in self.sort_modes:
            label = dict(COLUMNS)[column]
            table.set_label(column, f"{label}▲" if column == self.sort_mode else label)
        by_id = {n.node_id: n for n in snap.nodes}
        table.sync(rows, order=self._order(by_id))

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
        selected = self.selected_node()
        chosen = snap.node(selected) if selected is not None else None
        if chosen is not None and chosen.type == "API":
            return api_detail(snap, chosen)
        if chosen is not None and chosen.type == "MGM":
            return membership_panel(snap)
        node_id = self._focus_node(snap)
        if node_id is None:
            return Text("Select a data node to see its start phases.", style="dim")
        node = snap.node(node_id)
        running = node is None or node.status in RUNNING
        facts = [
            line
            for line in (
                self._left_not_started(node),
                eta_line(snap, node_id),
                address_line(node, snap),
                error_log_text(snap, node_id),
                memory_line(snap, node_id) if running else None,
                activity_line(snap, node_id) if running else None,
                *links_lines(snap, node_id),
            )
            if line is not None
        ]
        timeline = timeline_panel(snap, node_id, now, compact=self.has_class("-short"))
        if not facts:
            return timeline
        t = snap.timeline(node_id)
        # During a start its phases come first; otherwise what the node is doing now.
        parts = [timeline, *facts] if t is not None and t.active else [*facts, timeline]
        if isinstance(timeline, AnyText):
            # One Text: unchanged from the last refresh, it is not drawn again.
            return Text("\n").join(parts)
        grid = Table.grid()
        for part in parts:
            grid.add_row(part)
        return grid

    def _left_not_started(self, node: NodeStatus | None) -> Text | None:
        """That a failed restart wait left the node NOT_STARTED, when ndbtop's audit log
        holds that restart."""
        if node is None or node.status != "NOT_STARTED":
            return None
        if self._failed_waits is None:
            audit = getattr(self.app, "audit", None)
            if audit is None:
                return None
            self._failed_waits = LeftNotStarted(audit)
        note = self._failed_waits.notes((node,)).get(node.node_id)
        return Text(f"Node {node.node_id} {note}", style="bold yellow") if note else None

    def shows_api_node(self) -> bool:
        """Whether the detail panel shows an API node (its process is read only then)."""
        snap = self.snapshot
        node_id = self.selected_node()
        node = snap.node(node_id) if snap is not None and node_id is not None else None
        return node is not None and node.type == "API"

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

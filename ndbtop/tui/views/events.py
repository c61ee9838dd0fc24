"""Events: the live cluster log, and the statistics the data nodes report.

Arbitration events are shown by what they mean (:mod:`ndbtop.model.arbitration`),
not by the cluster log's blanket severities: the re-election that follows an
ndb_mgmd restart is informational, a lost arbitration stays an alert. A line above
the log says where arbitration stands while it is not settled.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Collection

from rich.console import Console
from textual.app import ComposeResult
from textual.widgets import RichLog, Static

from ndbtop.mgm.cluster_log import LogLine
from ndbtop.mgm.events.catalogue import Severity
from ndbtop.mgm.events.decode import Event
from ndbtop.model.arbitration import (
    ArbitrationPhase,
    ArbitrationStatus,
    Concern,
    arbitration_status,
    interpret,
)
from ndbtop.model.same_event import TimesByKey
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.format import number
from ndbtop.tui.safe import Plain, PlainLog, Text, safe_text
from ndbtop.tui.views.base import View
from ndbtop.tui.widgets.keyed_table import KeyedTable

STAT_COLUMNS = (
    ("node", "node"),
    ("tps", "trans/s"),
    ("trans", "trans"),
    ("commits", "commits"),
    ("reads", "reads"),
    ("writes", "writes"),
    ("aborts", "aborts"),
    ("scans", "scans"),
    ("range", "range scans"),
    ("ops", "operations"),
    ("loop", "mean loop"),
    ("send", "send size"),
    ("recv", "recv size"),
    ("age", "reported"),
)
_SEVERITY_STYLE = {
    Severity.ALERT: "bold red",
    Severity.CRITICAL: "bold red",
    Severity.ERROR: "red",
    Severity.WARNING: "yellow",
    Severity.DEBUG: "dim",
}
_CONCERN_STYLE = {
    Concern.ROUTINE: "dim italic",
    Concern.TRANSIENT: "italic cyan",
    Concern.WARNING: "yellow",
    Concern.ALARM: "bold red",
}
_CONSOLE = Console(width=10_000, color_system=None)
"""Only for measuring and wrapping text (never writes)."""
_UNSETTLED = (ArbitrationPhase.ELECTING, ArbitrationPhase.PARTITIONED, ArbitrationPhase.FAILED)


EVENT_INDENT = 40
"""Columns before an event's text (time, node, category, severity): where its wrapped
lines start."""
NOTE_INDENT = 19
"""Columns before the text of a line of ndbtop's own (time, ``ndbtop``)."""


def event_line(e: Event, management_nodes: Collection[int] = ()) -> Text:
    """``13:03:03  node 10  STARTUP  INFO  Start phase 4 completed (initial start)``.

    An arbitration event shows the severity of what it means and says so after its
    text (``management_nodes``: the ids of the management servers).
    """
    when = dt.datetime.fromtimestamp(e.received_at).strftime("%H:%M:%S")
    category = e.category.name if e.category is not None else "-"
    meaning = interpret(e, management_nodes)
    shown = meaning.severity if meaning is not None else e.severity
    severity = shown.name if shown is not None else "-"
    style = _SEVERITY_STYLE.get(shown, "") if shown is not None else ""
    line = Text(f"{when}  ", style="dim")
    line.append(f"node {e.source_node:<3} ", style="bold")
    line.append(f"{category:<11} ", style="cyan")
    line.append(f"{severity:<8} ", style=style)
    line.append(e.text, style=style)
    if meaning is not None:
        line.append(f"  ({meaning.summary})", style=_CONCERN_STYLE[meaning.concern])
    return line


HISTORY_SHOWN = 1000
"""Lines of the cluster log file's history the view shows before the live events."""
SAME_EVENT_S = 2.0
"""A file line this close to an event heard with the same node and text is that event."""


def missed_lines(lines: Collection[LogLine], events: Collection[Event]
                 ) -> tuple[list[LogLine], list[LogLine]]:
    """(the file's lines from before the first event heard, those from after it that no
    event heard stands for): the history, and what the listener missed (it was cut off, and
    the file was read again for the gap)."""
    first = min((e.received_at for e in events), default=None)
    if first is None:
        return list(lines), []
    heard = TimesByKey(((e.source_node, e.text), e.received_at) for e in events)
    before, missed = [], []
    for ln in lines:
        if ln.time is None or ln.time < first - SAME_EVENT_S:
            before.append(ln)
        elif not heard.near((ln.node or 0, ln.text), ln.time, SAME_EVENT_S):
            missed.append(ln)
    return before, missed


def history_line(ln: LogLine, mark: str = "history") -> Text:
    """``12:03:31  node 2   ERROR  WARNING  history  Node 1 missed heartbeat 2``: a line of
    the cluster log file, read before ndbtop listened (``missed`` for one of a gap in the
    listening, among the events heard)."""
    when = "--:--:--" if ln.time is None else dt.datetime.fromtimestamp(ln.time).strftime(
        "%H:%M:%S")
    severity = ln.severity or "-"
    style = next((s for sev, s in _SEVERITY_STYLE.items() if sev.name == severity), "")
    line = Text(f"{when}  ", style="dim")
    line.append("node " + (f"{ln.node:<3} " if ln.node is not None else "-   "), style="bold")
    line.append(f"{ln.category or '-':<11} ", style="cyan")
    line.append(f"{severity:<8} ", style=style)
    line.append(f"{mark} ", style="dim italic")
    line.append(ln.text + (f" (x{ln.repeated})" if ln.repeated > 1 else ""), style=style)
    return line


def hanging(line: Text, indent: int, width: int) -> Text:
    """``line`` wrapped to ``width`` columns, its wrapped lines starting under its text
    (``indent`` columns in) rather than at the left edge."""
    if indent <= 0 or line.cell_len <= width or width <= indent + 10:
        return line
    head, body = line[:indent], line[indent:]
    rows = body.wrap(_CONSOLE, width - indent)
    out = head.copy()
    for i, row in enumerate(rows):
        if i:
            out.append("\n" + " " * indent)
        out.append_text(row)
    out.no_wrap = True
    return out


def arbitration_line(
    status: ArbitrationStatus, snap: ClusterSnapshot, now: float, back: Collection[int] = ()
) -> Text | None:
    """The line above the log while arbitration is not settled (None when it is); ``back``
    are the management servers seen down during this election and connected again."""
    if status.phase not in _UNSETTLED:
        return None
    mgmds = {n.node_id for n in snap.nodes if n.type == "MGM"}
    text = status.describe(now, mgmds, back)
    return Text(text, style=_CONCERN_STYLE[status.concern])


class EventsView(View):
    """Cluster events and statistics."""

    title = "Events"

    DEFAULT_CSS = """
    EventsView #banner { height: auto; padding: 0 1; }
    EventsView #arbitration { height: auto; padding: 0 1; }
    EventsView #log { height: 1fr; }
    EventsView #stats_caption { height: 1; padding: 0 1; }
    EventsView #stats { height: auto; max-height: 14; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._shown = 0
        self._notes: list[tuple[float, Text, float]] = []
        """ndbtop's own lines: when (wall clock), the line, and when it came (monotonic)."""
        self._notes_written = 0
        """How many of the notes are in the log."""
        self._filter_shown = ""
        self._history_of: tuple[LogLine, ...] = ()
        """The cluster log history in the log (a new read rewrites the log)."""
        self.banner_text: Text | None = None
        self.arbitration = ArbitrationStatus(ArbitrationPhase.UNKNOWN)
        """Where arbitration stands after the events seen so far."""
        self._folded = 0
        self._mgmds_down: set[int] = set()
        self._pending: list[tuple[Text, int]] = []
        """Management servers seen not connected during the current election."""

    def compose(self) -> ComposeResult:
        yield Plain(id="banner")
        arbitration = Plain(id="arbitration")
        arbitration.display = False
        yield arbitration
        yield PlainLog(id="log", max_lines=5000, wrap=True, markup=False, auto_scroll=True)
        yield Plain(id="stats_caption")
        stats = KeyedTable(STAT_COLUMNS, id="stats")
        stats.display = False  # until the first statistics arrive (the log has the focus)
        yield stats

    def on_mount(self) -> None:
        """Keep the newest line in sight, also when the statistics table takes rows from the
        log, until the user scrolls back."""
        self.query_one("#log", RichLog).anchor()

    def add_note(self, when: float, text: Text) -> None:
        """A line that is not a cluster event (an action and the server's reply).

        It joins the log with the next snapshot, in time order with the events: the
        events received before it are in that snapshot, not yet in the log."""
        self._notes.append((when, text, time.monotonic()))

    def _write(self, line: Text, indent: int = 0) -> None:
        """Add a line to the log at its width, keeping the user's place.

        A hidden log (another view in front) has no width yet: its lines wait for it,
        rather than being wrapped at a default width. A user who scrolled back stays
        where they read; the log follows new lines only when it was at its end.
        """
        log = self.query_one("#log", RichLog)
        width = log.scrollable_content_region.width
        if width <= 0:
            self._pending.append((line, indent))
            return
        log.write(hanging(safe_text(line), indent, width),
                  scroll_end=log.scroll_y >= log.max_scroll_y)

    def on_resize(self) -> None:
        """Shown again (or resized): write the lines that waited for a width."""
        self._flush()

    def _flush(self) -> None:
        if self._pending and self.query_one("#log", RichLog).scrollable_content_region.width > 0:
            pending, self._pending = self._pending, []
            for line, indent in pending:
                self._write(line, indent)

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        banner = self.query_one("#banner", Static)
        self.put("#banner", self.banner_text or "")
        banner.display = self.banner_text is not None
        self._render_arbitration(snap, now)
        log = self.query_one("#log", RichLog)
        mgmds = {n.node_id for n in snap.nodes if n.type == "MGM"}
        self._flush()
        lines: list[tuple[float, int, int, Text, int]] = []
        if self.filter_text != self._filter_shown or snap.cluster_log is not self._history_of:
            # The cluster log's history comes first, then the live events again below it.
            log.clear()
            self._pending.clear()
            self._filter_shown = self.filter_text
            self._history_of = snap.cluster_log
            self._shown = max(snap.events_total - len(snap.events), 0)
            self._notes_written = 0
            history, missed = missed_lines(snap.cluster_log[-HISTORY_SHOWN:], snap.events)
            for ln in history:
                if self.matches(ln.text, ln.node if ln.node is not None else "",
                                ln.category or "", "history"):
                    self._write(history_line(ln), EVENT_INDENT)
            # The lines of a gap in the listening go among the events heard, by time.
            for i, ln in enumerate(missed):
                if self.matches(ln.text, ln.node if ln.node is not None else "",
                                ln.category or "", "missed"):
                    lines.append((ln.time or 0.0, 0, -len(missed) + i,
                                  history_line(ln, "missed"), EVENT_INDENT))
        new = snap.events_total - self._shown
        if new > 0:
            for i, e in enumerate(snap.events[-min(new, len(snap.events)) :]):
                meaning = interpret(e, mgmds)
                if self.matches(
                    e.text,
                    e.source_node,
                    e.name,
                    e.category.name if e.category is not None else "",
                    meaning.summary if meaning is not None else "",
                ):
                    lines.append((e.received_at, 0, i, event_line(e, mgmds), EVENT_INDENT))
            self._shown = snap.events_total
        # ndbtop's own lines once a snapshot taken after them is shown, among the events
        # by time: an action's line never comes before an event that happened earlier.
        due = self._notes_written
        while due < len(self._notes) and (self._notes[due][0] <= snap.wall
                                          or self._notes[due][2] < snap.taken_at):
            when, note, _ = self._notes[due]
            if self.matches(note.plain):
                lines.append((when, 1, due, note, NOTE_INDENT))
            due += 1
        self._notes_written = due
        for _, _, _, line, indent in sorted(lines, key=lambda item: item[:3]):
            self._write(line, indent)
        self._render_stats(snap)

    def _render_arbitration(self, snap: ClusterSnapshot, now: float) -> None:
        new = snap.events_total - self._folded
        if new > 0:
            self.arbitration = arbitration_status(
                snap.events[-min(new, len(snap.events)) :], self.arbitration
            )
            self._folded = snap.events_total
        mgmds = [n for n in snap.nodes if n.type == "MGM"]
        if self.arbitration.phase is ArbitrationPhase.ELECTING:
            self._mgmds_down |= {n.node_id for n in mgmds if n.status != "CONNECTED"}
        else:
            self._mgmds_down.clear()
        back = {n.node_id for n in mgmds if n.status == "CONNECTED"} & self._mgmds_down
        line = arbitration_line(self.arbitration, snap, now, back)
        widget = self.query_one("#arbitration", Static)
        widget.display = line is not None
        if line is not None:
            self.put("#arbitration", line)

    def _render_stats(self, snap: ClusterSnapshot) -> None:
        table = self.query_one("#stats", KeyedTable)
        level = snap.cluster_log_level.get("statistics")
        if not snap.statistics:
            if level is not None and level >= 8:
                hint = "no statistics reported yet"
            elif self.banner_text is not None:
                # Raised a moment ago: the new level reaches this screen with the next read.
                hint = "raised by ndbtop, waiting for the data nodes' first report"
            else:
                shown = "?" if level is None else level
                hint = (
                    f"statistics events off (cluster log STATISTICS={shown}; "
                    "press L to raise it to 15)"
                )
            self.put("#stats_caption", Text(f"Statistics: {hint}", style="dim"), layout=False)
            table.display = False
            return
        self.put(
            "#stats_caption",
            Text("Statistics reported by the data nodes (CLUSTERLOG STATISTICS)", style="bold"),
            layout=False,
        )
        table.display = True
        rows = []
        for s in snap.statistics:
            send = [v for _, v in s.send_bytes]
            recv = [v for _, v in s.receive_bytes]
            age = snap.wall - s.at
            rows.append(
                (
                    str(s.node_id),
                    (
                        Text(str(s.node_id), style="bold"),
                        number(s.tps),
                        number(s.counter("trans_count")),
                        number(s.counter("commit_count")),
                        number(s.counter("read_count")),
                        number(s.counter("write_count")),
                        number(s.counter("abort_count")),
                        number(s.counter("scan_count")),
                        number(s.counter("range_scan_count")),
                        number(s.operations),
                        number(s.mean_loop_count),
                        f"{sum(send) / len(send):,.0f} B" if send else "-",
                        f"{sum(recv) / len(recv):,.0f} B" if recv else "-",
                        f"{age:.0f}s ago",
                    ),
                )
            )
        table.sync(rows)

"""The fleet overview: one row per context, Enter opens that cluster in the live view.

The rows come from :class:`ndbtop.fleet.watch.Fleet` (one management-server-only hub per
cluster); this screen only draws them. The app ends with the name of the cluster to open
(Enter), with :data:`BACK` (Escape, to the cluster that was open), or with None (quit).
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from typing import Union

from textual.app import ComposeResult
from textual.binding import Binding

from ndbtop.elide import elide
from ndbtop.fleet.rows import FleetRow
from ndbtop.fleet.watch import Fleet
from ndbtop.model.eta import Eta
from ndbtop.tui.alarm import ALARM, colourless, plain_colours
from ndbtop.tui.context_label import ContextLabel, label_text
from ndbtop.tui.guarded import GuardedApp
from ndbtop.tui.safe import Plain, Text
from ndbtop.tui.widgets.keybar import KeyBar
from ndbtop.tui.widgets.keyed_table import KeyedTable

_ADDRESS = re.compile(r"^\S+:\d+: ")
"""A leading ``host:port: `` of a management server's error."""

BACK = "\x00back"
"""The app's result when Escape goes back to the cluster that was open."""
INTERVALS = (1.0, 2.0, 5.0, 10.0)
COLUMNS = (
    ("context", "context"),
    ("version", "version"),
    ("nodes", "nodes"),
    ("risk", "at risk"),
    ("finding", "most severe finding"),
    ("activity", "in progress, ETA"),
    ("age", "answered"),
)
"""The columns, narrow enough for 120 columns (the first five fit in 80); the selected
cluster's detail below has every text whole, the version and the last answer's age too."""
CELL = 40
"""Characters of a long cell."""

_SEVERITY_STYLE = {"critical": "bold red", "warning": "yellow", "info": ""}


def row_cells(row: FleetRow) -> tuple[object, ...]:
    """The table's cells for ``row``: the name in its colour, and a row that does not
    answer says why in the finding column."""
    label = label_text(ContextLabel(row.name, row.color), short=True)
    if row.production:
        label.append(" PROD", style="bold red")
    if row.read_only:
        label.append(" RO", style="bold blue")
    nodes = Text(row.nodes_text(), style="" if row.data_started == row.data_nodes
                 else "yellow")
    risk = Text(row.risk_text(), style="bold red" if row.groups_down else
                "yellow" if row.groups_at_risk else "")
    if row.groups_at_risk and colourless():
        risk.append(f" {ALARM}")
    if not row.answers:
        # The address is the detail's: the table says what went wrong.
        finding = Text(elide(f"✖ {_ADDRESS.sub('', short_reason(row.why), count=1)}", CELL),
                       style="bold red")
        if colourless():
            finding.append(f" {ALARM}")
    else:
        style = _SEVERITY_STYLE[row.finding.severity.value] if row.finding else "green"
        finding = Text(elide(row.finding_short(), CELL), style=style)
    activity = Text(elide(row.activity_short_text(), CELL),
                    style="cyan" if row.activity is not None else "dim")
    age = Text(row.age_text(), style="" if not row.stale else "bold red")
    return (label, row.version or "-", nodes, risk, finding, activity, age)


def short_reason(why: str | None) -> str:
    """``127.0.0.1:1186: connection refused`` from the management source's error."""
    return (why or "no answer").removeprefix("cannot connect to a management server: ")


class FleetTable(KeyedTable):
    """The overview's table: Enter opens the selected cluster."""

    BINDINGS = [Binding("enter", "app.open", "Open")]


def detail_text(row: FleetRow) -> Text:
    """The selected cluster in full: where, its version and when it last answered (or why
    it does not), its finding and its activity with what the estimate rests on."""
    out = Text()
    out.append_text(label_text(ContextLabel(row.name, row.color, row.production)))
    out.append(f"  {row.address or 'no management server answered'}")
    if row.version:
        out.append(f"  NDB {row.version}")
    if row.answers and row.age is not None:
        # The table's last columns are off an 80-column screen: the age is here too.
        out.append(f"  answered {row.age_text()} ago")
    if row.read_only:
        out.append("  read-only (read_only in clusters.toml)", style="blue")
    if not row.answers:
        out.append(f"\nnot answering: {short_reason(row.why)}", style="bold red")
        if row.age is not None:
            out.append(f" (last answer {row.age_text()} ago)")
    if row.finding is not None:
        style = _SEVERITY_STYLE[row.finding.severity.value]
        out.append(f"\n{row.finding_text()}", style=style)
    if row.activity is not None:
        out.append(f"\n{row.activity_text()}", style="cyan")
        if isinstance(row.eta, Eta) and row.eta.basis:
            out.append(f" · {', '.join(row.eta.basis)}", style="dim")
    out.append("\nEnter opens it in the live view (F there comes back here)", style="dim")
    return out


class FleetApp(GuardedApp):
    """Every context in one table."""

    TITLE = "ndbtop fleet"
    CSS = """
    Screen { layout: vertical; }
    #fleet-header { height: 1; background: $boost; padding: 0 1; }
    #fleet-table { height: 1fr; }
    #fleet-detail { height: auto; max-height: 10; padding: 0 1; border-top: solid $primary; }
    """
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("plus,equals_sign", "interval(1)", "Slower", show=False),
        Binding("minus", "interval(-1)", "Faster", show=False),
        Binding("q", "quit_fleet", "Quit"),
        Binding("ctrl+c", "quit_fleet", show=False, priority=True),
    ]

    def __init__(self, fleet: Fleet, *, back: str | None = None, note: str | None = None,
                 theme: str = "textual-dark", simulated: str | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        super().__init__()
        plain_colours(self)
        self.animation_level = "none"
        self.fleet = fleet
        self.back = back
        """The cluster that was open when the overview was asked for (Escape returns)."""
        self.note = note
        self.simulated = simulated
        self.wall = wall
        """The clock of the header's time."""
        self._theme_name = theme
        self._rows: dict[str, tuple[FleetRow, tuple[object, ...]]] = {}

    def compose(self) -> ComposeResult:
        yield Plain(id="fleet-header")
        yield FleetTable(COLUMNS, id="fleet-table")
        yield Plain(id="fleet-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        """Draw now and at every refresh."""
        self.theme = self._theme_name
        self._timer = self.set_interval(self.fleet.interval, self.tick)
        self.tick()
        table = self.query_one(KeyedTable)
        if self.back is not None and self.back in self.fleet.names:
            table.move_cursor(row=self.fleet.names.index(self.back))
        table.focus()
        if self.note:
            self.notify(self.note, severity="error", timeout=10)

    def changed(self) -> None:
        """A cluster's source connected, failed or recovered: draw at once."""
        self.call_later(self.tick)

    def tick(self) -> None:
        """Draw the newest rows."""
        if not self.is_running or not self.screen_stack:
            return
        rows = self.fleet.rows()
        out = []
        for row in rows:
            kept = self._rows.get(row.name)
            cells = kept[1] if kept is not None and kept[0] == row else row_cells(row)
            self._rows[row.name] = (row, cells)
            out.append((row.name, cells))
        table = self.query_one(KeyedTable)
        table.sync(out)
        self._header(rows)
        self._detail()

    def _header(self, rows: tuple[FleetRow, ...]) -> None:
        down = sum(1 for r in rows if not r.answers)
        found = sum(1 for r in rows if r.answers and r.finding is not None)
        busy = sum(1 for r in rows if r.activity is not None)
        line = Text("ndbtop fleet", style="bold")
        if self.simulated:
            # First: a narrow terminal must still say the clusters are simulated.
            line.append("  ")
            line.append(f" SIM {self.simulated} ", style="bold black on cyan")
        line.append(f"  {len(rows)} clusters")
        if down:
            line.append(f" · {down} not answering", style="bold red")
        if found:
            line.append(f" · {found} with findings", style="yellow")
        if busy:
            line.append(f" · {busy} busy", style="cyan")
        line.append(f"  {dt.datetime.fromtimestamp(self.wall()):%H:%M:%S}")
        line.append(f"   management servers only, refresh {self.fleet.interval:g}s",
                    style="dim")
        self.query_one("#fleet-header", Plain).update(line)

    def _detail(self) -> None:
        key = self.query_one(KeyedTable).selected_key
        kept = self._rows.get(key) if key is not None else None
        self.query_one("#fleet-detail", Plain).update(
            detail_text(kept[0]) if kept is not None else Text())

    def on_data_table_row_highlighted(self) -> None:
        """Another row selected: its detail."""
        self._detail()

    def action_open(self) -> None:
        """Open the selected cluster."""
        key = self.query_one(KeyedTable).selected_key
        if key is not None:
            self.exit(key)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape is offered only when a cluster was open to go back to."""
        return not (action == "back" and self.back is None)

    def action_back(self) -> None:
        """Back to the cluster that was open."""
        if self.back is not None:
            self.exit(BACK)

    def action_quit_fleet(self) -> None:
        """Quit ndbtop."""
        self.exit(None)

    def action_interval(self, step: int) -> None:
        """Refresh every cluster slower (+1) or faster (-1)."""
        current = self.fleet.interval
        index = min(range(len(INTERVALS)), key=lambda i: abs(INTERVALS[i] - current))
        index = max(0, min(index + step, len(INTERVALS) - 1))
        self.fleet.set_interval(INTERVALS[index])
        self._timer.stop()
        self._timer = self.set_interval(INTERVALS[index], self.tick)
        self.notify(f"refresh every {INTERVALS[index]:g} s", timeout=2)
        self.tick()


FleetResult = Union[str, None]
"""What the overview ended with: a cluster's name, :data:`BACK`, or None to quit."""

"""The screen under every dialog: the header, the views in tabs, the filter line, the keys.

The app composes its widgets; the screen draws the snapshot the app hands it
into the visible view and answers the keys that work on that view (filter,
sort, copy). :class:`~ndbtop.tui.screens.live.LiveScreen`
and :class:`~ndbtop.tui.screens.replay.ReplayScreen` add the keys of their own.
"""

from __future__ import annotations

from typing import cast

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, TabbedContent

from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.record.replay import ReplaySource
from ndbtop.report.render import report_text
from ndbtop.report.replication import NOT_NAMED
from ndbtop.sanitise import sanitise_lines
from ndbtop.tui.hosts import ViewsHost
from ndbtop.tui.safe import Text
from ndbtop.tui.views.base import View
from ndbtop.tui.views.nodes import NodesView
from ndbtop.tui.widgets.header import StatusHeader

VIEW_KEYS = [
    Binding("slash", "filter", "Filter"),
    Binding("s", "sort", "Sort", show=False),
    Binding("y", "copy", "Copy", show=False),
]
"""The keys that work on the visible view, in the live view and in a replay."""


class MainScreen(Screen[None]):
    """The views in tabs, drawn from the app's snapshots."""

    header: StatusHeader
    tabs: TabbedContent

    def __init__(self) -> None:
        super().__init__()
        self.views: dict[str, View] = {}
        """Every view by name, as the app composed them (looked up at every refresh)."""
        self.paused = False
        self._frozen: ClusterSnapshot | None = None
        self._sql_target: str | None = None
        """The SQL node ndbinfo was last read from (with several)."""
        self.hidden: set[str] = set()
        """Views whose tab is hidden (replication, while no replica is named)."""
        self.tab_keys: dict[str, str] = {}
        """Each view's key, which its tab's label begins with."""
        self._width = 0
        self._narrow = False

    @property
    def ndbtop(self) -> ViewsHost:
        """The app, with its sources and settings (what this screen uses of it)."""
        return cast(ViewsHost, self.app)

    @property
    def current_view(self) -> View:
        """The visible view."""
        return self.views[self.tabs.active or "nodes"]

    def show_view(self, name: str) -> None:
        """Switch to a view (a hidden one says why it is hidden)."""
        if name in self.hidden:
            self.app.notify(f"no {name} to show: {NOT_NAMED}", timeout=6)
            return
        # The new view takes the focus before the old one is hidden: a focused table that
        # gets hidden hands the focus to a sibling in its own (hidden) pane, and the tabs
        # then switch back to that pane.
        self.views[name].focus_table()
        self.tabs.active = name

    def draw(self, snap: ClusterSnapshot) -> None:
        """Render ``snap`` (only the header while paused)."""
        hub = self.ndbtop.hub
        assert hub is not None
        header = self.header
        header.paused = self.paused
        if isinstance(hub, ReplaySource):
            header.replay = hub.describe()
        header.show(snap, hub.freshness_now())
        self._sql_node_changed(snap)
        self._replication_tab(snap)
        if not self.paused:
            self._frozen = snap
            self.current_view.show(snap, hub.clock.wall())

    def hide_tab(self, name: str) -> None:
        """Hide a view's tab until :meth:`draw` finds it something to show."""
        if name not in self.hidden:
            self.hidden.add(name)
            self.tabs.hide_tab(name)
            self.fit_tabs(self._width)

    def _replication_tab(self, snap: ClusterSnapshot) -> None:
        """The Replication tab shows once a replica is named (or a recording holds one)."""
        named = snap.replication is not None or getattr(self.ndbtop.hub, "replication",
                                                        None) is not None
        if named and "replication" in self.hidden:
            self.hidden.discard("replication")
            self.tabs.show_tab("replication")
            self.fit_tabs(self._width)

    def _sql_node_changed(self, snap: ClusterSnapshot) -> None:
        """With several SQL nodes: say when ndbinfo is read from another one."""
        src = snap.source("ndbinfo")
        if src is None or not src.others or src.state is not SourceState.CONNECTED:
            return
        if self._sql_target is not None and src.target != self._sql_target:
            self.app.notify(f"ndbinfo is now read from {src.target}", timeout=8)
        self._sql_target = src.target

    def _redraw(self, view: View) -> None:
        if self.ndbtop.hub is not None:
            view.redraw(self.ndbtop.hub.clock.wall())

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Draw a view as soon as it becomes visible."""
        hub = self.ndbtop.hub
        if hub is not None:
            snap = self._frozen if self.paused and self._frozen else hub.snapshot()
            self.current_view.show(snap, hub.clock.wall())
            self.want_threads()
        self.current_view.focus_table()

    def want_threads(self) -> None:
        """Have the per-thread CPU read at every refresh only while it is shown or recorded
        (it costs every data node a row per thread, and this process a value per thread)."""
        hub = self.ndbtop.hub
        if hub is not None:
            hub.want_threads(self.tabs.active == "threads" or self.ndbtop.recorder is not None)
            self.want_processes()

    def want_processes(self) -> None:
        """Have ``ndbinfo.processes`` read only while the Nodes view details an API node, and
        a view's on-demand panels only while it shows (``panels_wanted`` of the view)."""
        want = getattr(self.ndbtop.hub, "want_panels", None)
        if want is not None:
            view = self.current_view
            api = isinstance(view, NodesView) and view.shows_api_node()
            want("api-detail", ("processes",) if api else ())
            want("view", getattr(view, "panels_wanted", ()))
        replication = getattr(self.ndbtop.hub, "want_replication", None)
        if replication is not None:
            replication("view", getattr(self.current_view, "wants_replication", False))

    def on_data_table_row_highlighted(self) -> None:
        """Selecting another node redraws its details at once."""
        # A table can still report a highlight while the app closes and the views are gone.
        if self.ndbtop.hub is None or not self.query("#tabs"):
            return
        # Tables also report a highlight when their rows are re-sorted or updated: only a
        # change of the selected node is worth drawing the view again.
        view = self.current_view
        self.want_processes()
        if view.selected_node() != view.drawn_for:
            self._redraw(view)

    def set_short(self, short: bool) -> None:
        """On short terminals the table and the node detail panel share the height."""
        for view in self.query(NodesView):
            view.set_class(short, "-short")

    def tab_label(self, name: str) -> Text:
        """A view's tab: its key, its title (short on a narrow screen), its filter."""
        view = self.views[name]
        title = (view.short_title or view.title) if self._narrow else view.title
        label = Text(f"{self.tab_keys.get(name, '')} {title}")
        if view.filter_text:
            label.append(f" /{view.filter_text}", style="bold reverse")
        return label

    def fit_tabs(self, width: int) -> None:
        """Short titles (and one space between tabs) when the full ones do not fit in
        ``width`` columns: every tab stays in sight."""
        self._width = width
        if width <= 0 or not self.views:
            return
        shown = [name for name in self.views if name not in self.hidden]
        # A tab is its key, its full title and a filter, with a space each side.
        full = sum(len(f"{self.tab_keys.get(name, '')} {self.views[name].title}") + 2
                   + (len(self.views[name].filter_text) + 2 if self.views[name].filter_text
                      else 0)
                   for name in shown)
        narrow = full > width
        if narrow == self._narrow:
            return
        self._narrow = narrow
        self.tabs.set_class(narrow, "-narrow")
        for name in self.views:
            self.tabs.get_tab(name).label = self.tab_label(name)

    # The keys of the visible view

    def action_filter(self) -> None:
        """Show the filter input."""
        box = self.query_one("#filter", Input)
        box.value = self.current_view.filter_text
        box.add_class("-visible")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Apply the filter to the visible view."""
        if event.input.id != "filter":
            return
        view = self.current_view
        view.filter_text = event.value.strip()
        # The active filter shows in the view's tab: "2 Threads /ldm".
        self.tabs.get_tab(self.tabs.active).label = self.tab_label(self.tabs.active)
        event.input.remove_class("-visible")
        view.focus()
        self._redraw(view)

    def on_key(self, event: object) -> None:
        """Escape in the filter input cancels it."""
        box = self.query_one("#filter", Input)
        if getattr(event, "key", "") == "escape" and box.has_class("-visible"):
            box.remove_class("-visible")
            self.current_view.focus()

    def action_sort(self) -> None:
        """Next sort order of the visible view."""
        view = self.current_view
        if not view.sort_modes:
            self.app.notify("this view has one order", timeout=2)
            return
        mode = view.next_sort()
        self._redraw(view)
        self.app.notify(f"sorted by {mode}", timeout=2)

    def action_copy(self) -> None:
        """Copy the selected row, or the whole report, with OSC 52 (works over SSH)."""
        text = self.current_view.copy_text() or report_text(self.ndbtop.live_snapshot())
        self.app.copy_to_clipboard(sanitise_lines(text))
        self.app.notify(f"copied {len(text.splitlines())} line(s) to the clipboard", timeout=2)

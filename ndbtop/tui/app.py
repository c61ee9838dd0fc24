"""The live view: a Textual app that renders the hub's snapshots and runs guarded actions.

The app never touches a socket: the hub's sources poll in the background, a
timer pulls the latest snapshot each refresh and the screen renders the visible
view. The app composes: its main screen (:mod:`ndbtop.tui.screens.live`, or
:mod:`~ndbtop.tui.screens.replay` for a recording) declares the keys of its
views, :mod:`ndbtop.tui.action_flow` sends every action, and
:mod:`ndbtop.tui.recording` records; the keys here work everywhere.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, TabbedContent, TabPane

from ndbtop.actions.audit import AuditLog
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.record.background import BackgroundRecorder
from ndbtop.tui.action_flow import ActionFlow
from ndbtop.tui.alarm import plain_colours
from ndbtop.tui.context_label import ContextLabel
from ndbtop.tui.guarded import GuardedApp
from ndbtop.tui.recording import Recording
from ndbtop.tui.screens.help import HelpScreen
from ndbtop.tui.screens.live import LiveScreen, ReadOnlyScreen
from ndbtop.tui.screens.main import MainScreen
from ndbtop.tui.screens.replay import LIVE_ONLY, REFUSED, ReplayScreen
from ndbtop.tui.source import SnapshotSource
from ndbtop.tui.views.backups import BackupsView
from ndbtop.tui.views.base import View
from ndbtop.tui.views.config import ConfigView
from ndbtop.tui.views.disk import DiskView
from ndbtop.tui.views.events import EventsView
from ndbtop.tui.views.findings import FindingsView
from ndbtop.tui.views.locks import LocksView
from ndbtop.tui.views.nodes import NodesView
from ndbtop.tui.views.replication import ReplicationView
from ndbtop.tui.views.restarts import RestartsView
from ndbtop.tui.views.tables import TablesView
from ndbtop.tui.views.threads import ThreadsView
from ndbtop.tui.widgets.header import StatusHeader
from ndbtop.tui.widgets.keybar import KeyBar

__all__ = ["INTERVALS", "REFUSED", "VIEWS", "NdbtopApp"]

INTERVALS = (0.5, 1.0, 2.0, 5.0, 10.0)
VIEWS: tuple[tuple[str, type[View]], ...] = (
    ("nodes", NodesView),
    ("threads", ThreadsView),
    ("disk", DiskView),
    ("events", EventsView),
    ("restarts", RestartsView),
    ("backups", BackupsView),
    ("config", ConfigView),
    ("findings", FindingsView),
    ("tables", TablesView),
    ("locks", LocksView),
)
"""The views in their tabs, in the order of their number keys (the tenth on 0)."""
KEYED_VIEWS: tuple[tuple[str, type[View], str], ...] = (("replication", ReplicationView, "e"),)
"""Views on a letter, after the numbered ones: their tab shows only when they have
something to show (replication, once a replica is named)."""


class NdbtopApp(GuardedApp):
    """ndbtop's live view."""

    TITLE = "ndbtop"
    CSS = """
    Screen { layout: vertical; }
    TabbedContent { height: 1fr; }
    TabPane { padding: 0; }
    TabbedContent.-narrow Tab { padding: 0 0 0 1; }
    #filter { dock: bottom; display: none; }
    #filter.-visible { display: block; }
    """

    BINDINGS = [
        *(Binding(str(key % 10), f"view('{name}')", cls.title, show=False)
          for key, (name, cls) in enumerate(VIEWS, start=1)),
        *(Binding(key, f"view('{name}')", cls.title, show=False)
          for name, cls, key in KEYED_VIEWS),
        Binding("plus,equals_sign", "interval(1)", "Slower", show=False),
        Binding("minus", "interval(-1)", "Faster", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("F", "fleet", "Fleet", show=False),
        Binding("q", "quit_app", "Quit"),
        # Ctrl-C quits as in htop, k9s and top (asking where q asks), even from a field.
        Binding("ctrl+c", "quit_app", show=False, priority=True),
    ]
    """The keys of every screen under the dialogs; each screen adds its own."""
    HELP = (
        (f"1 … {min(len(VIEWS), 9)}" + (", 0" if len(VIEWS) == 10 else ""),
         # Space-separated: ten titles with commas would wrap in the help at 120 columns.
         " ".join(cls.title for _, cls in VIEWS)),
        ("e", "Replication (with --replica-mysql-host, or a context's replicates_to)"),
        ("↑ ↓ / enter", "select a node (its timeline, its threads)"),
        ("r", "restart the selected data node (RESTART [-i] [-n] [-a] [-f])"),
        ("x", "stop the selected data node (STOP [-a] [-f])"),
        ("t", "start the selected data node (left NOT_STARTED by RESTART -n)"),
        ("L", "CLUSTERLOG STATISTICS=15 on all data nodes; again to restore"),
        ("W", "rolling restart of the data nodes: plan, confirm, follow, pause or abort"),
        ("B", "start a backup (START BACKUP with its options, as in ndb_mgm)"),
        ("A", "ABORT BACKUP of the backup in progress (its id typed to confirm)"),
        (":", "an ndb_mgm command (2 RESTART -i ...), confirmed like the keys"),
        ("p", "pause the screen (data keeps being collected)"),
        ("R", "record to ndbtop-DATE-TIME.ndbrec (for ndbtop replay); again to stop"),
        ("+ / -", "refresh slower / faster"),
        ("/", "filter the view (node id, thread name, event text)"),
        ("s", "change the sort order of the view"),
        ("y", "copy the selected row, or the whole report, to the clipboard (OSC 52)"),
        ("F", "the fleet overview: every context of clusters.toml (Enter opens one)"),
        ("?", "this help"),
        ("q / ctrl+c", "quit"),
    )
    REPLAY_HELP = (
        ("space / p", "play or pause the recording"),
        (". / ,", "step one snapshot forward / back (and pause)"),
        ("] / [", "jump a minute forward / back"),
        ("> / <", "play faster / slower (x1 … x64)"),
    )

    def __init__(
        self,
        start: Callable[[], Awaitable[SnapshotSource]],
        *,
        stop: Callable[[], Awaitable[None]] | None = None,
        read_only: bool = False,
        audit: AuditLog,
        simulated: str | None = None,
        theme: str = "textual-dark",
        replay: bool = False,
        context: ContextLabel | None = None,
        fleet: bool = False,
    ) -> None:
        super().__init__()
        plain_colours(self)
        # Over an SSH link every frame of an animation (the tabs' sliding underline) is
        # bytes sent for nothing an operator needs.
        self.animation_level = "none"
        self._start = start
        self._stop = stop
        self.replaying = replay
        """Showing a recording (``start`` gives a ReplaySource): always read-only."""
        self.read_only = read_only or replay
        self.notes_on_exit: list[str] = []
        """Lines for the terminal once the screen is gone (what quitting stopped)."""
        self.audit = audit
        self.simulated = simulated
        self.context = context
        """The context (clusters.toml) this view is of: its label heads the screen."""
        self.fleet = fleet
        """Whether ``F`` may leave for the fleet overview (the launcher then shows it)."""
        self.to_fleet = False
        """Set when the view ended for the fleet overview rather than to quit."""
        self._theme_name = theme
        self.hub: SnapshotSource | None = None
        self._timer: Timer | None = None
        self._ticking = False
        self._tick_soon = False
        self.flow = ActionFlow(self)
        """Every action on the cluster: confirm, guard, send, audit."""
        self.recording = Recording(self)
        """The flight recorder (``R``)."""
        self.rolling_node_timeout = 1800.0
        """Seconds ``W``'s rolling restart waits for a node to be STARTED again, on the hub's
        clock (the simulated cluster's in the demo)."""
        self.rolling_poll = 1.0
        """Real seconds between ``W``'s rolling restart status polls."""

    # Composition

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this terminal; on Linux and macOS the one whose input
        thread sleeps until a key comes (:mod:`ndbtop.tui.driver`)."""
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver" and driver.__name__ == "LinuxDriver":
            from ndbtop.tui.driver import QuietLinuxDriver

            return QuietLinuxDriver
        return driver

    def get_default_screen(self) -> Screen[None]:
        """The views, with the keys of a live cluster or of a recording."""
        if self.replaying:
            return ReplayScreen()
        return ReadOnlyScreen() if self.read_only else LiveScreen()

    def compose(self) -> ComposeResult:
        live = self.live
        # In a replay the REPLAY badge says it all.
        live.header = StatusHeader(
            read_only=self.read_only and not self.replaying, simulated=self.simulated,
            context=self.context,
        )
        yield live.header
        with TabbedContent(initial="nodes", id="tabs") as tabs:
            live.tabs = tabs
            # Each tab carries its number key, so the key bar keeps its room for actions.
            for key, (name, cls) in enumerate(VIEWS, start=1):
                live.tab_keys[name] = str(key % 10)
                with TabPane(f"{key % 10} {cls.title}", id=name):
                    view = live.views[name] = cls(id=f"view-{name}")
                    yield view
            for name, cls, letter in KEYED_VIEWS:
                live.tab_keys[name] = letter
                with TabPane(f"{letter} {cls.title}", id=name):
                    view = live.views[name] = cls(id=f"view-{name}")
                    yield view
        yield Input(
            placeholder="filter (Enter to apply, empty to clear, Esc to cancel)", id="filter"
        )
        yield KeyBar()

    @property
    def live(self) -> MainScreen:
        """The screen of the views, under any dialog."""
        return cast(MainScreen, self.screen_stack[0])

    @property
    def current_view(self) -> View:
        """The visible view."""
        return self.live.current_view

    @property
    def recorder(self) -> BackgroundRecorder | None:
        """The flight recorder while ``R`` records, else None."""
        return self.recording.recorder

    @property
    def recordings(self) -> list[Path]:
        """Every file ``R`` recorded to in this session."""
        return self.recording.paths

    @property
    def statistics_raised_from(self) -> int | None:
        """The STATISTICS level ndbtop replaced with 15, while it is in force."""
        return self.flow.statistics_raised_from

    @statistics_raised_from.setter
    def statistics_raised_from(self, level: int | None) -> None:
        self.flow.statistics_raised_from = level

    async def on_mount(self) -> None:
        """Start the sources and the refresh timer."""
        self.theme = self._theme_name
        for name, _, _ in KEYED_VIEWS:
            self.live.hide_tab(name)
        self.hub = await self._start()
        self.hub.add_listener(self._source_changed)
        for view in self.live.views.values():
            view.wall = self.hub.clock.wall
        self.live.want_threads()
        reporter = getattr(self.hub, "backup_reporter", None)
        backups = self.live.views["backups"]
        assert isinstance(backups, BackupsView)
        backups.report_every = reporter.every if reporter is not None else None
        await self.hub.start()
        self._schedule()
        self.tick()
        self.current_view.focus_table()

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        interval = self.hub.interval if self.hub else 1.0
        self._timer = self.set_interval(interval, self._refresh)

    def _source_changed(self) -> None:
        # A source that connects, fails or recovers is drawn at once rather than at the
        # next refresh: the first screen of a start-up is complete a refresh sooner.
        if not self._tick_soon:
            self._tick_soon = True
            self.call_later(self._tick_now)

    def _tick_now(self) -> None:
        self._tick_soon = False
        self.tick()

    def _refresh(self) -> None:
        self.tick()
        if self.hub is not None:
            self.recording.write(self.hub.snapshot())

    async def on_unmount(self) -> None:
        """Close the recording; stop the sources (and the simulation, in the demo)."""
        await self.recording.close()
        if self.hub is not None:
            await self.hub.stop()
        if self._stop is not None:
            await self._stop()

    def live_snapshot(self) -> ClusterSnapshot:
        """The newest snapshot, whatever is on screen."""
        if self.hub is None:
            return ClusterSnapshot(
                time.monotonic(), time.time(), 1.0, (SourceStatus("mgm", SourceState.CONNECTING),)
            )
        return self.hub.snapshot()

    def show_recording(self, name: str | None) -> None:
        """The header shows that ``name`` is recorded (None: nothing is); the per-thread CPU
        is read at every refresh while recording; draw now."""
        self.live.want_threads()
        self.live.header.recording = name
        self.tick()

    def tick(self) -> None:
        """Render the newest snapshot (or only the header while paused)."""
        # The timer can fire once more while the app closes and its widgets are gone.
        if self.hub is None or self._ticking or not self.screen_stack:
            return
        live = self.live
        if not live.header.is_attached:
            return
        self._ticking = True
        try:
            live.draw(self.hub.snapshot())
        finally:
            self._ticking = False

    def on_resize(self, event: events.Resize) -> None:
        """On short terminals the table and the node detail panel share the height; on
        narrow ones the tabs take their short titles."""
        if self.screen_stack:
            self.live.set_short(event.size.height < 30)
            self.live.fit_tabs(event.size.width)

    # The keys of every screen

    def action_view(self, name: str) -> None:
        """Switch to a view."""
        self.live.show_view(name)

    def action_interval(self, step: int) -> None:
        """Refresh slower (+1) or faster (-1)."""
        if self.hub is None:
            return
        current = self.hub.interval
        index = min(range(len(INTERVALS)), key=lambda i: abs(INTERVALS[i] - current))
        index = max(0, min(index + step, len(INTERVALS) - 1))
        self.hub.set_interval(INTERVALS[index])
        self._schedule()
        self.notify(f"refresh every {INTERVALS[index]:g} s", timeout=2)
        self.tick()

    def help_keys(self) -> tuple[tuple[str, str], ...]:
        """The keys the help lists: in replay its own keys and none that act or record."""
        if not self.replaying:
            if not self.read_only:
                return self.HELP
            return tuple((k, f"(read-only) {d}" if k in LIVE_ONLY else d) for k, d in self.HELP)
        # p pauses the live view but plays a replay; R records the live view.
        hidden = {*LIVE_ONLY, "p", "R"}
        return self.REPLAY_HELP + tuple(k for k in self.HELP if k[0] not in hidden)

    def action_help(self) -> None:
        """Show every key."""
        self.push_screen(HelpScreen(self.help_keys()))

    async def action_quit(self) -> None:
        """Ctrl-Q: the same questions as ``q`` (and Ctrl-C)."""
        await self.action_quit_app()

    async def action_quit_app(self) -> None:
        """Quit; while a rolling restart or an action runs, or a log level ndbtop raised is
        in force, ask first (and offer to restore the level)."""
        self.to_fleet = False
        self.flow.quit()

    def action_fleet(self) -> None:
        """Leave this cluster for the fleet overview, asking first as ``q`` does."""
        if self.replaying:
            return
        if not self.fleet:
            self.notify("no fleet: the overview lists the contexts of clusters.toml "
                        "(README: Several clusters)", severity="warning", timeout=5)
            return
        self.to_fleet = True
        self.flow.quit()

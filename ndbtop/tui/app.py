"""The live view: a Textual app that renders the hub's snapshots and runs guarded actions.

The app never touches a socket: the hub's sources poll in the background, a
timer pulls the latest snapshot each refresh and renders the visible view,
and actions run in workers on their own management connection.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.widgets import Input, TabbedContent, TabPane

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.backup_commands import AbortBackup, StartBackup
from ndbtop.actions.commands import (
    Action,
    RestartNode,
    SetClusterLogLevel,
    StartNode,
    StopNode,
)
from ndbtop.actions.runner import ActionOutcome, run_action
from ndbtop.errors import NdbtopError
from ndbtop.files import write_crash_report
from ndbtop.mgm.events.catalogue import Category
from ndbtop.model.backups import running_backup
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.ops.rolling import RollingResult
from ndbtop.record.background import BackgroundRecorder
from ndbtop.record.recorder import Recorder, default_recording_path
from ndbtop.record.replay import ReplaySource
from ndbtop.report.render import report_text
from ndbtop.sanitise import sanitise, sanitise_lines
from ndbtop.tui.screens.backup_prompt import BackupPrompt
from ndbtop.tui.screens.confirm import ConfirmAction
from ndbtop.tui.screens.help import HelpScreen
from ndbtop.tui.screens.quit import QuitPrompt
from ndbtop.tui.screens.rolling import RollingRestartScreen
from ndbtop.tui.source import SnapshotSource
from ndbtop.tui.views.backups import BackupsView
from ndbtop.tui.views.base import View
from ndbtop.tui.views.config import ConfigView
from ndbtop.tui.views.disk import DiskView
from ndbtop.tui.views.events import EventsView
from ndbtop.tui.views.nodes import NodesView
from ndbtop.tui.views.restarts import RestartsView
from ndbtop.tui.views.threads import ThreadsView
from ndbtop.tui.widgets.header import StatusHeader
from ndbtop.tui.widgets.keybar import KeyBar

INTERVALS = (0.5, 1.0, 2.0, 5.0, 10.0)
VIEWS = (
    ("nodes", NodesView),
    ("threads", ThreadsView),
    ("disk", DiskView),
    ("events", EventsView),
    ("restarts", RestartsView),
    ("backups", BackupsView),
    ("config", ConfigView),
)
CHANGING_ACTIONS = frozenset(
    {"restart", "stop", "start", "statistics", "rolling", "backup", "abort_backup"}
)
REPLAY_ACTIONS = frozenset({"play", "step", "seek", "speed", "refused"})
LIVE_ACTIONS = CHANGING_ACTIONS | {"pause", "record"}
SEEK_SECONDS = 60.0
EXPECT_BACKUP_FOR = 30.0
"""Seconds during which a backup started from here is looked for at every refresh."""
STEP = Binding.Group("Step", compact=True)
SPEED = Binding.Group("Speed", compact=True)
REFUSED = {
    "actions": "replay: this is a recording, nothing can be sent to a cluster",
    "record": "replay: this is already a recording (R records the live view)",
}
STATISTICS = int(Category.STATISTICS)


class NdbtopApp(App[int]):
    """ndbtop's live view."""

    TITLE = "ndbtop"
    _header: StatusHeader
    _tabs: TabbedContent
    CSS = """
    Screen { layout: vertical; }
    TabbedContent { height: 1fr; }
    TabPane { padding: 0; }
    #filter { dock: bottom; display: none; }
    #filter.-visible { display: block; }
    """

    BINDINGS = [
        Binding("1", "view('nodes')", "Nodes"),
        Binding("2", "view('threads')", "Threads"),
        Binding("3", "view('disk')", "Disk"),
        Binding("4", "view('events')", "Events"),
        Binding("5", "view('restarts')", "Restarts"),
        Binding("6", "view('backups')", "Backup", show=False),
        Binding("7", "view('config')", "Config", show=False),
        Binding("r", "restart", "Restart"),
        Binding("x", "stop", "Stop", show=False),
        Binding("t", "start", "Start", show=False),
        Binding("L", "statistics", "Stats log"),
        Binding("W", "rolling", "Rolling restart", show=False),
        Binding("B", "backup", "Backup", show=False),
        Binding("A", "abort_backup", "Abort backup", show=False),
        Binding("p", "pause", "Pause"),
        Binding("R", "record", "Record", show=False),
        # Replay only: check_action hides them in the live view.
        Binding("space", "play", "Play"),
        Binding("p", "play", "Play", show=False),
        Binding("full_stop", "step(1)", "Step", group=STEP),
        Binding("comma", "step(-1)", "Step back", group=STEP),
        Binding("right_square_bracket", "seek(1)", "+1 min", show=False),
        Binding("left_square_bracket", "seek(-1)", "-1 min", show=False),
        Binding("greater_than_sign", "speed(1)", "Faster", group=SPEED),
        Binding("less_than_sign", "speed(-1)", "Slower", group=SPEED),
        Binding("r,x,t,L,W,B,A", "refused('actions')", show=False),
        Binding("R", "refused('record')", show=False),
        Binding("slash", "filter", "Filter"),
        Binding("s", "sort", "Sort", show=False),
        Binding("plus,equals_sign", "interval(1)", "Slower", show=False),
        Binding("minus", "interval(-1)", "Faster", show=False),
        Binding("y", "copy", "Copy", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_app", "Quit"),
    ]
    HELP = (
        ("1 … 7", "Nodes, Threads, Disk, Events, Restarts, Backup, Config"),
        ("↑ ↓ / enter", "select a node (its timeline, its threads)"),
        ("r", "restart the selected data node (RESTART [-i] [-n] [-a] [-f])"),
        ("x", "stop the selected data node (STOP [-a] [-f])"),
        ("t", "start the selected data node (left NOT_STARTED by RESTART -n)"),
        ("L", "CLUSTERLOG STATISTICS=15 on all data nodes; again to restore"),
        ("W", "rolling restart of the data nodes: plan, confirm, follow, pause or abort"),
        ("B", "start a backup (START BACKUP with its options, as in ndb_mgm)"),
        ("A", "ABORT BACKUP of the backup in progress (its id typed to confirm)"),
        ("p", "pause the screen (data keeps being collected)"),
        ("R", "record to ndbtop-DATE-TIME.ndbrec (for ndbtop replay); again to stop"),
        ("+ / -", "refresh slower / faster"),
        ("/", "filter the view (node id, thread name, event text)"),
        ("s", "change the sort order of the view"),
        ("y", "copy the selected row, or the whole report, to the clipboard (OSC 52)"),
        ("?", "this help"),
        ("q", "quit"),
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
    ) -> None:
        super().__init__()
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
        self._theme_name = theme
        self.hub: SnapshotSource | None = None
        self.paused = False
        self.statistics_raised_from: int | None = None
        self._timer: Timer | None = None
        self._frozen: ClusterSnapshot | None = None
        self._ticking = False
        self._tick_soon = False
        self._sql_target: str | None = None
        """The SQL node ndbinfo was last read from (with several)."""
        self._views: dict[str, View] = {}
        """Every view by name, as composed (looked up at every refresh)."""
        self.recorder: BackgroundRecorder | None = None
        """The flight recorder while ``R`` records, else None."""
        self.recordings: list[Path] = []
        """Every file ``R`` recorded to in this session."""
        self.rolling_node_timeout = 1800.0
        """Seconds ``W``'s rolling restart waits for a node to be STARTED again."""
        self.rolling_poll = 1.0
        """Seconds between ``W``'s rolling restart status polls."""
        self.crash: BaseException | None = None
        """The internal error that ended the view, if one did."""
        self.crash_report: Path | None = None
        """Where its traceback was written."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notification, never markup: messages quote servers and files."""
        super().notify(
            sanitise(message), title=sanitise(title), severity=severity, timeout=timeout,
            markup=False,
        )

    def _fatal_error(self) -> None:
        # An internal error: the traceback goes to a private crash report, not to the
        # terminal (it may quote what a server sent); the launcher names the report.
        error = self._exception
        if error is not None:
            self.crash = error
            try:
                self.crash_report = write_crash_report(error)
            except OSError:
                self.crash_report = None
        self._close_messages_no_wait()

    # Layout

    def compose(self) -> ComposeResult:
        # In a replay the REPLAY badge says it all.
        self._header = StatusHeader(
            read_only=self.read_only and not self.replaying, simulated=self.simulated
        )
        yield self._header
        with TabbedContent(initial="nodes", id="tabs") as tabs:
            self._tabs = tabs
            for name, cls in VIEWS:
                with TabPane(cls.title, id=name):
                    view = self._views[name] = cls(id=f"view-{name}")
                    yield view
        yield Input(
            placeholder="filter (Enter to apply, empty to clear, Esc to cancel)", id="filter"
        )
        yield KeyBar()

    async def on_mount(self) -> None:
        """Start the sources and the refresh timer."""
        self.theme = self._theme_name
        self.hub = await self._start()
        self.hub.add_listener(self._source_changed)
        reporter = getattr(self.hub, "backup_reporter", None)
        backups = self._views["backups"]
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
        if self.recorder is not None and self.hub is not None:
            self._record(self.hub.snapshot())

    async def on_unmount(self) -> None:
        """Close the recording; stop the sources (and the simulation, in the demo)."""
        if self.recorder is not None:
            with contextlib.suppress(Exception):  # nowhere left to report it
                await self.recorder.close()
            self.recorder = None
        if self.hub is not None:
            await self.hub.stop()
        if self._stop is not None:
            await self._stop()

    # Rendering

    def live_snapshot(self) -> ClusterSnapshot:
        """The newest snapshot, whatever is on screen."""
        if self.hub is None:
            return ClusterSnapshot(
                time.monotonic(), time.time(), 1.0, (SourceStatus("mgm", SourceState.CONNECTING),)
            )
        return self.hub.snapshot()

    @property
    def current_view(self) -> View:
        """The visible view."""
        return self._views[self._tabs.active or "nodes"]

    def tick(self) -> None:
        """Render the newest snapshot (or only the header while paused)."""
        # The timer can fire once more while the app closes and its widgets are gone.
        if self.hub is None or self._ticking or not self._header.is_attached:
            return
        self._ticking = True
        try:
            snap = self.hub.snapshot()
            header = self._header
            header.paused = self.paused
            if isinstance(self.hub, ReplaySource):
                header.replay = self.hub.describe()
            header.show(snap, self.hub.freshness_now())
            self._sql_node_changed(snap)
            if not self.paused:
                self._frozen = snap
                self.current_view.show(snap, self.hub.clock.wall())
        finally:
            self._ticking = False

    def _sql_node_changed(self, snap: ClusterSnapshot) -> None:
        """With several SQL nodes: say when ndbinfo is read from another one."""
        src = snap.source("ndbinfo")
        if src is None or not src.others or src.state is not SourceState.CONNECTED:
            return
        if self._sql_target is not None and src.target != self._sql_target:
            self.notify(f"ndbinfo is now read from {src.target}", timeout=8)
        self._sql_target = src.target

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Draw a view as soon as it becomes visible."""
        if self.hub is not None:
            snap = self._frozen if self.paused and self._frozen else self.hub.snapshot()
            self.current_view.show(snap, self.hub.clock.wall())
        self.current_view.focus_table()

    def on_data_table_row_highlighted(self) -> None:
        """Selecting another node redraws its details at once."""
        # A table can still report a highlight while the app closes and the views are gone.
        if self.hub is None or not self.query("#tabs"):
            return
        # Tables also report a highlight when their rows are re-sorted or updated: only a
        # change of the selected node is worth drawing the view again.
        view = self.current_view
        if view.selected_node() != view.drawn_for:
            view.redraw(self.hub.clock.wall())

    def on_resize(self) -> None:
        """On short terminals the table and the node detail panel share the height."""
        self.query_one(NodesView).set_class(self.size.height < 30, "-short")

    # Keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only removes the actions that change the cluster; replay keys only in replay."""
        if action in REPLAY_ACTIONS:
            return self.replaying
        if self.replaying and action in LIVE_ACTIONS:
            return False
        return not (self.read_only and action in CHANGING_ACTIONS)

    def action_view(self, name: str) -> None:
        """Switch to a view."""
        # The new view takes the focus before the old one is hidden: a focused table that
        # gets hidden hands the focus to a sibling in its own (hidden) pane, and the tabs
        # then switch back to that pane.
        self._views[name].focus_table()
        self._tabs.active = name

    def action_pause(self) -> None:
        """Freeze the screen; data keeps being collected."""
        self.paused = not self.paused
        self.notify(
            "paused: the screen is frozen, data is still collected" if self.paused else "resumed",
            timeout=2,
        )
        self.tick()

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
        # The active filter shows in the view's tab: "Nodes /ldm".
        label = Text(view.title)
        if view.filter_text:
            label.append(f" /{view.filter_text}", style="bold reverse")
        self._tabs.get_tab(self._tabs.active).label = label
        event.input.remove_class("-visible")
        view.focus()
        if self.hub is not None:
            view.redraw(self.hub.clock.wall())

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
            self.notify("this view has one order", timeout=2)
            return
        mode = view.next_sort()
        if self.hub is not None:
            view.redraw(self.hub.clock.wall())
        self.notify(f"sorted by {mode}", timeout=2)

    def action_copy(self) -> None:
        """Copy the selected row, or the whole report, with OSC 52 (works over SSH)."""
        text = self.current_view.copy_text() or report_text(self.live_snapshot())
        self.copy_to_clipboard(sanitise_lines(text))
        self.notify(f"copied {len(text.splitlines())} line(s) to the clipboard", timeout=2)

    def help_keys(self) -> tuple[tuple[str, str], ...]:
        """The keys the help lists: in replay its own keys and none that act or record."""
        if not self.replaying:
            return self.HELP
        hidden = {"r", "x", "t", "L", "W", "p", "R"}
        return self.REPLAY_HELP + tuple(k for k in self.HELP if k[0] not in hidden)

    def action_help(self) -> None:
        """Show every key."""
        self.push_screen(HelpScreen(self.help_keys()))

    # The flight recorder (live view)

    async def action_record(self) -> None:
        """Start recording every refresh's snapshot to a new file, or stop."""
        if self.hub is None:
            return
        if self.recorder is not None:
            await self._stop_recording()
            return
        path = default_recording_path()
        source = f"simulated {self.simulated}" if self.simulated else str(self.hub.connectstring)
        try:
            recorder = Recorder(path, source=source)
        except OSError as exc:
            self.notify(f"cannot record to {path}: {exc.strerror}", severity="error", timeout=10)
            return
        self.recorder = BackgroundRecorder(recorder, on_error=self._recording_failed)
        self.recordings.append(path)
        self._header.recording = path.name
        self.notify(f"recording to {path} (R stops)", timeout=4)
        # The file holds a snapshot at once: a recording without any cannot be replayed.
        self._record(self.hub.snapshot())
        self.tick()

    def _record(self, snap: ClusterSnapshot) -> None:
        if self.recorder is not None:
            self.recorder.write(snap)

    def _recording_failed(self, _: Exception) -> None:
        if self.recorder is None:
            return
        self.notify(f"recording stopped: {self.recorder.path}: {self.recorder.error_text}",
                    severity="error", timeout=10)
        self.call_later(self._stop_recording, quiet=True)

    async def _stop_recording(self, *, quiet: bool = False) -> None:
        recorder = self.recorder
        if recorder is None:
            return
        self.recorder = None
        try:
            await recorder.close()
        except OSError:
            quiet = True
        self._header.recording = None
        if not quiet:
            self.notify(f"recorded {recorder.snapshots} snapshots to {recorder.path}", timeout=6)
        self.tick()

    # Replay

    def _replay(self) -> ReplaySource | None:
        return self.hub if isinstance(self.hub, ReplaySource) else None

    def action_play(self) -> None:
        """Play or pause the recording."""
        if replay := self._replay():
            replay.toggle()
            self.tick()

    def action_step(self, count: int) -> None:
        """Pause and show the next (1) or previous (-1) recorded snapshot."""
        if replay := self._replay():
            replay.step(count)
            self.tick()

    def action_seek(self, minutes: int) -> None:
        """Jump ``minutes`` of recorded time forward or back."""
        if replay := self._replay():
            replay.seek(minutes * SEEK_SECONDS)
            self.tick()

    def action_speed(self, step: int) -> None:
        """Play faster (+1) or slower (-1)."""
        if replay := self._replay():
            self.notify(f"replay speed x{replay.change_speed(step):g}", timeout=2)
            self.tick()

    def action_refused(self, what: str) -> None:
        """A live-only key pressed during a replay: say why nothing happens."""
        self.notify(REFUSED.get(what, REFUSED["actions"]), severity="warning", timeout=4)

    # Actions on the cluster

    def _selected_data_node(self) -> int | None:
        node_id = self.current_view.selected_node()
        snap = self.live_snapshot()
        node = snap.node(node_id) if node_id is not None else None
        if node is None or node.type != "NDB":
            self.notify("select a data node first (in Nodes, Threads or Disk)", severity="warning")
            return None
        return node_id

    def action_restart(self) -> None:
        """Restart the selected data node, after confirmation."""
        node_id = self._selected_data_node()
        if node_id is not None:
            self._confirm(RestartNode((node_id,)), "Restart")

    def action_stop(self) -> None:
        """Stop the selected data node, after confirmation."""
        node_id = self._selected_data_node()
        if node_id is not None:
            self._confirm(StopNode((node_id,)), "Stop")

    def action_start(self) -> None:
        """Start the selected data node, after confirmation."""
        node_id = self._selected_data_node()
        if node_id is not None:
            self._confirm(StartNode(node_id), "Start")

    def action_statistics(self) -> None:
        """Raise STATISTICS to 15 on all data nodes, or restore the level ndbtop replaced."""
        snap = self.live_snapshot()
        nodes = tuple(n.node_id for n in snap.data_nodes())
        if not nodes:
            self.notify("no data node to set log levels on", severity="warning")
            return
        if self.statistics_raised_from is not None:
            self._confirm(
                SetClusterLogLevel(nodes, STATISTICS, self.statistics_raised_from), "Restore"
            )
            return
        level = snap.cluster_log_level.get("statistics")
        if level is None:
            self.notify("the cluster-log levels are not known yet", severity="warning")
            return
        if level >= 15:
            self.notify("STATISTICS is already 15", timeout=3)
            return
        self._confirm(SetClusterLogLevel(nodes, STATISTICS, 15), "Set")

    def action_rolling(self) -> None:
        """Open the guided rolling restart of the data nodes (nothing is sent before Start)."""
        if self.read_only or self.hub is None:
            return
        nodes = self.live_snapshot().data_nodes()
        if not nodes:
            self.notify("no data node to restart (the status is not known yet)", severity="warning")
            return
        self.push_screen(
            RollingRestartScreen(
                nodes,
                self.live_snapshot,
                self.hub.connectstring,
                self.audit,
                node_timeout=self.rolling_node_timeout,
                poll=self.rolling_poll,
            ),
            self._rolled,
        )

    def action_backup(self) -> None:
        """Ask for the START BACKUP options, then confirm against the cluster's state."""
        if self.read_only:
            self.notify("read-only: actions are disabled", severity="warning")
            return

        def typed(action: StartBackup | None) -> None:
            if action is not None:
                self._confirm(action, "Start backup")

        self.push_screen(BackupPrompt(), typed)

    def action_abort_backup(self) -> None:
        """Abort the backup in progress, after its id is typed."""
        running = running_backup(self.live_snapshot().backups)
        if running is None or running.backup_id is None:
            self.notify("no backup is running (as far as ndbtop has seen)", severity="warning")
            return
        self._confirm(AbortBackup(running.backup_id), f"Abort backup {running.backup_id}")

    def _rolled(self, result: RollingResult | None) -> None:
        if result is None or self.hub is None:
            return
        line = f"rolling restart: restarted {' '.join(map(str, result.done)) or 'none'}"
        if result.skipped:
            line += f", skipped {' '.join(map(str, result.skipped))}"
        if result.aborted:
            line += ", ABORTED"
        ok = not result.aborted and not result.skipped
        now = self.hub.clock.wall()
        # The callback may run before the rolling restart screen is gone from the stack.
        events = self.screen_stack[0].query_one(EventsView)
        events.add_note(now, _note(now, line, "green" if ok else "bold red"))
        self.hub.refresh_now()

    def _confirm(self, action: Action, verb: str) -> None:
        if self.read_only:
            self.notify("read-only: actions are disabled", severity="warning")
            return

        screen = ConfirmAction(action, self.live_snapshot, verb)

        def chosen(result: Action | None) -> None:
            if result is not None:
                self.run_worker(
                    self._run(result, screen.confirmed), group="actions", exclusive=False
                )

        self.push_screen(screen, chosen)

    async def _run(self, action: Action, confirmed: str | None = None) -> ActionOutcome | None:
        if self.hub is None:
            return None
        events = self.query_one(EventsView)
        now = self.hub.clock.wall()
        events.add_note(now, _note(now, f"sending {action.ndb_mgm()}", "bold"))
        previous = self.live_snapshot().cluster_log_level.get("statistics")
        try:
            outcome = await run_action(
                action,
                self.hub.connectstring,
                self.audit,
                config=self.live_snapshot().config,
                confirmed=confirmed,
            )
        except NdbtopError as exc:  # the audit log could not be written
            self.notify(f"{action.ndb_mgm()}: {exc}", severity="error", timeout=10)
            return None
        after = self.hub.clock.wall()
        style = "green" if outcome.ok else "bold red"
        events.add_note(after, _note(after, f"{action.ndb_mgm()}: {outcome.reply}", style))
        self.notify(
            f"{action.ndb_mgm()}: {outcome.reply}",
            severity="information" if outcome.ok else "error",
            timeout=8,
        )
        if outcome.ok and isinstance(action, SetClusterLogLevel):
            self._statistics_changed(action, previous)
        reporter = getattr(self.hub, "backup_reporter", None)
        if reporter is not None and isinstance(action, StartBackup | AbortBackup):
            reporter.ask_now(EXPECT_BACKUP_FOR if isinstance(action, StartBackup) else 0.0)
        self.hub.refresh_now()
        return outcome

    def _statistics_changed(self, action: SetClusterLogLevel, previous: int | None) -> None:
        events = self.query_one(EventsView)
        if self.statistics_raised_from is None and action.level == 15:
            self.statistics_raised_from = previous if previous is not None else 7
            events.banner_text = Text(
                f" Cluster log changed by ndbtop: STATISTICS {self.statistics_raised_from} → 15 "
                "(L restores it) ",
                style="bold black on yellow",
            )
        else:
            self.statistics_raised_from = None
            events.banner_text = None

    async def action_quit(self) -> None:
        """Ctrl-Q: the same questions as ``q``."""
        await self.action_quit_app()

    def _rolling_screen(self) -> RollingRestartScreen | None:
        return next(
            (s for s in self.screen_stack
             if isinstance(s, RollingRestartScreen) and s.running),
            None,
        )

    async def action_quit_app(self) -> None:
        """Quit; while a rolling restart or an action runs, or a log level ndbtop raised is
        in force, ask first (and offer to restore the level)."""
        if isinstance(self.screen, QuitPrompt):
            return
        rolling = self._rolling_screen()
        running = []
        if rolling is not None:
            running.append(f"A rolling restart is running ({rolling.position})")
        if any(w.group == "actions" and not w.is_finished for w in self.workers):
            running.append("An action is being sent")
        raised = self.statistics_raised_from is not None and not self.read_only
        if not running and not raised:
            self.exit(0)
            return
        change = f"STATISTICS {self.statistics_raised_from} → 15" if raised else None

        async def answered(choice: str | None) -> None:
            if choice not in ("restore", "leave"):
                return
            stopped = self._rolling_screen()
            if stopped is not None:
                try:
                    note = stopped.interrupt()
                except NdbtopError as exc:
                    self.notify(f"rolling restart: {exc}", severity="error", timeout=10)
                else:
                    self.notes_on_exit.append(f"rolling restart {note}")
            if choice == "restore" and self.hub is not None:
                nodes = tuple(n.node_id for n in self.live_snapshot().data_nodes())
                action = SetClusterLogLevel(nodes, STATISTICS, self.statistics_raised_from or 7)
                try:
                    outcome = await run_action(action, self.hub.connectstring, self.audit)
                except NdbtopError as exc:
                    self.notify(f"not restored: {exc}", severity="error", timeout=10)
                    return
                if not outcome.ok:
                    self.notify(f"not restored: {outcome.reply}", severity="error", timeout=10)
                    return
            self.exit(0)

        self.push_screen(QuitPrompt(change, running), answered)


def _note(when: float, text: str, style: str) -> Text:
    line = Text(dt.datetime.fromtimestamp(when).strftime("%H:%M:%S") + "  ", style="dim")
    line.append("ndbtop   ", style="bold magenta")
    line.append(text, style=style)
    return line

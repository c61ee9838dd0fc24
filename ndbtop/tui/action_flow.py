"""Every action on the cluster, one way: confirm → guard → send → audit.

The keys of the live screen ask for an action here; nothing else in the terminal
UI sends a command. The confirmation re-checks the server's rules against the
live snapshot, :func:`~ndbtop.actions.runner.run_action` guards, sends on its own
management connection and audits, and the outcome lands in the event log, a
notification and the next refresh.
"""

from __future__ import annotations

import datetime as dt

from textual.css.query import NoMatches

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
from ndbtop.mgm.events.catalogue import Category
from ndbtop.model.backups import running_backup
from ndbtop.ops.rolling import RollingResult
from ndbtop.tui.hosts import FlowHost
from ndbtop.tui.safe import Text
from ndbtop.tui.screens.backup_prompt import BackupPrompt
from ndbtop.tui.screens.confirm import ConfirmAction
from ndbtop.tui.screens.mgm_prompt import MgmPrompt, verb_of
from ndbtop.tui.screens.quit import QuitPrompt
from ndbtop.tui.screens.rolling import RollingRestartScreen
from ndbtop.tui.views.events import EventsView

EXPECT_BACKUP_FOR = 30.0
"""Seconds during which a backup started from here is looked for at every refresh."""
STATISTICS = int(Category.STATISTICS)


def note(when: float, text: str, style: str) -> Text:
    """A line of ndbtop's own in the event log."""
    line = Text(dt.datetime.fromtimestamp(when).strftime("%H:%M:%S") + "  ", style="dim")
    line.append("ndbtop   ", style="bold magenta")
    line.append(text, style=style)
    return line


class ActionFlow:
    """The actions of one live view, and what they left in force (a raised log level)."""

    def __init__(self, app: FlowHost) -> None:
        self.app = app
        self.statistics_raised_from: int | None = None
        """The STATISTICS level ndbtop replaced with 15, while it is in force."""

    def _events(self) -> EventsView:
        # The first screen is the live view's, whatever dialog is on top of it.
        return self.app.screen_stack[0].query_one(EventsView)

    def _add_note(self, text: str, style: str) -> None:
        if self.app.hub is None:
            return
        try:
            events = self._events()
        except NoMatches:
            # The live view is closing (a reply that came as the app quit): the audit log
            # holds the outcome, and no event log is left to show it in.
            return
        now = self.app.hub.clock.wall()
        events.add_note(now, note(now, text, style))

    # The keys

    def ask(self, name: str) -> None:
        """Begin the action a key names: ``restart``, ``stop``, ``start``, ``statistics``,
        ``rolling``, ``backup``, ``abort_backup`` or ``command``."""
        actions = {
            "restart": self.restart,
            "stop": self.stop,
            "start": self.start,
            "statistics": self.statistics,
            "rolling": self.rolling,
            "backup": self.backup,
            "abort_backup": self.abort_backup,
            "command": self.command,
        }
        actions[name]()

    def _selected_data_node(self) -> int | None:
        node_id = self.app.current_view.selected_node()
        snap = self.app.live_snapshot()
        node = snap.node(node_id) if node_id is not None else None
        if node is None or node.type != "NDB":
            self.app.notify(
                "select a data node first (in Nodes, Threads or Disk)", severity="warning"
            )
            return None
        return node_id

    def restart(self) -> None:
        """Restart the selected data node, after confirmation."""
        node_id = self._selected_data_node()
        if node_id is not None:
            self.confirm(RestartNode((node_id,)), "Restart")

    def stop(self) -> None:
        """Stop the selected data node, after confirmation."""
        node_id = self._selected_data_node()
        if node_id is not None:
            self.confirm(StopNode((node_id,)), "Stop")

    def start(self) -> None:
        """Start the selected data node, after confirmation."""
        node_id = self._selected_data_node()
        if node_id is not None:
            self.confirm(StartNode(node_id), "Start")

    def statistics(self) -> None:
        """Raise STATISTICS to 15 on all data nodes, or restore the level ndbtop replaced."""
        snap = self.app.live_snapshot()
        nodes = tuple(n.node_id for n in snap.data_nodes())
        if not nodes:
            self.app.notify("no data node to set log levels on", severity="warning")
            return
        if self.statistics_raised_from is not None:
            self.confirm(
                SetClusterLogLevel(nodes, STATISTICS, self.statistics_raised_from), "Restore"
            )
            return
        level = snap.cluster_log_level.get("statistics")
        if level is None:
            self.app.notify("the cluster-log levels are not known yet", severity="warning")
            return
        if level >= 15:
            self.app.notify("STATISTICS is already 15", timeout=3)
            return
        self.confirm(SetClusterLogLevel(nodes, STATISTICS, 15), "Set")

    def rolling(self) -> None:
        """Open the guided rolling restart of the data nodes (nothing is sent before Start)."""
        app = self.app
        if app.read_only or app.hub is None:
            return
        nodes = app.live_snapshot().data_nodes()
        if not nodes:
            app.notify("no data node to restart (the status is not known yet)", severity="warning")
            return
        app.push_screen(
            RollingRestartScreen(
                nodes,
                app.live_snapshot,
                app.hub.connectstring,
                app.audit,
                node_timeout=app.rolling_node_timeout,
                poll=app.rolling_poll,
                clock=app.hub.clock,
            ),
            self._rolled,
        )

    def backup(self) -> None:
        """Ask for the START BACKUP options, then confirm against the cluster's state."""
        if self.app.read_only:
            self.app.notify("read-only: actions are disabled", severity="warning")
            return

        def typed(action: StartBackup | None) -> None:
            if action is not None:
                self.confirm(action, "Start backup")

        self.app.push_screen(BackupPrompt(), typed)

    def abort_backup(self) -> None:
        """Abort the backup in progress, after its id is typed."""
        running = running_backup(self.app.live_snapshot().backups)
        if running is None or running.backup_id is None:
            self.app.notify("no backup is running (as far as ndbtop has seen)", severity="warning")
            return
        self.confirm(AbortBackup(running.backup_id), f"Abort backup {running.backup_id}")

    def command(self) -> None:
        """``:``: an ndb_mgm command line, then the same confirmation as the keys'."""
        if self.app.read_only:
            self.app.notify("read-only: actions are disabled", severity="warning")
            return

        def data_nodes() -> tuple[int, ...]:
            return tuple(n.node_id for n in self.app.live_snapshot().data_nodes())

        def typed(action: Action | None) -> None:
            if action is not None:
                self.confirm(action, verb_of(action))

        self.app.push_screen(MgmPrompt(data_nodes), typed)

    def _rolled(self, result: RollingResult | None) -> None:
        if result is None or self.app.hub is None:
            return
        line = f"rolling restart: restarted {' '.join(map(str, result.done)) or 'none'}"
        if result.skipped:
            line += f", skipped {' '.join(map(str, result.skipped))}"
        if result.aborted:
            line += ", ABORTED"
        ok = not result.aborted and not result.skipped
        # The callback may run before the rolling restart screen is gone from the stack.
        self._add_note(line, "green" if ok else "bold red")
        self.app.hub.refresh_now()

    # Confirm, then send

    def confirm(self, action: Action, verb: str) -> None:
        """Show ``action`` for confirmation; once confirmed, send it in a worker."""
        if self.app.read_only:
            self.app.notify("read-only: actions are disabled", severity="warning")
            return

        audit = self.app.audit
        screen = ConfirmAction(action, self.app.live_snapshot, verb,
                               context=audit.context, production=audit.production)

        def chosen(result: Action | None) -> None:
            if result is not None:
                self.app.run_worker(
                    self.send(result, screen.confirmed), group="actions", exclusive=False
                )

        self.app.push_screen(screen, chosen)

    async def send(self, action: Action, confirmed: str | None = None) -> ActionOutcome | None:
        """Send a confirmed action (guarded and audited by the runner); report the outcome."""
        app = self.app
        if app.hub is None:
            return None
        self._add_note(f"sending {action.ndb_mgm()}", "bold")
        previous = app.live_snapshot().cluster_log_level.get("statistics")
        try:
            outcome = await run_action(
                action,
                app.hub.connectstring,
                app.audit,
                config=app.live_snapshot().config,
                confirmed=confirmed,
            )
        except NdbtopError as exc:  # the audit log could not be written
            app.notify(f"{action.ndb_mgm()}: {exc}", severity="error", timeout=10)
            return None
        style = "green" if outcome.ok else "bold red"
        self._add_note(f"{action.ndb_mgm()}: {outcome.reply}", style)
        app.notify(
            f"{action.ndb_mgm()}: {outcome.reply}",
            severity="information" if outcome.ok else "error",
            timeout=8,
        )
        if outcome.ok and isinstance(action, SetClusterLogLevel):
            self._statistics_changed(action, previous)
        reporter = getattr(app.hub, "backup_reporter", None)
        if reporter is not None and isinstance(action, (StartBackup, AbortBackup)):
            reporter.ask_now(EXPECT_BACKUP_FOR if isinstance(action, StartBackup) else 0.0)
        app.hub.refresh_now()
        return outcome

    def _statistics_changed(self, action: SetClusterLogLevel, previous: int | None) -> None:
        events = self._events()
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

    # Leaving

    def _rolling_screen(self) -> RollingRestartScreen | None:
        return next(
            (s for s in self.app.screen_stack
             if isinstance(s, RollingRestartScreen) and s.running),
            None,
        )

    def quit(self) -> None:
        """Quit; while a rolling restart or an action runs, or a log level ndbtop raised is
        in force, ask first (and offer to restore the level)."""
        app = self.app
        if isinstance(app.screen, QuitPrompt):
            return
        rolling = self._rolling_screen()
        running = []
        if rolling is not None:
            running.append(f"A rolling restart is running ({rolling.position})")
        if any(w.group == "actions" and not w.is_finished for w in app.workers):
            running.append("An action is being sent")
        raised = self.statistics_raised_from is not None and not app.read_only
        if not running and not raised:
            app.exit(0)
            return
        change = f"STATISTICS {self.statistics_raised_from} → 15" if raised else None

        async def answered(choice: str | None) -> None:
            if choice not in ("restore", "leave"):
                return
            stopped = self._rolling_screen()
            if stopped is not None:
                try:
                    text = stopped.interrupt()
                except NdbtopError as exc:
                    app.notify(f"rolling restart: {exc}", severity="error", timeout=10)
                else:
                    app.notes_on_exit.append(f"rolling restart {text}")
            if choice == "restore" and app.hub is not None:
                nodes = tuple(n.node_id for n in app.live_snapshot().data_nodes())
                action = SetClusterLogLevel(nodes, STATISTICS, self.statistics_raised_from or 7)
                try:
                    outcome = await run_action(action, app.hub.connectstring, app.audit,
                                               config=app.live_snapshot().config)
                except NdbtopError as exc:
                    app.notify(f"not restored: {exc}", severity="error", timeout=10)
                    return
                if not outcome.ok:
                    app.notify(f"not restored: {outcome.reply}", severity="error", timeout=10)
                    return
            app.exit(0)

        app.push_screen(QuitPrompt(change, running), answered)

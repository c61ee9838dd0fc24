"""The live view's screen: the views, and the keys that act on the cluster or record it.

The action keys hand over to :class:`~ndbtop.tui.action_flow.ActionFlow`, the one
way an action reaches the cluster; ``R`` to the app's flight recorder.
"""

from __future__ import annotations

from textual.binding import Binding

from ndbtop.tui.screens.main import VIEW_KEYS, MainScreen

CHANGING_ACTIONS = frozenset(
    {"restart", "stop", "start", "statistics", "rolling", "backup", "abort_backup"}
)
"""What --read-only takes away."""


class LiveScreen(MainScreen):
    """The views of a live cluster (or the simulator)."""

    BINDINGS = [
        Binding("r", "restart", "Restart"),
        Binding("x", "stop", "Stop", show=False),
        Binding("t", "start", "Start", show=False),
        Binding("L", "statistics", "Stats log"),
        Binding("W", "rolling", "Rolling restart", show=False),
        Binding("B", "backup", "Backup", show=False),
        Binding("A", "abort_backup", "Abort backup", show=False),
        Binding("p", "pause", "Pause"),
        Binding("R", "record", "Record", show=False),
        *VIEW_KEYS,
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only removes the actions that change the cluster."""
        return not (self.ndbtop.read_only and action in CHANGING_ACTIONS)

    def action_restart(self) -> None:
        """Restart the selected data node, after confirmation."""
        self.ndbtop.flow.restart()

    def action_stop(self) -> None:
        """Stop the selected data node, after confirmation."""
        self.ndbtop.flow.stop()

    def action_start(self) -> None:
        """Start the selected data node, after confirmation."""
        self.ndbtop.flow.start()

    def action_statistics(self) -> None:
        """Raise STATISTICS to 15 on all data nodes, or restore the level ndbtop replaced."""
        self.ndbtop.flow.statistics()

    def action_rolling(self) -> None:
        """Open the guided rolling restart of the data nodes."""
        self.ndbtop.flow.rolling()

    def action_backup(self) -> None:
        """Ask for the START BACKUP options, then confirm."""
        self.ndbtop.flow.backup()

    def action_abort_backup(self) -> None:
        """Abort the backup in progress, after its id is typed."""
        self.ndbtop.flow.abort_backup()

    def action_pause(self) -> None:
        """Freeze the screen; data keeps being collected."""
        self.paused = not self.paused
        self.app.notify(
            "paused: the screen is frozen, data is still collected" if self.paused else "resumed",
            timeout=2,
        )
        self.ndbtop.tick()

    async def action_record(self) -> None:
        """Start recording every refresh's snapshot to a new file, or stop."""
        await self.ndbtop.recording.toggle()

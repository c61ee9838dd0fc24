"""The live view's screen: the views, and the keys that act on the cluster or record it.

The action keys hand over to :class:`~ndbtop.tui.action_flow.ActionFlow`, the one
way an action reaches the cluster; ``R`` to the app's flight recorder. With
``--read-only`` the action keys are answered with why nothing happens.
"""

from __future__ import annotations

from textual.binding import Binding

from ndbtop.tui.screens.main import VIEW_KEYS, MainScreen


class LiveScreen(MainScreen):
    """The views of a live cluster (or the simulator)."""

    BINDINGS = [
        Binding("r", "act('restart')", "Restart"),
        Binding("x", "act('stop')", "Stop", show=False),
        Binding("t", "act('start')", "Start", show=False),
        Binding("L", "act('statistics')", "Stats log"),
        Binding("W", "act('rolling')", "Rolling restart"),
        Binding("B", "act('backup')", "Backup"),
        Binding("A", "act('abort_backup')", "Abort backup", show=False),
        Binding("colon", "act('command')", "Command", show=False),
        Binding("p", "pause", "Pause"),
        Binding("R", "record", "Record", show=False),
        # Shown where it works: a cluster opened from (or able to show) the overview.
        Binding("F", "fleet", "Fleet"),
        *VIEW_KEYS,
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only removes the actions that change the cluster; ``F`` is shown only with
        a fleet to go to (elsewhere the app's ``F`` says there is none)."""
        if action == "fleet":
            return self.ndbtop.fleet
        return not (self.ndbtop.read_only and action == "act")

    def action_fleet(self) -> None:
        """To the fleet overview."""
        self.ndbtop.action_fleet()

    def action_act(self, name: str) -> None:
        """An action on the cluster (``restart``, ``stop``...), through the action flow."""
        self.ndbtop.flow.ask(name)

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


ACTION_KEYS = tuple(b.key for b in LiveScreen.BINDINGS
                    if isinstance(b, Binding) and b.action.startswith("act("))
"""The keys that act on the cluster."""
READ_ONLY = ("read-only: actions are disabled (--read-only, read_only in [ndbtop], or the "
             "context's read_only in clusters.toml)")


class ReadOnlyScreen(LiveScreen):
    """The live view with ``--read-only``: the action keys say that nothing is sent."""

    BINDINGS = [Binding(",".join(ACTION_KEYS), "read_only", show=False)]

    def action_read_only(self) -> None:
        """An action key: say why nothing happens."""
        self.app.notify(READ_ONLY, severity="warning", timeout=4)

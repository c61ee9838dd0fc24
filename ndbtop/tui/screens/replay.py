"""A recording's screen: the views, and the keys that move through the recording.

The keys that would act on a cluster or record are answered with why nothing
happens: a recording sends nothing anywhere.
"""

from __future__ import annotations

from textual.binding import Binding

from ndbtop.record.replay import ReplaySource
from ndbtop.tui.screens.main import VIEW_KEYS, MainScreen

SEEK_SECONDS = 60.0
STEP = Binding.Group("Step", compact=True)
SPEED = Binding.Group("Speed", compact=True)
LIVE_ONLY = ("r", "x", "t", "L", "W", "B", "A")
"""The keys that act on a cluster: a replay answers them with why nothing happens."""
REFUSED = {
    "actions": "replay: this is a recording, nothing can be sent to a cluster",
    "record": "replay: this is already a recording (R records the live view)",
}


class ReplayScreen(MainScreen):
    """The views of a recording, played back."""

    BINDINGS = [
        Binding("space", "play", "Play"),
        Binding("p", "play", "Play", show=False),
        Binding("full_stop", "step(1)", "Step", group=STEP),
        Binding("comma", "step(-1)", "Step back", group=STEP),
        Binding("right_square_bracket", "seek(1)", "+1 min", show=False),
        Binding("left_square_bracket", "seek(-1)", "-1 min", show=False),
        Binding("greater_than_sign", "speed(1)", "Faster", group=SPEED),
        Binding("less_than_sign", "speed(-1)", "Slower", group=SPEED),
        Binding(",".join(LIVE_ONLY), "refused('actions')", show=False),
        Binding("R", "refused('record')", show=False),
        *VIEW_KEYS,
    ]

    def _replay(self) -> ReplaySource | None:
        hub = self.ndbtop.hub
        return hub if isinstance(hub, ReplaySource) else None

    def action_play(self) -> None:
        """Play or pause the recording."""
        if replay := self._replay():
            replay.toggle()
            self.ndbtop.tick()

    def action_step(self, count: int) -> None:
        """Pause and show the next (1) or previous (-1) recorded snapshot."""
        if replay := self._replay():
            replay.step(count)
            self.ndbtop.tick()

    def action_seek(self, minutes: int) -> None:
        """Jump ``minutes`` of recorded time forward or back."""
        if replay := self._replay():
            replay.seek(minutes * SEEK_SECONDS)
            self.ndbtop.tick()

    def action_speed(self, step: int) -> None:
        """Play faster (+1) or slower (-1)."""
        if replay := self._replay():
            self.app.notify(f"replay speed x{replay.change_speed(step):g}", timeout=2)
            self.ndbtop.tick()

    def action_refused(self, what: str) -> None:
        """A live-only key pressed during a replay: say why nothing happens."""
        self.app.notify(REFUSED.get(what, REFUSED["actions"]), severity="warning", timeout=4)

"""Leaving while ndbtop's doing is still in force: a rolling restart running, an action
being sent, or a cluster-log level ndbtop raised. Every way out (q, Ctrl-Q) asks this."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button

from ndbtop.tui.safe import Plain


class QuitPrompt(ModalScreen[str]):
    """Dismisses with ``restore`` (restore the level, then quit), ``leave`` or ``stay``.

    ``change`` is the cluster-log change to offer to restore (None: none);
    ``running`` what is still running and stops on quitting.
    """

    BINDINGS = [Binding("escape", "stay", "Stay")]

    DEFAULT_CSS = """
    QuitPrompt { align: center middle; }
    QuitPrompt #box { width: 70; max-width: 100%; height: auto; border: thick $warning;
                      background: $surface; padding: 1 2; }
    QuitPrompt #buttons { height: auto; margin-top: 1; align-horizontal: right; }
    QuitPrompt Button { margin-left: 2; }
    """

    def __init__(self, change: str | None, running: Sequence[str] = ()) -> None:
        super().__init__()
        self.change = change
        self.running = tuple(running)

    def compose(self) -> ComposeResult:
        lines = [f"{what}: quitting stops it (nothing more is sent)." for what in self.running]
        if self.change is not None:
            lines.append(f"ndbtop changed the cluster log: {self.change}.")
            lines.append("Restore the previous level before quitting?")
        else:
            lines.append("Quit anyway?")
        with Vertical(id="box"):
            yield Plain("\n".join(lines))
            with Horizontal(id="buttons"):
                yield Button("Stay", id="stay")
                yield Button("Quit, leave it" if self.change else "Quit", id="leave")
                if self.change is not None:
                    yield Button("Restore and quit", id="restore", variant="primary")

    def on_mount(self) -> None:
        """Restoring is the default; with nothing to restore, staying is."""
        self.query_one("#restore" if self.change is not None else "#stay", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with the button's id."""
        self.dismiss(event.button.id or "stay")

    def action_stay(self) -> None:
        """Escape keeps ndbtop open."""
        self.dismiss("stay")

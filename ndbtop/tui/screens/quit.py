"""Leaving with log levels ndbtop raised: restore them first, leave them, or stay."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button

from ndbtop.tui.safe import Plain


class QuitPrompt(ModalScreen[str]):
    """Dismisses with ``restore``, ``leave`` or ``stay``."""

    BINDINGS = [Binding("escape", "stay", "Stay")]

    DEFAULT_CSS = """
    QuitPrompt { align: center middle; }
    QuitPrompt #box { width: 70; max-width: 100%; height: auto; border: thick $warning;
                      background: $surface; padding: 1 2; }
    QuitPrompt #buttons { height: auto; margin-top: 1; align-horizontal: right; }
    QuitPrompt Button { margin-left: 2; }
    """

    def __init__(self, change: str) -> None:
        super().__init__()
        self.change = change

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Plain(
                f"ndbtop changed the cluster log: {self.change}.\n"
                "Restore the previous level before quitting?"
            )
            with Horizontal(id="buttons"):
                yield Button("Stay", id="stay")
                yield Button("Quit, leave it", id="leave")
                yield Button("Restore and quit", id="restore", variant="primary")

    def on_mount(self) -> None:
        """Restoring is the default."""
        self.query_one("#restore", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with the button's id."""
        self.dismiss(event.button.id or "stay")

    def action_stay(self) -> None:
        """Escape keeps ndbtop open."""
        self.dismiss("stay")

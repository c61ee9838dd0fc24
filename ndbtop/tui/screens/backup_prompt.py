"""``B``: type the START BACKUP options as in ``ndb_mgm``; the confirmation follows."""

from __future__ import annotations

from typing import Optional

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ndbtop.actions.backup_commands import BackupCommandError, StartBackup, parse_start_backup
from ndbtop.tui.safe import Plain, Text

HINT = (
    "START BACKUP [id] [NOWAIT | WAIT STARTED | WAIT COMPLETED] [SNAPSHOTSTART | SNAPSHOTEND]\n"
    "WAIT COMPLETED is the default; Enter checks the command, Esc cancels."
)


class BackupPrompt(ModalScreen[Optional[StartBackup]]):
    """Dismisses with the START BACKUP to confirm, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    BackupPrompt { align: center middle; }
    BackupPrompt #box { width: 96; max-width: 100%; height: auto; border: thick $warning;
                        background: $surface; padding: 1 2; }
    BackupPrompt #error { color: $error; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Plain(Text(HINT))
            yield Input(value="START BACKUP", id="command")
            yield Plain(id="error")

    def on_mount(self) -> None:
        """The command line has the keyboard."""
        self.query_one("#command", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Read the line as ndb_mgm would; a line it refuses stays open with the reason."""
        try:
            action = parse_start_backup(event.value)
        except BackupCommandError as exc:
            self.query_one("#error", Static).update(Text(str(exc)))
            return
        self.dismiss(action)

    def action_cancel(self) -> None:
        """Escape cancels."""
        self.dismiss(None)

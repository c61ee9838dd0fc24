"""``:``: type an ``ndb_mgm`` command; the confirmation of the action flow follows.

The line is read by :func:`ndbtop.actions.mgm_language.parse`, as ``ndbtop mgm``
reads it. A command that changes the cluster is handed back for confirmation;
one that changes nothing (SHOW, STATUS, REPORT, CLUSTERLOG INFO) is answered by
the views, and the prompt says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ndbtop.actions.commands import Action
from ndbtop.actions.mgm_language import Change, MgmUsageError, bind, parse
from ndbtop.tui.safe import Plain, Text

HINT = (
    "An ndb_mgm command: N RESTART [-n] [-i] [-a] [-f], N STOP [-a] [-f], N START, "
    "ALL|N CLUSTERLOG CATEGORY=LEVEL, CLUSTERLOG ON|OFF|TOGGLE, START BACKUP, ABORT BACKUP ID, "
    "ENTER SINGLE USER MODE ID, EXIT SINGLE USER MODE.\nEnter checks it, Esc cancels."
)
VERBS = {
    "restart": "Restart", "stop": "Stop", "start": "Start", "clusterlog": "Set",
    "backup": "Start backup", "abort backup": "Abort backup", "clusterlog filter": "Set",
    "enter single user": "Enter single user mode", "exit single user": "Exit single user mode",
}
"""The confirmation button of each kind of action."""


def verb_of(action: Action) -> str:
    """The confirmation button's word for ``action``."""
    return VERBS.get(action.kind, "Send")


class MgmPrompt(ModalScreen[Optional[Action]]):
    """Dismisses with the action to confirm, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    MgmPrompt { align: center middle; }
    MgmPrompt #box { width: 96; max-width: 100%; height: auto; border: thick $warning;
                     background: $surface; padding: 1 2; }
    MgmPrompt #error { color: $error; }
    """

    def __init__(self, data_node_ids: Callable[[], tuple[int, ...]]) -> None:
        super().__init__()
        self.data_node_ids = data_node_ids

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Plain(Text(HINT))
            yield Input(placeholder="ndb_mgm> ", id="command")
            yield Plain(id="error")

    def on_mount(self) -> None:
        """The command line has the keyboard."""
        self.query_one("#command", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Read the line; a line refused stays open with the reason."""
        error = self.query_one("#error", Static)
        try:
            command = parse(event.value)
        except MgmUsageError as exc:
            error.update(Text(exc.reason))
            return
        if command is None:
            return
        if not isinstance(command, Change):
            error.update(Text(f"{command.kind} changes nothing: the views show it "
                              "(ndbtop mgm -e prints it as ndb_mgm does)"))
            return
        actions = bind(command, self.data_node_ids()).actions
        if len(actions) != 1:
            error.update(Text("one change at a time here (ndbtop mgm -e sends several)"))
            return
        self.dismiss(actions[0])

    def action_cancel(self) -> None:
        """Escape cancels."""
        self.dismiss(None)

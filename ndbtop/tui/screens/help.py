"""The ``?`` overlay: every key and what it does."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from ndbtop.tui.safe import Plain, Text

NOTES = (
    "Phase timers count the phase in progress; get status reports the last completed phase.",
    "≈ marks a duration taken from status polls instead of events.",
    "Actions re-check the live state before they are sent, and are written to the audit log.",
    "They follow the management server's rules: no restart in single-user mode, none while a "
    "data node starts unless -a/-f; -f on a group's last node restarts the whole cluster.",
    "Nodes view: select a management server's row for the membership: heartbeat ring, node "
    "groups, arbitrator candidates and the last arbitration events.",
    "Colours: green fine, yellow attention, red act now. NO_COLOR or --no-color: none.",
)


class HelpScreen(ModalScreen[None]):
    """Keys of the live view; any key closes it."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen #help { width: 100; max-width: 100%; height: auto; max-height: 100%;
                       border: thick $primary; background: $surface; padding: 1 2; }
    """

    def __init__(self, bindings: Iterable[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = list(bindings)

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=False, padding=(0, 2))
        table.add_column(style="bold cyan", justify="right")
        table.add_column()
        for key, description in self.keys:
            table.add_row(key, description)
        notes = Text("\n" + "\n".join(NOTES), style="dim")
        grid = Table.grid()
        grid.add_row(Text("ndbtop keys", style="bold"))
        grid.add_row(table)
        grid.add_row(notes)
        with VerticalScroll(id="help"):
            yield Plain(grid)

    def action_close(self) -> None:
        """Back to the view."""
        self.dismiss(None)

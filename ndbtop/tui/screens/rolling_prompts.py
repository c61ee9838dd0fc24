"""The rolling restart's questions: the abort confirmation, the problem prompt's text and
the gate's.

A problem stops the run and asks, as ``ndbtop rolling-restart`` does: retry,
skip the node, or abort. Findings that hold the next step pause the run and ask: wait for
them to clear, skip the gate (its phrase typed), or abort. Aborting a running restart is
confirmed first.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button

from ndbtop.ops.rolling import GATE_PHRASE, Gate, Problem
from ndbtop.tui.safe import Plain, Text


class AbortPrompt(ModalScreen[bool]):
    """Abort the running rolling restart? Dismisses with True to abort."""

    BINDINGS = [Binding("escape,n", "keep", "Keep going"), Binding("y", "abort", "Abort")]

    DEFAULT_CSS = """
    AbortPrompt { align: center middle; }
    AbortPrompt #abort-box { width: 64; max-width: 100%; height: auto; border: thick $error;
                             background: $surface; padding: 1 2; }
    AbortPrompt #abort-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    AbortPrompt Button { margin-left: 2; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="abort-box"):
            yield Plain(
                "Abort the rolling restart? A restart already sent completes; "
                "no further node is restarted. (y / n)"
            )
            with Horizontal(id="abort-buttons"):
                yield Button("Keep going", id="keep", variant="primary")
                yield Button("Abort", id="abort-yes", variant="error")

    def on_mount(self) -> None:
        """Keeping the run going is the default."""
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Abort or keep going."""
        self.dismiss(event.button.id == "abort-yes")

    def action_keep(self) -> None:
        """Do not abort."""
        self.dismiss(False)

    def action_abort(self) -> None:
        """Abort."""
        self.dismiss(True)


def problem_text(problem: Problem) -> Text:
    """What went wrong, and the choices: retry, skip the batch's nodes, start the nodes
    left NOT_STARTED, or abort."""
    nodes = " ".join(map(str, problem.batch))
    text = Text(f"{problem.kind}: {problem.message}\n", style="bold red")
    start = (f"s[t]art {' '.join(map(str, problem.not_started))}, "
             if problem.not_started else "")
    text.append(f"[r]etry, [s]kip {nodes}, {start}[a]bort?", style="bold")
    return text


def gate_text(gate: Gate, *, asking: bool) -> Text:
    """The findings that hold the next step, and (``asking``) the choices: wait, skip the
    gate by typing its phrase, or abort."""
    nodes = " ".join(map(str, gate.batch))
    text = Text(f"gate: step {gate.step} (node {nodes}) waits for:\n", style="bold yellow")
    for line in gate.lines():
        text.append(f"  {line}\n", style="yellow")
    text.append("the run goes on by itself once they clear; the estimates pause meanwhile",
                style="dim")
    if asking:
        text.append(f"\n[w]ait · type '{GATE_PHRASE}' below to restart node {nodes} now · "
                    "[a]bort", style="bold")
    return text

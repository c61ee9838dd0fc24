"""The yes/no modal for actions that change the cluster.

It shows the exact command (as typed in ``ndb_mgm`` and as sent on the wire),
re-checks the node's live state twice a second while open, focuses Cancel,
and wants the node id typed when the action is dangerous (Enter in the field
confirms once it matches).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Optional

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Static

from ndbtop.actions.backup_commands import AbortBackup
from ndbtop.actions.commands import Action, RestartNode, SetClusterLogLevel, StopNode, wire_text
from ndbtop.actions.guards import Assessment, assess
from ndbtop.actions.production import on_production
from ndbtop.actions.target import cluster_target, generation_of
from ndbtop.mgm.events.catalogue import Category
from ndbtop.model.backups import find_backup, running_backup
from ndbtop.model.config import NO_NODE_GROUP, effective_node_group
from ndbtop.model.freshness import stale_blocker
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.format import status_text
from ndbtop.tui.safe import Plain, Text
from ndbtop.tui.widgets.checkbox import MarkedCheckbox
from ndbtop.tui.widgets.typed_confirm import TypedConfirm

# Short labels: the four fit on one row of the 90-column box; what each option does
# appears among the warnings once it is ticked.
_FLAGS = {
    RestartNode: (
        ("initial", "-i initial"),
        ("nostart", "-n no start"),
        ("abort", "-a abort"),
        ("force", "-f force"),
    ),
    StopNode: (("abort", "-a abort"), ("force", "-f force")),
}


class ConfirmAction(ModalScreen[Optional[Action]]):
    """Confirm or cancel one action; dismisses with the action to run, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    ConfirmAction { align: center middle; }
    ConfirmAction #box { width: 90; max-width: 100%; height: auto; max-height: 100%;
                         border: thick $warning; background: $surface; padding: 0 2; }
    ConfirmAction #box.-danger { border: thick $error; }
    ConfirmAction #title { text-style: bold; }
    ConfirmAction .flags { height: auto; }
    ConfirmAction Checkbox { width: auto; margin-right: 2; }
    ConfirmAction #command { margin-top: 1; }
    ConfirmAction #warnings { margin-top: 1; }
    ConfirmAction #buttons { height: auto; margin-top: 1; align-horizontal: right; }
    ConfirmAction Button { margin-left: 2; }
    """

    def __init__(self, action: Action, live: Callable[[], ClusterSnapshot], verb: str, *,
                 context: str | None = None, production: bool = False) -> None:
        super().__init__()
        self.action = action
        self.live = live
        self.verb = verb
        self.context = context
        """The context the action is on (named in the title)."""
        self.production = context if production else None
        """The production context's name: the phrase to type names it."""
        snap = live()
        self.assessment: Assessment = self._assess(snap)
        self.confirmed: str | None = None
        """What the operator typed to confirm, once they did."""
        self._ended: str | None = None
        """Why the backup this dialog would abort is over, once it ended while open."""
        self._aborting_running = isinstance(action, AbortBackup) and _running(
            snap, action.backup_id)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="box"):
            yield Plain(id="title")
            yield Plain(id="state")
            flags = _FLAGS.get(type(self.action), ())
            if flags:
                with Horizontal(classes="flags"):
                    for name, label in flags:
                        yield MarkedCheckbox(
                            label, value=getattr(self.action, name), id=f"flag-{name}",
                            compact=True,
                        )
            yield Plain(id="command")
            yield Plain(id="warnings")
            yield TypedConfirm(placeholder="", id="confirm", button="go")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel", variant="primary", compact=True)
                yield Button(self.verb, id="go", variant="error", compact=True)

    def on_mount(self) -> None:
        """Draw, focus Cancel (or the field, when the action is confirmed by typing from the
        start: what is typed goes there, not to the keys under the dialog), and re-check
        the live state twice a second."""
        # The action button is as wide as its longest label from the start: its label
        # changes as the text is typed, and it neither gets cut nor moves under the pointer.
        longest = max(len(f"{self.verb} (type to confirm)"), len(f"{self.verb} (refused)"))
        self.query_one("#go", Button).styles.min_width = longest + 2
        self._refresh()
        field = self.query_one("#confirm", TypedConfirm)
        (field if field.display else self.query_one("#cancel", Button)).focus()
        self.set_interval(0.5, self._refresh)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """An option was toggled: the command and the checks change with it."""
        name = (event.checkbox.id or "").removeprefix("flag-")
        self.action = replace(self.action, **{name: event.value})  # type: ignore[type-var]
        self._refresh()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Enable the action button once the node id is typed."""
        self._update_button()

    def _assess(self, snap: ClusterSnapshot) -> Assessment:
        return on_production(assess(self.action, snap.nodes, snap.config, snap.backups,
                                    snap.mgm_address), self.action, self.production)

    def _refresh(self) -> None:
        snap = self.live()
        self.assessment = self._assess(snap)
        stale = stale_blocker(snap)
        if stale is not None:
            self.assessment = replace(self.assessment,
                                      blockers=(stale, *self.assessment.blockers))
        self._backup_ended(snap)
        if self._ended is not None:
            self.assessment = replace(self.assessment,
                                      blockers=(self._ended, *self.assessment.blockers))
        a = self.assessment
        targets = " ".join(map(str, getattr(self.action, "node_ids", ())))
        if isinstance(self.action, SetClusterLogLevel):
            level = f"{Category(self.action.category).name}={self.action.level}"
            title = f"{self.verb} the cluster log's {level} on data nodes {targets}"
        else:
            title = f"{self.verb} node {targets}" if targets else self.verb
        title += (f" on {self.context}?" if self.context is not None else "?")
        self.query_one("#title", Static).update(Text(title))
        state = Text()
        for node_id in getattr(self.action, "node_ids", ()):
            n = snap.node(node_id)
            if n is None:
                continue
            state.append(f"node {node_id}: ")
            state.append_text(status_text(n.status, n.type))
            if n.type == "NDB":
                own = effective_node_group(n, snap.config)
                group = (
                    "none" if own == NO_NODE_GROUP else "unknown" if own is None else own
                )
                partners = [
                    m
                    for m in snap.data_nodes()
                    if own not in (None, NO_NODE_GROUP)
                    and effective_node_group(m, snap.config) == own
                    and m.node_id != node_id
                ]
                state.append(f"  node group {group}")
                if partners:
                    state.append(", partners ")
                    for i, m in enumerate(partners):
                        if i:
                            state.append(", ")
                        state.append(f"{m.node_id} ")
                        state.append_text(status_text(m.status, m.type))
            state.append("\n")
        self.query_one("#state", Static).update(state)
        command = Text("ndb_mgm> ", style="dim")
        command.append(self.action.ndb_mgm(), style="bold")
        where = cluster_target(snap.mgm_address or "?", generation_of(snap))
        command.append(f"\nsends to the {where} (⏎ = end of line):\n", style="dim")
        requests = [r for r in wire_text(self.action).split("\n\n") if r]
        command.append("\n".join("⏎".join(r.split("\n")) + "⏎⏎" for r in requests),
                       style="cyan")
        self.query_one("#command", Static).update(command)
        warnings = Text()
        for b in a.blockers:
            warnings.append(f"✖ {b}\n", style="bold red")
        for w in a.warnings:
            if a.consequence is not None and w.endswith(a.consequence):
                # Said once, in full, on the line that follows.
                w = w[: -len(a.consequence)].rstrip(" :")
            warnings.append(f"! {w}\n", style="bold red" if a.danger else "yellow")
        if a.consequence is not None:
            warnings.append(
                f"THE SERVER WILL DO THIS: {a.consequence}\n", style="bold white on red"
            )
        self.query_one("#warnings", Static).update(warnings)
        box = self.query_one("#box")
        box.set_class(a.danger, "-danger")
        confirm = self.query_one("#confirm", Input)
        confirm.display = a.confirm_text is not None
        if a.confirm_text is not None:
            confirm.placeholder = f"type {a.confirm_text} to confirm"
        self._update_button()

    def _backup_ended(self, snap: ClusterSnapshot) -> None:
        # The backup to abort ended while the dialog was open (typing its id, say): the
        # dialog says so and sends nothing, and a notification says it too.
        action = self.action
        if (not isinstance(action, AbortBackup) or not self._aborting_running
                or self._ended is not None or _running(snap, action.backup_id)):
            return
        ended = find_backup(snap.backups, action.backup_id)
        how = ended.state if ended is not None else "ended"
        self._ended = (f"backup {action.backup_id} {how} while this dialog was open: "
                       "there is nothing left to abort")
        self.app.notify(self._ended, severity="warning", timeout=10)

    def _update_button(self) -> None:
        a = self.assessment
        typed = self.query_one("#confirm", Input).value.strip()
        ready = a.allowed and (a.confirm_text is None or typed == a.confirm_text)
        go = self.query_one("#go", Button)
        go.disabled = not ready
        # Said in words too: a disabled button differs from an enabled one by colour only.
        label = (self.verb if ready else f"{self.verb} (refused)" if not a.allowed
                 else f"{self.verb} (type to confirm)")
        if str(go.label) != label:
            go.label = label
            # A label of another length needs the row laid out again.
            go.refresh(layout=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Cancel, or run the action if it is ready."""
        if event.button.id == "go" and not event.button.disabled:
            self.confirmed = self.assessment.confirm_text
            self.dismiss(self.action)
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        """Escape cancels."""
        self.dismiss(None)


def _running(snap: ClusterSnapshot, backup_id: int) -> bool:
    """Whether ``backup_id`` is the backup in progress."""
    running = running_backup(snap.backups)
    return running is not None and running.backup_id == backup_id

"""The guided rolling restart (``W``): the plan, a confirmation, then live progress.

The screen shows every step of the plan with the ``ndb_mgm`` command and the
exact request it sends, and sends nothing until Start. The run is
:class:`~ndbtop.ops.rolling.RollingRestart` in a worker on its own management
connection, written to the app's audit log; the screen follows it through the
engine's progress reports and a timer. A problem stops the run and asks, as
``ndbtop rolling-restart`` does: retry, skip the node, or abort.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Static

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import RestartNode, wire_text
from ndbtop.actions.target import audit_fields, cluster_target, generation_of
from ndbtop.errors import NdbtopError
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, effective_node_group
from ndbtop.model.freshness import stale_blocker
from ndbtop.model.phases import StartTimeline, apply_status
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ops.preflight import Verdict, preflight
from ndbtop.ops.rolling import (
    Decision,
    Problem,
    Progress,
    RollingPlan,
    RollingRestart,
    RollingResult,
    check_batch,
    plan_rolling,
)
from ndbtop.ops.wait import describe
from ndbtop.tui.format import status_text
from ndbtop.tui.safe import Plain
from ndbtop.tui.widgets.checkbox import MarkedCheckbox

INITIAL_CONFIRM = "initial"
"""What to type to start a rolling restart with ``-i`` (every node rebuilds from its partners)."""

_STYLES = {
    "waiting": "dim",
    "restarting": "bold yellow",
    "done": "green",
    "problem": "bold red",
    "failed": "bold red",
    "skipped": "yellow",
    "not restarted": "dim",
}


@dataclass
class NodeProgress:
    """Where one node of the plan is: waiting, restarting, done, problem, failed, skipped."""

    node_id: int
    node_group: int | None
    step: int
    state: str = "waiting"
    status: NodeStatus | None = None
    sent_at: float | None = None
    took: float | None = None


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


class RollingRestartScreen(ModalScreen[RollingResult | None]):
    """Plan, confirm and follow a rolling restart; dismisses with the result (None if not run)."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("S", "start", "Start"),
        Binding("p", "pause", "Pause/resume"),
        Binding("a", "abort", "Abort"),
        Binding("r", "decide('retry')", "Retry"),
        Binding("s", "decide('skip')", "Skip"),
    ]

    DEFAULT_CSS = """
    RollingRestartScreen { align: center middle; }
    RollingRestartScreen #box { width: 116; max-width: 100%; height: auto; max-height: 100%;
                                border: thick $warning; background: $surface; padding: 0 1; }
    RollingRestartScreen #box.-running { border: thick $accent; }
    RollingRestartScreen #box.-problem { border: thick $error; }
    RollingRestartScreen #title { text-style: bold; }
    RollingRestartScreen #options { height: auto; }
    RollingRestartScreen Checkbox { width: auto; }
    RollingRestartScreen #body { height: auto; max-height: 50vh; }
    RollingRestartScreen #wire { margin-top: 1; }
    RollingRestartScreen #problem { margin-top: 1; }
    RollingRestartScreen #status { margin-top: 1; }
    RollingRestartScreen #buttons { height: auto; align-horizontal: right; }
    RollingRestartScreen Button { margin-left: 2; }
    """

    def __init__(
        self,
        nodes: Sequence[NodeStatus],
        live: Callable[[], ClusterSnapshot],
        connectstring: ConnectString,
        audit: AuditLog,
        *,
        node_timeout: float = 1800.0,
        poll: float = 1.0,
    ) -> None:
        super().__init__()
        self.nodes = tuple(nodes)
        self.live = live
        self.connectstring = connectstring
        self.audit = audit
        self.node_timeout = node_timeout
        self.poll = poll
        self.per_group = False
        self.initial = False
        self.force_degraded = False
        self.verdict: Verdict = self._preflight()
        """The pre-flight verdict on the live state (checked again at every redraw)."""
        self.plan: RollingPlan = self._plan()
        self.rows: dict[int, NodeProgress] = {}
        self.engine: RollingRestart | None = None
        """The running (or finished) engine; None until Start."""
        self.result: RollingResult | None = None
        """What the run did, once it ended."""
        self.problem: Problem | None = None
        """The problem the run waits on a decision for."""
        self.error: str | None = None
        self.abort_requested = False
        self._decision: asyncio.Future[Decision] | None = None
        self._timelines: dict[int, StartTimeline] = {}
        self._started_at = 0.0
        self._ended_at: float | None = None
        self._step = 0
        self._make_rows()

    # State

    @property
    def running(self) -> bool:
        """True from Start until the run ended."""
        return self.engine is not None and self.result is None and self.error is None

    @property
    def finished(self) -> bool:
        """True once the run ended (completed, aborted or failed)."""
        return self.result is not None or self.error is not None

    def _preflight(self) -> Verdict:
        snap = self.live()
        nodes = snap.nodes or self.nodes
        return preflight(nodes, snap.config, force_degraded=self.force_degraded)

    def _plan(self) -> RollingPlan:
        return plan_rolling(self.nodes, per_group=self.per_group, initial=self.initial,
                            config=self.live().config, skip=self.verdict.skipped)

    def _make_rows(self) -> None:
        config = self.live().config
        groups = {n.node_id: effective_node_group(n, config) for n in self.nodes}
        groups.update(self.plan.groups)
        self.rows = {
            node_id: NodeProgress(node_id, groups.get(node_id), step)
            for step, batch in enumerate(self.plan.batches, 1)
            for node_id in batch
        }

    # Layout

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Plain(id="title")
            with Horizontal(id="options"):
                yield MarkedCheckbox("one node per node group at a time", id="per-group")
                yield MarkedCheckbox("-i initial (rebuild from partners)", id="initial")
                yield MarkedCheckbox("force degraded", id="force-degraded")
            with VerticalScroll(id="body"):
                yield Plain(id="steps")
                yield Plain(id="wire")
            yield Plain(id="problem")
            yield Plain(id="status")
            yield Input(placeholder=f"type {INITIAL_CONFIRM} to confirm -i", id="confirm")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel", variant="primary")
                yield Button("Start", id="start", variant="error")
                yield Button("Pause", id="pause")
                yield Button("Abort", id="abort", variant="error")
                yield Button("Retry", id="retry", variant="primary")
                yield Button("Skip", id="skip")
                yield Button("Abort", id="problem-abort", variant="error")
                yield Button("Close", id="close", variant="primary")

    def on_mount(self) -> None:
        """Draw the plan, focus Cancel, and keep the times and live checks current."""
        self._draw()
        self.query_one("#cancel", Button).focus()
        self.set_interval(0.5, self._draw)

    # Drawing

    def _draw(self) -> None:
        now = time.monotonic()
        count = len(self.plan.batches)
        mode = "one node per node group at a time" if self.per_group else "one node at a time"
        initial = ", initial (-i)" if self.initial else ""
        title = (
            f"Rolling restart: {len(self.rows)} data node(s) in {count} step(s), {mode}{initial}"
        )
        snap = self.live()
        where = cluster_target(snap.mgm_address or str(self.connectstring), generation_of(snap))
        self.query_one("#title", Static).update(Text(f"{title}\nat the {where}"))
        self.query_one("#options").display = self.engine is None
        self.query_one("#steps", Static).update(self._steps_table(now))
        self.query_one("#wire", Static).update(self._wire_text())
        problem = self.query_one("#problem", Static)
        problem.display = self.problem is not None
        if self.problem is not None:
            problem.update(self._problem_text(self.problem))
        self.query_one("#status", Static).update(self._status_text(now))
        confirm = self.query_one("#confirm", Input)
        confirm.display = self.engine is None and self.initial
        box = self.query_one("#box")
        box.set_class(self.running, "-running")
        box.set_class(self.problem is not None, "-problem")
        self._sync_buttons()

    def _steps_table(self, now: float) -> Table:
        table = Table(box=None, padding=(0, 2), header_style="bold")
        table.add_column("step", justify="right")
        table.add_column("node", justify="right")
        table.add_column("group", justify="right")
        table.add_column("ndb_mgm>")
        table.add_column("progress")
        for step, batch in enumerate(self.plan.batches, 1):
            command = RestartNode(batch, initial=self.plan.initial).ndb_mgm()
            for i, node_id in enumerate(batch):
                row = self.rows[node_id]
                group = (
                    "?" if row.node_group is None
                    else "none" if row.node_group == NO_NODE_GROUP
                    else str(row.node_group)
                )
                table.add_row(
                    f"{step}." if i == 0 else "",
                    str(node_id),
                    group,
                    command if i == 0 else "",
                    self._progress_text(row, now),
                )
        return table

    def _progress_text(self, row: NodeProgress, now: float) -> Text:
        text = Text(row.state, style=_STYLES.get(row.state, ""))
        if row.state == "restarting":
            n = row.status
            if n is not None:
                text.append(" · ")
                text.append_text(status_text(n.status, n.type))
                phase, spent = describe(n, self._timelines.get(n.node_id), now,
                                        self.plan.start_type)
                if phase:
                    text.append(f" {phase}")
                if spent is not None:
                    text.append(f" · {int(spent)} s in phase")
            else:
                text.append(" · sent")
            if row.sent_at is not None:
                text.append(f" · {int(now - row.sent_at)} s", style="dim")
        elif row.state == "done" and row.took is not None:
            text.append(f" (took {int(row.took)} s)", style="dim")
        return text

    def _wire_text(self) -> Text:
        text = Text("each step sends to the management server (⏎ = end of line):\n", style="dim")
        for step, batch in enumerate(self.plan.batches, 1):
            wire = wire_text(RestartNode(batch, initial=self.plan.initial))
            text.append(f"{step:>4}. ", style="dim")
            text.append("⏎".join(wire.split("\n")) + "\n", style="cyan")
        return text

    def _problem_text(self, problem: Problem) -> Text:
        nodes = " ".join(map(str, problem.batch))
        text = Text(f"{problem.kind}: {problem.message}\n", style="bold red")
        text.append(f"[r]etry, [s]kip {nodes}, [a]bort?", style="bold")
        return text

    def _status_text(self, now: float) -> Text:
        count = len(self.plan.batches)
        if self.error is not None:
            return Text(f"stopped: {self.error}", style="bold red")
        if self.result is not None:
            return self._summary(self.result)
        if self.engine is None:
            text = Text(
                "Nothing is sent until you start (S or the Start button). Each step waits for "
                "its nodes to be STARTED again; a node whose node-group partner is not STARTED "
                "is never restarted.\n",
                style="dim",
            )
            self.verdict = self._preflight()
            for note in self.plan.notes:
                text.append(f"({note})\n", style="yellow")
            verdict = Text()
            if not self.verdict.ok:
                verdict.append(f"✖ {self.verdict.text()}\n", style="bold red")
            else:
                style = "yellow" if self.verdict.degraded else "green"
                verdict.append(self.verdict.text(), style=style)
                verdict.append("  ·  " if not self.verdict.degraded else "\n")
            if self.plan.batches:
                snap = self.live()
                guard = stale_blocker(snap) or check_batch(
                    self.plan.batches[0], snap.data_nodes(), snap.config, self.plan.groups
                )
                if guard is not None and self.verdict.ok:
                    text.append(f"✖ step 1 would stop now: {guard}\n", style="bold red")
            else:
                text.append("no data node to restart\n", style="bold red")
            text.append_text(verdict)
            text.append("esc cancels", style="dim")
            return text
        elapsed = int(now - self._started_at)
        text = Text(f"step {self._step}/{count} · {elapsed} s", style="bold")
        if self.abort_requested:
            text.append(" · ABORTING after the current step", style="bold red")
        elif self.engine.paused:
            text.append(" · PAUSED before the next step (p resumes)", style="bold yellow")
        text.append("\np pause/resume · a abort · esc asks to abort", style="dim")
        return text

    def _summary(self, result: RollingResult) -> Text:
        took = int((self._ended_at or time.monotonic()) - self._started_at)
        line = f"restarted: {' '.join(map(str, result.done)) or 'none'}"
        if result.skipped:
            line += f"; skipped: {' '.join(map(str, result.skipped))}"
        ok = not result.aborted and not result.skipped
        text = Text(
            ("finished, " if ok else "")
            + line
            + ("; ABORTED" if result.aborted else "")
            + f" ({took} s)",
            style="bold green" if ok else "bold yellow",
        )
        problem = result.stopped_by
        if problem is not None:
            nodes = ("node " if len(problem.batch) == 1 else "nodes ") + " ".join(
                map(str, problem.batch)
            )
            text.append(
                f"\nrolling restart aborted at {nodes} ({problem.kind}): {problem.message}",
                style="bold red",
            )
        text.append("\nesc closes", style="dim")
        return text

    def _sync_buttons(self) -> None:
        planning = self.engine is None
        shown = {
            "cancel": planning,
            "start": planning,
            "pause": self.running and self.problem is None,
            "abort": self.running and self.problem is None,
            "retry": self.problem is not None,
            "skip": self.problem is not None,
            "problem-abort": self.problem is not None,
            "close": self.finished,
        }
        for button in self.query("#buttons Button").results(Button):
            button.display = shown.get(button.id or "", False)
        self.query_one("#start", Button).disabled = not self._ready()
        if self.engine is not None:
            self.query_one("#pause", Button).label = "Resume" if self.engine.paused else "Pause"

    def _ready(self) -> bool:
        if (not self.plan.batches or not self.verdict.ok
                or stale_blocker(self.live()) is not None):
            return False
        if not self.initial:
            return True
        return self.query_one("#confirm", Input).value.strip() == INITIAL_CONFIRM

    # Options and buttons

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        """A toggle changes the plan (and the commands) before the start."""
        if self.engine is not None:
            return
        if event.checkbox.id == "per-group":
            self.per_group = event.value
        elif event.checkbox.id == "initial":
            self.initial = event.value
        elif event.checkbox.id == "force-degraded":
            self.force_degraded = event.value
            self.verdict = self._preflight()
        self.plan = self._plan()
        self._make_rows()
        self._draw()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Typing the confirmation enables Start."""
        self._sync_buttons()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Each button does what its key does."""
        actions: dict[str, Callable[[], object]] = {
            "cancel": self.action_close,
            "close": self.action_close,
            "start": self.action_start,
            "pause": self.action_pause,
            "abort": self.action_abort,
            "retry": lambda: self.action_decide("retry"),
            "skip": lambda: self.action_decide("skip"),
            "problem-abort": lambda: self.action_decide("abort"),
        }
        action = actions.get(event.button.id or "")
        if action is not None:
            action()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Each key only where it means something: S before the start, p and a while running,
        r and s while a problem waits for a decision."""
        if action == "start":
            return self.engine is None
        if action in ("pause", "abort"):
            return self.running
        if action == "decide":
            return self.problem is not None
        return True

    # Keys

    def action_start(self) -> None:
        """Start the run (once), if the plan is confirmed."""
        if self.engine is not None:
            return
        self.verdict = self._preflight()
        if not self._ready():
            self._draw()
            return
        self.engine = RollingRestart(
            self.plan,
            self.connectstring,
            self.audit,
            decide=self._decide,
            report=self._report,
            node_timeout=self.node_timeout,
            poll=self.poll,
            config=self.live().config,
        )
        self._started_at = time.monotonic()
        self.run_worker(self._run(self.engine), group="rolling", exclusive=True)
        self._draw()
        self.refresh_bindings()
        self.query_one("#pause", Button).focus()

    async def _run(self, engine: RollingRestart) -> None:
        try:
            result = await engine.run()
        except NdbtopError as exc:  # the audit log could not be written
            self.error = str(exc)
            self._ended_at = time.monotonic()
            self._finish(None)
            return
        self._ended_at = time.monotonic()
        self._finish(result)

    def _finish(self, result: RollingResult | None) -> None:
        self.result = result
        if result is not None:
            for node_id in result.done:
                self.rows[node_id].state = "done"
            for node_id in result.skipped:
                self.rows[node_id].state = "skipped"
            if result.stopped_by is not None:
                for node_id in result.stopped_by.batch:
                    self.rows[node_id].state = "failed"
        for row in self.rows.values():
            if row.state in ("waiting", "restarting", "problem"):
                row.state = "not restarted"
        self._draw()
        self.refresh_bindings()
        self.query_one("#close", Button).focus()

    def _report(self, progress: Progress) -> None:
        now = time.monotonic()
        rows = [self.rows[n] for n in progress.batch if n in self.rows]
        if progress.step == "restart":
            self._step = self.plan.batches.index(progress.batch) + 1
            for row in rows:
                row.state, row.status, row.sent_at = "restarting", None, now
        elif progress.step == "waiting":
            self._timelines = apply_status(self._timelines, progress.nodes, now)
            for n in progress.nodes:
                if n.node_id in self.rows:
                    self.rows[n.node_id].status = n
        elif progress.step == "started":
            for row in rows:
                row.state = "done"
                row.took = now - row.sent_at if row.sent_at is not None else None
        elif progress.step == "problem":
            for row in rows:
                row.state = "problem"
        self._draw()

    async def _decide(self, problem: Problem) -> Decision:
        if self.abort_requested:
            return Decision.ABORT
        self.problem = problem
        self._decision = asyncio.get_running_loop().create_future()
        self._draw()
        self.refresh_bindings()
        self.query_one("#retry", Button).focus()
        try:
            decision = await self._decision
        finally:
            self.problem = None
            self._decision = None
        states = {Decision.RETRY: "waiting", Decision.SKIP: "skipped", Decision.ABORT: "failed"}
        for node_id in problem.batch:
            self.rows[node_id].state = states[decision]
        self._draw()
        self.refresh_bindings()
        if decision is not Decision.ABORT:
            self.query_one("#pause", Button).focus()
        return decision

    def action_decide(self, choice: str) -> None:
        """Answer the problem: ``retry``, ``skip`` or ``abort``."""
        if self._decision is not None and not self._decision.done():
            self._decision.set_result(Decision(choice))

    def action_pause(self) -> None:
        """Pause before the next step, or resume."""
        if self.engine is None or not self.running:
            return
        if self.engine.paused:
            self.engine.resume()
        else:
            self.engine.pause()
        self._draw()

    def action_abort(self) -> None:
        """Abort after a confirmation (while a problem waits, abort answers it at once)."""
        if not self.running:
            return
        if self.problem is not None:
            self.action_decide("abort")
            return
        self._confirm_abort()

    def _confirm_abort(self) -> None:
        def answered(abort: bool | None) -> None:
            if abort and self.running:
                self.abort_requested = True
                assert self.engine is not None
                self.engine.abort()
                self.action_decide("abort")
                self._draw()

        self.app.push_screen(AbortPrompt(), answered)

    @property
    def position(self) -> str:
        """``step 2 of 4`` (step 0 before the first restart is sent)."""
        return f"step {self._step} of {len(self.plan.batches)}"

    def interrupt(self) -> str:
        """Stop the run because ndbtop quits: nothing more is sent, and the audit log says
        where it stopped. Returns that, ``interrupted at step N of M``."""
        note = f"interrupted at {self.position}"
        if self.engine is not None:
            self.engine.abort()
        restarting = [n for n, row in self.rows.items() if row.state == "restarting"]
        address = self.live().mgm_address or str(self.connectstring)
        self.audit.write(event="interrupted", **audit_fields(address), message=note,
                         restarting=restarting)
        return note

    def action_close(self) -> None:
        """Close when no run is active; while one is, ask to abort it first."""
        if self.running:
            self._confirm_abort()
            return
        self.dismiss(self.result)

"""The guided rolling restart (``W``): the plan, a confirmation, then live progress.

The screen shows every step of the plan with the ``ndb_mgm`` command and the
exact request it sends, and sends nothing until Start. The run is
:class:`~ndbtop.ops.rolling.RollingRestart` in a worker on its own management
connection, written to the app's audit log; the screen follows it through the
engine's progress reports and a timer. A problem stops the run and asks, as
``ndbtop rolling-restart`` does: retry, skip the node, or abort, and start the
nodes a failed restart wait left NOT_STARTED. Findings that hold the next step (the
gate, :mod:`ndbtop.ops.rolling_gate`) pause the run and ask: wait for them to clear, skip
the gate (its phrase typed, audited) or abort; the plan shows those that would hold step 1
now. One node per node group is an abort restart, confirmed with its own typed phrase.
This module keeps the plan, the layout and the drawing; the run's half is
:mod:`ndbtop.tui.screens.rolling_run`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Optional

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Static

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.target import cluster_target, generation_of
from ndbtop.eta.rolling import RunTimes
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.clock import Clock, RealClock
from ndbtop.model.config import effective_node_group, pending_restarts
from ndbtop.model.freshness import stale_blocker
from ndbtop.model.phases import StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ops.preflight import Verdict, preflight
from ndbtop.ops.rolling import (
    GATE_PHRASE,
    Decision,
    Gate,
    Problem,
    RollingPlan,
    RollingRestart,
    RollingResult,
    plan_rolling,
)
from ndbtop.tui.safe import Plain, Text
from ndbtop.tui.screens.rolling_plan import (
    EXPLAINED,
    INITIAL_CONFIRM,
    confirm_phrase,
    mode_text,
    plan_notes_text,
    preflight_text,
    requests_text,
)
from ndbtop.tui.screens.rolling_progress import (
    NodeProgress,
    plan_rows,
    plan_time_text,
    running_text,
    steps_table,
    summary,
)
from ndbtop.tui.screens.rolling_prompts import gate_text, problem_text
from ndbtop.tui.screens.rolling_run import RollingRun
from ndbtop.tui.widgets.checkbox import MarkedCheckbox
from ndbtop.tui.widgets.typed_confirm import TypedConfirm

__all__ = ["INITIAL_CONFIRM", "RollingRestartScreen"]


class RollingRestartScreen(RollingRun, ModalScreen[Optional[RollingResult]]):
    """Plan, confirm and follow a rolling restart; dismisses with the result (None if not run)."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("S", "start", "Start"),
        Binding("p", "pause", "Pause/resume"),
        Binding("a", "abort", "Abort"),
        Binding("r", "decide('retry')", "Retry"),
        Binding("s", "decide('skip')", "Skip"),
        Binding("t", "decide('start')", "Start node"),
        Binding("w", "gate('wait')", "Wait for the gate"),
    ]

    DEFAULT_CSS = """
    RollingRestartScreen { align: center middle; }
    RollingRestartScreen #box { width: 116; max-width: 100%; height: auto; max-height: 100%;
                                border: thick $warning; background: $surface; padding: 0 1; }
    RollingRestartScreen #box.-running { border: thick $accent; }
    RollingRestartScreen #box.-problem { border: thick $error; }
    RollingRestartScreen #box.-gate { border: thick $warning; }
    RollingRestartScreen #title { text-style: bold; }
    RollingRestartScreen #options { height: auto; }
    RollingRestartScreen Checkbox { width: auto; margin-right: 2; }
    RollingRestartScreen #body { height: auto; max-height: 40vh; }
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
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.clock: Clock = clock if clock is not None else RealClock()
        """What the run's times are measured on: the cluster's (simulated in the demo)."""
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
        self.gate: Gate | None = None
        self.gate_ahead: Gate | None = None
        self._gate_decision: asyncio.Future[Decision] | None = None
        self._timelines: dict[int, StartTimeline] = {}
        self._started_at = 0.0
        self._ended_at: float | None = None
        self._step = 0
        self._times: RunTimes | None = None
        self._make_rows()

    # State

    def _preflight(self) -> Verdict:
        snap = self.live()
        nodes = snap.nodes or self.nodes
        return preflight(nodes, snap.config, force_degraded=self.force_degraded)

    def _plan(self) -> RollingPlan:
        snap = self.live()
        due = (pending_restarts(snap.config, snap.live_ndbinfo())
               if snap.config is not None else None)
        plan = plan_rolling(self.nodes, per_group=self.per_group, initial=self.initial,
                            config=snap.config, skip=self.verdict.skipped, due=due)
        return replace(plan, production=self.audit.production_context)

    def _make_rows(self) -> None:
        config = self.live().config
        groups = {n.node_id: effective_node_group(n, config) for n in self.nodes}
        groups.update(self.plan.groups)
        self.rows = plan_rows(self.plan, groups)

    # Layout

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Plain(id="title")
            with Horizontal(id="options"):
                yield MarkedCheckbox("one per node group (-a)", id="per-group", compact=True)
                yield MarkedCheckbox("-i initial", id="initial", compact=True)
                yield MarkedCheckbox("force degraded", id="force-degraded", compact=True)
            with VerticalScroll(id="body"):
                yield Plain(id="steps")
                yield Plain(id="notes")
                yield Plain(id="wire")
                yield Plain(Text(EXPLAINED, style="dim"), id="explained")
            yield Plain(id="problem")
            yield Plain(id="status")
            yield TypedConfirm(placeholder=f"type {INITIAL_CONFIRM} to confirm -i: every node "
                               "rebuilds its data from its partners", id="confirm", button="start")
            yield TypedConfirm(placeholder=f"type {GATE_PHRASE} to restart the next step now",
                               id="gate-confirm", button="gate-skip")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel", variant="primary", compact=True)
                yield Button("Start", id="start", variant="error", compact=True)
                yield Button("Pause", id="pause", compact=True)
                yield Button("Abort", id="abort", variant="error", compact=True)
                yield Button("Retry", id="retry", variant="primary", compact=True)
                yield Button("Skip", id="skip", compact=True)
                yield Button("Start node", id="start-left", compact=True)
                yield Button("Wait", id="gate-wait", variant="primary", compact=True)
                yield Button("Skip the gate", id="gate-skip", variant="error", compact=True)
                yield Button("Abort", id="problem-abort", variant="error", compact=True)
                yield Button("Close", id="close", variant="primary", compact=True)

    def on_mount(self) -> None:
        """Draw the plan, focus Cancel, and keep the times and live checks current."""
        # Start is as wide as its longest label: it is neither cut nor moved as -i is typed.
        self.query_one("#start", Button).styles.min_width = len(
            f"Start (type {INITIAL_CONFIRM})") + 2
        self._draw()
        self.query_one("#cancel", Button).focus()
        self.set_interval(0.5, self._draw)

    # Drawing

    def _draw(self) -> None:
        now = self.clock.monotonic()
        count = len(self.plan.batches)
        mode = mode_text(self.plan, self.per_group)
        initial = ", initial (-i)" if self.initial else ""
        title = (
            f"Rolling restart: {len(self.rows)} data node(s) in {count} step(s), {mode}{initial}"
        )
        snap = self.live()
        where = cluster_target(snap.mgm_address or str(self.connectstring), generation_of(snap))
        self.query_one("#title", Static).update(Text(f"{title}\nat the {where}"))
        self.query_one("#options").display = self.engine is None
        self.query_one("#steps", Static).update(
            steps_table(self.plan, self.rows, self._timelines, now)
        )
        self.query_one("#notes", Static).update(plan_notes_text(self.plan, snap))
        self.query_one("#wire", Static).update(requests_text(self.plan))
        problem = self.query_one("#problem", Static)
        problem.display = self.problem is not None or self.gate is not None
        if self.problem is not None:
            problem.update(problem_text(self.problem))
        elif self.gate is not None:
            # The findings' figures as last weighed (they move while the gate holds).
            holding = self.engine.holding if self.engine is not None else None
            problem.update(gate_text(holding or self.gate, asking=self.gate_asking))
        self.query_one("#gate-confirm", Input).display = self.gate_asking
        self.query_one("#status", Static).update(self._status_text(now))
        confirm = self.query_one("#confirm", Input)
        phrase = confirm_phrase(self.plan)
        confirm.display = self.engine is None and phrase is not None
        if phrase is not None:
            what = []
            if self.initial:
                what.append("-i: every node rebuilds its data from its partners")
            if self.plan.aborts:
                what.append("-a: the transactions on the nodes of a step are aborted")
            confirm.placeholder = f"type {phrase} to confirm ({'; '.join(what)})"
        box = self.query_one("#box")
        box.set_class(self.running, "-running")
        box.set_class(self.problem is not None, "-problem")
        box.set_class(self.gate is not None and self.problem is None, "-gate")
        self._sync_buttons()

    def _status_text(self, now: float) -> Text:
        if self.error is not None:
            return Text(f"stopped: {self.error}", style="bold red")
        if self.result is not None:
            took = int((self._ended_at or self.clock.monotonic()) - self._started_at)
            return summary(self.result, took)
        if self.engine is None:
            self.verdict = self._preflight()
            snap = self.live()
            text = preflight_text(self.plan, self.verdict, snap)
            if self.plan.batches:
                text.append("\n")
                text.append_text(plan_time_text(self.plan, snap, self.clock.wall(),
                                                initial=self.initial))
            return text
        eta = self._times.estimate(now, self.clock.wall()) if self._times is not None else None
        return running_text(
            self._step, len(self.plan.batches), int(now - self._started_at),
            aborting=self.abort_requested, paused=self.engine.paused, eta=eta,
            gate=self.gate, ahead=self.gate_ahead,
        )

    def _sync_buttons(self) -> None:
        planning = self.engine is None
        asking = self.gate_asking
        shown = {
            "cancel": planning,
            "start": planning,
            "pause": self.running and self.problem is None and not asking,
            "abort": self.running and self.problem is None and not asking,
            "retry": self.problem is not None,
            "skip": self.problem is not None,
            "start-left": self.problem is not None and bool(self.problem.not_started),
            "gate-wait": asking,
            "gate-skip": asking,
            "problem-abort": self.problem is not None or asking,
            "close": self.finished,
        }
        for button in self.query("#buttons Button").results(Button):
            button.display = shown.get(button.id or "", False)
        skip = self.query_one("#gate-skip", Button)
        skip.disabled = self.query_one("#gate-confirm", Input).value.strip() != GATE_PHRASE
        start = self.query_one("#start", Button)
        start.disabled = not self._ready()
        # Said in words too: a disabled button differs from an enabled one by colour only.
        label = ("Start" if not start.disabled else "Start (refused)"
                 if not self._ready(confirmed=True)
                 else f"Start (type {confirm_phrase(self.plan)})")
        if str(start.label) != label:
            start.label = label
            start.refresh(layout=True)
        if self.problem is not None and self.problem.not_started:
            left = " ".join(map(str, self.problem.not_started))
            self.query_one("#start-left", Button).label = f"Start {left}"
        if self.engine is not None:
            self.query_one("#pause", Button).label = "Resume" if self.engine.paused else "Pause"

    def _ready(self, *, confirmed: bool = False) -> bool:
        """Whether Start may go (``confirmed``: as if the phrase were typed)."""
        if (not self.plan.batches or not self.verdict.ok
                or stale_blocker(self.live()) is not None):
            return False
        phrase = confirm_phrase(self.plan)
        if phrase is None or confirmed:
            return True
        return self.query_one("#confirm", Input).value.strip() == phrase

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
            "start-left": lambda: self.action_decide("start"),
            "gate-wait": lambda: self.action_gate("wait"),
            "gate-skip": self._skip_gate,
            "problem-abort": lambda: self.action_decide("abort"),
        }
        action = actions.get(event.button.id or "")
        if action is not None:
            action()

    def _skip_gate(self) -> None:
        """Skip the gate, once its phrase is typed (the engine writes it to the audit log)."""
        confirm = self.query_one("#gate-confirm", Input)
        if confirm.value.strip() == GATE_PHRASE:
            confirm.value = ""
            self.action_gate("go")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Each key only where it means something: S before the start, p and a while running,
        r and s while a problem waits for a decision, w while the gate asks."""
        if action == "start":
            return self.engine is None
        if action in ("pause", "abort"):
            return self.running
        if action == "decide":
            return self.problem is not None or (parameters == ("abort",) and self.gate_asking)
        if action == "gate":
            return self.gate_asking
        return True

"""The rolling restart screen's run: Start, the engine's progress reports, the decisions a
problem waits for, pause, abort, and the interruption when ndbtop quits.

:class:`RollingRun` is the run half of
:class:`~ndbtop.tui.screens.rolling.RollingRestartScreen`, which keeps the plan, the
layout and the drawing; the run is :class:`~ndbtop.ops.rolling.RollingRestart` in a worker,
on its own management connection, written to the app's audit log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.widgets import Button

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.target import audit_fields, generation_of
from ndbtop.errors import NdbtopError
from ndbtop.eta.rolling import RunTimes, batch_eta
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.model.clock import Clock
from ndbtop.model.phases import StartTimeline, apply_status
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ops.preflight import Verdict
from ndbtop.ops.rolling import (
    Decision,
    Gate,
    Problem,
    Progress,
    RollingPlan,
    RollingRestart,
    RollingResult,
)
from ndbtop.ops.rolling_gate import current_findings
from ndbtop.tui.screens.rolling_plan import confirm_phrase
from ndbtop.tui.screens.rolling_progress import (
    DECIDED,
    NodeProgress,
    mark_progress,
    mark_result,
    run_times,
)
from ndbtop.tui.screens.rolling_prompts import AbortPrompt


class RollingRun:
    """Starts and follows the run of the screen's plan. Mixed into the screen (it uses the
    screen's ``query_one``, ``run_worker`` and ``app``); the state it reads and writes is
    declared below and set by the screen's ``__init__``."""

    plan: RollingPlan
    rows: dict[int, NodeProgress]
    live: Callable[[], ClusterSnapshot]
    connectstring: ConnectString
    audit: AuditLog
    node_timeout: float
    poll: float
    clock: Clock
    initial: bool
    verdict: Verdict
    engine: RollingRestart | None
    result: RollingResult | None
    problem: Problem | None
    error: str | None
    abort_requested: bool
    _decision: asyncio.Future[Decision] | None
    gate: Gate | None
    """The findings holding the run before its next step (None while none does)."""
    gate_ahead: Gate | None
    """What would hold the next step, seen while a step runs."""
    _gate_decision: asyncio.Future[Decision] | None
    _timelines: dict[int, StartTimeline]
    _started_at: float
    _ended_at: float | None
    _step: int
    _times: RunTimes | None
    _draw: Callable[[], None]
    _preflight: Callable[[], Verdict]
    _ready: Callable[..., bool]

    @property
    def running(self) -> bool:
        """True from Start until the run ended."""
        return self.engine is not None and self.result is None and self.error is None

    @property
    def finished(self) -> bool:
        """True once the run ended (completed, aborted or failed)."""
        return self.result is not None or self.error is not None

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
            confirmed=confirm_phrase(self.plan),
            findings=lambda: current_findings(self.live()),
            decide_gate=self._decide_gate,
            clock=self.clock.monotonic,
        )
        self._started_at = self.clock.monotonic()
        self._times = run_times(self.plan, self.live(), initial=self.initial)
        # The step in progress goes by the node estimator once its nodes are starting.
        self._times.node_eta = lambda batch: batch_eta(batch, self.live().start_eta)
        self.run_worker(self._run(self.engine), group="rolling", exclusive=True)
        self._draw()
        self.refresh_bindings()
        self.query_one("#pause", Button).focus()

    async def _run(self, engine: RollingRestart) -> None:
        try:
            result = await engine.run()
        except NdbtopError as exc:  # the audit log could not be written
            self.error = str(exc)
            self._ended_at = self.clock.monotonic()
            self._finish(None)
            return
        self._ended_at = self.clock.monotonic()
        self._finish(result)

    def _finish(self, result: RollingResult | None) -> None:
        self.result = result
        self.gate = self.gate_ahead = None
        mark_result(self.rows, result)
        self._draw()
        self.refresh_bindings()
        self.query_one("#close", Button).focus()

    def _report(self, progress: Progress) -> None:
        now = self.clock.monotonic()
        if progress.step == "restart":
            self._step = self.plan.batches.index(progress.batch) + 1
            if self._times is not None:
                self._times.sent(progress.batch, now)
        elif progress.step == "started" and self._times is not None:
            self._times.started(progress.batch, now)
        elif progress.step == "waiting":
            self._timelines = apply_status(self._timelines, progress.nodes, now)
        if progress.step == "gate":
            self.gate, self.gate_ahead = progress.gate, None
        elif progress.step in ("gate cleared", "gate skipped", "restart"):
            self.gate = self.gate_ahead = None
        elif progress.step == "gate ahead":
            self.gate_ahead = progress.gate if progress.gate and progress.gate.held else None
        mark_progress(self.rows, progress, now)
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
        for node_id in problem.batch:
            self.rows[node_id].state = DECIDED[decision]
        if decision is Decision.SKIP and self._times is not None:
            self._times.skip(problem.batch)
        self._draw()
        self.refresh_bindings()
        if decision is not Decision.ABORT:
            self.query_one("#pause", Button).focus()
        return decision

    async def _decide_gate(self, gate: Gate) -> Decision:
        """Findings hold the next step: wait (the run goes on by itself once they clear;
        the question goes away then too), skip the gate (its phrase typed) or abort."""
        if self.abort_requested:
            return Decision.ABORT
        self._gate_decision = asyncio.get_running_loop().create_future()
        self._draw()
        self.refresh_bindings()
        self.query_one("#gate-wait", Button).focus()
        try:
            return await self._gate_decision
        finally:
            self._gate_decision = None
            self._draw()
            self.refresh_bindings()
            if self.running:
                self.query_one("#pause", Button).focus()

    @property
    def gate_asking(self) -> bool:
        """True while the gate's question waits for an answer."""
        return self._gate_decision is not None and not self._gate_decision.done()

    def action_gate(self, choice: str) -> None:
        """Answer the gate: ``wait``, ``go`` (the phrase typed: skip the gate) or ``abort``."""
        if self.gate_asking:
            assert self._gate_decision is not None
            self._gate_decision.set_result(Decision(choice))

    def action_decide(self, choice: str) -> None:
        """Answer the problem: ``retry``, ``skip``, ``abort``, or ``start`` the nodes left
        NOT_STARTED (``abort`` answers the gate's question too)."""
        if choice == "abort" and self.gate_asking:
            self.action_gate("abort")
            return
        if choice == "start" and (self.problem is None or not self.problem.not_started):
            return
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
        if self.problem is not None or self.gate_asking:
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
                self.action_gate("abort")
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
            if self.engine.holding is not None:
                note += f", held at the gate of step {self.engine.holding.step}"
            self.engine.abort()
        restarting = [n for n, row in self.rows.items() if row.state == "restarting"]
        snap = self.live()
        address = snap.mgm_address or str(self.connectstring)
        self.audit.write(event="interrupted", **audit_fields(address, generation_of(snap)),
                         message=note,
                         restarting=restarting)
        return note

    def action_close(self) -> None:
        """Close when no run is active; while one is, ask to abort it first."""
        if self.running:
            self._confirm_abort()
            return
        self.dismiss(self.result)

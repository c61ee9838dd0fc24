"""Rolling restart: data nodes restarted one at a time (or one per node group), guarded.

Before each step the engine asks the management server for the live status
and never restarts a node whose node-group partner is not STARTED. After a
restart it waits for the node to be STARTED again. A refusal, a timeout or a
node that does not come back stops the run and asks what to do (retry, skip
the node, abort; start a node left NOT_STARTED); a timeout names each node that
is not back with its last state and start phase. The run can be paused, resumed
and aborted; every request goes through the audited action runner.

One node per node group at a time is an abort restart (``2 4 RESTART -a``): the
data nodes refuse a graceful request naming several nodes (5031), and while one
restarted node is STARTING every other graceful request gets 5063, so several
nodes can only restart together with their transactions aborted rather than
drained (server-rules.md §6). It is confirmed with its own typed phrase.

Before each step, and while a step runs, the run also weighs the findings
(:mod:`ndbtop.ops.rolling_gate`): those that hold the next step pause the run before it,
say which, and ask to wait for them to clear, skip the gate (typed, audited) or abort.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import StartNode
from ndbtop.actions.runner import run_action
from ndbtop.actions.target import audit_fields
from ndbtop.compat import AsyncEvent
from ndbtop.errors import MgmError
from ndbtop.findings import Finding
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig
from ndbtop.model.failed_waits import failed_wait
from ndbtop.model.phases import StartTimeline, apply_status
from ndbtop.ops.rolling_gate import GATE_PHRASE, Gate, gate_for
from ndbtop.ops.rolling_guard import STARTED, check_batch, last_seen
from ndbtop.ops.rolling_plan import (
    ABORTED_NOT_DRAINED,
    PER_GROUP_PHRASE,
    RollingPlan,
    configuration_note,
    plan_rolling,
)
from ndbtop.ops.rolling_types import Decision, Problem, Progress, RollingResult

__all__ = [
    "ABORTED_NOT_DRAINED",
    "GATE_PHRASE",
    "PER_GROUP_PHRASE",
    "Decision",
    "Gate",
    "Problem",
    "Progress",
    "RollingPlan",
    "RollingRestart",
    "RollingResult",
    "check_batch",
    "configuration_note",
    "last_seen",
    "plan_rolling",
]


class RollingRestart:
    """Runs a plan against a cluster."""

    def __init__(
        self,
        plan: RollingPlan,
        connectstring: ConnectString,
        audit: AuditLog,
        *,
        decide: Callable[[Problem], Awaitable[Decision]],
        report: Callable[[Progress], None] = lambda progress: None,
        node_timeout: float = 1800.0,
        poll: float = 1.0,
        settle: float = 0.0,
        config: ClusterConfig | None = None,
        confirmed: str | None = None,
        findings: Callable[[], Sequence[Finding]] | None = None,
        decide_gate: Callable[[Gate], Awaitable[Decision]] | None = None,
        gate_timeout: float | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.plan = plan
        self.clock = clock
        """Monotonic seconds the timeouts and the time in a phase are measured on (the
        event loop's when None; a simulated cluster's own clock in the demo)."""
        self.findings = findings
        """The findings true now (None: no gate, node states only)."""
        self.decide_gate = decide_gate
        """Asked when findings hold a step: WAIT, GO (typed) or ABORT; the run waits
        meanwhile and goes on by itself once they clear (the question is then dropped).
        None: wait."""
        self.gate_timeout = gate_timeout
        """Seconds a gate may hold before the run aborts on it (None: no bound)."""
        self.confirmed = confirmed
        """What the operator typed to confirm the plan (written with every request)."""
        self.config = config
        self.connectstring = connectstring
        self.audit = audit
        self.decide = decide
        self.report = report
        self.node_timeout = node_timeout
        self.poll = poll
        self.settle = settle
        self._running = AsyncEvent()
        self._running.set()
        self._abort = False
        self._status: tuple[NodeStatus, ...] | None = None
        """The run's own latest ``get status`` of the data nodes."""
        self.holding: Gate | None = None
        """The gate holding the run now, as last weighed (its findings' figures move while
        it holds; a report comes only when the findings themselves change)."""

    def pause(self) -> None:
        """Stop before the next step (a restart in progress completes)."""
        self._running.clear()

    def resume(self) -> None:
        """Go on after :meth:`pause`."""
        self._running.set()

    def abort(self) -> None:
        """Stop the run at the next opportunity."""
        self._abort = True
        self._running.set()

    @property
    def paused(self) -> bool:
        """True while paused."""
        return not self._running.is_set()

    async def run(self) -> RollingResult:
        """Restart every batch of the plan in order."""
        result = RollingResult()
        client = MgmClient(self.connectstring)
        try:
            for batch in self.plan.batches:
                outcome = await self._batch(client, batch, result)
                if outcome is Decision.ABORT:
                    result.aborted = True
                    break
        finally:
            await client.close()
        return result

    async def _batch(self, client: MgmClient, batch: tuple[int, ...],
                     result: RollingResult) -> Decision | None:
        start: Problem | None = None
        while True:
            await self._running.wait()
            if self._abort:
                return Decision.ABORT
            if start is not None:
                problem = await self._start_left(client, start)
                start = None
            else:
                if await self._gate(client, batch, result) is Decision.ABORT:
                    return Decision.ABORT
                if self.paused:
                    continue  # paused at the gate: weigh the findings again once resumed
                problem = await self._step(client, batch)
            if problem is None:
                result.done.extend(batch)
                return None
            problem = await self._left_not_started(client, problem)
            result.problems.append(problem)
            self.report(Progress(batch, "problem", message=problem.message))
            decision = await self.decide(problem)
            if decision is Decision.ABORT or self._abort:
                result.stopped_by = problem
                return Decision.ABORT
            if decision is Decision.SKIP:
                result.skipped.extend(batch)
                return None
            if decision is Decision.START and problem.not_started:
                start = problem

    async def _step(self, client: MgmClient, batch: tuple[int, ...]) -> Problem | None:
        try:
            nodes = await client.get_status(["NDB"])
        except MgmError as exc:
            return Problem(batch, "connection", str(exc))
        self._status = tuple(nodes)
        guard = check_batch(batch, nodes, self.config, self.plan.groups)
        if guard is not None:
            return Problem(batch, "guard", guard)
        before = {n.node_id: n.connect_count for n in nodes if n.node_id in batch}
        action = self.plan.action(batch)
        self.report(Progress(batch, "restart", nodes, action.ndb_mgm()))
        outcome = await run_action(action, self.connectstring, self.audit, config=self.config,
                                   confirmed=self.confirmed)
        if not outcome.ok:
            return Problem(batch, "refused", outcome.reply)
        return await self._wait_started(client, batch, before)

    def gate(self, batch: tuple[int, ...], running: tuple[int, ...] = ()) -> Gate | None:
        """What holds the step restarting ``batch`` now (None without findings to weigh);
        while ``running`` restarts, what its own restart does does not count."""
        if self.findings is None:
            return None
        step = self.plan.batches.index(batch) + 1
        return gate_for(self.findings(), step, batch, dict(self.plan.groups), running=running,
                        status=self._status)

    async def _gate(self, client: MgmClient, batch: tuple[int, ...],
                    result: RollingResult) -> Decision | None:
        """Hold the step while findings hold it: ABORT when the operator aborts, the run is
        aborted or the gate outlasts :attr:`gate_timeout`; None once it may go (the findings
        cleared, or the gate was skipped)."""
        if self.findings is None:
            return None
        await self._read_status(client)
        gate = self.gate(batch)
        if gate is None or not gate.held:
            return None
        self.holding = gate
        # Cancelled while held, the gate stays named: the interruption says where it sat.
        outcome = await self._held(client, batch, gate, result)
        self.holding = None
        return outcome

    async def _read_status(self, client: MgmClient) -> None:
        """Bring the run's own ``get status`` up to date, by which the gate tells a finding
        about a node group from one a later reading has ended (kept as it was when the
        management server does not answer: the step's own read then says why)."""
        with contextlib.suppress(MgmError):
            self._status = tuple(await client.get_status(["NDB"]))

    def _now(self) -> float:
        return self.clock() if self.clock is not None else asyncio.get_running_loop().time()

    async def _held(self, client: MgmClient, batch: tuple[int, ...], gate: Gate,
                    result: RollingResult) -> Decision | None:
        since = self._now()
        self.report(Progress(batch, "gate", message=gate.text(), gate=gate))
        asked = (asyncio.ensure_future(self.decide_gate(gate))
                 if self.decide_gate is not None else None)
        try:
            while True:
                if asked is not None and asked.done():
                    decision, asked = asked.result(), None
                    if decision is Decision.GO:
                        self._skipped_gate(gate)
                        self.report(Progress(batch, "gate skipped", message=gate.text(),
                                             gate=gate))
                        return None
                    if decision is Decision.ABORT:
                        result.stopped_by = Problem(batch, "gate", gate.text())
                        return Decision.ABORT
                if self._abort:
                    return Decision.ABORT
                waited = self._now() - since
                if self.gate_timeout is not None and waited >= self.gate_timeout:
                    result.stopped_by = Problem(
                        batch, "gate", f"{gate.text()}; still held after {int(waited)} s")
                    return Decision.ABORT
                if asked is not None:
                    await asyncio.wait({asked}, timeout=self.poll)
                else:
                    await asyncio.sleep(self.poll)
                await self._read_status(client)
                now = self.gate(batch)
                self.holding = now
                if now is None or not now.held:
                    self.report(Progress(batch, "gate cleared", message=(
                        f"step {gate.step}: the findings cleared after "
                        f"{int(self._now() - since)} s")))
                    return None
                if now.identities != gate.identities:
                    gate = now
                    self.report(Progress(batch, "gate", message=gate.text(), gate=gate))
        finally:
            if asked is not None and not asked.done():
                asked.cancel()

    def _skipped_gate(self, gate: Gate) -> None:
        """The audit record of a gate skipped: the step, its nodes, the findings that held
        it and the phrase typed (raises when it cannot be written: nothing is sent)."""
        generation = self.config.generation if self.config is not None else None
        self.audit.write(
            event="gate skipped", **audit_fields(str(self.connectstring), generation),
            step=gate.step, nodes=list(gate.batch), confirmed_with=GATE_PHRASE,
            findings=[{"id": f.id, "severity": f.severity.value, "summary": f.summary}
                      for f in gate.findings])

    def _ahead(self, batch: tuple[int, ...], told: Gate | None) -> Gate | None:
        """While ``batch`` restarts: report what holds the next step when it changes; the
        gate as told."""
        index = self.plan.batches.index(batch)
        if index + 1 >= len(self.plan.batches):
            return told
        now = self.gate(self.plan.batches[index + 1], running=batch)
        if now is None or (told is None and not now.held):
            return told
        if told is not None and now.identities == told.identities:
            return told
        message = now.text() if now.held else (
            f"step {now.step}: no finding holds it now")
        self.report(Progress(batch, "gate ahead", message=message, gate=now))
        return now

    async def _left_not_started(self, client: MgmClient, problem: Problem) -> Problem:
        """The problem with the nodes of its batch that are NOT_STARTED, and, after a
        failed restart wait (5024/5025), that the server left them so."""
        try:
            nodes = await client.get_status(["NDB"])
        except MgmError:
            return problem
        mine = [n for n in nodes if n.node_id in problem.batch]
        left = tuple(n.node_id for n in mine if n.status == "NOT_STARTED")
        code = failed_wait(problem.message) if problem.kind == "refused" else None
        message = problem.message
        if code is not None:
            coming = [n.node_id for n in mine if n.status not in ("NOT_STARTED", *STARTED)]
            message += ("; the management server sends the start order only after both of "
                        "its waits succeed")
            if left:
                message += f": node {', '.join(map(str, left))} is left NOT_STARTED"
            if coming:
                message += (f"; node {', '.join(map(str, coming))} will be left "
                            "NOT_STARTED once stopped")
        if left:
            starts = ", ".join(StartNode(n).ndb_mgm() for n in left)
            message += f" (start it with {starts})"
        return replace(problem, message=message, not_started=left)

    async def _start_left(self, client: MgmClient, problem: Problem) -> Problem | None:
        """Start the nodes ``problem`` found NOT_STARTED (guarded and audited as ``t``
        is), then wait for the batch to be STARTED."""
        for node_id in problem.not_started:
            action = StartNode(node_id)
            self.report(Progress(problem.batch, "restart", (), action.ndb_mgm()))
            outcome = await run_action(action, self.connectstring, self.audit,
                                       config=self.config)
            if not outcome.ok:
                return Problem(problem.batch, "refused", outcome.reply)
        # Every node of the batch has been through its restart: none must be seen again
        # leaving STARTED.
        return await self._wait_started(client, problem.batch, {})

    async def _wait_started(self, client: MgmClient, batch: tuple[int, ...],
                            connects_before: dict[int, int]) -> Problem | None:
        """Wait until every node of the batch has restarted and is STARTED again.

        A node counts as restarted once it was seen not STARTED, or once its
        connect count went up (it reconnected between two polls).
        """
        deadline = self._now() + self.node_timeout
        last: tuple[tuple[int, str, int], ...] = ()
        restarted: set[int] = set()
        timelines: dict[int, StartTimeline] = {}
        ahead: Gate | None = None
        while True:
            await asyncio.sleep(self.poll)
            try:
                nodes = await client.get_status(["NDB"])
            except MgmError as exc:
                if self._now() >= deadline:
                    return Problem(batch, "connection", str(exc))
                continue
            self._status = tuple(nodes)
            ahead = self._ahead(batch, ahead)
            mine = tuple(n for n in nodes if n.node_id in batch)
            now = self._now()
            timelines = apply_status(timelines, mine, now)
            for n in mine:
                if n.status not in STARTED or n.connect_count > connects_before.get(n.node_id, 0):
                    restarted.add(n.node_id)
            shape = tuple((n.node_id, n.status, n.start_phase) for n in mine)
            if shape != last:
                last = shape
                self.report(Progress(batch, "waiting", mine))
            if mine and all(n.status in STARTED and n.node_id in restarted for n in mine):
                if self.settle:
                    await asyncio.sleep(self.settle)
                self.report(Progress(batch, "started", mine))
                return None
            if now >= deadline:
                late = [last_seen(n, timelines.get(n.node_id), now,
                                  restarted=n.node_id in restarted)
                        for n in mine if n.status not in STARTED or n.node_id not in restarted]
                return Problem(batch, "timeout",
                               f"not STARTED after {self.node_timeout:g} s: {'; '.join(late)}")

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
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import StartNode
from ndbtop.actions.runner import run_action
from ndbtop.compat import SLOTS, AsyncEvent
from ndbtop.errors import MgmError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, effective_node_group
from ndbtop.model.failed_waits import failed_wait
from ndbtop.model.phases import StartTimeline, apply_status, phase_text
from ndbtop.ops.rolling_plan import (
    ABORTED_NOT_DRAINED,
    PER_GROUP_PHRASE,
    RollingPlan,
    configuration_note,
    plan_rolling,
)

__all__ = [
    "ABORTED_NOT_DRAINED",
    "PER_GROUP_PHRASE",
    "Decision",
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

STARTED = ("STARTED",)


class Decision(Enum):
    """What to do about a problem."""

    RETRY = "retry"
    SKIP = "skip"
    ABORT = "abort"
    START = "start"
    """Start the nodes a failed restart wait left NOT_STARTED (``N START``)."""


@dataclass(frozen=True, **SLOTS)
class Problem:
    """Why the run stopped: a refusal, a guard, a timeout or a failed node."""

    batch: tuple[int, ...]
    kind: str
    message: str
    not_started: tuple[int, ...] = ()
    """Nodes of the batch that are NOT_STARTED: they can be started (``N START``)."""


@dataclass(frozen=True, **SLOTS)
class Progress:
    """One observation during the run (for display and logs)."""

    batch: tuple[int, ...]
    step: str
    nodes: tuple[NodeStatus, ...] = ()
    message: str = ""


@dataclass
class RollingResult:
    """What was restarted, skipped, and whether the run finished."""

    done: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    aborted: bool = False
    problems: list[Problem] = field(default_factory=list)
    stopped_by: Problem | None = None
    """The problem the run was aborted on (None when it finished or was aborted by hand)."""


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
    ) -> None:
        self.plan = plan
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
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.node_timeout
        last: tuple[tuple[int, str, int], ...] = ()
        restarted: set[int] = set()
        timelines: dict[int, StartTimeline] = {}
        while True:
            await asyncio.sleep(self.poll)
            try:
                nodes = await client.get_status(["NDB"])
            except MgmError as exc:
                if loop.time() >= deadline:
                    return Problem(batch, "connection", str(exc))
                continue
            mine = tuple(n for n in nodes if n.node_id in batch)
            timelines = apply_status(timelines, mine, loop.time())
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
            if loop.time() >= deadline:
                late = [last_seen(n, timelines.get(n.node_id), loop.time(),
                                  restarted=n.node_id in restarted)
                        for n in mine if n.status not in STARTED or n.node_id not in restarted]
                return Problem(batch, "timeout",
                               f"not STARTED after {self.node_timeout:g} s: {'; '.join(late)}")


def last_seen(node: NodeStatus, timeline: StartTimeline | None, now: float, *,
              restarted: bool = True) -> str:
    """A node that is not back, as last seen: ``node 3 STARTING in phase 5 copy data, wait
    LCP for at least 40 s``.

    ``get status`` gives the last completed phase, so the phase named is the one
    in progress. The time in it counts from the first poll that saw it (``now``
    and the timeline are on the same clock), hence "at least".
    """
    text = f"node {node.node_id} {node.status}"
    if node.status == "STARTING":
        text += f" in phase {phase_text(node, timeline)}"
        spent = timeline.in_phase_s(now) if timeline is not None else None
        if spent is not None and spent >= 1:
            text += f" for at least {int(spent)} s"
    elif node.status == "SHUTTING_DOWN":
        text += f" at {phase_text(node, timeline)}"
    elif node.status in STARTED and not restarted:
        text += ", never seen restarting"
    return text


def check_batch(batch: tuple[int, ...], nodes: Sequence[NodeStatus],
                config: ClusterConfig | None = None,
                known: Sequence[tuple[int, int]] = ()) -> str | None:
    """Why ``batch`` must not be restarted now, or None.

    Every node of the batch must be STARTED, and every other node of their
    node groups must be STARTED too: restarting a node whose partner is down
    takes its node group, and so the cluster, down. Node groups come from the
    configuration, else from ``known`` (the group a node had when last seen
    STARTED): a node that is not started reports none that counts.
    """
    by_id = {n.node_id: n for n in nodes}
    remembered = dict(known)

    def group_of(n: NodeStatus) -> int | None:
        group = effective_node_group(n, config)
        return remembered.get(n.node_id) if group is None else group

    for node_id in batch:
        node = by_id.get(node_id)
        if node is None:
            return f"node {node_id} is not a data node of this cluster"
        if node.status not in STARTED:
            return f"node {node_id} is {node.status}, not STARTED"
        group = group_of(node)
        if group is None or group == NO_NODE_GROUP:
            continue
        for partner in nodes:
            if (partner.type == "NDB" and partner.node_id not in batch
                    and partner.status not in STARTED
                    and group_of(partner) == group):
                return (f"node {partner.node_id}, partner of node {node_id} in node group "
                        f"{group}, is {partner.status}")
    return None

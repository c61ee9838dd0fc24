"""Rolling restart: data nodes restarted one at a time (or one per node group), guarded.

Before each step the engine asks the management server for the live status
and never restarts a node whose node-group partner is not STARTED. After a
restart it waits for the node to be STARTED again. A refusal, a timeout or a
node that does not come back stops the run and asks what to do (retry, skip
the node, abort); a timeout names each node that is not back with its last
state and start phase. The run can be paused, resumed and aborted; every request
goes through the audited action runner.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import RestartNode
from ndbtop.actions.runner import run_action
from ndbtop.errors import MgmError
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, effective_node_group
from ndbtop.model.phases import (
    INITIAL_NODE_RESTART,
    NODE_RESTART,
    StartTimeline,
    apply_status,
    phase_text,
)

STARTED = ("STARTED",)


@dataclass(frozen=True, slots=True)
class RollingPlan:
    """Batches of data nodes restarted together, in order."""

    batches: tuple[tuple[int, ...], ...]
    initial: bool = False
    notes: tuple[str, ...] = ()
    """What the operator should know about the order (nodes with no node group last,
    nodes left out)."""
    groups: tuple[tuple[int, int], ...] = ()
    """The node group of each data node as known when planned (a node last seen
    STARTED keeps the group it had)."""

    @property
    def start_type(self) -> int:
        """The kind of start each restarted node goes through (it names their phases)."""
        return INITIAL_NODE_RESTART if self.initial else NODE_RESTART

    def commands(self) -> tuple[str, ...]:
        """The ``ndb_mgm`` command of each batch."""
        return tuple(RestartNode(b, initial=self.initial).ndb_mgm() for b in self.batches)


def plan_rolling(nodes: Sequence[NodeStatus], *, per_group: bool = False,
                 only: Sequence[int] | None = None, initial: bool = False,
                 config: ClusterConfig | None = None,
                 skip: Sequence[tuple[int, str]] = ()) -> RollingPlan:
    """Order the data nodes by node group; one per batch, or one of each group per batch.

    Nodes without a node group hold no data and come last, one by one. Nodes in
    ``skip`` (node id, why) are left out, and the plan says so.
    """
    data = sorted((n for n in nodes if n.type == "NDB"), key=lambda n: n.node_id)
    known = tuple((n.node_id, g) for n in data
                  if (g := effective_node_group(n, config)) is not None)
    if only is not None:
        wanted = set(only)
        data = [n for n in data if n.node_id in wanted]
    left_out = {node_id: why for node_id, why in skip}
    notes = [f"node {n.node_id} left out: {left_out[n.node_id]}"
             for n in data if n.node_id in left_out]
    data = [n for n in data if n.node_id not in left_out]
    groups: dict[int, list[int]] = {}
    loose: list[int] = []
    unknown: list[int] = []
    for n in data:
        group = effective_node_group(n, config)
        if group is None:
            unknown.append(n.node_id)
        elif group == NO_NODE_GROUP:
            loose.append(n.node_id)
        else:
            groups.setdefault(group, []).append(n.node_id)
    ordered = [groups[g] for g in sorted(groups)]
    batches: list[tuple[int, ...]] = []
    if per_group:
        depth = max((len(g) for g in ordered), default=0)
        for i in range(depth):
            batch = tuple(g[i] for g in ordered if i < len(g))
            batches.append(batch)
    else:
        batches.extend((node,) for g in ordered for node in g)
    batches.extend((node,) for node in unknown)
    batches.extend((node,) for node in loose)
    if unknown:
        names = ", ".join(map(str, unknown))
        notes.append(f"node {names}: node group not known (not STARTED, configuration not read)")
    if loose:
        names = ", ".join(map(str, loose))
        notes.append(f"node {names} in no node group (holds no data): restarted last")
    return RollingPlan(tuple(batches), initial, tuple(notes), known)


class Decision(Enum):
    """What to do about a problem."""

    RETRY = "retry"
    SKIP = "skip"
    ABORT = "abort"


@dataclass(frozen=True, slots=True)
class Problem:
    """Why the run stopped: a refusal, a guard, a timeout or a failed node."""

    batch: tuple[int, ...]
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
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
    ) -> None:
        self.plan = plan
        self.config = config
        self.connectstring = connectstring
        self.audit = audit
        self.decide = decide
        self.report = report
        self.node_timeout = node_timeout
        self.poll = poll
        self.settle = settle
        self._running = asyncio.Event()
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
        while True:
            await self._running.wait()
            if self._abort:
                return Decision.ABORT
            problem = await self._step(client, batch)
            if problem is None:
                result.done.extend(batch)
                return None
            result.problems.append(problem)
            self.report(Progress(batch, "problem", message=problem.message))
            decision = await self.decide(problem)
            if decision is Decision.ABORT or self._abort:
                result.stopped_by = problem
                return Decision.ABORT
            if decision is Decision.SKIP:
                result.skipped.extend(batch)
                return None

    async def _step(self, client: MgmClient, batch: tuple[int, ...]) -> Problem | None:
        try:
            nodes = await client.get_status(["NDB"])
        except MgmError as exc:
            return Problem(batch, "connection", str(exc))
        guard = check_batch(batch, nodes, self.config, self.plan.groups)
        if guard is not None:
            return Problem(batch, "guard", guard)
        before = {n.node_id: n.connect_count for n in nodes if n.node_id in batch}
        self.report(Progress(batch, "restart", nodes,
                             RestartNode(batch, initial=self.plan.initial).ndb_mgm()))
        outcome = await run_action(RestartNode(batch, initial=self.plan.initial),
                                   self.connectstring, self.audit, config=self.config)
        if not outcome.ok:
            return Problem(batch, "refused", outcome.reply)
        return await self._wait_started(client, batch, before)

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


def configuration_note(plan: RollingPlan, config: ClusterConfig | None,
                       pending: Mapping[int, bool | None]) -> str | None:
    """Which nodes of the plan the restart brings onto the current configuration, or None
    when the configuration or the nodes' running generations are not known."""
    if config is None:
        return None
    planned = [n for batch in plan.batches for n in batch]
    if any(pending.get(n) is None for n in planned):
        return None
    behind = sorted(n for n in planned if pending.get(n))
    if not behind:
        return f"every node already runs configuration generation {config.generation}"
    return (f"brings node {', '.join(map(str, behind))} onto configuration generation "
            f"{config.generation} (still running an older one)")

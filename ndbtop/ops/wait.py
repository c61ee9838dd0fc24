"""Waiting for data nodes to reach a state, as ``ndb_waiter`` does, with a line per change.

The management server is polled; every change of a node's status or start
phase is reported with the time the node has spent in its current phase. A
lost connection is retried until the timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from ndbtop.compat import SLOTS
from ndbtop.errors import MgmConnectError, MgmError, UsageError
from ndbtop.eta.node import StartEvidence, estimate_start
from ndbtop.eta.node_evidence import RedoReading
from ndbtop.eta.node_text import eta_text
from ndbtop.eta.start_kind import taken_kind
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.clock import Clock
from ndbtop.model.eta import EtaMissing, EtaResult, eta_json
from ndbtop.model.phases import StartTimeline, apply_status, phase_text
from ndbtop.model.start_evidence import clock_time
from ndbtop.ops.reach import until_answered

NOT_SEEN_STARTING = "no start seen yet"
"""Why a node ``get status`` shows STARTING has no estimate before any timeline of it."""
READY_WAIT_S = 5.0
"""How long past one interval the first line waits for the hub beside the wait."""
SILENT_S = 1.0
"""A management server silent this long (or an interval, if longer) at the wait's end has
stopped answering (exit 3); one poll cut short by the timeout is not that."""


class Target(Enum):
    """The state to wait for (``--status``)."""

    STARTED = "started"
    NOT_STARTED = "not-started"
    NO_CONTACT = "no-contact"

    @property
    def wire(self) -> tuple[str, ...]:
        """The ``get status`` strings that count as reached."""
        return {
            Target.STARTED: ("STARTED",),
            Target.NOT_STARTED: ("NOT_STARTED",),
            Target.NO_CONTACT: ("NO_CONTACT",),
        }[self]


@dataclass(frozen=True, **SLOTS)
class NodeChange:
    """One node's new state."""

    at: float
    node_id: int
    status: str
    start_phase: int
    phase: str
    in_phase_s: float | None
    eta: EtaResult | None = None
    """The estimate of a STARTING node's time to STARTED, or why there is none."""
    in_phase_from: str | None = None
    """Where the time in the phase counts from (a timeline's ``current_from``):
    ``first_seen`` makes ``in_phase_s`` a lower bound, counted from ``phase_since``."""
    phase_since: float | None = None
    """When the time in the phase begins to count (epoch seconds)."""
    redo: RedoReading | None = None
    """The node's redo log creation in progress, as last reported (events or host)."""

    @property
    def lower_bound(self) -> bool:
        """True when the phase began before ndbtop first saw the node."""
        return self.in_phase_from == "first_seen" and self.in_phase_s is not None

    def text(self) -> str:
        """One human-readable line."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.at))
        line = f"{stamp} node {self.node_id} {self.status}"
        if self.phase:
            line += f" {self.phase}"
        if self.lower_bound and self.phase_since is not None:
            # Its beginning was not seen: no time in the phase to give, only since when
            # ndbtop has seen it there.
            line += f" (in phase since before {clock_time(self.phase_since)})"
        elif self.in_phase_s is not None:
            prefix = "≈" if self.in_phase_from == "status" else ""
            dated = ", from the cluster log" if self.in_phase_from == "file" else ""
            line += f" ({prefix}{int(self.in_phase_s)}s in phase{dated})"
        if self.redo is not None:
            line += f" · {redo_text(self.redo)}"
        if self.eta is not None:
            line += f" · {eta_text(self.eta, self.redo.mb_per_s if self.redo else None)}"
        return line

    def as_json(self) -> dict[str, object]:
        """The change as a JSON object: ``in_phase_s`` (null when the phase's beginning
        was not seen), ``in_phase_at_least_s`` (then the lower bound, from ndbtop's first
        sight) and ``in_phase_from``, as ``--once --json`` gives them; ``eta`` and
        ``eta_missing`` for a STARTING node."""
        spent = None if self.in_phase_s is None else round(self.in_phase_s, 1)
        out: dict[str, object] = {
            "time": self.at, "node_id": self.node_id, "status": self.status,
            "start_phase": self.start_phase, "phase": self.phase,
            "in_phase_s": None if self.lower_bound else spent,
            "in_phase_at_least_s": spent if self.lower_bound else None,
            "in_phase_from": self.in_phase_from if spent is not None else None,
        }
        if self.status == "STARTING":
            out.update(eta_json(self.eta))
            out["redo"] = None if self.redo is None else redo_json(self.redo)
        return out


def redo_text(r: RedoReading) -> str:
    """``redo log 11357/43008 MB at 18.7 MB/s (events)``: done, the whole, the rate (``,
    no rate yet`` before two reports)."""
    total = r.done_mb + r.left_mb
    rate = f" at {r.mb_per_s:.1f} MB/s" if r.mb_per_s else ", no rate yet"
    return f"redo log {r.done_mb:.0f}/{total:.0f} MB{rate} ({r.source})"


def redo_json(r: RedoReading) -> dict[str, object]:
    """``{"mb_done", "mb_total", "mb_per_s", "from"}`` of a redo log creation in progress."""
    return {"mb_done": round(r.done_mb), "mb_total": round(r.done_mb + r.left_mb),
            "mb_per_s": None if not r.mb_per_s else round(r.mb_per_s, 2), "from": r.source}


@dataclass(frozen=True, **SLOTS)
class WaitResult:
    """How the wait ended: ``reached``, or the nodes that did not get there (and why)."""

    reached: bool
    missing: tuple[NodeStatus, ...] = ()
    error: str | None = None


def describe(
    node: NodeStatus, timeline: StartTimeline | None, now: float,
) -> tuple[str, float | None]:
    """The phase text (:func:`~ndbtop.model.phases.phase_text`) and time in phase of a node."""
    if node.status == "STARTING":
        spent = timeline.in_phase_s(now) if timeline else None
        text = phase_text(node, timeline)
        return (text if text.startswith("done") else f"phase {text}"), spent
    return phase_text(node, timeline), None


async def wait_for(
    connectstring: ConnectString,
    target: Target,
    nodes: Iterable[int] | None,
    timeout: float,
    *,
    clock: Clock,
    interval: float = 1.0,
    on_change: Callable[[NodeChange], None] = lambda change: None,
    estimate: Callable[[int], EtaResult | None] | None = None,
    followed: Callable[[int], StartTimeline | None] | None = None,
    ready: Callable[[], Awaitable[None]] | None = None,
    redo: Callable[[int], RedoReading | None] | None = None,
    since: float | None = None,
    on_retry: Callable[[str, float], None] | None = None,
) -> WaitResult:
    """Poll until every chosen data node is in ``target``, or ``timeout`` seconds pass.

    ``estimate`` gives a starting node's estimate of its time to STARTED (from a hub that
    follows the cluster's events, :mod:`ndbtop.eta.node`): every line of a STARTING node
    carries it. ``followed`` gives that hub's timeline of a node, so that a phase is named
    and timed from the same evidence as in the live view and ``--once``
    (:func:`merge_timeline`); ``redo`` gives its redo log creation in progress, and every
    new report of it is a line, with the estimate; ``ready`` is awaited once the
    management server answered,
    before the first line (the hub's first reading), at most an interval and
    :data:`READY_WAIT_S` more, and half the time left.

    ``since`` is when a request that takes the nodes out of ``target`` was sent (``mgm
    --wait``): a node counts as there only once it was seen elsewhere after it (by the
    wait's polls, or a start the hub saw begin since), not in the state it left.

    A management server that does not answer yet is tried again until the timeout, with
    a growing pause (:func:`~ndbtop.ops.reach.until_answered`; ``on_retry`` is told of
    each failed try), as ``ndb_waiter`` tries to connect; :class:`MgmConnectError` when it
    never answered. A connection lost later is retried until the timeout too.
    """
    client = MgmClient(connectstring, timeout=max(2.0, interval * 2))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        statuses = await until_answered(lambda: client.get_status(["NDB"]), deadline,
                                        timeout, on_retry=on_retry, reset=client.close)
        answered_at = loop.time()
        wanted = _choose(statuses, nodes)
        if ready is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                # Half the time left at most: the wait's own polls must still tell a
                # server that stopped answering (exit 3) from a node that is late (exit 1).
                await asyncio.wait_for(ready(), max(min((deadline - loop.time()) / 2,
                                                        interval + READY_WAIT_S), 0.001))
        last_poll = False
        seen: dict[int, tuple[str, int, str, float | None]] = {}
        left: set[int] = set() if since is not None else set(wanted)
        timelines: dict[int, StartTimeline] = {}
        last_error: str | None = None
        while True:
            now = clock.wall()
            timelines = apply_status(timelines, statuses, now)
            current = {n.node_id: n for n in statuses if n.node_id in wanted}
            for node_id in sorted(current):
                n = current[node_id]
                hubs = followed(node_id) if followed is not None else None
                if n.status not in target.wire or (
                        since is not None and hubs is not None and hubs.began_at >= since):
                    left.add(node_id)
                t = merge_timeline(n, timelines.get(node_id), hubs, now)
                phase, spent = describe(n, t, now)
                made = redo(node_id) if redo is not None and n.status == "STARTING" else None
                # A phase named anew (its redo log init seen) is a change too, and so is each
                # new report of the redo log's creation.
                key = (n.status, n.start_phase, phase, made.done_mb if made else None)
                if seen.get(node_id) != key:
                    seen[node_id] = key
                    eta = _estimate(estimate, n, t, now, interval, statuses)
                    source = t.current_from if t is not None and spent is not None else None
                    on_change(NodeChange(now, node_id, n.status, n.start_phase, phase, spent,
                                         eta, source,
                                         t.current_since if source is not None else None,
                                         made))
            missing = tuple(current[i] for i in sorted(current) if current[i].status
                            not in target.wire or i not in left)
            if not missing and len(current) == len(wanted):
                return WaitResult(True)
            remaining = deadline - loop.time()
            if remaining <= 0 or last_poll:
                return WaitResult(False, missing, last_error)
            if remaining > interval:
                await asyncio.sleep(interval)
            else:
                # The last poll, half an interval before the end: a pause into the deadline
                # would leave it no time to be answered in.
                await asyncio.sleep(max(remaining - interval / 2, 0.0))
                last_poll = True
            try:
                # The timeout is a promise: the request ends with it.
                statuses = await asyncio.wait_for(client.get_status(["NDB"]),
                                                  max(deadline - loop.time(), 0.001))
                last_error = None
                answered_at = loop.time()
            except asyncio.TimeoutError:
                await client.close()
                if loop.time() - answered_at >= max(interval, SILENT_S):
                    # Not one answer for that long: a server that stopped answering (exit
                    # 3), not one slow poll of a busy machine (the nodes are late: exit 1).
                    last_error = f"no answer from the management server within {timeout:g} s"
            except MgmError as exc:
                last_error = str(exc)
                if loop.time() >= deadline:
                    raise MgmConnectError(str(exc)) from None
    finally:
        await client.close()


def _choose(statuses: tuple[NodeStatus, ...], nodes: Iterable[int] | None) -> set[int]:
    data = {n.node_id for n in statuses if n.type == "NDB"}
    if nodes is None:
        return data
    chosen = set(nodes)
    unknown = sorted(chosen - data)
    if unknown:
        raise UsageError(f"not a data node of this cluster: {', '.join(map(str, unknown))}")
    return chosen


def merge_timeline(node: NodeStatus, own: StartTimeline | None,
                   followed: StartTimeline | None, now: float) -> StartTimeline | None:
    """The timeline a line of ``wait`` describes: the hub's (events, host, the cluster log),
    brought up to the ``get status`` the wait read at ``now`` as the hub's own polls bring
    it (the hub may be a poll behind, or its events ahead of this status); the wait's own
    without a start the hub follows."""
    if followed is None or not followed.active:
        return own
    return apply_status({node.node_id: followed}, (node,), now).get(node.node_id, followed)


def _estimate(estimate: Callable[[int], EtaResult | None] | None, node: NodeStatus,
              timeline: StartTimeline | None = None, now: float = 0.0,
              interval: float = 0.0, nodes: Iterable[NodeStatus] = ()) -> EtaResult | None:
    """The hub's estimate; without one, the estimate of what the wait itself saw (its
    timeline, ``nodes`` as ``get status`` gave them), by the same rules and in the same
    words (:func:`~ndbtop.eta.node.estimate_start`)."""
    if node.status != "STARTING":
        return None
    result = estimate(node.node_id) if estimate is not None else None
    if result is None and timeline is not None:
        result = estimate_start(StartEvidence(timeline, now, poll_interval=interval,
                                              taken_kind=taken_kind(timeline, nodes)))
    return result if result is not None else EtaMissing(NOT_SEEN_STARTING)

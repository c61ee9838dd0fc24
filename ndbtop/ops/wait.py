"""Waiting for data nodes to reach a state, as ``ndb_waiter`` does, with a line per change.

The management server is polled; every change of a node's status or start
phase is reported with the time the node has spent in its current phase. A
lost connection is retried until the timeout.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from ndbtop.compat import SLOTS
from ndbtop.errors import MgmConnectError, MgmError, UsageError
from ndbtop.eta.node_text import eta_text
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.clock import Clock
from ndbtop.model.eta import EtaMissing, EtaResult, eta_json
from ndbtop.model.phases import StartTimeline, apply_status, phase_text


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

    def text(self) -> str:
        """One human-readable line."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.at))
        line = f"{stamp} node {self.node_id} {self.status}"
        if self.phase:
            line += f" {self.phase}"
        if self.in_phase_s is not None:
            line += f" ({int(self.in_phase_s)}s in phase)"
        if self.eta is not None:
            line += f" · {eta_text(self.eta)}"
        return line

    def as_json(self) -> dict[str, object]:
        """The change as a JSON object (``eta`` and ``eta_missing`` for a STARTING node)."""
        out: dict[str, object] = {
            "time": self.at, "node_id": self.node_id, "status": self.status,
            "start_phase": self.start_phase, "phase": self.phase,
            "in_phase_s": None if self.in_phase_s is None else round(self.in_phase_s, 1),
        }
        if self.status == "STARTING":
            out.update(eta_json(self.eta))
        return out


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
) -> WaitResult:
    """Poll until every chosen data node is in ``target``, or ``timeout`` seconds pass.

    ``estimate`` gives a starting node's estimate of its time to STARTED (from a hub that
    follows the cluster's events, :mod:`ndbtop.eta.node`): every line of a STARTING node
    carries it.

    Raises :class:`MgmConnectError` when the management server cannot be
    reached at first; a connection lost later is retried until the timeout.
    """
    client = MgmClient(connectstring, timeout=max(2.0, interval * 2))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        try:
            statuses = await asyncio.wait_for(client.get_status(["NDB"]), timeout)
        except asyncio.TimeoutError:
            raise MgmConnectError(f"no answer from the management server within "
                                  f"{timeout:g} s") from None
        wanted = _choose(statuses, nodes)
        seen: dict[int, tuple[str, int]] = {}
        timelines: dict[int, StartTimeline] = {}
        last_error: str | None = None
        while True:
            now = clock.wall()
            timelines = apply_status(timelines, statuses, now)
            current = {n.node_id: n for n in statuses if n.node_id in wanted}
            for node_id in sorted(current):
                n = current[node_id]
                key = (n.status, n.start_phase)
                if seen.get(node_id) != key:
                    seen[node_id] = key
                    phase, spent = describe(n, timelines.get(node_id), now)
                    eta = _estimate(estimate, n)
                    on_change(NodeChange(now, node_id, n.status, n.start_phase, phase, spent,
                                         eta))
            missing = tuple(current[i] for i in sorted(current) if current[i].status
                            not in target.wire)
            if not missing and len(current) == len(wanted):
                return WaitResult(True)
            remaining = deadline - loop.time()
            if remaining <= 0:
                return WaitResult(False, missing, last_error)
            await asyncio.sleep(min(interval, remaining))
            try:
                # The timeout is a promise: the request ends with it.
                statuses = await asyncio.wait_for(client.get_status(["NDB"]),
                                                  max(deadline - loop.time(), 0.001))
                last_error = None
            except asyncio.TimeoutError:
                await client.close()
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


def _estimate(estimate: Callable[[int], EtaResult | None] | None,
              node: NodeStatus) -> EtaResult | None:
    if node.status != "STARTING":
        return None
    result = estimate(node.node_id) if estimate is not None else None
    return result if result is not None else EtaMissing("nothing seen of the start yet")

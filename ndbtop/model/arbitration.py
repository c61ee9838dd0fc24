"""Arbitration as the data nodes report it: what each ArbitState and ArbitResult event means.

Sources (mysql-server): the codes from ``ArbitCode`` in ``ArbitSignalData.hpp``; the
states (the ``[state=N]`` of the texts) from ``Qmgr::ArbitState`` in ``Qmgr.hpp``; when
each event is raised from the arbitration module of ``QmgrMain.cpp``; the texts from
``getTextArbitState`` and ``getTextArbitResult`` in ``EventLogger.cpp``. Both events carry
``code | state << 16`` in word 1, the arbitrator's node id in word 2 and the ticket in
words 3 and 4.

The cluster log's severities say INFO for every ArbitState and ALERT for every
ArbitResult. Read with the code, they mean more than that:

- **Re-election is routine.** When the arbitrator (normally a management server)
  goes away, every data node reports ``Lost arbitrator node 1 - process failure
  [state=6]`` (``process exit`` when it stopped cleanly), the president reports
  ``President restarts arbitration thread [state=1]`` and looks for an arbitrator
  again; once one registers, the other data nodes report ``Prepare arbitrator node 1
  [ticket=...]`` and the president ``Started arbitrator node 1 [ticket=...]``. While
  ndb_mgmd restarts for maintenance this is expected and passes by itself; until it
  has, a network partition could not be arbitrated.
- **A won check is routine too.** ``Arbitration check won - node group majority``
  follows every data node failure or stop, including the planned stops of a
  rolling restart: the remaining nodes go on without asking the arbitrator.
- **A lost or failed arbitration is an alarm.** A network partition (``Network
  partitioning - arbitration required``) and every lost check, negative reply,
  missing arbitrator or arbitration failure shut data nodes down.

:func:`interpret` gives one event's meaning, :func:`arbitration_status` the state
the latest events leave the cluster in. Events read from a text-mode listener
(no type, only ``Node <id>: <text>``) are recognised by their text
(:mod:`ndbtop.model.arbitration_reports` decodes them).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.catalogue import Severity
from ndbtop.mgm.events.decode import Event
from ndbtop.model.arbitration_reports import (
    ARBIT_RESULT,
    ARBIT_STATE,
    ArbitCode,
    ArbitReport,
    ArbitState,
    arbit_report,
)

__all__ = [
    "ARBIT_RESULT",
    "ARBIT_STATE",
    "ArbitCode",
    "ArbitReport",
    "ArbitState",
    "ArbitrationPhase",
    "ArbitrationStatus",
    "Concern",
    "Interpretation",
    "arbit_report",
    "arbitration_status",
    "interpret",
]

_LOST = frozenset({ArbitCode.API_FAIL, ArbitCode.API_EXIT})
_CHOSEN = frozenset({ArbitCode.PREP_PART2, ArbitCode.PREP_ATRUN})
_CHECK_WON = frozenset({ArbitCode.WIN_NODES, ArbitCode.WIN_GROUPS})
_WON = frozenset({ArbitCode.WIN_CHOOSE, ArbitCode.WIN_WAIT_EXTERNAL})
_LOSS_REASONS = {
    ArbitCode.LOSE_NODES: "fewer than half of the data nodes are left",
    ArbitCode.LOSE_GROUPS: "a node group has no data node left",
    ArbitCode.LOSE_CHOOSE: "the arbitrator chose the other side of the partition",
    ArbitCode.LOSE_NORUN: "no arbitrator was running",
    ArbitCode.LOSE_NOCFG: "no arbitrator is configured",
}


class Concern(Enum):
    """How much an arbitration event should worry an operator."""

    ROUTINE = "routine"
    """Arbitration working as designed."""
    TRANSIENT = "transient"
    """An expected state that passes by itself: the cluster is choosing an arbitrator."""
    WARNING = "warning"
    """Worth a look; the cluster keeps running."""
    ALARM = "alarm"
    """A network partition, or data nodes shutting down."""

    @property
    def severity(self) -> Severity:
        """The severity to show for it: INFO, WARNING or ALERT."""
        return {
            Concern.ROUTINE: Severity.INFO,
            Concern.TRANSIENT: Severity.INFO,
            Concern.WARNING: Severity.WARNING,
            Concern.ALARM: Severity.ALERT,
        }[self]


@dataclass(frozen=True, **SLOTS)
class Interpretation:
    """What an arbitration event means: how worrying, and a one-line ``arbitration: ...``."""

    concern: Concern
    summary: str

    @property
    def severity(self) -> Severity:
        """The severity to show the event with."""
        return self.concern.severity


def _arbitrator(node: int, management_nodes: Collection[int]) -> str:
    return f"ndb_mgmd node {node}" if node in management_nodes else f"node {node}"


def _interpret_state(r: ArbitReport, management_nodes: Collection[int]) -> Interpretation:
    who = _arbitrator(r.node, management_nodes)
    if r.code in _LOST:
        if r.state == ArbitState.CHOOSE:
            return Interpretation(
                Concern.ALARM, "arbitration failed: arbitrator lost during a network partition"
            )
        if r.node in management_nodes:
            return Interpretation(
                Concern.TRANSIENT, "arbitration: re-electing, normal during an ndb_mgmd restart"
            )
        return Interpretation(Concern.TRANSIENT, f"arbitration: re-electing after losing {who}")
    if r.code == ArbitCode.THREAD_START:
        if r.state == ArbitState.RUN:
            return Interpretation(Concern.ROUTINE, "arbitration: arbitrator unchanged")
        if r.state == ArbitState.CHOOSE:
            return Interpretation(
                Concern.WARNING, "arbitration: asking the arbitrator which side survives"
            )
        if r.state == ArbitState.CRASH:
            return Interpretation(Concern.ALARM, "arbitration lost: this data node shuts down")
        return Interpretation(Concern.TRANSIENT, "arbitration: choosing an arbitrator")
    if r.code in _CHOSEN:
        return Interpretation(Concern.ROUTINE, f"arbitration: {who} chosen")
    if r.code == ArbitCode.API_START:
        return Interpretation(Concern.ROUTINE, f"arbitration: {who} is arbitrator")
    # An error: while choosing, the president starts over; while a partition waits for
    # the arbitrator's answer, the data node shuts down.
    if r.state in (ArbitState.CHOOSE, ArbitState.CRASH):
        return Interpretation(
            Concern.ALARM, f"arbitration failed: {who} did not answer, this data node shuts down"
        )
    return Interpretation(Concern.WARNING, f"arbitration: {who} did not start, choosing again")


def _interpret_result(r: ArbitReport) -> Interpretation:
    if r.code in _CHECK_WON:
        return Interpretation(
            Concern.ROUTINE, "arbitration: not needed, the remaining data nodes run on"
        )
    if r.code in _WON:
        return Interpretation(
            Concern.WARNING, "arbitration won: the other side of the partition shuts down"
        )
    if r.code == ArbitCode.PARTITIONING:
        return Interpretation(
            Concern.ALARM, "network partition: the arbitrator decides which side survives"
        )
    reason = _LOSS_REASONS.get(r.code, "the arbitration failed")
    return Interpretation(Concern.ALARM, f"arbitration lost: {reason}, data nodes shut down")


def interpret(event: Event, management_nodes: Collection[int] = ()) -> Interpretation | None:
    """What an arbitration event means (None for other events).

    ``management_nodes`` are the ids of the cluster's management servers: losing
    one as arbitrator is the expected transient of an ndb_mgmd restart.
    """
    report = arbit_report(event)
    if report is None:
        return None
    if report.result:
        return _interpret_result(report)
    return _interpret_state(report, management_nodes)


class ArbitrationPhase(Enum):
    """Where arbitration stands according to the latest events."""

    UNKNOWN = "unknown"
    """No arbitration event seen yet."""
    RUNNING = "running"
    """An arbitrator was chosen and started."""
    ELECTING = "electing"
    """No arbitrator: it went away (or a partition was won) and the president is choosing."""
    PARTITIONED = "partitioned"
    """A network partition waits for the arbitrator's decision."""
    FAILED = "failed"
    """The last arbitration was lost or failed: data nodes shut down."""


@dataclass(frozen=True, **SLOTS)
class ArbitrationStatus:
    """The state the latest arbitration events leave the cluster in.

    ``arbitrator`` is the running arbitrator (RUNNING) or the one that went away
    (ELECTING); ``since`` the ``received_at`` of the event that began the phase;
    ``report`` the event that decided it.
    """

    phase: ArbitrationPhase
    arbitrator: int | None = None
    since: float | None = None
    report: ArbitReport | None = None
    concern: Concern = Concern.ROUTINE

    def describe(
        self, now: float, management_nodes: Collection[int] = (), connected: Collection[int] = ()
    ) -> str:
        """One line for the operator; ``connected`` are the management servers known to
        have come back since the arbitrator was lost."""
        age = "" if self.since is None else f" {_age(now - self.since)} ago"
        node = self.arbitrator
        if self.phase is ArbitrationPhase.ELECTING:
            if self.report is not None and self.report.code in _WON:
                return (
                    f"arbitration won{age}: the other side of the network partition shut "
                    "down; choosing the arbitrator again"
                )
            if node is None:
                return f"arbitration: choosing an arbitrator, began{age or ' just now'}"
            who = _arbitrator(node, management_nodes)
            if node in management_nodes and node in connected:
                return (
                    f"arbitration: re-electing after mgmd reconnect, {who} is back and "
                    f"about to be chosen again (arbitrator lost{age})"
                )
            if node in management_nodes:
                return (
                    f"arbitration: re-electing, arbitrator {who} went away{age} "
                    "(normal while ndb_mgmd restarts)"
                )
            return f"arbitration: re-electing, arbitrator {who} went away{age}"
        if self.phase is ArbitrationPhase.PARTITIONED:
            return f"network partition{age}: the arbitrator decides which data nodes survive"
        if self.phase is ArbitrationPhase.FAILED:
            return f"arbitration failed{age}: data nodes shut down"
        if self.phase is ArbitrationPhase.RUNNING and node is not None:
            return f"arbitration: {_arbitrator(node, management_nodes)} is the arbitrator"
        return "arbitration: no arbitration event seen yet"


def _age(seconds: float) -> str:
    seconds = max(int(seconds), 0)
    if seconds < 60:
        return f"{seconds}s"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def arbitration_status(
    events: Sequence[Event], status: ArbitrationStatus | None = None
) -> ArbitrationStatus:
    """Fold the events (oldest first) into where arbitration stands now, starting from
    ``status`` (nothing known by default), so newer events can be folded in later.

    The latest deciding event wins: an arbitrator chosen or started means
    RUNNING; a lost arbitrator, the president starting to choose, or a won
    partition (after which the president chooses again) ELECTING, since the first
    event of that election; a network partition PARTITIONED; a lost or failed
    arbitration FAILED. Won checks and the other routine reports change nothing.
    """
    if status is None:
        status = ArbitrationStatus(ArbitrationPhase.UNKNOWN)
    for event in events:
        report = arbit_report(event)
        if report is not None:
            status = _step(status, report)
    return status


def _step(status: ArbitrationStatus, r: ArbitReport) -> ArbitrationStatus:
    phase = ArbitrationPhase
    electing = status.phase is phase.ELECTING
    if r.result:
        if r.code in _CHECK_WON:
            return status
        if r.code in _WON:
            return ArbitrationStatus(phase.ELECTING, None, r.at, r, Concern.WARNING)
        if r.code == ArbitCode.PARTITIONING:
            return ArbitrationStatus(phase.PARTITIONED, r.node or None, r.at, r, Concern.ALARM)
        return ArbitrationStatus(phase.FAILED, None, r.at, r, Concern.ALARM)
    if r.code in _CHOSEN or r.code == ArbitCode.API_START:
        return ArbitrationStatus(phase.RUNNING, r.node, r.at, r, Concern.ROUTINE)
    if r.code in _LOST:
        if r.state == ArbitState.CHOOSE:
            return status  # too late to choose another: the partition decides
        if electing and status.arbitrator in (None, r.node):
            # One more data node reporting the loss of the election under way.
            return replace(status, arbitrator=r.node)
        return ArbitrationStatus(phase.ELECTING, r.node, r.at, r, Concern.TRANSIENT)
    if r.code == ArbitCode.THREAD_START:
        if r.state == ArbitState.INIT and not electing:
            return ArbitrationStatus(phase.ELECTING, None, r.at, r, Concern.TRANSIENT)
        if r.state == ArbitState.CRASH and status.phase is not phase.FAILED:
            return ArbitrationStatus(phase.FAILED, None, r.at, r, Concern.ALARM)
        return status
    if r.state in (ArbitState.CHOOSE, ArbitState.CRASH):
        return ArbitrationStatus(phase.FAILED, None, r.at, r, Concern.ALARM)
    return status

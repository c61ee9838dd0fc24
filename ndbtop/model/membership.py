"""Membership and arbitration: the president and its successor, the arbitrator and whether
every data node agrees on it, the heartbeat ring and the node groups with their live members.

With a SQL node it comes from ``ndbinfo.membership`` (a row per started data node, see
:mod:`ndbtop.model.membership_rows`); whether every node agrees is what
``arbitrator_validity_summary`` counts (ndbinfo.md §2.1: those rows grouped by arbitrator,
ticket and arb_connected, one group when all agree), counted here from the same rows.
Without one it comes from what the management server gives: the president and successor
from ``get status`` (the started data nodes by dynamic id, the president's rule), the
arbitrator from the ArbitState/ArbitResult events seen, its rank and the candidates from
the configuration's ArbitrationRank; the ring and the agreement are then unknown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ndbtop.mgm.events.decode import TEXT_LINE_TYPE, Event
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.arbitration import (
    ARBIT_RESULT,
    ARBIT_STATE,
    ArbitrationPhase,
    arbit_report,
    arbitration_status,
    interpret,
)
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, effective_node_group
from ndbtop.model.live import LIVE_STATES
from ndbtop.model.membership_rows import ARB_STATE_WORDS, MembershipRow
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.model.summary import president_and_successor

FROM_NDBINFO = "ndbinfo"
FROM_EVENTS = "events+config"
MAX_EVENTS = 8
"""Arbitration events kept for the panel and the report, the newest last."""

_PHASE_STATE = {
    ArbitrationPhase.RUNNING: "ARBIT_RUN",
    ArbitrationPhase.ELECTING: "ARBIT_INIT",
    ArbitrationPhase.PARTITIONED: "ARBIT_CHOOSE",
    ArbitrationPhase.FAILED: "ARBIT_CRASH",
}
"""The president's state after the events that decide each phase (QmgrMain.cpp: RUN once the
arbitrator started, INIT when the thread restarts, CHOOSE during a partition, CRASH when it
was lost)."""


@dataclass(frozen=True)
class Arbitrator:
    """The arbitrator and how far the data nodes agree on it."""

    node_id: int | None
    rank: int | None
    state: str | None
    """An ``arb_state`` name (``ARBIT_RUN``...), None when unknown."""
    agreed: bool | None
    """Whether every started data node names the same arbitrator and ticket (None: unknown)."""
    agreed_by: int | None
    data_nodes: int
    """Started data nodes the agreement is counted against."""
    connected: bool | None = None
    dissent: tuple[tuple[int, int | None], ...] = ()
    """(data node, the arbitrator it names) of every node outside the largest agreement."""

    @property
    def state_words(self) -> str:
        """The state for an operator (``active``...)."""
        if self.state is None:
            return "state unknown"
        return ARB_STATE_WORDS.get(self.state, self.state)


@dataclass(frozen=True)
class NodeGroup:
    """A node group's members (configured or reported) and those started."""

    group: int
    members: tuple[int, ...]
    live: tuple[int, ...]


@dataclass(frozen=True)
class Candidate:
    """A node the configuration gives an ArbitrationRank of 1 or 2."""

    node_id: int
    node_type: str
    rank: int
    connected: bool | None


@dataclass(frozen=True)
class ArbitrationEvent:
    """One ArbitState or ArbitResult event with its text and what it means."""

    at: float
    node: int
    kind: str
    text: str
    meaning: str
    concern: str


@dataclass(frozen=True)
class Membership:
    """Everything the membership panel and the report show."""

    source: str
    """:data:`FROM_NDBINFO` or :data:`FROM_EVENTS`."""
    president: int | None
    successor: int | None
    arbitrator: Arbitrator
    ring: tuple[tuple[int, int | None, int | None], ...]
    """(node, left neighbour, right neighbour) along the ring from the president; empty
    without ``ndbinfo.membership``."""
    groups: tuple[NodeGroup, ...]
    candidates: tuple[Candidate, ...]
    events: tuple[ArbitrationEvent, ...]
    note: str = ""
    """Why it comes from the events and the configuration (empty from ndbinfo)."""
    flagged: tuple[str, ...] = ()
    """Rows of ``ndbinfo.membership`` that contradict ``get status`` (a node it does not
    know, a president that is not a started data node): said, not merged."""


def membership_read(snap: ClusterSnapshot) -> bool:
    """Whether ``ndbinfo.membership`` has been read and a SQL node answers."""
    sample = snap.live_ndbinfo()
    return sample is not None and sample.panel_read_at("membership") is not None


_LAST: list[tuple[tuple[object, ...], Membership]] = []
"""The last membership worked out, with what it was worked out from."""


def _inputs(snap: ClusterSnapshot) -> tuple[object, ...]:
    """Everything :func:`membership` reads of a snapshot (most of it the very objects of the
    last refresh, compared by identity before equality)."""
    sample = snap.live_ndbinfo()
    src = snap.source("ndbinfo")
    return (None if sample is None else
            (sample.membership, sample.unavailable, sample.panel_read_at("membership") is None),
            None if src is None else (src.state, src.target, src.error),
            snap.nodes, snap.config, snap.events)


def membership(snap: ClusterSnapshot) -> Membership:
    """The membership as the freshest source gives it (worked out again only when what it
    is worked out from changed)."""
    inputs = _inputs(snap)
    if _LAST and _LAST[0][0] == inputs:
        return _LAST[0][1]
    found = _membership(snap)
    _LAST[:] = [(inputs, found)]
    return found


def _membership(snap: ClusterSnapshot) -> Membership:
    sample = snap.live_ndbinfo()
    read = sample.membership if sample is not None else ()
    started = [n for n in snap.data_nodes() if n.status in LIVE_STATES]
    rows, flagged = _counted_rows(snap, read)
    groups = _groups(snap, rows)
    candidates = _candidates(snap)
    arbitration = _arbitration_events(snap.events)
    events = _events(snap, arbitration)
    if membership_read(snap) and rows:
        return replace(_from_rows(snap, rows, started, groups, candidates, events),
                       flagged=flagged)
    president, successor = president_and_successor(started)
    status = arbitration_status(arbitration)
    node = status.arbitrator if status.phase is ArbitrationPhase.RUNNING else None
    arbitrator = Arbitrator(node, _configured_rank(snap.config, node),
                            _PHASE_STATE.get(status.phase), None, None, len(started))
    return Membership(FROM_EVENTS, president, successor, arbitrator, (), groups, candidates,
                      events, _why_not(snap), flagged)


def _counted_rows(snap: ClusterSnapshot, rows: Sequence[MembershipRow]
                  ) -> tuple[tuple[MembershipRow, ...], tuple[str, ...]]:
    """The rows that count, and what the others contradict. A row from a node ``get status``
    does not have as a data node is flagged, not merged; a row from a data node that is not
    STARTED is stale (its node left the membership) and is not counted. Without ``get
    status`` every row counts."""
    if not snap.nodes:
        return tuple(rows), ()
    data = {n.node_id: n for n in snap.data_nodes()}
    kept: list[MembershipRow] = []
    flagged: list[str] = []
    for r in rows:
        node = data.get(r.node_id)
        if node is None:
            flagged.append(f"a row from node {r.node_id}, which get status does not have as a "
                           "data node: not counted")
        elif node.status in LIVE_STATES:
            kept.append(r)
    for r in kept:
        if r.president is not None and r.president not in data:
            flagged.append(f"node {r.node_id} names president {r.president}, which get status "
                           "does not have as a data node")
    return tuple(kept), tuple(dict.fromkeys(flagged))


def _why_not(snap: ClusterSnapshot) -> str:
    sample = snap.live_ndbinfo()
    src = snap.source("ndbinfo")
    if sample is None and src is not None and src.state is not SourceState.DISABLED:
        why = (f"ndbinfo.membership not read: the SQL node at {src.target or '?'} is not "
               "answering" + (f" ({src.error})" if src.error else ""))
    elif sample is None:
        why = "no SQL node"
    else:
        reason = dict(sample.unavailable).get("membership")
        if reason:
            why = reason
        elif sample.panel_read_at("membership") is None:
            why = "ndbinfo.membership not read yet"
        else:
            why = "ndbinfo.membership has no rows (no data node started)"
    return (f"{why}: president and successor from get status, the arbitrator from the "
            "arbitration events seen, ranks from the configuration; the heartbeat ring and "
            "the agreement need ndbinfo.membership")


def _from_rows(snap: ClusterSnapshot, rows: Sequence[MembershipRow],
               started: Sequence[NodeStatus], groups: tuple[NodeGroup, ...],
               candidates: tuple[Candidate, ...], events: tuple[ArbitrationEvent, ...]
               ) -> Membership:
    by_node = {r.node_id: r for r in rows}
    president = Counter(r.president for r in rows).most_common(1)[0][0]
    live = {n.node_id for n in started}
    if started and president not in live:
        # The rows name a president that is not a started data node: get status's rule.
        president = president_and_successor(started)[0]
    own = by_node.get(president) if president is not None else None
    agreement = Counter(r.agreement_key for r in rows)
    key, count = max(agreement.items(), key=lambda item: (item[1], item[0][0] == (
        own.arbitrator if own is not None else None)))
    node = key[0]
    alive = max(len(started), len(rows)) if started else len(rows)
    reference = own if own is not None and own.agreement_key == key else next(
        r for r in rows if r.agreement_key == key)
    dissent = tuple((r.node_id, r.arbitrator) for r in rows if r.agreement_key != key)
    rank = None
    if node is not None:
        if node in reference.rank1_arbitrators:
            rank = 1
        elif node in reference.rank2_arbitrators:
            rank = 2
        else:
            rank = _configured_rank(snap.config, node)
    arbitrator = Arbitrator(node, rank, reference.arb_state, len(agreement) == 1 and count >= alive,
                            count, alive, reference.arb_connected, dissent)
    successor = (own or reference).successor
    if started and successor is not None and successor not in live:
        successor = president_and_successor(started)[1]
    return Membership(FROM_NDBINFO, president, successor, arbitrator, _ring(by_node, president),
                      groups, candidates, events)


def _ring(by_node: dict[int, MembershipRow], start: int | None
          ) -> tuple[tuple[int, int | None, int | None], ...]:
    """Each node with its neighbours, along the ring (right neighbours) from ``start``, then
    any node the walk did not reach, by id."""
    order: list[int] = []
    node = start if start in by_node else None
    while node is not None and node in by_node and node not in order:
        order.append(node)
        node = by_node[node].right_node
    order += [n for n in sorted(by_node) if n not in order]
    return tuple((n, by_node[n].left_node, by_node[n].right_node) for n in order)


def _configured_rank(config: ClusterConfig | None, node: int | None) -> int | None:
    if config is None or node is None:
        return None
    section = config.node(node)
    return None if section is None else section.arbitration_rank


def _groups(snap: ClusterSnapshot, rows: Sequence[MembershipRow]) -> tuple[NodeGroup, ...]:
    members: dict[int, set[int]] = {}
    live: dict[int, set[int]] = {}
    reported = {r.node_id: r.group_id for r in rows}
    for n in snap.data_nodes():
        group = reported.get(n.node_id, effective_node_group(n, snap.config))
        if group is None or group >= NO_NODE_GROUP:
            continue
        members.setdefault(group, set()).add(n.node_id)
        if n.status in LIVE_STATES:
            live.setdefault(group, set()).add(n.node_id)
    if snap.config is not None:
        for d in snap.config.data_nodes:
            if d.in_node_group and d.node_id not in reported:
                members.setdefault(d.node_group, set()).add(d.node_id)
    for node, group in reported.items():
        if group is not None and group < NO_NODE_GROUP:
            members.setdefault(group, set()).add(node)
            if not snap.nodes:
                live.setdefault(group, set()).add(node)
    return tuple(NodeGroup(g, tuple(sorted(members[g])), tuple(sorted(live.get(g, ()))))
                 for g in sorted(members))


def _candidates(snap: ClusterSnapshot) -> tuple[Candidate, ...]:
    if snap.config is None:
        return ()
    out = []
    for section in sorted(snap.config.nodes, key=lambda s: (s.arbitration_rank, s.node_id)):
        if section.arbitration_rank not in (1, 2):
            continue
        status = snap.node(section.node_id)
        out.append(Candidate(section.node_id, section.node_type, section.arbitration_rank,
                             None if status is None else status.connected))
    return tuple(out)


def _arbitration_events(events: Sequence[Event]) -> list[Event]:
    """The ArbitState and ArbitResult events of ``events`` (and text lines that are)."""
    kinds = (ARBIT_STATE, ARBIT_RESULT, TEXT_LINE_TYPE)
    return [e for e in events if e.type in kinds and arbit_report(e) is not None]


def _events(snap: ClusterSnapshot, arbitration: Sequence[Event]
            ) -> tuple[ArbitrationEvent, ...]:
    mgmds = [n.node_id for n in snap.nodes if n.type == "MGM"]
    out = []
    for e in arbitration[-MAX_EVENTS:]:
        report = arbit_report(e)
        if report is None:
            continue
        meaning = interpret(e, mgmds)
        out.append(ArbitrationEvent(
            e.received_at, e.source_node, "ArbitResult" if report.result else "ArbitState",
            e.text, meaning.summary if meaning else "",
            meaning.concern.value if meaning else ""))
    return tuple(out)


def headline(m: Membership, short: bool = False) -> str:
    """One line: ``president 1 · successor 2 · arbitrator 49 rank 1 active, agreed by 4/4``
    (``short``: the source named in two words, for the screen)."""
    parts = [f"president {_id(m.president)}", f"successor {_id(m.successor)}"]
    a = m.arbitrator
    if a.node_id is None:
        arb = "no arbitrator" if a.state is not None else "arbitrator unknown"
        if a.state is not None:
            arb += f" ({a.state_words})"
    else:
        rank = "" if a.rank is None else f" rank {a.rank}"
        arb = f"arbitrator {a.node_id}{rank} {a.state_words}"
    if a.agreed_by is not None:
        arb += f", agreed by {a.agreed_by}/{a.data_nodes}"
        if a.dissent:
            named = ", ".join(f"node {n} names {_id(other)}" for n, other in a.dissent[:3])
            arb += f" ({named})"
    parts.append(arb)
    line = " · ".join(parts)
    if m.source == FROM_EVENTS:
        line += (" (from events and config)" if short
                 else " (events and configuration: no ndbinfo.membership)")
    return line


def _id(node: int | None) -> str:
    return "-" if node is None else str(node)

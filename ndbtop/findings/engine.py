"""The findings of one snapshot: every rule, in one pure function, and the keeper that stops
them flickering.

:func:`evaluate` runs every rule of :data:`RULES` on a snapshot: no I/O, the same live, in
``--once``, in replay and in export. A rule raises at most :data:`MAX_PER_RULE` findings.
:class:`FindingsKeeper` remembers since when each finding holds; one whose condition went
away clears at once when its rule's silence proves the condition over (a state, or a
warning the server repeats while it holds), and after :data:`CLEAR_AFTER_S` when it was
judged on figures that come and go (:data:`HELD`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator

from ndbtop.findings import event_index, history
from ndbtop.findings import rules_cluster as cluster
from ndbtop.findings import rules_down as down
from ndbtop.findings import rules_events as events
from ndbtop.findings import rules_io as io
from ndbtop.findings import rules_locks as locks
from ndbtop.findings import rules_memory as memory
from ndbtop.findings import rules_replication as replication
from ndbtop.findings import rules_starts as starts
from ndbtop.findings import rules_stops as stops
from ndbtop.findings.history import judged_events, mark_file_evidence
from ndbtop.model.findings import Evidence, Finding
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.snapshot import ClusterSnapshot

Rule = Callable[[ClusterSnapshot], Iterator[Finding]]

RULES: tuple[tuple[tuple[str, ...], Rule], ...] = (
    (("cluster_down",), down.cluster_down),
    (("node_group_down", "node_group_one_left"), cluster.node_groups),
    (("memory_high",), cluster.memory_high),
    (("memory_high",), memory.memory_reported_high),
    (("gcp_save_lag", "gcp_commit_lag"), events.gcp_lag),
    (("gcp_stop",), stops.gcp_stop),
    (("node_stopped",), stops.node_stopped),
    (("lcp_stalled",), events.lcp_stalled),
    (("missed_heartbeat",), events.missed_heartbeat),
    (("node_failure_handling_slow",), events.node_failure_handling_slow),
    (("no_arbitrator",), events.no_arbitrator),
    (("redo_part_filling",), io.redo_part_filling),
    (("redo_buffer_full",), io.redo_buffer_full),
    (("redo_io_lag",), io.redo_io_lag),
    (("send_buffer_overload",), io.send_buffer_overload),
    (("start_waiting_for_nodes",), starts.start_waiting_for_nodes),
    (("start_phase_slow",), io.start_phase_slow),
    (("redo_init_disk_bound",), io.redo_init_disk_bound),
    (("disk_page_buffer_low_hit",), io.disk_page_buffer_low_hit),
    (("thread_saturated",), io.thread_saturated),
    (("replicas_same_host",), cluster.replicas_same_host),
    (("config_not_applied",), cluster.config_not_applied),
    (("mixed_versions",), cluster.mixed_versions),
    (("single_user_mode",), cluster.single_user_mode),
    (("long_transaction",), locks.long_transactions),
    (("replication_stopped",), replication.replication_stopped),
    (("replication_lag",), replication.replication_lag),
    (("replication_lost_events",), replication.replication_lost_events),
    (("replication_conflicts",), replication.replication_conflicts),
    (("sql_node_disconnected_lagging",), replication.sql_node_disconnected_lagging),
)
"""Every rule with the finding ids it may raise (the ids are fixed: alerts use them)."""

RULE_IDS: tuple[str, ...] = tuple(dict.fromkeys(i for ids, _ in RULES for i in ids))

CLEAR_AFTER_S = 30.0
"""Seconds a finding of :data:`HELD` must stay false before it clears."""
HELD = frozenset({
    "memory_high", "redo_part_filling", "redo_buffer_full", "redo_io_lag",
    "send_buffer_overload", "disk_page_buffer_low_hit", "thread_saturated",
    "redo_init_disk_bound", "start_phase_slow", "long_transaction",
})
"""Rules judged on figures read now and then (ndbinfo, the host): a value near a threshold
comes and goes, so their findings are held. The others are judged on states (get status)
or on warnings the server repeats while their condition holds, over windows of their own:
their silence proves the condition over, and their findings clear at once (a node group
complete again is no longer "down to its last node")."""
MAX_PER_RULE = 64
"""Most findings one rule may raise in one evaluation (a flood of events about hundreds of
things is shown as its worst ones and a count of the rest)."""


def evaluate(snap: ClusterSnapshot, ignore: Iterable[str] = ()) -> tuple[Finding, ...]:
    """Every finding the snapshot supports, the most severe first (rules in ``ignore``
    not run)."""
    skip = set(ignore)
    listened = snap
    judged = judged_events(snap)
    if judged is not snap.events:
        snap = dataclasses.replace(snap, events=judged)
    out: list[Finding] = []
    for ids, rule in RULES:
        if skip.issuperset(ids):
            continue
        out.extend(capped(f for f in rule(snap) if f.id not in skip))
    return ordered(mark_file_evidence(out, listened, judged))


def capped(findings: Iterable[Finding], limit: int = MAX_PER_RULE) -> list[Finding]:
    """At most ``limit`` of ``findings``, the most severe first; past it, the last place
    says how many more the rule raised."""
    found = list(findings)
    if len(found) <= limit:
        return found
    found.sort(key=lambda f: -f.severity.rank)
    kept, rest = found[:limit - 1], found[limit - 1:]
    first = rest[0]
    more = Finding(
        first.id, first.severity,
        f"{len(rest)} more {first.id} findings, the worst {first.severity.value} (at most "
        f"{limit} a rule)",
        (Evidence("not listed", f"{len(rest)} findings", "ndbtop's limit"),),
        first.threshold, first.advice,
        nodes=tuple(sorted({n for f in rest for n in f.nodes}))[:32], key="more")
    return [*kept, more]


def forget() -> None:
    """Drop what the rules remember between refreshes (results by the identity of the
    rows they came from): the next evaluation works everything out."""
    cluster.forget()
    io.forget()
    stops.forget()
    event_index.forget()
    history.forget()


def ordered(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Most severe first, then by rule and what it is about."""
    return tuple(sorted(findings, key=lambda f: (-f.severity.rank, f.id, f.identity[1])))


class FindingsKeeper:
    """Findings over time: each keeps the time it first held (``since``); one of
    :data:`HELD` whose condition went away stays, as last seen, until it has been false for
    :data:`CLEAR_AFTER_S`; any other clears when its rule no longer raises it."""

    def __init__(self, clear_after: float = CLEAR_AFTER_S) -> None:
        self.clear_after = clear_after
        self._held: dict[tuple[str, str], tuple[Finding, float]] = {}
        """Each finding by identity, with the wall time it was last true."""

    def update(self, now: Iterable[Finding], wall: float) -> tuple[Finding, ...]:
        """Take the findings true at ``wall``; returns those that hold."""
        seen: set[tuple[str, str]] = set()
        for f in now:
            key = f.identity
            seen.add(key)
            before = self._held.get(key)
            since = before[0].since if before is not None else wall
            self._held[key] = (dataclasses.replace(f, since=since), wall)
        for key, (_, last) in list(self._held.items()):
            if key not in seen and (key[0] not in HELD or wall - last >= self.clear_after):
                del self._held[key]
        return ordered(f for f, _ in self._held.values())


def worst(findings: Iterable[Finding]) -> Severity | None:
    """The highest severity among ``findings``, None when there are none."""
    ranks = [f.severity for f in findings]
    return max(ranks, key=lambda s: s.rank) if ranks else None

"""The triage sections: what a support engineer reads by hand from ``ndbinfo``, each read
only while something asks for it.

A section names the on-demand ndbinfo panels it needs (:data:`ndbtop.ndbinfo.queries.
ON_DEMAND`), how it reads as JSON and as text, whether the plain ``--once`` report carries it,
and the file it is in a bundle. ``--once --section NAME`` asks for it by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.locks import locks_json, locks_text
from ndbtop.report.membership import membership_json, membership_text
from ndbtop.report.processes import processes_json, processes_text
from ndbtop.report.replication import NOT_NAMED, replication_json, replication_text
from ndbtop.report.table_memory import tables_json, tables_text


@dataclass(frozen=True)
class Section:
    """One triage section of the report and the bundle."""

    name: str
    panels: tuple[str, ...]
    """The on-demand ndbinfo panels it reads."""
    json: Callable[[ClusterSnapshot], dict[str, Any]]
    """Its keys of the JSON report."""
    text: Callable[[ClusterSnapshot], list[str]]
    """Its lines of the text report (starting with a blank line)."""
    default: bool
    """Whether the plain ``--once`` report carries it (a few rows a node: cheap)."""
    bundle_file: str
    bundle_note: str
    absent: str = ""
    """What ``--once --section NAME`` says when the section has nothing to show (its text
    is empty then, so the plain report leaves it out)."""


TRIAGE: tuple[Section, ...] = (
    Section(
        "processes", ("processes",),
        lambda snap: {"processes": processes_json(snap)}, processes_text, True,
        "processes.txt", "the connected API and SQL nodes: address, version, process name "
        "and pid, service URI, connect count (get status, ndbinfo.processes)"),
    Section(
        "membership", ("membership",),
        lambda snap: {"membership": membership_json(snap)}, membership_text, True,
        "membership.txt", "the president and its successor, the arbitrator with its rank, "
        "state and agreement, the heartbeat ring, the node groups with their started members "
        "and the last arbitration events (ndbinfo.membership; without a SQL node get status, "
        "the events and the configuration's ArbitrationRank)"),
    Section(
        "tables", ("tables",), tables_json, tables_text, False, "tables.txt",
        "the 50 largest tables by DataMemory allocated (fixed, variable, hash index; with "
        "their indexes and BLOB part tables), per node, with the largest fragment's skew, "
        "and each node's DataMemory left (ndbinfo.memory_per_fragment, memoryusage)"),
    Section(
        "locks", ("transactions", "locks"), locks_json, locks_text, False, "locks.txt",
        "transactions idle 10 s or more (ndbinfo.cluster_transactions, with "
        "server_transactions' MySQL connection) and the lock waits as chains "
        "(ndbinfo.cluster_locks): who waits for whom, on which table and fragment"),
    Section(
        "replication", (), replication_json, replication_text, True, "replication.txt",
        "each replication channel from this cluster's SQL nodes to its replica's: receiver "
        "and applier threads, the epochs behind and the seconds derived from them, "
        "Seconds_Behind_Source, conflicts, last errors, lost-events incidents (SHOW REPLICA "
        "STATUS, mysql.ndb_binlog_index, mysql.ndb_apply_status)",
        f"Replication: {NOT_NAMED}"),
)
"""Every triage section, in the order the reports give them."""


def triage_section(name: str) -> Section | None:
    """The section called ``name``, if any."""
    return next((s for s in TRIAGE if s.name == name), None)


def panels_of(sections: Iterable[Section]) -> frozenset[str]:
    """The on-demand panels ``sections`` read."""
    return frozenset(panel for s in sections for panel in s.panels)


def default_panels() -> frozenset[str]:
    """The panels the plain ``--once`` report reads."""
    return panels_of(s for s in TRIAGE if s.default)


def bundle_panels() -> frozenset[str]:
    """The panels a bundle reads: every section's."""
    return panels_of(TRIAGE)


def default_sections_json(snap: ClusterSnapshot) -> dict[str, Any]:
    """The keys of the plain ``--once --json`` report from its triage sections."""
    out: dict[str, Any] = {}
    for s in TRIAGE:
        if s.default:
            out.update(s.json(snap))
    return out


def default_sections_text(snap: ClusterSnapshot) -> list[str]:
    """The lines of the plain ``--once`` report from its triage sections."""
    return [line for s in TRIAGE if s.default for line in s.text(snap)]

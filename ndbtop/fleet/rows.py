"""One row of the fleet overview: a cluster in a line, from its management server alone.

Each row is a pure function of one snapshot of a hub that reads only the management
server (``get status``, the configuration once, events): the version, data nodes started
of configured, the node groups at risk, the most severe finding, a start, restart or
backup in progress with its estimate, and how old the last answer is. A cluster that does
not answer is a row that says why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ndbtop.durations import duration
from ndbtop.eta.backup import eta_in_snapshot
from ndbtop.eta.wording import clock
from ndbtop.model.backups import running_backup
from ndbtop.model.eta import Eta, EtaResult
from ndbtop.model.findings import Finding
from ndbtop.model.freshness import freshness
from ndbtop.model.phases import START_TYPE_SHORT, phase_text
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.model.summary import summarize


@dataclass(frozen=True)
class FleetRow:
    """What the overview shows of one cluster."""

    name: str
    color: str | None = None
    production: bool = False
    read_only: bool = False
    answers: bool = False
    why: str | None = None
    """Why the management server does not answer (None while it does)."""
    address: str | None = None
    version: str | None = None
    data_started: int = 0
    data_nodes: int = 0
    groups_at_risk: tuple[int, ...] = ()
    """Node groups missing a started node (those with none too)."""
    groups_down: tuple[int, ...] = ()
    finding: Finding | None = None
    """The most severe finding (the first of the most severe)."""
    findings: int = 0
    activity: str | None = None
    """A start, restart or backup in progress: ``node 3 node restart, 5 copy data``."""
    activity_short: str | None = None
    """The same in a few words: ``node 3 restart ph 5``, ``backup 7``."""
    eta: EtaResult | None = None
    age: float | None = None
    """Seconds since the management server last answered (None: never)."""
    stale: bool = True

    @property
    def severity(self) -> int:
        """How bad the row is, for sorting and colour: 3 not answering or a node group
        down, 2 critical, 1 warning or a group at risk, 0 otherwise."""
        if not self.answers or self.groups_down:
            return 3
        rank = self.finding.severity.rank if self.finding is not None else -1
        if rank == 2:
            return 2
        return 1 if rank == 1 or self.groups_at_risk else 0

    def nodes_text(self) -> str:
        """``4/4``, or ``-`` before the first answer."""
        return f"{self.data_started}/{self.data_nodes}" if self.data_nodes else "-"

    def risk_text(self) -> str:
        """``none``, or the groups at risk: ``ng 0 down, ng 1``."""
        if not self.answers and not self.data_nodes:
            return "-"
        parts = [f"ng {g} down" if g in self.groups_down else f"ng {g}"
                 for g in self.groups_at_risk]
        return ", ".join(parts) or "none"

    def finding_short(self) -> str:
        """``WARN thread_saturated (+2)``, ``none``, or ``-`` when unknown."""
        return self.finding_text().split(": ", 1)[0]

    def activity_short_text(self) -> str:
        """``node 3 restart ph 5, ETA 12:41 (3m10s)``, or ``-``."""
        if self.activity_short is None:
            return "-"
        if isinstance(self.eta, Eta):
            return (f"{self.activity_short}, ETA {clock(self.eta.at, seconds=False)} "
                    f"({duration(self.eta.seconds)})")
        return f"{self.activity_short}, no ETA" if self.eta is not None else self.activity_short

    def finding_text(self) -> str:
        """``WARN thread_saturated: ...``, ``none``, or ``-`` when unknown."""
        if self.finding is None:
            return "none" if self.answers else "-"
        mark = {"critical": "CRIT", "warning": "WARN", "info": "info"}[
            self.finding.severity.value]
        more = f" (+{self.findings - 1})" if self.findings > 1 else ""
        return f"{mark} {self.finding.id}{more}: {self.finding.summary}"

    def activity_text(self) -> str:
        """The activity and its estimate: ``node 3 node restart, 5 copy data · ETA 12:41
        in 3m10s``, or ``-``."""
        if self.activity is None:
            return "-"
        if isinstance(self.eta, Eta):
            return (f"{self.activity} · ETA {clock(self.eta.at, seconds=False)} in "
                    f"{duration(self.eta.seconds)}")
        if self.eta is not None:
            return f"{self.activity} · no ETA"
        return self.activity

    def age_text(self) -> str:
        """``1s``, ``2m05s``, or ``never``."""
        return "never" if self.age is None else duration(self.age)


def fleet_row(name: str, snap: ClusterSnapshot | None, *, color: str | None = None,
              production: bool = False, read_only: bool = False,
              error: str | None = None) -> FleetRow:
    """The row of cluster ``name`` from ``snap`` (None: not watched, for ``error``)."""
    base = FleetRow(name, color, production, read_only)
    if snap is None:
        return replace(base, why=error or "not watched")
    mgm = snap.source("mgm")
    fresh = freshness(snap, "mgm")
    answers = mgm is not None and mgm.state is SourceState.CONNECTED and not fresh.stale
    why = None
    if not answers:
        why = (mgm.error if mgm is not None and mgm.error else
               mgm.state.value if mgm is not None else "not asked")
        if fresh.age is not None and mgm is not None and mgm.state is SourceState.CONNECTED:
            why = f"no answer for {duration(fresh.age)}"
    summary = summarize(snap.nodes, snap.config)
    worst = max(snap.findings, key=lambda f: f.severity.rank, default=None)
    activity, short, eta = _activity(snap)
    return FleetRow(
        name, color, production, read_only,
        answers=answers,
        why=why,
        address=snap.mgm_address,
        version=_versions(snap),
        data_started=summary.data_started,
        data_nodes=summary.data_nodes,
        groups_at_risk=summary.groups_missing,
        groups_down=summary.groups_down,
        finding=worst,
        findings=len(snap.findings),
        activity=activity,
        activity_short=short,
        eta=eta,
        age=fresh.age,
        stale=fresh.stale,
    )


def _versions(snap: ClusterSnapshot) -> str | None:
    """The data nodes' version, ``8.0.40 / 8.4.3`` while they differ, else the management
    server's."""
    found = sorted({v for n in snap.data_nodes() if (v := n.version_text)})
    if found:
        return " / ".join(found)
    return snap.mgm_version


_SHORT_KIND = {0: "initial start", 1: "system restart", 2: "restart", 3: "initial restart"}


def _activity(snap: ClusterSnapshot) -> tuple[str | None, str | None, EtaResult | None]:
    """The start of the first starting data node (and how many more), else a node
    stopping, else the backup in progress: in full, in a few words, and its estimate."""
    starting = [n for n in snap.data_nodes() if n.status == "STARTING"]
    if starting:
        node = starting[0]
        timeline = snap.timeline(node.node_id)
        known = timeline is not None and timeline.start_type is not None
        kind = START_TYPE_SHORT.get(timeline.start_type, "start") if known else "start"
        short = _SHORT_KIND.get(timeline.start_type, "start") if known else "start"
        more = f" (+{len(starting) - 1} more)" if len(starting) > 1 else ""
        where = phase_text(node, timeline)
        text = f"node {node.node_id} {kind}{more}" + (f", {where}" if where else "")
        phase = where.split(" ", 1)[0] if where and where[0].isdigit() else None
        brief = f"node {node.node_id} {short}{more}" + (f" ph {phase}" if phase else "")
        return text, brief, snap.start_eta(node.node_id)
    stopping = [n for n in snap.data_nodes() if n.status in ("SHUTTING_DOWN", "RESTARTING")]
    if stopping:
        node = stopping[0]
        text = f"node {node.node_id} {node.status.lower().replace('_', ' ')}"
        return text, text, None
    backup = running_backup(snap.backups)
    if backup is not None:
        name = f"backup {backup.backup_id}" if backup.backup_id is not None else "backup"
        return f"{name} running", name, eta_in_snapshot(snap, backup)
    return None, None, None

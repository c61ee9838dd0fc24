"""Rules on the cluster's shape: node groups, hosts, configuration, versions, memory.

Each rule is a pure function of the snapshot that returns its findings (none when the
condition does not hold or its data is missing: a rule never concludes from nothing).
"""

from __future__ import annotations

from collections.abc import Iterator

from ndbtop.compat import zip_strict
from ndbtop.model.config import (
    NO_NODE_GROUP,
    ClusterConfig,
    effective_node_group,
    forget_differences,
    pending_restarts,
)
from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.freshness import freshness
from ndbtop.model.percent import whole_percent
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.summary import in_single_user_mode, single_user_api

STARTED = ("STARTED", "SINGLE USER MODE")


def _mgm_age(snap: ClusterSnapshot) -> float | None:
    return freshness(snap, "mgm").age


def node_groups(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``node_group_down``: a group with no started node (its data is unavailable);
    ``node_group_one_left``: a group down to its last started node."""
    if not snap.nodes:
        return
    groups: dict[int, list[tuple[int, str]]] = {}
    for n in snap.data_nodes():
        g = effective_node_group(n, snap.config)
        if g is not None and g != NO_NODE_GROUP:
            groups.setdefault(g, []).append((n.node_id, n.status))
    age = _mgm_age(snap)
    # With no data node started the cluster as a whole is starting or stopped: no group
    # is lost from a running cluster, and the Nodes view tells the start.
    if not any(n.status in STARTED for n in snap.data_nodes()):
        return
    for g, members in sorted(groups.items()):
        started = [i for i, s in members if s in STARTED]
        down = [f"{i} {s}" for i, s in members if s not in STARTED]
        evidence = (Evidence(f"node group {g}", f"{len(started)} of {len(members)} started"
                             + (f"; {', '.join(down)}" if down else ""), "get status", age),)
        if not started:
            yield Finding(
                "node_group_down", Severity.CRITICAL,
                f"node group {g} has no started node: its data is unavailable",
                evidence, Threshold("0 started nodes", "server",
                                    reference="DbdihMain.cpp execCHECKNODEGROUPSREQ; exit 6302 "
                                    "All nodes in a node group are unavailable"),
                f"start node {', '.join(str(i) for i, _ in members)} (a cluster that lost a "
                "node group shuts down: this is a system restart)",
                nodes=tuple(i for i, _ in members), key=str(g))
        elif len(started) == 1 and len(members) > 1:
            yield Finding(
                "node_group_one_left", Severity.WARNING,
                f"node group {g} is down to node {started[0]}: if it fails, every data node "
                "shuts down",
                evidence, Threshold("1 started node", "server",
                                    reference="DbdihMain.cpp execCHECKNODEGROUPSREQ (a group "
                                    "with no survivor loses arbitration)"),
                f"start {', '.join(str(i) for i, s in members if s not in STARTED)} before "
                f"any restart of node {started[0]}; the guards refuse a graceful stop of it "
                "(5028)",
                nodes=(started[0],), key=str(g))


def replicas_same_host(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``replicas_same_host``: every data node of a node group is configured on one host."""
    config = snap.config
    if config is None or config.no_of_replicas < 2:
        return
    groups: dict[int, list[tuple[int, str]]] = {}
    for d in config.data_nodes:
        if d.in_node_group:
            groups.setdefault(d.node_group, []).append((d.node_id, d.host))
    for g, members in sorted(groups.items()):
        hosts = {h for _, h in members}
        if len(members) > 1 and len(hosts) == 1 and "" not in hosts:
            host = hosts.pop()
            ids = tuple(i for i, _ in members)
            yield Finding(
                "replicas_same_host", Severity.WARNING,
                f"every replica of node group {g} is on {host}: losing that host loses the "
                "group and the cluster",
                (Evidence(f"HostName of node {', '.join(map(str, ids))}", host,
                          f"configuration generation {config.generation}"),),
                Threshold("all replicas of a group on one HostName", "ndbtop"),
                f"give the nodes of group {g} different HostName values (a rolling restart "
                "with --initial per node moves them)",
                nodes=ids, key=str(g))


_BEHIND: list[tuple[tuple[object, ...], list[int]]] = []
"""The last answer, by the very configuration and ndbinfo rows it was worked out from."""


def _behind(snap: ClusterSnapshot) -> list[int]:
    ni = snap.ndbinfo
    read = ni is not None and ni.panel_read_at("nodes") is not None
    key = (snap.config, ni.nodes if ni else None, ni.config_values if ni else None, read)
    if _BEHIND and all(a is b for a, b in zip_strict(_BEHIND[0][0], key)):
        return _BEHIND[0][1]
    behind = sorted(n for n, b in pending_restarts(snap.config, ni).items() if b)
    _BEHIND[:] = [(key, behind)]
    return behind


def config_not_applied(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``config_not_applied``: data nodes still run an older configuration generation."""
    if snap.config is None:
        return
    behind = _behind(snap)
    if not behind:
        return
    yield Finding(
        "config_not_applied", Severity.INFO,
        f"node {', '.join(map(str, behind))} still run an older configuration than "
        f"generation {snap.config.generation}",
        (Evidence("config_generation / config_values", "older on "
                  + ", ".join(map(str, behind)), "ndbinfo.nodes, ndbinfo.config_values",
                  freshness(snap, "ndbinfo").age),),
        Threshold("a generation older than the management server's", "ndbtop"),
        "a rolling restart brings them onto the current configuration (W, or ndbtop "
        "rolling-restart)",
        nodes=tuple(behind))


def mixed_versions(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``mixed_versions``: started data nodes run different NDB versions (an upgrade)."""
    versions: dict[str, list[int]] = {}
    for n in snap.data_nodes():
        if n.status in STARTED and n.version:
            versions.setdefault(n.version_text, []).append(n.node_id)
    if len(versions) < 2:
        return
    text = "; ".join(f"{v} on {', '.join(map(str, ids))}" for v, ids in sorted(versions.items()))
    yield Finding(
        "mixed_versions", Severity.INFO,
        f"data nodes run different versions: {text}",
        (Evidence("version", text, "get status", _mgm_age(snap)),),
        Threshold("more than one version", "ndbtop"),
        "normal during a rolling upgrade; finish it (features of the newer version wait "
        "until every node runs it)",
        nodes=tuple(sorted(i for ids in versions.values() for i in ids)))


def single_user_mode(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``single_user_mode``: the cluster is in single-user mode."""
    data = snap.data_nodes()
    if not in_single_user_mode(data):
        return
    holder = single_user_api(snap.nodes)
    who = f"API node {holder}" if holder is not None else "one API node"
    yield Finding(
        "single_user_mode", Severity.INFO,
        f"single-user mode: only {who} may use the cluster; every restart is refused (5063)",
        (Evidence("status", "SINGLE USER MODE", "get status", _mgm_age(snap)),),
        Threshold("SINGLE USER MODE", "server", reference="MgmtSrvr::restartNodes"),
        "EXIT SINGLE USER MODE when the maintenance is done")


MEMORY_BANDS = (80, 90, 99, 100)
"""The bands whose crossing the data nodes report for DataMemory (Cmvmi.cpp
ZREPORT_MEMORY_USAGE, and IndexMemory in 7.x); ndbtop applies the same numbers, as its own
judgement, to the other memory types ndbinfo.memoryusage lists."""

SERVER_BANDED = {
    "data": ("DataMemory", "827 Out of memory in Ndb Kernel, table data"),
    "index": ("IndexMemory", "625 Out of memory in Ndb Kernel, hash index part"),
}
"""The memory types the server itself bands (7.x Cmvmi.cpp ZREPORT_MEMORY_USAGE: "Data
memory threshold" and "Index memory threshold"; 8.x DataMemory only), with the parameter
that sizes each and the error an insert gets when it is full (ndberror.c)."""


def _band_severity(band: int) -> Severity:
    return (Severity.CRITICAL if band >= 99 else Severity.WARNING if band >= 90
            else Severity.INFO)


def data_memory_verdict(node: int, pct: float, band: int, config: ClusterConfig | None,
                        ) -> tuple[Severity, str, Threshold, Evidence]:
    """How DataMemory at ``pct`` in use (``band``) is judged, wherever the figure comes from:
    the server's bands, and 827 from about (100 - MinFreePct)% in use (MinFreePct, 5% by
    default, is kept for restarts: ``init_resource_spare``), which is critical too. Returns
    the severity, the clause that ends the summary, the threshold and MinFreePct's
    evidence."""
    d = config.data_node(node) if config is not None else None
    min_free = d.min_free_pct if d is not None else 5
    full_at = 100 - min_free
    severity = Severity.CRITICAL if pct >= full_at else _band_severity(band)
    clause = (f"inserts can fail with 827 now (from about {full_at}%: MinFreePct {min_free}% "
              "is kept for restarts)" if pct >= full_at else
              f"inserts can fail with 827 from about {full_at}% (MinFreePct {min_free}% is "
              "kept for restarts)")
    configured = f"{d.data_memory / (1 << 30):.1f} GiB" if d is not None else None
    threshold = Threshold(f"{band}%; 827 from {full_at}%", "server", "DataMemory", configured,
                          "Cmvmi.cpp ZREPORT_MEMORY_USAGE bands 80/90/99/100%; MinFreePct "
                          "(init_resource_spare)")
    evidence = Evidence("MinFreePct", f"{min_free}%",
                        "configuration" if d is not None else "ConfigInfo's default")
    return severity, clause, threshold, evidence


DATA_MEMORY_ADVICE = ("raise DataMemory (a rolling restart applies it) or free space: inserts "
                      "fail with 827 Out of memory in Ndb Kernel, table data")


def memory_high(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``memory_high``: a node's memory in use reaches a band: 80% info, 90% warning, 99%
    and 100% critical. For DataMemory the bands are the server's, judged by
    :func:`data_memory_verdict`; 7.x's IndexMemory is banded by the server too; for the
    others (the Long message buffer) the bands are ndbtop's."""
    ni = snap.live_ndbinfo()
    if ni is None:
        return
    age = freshness(snap, "ndbinfo").age
    for m in ni.memory:
        pct = m.used_pct
        if pct is None or pct < MEMORY_BANDS[0]:
            continue
        band = max(b for b in MEMORY_BANDS if pct >= b)
        kind = m.memory_type.lower().split(" ", 1)[0]
        evidence = [Evidence(f"{m.memory_type} used", f"{m.used} of {m.total} bytes "
                             f"({pct:.1f}%)", "ndbinfo.memoryusage", age)]
        summary = (f"node {m.node_id} {m.memory_type} {whole_percent(pct)}% used (band "
                   f"{band}%)")
        if kind == "data":
            severity, clause, threshold, min_free = data_memory_verdict(
                m.node_id, pct, band, snap.config)
            evidence.append(min_free)
            summary = f"{summary}: {clause}"
            advice = DATA_MEMORY_ADVICE
        elif kind in SERVER_BANDED:
            parameter, full = SERVER_BANDED[kind]
            severity = _band_severity(band)
            threshold = Threshold(f"{band}%", "server", parameter, None,
                                  "Cmvmi.cpp ZREPORT_MEMORY_USAGE bands 80/90/99/100% (7.x: "
                                  "Index memory threshold)")
            advice = (f"raise {parameter} (a rolling restart applies it) or free space: "
                      f"inserts fail with {full}")
        else:
            severity = _band_severity(band)
            threshold = Threshold(f"{band}%", "ndbtop", "LongMessageBuffer", None,
                                  "the server bands only DataMemory (Cmvmi.cpp "
                                  "ZREPORT_MEMORY_USAGE); these bands are ndbtop's")
            advice = ("raise LongMessageBuffer (a rolling restart applies it); when it runs "
                      "out signals are lost (exit 2351)")
        yield Finding("memory_high", severity, summary, tuple(evidence), threshold, advice,
                      nodes=(m.node_id,), key=f"{m.node_id}:{m.memory_type}")


def forget() -> None:
    """Drop the results remembered by the identity of their rows."""
    _BEHIND.clear()
    forget_differences()

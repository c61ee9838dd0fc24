"""What the configuration says about a node in a snapshot: redo log, report frequency, and
which redo-initialisation figures stand for a node (its events' or its host's)."""

from __future__ import annotations

from ndbtop.model.hosts import RedoMeasure
from ndbtop.model.phases import INITIAL_NODE_RESTART, INITIAL_START
from ndbtop.model.snapshot import ClusterSnapshot


def no_reports_reason(snap: ClusterSnapshot, node_id: int) -> str | None:
    """Why a node running an initial start (which creates its redo log) sends no periodic
    redo progress reports, or None when it sends them (or is not creating its log).

    Periodic LogFileInitStatus events come only with StartupStatusReportFrequency > 0
    (default 0) and only with InitFragmentLogFiles=SPARSE (redo-init.md §6); otherwise
    there is one event at the start and one as each LDM instance completes.
    """
    t = snap.timeline(node_id)
    config = snap.config
    if t is None or not t.active or config is None:
        return None
    if t.kind not in (INITIAL_START, INITIAL_NODE_RESTART) and t.redo is None:
        return None
    if t.redo is not None and t.redo.completed:
        return None
    node = config.data_node(node_id)
    if node is None:
        return None
    if node.startup_status_report_frequency == 0:
        return "StartupStatusReportFrequency=0"
    if node.redo_init_full:
        return "InitFragmentLogFiles=FULL"
    return None


def reports_off(snap: ClusterSnapshot, node_id: int) -> bool:
    """True while a node creates its redo log without periodic progress reports."""
    return no_reports_reason(snap, node_id) is not None


def no_reports_notice(reason: str, simulated: bool = False) -> str:
    """What the Nodes view says during an initial start that sends no redo-log progress;
    ``simulated`` (the demo, which has no host to reach) names the real cluster's way."""
    return f"no progress reports: {reason}; {measure_hint(simulated)}"


def simulated_cluster(snap: ClusterSnapshot) -> bool:
    """True for the demo's cluster: its hosts are simulated, none can be reached."""
    return any(h.via == "simulated" for h in snap.hosts)


def measure_hint(simulated: bool) -> str:
    """How to measure on the host: ``--ssh``, which works on a real cluster only."""
    if simulated:
        return "on a real cluster, ndbtop --ssh measures it on the host"
    return "add --ssh to measure on the host"


def configured_redo_mb(snap: ClusterSnapshot, node_id: int) -> int | None:
    """The node's redo log in MB from the configuration (parts x files x size)."""
    node = snap.config.data_node(node_id) if snap.config is not None else None
    return None if node is None else node.redo_log_bytes // (1024 * 1024)


def measured_redo(snap: ClusterSnapshot, node_id: int) -> RedoMeasure | None:
    """A node's redo initialisation as measured on its host over SSH, if it is."""
    host = snap.host_of(node_id)
    if host is None:
        return None
    return next((r for r in host.redo_init if r.node_id == node_id), None)


def host_redo_wins(snap: ClusterSnapshot, node_id: int) -> RedoMeasure | None:
    """The host's measure when it is what stands for the node's redo initialisation.

    The figures of LogFileInitStatus events win when they arrived, except for a node that
    sends no periodic progress reports (:func:`no_reports_reason`): its event figures
    move only when an LDM instance completes, so the host's measure wins over them.
    """
    measured = measured_redo(snap, node_id)
    if measured is None:
        return None
    t = snap.timeline(node_id)
    events = t is not None and t.redo is not None and (t.active or t.redo.completed)
    if events and not reports_off(snap, node_id):
        return None
    return measured

"""What ``ndb_mgm`` prints for SHOW, STATUS, REPORT and CLUSTERLOG INFO, from the same data.

Layouts read in ``CommandInterpreter.cpp`` (``print_nodes``, ``executeShow``,
``print_status``, ``report_memoryusage``, ``report_backupstatus``,
``executeClusterLog``; mgm-protocol.md §2.5, §4.3, §7.2). SHOW prints the three
node types in the order NDB, MGM, API, each node in ``get status`` order; a node
whose version is 0 is printed with the host its configuration section accepts.
The master is the data node with the lowest non-zero ``dynamic_id``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ndbtop.mgm.status import NodeStatus
from ndbtop.mgm.version import split_version, version_string
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.config import ClusterConfig
from ndbtop.model.percent import used_percent
from ndbtop.sanitise import Laid, one_line

STATUS_WORDS = {
    "NO_CONTACT": "not connected",
    "NOT_STARTED": "not started",
    "STARTING": "starting",
    "STARTED": "started",
    "SHUTTING_DOWN": "shutting down",
    "RESTARTING": "restarting",
    "SINGLE USER MODE": "single user mode",
}
"""``status_string``: anything else is ``unknown state``."""

_GROUPS = (("ndbd", "NDB"), ("ndb_mgmd", "MGM"), ("mysqld", "API"))
DBACC, DBTUP = 248, 249
SEVERITY_ORDER = ("debug", "info", "warning", "error", "critical", "alert")


def _master(nodes: Sequence[NodeStatus]) -> int:
    data = [n for n in nodes if n.type == "NDB"]
    master = next((n.dynamic_id for n in data if n.version != 0), 0)
    for n in data:
        if n.dynamic_id and n.dynamic_id < master:
            master = n.dynamic_id
    return master


def show_text(nodes: Sequence[NodeStatus], config: ClusterConfig | None) -> Laid:
    """``SHOW``'s output after its ``Connected to Management Server`` line: laid out with
    ``ndb_mgm``'s tabs, each address and host name one line (:func:`~ndbtop.sanitise.one_line`)."""
    master = _master(nodes)
    lines = ["Cluster Configuration", "---------------------"]
    for process, kind in _GROUPS:
        members = [n for n in nodes if n.type == kind]
        lines.append(f"[{process}({kind})]\t{len(members)} node(s)")
        for n in members:
            lines.append(_node_line(n, kind, master, config))
        lines.append("")
    return Laid("\n".join(lines) + "\n")


def _node_line(n: NodeStatus, kind: str, master: int, config: ClusterConfig | None) -> str:
    text = f"id={n.node_id}"
    if n.version == 0:
        if config is None:
            return f"{text} (not connected)"
        section = config.node(n.node_id)
        if section is None:
            return f"{text}Unable to find node with id: {n.node_id}"
        return (f"{text} (not connected, accepting connect from "
                f"{one_line(section.host) or 'any host'})")
    address = n.address
    text += " " if not address or address.lower() == "0.0.0.0" else f"\t@{one_line(address)}"
    text += "  (" + version_string(n.version, n.mysql_version)
    if kind == "NDB":
        if n.status != "STARTED":
            text += ", " + STATUS_WORDS.get(n.status, "unknown state")
        if n.node_group is None:
            text += ", no nodegroup"
        elif n.node_group >= 0:
            text += f", Nodegroup: {n.node_group}"
        if (n.node_group is None or n.node_group >= 0) and master and n.dynamic_id == master:
            text += ", *"
    return text + ")"


def status_line(n: NodeStatus) -> str:
    """One node as ``N STATUS`` / ``ALL STATUS`` prints it."""
    if n.type != "NDB":
        if n.version == 0:
            return f"Node {n.node_id}: not connected"
        return "Node {}: connected (Version {}.{}.{})".format(n.node_id, *split_version(n.version))
    text = f"Node {n.node_id}: {STATUS_WORDS.get(n.status, 'unknown state')}"
    if n.status in ("STARTING", "SHUTTING_DOWN"):
        text += f" (Last completed phase {n.start_phase})"
    if n.status != "NO_CONTACT":
        text += f" ({version_string(n.version, n.mysql_version)})"
    return text


def status_text(nodes: Sequence[NodeStatus], node_ids: tuple[int, ...]) -> tuple[str, bool]:
    """``ALL STATUS`` (no ids: every data node) or ``N STATUS``; False when N is not found."""
    if not node_ids:
        return "".join(status_line(n) + "\n" for n in nodes if n.type == "NDB") + "\n", True
    node = next((n for n in nodes if n.node_id == node_ids[0]), None)
    if node is None:
        return f"{node_ids[0]}: Node not found\n\n", False
    return status_line(node) + "\n\n", True


def _int(body: Mapping[str, str], key: str) -> int:
    value = body.get(key, "0").strip()
    try:
        return int(value) & 0xFFFFFFFF
    except ValueError:
        return 0


def report_line(event: RawEvent) -> str:
    """One event of ``REPORT MEMORY`` or ``REPORT BACKUPSTATUS`` as ``ndb_mgm`` prints it."""
    b = dict(event.body)
    node = event.source_nodeid
    if event.type == 50:
        block, total, used = _int(b, "block"), _int(b, "pages_total"), _int(b, "pages_used")
        what = "Index" if block == DBACC else "Data" if block == DBTUP else "<unknown>"
        percent = used_percent(used, total)
        kb = _int(b, "page_size_bytes") // 1024
        return f"Node {node}: {what} usage is {percent}%({used} {kb}K pages of total {total})"
    starting = _int(b, "starting_node")
    if not starting:
        return f"Node {node}: Backup not started"

    def wide(name: str) -> int:
        return _int(b, f"{name}_lo") | (_int(b, f"{name}_hi") << 32)

    return (
        f"Node {node}: Local backup status: backup {_int(b, 'backup_id')} started from node "
        f"{starting & 0xFFFF}\n #Records: {wide('n_records')} #LogRecords: "
        f"{wide('n_log_records')}\n Data: {wide('n_bytes')} bytes Log: {wide('n_log_bytes')} bytes"
    )


def report_text(events: Iterable[RawEvent]) -> str:
    """Every event of a REPORT, then the empty line ``ndb_mgm`` ends a node command with."""
    return "".join(report_line(e) + "\n" for e in events) + "\n"


def clusterlog_info_text(info: Mapping[str, int]) -> str:
    """``CLUSTERLOG INFO`` from ``get info clusterlog``."""
    if not info.get("enabled"):
        return "Cluster logging is disabled.\n"
    enabled = "".join(f"{name.upper()} " for name in SEVERITY_ORDER if info.get(name))
    return f"Severities enabled: {enabled}\n"

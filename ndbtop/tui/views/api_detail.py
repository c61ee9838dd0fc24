"""The Nodes view's detail panel for an API or SQL node: what runs there.

``get status`` gives its address, version and connect count; ``ndbinfo.processes`` (read
only while this panel shows an API node) the process name, pid, angel pid and service URI.
"""

from __future__ import annotations

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.processes import connected_processes, processes_read
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.safe import Text


def api_detail(snap: ClusterSnapshot, node: NodeStatus) -> Text:
    """The panel for one API node: its process when connected, else why there is none."""
    if not node.connected:
        return Text(f"API node {node.node_id}: not connected ({node.status})", style="dim")
    sample = snap.live_ndbinfo()
    found = next((p for p in connected_processes((node,), sample)), None)
    if found is None:
        return Text(f"API node {node.node_id}: no process", style="dim")
    out = Text()
    out.append(f"{found.kind} node {found.node_id}", style="bold")
    out.append(f"  {found.address or 'no address'}  {found.version or 'version ?'}  "
               f"connects {found.connect_count}")
    if found.known:
        pid = "?" if found.pid is None else str(found.pid)
        angel = "" if found.angel_pid is None else f" (angel {found.angel_pid})"
        out.append(f"\nprocess {found.process_name or '?'} pid {pid}{angel}")
        if found.service_uri:
            out.append(f"  service {found.service_uri}")
    elif processes_read(sample):
        out.append("\nndbinfo.processes has no row for this node", style="dim")
    elif sample is None:
        out.append("\nprocess name and pid: ndbinfo.processes needs a SQL node", style="dim")
    else:
        out.append("\nreading ndbinfo.processes at the next refresh", style="dim")
    return out

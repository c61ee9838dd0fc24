"""The API and SQL nodes connected to the cluster: ``get status`` joined with
``ndbinfo.processes``.

``get status`` gives every API node's address, version and connect count; the SQL node's
``ndbinfo.processes`` adds what runs there: the process name, its pid (and angel's), and
its service URI (``mysql://host:port`` for a SQL node). Without a SQL node the list still
stands on ``get status`` alone, without those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.ndbinfo import ApiProcess, NdbinfoSample


@dataclass(frozen=True, **SLOTS)
class ConnectedProcess:
    """One connected API or SQL node. Fields ``ndbinfo.processes`` fills are empty (or None)
    when it was not read or has no row for the node."""

    node_id: int
    address: str
    version: str
    connect_count: int
    process_name: str = ""
    pid: int | None = None
    angel_pid: int | None = None
    service_uri: str = ""
    known: bool = False
    """Whether ``ndbinfo.processes`` had a row for the node."""

    @property
    def kind(self) -> str:
        """``SQL`` for a mysqld (its service URI is ``mysql://``), ``API`` otherwise."""
        if self.service_uri.startswith("mysql://") or self.process_name == "mysqld":
            return "SQL"
        return "API"


def processes_read(sample: NdbinfoSample | None) -> bool:
    """Whether ``ndbinfo.processes`` has been read into ``sample``."""
    return sample is not None and sample.panel_read_at("processes") is not None


def connected_processes(nodes: Sequence[NodeStatus], sample: NdbinfoSample | None
                        ) -> tuple[ConnectedProcess, ...]:
    """Every API node ``get status`` reports connected, by node id, with its process."""
    rows: dict[int, ApiProcess] = (
        {p.node_id: p for p in sample.processes} if sample is not None else {})
    out = []
    for n in sorted(nodes, key=lambda n: n.node_id):
        if n.type != "API" or not n.connected:
            continue
        version = n.version_text or ""
        p = rows.get(n.node_id)
        if p is None:
            out.append(ConnectedProcess(n.node_id, n.address, version, n.connect_count))
            continue
        out.append(ConnectedProcess(n.node_id, n.address, p.node_version or version,
                                    n.connect_count, p.process_name, p.process_id,
                                    p.angel_process_id, p.service_uri, known=True))
    return tuple(out)

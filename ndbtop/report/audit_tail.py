"""The audit log's part in a triage bundle: only the actions on the cluster bundled.

Every audit record names the management server the action went to (``target``,
:func:`ndbtop.actions.target.audit_fields`). One audit log serves every cluster an
operator watches from a machine; a bundle sent about one cluster carries none of the
others' actions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ndbtop.mgm.connectstring import ConnectString, MgmAddress
from ndbtop.model.snapshot import ClusterSnapshot


def cluster_targets(connectstring: ConnectString, snap: ClusterSnapshot) -> frozenset[str]:
    """The management servers of the bundled cluster, as audit records name them: those of
    the connect string, the one that answered, and the management nodes ``get status``
    lists (at the connect string's ports)."""
    targets = {str(a) for a in connectstring.addresses}
    if snap.mgm_address:
        targets.add(snap.mgm_address)
    ports = {a.port for a in connectstring.addresses}
    for node in snap.nodes:
        if node.type == "MGM" and node.address:
            targets.update(str(MgmAddress(node.address, port)) for port in ports)
    return frozenset(targets)


def this_cluster(lines: Iterable[str], targets: frozenset[str]) -> tuple[list[str], int]:
    """The audit lines whose record names one of ``targets``, and how many were left out
    (other clusters', records naming no server, lines that are not records)."""
    kept: list[str] = []
    left = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if isinstance(record, dict) and record.get("target") in targets:
            kept.append(line)
        else:
            left += 1
    return kept, left

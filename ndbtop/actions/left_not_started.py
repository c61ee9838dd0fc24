"""Which data nodes a failed restart wait (5024, 5025) left NOT_STARTED, from the audit log.

ndbtop knows it where it sent the restart: the audit log holds every reply verbatim.
The file is read again only when it changed.
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.actions.audit import AuditLog
from ndbtop.errors import NdbtopError
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.failed_waits import left_by_failed_waits, left_not_started_note


class LeftNotStarted:
    """The nodes the audit log's restarts left NOT_STARTED by a failed wait."""

    def __init__(self, audit: AuditLog) -> None:
        self.audit = audit
        self._key: tuple[int, int] | None = None
        self._left: dict[int, int] = {}

    def codes(self) -> dict[int, int]:
        """Node id -> 5024 or 5025 (nothing when the audit log cannot be read)."""
        try:
            st = self.audit.path.stat()
        except OSError:
            return {}
        key = (st.st_mtime_ns, st.st_size)
        if key != self._key:
            try:
                self._left = left_by_failed_waits(self.audit.records())
            except (OSError, ValueError, NdbtopError):
                self._left = {}
            self._key = key
        return self._left

    def notes(self, nodes: Iterable[NodeStatus]) -> dict[int, str]:
        """A note for each data node that is NOT_STARTED now and that a failed wait left so."""
        nodes = [n for n in nodes if n.type == "NDB" and n.status == "NOT_STARTED"]
        if not nodes:
            return {}
        codes = self.codes()
        return {n.node_id: left_not_started_note(n.node_id, codes[n.node_id])
                for n in nodes if n.node_id in codes}

"""DataMemory in use from the data nodes themselves, when no SQL node gives
``ndbinfo.memoryusage``.

``REPORT MEMORYUSAGE`` (``dump events`` type 50, what ``ndb_mgm``'s ``ALL REPORT MEMORY``
sends) is read-only: the management server sends DUMP 1000 with its own reference
(MgmtSrvr.cpp ``request_events``: ``args[1] = ss.getOwnRef()``), and each data node sends
its two MemoryUsage events straight back to that reference (Cmvmi.cpp
``execDUMP_STATE_ORD``, ``DumpPageMemory`` with two words: ``reportDMUsage(signal, 0,
result_ref)``), not through its event reporting: the answer never reaches the cluster log.
``--once`` and ``check`` ask once; the live view and the exporter every :data:`EVERY_S`.
"""

from __future__ import annotations

from collections.abc import Callable

from ndbtop.collect.backup_memory import NoAnswer, memory_usage_report
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.events.decode import Event

EVERY_S = 60.0


class MemoryReporter:
    """Asks for the MemoryUsage report while ndbinfo does not give DataMemory in use."""

    def __init__(self, known: Callable[[], bool],
                 data_nodes: Callable[[], frozenset[int] | None],
                 wall: Callable[[], float], monotonic: Callable[[], float],
                 every: float = EVERY_S) -> None:
        self.known = known
        """Whether ndbinfo gives DataMemory in use now (then nothing is asked)."""
        self.data_nodes = data_nodes
        self.wall = wall
        self.monotonic = monotonic
        self.every = every
        self.events: tuple[Event, ...] = ()
        """The last answer's MemoryUsage events, stamped when it came."""
        self.error: str | None = None
        self.no_answer = False
        """The last poll asked and got no usable answer (the session was closed)."""
        self._last: float | None = None

    async def poll(self, client: MgmClient, now: bool = False) -> str | None:
        """Ask if due (``now``: whatever the time); returns why the report is unavailable."""
        self.no_answer = False
        if self.known():
            return None
        t = self.monotonic()
        if not now and self._last is not None and t - self._last < self.every:
            return self.error
        self._last = t
        try:
            events, self.error = await memory_usage_report(client, self.wall(),
                                                           self.data_nodes())
        except NoAnswer as exc:
            self.error, self.no_answer = str(exc), True
            return self.error
        if events is not None:
            self.events = events
        return self.error

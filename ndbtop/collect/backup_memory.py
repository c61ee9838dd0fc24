"""DataMemory in use for a running backup's estimate, when ndbinfo does not give it.

The backup's estimate (:mod:`ndbtop.eta.backup`) needs each data node's DataMemory in
use. A SQL node gives it at every refresh (``ndbinfo.memoryusage``). Without one, the
hub asks the data nodes once per backup with ``REPORT MEMORYUSAGE`` (``dump events``
type 50: read-only, what ``ndb_mgm``'s ``ALL REPORT MEMORY`` and ``wait
--backup-completed`` send), on the management source's session, right after a status
report that shows the backup running. The figures are those of that moment: the
backup's share changes little while it runs.
"""

from __future__ import annotations

from collections.abc import Callable

from ndbtop.errors import (
    MgmCommandError,
    MgmDisconnected,
    MgmParserError,
    MgmProtocolError,
    MgmTimeout,
)
from ndbtop.eta.backup import data_in_use_from_events
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.events.catalogue import EventType
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.model.backups import Backup
from ndbtop.sanitise import sanitise


class NoAnswer(Exception):
    """``dump events`` got no usable answer: the session was closed."""


async def memory_usage_report(client: MgmClient, at: float, data_nodes: frozenset[int] | None
                              ) -> tuple[tuple[Event, ...] | None, str | None]:
    """The data nodes' MemoryUsage events (``REPORT MEMORYUSAGE``: ``dump events`` type
    50), stamped ``at``; or None and the server's refusal. :class:`NoAnswer` when there
    was no usable answer (the session is closed for the next poll to open again)."""
    try:
        raw = await client.dump_events(EventType.MEMORY_USAGE)
    except MgmCommandError as exc:
        return None, sanitise(exc.result)
    except (MgmTimeout, MgmDisconnected, MgmParserError, MgmProtocolError) as exc:
        await client.close()
        raise NoAnswer(sanitise(str(exc))) from None
    return tuple(decode_event(r, at, data_nodes) for r in raw), None


class BackupMemory:
    """Asks ``REPORT MEMORYUSAGE`` once per backup that needs it, and keeps the answer."""

    def __init__(
        self,
        running: Callable[[], Backup | None],
        known: Callable[[], bool],
        data_nodes: Callable[[], frozenset[int] | None],
        wall: Callable[[], float],
    ) -> None:
        self.running = running
        self.known = known
        """Whether ndbinfo gives DataMemory in use now (then nothing is asked)."""
        self.data_nodes = data_nodes
        self.wall = wall
        self.asked_for: int | None = None
        """The backup the last question was for (asked once, answered or not)."""
        self.in_use: dict[int, float] = {}
        """Bytes of DataMemory in use per data node, for :attr:`asked_for`."""
        self.error: str | None = None
        """Why the last question got no figures (the server's refusal, a lost session)."""
        self.reported: Callable[[], tuple[Event, ...]] = lambda: ()
        """The memory report the hub asked for anyway (:mod:`ndbtop.collect.memory_report`):
        when it has the figures, nothing more is asked."""

    async def ask(self, client: MgmClient) -> None:
        """Ask for the figures if a running backup needs them and they were not asked
        for it yet. A lost session is closed for the next poll to open again."""
        backup = self.running()
        if backup is None or backup.backup_id is None or backup.backup_id == self.asked_for:
            return
        if self.known():
            return
        self.asked_for, self.in_use, self.error = backup.backup_id, {}, None
        self.in_use = data_in_use_from_events(self.reported())
        if self.in_use:
            return
        try:
            events, self.error = await memory_usage_report(client, self.wall(),
                                                           self.data_nodes())
        except NoAnswer as exc:
            self.error = str(exc)
            return
        if events is None:
            return
        self.in_use = data_in_use_from_events(events)
        if not self.in_use:
            self.error = "no data node reported its DataMemory in use"

    def for_backup(self, backup: Backup | None) -> tuple[tuple[int, float], ...]:
        """The figures, node by node, if they were read for ``backup``."""
        if backup is None or backup.backup_id is None or backup.backup_id != self.asked_for:
            return ()
        return tuple(sorted(self.in_use.items()))

"""``REPORT BACKUPSTATUS``: asking the data nodes how far a running backup got.

``ndb_mgm`` sends it as ``dump events`` with ``type: 62`` (BackupStatus); the
management server has every data node dump its backup state and returns one
BackupStatus event per node in the reply. ndbtop asks once when it connects
(to find a backup already running) and then every ``every`` seconds while a
backup runs, on the management source's own session.
"""

from __future__ import annotations

from collections.abc import Callable

from ndbtop.collect.backup_memory import BackupMemory
from ndbtop.errors import (
    MgmCommandError,
    MgmDisconnected,
    MgmParserError,
    MgmProtocolError,
    MgmTimeout,
)
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.events.catalogue import EventType
from ndbtop.mgm.wire import RawEvent

DEFAULT_EVERY = 10.0
"""Seconds between two status reports while a backup runs."""
NO_ANSWER_PAUSE = 60.0
"""Seconds without reports after the management server did not answer one in time (a
data node that does not report holds the answer back): the status polls must not wait
for it at every refresh."""
DUE_SLACK = 0.95
"""A report is due after this share of ``every`` (a poll 9.99 s after the last one counts)."""


class BackupReporter:
    """Decides when a status report is due and asks for it."""

    def __init__(
        self,
        every: float,
        running: Callable[[], bool],
        on_report: Callable[[tuple[RawEvent, ...]], None],
        monotonic: Callable[[], float],
    ) -> None:
        self.every = every
        self.monotonic = monotonic
        """The hub's clock (simulated time in the demo, so reports follow the cluster's)."""
        self.running = running
        self.on_report = on_report
        self.error: str | None = None
        """The server's refusal of the last report (``failed to dump events``...), verbatim."""
        self.unsupported = False
        """The server does not know ``dump events``: no more reports are asked for."""
        self.memory: BackupMemory | None = None
        """Asks for DataMemory in use once per backup, after a report (set by the hub)."""
        self._last: float | None = None
        self._paused_until = 0.0
        self._expect_until = 0.0

    def due(self, now: float) -> bool:
        """True for the first poll, then every ``every`` seconds while a backup runs
        (``every`` 0 asks only once)."""
        if self.unsupported or now < self._paused_until:
            return False
        if self._last is None:
            return True
        if now < self._expect_until and not self.running():
            return True
        # A little early rather than a poll late: polls come once a refresh, with jitter.
        return self.every > 0 and self.running() and now - self._last >= self.every * DUE_SLACK

    def pause(self, why: str | None) -> None:
        """``dump events`` went unanswered (``why``): ask nothing for a while."""
        self.error = why
        self._paused_until = self.monotonic() + NO_ANSWER_PAUSE

    def ask_now(self, expect_for: float = 0.0) -> None:
        """Make the next poll ask; with ``expect_for``, ask at every poll for that many
        seconds until a backup shows running (after one was started from here: its
        BackupStarted may come before the event stream is subscribed)."""
        self._last = None
        if expect_for:
            self._expect_until = self.monotonic() + expect_for

    async def poll(self, client: MgmClient) -> str | None:
        """Ask for a report if one is due; a refusal is kept, a lost connection raises.
        Returns why reports are unavailable (a server without ``dump events``), or None."""
        now = self.monotonic()
        if not self.due(now):
            return self.error if self.unsupported or now < self._paused_until else None
        self._last = now
        try:
            events = await client.dump_events(EventType.BACKUP_STATUS)
        except MgmCommandError as exc:
            self.error = exc.result
            return None
        except (MgmTimeout, MgmDisconnected) as exc:
            # The session is gone with the request; the next status poll connects again.
            self.error = str(exc)
            self._paused_until = now + NO_ANSWER_PAUSE
            await client.close()
            return self.error
        except (MgmParserError, MgmProtocolError) as exc:
            # An older server answering "Unknown command": the backup events still come.
            self.error = str(exc)
            self.unsupported = True
            await client.close()
            return self.error
        self.error = None
        self.on_report(events)
        if self.memory is not None:
            await self.memory.ask(client)
        return None

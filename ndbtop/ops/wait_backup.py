"""``wait --backup-completed ID``: block until a backup completes, for scripts.

The backup's end comes as an event (BackupCompleted or BackupAborted), so
this listens to the BACKUP category on its own connection, and asks the data
nodes for their backup status (``REPORT BACKUPSTATUS``) at the start and every
``report_every`` seconds, printing the progress. The management server keeps
no history of backups: a backup that ended before the wait began is never
seen to complete, and the wait times out naming what the data nodes report.
A lost connection is retried until the timeout. The timeout is a promise: no request
runs past it, whatever the server sends or withholds.

For the estimate of when the backup will be done, the wait asks once, at the start,
for each data node's DataMemory in use (``REPORT MEMORYUSAGE``) and for the
configuration's ``NoOfReplicas``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from ndbtop.compat import SLOTS
from ndbtop.errors import MgmCommandError, MgmConnectError, MgmError, NdbtopError
from ndbtop.eta.backup import backup_eta, data_in_use_from_events
from ndbtop.eta.wording import eta_text
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.mgm.events.catalogue import Category, EventType
from ndbtop.mgm.events.decode import decode_event
from ndbtop.mgm.listener import EventListener
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.backups import (
    ABORTED,
    COMPLETED,
    ENDED_UNSEEN,
    Backup,
    apply_backup_event,
    apply_status_report,
    find_backup,
    running_backup,
)
from ndbtop.model.clock import Clock
from ndbtop.model.config_decode import config_from_blob
from ndbtop.model.eta import EtaMissing, EtaResult
from ndbtop.ops.reach import until_answered
from ndbtop.report.tables import duration, human_bytes
from ndbtop.sanitise import sanitise

LISTEN_LEVELS = {int(Category.BACKUP): 15}
"""What ``ndb_mgm`` itself listens to while it waits for a backup."""
END_EVENT_GRACE = 2.0
"""Seconds to wait for a backup's end event once the data nodes report it no longer runs."""
LISTEN_WAIT = 3.0
"""Seconds to wait for the event subscription before the first status report."""


@dataclass(frozen=True, **SLOTS)
class BackupWaitResult:
    """How the wait ended: the backup's last record (None if never seen) and why."""

    completed: bool
    backup: Backup | None
    reason: str


@dataclass
class BackupScale:
    """What there is to back up: each data node's DataMemory in use (bytes) and the
    number of replicas, or why they are not known."""

    in_use: dict[int, float] = field(default_factory=dict)
    replicas: int | None = None
    why: str | None = "not asked yet"

    def eta(self, b: Backup, now: float) -> EtaResult:
        """The estimate for ``b`` at ``now``."""
        if b.running and self.why is not None:
            return EtaMissing(self.why)
        return backup_eta(b, self.in_use, self.replicas, now)


async def read_scale(client: MgmClient, clock: Clock, scale: BackupScale) -> None:
    """Fill ``scale`` from ``REPORT MEMORYUSAGE`` and the configuration."""
    try:
        raw = await client.dump_events(EventType.MEMORY_USAGE)
        at = clock.wall()
        scale.in_use = data_in_use_from_events(tuple(decode_event(r, at) for r in raw))
        scale.replicas = config_from_blob(await client.get_config_blob()).no_of_replicas
        scale.why = None if scale.in_use else "no data node reported its DataMemory in use"
    except MgmCommandError as exc:
        scale.why = f"DataMemory in use not read: {sanitise(str(exc))}"
    except NdbtopError as exc:
        # A lost, timed-out or garbled exchange leaves the session unusable: the status
        # reports connect again.
        scale.why = f"DataMemory in use not read: {sanitise(str(exc))}"
        await client.close()


def progress_line(b: Backup, now: float, eta: EtaResult | None = None) -> str:
    """``backup 7 running: 12.3 GiB, 4,567 records, 210.0 MiB/s, 2m10s`` (then, while it
    runs, `` · ETA 12:41 (12:35–12:52) in 6m10s · basis``)."""
    parts = [f"backup {b.backup_id} {b.state}"]
    detail = []
    if b.written_bytes is not None:
        detail.append(human_bytes(b.written_bytes))
    if b.written_records is not None:
        detail.append(f"{b.written_records:,} records")
    if b.bytes_per_s is not None:
        detail.append(human_bytes(b.bytes_per_s) + "/s")
    took = b.duration(now)
    if took is not None:
        detail.append(duration(took))
    if b.error_text:
        detail.append(f"error {b.error_text}")
    line = parts[0] + (": " + ", ".join(detail) if detail else "")
    if eta is not None and b.running:
        line += " · " + eta_text(eta)
    return line


async def wait_for_backup(
    connectstring: ConnectString,
    backup_id: int,
    timeout: float,
    *,
    clock: Clock,
    report_every: float = 10.0,
    on_change: Callable[[Backup], None] = lambda b: None,
    scale: BackupScale | None = None,
) -> BackupWaitResult:
    """Wait until backup ``backup_id`` completes (True), aborts or the time runs out (False).

    ``scale``, when given, is filled once connected (:func:`read_scale`) before the first
    status report.

    A management server that does not answer yet is tried again until the timeout
    (:func:`~ndbtop.ops.reach.until_answered`); :class:`MgmConnectError` when it never did.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    client = MgmClient(connectstring)
    queue: asyncio.Queue[RawEvent | BaseException] = asyncio.Queue()
    backups: tuple[Backup, ...] = ()
    shown: Backup | None = None
    listener_task: asyncio.Task[None] | None = None
    listening = asyncio.Event()

    async def listen() -> None:
        while True:
            address = client.address
            if address is None:
                await asyncio.sleep(0.5)
                continue
            # Its own connection runs start tls as the main one does
            # (ndb_mgm_listen_event_internal): same search path, same --ndb-mgm-tls.
            listener = EventListener(address, LISTEN_LEVELS, tls=client.tls)
            try:
                await listener.open()
                listening.set()
                async for item in listener.items():
                    if isinstance(item, RawEvent):
                        queue.put_nowait(item)
            except MgmError as exc:
                queue.put_nowait(exc)
                await asyncio.sleep(1.0)
            finally:
                await listener.close()

    def seen(new: tuple[Backup, ...]) -> None:
        nonlocal backups, shown
        backups = new
        current = find_backup(backups, backup_id)
        if current is not None and current != shown:
            shown = current
            on_change(current)

    def left() -> float:
        return max(deadline - loop.time(), 0.001)

    try:
        try:
            # Not up yet (restarting, say): tried again until the timeout, as wait does.
            await until_answered(client.connect, deadline, timeout, reset=client.close)
        except MgmError as exc:
            raise MgmConnectError(str(exc)) from None
        listener_task = asyncio.create_task(listen())
        if scale is not None:
            try:
                await asyncio.wait_for(read_scale(client, clock, scale), left())
            except asyncio.TimeoutError:
                scale.why = "DataMemory in use not read: no answer in time"
                await client.close()
        # Listen before the first report, so that an end right after it is not missed.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(listening.wait(), min(LISTEN_WAIT, timeout))
        next_report = loop.time()
        last_error: str | None = None
        reported = False
        unseen_since: float | None = None
        while True:
            while not queue.empty():
                item = queue.get_nowait()
                if not isinstance(item, BaseException):
                    seen(apply_backup_event(backups, decode_event(item, clock.wall())))
            current = find_backup(backups, backup_id)
            if current is not None and current.state == COMPLETED:
                return BackupWaitResult(True, current, "completed")
            if current is not None and current.state == ABORTED:
                return BackupWaitResult(False, current, f"aborted: {current.error_text}")
            now = loop.time()
            if current is not None and current.state == ENDED_UNSEEN:
                # Its end event may still be on its way: wait a little for it.
                if unseen_since is None:
                    unseen_since = now
                elif now - unseen_since >= END_EVENT_GRACE:
                    return BackupWaitResult(
                        False, current, "ended, but how was not seen (the event stream was down)"
                    )
                next_report = max(next_report, unseen_since + END_EVENT_GRACE)
            if now >= deadline:
                return BackupWaitResult(
                    False, current, _timed_out(backups, backup_id, reported, last_error)
                )
            if now >= next_report:
                next_report = now + report_every
                try:
                    raw = await asyncio.wait_for(client.dump_events(EventType.BACKUP_STATUS),
                                                 left())
                    at = clock.wall()
                    seen(apply_status_report(backups, tuple(decode_event(r, at) for r in raw), at))
                    reported = True
                    last_error = None
                except MgmCommandError as exc:
                    last_error = exc.result
                except MgmError as exc:
                    last_error = str(exc)
                    await client.close()
                except asyncio.TimeoutError:
                    last_error = f"no status report within {timeout:g} s"
                    await client.close()
                continue
            try:
                item = await asyncio.wait_for(queue.get(), min(next_report, deadline) - now)
            except asyncio.TimeoutError:
                continue
            if isinstance(item, BaseException):
                last_error = str(item)
                continue
            seen(apply_backup_event(backups, decode_event(item, clock.wall())))
    finally:
        if listener_task is not None:
            listener_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, MgmError):
                await listener_task
        await client.close()


def _timed_out(
    backups: tuple[Backup, ...], backup_id: int, reported: bool, error: str | None
) -> str:
    current = find_backup(backups, backup_id)
    if current is not None:
        return f"still {current.state}"
    other = running_backup(backups)
    if other is not None:
        why = f"the data nodes report backup {other.backup_id} running"
    elif reported:
        why = "the data nodes report no backup running"
    else:
        why = "no status report from the data nodes"
    if error:
        why += f" (last error: {error})"
    return f"backup {backup_id} was not seen: {why}"

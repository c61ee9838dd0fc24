"""``--once``: every source of a hub read once, without background tasks."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from ndbtop.aio import cancel_and_wait
from ndbtop.collect.host import HostSource
from ndbtop.collect.once_redo import await_redo_reports
from ndbtop.collect.sql import SqlSource
from ndbtop.errors import MgmError, SqlError
from ndbtop.model.backups import running_backup
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ndbinfo.queries import RATE_PANELS

if TYPE_CHECKING:
    from ndbtop.collect.hub_face import HubFace


async def collect_once(hub: HubFace) -> ClusterSnapshot:
    """Read every source without background tasks: the management server at the start and
    again at the end, ndbinfo and the host twice ``interval`` apart so rates are real.

    A management server that cannot be reached raises its error; the other
    sources only record theirs in the snapshot. The events are listened to for the
    whole collection, as the live view does, so both name phases from the same
    evidence.
    """
    reading = await hub.mgm.poll_once()
    hub.mgm.health.ok(reading.address, reading.unavailable)
    hub.on_mgm()
    listening: asyncio.Task[None] | None = None
    if hub.events is not None:
        listening = asyncio.create_task(hub.events.run(), name="source-events")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(hub.events.answered.wait(), hub.interval + 5.0)
    try:
        return await _collect_rest(hub)
    finally:
        if listening is not None:
            await cancel_and_wait([listening])


async def _collect_rest(hub: HubFace) -> ClusterSnapshot:
    await hub.config.attempt()

    async def sample(source: SqlSource | HostSource | None, error: type[Exception]) -> None:
        if source is None:
            return
        for i in range(2):
            if isinstance(source, SqlSource):
                # The triage tables are read once, in the second sample: each read scans
                # every data node, and they need no rate. The panels rates come from are
                # read again in it, whatever the live view's rotation.
                hub.hold_panels(i == 0)
                if i == 1:
                    hub.read_again(RATE_PANELS)
            try:
                await source.poll_once()
            except error as exc:
                if isinstance(source, SqlSource) and isinstance(exc, SqlError):
                    source.failed(exc)
                else:
                    source.health.failed(str(exc))
                return
            if isinstance(source, SqlSource):
                source.succeeded()
            else:
                source.health.ok()
            if i == 0:
                await asyncio.sleep(hub.interval)

    async def replication() -> None:
        # Two reads an interval apart: the second gives the rate epochs are written at,
        # which the lag in seconds is derived from.
        if hub.replication is None:
            return
        for i in range(2):
            await hub.replication.attempt()
            if i == 0:
                await asyncio.sleep(hub.interval)

    deadline = (hub.hosts.ssh.connect_timeout if hub.hosts.ssh else 0.0) + hub.interval
    await asyncio.gather(sample(hub.sql, SqlError), sample(hub.host, OSError),
                         *(sample(s, OSError) for s in hub.hosts.simulated.values()),
                         hub.hosts.sample_once(deadline + 1.0), hub.read_cluster_log(),
                         replication())
    hub.hold_panels(False)
    # Without DataMemory from ndbinfo, the data nodes' own report (once).
    with contextlib.suppress(MgmError):
        await hub.memory_reporter.poll(hub.mgm.client)
    # The error logs and DataDirs of the nodes that are down, over the hosts' connections
    # now open.
    hub.hosts.allow_reads(hub.cluster_config())
    await hub.hosts.reads_done()
    if running_backup(hub.backups) is not None:
        # A second status report, an interval after the first, gives the backup's rate.
        hub.backup_reporter.ask_now()
        with contextlib.suppress(MgmError):
            await hub.backup_reporter.poll(hub.mgm.client)
    if hub.events is not None:
        await await_redo_reports(hub)
        # The nodes as they are at the end of the events listened to, not before them.
        with contextlib.suppress(MgmError):
            reading = await hub.mgm.poll_once()
            hub.mgm.health.ok(reading.address, reading.unavailable)
            hub.on_mgm()
    hub.changed()
    return hub.snapshot()

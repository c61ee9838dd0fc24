"""The hub's cluster log: read when the configuration says where it is, read again for what
it gained when the event listener was cut off, and the starts dated from it.

The live view reads the management servers' cluster log files once, when the
configuration arrives. When the event listener is open again after a gap (the management
server restarted, the network dropped), the events of the gap were not heard, but the
files hold them: what the files gained since is read (:func:`~ndbtop.collect.cluster_log.
read_appended`, bounded), so the Events view, the reports and the rules show them. After
each read, and when a node is first seen starting, the starts ndbtop did not see whole are
dated from the file's lines (:mod:`ndbtop.model.start_file`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ndbtop.collect.cluster_log import mgm_places
from ndbtop.compat import AsyncEvent
from ndbtop.model.start_file import FileDating

if TYPE_CHECKING:
    from ndbtop.collect.hub_face import HubFace


class HubClusterLog:
    """When the hub reads the cluster log files, and what it does with them."""

    def __init__(self, hub: HubFace) -> None:
        self.hub = hub
        self.task: asyncio.Task[None] | None = None
        self._again = False
        """The event listener was cut off during a read: read again once it is done."""
        self._dating = FileDating()
        self.first_read = AsyncEvent()
        """Set once the files were read (or could not be) the first time."""
        if hub.events is not None and hub.cluster_log is not None:
            hub.events.on_reopen = self.after_gap

    def configured(self) -> None:
        """The configuration was read: the live view's first read, once."""
        if self.hub.started and self.task is None and self.hub.cluster_log is not None:
            self.task = asyncio.create_task(self.read(), name="source-cluster-log")

    def after_gap(self) -> None:
        """The event listener is open again after it was cut off: read what the files
        gained meanwhile (none is read before the first read, which reads them all)."""
        if self.task is None:
            return
        if not self.task.done():
            self._again = True
            return
        self.task = asyncio.create_task(self.read(appended=True), name="source-cluster-log")

    async def read(self, appended: bool = False) -> None:
        """Read the files (their last hour; ``appended``: what they gained since they were
        read), then date the starts from them."""
        hub, source = self.hub, self.hub.cluster_log
        if source is None:
            return
        while True:
            reading = hub.mgm.reading
            connected = reading.address.rsplit(":", 1)[0].strip("[]") if reading else None
            places = mgm_places(hub.cluster_config(), reading.nodes if reading else (),
                                connected)
            ssh = hub.hosts.ssh
            timeout = (ssh.connect_timeout if ssh else 0.0) + 10.0
            self._again = False
            await source.read_all(places, timeout, hub.clock.wall(), appended)
            self.date_starts()
            self.first_read.set()
            hub.changed()
            if not self._again:
                return
            appended = True

    def date_starts(self) -> None:
        """Date the starts ndbtop did not see whole from the files' lines, when a read or a
        start first seen asks it."""
        hub = self.hub
        read = hub.cluster_log.read if hub.cluster_log is not None else None
        dated = self._dating(hub.timelines, read.lines if read is not None else ())
        if dated is not None:
            hub.set_timelines(dated)

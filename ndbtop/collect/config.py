"""The cluster configuration, read from the management server only when it may have changed.

A configuration is read when the management session opens (first connect,
every reconnect, a failover to another server of the connect string), and
when there is a sign of a new generation: a data node that runs a newer one
(``ndbinfo.nodes.config_generation``), or a data node process that connected
again (a restart, which is how nodes take a new configuration; a management
server that is not the one reloaded receives the new generation without any
session of ours noticing). Never on every refresh: a connect count or a generation
asks for a read once it has held still for one refresh, so a node that keeps
reconnecting (or a server whose counts keep moving) causes one read when it settles,
not one per refresh; several reasons before the read are one read.

A configuration that cannot be read leaves the last one decoded in place and
says why in the source's status.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ndbtop.collect.health import Health
from ndbtop.compat import AsyncEvent
from ndbtop.errors import MgmError
from ndbtop.mgm.client import ConfigUnavailable, MgmClient
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig
from ndbtop.model.config_decode import config_and_raw_from_blob
from ndbtop.model.config_raw import RawConfig
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.sources import Backoff, SourceState, SourceStatus

RETRY_CAP = 60.0
"""Longest wait before reading a configuration that could not be read again."""


class ConfigSource:
    """Reads the configuration through the management source's client, on demand."""

    name = "config"

    def __init__(self, client: MgmClient, on_update: Callable[[], None]) -> None:
        self.client = client
        self.on_update = on_update
        self.config: ClusterConfig | None = None
        self.raw: RawConfig | None = None
        """Every parameter of :attr:`config` (``ndbtop config``, the bundle's config.ini)."""
        self.read_from = ""
        """The management server :attr:`config` was read from."""
        self.read_with = ""
        """The command it was read with (``get config_v2`` or ``get config``)."""
        self.health = Health(self.name, str(client.connectstring))
        self.health.backoff = Backoff(cap=RETRY_CAP)
        self.reads = 0
        """Configurations requested so far (tests and benchmarks check it stays small)."""
        self.reason = "connect"
        """Why the next read is wanted."""
        self._wanted = AsyncEvent()
        self._sessions = 0
        self._connects: dict[int, int] = {}
        self._moved: set[int] = set()
        """Data nodes whose connect count changed and has not yet held still."""
        self._asked_generation = 0
        self._seen_generation = 0
        self._last_sample: NdbinfoSample | None = None

    @property
    def status(self) -> SourceStatus:
        """The source's current state."""
        return self.health.status

    def request(self, reason: str) -> None:
        """Read the configuration again soon."""
        self.reason = reason
        self._wanted.set()

    @property
    def pending(self) -> bool:
        """True when a read was asked for and has not been made."""
        return self._wanted.is_set()

    async def read_if_pending(self) -> None:
        """Make the read asked for, if any (for callers that drive sources by hand)."""
        if self._wanted.is_set():
            self._wanted.clear()
            await self.attempt()

    def observe(self, nodes: Sequence[NodeStatus], sample: NdbinfoSample | None) -> None:
        """Look at a new ``get status`` answer (and ndbinfo sample) for a reason to read."""
        sessions = self.client.sessions_opened
        if sessions != self._sessions:
            first = self._sessions == 0
            self._sessions = sessions
            self.request("connect" if first else "reconnect")
        connects = self._connects
        for n in nodes:
            if n.type != "NDB" or not n.connect_count:
                continue
            before = connects.get(n.node_id)
            connects[n.node_id] = n.connect_count
            if before is None:
                continue
            if n.connect_count != before:
                self._moved.add(n.node_id)
            elif n.node_id in self._moved:
                self._moved.discard(n.node_id)
                self.request(f"node {n.node_id} connected again")
        known = self.config.generation if self.config is not None else 0
        if sample is not None and self.config is not None and sample is not self._last_sample:
            self._last_sample = sample
            newest = max((n.config_generation for n in sample.nodes), default=0)
            if newest > known and newest > self._asked_generation:
                if newest == self._seen_generation:
                    self._asked_generation = newest
                    self.request(f"node runs generation {newest}")
                self._seen_generation = newest

    async def attempt(self) -> float | None:
        """Read once; returns the delay before retrying, or None after a good read."""
        self.reads += 1
        try:
            config, raw = config_and_raw_from_blob(await self.client.get_config_blob())
        except ConfigUnavailable as exc:
            delay = self.health.failed(str(exc), SourceState.UNAVAILABLE)
            self.on_update()
            return delay
        except MgmError as exc:
            delay = self.health.failed(str(exc))
            self.on_update()
            return delay
        self.config, self.raw = config, raw
        self.read_from = str(self.client.address or self.client.connectstring)
        self.read_with = self.client.config_command
        self.health.ok(self.client.address and str(self.client.address))
        self.on_update()
        return None

    async def run(self) -> None:
        """Read whenever asked, retrying with backoff; never raises for a server problem."""
        while True:
            await self._wanted.wait()
            self._wanted.clear()
            delay = await self.attempt()
            if delay is not None:
                await self.health.sleep(delay)
                self._wanted.set()

"""Run a simulated cluster in real time and serve it on loopback ports."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import socket
import ssl
from collections.abc import Callable
from typing import Any

from ndbtop.aio import cancel_and_wait
from ndbtop.compat import AsyncEvent
from ndbtop.sim.clock import SimClock
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.mgmd.cluster_log import ClusterLogFile
from ndbtop.sim.mgmd.server import MgmdServer
from ndbtop.sim.ndbinfo_rows import SimNdbinfo

DRIVER_INTERVAL = 0.05
"""Real seconds between two advances of the model."""
HOLD_SPEED = 0.01
"""The speed a demo plays at while its viewer connects: the cluster all but stands still."""


class Simulator:
    """A cluster, its clock, one simulated ndb_mgmd per management node and a SQL node."""

    def __init__(self, cluster: SimCluster, clock: SimClock, host: str = "127.0.0.1") -> None:
        self.cluster = cluster
        self.clock = clock
        self.host = host
        self.mgmds: dict[int, MgmdServer] = {}
        self.sql_server: Any = None
        self.replica_server: Any = None
        """The replica cluster's SQL node, when the scenario replicates."""
        self.replica_sim: Simulator | None = None
        """Another simulator whose SQL node is this cluster's replica (``demo --fleet``):
        none is served here then."""
        self.source_sim: Simulator | None = None
        """The simulator whose cluster this one's SQL node replicates from."""
        self.ndbinfo = SimNdbinfo(cluster, self.sync, clock)
        self.arbitration = cluster.arbitration
        self._driver: asyncio.Task[None] | None = None
        self._changed = AsyncEvent()
        self._release: asyncio.Task[None] | None = None
        self._sql_socket: socket.socket | None = None
        self._replica_socket: socket.socket | None = None
        self._sql_starting: asyncio.Task[None] | None = None

    @property
    def mgm_ports(self) -> dict[int, int]:
        """Port of each management server, by node id."""
        return {node_id: server.port for node_id, server in self.mgmds.items()}

    @property
    def connectstring(self) -> str:
        """A connect string listing every simulated management server."""
        return ",".join(f"{self.host}:{s.port}" for s in self.mgmds.values())

    @property
    def replica_sql_port(self) -> int | None:
        """Port of the replica cluster's simulated SQL node, when the scenario replicates."""
        if self._replica_socket is not None:
            return int(self._replica_socket.getsockname()[1])
        return None if self.replica_server is None else int(self.replica_server.port)

    def replication_now(self) -> float:
        """The simulated time, with the model brought up to it (the replication sides')."""
        self.sync()
        return self.cluster.now

    @property
    def sql_port(self) -> int | None:
        """Port of the simulated SQL node, if it runs (or is still starting)."""
        if self._sql_socket is not None:
            return int(self._sql_socket.getsockname()[1])
        return None if self.sql_server is None else int(self.sql_server.port)

    async def start(
        self,
        mgm_ports: dict[int, int] | None = None,
        sql_port: int | None = 0,
        require_tls: bool = False,
        sql_in_background: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """Start the model's driver and the servers (port 0 picks a free one).

        With ``sql_in_background`` the SQL node's port listens at once but the node
        itself (and its SQL engine, slow to import) starts in the background: a client
        that connects meanwhile waits for the server's greeting, as with a busy mysqld.
        The demo uses it so that the management server's picture comes first.
        ``tls`` is the management servers' TLS context (``start tls`` answers
        ``Failed`` without one).
        """
        self.sync()
        self._write_cluster_logs()
        self._driver = asyncio.create_task(self._drive())
        ports = mgm_ports or {}
        for slot in self.cluster.config.mgm_nodes:
            server = MgmdServer(
                self,
                slot.node_id,
                host=self.host,
                port=ports.get(slot.node_id, 0),
                require_tls=require_tls,
                tls=tls,
            )
            await server.start()
            self.mgmds[slot.node_id] = server
        if sql_port is None:
            return
        if not sql_in_background:
            from ndbtop.sim.sqlnode import start_sql_node

            self._sides()
            self.sql_server = await start_sql_node(self.ndbinfo, host=self.host, port=sql_port)
            await self._start_replica()
            return
        sock = socket.create_server((self.host, sql_port))
        self._sql_socket = sock
        if self.cluster.replication is not None and self.replica_sim is None:
            # Its port is known at once too: the demo names it before it serves.
            self._replica_socket = socket.create_server((self.host, 0))
        self._sql_starting = asyncio.create_task(self._start_sql_node(sock))

    def _write_cluster_logs(self) -> None:
        """Each management server given a DataDir writes its cluster log file there: what
        the cluster logged before it was served, then every event as it comes."""
        bus = self.cluster.bus
        for slot in self.cluster.config.mgm_nodes:
            if not slot.data_dir:
                continue
            log = ClusterLogFile(slot.data_dir, slot.node_id, self.clock.wall)
            for event in list(bus.history):
                if bus.logged(event):
                    log.write(event)
            bus.cluster_log.append(log.write)

    async def _start_sql_node(self, sock: socket.socket) -> None:
        # Imported in a thread so the event loop (and the UI on it) keeps running.
        try:
            module = await asyncio.to_thread(importlib.import_module, "ndbtop.sim.sqlnode")
            self._sides()
            self.sql_server = await module.start_sql_node(self.ndbinfo, sock=sock)
            await self._start_replica()
        except BaseException:
            sock.close()  # clients waiting for a greeting get a closed connection instead
            raise
        finally:
            self._sql_socket = None

    def replicate_to(self, replica: Simulator) -> None:
        """Serve this cluster's replica on ``replica``'s SQL node (before either starts)."""
        self.replica_sim, replica.source_sim = replica, self

    def _sides(self) -> None:
        """This cluster's SQL node plays the source of the scenario's replication, or the
        replica of another simulator's."""
        from ndbtop.sim.sqlnode.replication import ReplicationSide

        model = self.cluster.replication
        if model is not None:
            model.host = self.host
            model.source_port = self.sql_port
            self.ndbinfo.replication = ReplicationSide(  # type: ignore[attr-defined]
                model, "source", self.replication_now, self.ndbinfo.ndb_version, self.clock)
        source = self.source_sim
        if source is not None and source.cluster.replication is not None:
            self.ndbinfo.replication = ReplicationSide(  # type: ignore[attr-defined]
                source.cluster.replication, "replica", source.replication_now,
                self.ndbinfo.ndb_version, source.clock)

    async def _start_replica(self) -> None:
        """The replica cluster's SQL node, reading this one's binary log."""
        model = self.cluster.replication
        if model is None or self.sql_server is None or self.replica_sim is not None:
            return
        from ndbtop.sim.sqlnode import start_sql_node
        from ndbtop.sim.sqlnode.provider import StaticProvider
        from ndbtop.sim.sqlnode.replication import ReplicationSide

        model.source_port = int(self.sql_server.port)
        replica = StaticProvider(ndb_version=self.ndbinfo.ndb_version)
        replica.replication = ReplicationSide(  # type: ignore[attr-defined]
            model, "replica", self.replication_now, self.ndbinfo.ndb_version, self.clock)
        sock, self._replica_socket = self._replica_socket, None
        self.replica_server = await start_sql_node(replica, host=self.host, port=0, sock=sock)

    async def close(self) -> None:
        """Stop the servers and the driver."""
        if self._sql_starting is not None:
            await cancel_and_wait([self._sql_starting])
            self._sql_starting = None
        for pending in (self._sql_socket, self._replica_socket):
            if pending is not None:
                pending.close()
        self._sql_socket = self._replica_socket = None
        for server in self.mgmds.values():
            await server.close()
        if self.sql_server is not None:
            await self.sql_server.close()
            self.sql_server = None
        if self.replica_server is not None:
            await self.replica_server.close()
            self.replica_server = None
        if self._driver is not None:
            await cancel_and_wait([self._driver])
            self._driver = None

    async def __aenter__(self) -> Simulator:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def sync(self) -> None:
        """Bring the model up to the clock's current simulated time."""
        self.cluster.advance_to(self.clock.now())

    async def _drive(self) -> None:
        while True:
            self.sync()
            self._changed.set()
            self._changed = AsyncEvent()
            await asyncio.sleep(DRIVER_INTERVAL)

    async def wait_for(self, predicate: Callable[[], bool], sim_timeout: float) -> bool:
        """Wait until ``predicate`` holds; False when it did not within ``sim_timeout``
        simulated seconds. The model judges at that simulated moment itself, so a step that
        spans it (a machine too busy to sync often) cannot carry the wait past it."""
        self.sync()
        at_deadline: list[bool] = []
        self.cluster.after(sim_timeout, lambda: at_deadline.append(predicate()))
        while True:
            self.sync()
            if at_deadline:
                return at_deadline[0]
            if predicate():
                return True
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), DRIVER_INTERVAL * 4)

    def speed_up_when(self, ready: Callable[[], bool], speed: float, timeout: float = 10.0) -> None:
        """Hold the cluster (a hundredth of real speed) until ``ready()`` holds, at most
        ``timeout`` real seconds, then play at ``speed``: a viewer still connecting misses
        nothing, however long a busy machine takes to connect it."""
        self.clock.set_speed(HOLD_SPEED)

        async def release() -> None:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while not ready() and loop.time() < deadline:
                await asyncio.sleep(0.05)
            self.clock.set_speed(speed)

        self._release = asyncio.create_task(release())

    async def stop_mgmd(self, node_id: int) -> None:
        """Kill one management server (its port stops answering); if it was the
        arbitrator, the data nodes report the loss and choose another."""
        await self.mgmds[node_id].close()
        self.sync()
        self.cluster.mgmd_alive[node_id] = False
        self.arbitration.mgmd_killed(node_id)

    async def start_mgmd(self, node_id: int) -> None:
        """Bring a killed management server back on its old port; without an arbitrator,
        the data nodes choose it once it has registered with them."""
        server = self.mgmds[node_id]
        await server.start()
        self.sync()
        self.cluster.mgmd_alive[node_id] = True
        self.arbitration.mgmd_started(node_id)

"""What every command handler of the simulated ndb_mgmd shares: its session, the
simulation it answers from, and the arguments' number parsing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from ndbtop.mgm.events.filters import c_atoi
from ndbtop.sim.cluster import SimCluster


class SimRuntime(Protocol):
    """What the server needs from whoever drives the simulation."""

    cluster: SimCluster

    def sync(self) -> None:
        """Bring the model up to the current simulated time."""

    async def wait_for(self, predicate: Callable[[], bool], sim_timeout: float) -> bool:
        """Wait until ``predicate`` holds; False after ``sim_timeout`` simulated seconds."""


class Session:
    """One client's connection: its id, its writer, what it said of itself."""

    def __init__(self, sid: int, writer: asyncio.StreamWriter) -> None:
        self.id = sid
        self.writer = writer
        self.client_version: tuple[int, int, int] | None = None
        self.tls = False


class Handlers:
    """The server's identity and simulation, as the command handlers see them."""

    runtime: SimRuntime
    node_id: int

    @property
    def cluster(self) -> SimCluster:
        """The simulated cluster this server reports on."""
        return self.runtime.cluster


def node_ids(text: str) -> tuple[int, ...]:
    """Node ids of a ``node``/``nodes`` argument, read with ``atoi`` as the server does."""
    return tuple(c_atoi(part) for part in text.split())

"""Watching a simulated field scenario from the outside.

A :class:`ScenarioWatch` runs one scenario under hand-driven time and sees it
only as a monitoring tool would: events through two ``listen event``
subscriptions at the same levels (parsable, and text mode for the cluster-log
texts), ``get status`` and the other management commands, and ``ndbinfo`` over
the MySQL protocol. Each event is stamped with the simulated time at which it
arrived; to know that every event of a step has arrived, the watch reports a
marker event through the management server after each step and reads both
streams up to it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pymysql
import pytest

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.mgm.client import CLUSTER_LOGLEVEL_NAMES, MgmClient
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.events.filters import format_filter
from ndbtop.mgm.listener import EventListener
from ndbtop.mgm.session import MgmSession
from ndbtop.mgm.status import NodeStatus
from ndbtop.mgm.wire import RawEvent, Reply
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.sqlnode import SqlNodeServer

MARKER_TYPE = 7
"""LocalCheckpointCompleted: what the watch reports after each step to find the end of the
streams (its text carries the marker's number)."""
MARKER_SOURCE = 0
"""No node has id 0, so a marker is never mistaken for a real event."""
READ_TIMEOUT = 5.0

CLUSTER_LOG_LEVELS: dict[int, int] = {250 + i: 7 for i in range(13)}
CLUSTER_LOG_LEVELS.update({255: 8, 258: 15, 261: 15})
"""The cluster log's levels when a management server starts (CONNECTION 8, ERROR 15,
BACKUP 15, every other category 7)."""
TEXT_LINE = re.compile(r"Node (\d+): (.*)", re.DOTALL)
MARKER_LINE = re.compile(r"Local checkpoint \d+ completed")


@dataclass(frozen=True, **SLOTS)
class Seen:
    """An event as the listeners received it: the simulated time of its arrival, the
    parsable block decoded, and the text-mode line without its ``Node <id>: `` prefix."""

    time: float
    event: Event
    line: str

    @property
    def type(self) -> int:
        """The event type."""
        return self.event.type

    @property
    def source(self) -> int:
        """The reporting node."""
        return self.event.source_node


class ScenarioWatch:
    """One scenario, its clock in the test's hands, seen through the two protocols."""

    def __init__(
        self,
        sim: Simulator,
        time: Any,
        client: MgmClient,
        session: MgmSession,
        sql: SqlNodeServer,
    ) -> None:
        self.sim = sim
        self.time = time
        self.client = client
        self.session = session
        self.sql = sql
        self.address = session.address
        self.events: list[Seen] = []
        self.listener: EventListener | None = None
        self.text_listener: MgmSession | None = None
        self._items: AsyncIterator[Any] | None = None
        self._markers = 0
        self._db: pymysql.connections.Connection | None = None

    async def listen(self, levels: Mapping[int, int]) -> None:
        """(Re)subscribe both listeners at ``levels`` (category -> level)."""
        await self._close_listeners()
        listener = EventListener(self.address, dict(levels))
        await listener.open()
        self.listener, self._items = listener, listener.items()
        self.text_listener = await MgmSession.open(self.address, READ_TIMEOUT)
        reply = await self.text_listener.request(
            "listen event", [("filter", format_filter(levels))], READ_TIMEOUT
        )
        assert reply.get("result") == "0"
        await self.drain()

    async def _close_listeners(self) -> None:
        if self.listener is not None:
            await self.listener.close()
        if self.text_listener is not None:
            await self.text_listener.aclose()
        self.listener = self.text_listener = self._items = None

    @property
    def now(self) -> float:
        """Simulated seconds since the scenario began."""
        return float(self.time.now)

    # Time and events

    async def step(self, seconds: float) -> list[Seen]:
        """Let ``seconds`` of simulated time pass; returns the events that arrived."""
        self.time.advance(seconds)
        return await self.drain()

    async def drain(self) -> list[Seen]:
        """Every event reported up to now (a marker round trip through the server)."""
        self._markers += 1
        mark = self._markers
        header = (MARKER_SOURCE << 16) | MARKER_TYPE
        reply = await self.session.request(
            "report event", [("length", 2), ("data", f"{header} {mark}")], READ_TIMEOUT
        )
        assert reply.get("result") == "ok"
        assert self._items is not None and self.text_listener is not None
        events: list[Event] = []
        while True:
            item = await asyncio.wait_for(self._items.__anext__(), READ_TIMEOUT)
            assert isinstance(item, RawEvent), item
            event = decode_event(item, self.now)
            if event.source_node == MARKER_SOURCE and event.type == MARKER_TYPE:
                if event.word(1) == mark:
                    break
                continue
            events.append(event)
        lines: list[tuple[int, str]] = []
        # Without a reporting node the text has no "Node <id>: " prefix.
        end = f"Local checkpoint {mark} completed"
        while (line := await self.text_listener.read_line(READ_TIMEOUT)) != end:
            if line == "<PING>" or MARKER_LINE.fullmatch(line):
                continue
            found = TEXT_LINE.fullmatch(line)
            assert found is not None, line
            lines.append((int(found.group(1)), found.group(2)))
        # Both subscriptions have the same levels: the same events in the same order.
        assert [(e.source_node) for e in events] == [source for source, _ in lines]
        fresh = [Seen(self.now, e, text) for e, (_, text) in zip_strict(events, lines)]
        self.events.extend(fresh)
        return fresh

    async def run_until(
        self, done: Callable[[], bool], step: float, limit: float, what: str = "condition"
    ) -> None:
        """Step until ``done()`` holds; fails after ``limit`` simulated seconds."""
        deadline = self.now + limit
        while not done():
            if self.now >= deadline:
                raise AssertionError(f"no {what} within {limit:g} simulated seconds")
            await self.step(step)

    async def run_to(self, when: float, step: float) -> None:
        """Step until simulated time ``when`` (the last step may be shorter)."""
        while self.now < when - 1e-9:
            await self.step(min(step, when - self.now))

    def seen(self, event_type: int, source: int | None = None) -> list[Seen]:
        """Events of one type (from one node) received so far, in order."""
        return [
            s
            for s in self.events
            if s.type == event_type and (source is None or s.source == source)
        ]

    def arrived(self, event_type: int, source: int | None = None, **words: int) -> float | None:
        """Arrival time of the first such event whose fields have these values."""
        for s in self.seen(event_type, source):
            if all(s.event.get(k) == v for k, v in words.items()):
                return s.time
        return None

    # Management commands

    async def status(self) -> dict[int, NodeStatus]:
        """``get status``, by node id."""
        return {n.node_id: n for n in await self.client.get_status()}

    async def raw_status(self) -> Reply:
        """The ``get status`` reply as sent (values as the server printed them)."""
        return await self.session.request("get status", [], READ_TIMEOUT)

    # SQL

    async def query(self, sql: str) -> list[tuple[Any, ...]]:
        """Rows of one statement on the simulated SQL node."""
        return await asyncio.to_thread(self._execute, sql)

    async def sql_error(self, sql: str) -> tuple[int, str]:
        """(code, message) of a statement that fails."""
        with pytest.raises(pymysql.MySQLError) as caught:
            await self.query(sql)
        code, message = caught.value.args[:2]
        return int(code), str(message)

    def _execute(self, sql: str) -> list[tuple[Any, ...]]:
        if self._db is None:
            self._db = pymysql.connect(
                host="127.0.0.1",
                port=self.sql.port,
                user="root",
                database="ndbinfo",
                connect_timeout=10,
                read_timeout=10,
            )
        with self._db.cursor() as cursor:
            cursor.execute(sql)
            return list(cursor.fetchall())

    async def close(self) -> None:
        """Close every connection of the watch."""
        if self._db is not None:
            await asyncio.to_thread(self._db.close)
            self._db = None
        await self._close_listeners()
        await self.session.aclose()
        await self.sql.close()


def cluster_log_levels(names: Mapping[str, int]) -> dict[int, int]:
    """Listen levels (category -> level) from a ``get cluster loglevel`` reply."""
    return {250 + CLUSTER_LOGLEVEL_NAMES.index(name): level for name, level in names.items()}


Watch = Callable[..., Awaitable[ScenarioWatch]]
"""The ``watch`` fixture: ``await watch(name, seed=1, levels=None, **options)``."""


# The texts of the reference (mgm-protocol.md §5.3-5.4), as printf formats: %u/%d are
# numbers; a "re:" entry is a regular expression for a text built from several parts.

VERSION = r"mysql-\d+\.\d+\.\d+ ndb-\d+\.\d+\.\d+"
REFERENCE_TEXTS: dict[int, tuple[str, ...]] = {
    0: ("Node %u Connected",),
    1: ("Node %u Disconnected",),
    6: ("Local checkpoint %u started. Keep GCI = %u oldest restorable GCI = %u",),
    7: ("Local checkpoint %u completed",),
    10: (f"re:Start initiated \\({VERSION}\\)",),
    11: (f"re:Started \\({VERSION}\\)",),
    13: (
        "Start phase %u completed (initial start)",
        "Start phase %u completed (system restart)",
        "Start phase %u completed (node restart)",
        "Start phase %u completed (initial node restart)",
    ),
    14: ("CM_REGCONF president = %u, own Node = %u, our dynamic id = %u/%u",),
    17: ("Node shutdown initiated", "Cluster shutdown initiated"),
    22: (
        "Node restart completed copy of dictionary information to Node %u",
        "Node restart completed copy of dictionary information",
    ),
    23: (
        "Node restart completed copy of distribution information to Node %u",
        "Node restart completed copy of distribution information",
    ),
    24: ("Node restart starting to copy the fragments to Node %u",),
    26: ("Node restart completed copying the fragments to Node %u",),
    27: ("Node %u completed failure of Node %u", "All nodes completed failure of Node %u"),
    28: ("Node %u has failed. The Node state at failure was %u",),
    35: (
        "Trans. Count = %u, Commit Count = %u, Read Count = %u, Simple Read Count = %u, "
        "Write Count = %u, AttrInfo Count = %u, Concurrent Operations = %u, "
        "Abort Count = %u Scans = %u Range scans = %u",
    ),
    36: ("Operations=%u",),
    39: ("Mean loop Counter in doJob last 8192 times = %u",),
    40: ("Mean send size to Node = %d last 4096 sends = %u bytes",),
    41: ("Mean receive size to Node = %d last 4096 sends = %u bytes",),
    51: (r"re:Node \d+: API (mysql-\d+\.\d+\.\d+ )?ndb-\d+\.\d+\.\d+",),
    53: (
        r"re:Node shutdown completed(, restarting)?(, no start)?(, initial)?\."
        r"( Initiated by signal -?\d+\.)?",
    ),
    71: (
        "Local redo log file initialization status: #Total files: %u, Completed: %u "
        "#Total MBytes: %u, Completed: %u",
        "Node %u: Log file initializtion completed",
    ),
    72: (
        "Local redo log file initialization completed: #Total files: %u, Completed: %u "
        "#Total MBytes: %u, Completed: %u",
    ),
    75: ("alter object id: %u version: %u (from %u)",),
    86: ("Node Start completed restore of LCP id: %u",),
}


def text_pattern(form: str) -> re.Pattern[str]:
    """A regular expression for one reference text form."""
    if form.startswith("re:"):
        return re.compile(form[3:])
    out = re.escape(form).replace("%u", r"\d+").replace("%d", r"-?\d+")
    return re.compile(out)


def assert_reference_texts(seen: Iterable[Seen]) -> set[int]:
    """Every event is a known catalogue entry, well formed, and its cluster-log text (the
    text-mode line) has a form of the reference; returns the event types checked."""
    types: set[int] = set()
    for s in seen:
        e = s.event
        assert e.known and not e.malformed, (e.type, e.body)
        forms = REFERENCE_TEXTS.get(e.type)
        assert forms is not None, f"no reference text for event type {e.type} ({e.name})"
        assert any(text_pattern(f).fullmatch(s.line) for f in forms), (e.type, s.line)
        types.add(e.type)
    return types


def only(rows: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
    """The single row of a result."""
    assert len(rows) == 1, rows
    return rows[0]

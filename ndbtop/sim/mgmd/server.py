"""A simulated ndb_mgmd: the management protocol served from a :class:`SimCluster`.

Replies follow Services.cpp byte for byte, including the parser's error
replies and their desynchronisation. A ``listen event`` session becomes an
event stream with a ``<PING>`` every 500 ms. Requests that stop or restart
nodes reply only once the nodes have stopped, as the real server does.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import ssl
from collections.abc import Awaitable, Callable
from functools import partial

from ndbtop.aio import cancel_and_wait
from ndbtop.compat import start_tls
from ndbtop.errors import MgmLineTooLong
from ndbtop.mgm.events.encode import encode_parsable, encode_text
from ndbtop.mgm.events.filters import FilterRejected, parse_filter
from ndbtop.mgm.wire import LineBuffer, format_block
from ndbtop.sim.eventbus import SimEvent, Subscription
from ndbtop.sim.mgmd.control import ControlHandlers
from ndbtop.sim.mgmd.handlers import Session, SimRuntime
from ndbtop.sim.mgmd.parser import (
    BOOTSTRAP,
    ParseFailure,
    Request,
    RequestParser,
    commands_of,
    format_failure,
)
from ndbtop.sim.mgmd.queries import QueryHandlers

SOCKET_TIMEOUT = 30.0
"""Seconds the server waits for the rest of a line or request (Services.hpp)."""
PING_INTERVAL = 0.5
LISTENER_QUEUE = 10000


class MgmdServer(QueryHandlers, ControlHandlers):
    """One simulated management server (node ``node_id``) on a loopback port."""

    def __init__(
        self,
        runtime: SimRuntime,
        node_id: int,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        require_tls: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.runtime = runtime
        self.tls = tls
        """The server's TLS context (its certificate chain); ``start tls`` fails without one."""
        self.node_id = node_id
        self.host = host
        self.port = port
        self.require_tls = require_tls
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._session_ids = itertools.count(1)
        self.requests = 0
        self._packed: dict[tuple[int, bool], tuple[object, bytes]] = {}
        """Configuration replies already packed, by configuration object and format."""
        self.stall: bool = False
        """When set, sessions accept bytes but never answer (a hung server)."""

    async def start(self) -> int:
        """Listen; returns the port (a free one when constructed with 0)."""
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        """Stop listening and drop every session and listener."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            with contextlib.suppress(Exception):
                writer.close()
        await cancel_and_wait(self._tasks)

    @property
    def listening(self) -> bool:
        """True while the server accepts connections."""
        return self._server is not None

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await self._run_session(reader, writer)

    async def _run_session(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        session = Session(next(self._session_ids), writer)
        self._writers.add(writer)
        lines = LineBuffer()
        parser = RequestParser(commands_of(self.cluster.config.ndb_version))
        try:
            while True:
                timeout = SOCKET_TIMEOUT if (parser.in_request or lines.pending) else None
                try:
                    data = await asyncio.wait_for(reader.read(4096), timeout)
                except asyncio.TimeoutError:
                    if lines.pending:
                        return
                    handed_off = await self._handle(session, parser.finish(), reader)
                    if handed_off:
                        return
                    continue
                if not data:
                    return
                try:
                    batch = lines.feed(data)
                except MgmLineTooLong:
                    return
                for line in batch:
                    item = parser.feed(line)
                    if item is None:
                        continue
                    if await self._handle(session, item, reader):
                        return
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def _handle(
        self, session: Session, item: Request | ParseFailure, reader: asyncio.StreamReader
    ) -> bool:
        """Answer one request; True when the session ends or becomes an event stream."""
        self.requests += 1
        if self.stall:
            await asyncio.Event().wait()
        if isinstance(item, ParseFailure):
            await self._send(session, format_failure(item))
            return False
        if self.require_tls and not session.tls and item.command not in BOOTSTRAP:
            await self._send(session, b"Authorization failed\nError: Requires TLS\n\n")
            return False
        if item.command == "start tls":
            return await self._start_tls(session)
        self.runtime.sync()
        if item.command == "bye":
            return True
        if item.command == "end session":
            await self._send(session, b"end session reply\n")
            return False
        if item.command == "listen event":
            return await self._listen(session, item, reader)
        handler = _HANDLERS[item.command]
        reply = await handler(self, session, item.args)
        await self._send(session, reply)
        return False

    async def _send(self, session: Session, data: bytes) -> None:
        session.writer.write(data)
        await session.writer.drain()

    async def _start_tls(self, session: Session) -> bool:
        """``start tls``: reply, then the server side of the handshake on the same socket.

        True (session over) when the handshake fails, as the real server drops it.
        """
        if session.tls:
            reply = format_block("start tls reply", [("result", "Already Connected")])
            await self._send(session, reply)
            return False
        if self.tls is None:
            await self._send(session, format_block("start tls reply", [("result", "Failed")]))
            return False
        await self._send(session, format_block("start tls reply", [("result", "Ok")]))
        try:
            await start_tls(session.writer, self.tls, ssl_handshake_timeout=SOCKET_TIMEOUT)
        except (ssl.SSLError, OSError, asyncio.TimeoutError):
            return True
        session.tls = True
        return False

    # Event listeners

    async def _listen(
        self, session: Session, request: Request, reader: asyncio.StreamReader
    ) -> bool:
        parsed = parse_filter(str(request.args["filter"]))
        if isinstance(parsed, FilterRejected):
            reply = format_block("listen event", [("result", -1), ("msg", parsed.message)])
            await self._send(session, reply)
            return False
        levels = {int(category): level for category, level in parsed.levels}
        await self._send(session, format_block("listen event", [("result", 0)]))
        parsable = bool(request.args.get("parsable", 0))
        queue: asyncio.Queue[SimEvent | None] = asyncio.Queue(LISTENER_QUEUE)

        def deliver(event: SimEvent) -> None:
            try:
                queue.put_nowait(event)
            except asyncio.QueueFull:
                # A listener that cannot keep up is dropped, as the real server does.
                self.cluster.bus.unsubscribe(subscription)

        subscription = self.cluster.bus.subscribe(levels, deliver)
        try:
            await self._stream(session, queue, parsable, subscription, reader)
        finally:
            self.cluster.bus.unsubscribe(subscription)
        return True

    async def _stream(
        self,
        session: Session,
        queue: asyncio.Queue[SimEvent | None],
        parsable: bool,
        subscription: Subscription,
        reader: asyncio.StreamReader,
    ) -> None:
        writer = session.writer
        loop = asyncio.get_running_loop()
        next_ping = loop.time()
        closed = asyncio.ensure_future(_drain_until_eof(reader))
        try:
            while not closed.done():
                if subscription not in self.cluster.bus.subscriptions:
                    return
                now = loop.time()
                if now >= next_ping:
                    writer.write(b"<PING>\n")
                    next_ping = now + PING_INTERVAL
                    await asyncio.wait_for(writer.drain(), 1.0)
                try:
                    event = await asyncio.wait_for(queue.get(), max(next_ping - loop.time(), 0))
                except asyncio.TimeoutError:
                    continue
                if event is None:
                    return
                encode = encode_parsable if parsable else encode_text
                writer.write(encode(event.type, event.source, event.words))
                await asyncio.wait_for(writer.drain(), 1.0)
        except (ConnectionError, asyncio.TimeoutError):
            return
        finally:
            closed.cancel()


async def _drain_until_eof(reader: asyncio.StreamReader) -> None:
    while await reader.read(4096):
        pass


_Handler = Callable[[MgmdServer, Session, dict], Awaitable[bytes]]
_HANDLERS: dict[str, _Handler] = {
    "get version": MgmdServer._get_version,
    "set clientversion": MgmdServer._set_clientversion,
    "check connection": MgmdServer._check_connection,
    "get mgmd nodeid": MgmdServer._get_mgmd_nodeid,
    "get session id": MgmdServer._get_session_id,
    "get session": MgmdServer._get_session,
    "list sessions": MgmdServer._list_sessions,
    "purge stale sessions": MgmdServer._purge_stale_sessions,
    "get status": MgmdServer._get_status,
    "get config": partial(MgmdServer._get_config, v2=False),
    "get config_v2": partial(MgmdServer._get_config, v2=True),
    "get info clusterlog": MgmdServer._get_info_clusterlog,
    "get cluster loglevel": MgmdServer._get_cluster_loglevel,
    "set cluster loglevel": MgmdServer._set_cluster_loglevel,
    "set loglevel": MgmdServer._set_loglevel,
    "set logfilter": MgmdServer._set_logfilter,
    "restart node": partial(MgmdServer._restart, version=1),
    "restart node v2": partial(MgmdServer._restart, version=2),
    "restart all": MgmdServer._restart_all,
    "stop": partial(MgmdServer._stop, version=1),
    "stop v2": partial(MgmdServer._stop, version=2),
    "stop all": MgmdServer._stop_all,
    "start": MgmdServer._start,
    "start all": MgmdServer._start_all,
    "enter single user": MgmdServer._enter_single_user,
    "exit single user": MgmdServer._exit_single_user,
    "dump events": MgmdServer._dump_events,
    "dump state": MgmdServer._dump_state,
    "report event": MgmdServer._report_event,
    "start backup": MgmdServer._start_backup,
    "abort backup": MgmdServer._abort_backup,
    "create nodegroup": MgmdServer._create_nodegroup,
}

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
from typing import Protocol

from ndbtop.aio import cancel_and_wait
from ndbtop.errors import MgmLineTooLong
from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.client import CLUSTER_LOGLEVEL_NAMES, SEVERITY_NAMES
from ndbtop.mgm.events.encode import encode_parsable, encode_text
from ndbtop.mgm.events.filters import FilterRejected, c_atoi, parse_filter
from ndbtop.mgm.status import NODE_TYPES, format_status_reply, parse_types_argument
from ndbtop.mgm.version import make_version, split_version, version_string
from ndbtop.mgm.wire import LineBuffer, format_block
from ndbtop.sim.cluster import ControlOutcome, SimCluster
from ndbtop.sim.config_blob import config_reply, pack_v1, pack_v2
from ndbtop.sim.datanode import STARTED
from ndbtop.sim.eventbus import SimEvent, Subscription
from ndbtop.sim.mgmd.parser import (
    BOOTSTRAP,
    COMMANDS,
    SINCE_8_0,
    ParseFailure,
    Request,
    RequestParser,
    format_failure,
)

SOCKET_TIMEOUT = 30.0
"""Seconds the server waits for the rest of a line or request (Services.hpp)."""
PING_INTERVAL = 0.5
LISTENER_QUEUE = 10000
LEAVE_STARTED_WAIT = 12.0
"""Simulated seconds a restarted node has to leave STARTED (else 5024)."""
NOT_STARTED_WAIT = 120.0
"""Simulated seconds restarted nodes have to reach NOT_STARTED (else 5025)."""
STOP_WAIT = 3600.0
"""Simulated seconds a stop waits for the nodes' STOP_CONF (the real server has no limit)."""
BACKUP_WAIT_LIMIT = 48 * 3600.0
"""Simulated seconds a ``start backup`` waits for its backup (mgmapi's own limit)."""


class SimRuntime(Protocol):
    """What the server needs from whoever drives the simulation."""

    cluster: SimCluster

    def sync(self) -> None:
        """Bring the model up to the current simulated time."""

    async def wait_for(self, predicate: Callable[[], bool], sim_timeout: float) -> bool:
        """Wait until ``predicate`` holds; False after ``sim_timeout`` simulated seconds."""


class _Session:
    def __init__(self, sid: int, writer: asyncio.StreamWriter) -> None:
        self.id = sid
        self.writer = writer
        self.client_version: tuple[int, int, int] | None = None
        self.tls = False


class MgmdServer:
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

    @property
    def cluster(self) -> SimCluster:
        """The simulated cluster this server reports on."""
        return self.runtime.cluster

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
        session = _Session(next(self._session_ids), writer)
        self._writers.add(writer)
        lines = LineBuffer()
        commands = COMMANDS
        if self.cluster.config.ndb_version < make_version(8, 0, 0):
            commands = {k: v for k, v in COMMANDS.items() if k not in SINCE_8_0}
        parser = RequestParser(commands)
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
        self, session: _Session, item: Request | ParseFailure, reader: asyncio.StreamReader
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

    async def _send(self, session: _Session, data: bytes) -> None:
        session.writer.write(data)
        await session.writer.drain()

    # Commands

    async def _get_version(self, session: _Session, args: dict) -> bytes:
        v = self.cluster.config.ndb_version
        major, minor, build = split_version(v)
        return format_block(
            "version",
            [
                ("id", v),
                ("major", major),
                ("minor", minor),
                ("build", build),
                ("string", version_string(v, v)),
                ("mysql_major", major),
                ("mysql_minor", minor),
                ("mysql_build", build),
            ],
        )

    async def _set_clientversion(self, session: _Session, args: dict) -> bytes:
        session.client_version = (args["major"], args["minor"], args["build"])
        return format_block("set clientversion reply", [("result", "Ok")])

    async def _check_connection(self, session: _Session, args: dict) -> bytes:
        return format_block("check connection reply", [("result", "Ok")])

    async def _get_mgmd_nodeid(self, session: _Session, args: dict) -> bytes:
        return f"get mgmd nodeid reply\nnodeid:{self.node_id}\n\n".encode()

    async def _get_session_id(self, session: _Session, args: dict) -> bytes:
        return format_block("get session id reply", [("id", session.id)])

    async def _get_status(self, session: _Session, args: dict) -> bytes:
        types = parse_types_argument(str(args["types"])) if "types" in args else NODE_TYPES
        single_user = session.client_version is not None and session.client_version >= (8, 0, 22)
        nodes = self.cluster.node_statuses(self.node_id)
        return format_status_reply(nodes, types, single_user)

    async def _get_config(self, session: _Session, args: dict, v2: bool) -> bytes:
        """``get config`` / ``get config_v2``: the configuration the server holds, or with
        ``from_node`` the one a data node runs (Services.cpp ``getConfig``)."""
        cluster = self.cluster
        config = cluster.config
        from_node = int(args.get("from_node", 0))
        if from_node:
            node = cluster.data_nodes.get(from_node)
            error = None
            if from_node > 255:
                error = f"Nodeid {from_node} is greater than max nodeid 255. "
            elif node is None:
                error = (f"Node {from_node} is not a data node. "
                         if config.node_type(from_node) else f"Nodeid {from_node} does not exist. ")
            elif not node.alive:
                error = f"Data node {from_node} is not alive. "
            if error is not None:
                return format_block("get config reply", [("result", error)])
            assert node is not None
            config = node.running_config
        old_form = cluster.config.ndb_version < make_version(8, 0, 0)
        cached = self._packed.get((id(config), v2))
        if cached is None or cached[0] is not config:
            cached = (config, config_reply(pack_v2(config) if v2 else pack_v1(config),
                                           old_form=old_form))
            self._packed[(id(config), v2)] = cached
        return cached[1]

    async def _get_config_v1(self, session: _Session, args: dict) -> bytes:
        return await self._get_config(session, args, False)

    async def _get_config_v2(self, session: _Session, args: dict) -> bytes:
        return await self._get_config(session, args, True)

    async def _get_info_clusterlog(self, session: _Session, args: dict) -> bytes:
        f = self.cluster.log_filter
        return format_block("clusterlog", [(name, f[i]) for i, name in enumerate(SEVERITY_NAMES)])

    async def _get_cluster_loglevel(self, session: _Session, args: dict) -> bytes:
        levels = self.cluster.bus.cluster_log_levels
        return format_block(
            "get cluster loglevel",
            [(name, levels[250 + i]) for i, name in enumerate(CLUSTER_LOGLEVEL_NAMES)],
        )

    async def _set_cluster_loglevel(self, session: _Session, args: dict) -> bytes:
        category, level = int(args["category"]), int(args["level"])
        # Services.cpp checks the level first and prints both with %d.
        if level > 15:
            result = f"Invalid loglevel {_int32(level)}"
        elif not 250 <= category <= 262:
            result = f"Invalid category {_int32(category - 250)}"
        else:
            self.cluster.set_cluster_loglevel(category, level)
            result = "Ok"
        return format_block("set cluster loglevel reply", [("result", result)])

    async def _set_loglevel(self, session: _Session, args: dict) -> bytes:
        level = int(args["level"])
        result = "Ok" if level <= 15 else "Invalid loglevel: "
        return format_block("set loglevel reply", [("result", result)])

    async def _set_logfilter(self, session: _Session, args: dict) -> bytes:
        severity, enable = int(args["level"]), int(args["enable"])
        f = self.cluster.log_filter
        if severity in f:
            if enable >= 0x80000000:
                f[severity] = 0 if f[severity] else 1
            else:
                f[severity] = 1 if enable > 0 else 0
            state = f[severity]
        else:
            state = 0
        return format_block("set logfilter reply", [("result", state)])

    async def _restart(self, session: _Session, args: dict, version: int) -> bytes:
        ids = _node_ids(str(args["node"]))
        outcome = self.cluster.restart_nodes(
            ids,
            initial=bool(args.get("initialstart", 0)),
            nostart=bool(args.get("nostart", 0)),
            abort=bool(args.get("abort", 0)),
            force=bool(args.get("force", 0)),
        )
        count, error = await self._complete(outcome)
        fields: list[tuple[str, object]] = [
            ("result", "Ok" if error is None else f"{error[0]}-{error[1]}"),
            ("restarted", count),
        ]
        if version > 1:
            fields.append(("disconnect", 0))
        return format_block("restart reply", fields)

    async def _restart_v1(self, session: _Session, args: dict) -> bytes:
        return await self._restart(session, args, 1)

    async def _restart_v2(self, session: _Session, args: dict) -> bytes:
        return await self._restart(session, args, 2)

    async def _restart_all(self, session: _Session, args: dict) -> bytes:
        outcome = self.cluster.restart_all(
            initial=bool(args.get("initialstart", 0)),
            nostart=bool(args.get("nostart", 0)),
            abort=bool(args.get("abort", 0)),
        )
        count, error = await self._complete(outcome)
        # Services.cpp restartAll prints the text without the code, unlike restart.
        result = "Ok" if error is None else error[1]
        return format_block("restart reply", [("result", result), ("restarted", count)])

    async def _stop(self, session: _Session, args: dict, version: int) -> bytes:
        ids = _node_ids(str(args["node"]))
        if not ids:
            return format_block("stop reply", [("result", "empty node list")])
        outcome = self.cluster.stop_nodes(
            ids, abort=bool(args.get("abort", 0)), force=bool(args.get("force", 0))
        )
        count, error = await self._complete(outcome)
        fields: list[tuple[str, object]] = [
            ("result", "Ok" if error is None else error[1]),
            ("stopped", count),
        ]
        if version > 1:
            fields.append(("disconnect", 0))
        return format_block("stop reply", fields)

    async def _stop_v1(self, session: _Session, args: dict) -> bytes:
        return await self._stop(session, args, 1)

    async def _stop_v2(self, session: _Session, args: dict) -> bytes:
        return await self._stop(session, args, 2)

    async def _stop_all(self, session: _Session, args: dict) -> bytes:
        tostop = str(args.get("stop", "db"))
        count, error = 0, None
        if "db" in tostop:
            count, error = await self._complete(self.cluster.stop_all(abort=bool(args["abort"])))
        fields: list[tuple[str, object]] = [
            ("result", "Ok" if error is None else error[1]),
            ("stopped", count),
        ]
        if "stop" in args:
            fields.append(("disconnect", 1 if "mgm" in tostop else 0))
        return format_block("stop reply", fields)

    async def _start(self, session: _Session, args: dict) -> bytes:
        outcome = self.cluster.start_node(int(args["node"]))
        result = "Ok" if outcome.ok else outcome.error[1]  # type: ignore[index]
        return format_block("start reply", [("result", result)])

    async def _start_all(self, session: _Session, args: dict) -> bytes:
        outcome = self.cluster.start_all()
        return format_block("start reply", [("result", "Ok"), ("started", len(outcome.nodes))])

    async def _enter_single_user(self, session: _Session, args: dict) -> bytes:
        outcome = self.cluster.enter_single_user(int(args["nodeId"]))
        result = "Ok" if outcome.ok else outcome.error[1]  # type: ignore[index]
        return format_block("enter single user reply", [("result", result)])

    async def _exit_single_user(self, session: _Session, args: dict) -> bytes:
        self.cluster.exit_single_user()
        return format_block("exit single user reply", [("result", "Ok")])

    async def _dump_events(self, session: _Session, args: dict) -> bytes:
        event_type = int(args["type"])
        if event_type not in (50, 62, 81):
            return format_block(
                "dump events reply", [("result", f"ndb_logevent_type {event_type} not supported")]
            )
        wanted: set[int] | None = None
        if "nodes" in args:
            text = str(args["nodes"])
            try:
                wanted = {int(p) for p in text.split(",") if p.strip()}
            except ValueError:
                return format_block("dump events reply", [("result", f"invalid nodes: '{text}'")])
        blocks: list[bytes] = []
        for node in self.cluster.data_nodes.values():
            if not node.serving or (wanted is not None and node.node_id not in wanted):
                continue
            if event_type == 50:
                for words in self.cluster.memory_usage_words(node):
                    blocks.append(encode_parsable(50, node.node_id, words))
            elif event_type == 62:
                words = self.cluster.backups.status_words(node)
                blocks.append(encode_parsable(62, node.node_id, words))
        head = format_block("dump events reply", [("result", "Ok"), ("events", len(blocks))])
        return head + b"".join(blocks)

    async def _dump_state(self, session: _Session, args: dict) -> bytes:
        node_id = int(args["node"])
        words = str(args["args"]).split()
        node = self.cluster.data_nodes.get(node_id)
        if node is None or not node.alive:
            result = ec.ndb_error_string(ec.NO_CONTACT_WITH_PROCESS)
        elif len(words) > 25 or any(len(w) > 12 for w in words):
            result = ec.UNKNOWN_ERROR_TEXT
        else:
            if words and words[0] == "1000" and node.state == STARTED:
                for w in self.cluster.memory_usage_words(node):
                    self.cluster.emit(50, node_id, *w)
            result = "Ok"
        return format_block("dump state reply", [("result", result)])

    async def _start_backup(self, session: _Session, args: dict) -> bytes:
        # MgmtSrvr::startBackup: completed 0 answers once the request is sent, 1 once the
        # backup started, 2 once it ended; an abort while waiting answers its reason.
        completed = int(args.get("completed", 2))
        backups = self.cluster.backups
        error, backup_id = backups.start(self.node_id, int(args.get("backupid", 0)) or None)
        if error is None and completed:
            def ready() -> bool:
                if completed == 1 and backups.has_started(backup_id):
                    return True
                return backups.outcome(backup_id) is not None

            await self.runtime.wait_for(ready, BACKUP_WAIT_LIMIT)
            outcome = backups.outcome(backup_id)
            if outcome is not None and outcome[0] == "aborted":
                error = outcome[1]
        if error is not None:
            return format_block("start backup reply", [("result", ec.ndb_error_string(error))])
        fields: list[tuple[str, object]] = [("result", "Ok")]
        if completed:
            fields.append(("id", backup_id))
        return format_block("start backup reply", fields)

    async def _abort_backup(self, session: _Session, args: dict) -> bytes:
        error = self.cluster.backups.abort(int(args["id"]))
        result = "Ok" if error is None else ec.ndb_error_string(error)
        return format_block("abort backup reply", [("result", result)])

    async def _report_event(self, session: _Session, args: dict) -> bytes:
        words = [int(w) & 0xFFFFFFFF for w in str(args["data"]).split()]
        if words:
            header = words[0]
            self.cluster.emit(header & 0xFFFF, header >> 16, *words[1:])
        return format_block("report event reply", [("result", "ok")])

    async def _create_nodegroup(self, session: _Session, args: dict) -> bytes:
        group = self.cluster.create_nodegroup(_node_ids(str(args["nodes"])))
        return format_block("create nodegroup reply", [("ng", group), ("result", "Ok")])

    async def _start_tls(self, session: _Session) -> bool:
        """``start tls``: reply, then the server side of the handshake on the same socket.

        True (session over) when the handshake fails, as the real server drops it.
        """
        if session.tls:
            reply = format_block("start tls reply", [("result", "Already Connected")])
            await self._send(session, reply)
            return False
        if self.tls is None or not hasattr(session.writer, "start_tls"):  # 3.11+
            await self._send(session, format_block("start tls reply", [("result", "Failed")]))
            return False
        await self._send(session, format_block("start tls reply", [("result", "Ok")]))
        try:
            await session.writer.start_tls(self.tls, ssl_handshake_timeout=SOCKET_TIMEOUT)
        except (ssl.SSLError, OSError, asyncio.TimeoutError):
            return True
        session.tls = True
        return False

    async def _get_session(self, session: _Session, args: dict) -> bytes:
        return format_block("get session reply", [("id", 0)])

    async def _list_sessions(self, session: _Session, args: dict) -> bytes:
        return b"\n"

    async def _purge_stale_sessions(self, session: _Session, args: dict) -> bytes:
        return format_block("purge stale sessions reply", [("result", "Ok")])

    async def _complete(self, outcome: ControlOutcome) -> tuple[int, tuple[int, str] | None]:
        """Wait as MgmtSrvr::restartNodes/restartDB (or a stop) does before replying.

        A restart waits 12 s for the nodes to leave STARTED (else 5024), then
        up to 120 s for them to reach NOT_STARTED (else 5025); the count of
        nodes stopped stands in both cases. A stop waits for the nodes to stop.
        """
        if outcome.error is not None:
            return 0, outcome.error
        count = len(outcome.nodes)
        wait = self.runtime.wait_for
        if outcome.left_started is not None:
            if not await wait(outcome.left_started, LEAVE_STARTED_WAIT):
                code = ec.WAIT_FOR_NDBD_TO_START_SHUTDOWN_FAILED
                return count, (code, ec.ndb_error_string(code))
            if outcome.done is not None and not await wait(outcome.done, NOT_STARTED_WAIT):
                code = ec.WAIT_FOR_NDBD_SHUTDOWN_FAILED
                return count, (code, ec.ndb_error_string(code))
        elif outcome.done is not None:
            await wait(outcome.done, STOP_WAIT)
        return count, None

    # Event listeners

    async def _listen(
        self, session: _Session, request: Request, reader: asyncio.StreamReader
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
        session: _Session,
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


def _node_ids(text: str) -> tuple[int, ...]:
    """Node ids of a ``node``/``nodes`` argument, read with ``atoi`` as the server does."""
    return tuple(c_atoi(part) for part in text.split())


def _int32(value: int) -> int:
    """An unsigned 32-bit value as ``%d`` prints it."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


_Handler = Callable[[MgmdServer, _Session, dict], Awaitable[bytes]]
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
    "get config": MgmdServer._get_config_v1,
    "get config_v2": MgmdServer._get_config_v2,
    "get info clusterlog": MgmdServer._get_info_clusterlog,
    "get cluster loglevel": MgmdServer._get_cluster_loglevel,
    "set cluster loglevel": MgmdServer._set_cluster_loglevel,
    "set loglevel": MgmdServer._set_loglevel,
    "set logfilter": MgmdServer._set_logfilter,
    "restart node": MgmdServer._restart_v1,
    "restart node v2": MgmdServer._restart_v2,
    "restart all": MgmdServer._restart_all,
    "stop": MgmdServer._stop_v1,
    "stop v2": MgmdServer._stop_v2,
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

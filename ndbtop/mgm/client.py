"""Asyncio client for ndb_mgmd: the commands ndbtop uses, with typed results.

The client keeps one session open. Like mgmapi, an established session never
fails over by itself: when a call fails the session is closed and the next call
connects again, trying the connect string's servers in order. Read-only calls
that fail on a session that was already open are retried once on a fresh
connection (the server may have restarted in between); commands that change the
cluster are never retried.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndbtop.compat import AsyncLock
from ndbtop.errors import (
    MgmAuthError,
    MgmCommandError,
    MgmDisconnected,
    MgmError,
    MgmParserError,
    MgmProtocolError,
    MgmTimeout,
)
from ndbtop.mgm.config_fetch import ConfigUnavailable, config_command, fetch_config
from ndbtop.mgm.connectstring import ConnectString, MgmAddress
from ndbtop.mgm.replies import (
    CLUSTER_LOGLEVEL_NAMES,
    SEVERITY_NAMES,
    NodeControlResult,
    ServerVersion,
    backup_request_args,
    control_result,
    expect_header,
    expect_ok,
    node_list,
    parse_version,
    read_event_blocks,
)
from ndbtop.mgm.session import Deadline, MgmSession, open_first
from ndbtop.mgm.starttls import negotiate_tls
from ndbtop.mgm.status import NodeStatus, StatusCache, parse_status_reply
from ndbtop.mgm.tls import TlsOptions
from ndbtop.mgm.version import make_version
from ndbtop.mgm.wire import RawEvent, Reply

CONNECT_TIMEOUT = 3.0
CALL_TIMEOUT = 5.0
SLOW_CALL_TIMEOUT = 300.0
"""Stop and restart replies come only after the nodes stopped (mgmapi allows 5 minutes)."""
BACKUP_WAIT_COMPLETED_TIMEOUT = 48 * 3600.0
"""``start backup`` with ``completed: 2`` replies when the backup ends (mgmapi: 48 hours)."""
BACKUP_WAIT_STARTED_TIMEOUT = 600.0
"""``start backup`` with ``completed: 1`` replies when it started (mgmapi: 10 minutes)."""

CLIENT_VERSION = (8, 4, 3)
"""The version announced with ``set clientversion`` (>= 8.0.22 unlocks ``is_single_user``)."""

class MgmClient:
    """A management-server client over one connect string."""

    def __init__(
        self,
        connectstring: ConnectString,
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        timeout: float = CALL_TIMEOUT,
        tls: TlsOptions | None = None,
    ) -> None:
        self.connectstring = connectstring
        self.tls = tls or connectstring.tls
        self.cleartext_reason = ""
        """Why the open session is not TLS (empty when it is, or before connecting)."""
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self._session: MgmSession | None = None
        self._lock = AsyncLock()
        self.server_version: ServerVersion | None = None
        self.dropped: tuple[str, ...] = ()
        """What the last ``get status`` held outside the protocol's ranges, left out."""
        self.unavailable: dict[str, str] = {}
        """Parts of the handshake the server answered in a way ndbtop cannot use, with
        why: the session goes on without them (only ``get status`` is essential)."""
        self._status_cache: dict[tuple[str, ...], StatusCache] = {}
        self._status_replies: dict[
            tuple[str, ...], tuple[Reply, tuple[NodeStatus, ...], tuple[str, ...]]
        ] = {}
        """The last ``get status`` reply for each set of types, its nodes and what it held
        outside the protocol's ranges."""
        self.sessions_opened = 0
        """Sessions opened so far: a change tells a reconnect (or a failover) apart."""
        self.config_command = ""
        """The command the last configuration was read with (``get config_v2`` or ``get
        config``), empty before one was read."""

    @property
    def address(self) -> MgmAddress | None:
        """The management server of the open session, if any."""
        s = self._session
        return s.address if s is not None and not s.closed else None

    async def connect(self) -> MgmAddress:
        """Open a session (first server that accepts) and announce the client version."""
        async with self._lock:
            await self._ensure_session()
        assert self._session is not None
        return self._session.address

    async def _ensure_session(self) -> MgmSession:
        if self._session is not None and not self._session.closed:
            return self._session
        session = await open_first(self.connectstring.addresses, self.connect_timeout)
        unavailable: dict[str, str] = {}
        version: ServerVersion | None = None
        # The handshake's requests share one deadline: the session is usable in that time.
        end = Deadline(self.timeout)
        try:
            # A reply ndbtop cannot read (another version, a fork) loses what it tells,
            # not the session: it was read whole, the session is still in step.
            try:
                version = parse_version(await session.request("get version", [], end))
            except (MgmProtocolError, MgmCommandError) as exc:
                if session.closed:
                    raise
                unavailable["server version"] = str(exc)
            if version is not None and (version.major, version.minor, version.build) >= (
                8, 0, 20,
            ):
                major, minor, build = CLIENT_VERSION
                reply = await session.request(
                    "set clientversion",
                    [("major", major), ("minor", minor), ("build", build)],
                    end,
                )
                try:
                    expect_ok(reply, "set clientversion reply", "set clientversion")
                except (MgmProtocolError, MgmCommandError) as exc:
                    unavailable["client version"] = str(exc)
            self.cleartext_reason = await negotiate_tls(session, version, self.tls, end)
        except BaseException:
            await session.aclose()
            raise
        self._session = session
        self.server_version = version
        self.unavailable = unavailable
        self.sessions_opened += 1
        return session

    async def close(self) -> None:
        """Close the session."""
        session, self._session = self._session, None
        if session is not None:
            await session.aclose()

    async def _call(
        self,
        command: str,
        args: list[tuple[str, str | int]] | None = None,
        *,
        timeout: float | None = None,
        retry: bool = True,
    ) -> Reply:
        """Run one command; with ``retry``, once more on a new session if the old one was stale."""
        async with self._lock:
            reused = self._session is not None and not self._session.closed
            session = await self._ensure_session()
            try:
                try:
                    return await session.request(command, args or [], timeout or self.timeout)
                except (MgmDisconnected, MgmTimeout, MgmProtocolError):
                    if not (retry and reused):
                        raise
                session = await self._ensure_session()
                return await session.request(command, args or [], timeout or self.timeout)
            except MgmAuthError as exc:
                raise self._auth_error(exc) from None

    def _auth_error(self, exc: MgmAuthError) -> MgmError:
        """``Requires TLS`` with the reason this session is in cleartext."""
        if exc.reason != "Requires TLS" or not self.cleartext_reason:
            return exc
        return MgmAuthError(exc.reason, f"in cleartext because {self.cleartext_reason}")

    # Session and identity

    async def get_version(self) -> ServerVersion:
        """``get version``."""
        version = parse_version(await self._call("get version"))
        self.server_version = version
        return version

    async def check_connection(self) -> None:
        """``check connection``: raises unless the server answers ``result: Ok``."""
        expect_ok(
            await self._call("check connection"), "check connection reply", "check connection"
        )

    async def get_mgmd_nodeid(self) -> int:
        """``get mgmd nodeid``: the node id of the connected management server."""
        reply = await self._call("get mgmd nodeid")
        expect_header(reply, "get mgmd nodeid reply")
        return reply.require_int("nodeid")

    # Status

    async def get_status(self, types: Sequence[str] | None = None) -> tuple[NodeStatus, ...]:
        """``get status``: every configured node of the given types (all types by default)."""
        args: list[tuple[str, str | int]] = []
        if types:
            args.append(("types", " ".join(types)))
        kind = tuple(types or ())
        cache = self._status_cache.setdefault(kind, {})
        reply = await self._call("get status", args)
        # A cluster at rest answers the very same lines at every refresh: they are compared
        # rather than decoded again, and the nodes are the same tuple as last time.
        last = self._status_replies.get(kind)
        if last is not None and last[0] == reply:
            self.dropped = last[2]
            return last[1]
        dropped: list[str] = []
        nodes = parse_status_reply(reply, cache, dropped)
        self.dropped = tuple(dropped)
        self._status_replies[kind] = (reply, nodes, self.dropped)
        return nodes

    # Configuration

    async def get_config_blob(self, from_node: int = 0) -> bytes:
        """The packed cluster configuration, with the command the real client uses for this
        server (``get config_v2`` from 8.0.18, ``get config`` before, and after ``Unknown
        command``); with ``from_node``, the configuration that data node runs. Decode it
        with :func:`ndbtop.model.config_decode.config_from_blob`.

        Raises :class:`ConfigUnavailable` with a one-line reason when the server
        refuses or sends something that is not a configuration.
        """
        client_version = make_version(*CLIENT_VERSION)
        async with self._lock:
            session = await self._ensure_session()
            version = self.server_version.id if self.server_version else None
            command = config_command(version)
            while True:
                try:
                    blob = await fetch_config(session, command, client_version, self.timeout,
                                              from_node)
                    self.config_command = command
                    return blob
                except MgmParserError as exc:
                    if exc.message != "Unknown command":
                        raise ConfigUnavailable(f"configuration unavailable: {exc}") from None
                    if command == "get config":
                        raise ConfigUnavailable("configuration unavailable: the management "
                                                "server knows no get config command") from None
                command = "get config"
                session = await self._ensure_session()

    # Node control (never retried)

    async def restart_nodes(
        self,
        node_ids: Sequence[int],
        *,
        initial: bool = False,
        nostart: bool = False,
        abort: bool = False,
        force: bool = False,
    ) -> NodeControlResult:
        """``restart node v2`` (``N RESTART [-i] [-n] [-a] [-f]``)."""
        args: list[tuple[str, str | int]] = [
            ("node", node_list(node_ids)),
            ("abort", int(abort)),
            ("initialstart", int(initial)),
            ("nostart", int(nostart)),
            ("force", int(force)),
        ]
        reply = await self._call("restart node v2", args, timeout=SLOW_CALL_TIMEOUT, retry=False)
        return control_result(reply, "restart reply", "restart", "restarted", node_ids)

    async def stop_nodes(
        self, node_ids: Sequence[int], *, abort: bool = False, force: bool = False
    ) -> NodeControlResult:
        """``stop v2`` (``N STOP [-a] [-f]``)."""
        args: list[tuple[str, str | int]] = [
            ("node", node_list(node_ids)),
            ("abort", int(abort)),
            ("force", int(force)),
        ]
        reply = await self._call("stop v2", args, timeout=SLOW_CALL_TIMEOUT, retry=False)
        return control_result(reply, "stop reply", "stop", "stopped", node_ids)

    async def start_node(self, node_id: int) -> NodeControlResult:
        """``start`` (``N START``): start a data node left NOT_STARTED."""
        node_list([node_id])
        reply = await self._call("start", [("node", node_id)], retry=False)
        return control_result(reply, "start reply", "start", None, [node_id])

    # Log levels

    async def set_cluster_loglevel(self, node_id: int, category: int, level: int) -> None:
        """``set cluster loglevel`` (what ``N CLUSTERLOG CAT=LEVEL`` sends)."""
        args: list[tuple[str, str | int]] = [
            ("node", node_id),
            ("category", category),
            ("level", level),
        ]
        reply = await self._call("set cluster loglevel", args, retry=False)
        expect_ok(reply, "set cluster loglevel reply", "set cluster loglevel", (node_id,))

    async def get_cluster_loglevel(self) -> dict[str, int]:
        """``get cluster loglevel``: level per category name (``startup`` ... ``schema``)."""
        reply = await self._call("get cluster loglevel")
        expect_header(reply, "get cluster loglevel")
        return {k: reply.require_int(k) for k, _ in reply.fields}

    async def get_info_clusterlog(self) -> dict[str, int]:
        """``get info clusterlog``: the severity filter (``enabled``, ``debug`` ... ``alert``)."""
        reply = await self._call("get info clusterlog")
        expect_header(reply, "clusterlog")
        return {k: reply.require_int(k) for k, _ in reply.fields}

    async def set_logfilter(self, severity: int, enable: int) -> bool:
        """``set logfilter`` (``CLUSTERLOG ON|OFF|TOGGLE``): ``enable`` 1, 0, or 4294967295
        to toggle; returns the severity's new state (the reply's ``result`` is 1 or 0)."""
        args: list[tuple[str, str | int]] = [("level", severity), ("enable", enable)]
        reply = await self._call("set logfilter", args, retry=False)
        expect_header(reply, "set logfilter reply")
        result = reply.require("result")
        if result not in ("0", "1"):
            raise MgmCommandError("set logfilter", result, ())
        return result == "1"

    # Single-user mode (never retried)

    async def enter_single_user(self, api_id: int) -> None:
        """``enter single user`` (``ENTER SINGLE USER MODE N``)."""
        reply = await self._call("enter single user", [("nodeId", api_id)], retry=False)
        expect_ok(reply, "enter single user reply", "enter single user", (api_id,))

    async def exit_single_user(self) -> None:
        """``exit single user`` (``EXIT SINGLE USER MODE``)."""
        reply = await self._call("exit single user", retry=False)
        expect_ok(reply, "exit single user reply", "exit single user")

    # Backups (never retried)

    async def start_backup(
        self, *, wait: int = 2, backup_id: int | None = None, snapshot_start: bool = False
    ) -> int | None:
        """``start backup`` as mgmapi sends it; returns the backup id (None with NOWAIT).

        ``wait`` is ``completed``: 0 NOWAIT, 1 WAIT STARTED, 2 WAIT COMPLETED (the reply
        comes when the backup ends). ``backuppoint`` is 1 for SNAPSHOTSTART, 0 (the end)
        otherwise. A refusal or an abort raises :class:`MgmCommandError` with the
        server's text.
        """
        timeout = {2: BACKUP_WAIT_COMPLETED_TIMEOUT, 1: BACKUP_WAIT_STARTED_TIMEOUT}.get(wait)
        reply = await self._call(
            "start backup",
            backup_request_args(wait, backup_id, snapshot_start),
            timeout=timeout,
            retry=False,
        )
        expect_ok(reply, "start backup reply", "start backup")
        return reply.require_int("id") if wait else None

    async def abort_backup(self, backup_id: int) -> None:
        """``abort backup``: the server orders the abort and answers at once (``Ok`` even
        for an id that is not running); the end arrives as BackupAborted."""
        reply = await self._call("abort backup", [("id", backup_id)], retry=False)
        expect_ok(reply, "abort backup reply", "abort backup")

    # Reports

    async def dump_events(
        self, event_type: int, node_ids: Sequence[int] | None = None
    ) -> tuple[RawEvent, ...]:
        """``dump events`` (``REPORT MEMORY`` is type 50): the event blocks the nodes report,
        the reply and every block within the call's timeout."""
        args: list[tuple[str, str | int]] = [("type", event_type)]
        if node_ids:
            args.append(("nodes", ",".join(str(n) for n in node_ids)))
        async with self._lock:
            session = await self._ensure_session()
            # The reply and its event blocks are one exchange: one deadline for both.
            end = Deadline(self.timeout)
            reply = await session.request("dump events", args, end)
            expect_ok(reply, "dump events reply", "dump events", tuple(node_ids or ()))
            try:
                count = reply.require_int("events")
            except MgmProtocolError:
                session.close()
                raise
            return await read_event_blocks(session, count, end)


__all__ = [
    "CLUSTER_LOGLEVEL_NAMES",
    "SEVERITY_NAMES",
    "ConfigUnavailable",
    "MgmClient",
    "MgmError",
    "NodeControlResult",
    "ServerVersion",
    "backup_request_args",
]

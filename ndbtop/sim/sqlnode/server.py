"""The simulated SQL node's listener: one asyncio server speaking the MySQL protocol."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Optional

from mysql_mimic.constants import DEFAULT_SERVER_CAPABILITIES
from mysql_mimic.control import LocalControl
from mysql_mimic.stream import MysqlStream

from ndbtop.aio import cancel_and_wait
from ndbtop.sim.sqlnode.protocol import (
    Account,
    Accounts,
    DescribedResults,
    SqlNodeConnection,
    client_host,
)
from ndbtop.sim.sqlnode.provider import NdbinfoProvider
from ndbtop.sim.sqlnode.replication_show import side_of
from ndbtop.sim.sqlnode.session import NdbinfoSession, SqlNodeState
from ndbtop.sim.sqlnode.stats import SqlNodeStats, StatsRecorder
from ndbtop.sim.sqlnode.variables import ServerVariables, variable_schema

logger = logging.getLogger(__name__)

# mysql-mimic logs every error it sends a client; without a handler of its own
# those records would reach stderr through logging's last-resort handler and
# garble a terminal UI running the simulator.
logging.getLogger("mysql_mimic").addHandler(logging.NullHandler())

UserSpec = tuple[str, Optional[Iterable[str]]]
"""``(password, tables the account may read or None for all)``."""

DEFAULT_USERS: Mapping[str, UserSpec] = {"root": ("", None)}


class SqlNodeServer:
    """A running simulated SQL node. Stop it with :meth:`close` (or ``async with``)."""

    def __init__(self, state: SqlNodeState, control: LocalControl) -> None:
        self._state = state
        self._control = control
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.stall = False
        """When set, the SQL node accepts connections but answers nothing (a hung server):
        a new client gets no greeting, a statement or ping no reply. As with the simulated
        ndb_mgmd, a request that arrived during a stall stays unanswered after it is lifted;
        new connections are served again."""

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def host(self) -> str:
        """The address the server listens on."""
        assert self._server is not None
        return str(self._server.sockets[0].getsockname()[0])

    @property
    def stats(self) -> SqlNodeStats:
        """Counters of connections, statements, errors and table scans so far."""
        return self._state.stats.snapshot()

    @property
    def offline(self) -> bool:
        """``@@global.ndbinfo_offline``: when on, every table returns no rows."""
        return bool(self._state.variables.get_variable("ndbinfo_offline"))

    @offline.setter
    def offline(self, value: bool) -> None:
        self._state.variables.set("ndbinfo_offline", bool(value))

    async def _listen(self, host: str, port: int, sock: socket.socket | None = None) -> None:
        if sock is not None:
            self._server = await asyncio.start_server(self._serve_client, sock=sock)
        else:
            self._server = await asyncio.start_server(self._serve_client, host=host, port=port)

    async def _serve_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        self._writers.add(writer)
        if self.stall:
            # Accepted but never greeted, until close() cancels the task. The task ends
            # normally: asyncio's stream callback logs an error for a cancelled one.
            with contextlib.suppress(asyncio.CancelledError):
                await _never()
            self._writers.discard(writer)
            writer.close()
            return
        self._state.stats.connections += 1
        host = client_host(writer.get_extra_info("peername"))
        described = DescribedResults()
        connection = SqlNodeConnection(
            stream=MysqlStream(reader, writer),
            session=NdbinfoSession(self._state, described),
            control=self._control,
            identity_provider=Accounts(self._state.accounts, host),
            server_capabilities=DEFAULT_SERVER_CAPABILITIES,
            client_host=host,
            described=described,
            stalled=lambda: self.stall,
        )
        connection_id = await self._control.add(connection)
        connection.connection_id = connection_id
        try:
            await connection.start()
        except (ConnectionError, asyncio.IncompleteReadError) as e:
            logger.debug("client connection %d ended: %s", connection_id, e)
        except asyncio.CancelledError:
            logger.debug("client connection %d dropped by close()", connection_id)
        except Exception:
            logger.exception("client connection %d failed", connection_id)
        finally:
            self._writers.discard(writer)
            writer.close()
            await self._control.remove(connection_id)

    async def close(self) -> None:
        """Stop listening and drop every client connection."""
        if self._server is None:
            return
        self._server.close()
        for writer in list(self._writers):
            writer.close()
        # A client left hanging by a stall ends only when cancelled.
        await cancel_and_wait(self._tasks)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._server.wait_closed(), timeout=5)
        self._server = None

    async def __aenter__(self) -> SqlNodeServer:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


async def _never() -> None:
    """Wait until cancelled: what a client of a stalled server gets."""
    await asyncio.Event().wait()


def _accounts(users: Mapping[str, UserSpec]) -> dict[str, Account]:
    return {
        name: Account(password, None if tables is None else frozenset(tables))
        for name, (password, tables) in users.items()
    }


async def start_sql_node(
    provider: NdbinfoProvider,
    host: str = "127.0.0.1",
    port: int = 0,
    users: Mapping[str, UserSpec] | None = None,
    sock: socket.socket | None = None,
) -> SqlNodeServer:
    """Start a simulated SQL node serving ``ndbinfo`` from ``provider``.

    ``port`` 0 picks a free port (read it back from :attr:`SqlNodeServer.port`).
    ``users`` maps account names to ``(password, tables)``, where ``tables`` is
    the set of ``ndbinfo`` tables the account may read, or ``None`` for
    ``GRANT SELECT ON ndbinfo.*``; it replaces the default, a ``root`` account
    without password. A view missing from the set fails as a view whose base
    tables are not granted (ERROR 1356), a base table with ERROR 1142. ``sock``, a
    listening socket, is served instead of opening one on ``host``:``port``.
    """
    side = side_of(provider)
    binlog = {"server_id": side.server_id, "log_bin": side.log_bin} if side else {}
    state = SqlNodeState(
        provider=provider,
        accounts=_accounts(DEFAULT_USERS if users is None else users),
        variables=ServerVariables(variable_schema(provider.ndb_version, **binlog)),
        stats=StatsRecorder(),
    )
    server = SqlNodeServer(state, LocalControl())
    await server._listen(host, port, sock)
    return server

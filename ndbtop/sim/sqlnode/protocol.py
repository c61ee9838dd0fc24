"""The parts of the MySQL wire protocol the simulator sends differently from mysql-mimic.

mysql-mimic describes every result column by type only; a real server also
sends the UNSIGNED flag, the number of decimals, the column length and where
the column comes from, and clients (and the ``mysql`` command line) show or use
them. It also knows only a few SQLSTATEs, reports no warning counts and words
a refused login its own way. :class:`SqlNodeConnection` fills those gaps.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mysql_mimic import packets, utils
from mysql_mimic.auth import (
    AuthInfo,
    AuthState,
    Forbidden,
    IdentityProvider,
    NativePasswordAuthPlugin,
    Success,
    User,
)
from mysql_mimic.charset import CharacterSet
from mysql_mimic.connection import Connection
from mysql_mimic.results import ResultColumn, ResultSet
from mysql_mimic.types import Capabilities, ColumnDefinition, ColumnType

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.sim.sqlnode.errors import access_denied, sqlstate
from ndbtop.sim.sqlnode.sqltypes import SqlType, wire_column

_NO_PASSWORD_CAN_MATCH = "00" * 20


@dataclass(frozen=True, **SLOTS)
class Account:
    """A MySQL account: its password and the ``ndbinfo`` tables it may read (None: all)."""

    password: str = ""
    tables: frozenset[str] | None = None


@dataclass(frozen=True, **SLOTS)
class ColumnOrigin:
    """Column definition details besides the type: source table and column names."""

    schema: str = ""
    table: str = ""
    org_table: str = ""
    org_name: str = ""


@dataclass(frozen=True, **SLOTS)
class ResultMeta:
    """Full MySQL metadata of a result set's columns, beyond what mysql-mimic keeps."""

    types: tuple[SqlType, ...]
    origins: tuple[ColumnOrigin, ...] = ()


class DescribedResults:
    """Remembers the metadata of the result set a session is about to return.

    mysql-mimic's result sets cannot carry extra attributes, so the session
    registers the metadata here, keyed by the result set object, and the
    connection collects it when it writes that very result set.
    """

    def __init__(self) -> None:
        self._pending: tuple[ResultSet, ResultMeta] | None = None

    def describe(self, result_set: ResultSet, meta: ResultMeta) -> ResultSet:
        """Register ``meta`` for ``result_set`` and return the result set."""
        self._pending = (result_set, meta)
        return result_set

    def collect(self, result_set: ResultSet) -> ResultMeta | None:
        """The metadata registered for ``result_set``, if it is the pending one."""
        pending, self._pending = self._pending, None
        if pending is not None and pending[0] is result_set:
            return pending[1]
        return None


def result_column(name: str, column_type: SqlType) -> ResultColumn:
    """The mysql-mimic column used to encode values of ``column_type``."""
    wire = wire_column(column_type)
    charset = CharacterSet.binary if wire.binary_charset else CharacterSet.utf8mb4
    column = ResultColumn(name=name, type=wire.column_type, character_set=charset)
    if wire.binary_charset:
        # Numbers are sent as ASCII text; "binary" only labels the column.
        column.codec = "ascii"
    return column


def client_host(peername: object) -> str:
    """The host part of ``'user'@'host'`` for a client at ``peername``."""
    if isinstance(peername, tuple) and peername:
        try:
            address = ipaddress.ip_address(str(peername[0]))
        except ValueError:
            return str(peername[0])
        return "localhost" if address.is_loopback else str(address)
    return "localhost"


class _NativePassword(NativePasswordAuthPlugin):
    """``mysql_native_password`` refusing logins with MySQL's own ERROR 1045 text."""

    def __init__(self, host: str) -> None:
        self.host = host

    async def auth(self, auth_info: AuthInfo | None = None) -> AuthState:
        if (
            auth_info
            and auth_info.handshake_plugin_name == self.name
            and auth_info.handshake_auth_data
        ):
            nonce = auth_info.handshake_auth_data.rstrip(b"\x00")
        else:
            nonce = utils.nonce(20)
            auth_info = yield nonce + b"\x00"
        assert auth_info is not None
        if self.password_matches(user=auth_info.user, scramble=auth_info.data, nonce=nonce):
            yield Success(auth_info.user.name)
        else:
            yield Forbidden(access_denied(auth_info.username, self.host, bool(auth_info.data)))


class Accounts(IdentityProvider):
    """The accounts of one SQL node, as seen by a client connecting from ``host``."""

    def __init__(self, accounts: Mapping[str, Account], host: str) -> None:
        self._accounts = accounts
        self._plugin = _NativePassword(host)

    def get_plugins(self) -> Sequence[_NativePassword]:
        """Only ``mysql_native_password``, which pymysql and the ``mysql`` client speak."""
        return [self._plugin]

    async def get_user(self, username: str) -> User | None:
        """The account, or one no password opens, so an unknown user gets ERROR 1045 too."""
        account = self._accounts.get(username)
        if account is None:
            auth_string: str | None = _NO_PASSWORD_CAN_MATCH
        elif account.password:
            auth_string = NativePasswordAuthPlugin.create_auth_string(account.password)
        else:
            auth_string = None
        return User(name=username, auth_string=auth_string, auth_plugin=self._plugin.name)


class SqlNodeConnection(Connection):
    """A mysql-mimic connection sending full column metadata, SQLSTATEs and warnings.

    While ``stalled()`` is true, statements and pings get no answer at all.
    """

    def __init__(
        self,
        *args: Any,
        client_host: str = "localhost",
        described: DescribedResults | None = None,
        stalled: Callable[[], bool] = lambda: False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.client_host = client_host
        self.described = described or DescribedResults()
        self.stalled = stalled

    async def _hang_if_stalled(self) -> None:
        if self.stalled():
            await asyncio.Event().wait()

    async def handle_query(self, data: bytes) -> None:
        """COM_QUERY, unless the server is stalled."""
        await self._hang_if_stalled()
        await super().handle_query(data)

    async def handle_ping(self, data: bytes) -> None:
        """COM_PING, unless the server is stalled."""
        await self._hang_if_stalled()
        await super().handle_ping(data)

    def error(self, **kwargs: Any) -> bytes:
        """An ERR packet with the SQLSTATE MySQL uses for the code."""
        code = int(kwargs.get("code", 1105))
        message = str(kwargs.get("msg", ""))
        parts = [b"\xff", code.to_bytes(2, "little")]
        if Capabilities.CLIENT_PROTOCOL_41 in self.capabilities:
            parts += [b"#", sqlstate(code)]
        parts.append(self.server_charset.encode(message))
        return b"".join(parts)

    def _warning_count(self) -> int:
        return len(getattr(self.session, "warnings", ()))

    async def write_text_resultset(self, result_set: ResultSet) -> None:
        """The result set, with MySQL's column definitions when they are known."""
        rows = result_set.rows
        columns = result_set.columns
        meta = self.described.collect(result_set)
        if meta is None or len(meta.types) != len(columns) or not isinstance(rows, (list, tuple)):
            await super().write_text_resultset(result_set)
            return
        header = [
            packets.make_column_count(capabilities=self.capabilities, column_count=len(columns))
        ]
        origins = meta.origins or (ColumnOrigin(),) * len(columns)
        for column, column_type, origin in zip_strict(columns, meta.types, origins):
            header.append(self._definition(column, column_type, origin))
        if not self.deprecate_eof():
            header.append(self.eof(warnings=self._warning_count()))
        self.stream.write_many(header)
        self.stream.write_text_rows(rows, columns)
        await self.stream.write(
            self.ok_or_eof(affected_rows=len(rows), warnings=self._warning_count()), drain=False
        )
        await self.stream.drain()

    def _definition(
        self, column: ResultColumn, column_type: SqlType, origin: ColumnOrigin
    ) -> bytes:
        wire = wire_column(column_type)
        return packets.make_column_definition_41(
            server_charset=self.server_charset,
            schema=origin.schema,
            table=origin.table,
            org_table=origin.org_table,
            name=column.name,
            org_name=origin.org_name or column.name,
            character_set=column.character_set,
            column_length=wire.length,
            column_type=ColumnType(wire.column_type),
            flags=ColumnDefinition(wire.flags),
            decimals=wire.decimals,
        )

"""One TCP session with one management server: send a request, read its reply.

A session is owned by one task at a time (callers serialise with a lock). Any
failure that leaves the byte stream in an unknown state (timeout, closed
socket, malformed reply, or a parser error whose leftover lines the server is
still answering) closes the session; the caller decides whether to reconnect.

A timeout bounds a whole exchange, never one line: a server that sends one line a
second holds a request no longer than one that sends nothing. An exchange of several
steps (a reply then a body or event blocks) passes one :class:`Deadline` to each.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import ssl
import time
from collections import deque
from pathlib import Path

from ndbtop.compat import start_tls
from ndbtop.errors import (
    MgmAuthError,
    MgmConnectError,
    MgmDisconnected,
    MgmError,
    MgmParserError,
    MgmProtocolError,
    MgmTimeout,
    MgmTlsError,
)
from ndbtop.mgm.connectstring import MgmAddress
from ndbtop.mgm.tls import describe_ssl_error
from ndbtop.mgm.wire import (
    AuthFailureReply,
    LineBuffer,
    ParserErrorReply,
    Reply,
    ReplyParser,
    encode_request,
)

READ_CHUNK = 65536


class Deadline:
    """The end of one exchange with a server, shared by every read and write of it."""

    __slots__ = ("end", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        """The exchange's whole time, as error messages name it."""
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left (0 once past)."""
        return max(self.end - time.monotonic(), 0.0)


def deadline(timeout: float | Deadline) -> Deadline:
    """``timeout`` as a deadline from now, or the deadline given."""
    return timeout if isinstance(timeout, Deadline) else Deadline(timeout)


class MgmSession:
    """An open connection to one management server."""

    def __init__(
        self, address: MgmAddress, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.address = address
        self._reader = reader
        self._writer = writer
        self._lines = LineBuffer()
        self._pending: deque[str] = deque()
        self._bodies: dict[str, tuple[str, list[tuple[str, str]]]] = {}
        """The last body read under each reply header (see :class:`ReplyParser`)."""
        self._closed = False
        self.tls = False
        """True once the session runs over TLS."""
        self.cert_file: Path | None = None

    @classmethod
    async def open(cls, address: MgmAddress, timeout: float) -> MgmSession:
        """Connect to ``address`` within ``timeout`` seconds."""
        local = (address.bind_address, 0) if address.bind_address else None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(address.host, address.port, local_addr=local),
                timeout,
            )
        except asyncio.TimeoutError:
            raise MgmConnectError(f"{address}: connect timed out after {timeout:g} s") from None
        except socket.gaierror as exc:
            raise MgmConnectError(f"{address}: cannot resolve host ({exc.strerror})") from None
        except ValueError as exc:
            # The resolver refuses some names before any lookup (a label over 63
            # characters fails IDNA encoding).
            raise MgmConnectError(f"{address}: cannot resolve host ({exc})") from None
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc))
            raise MgmConnectError(f"{address}: {reason.lower()}") from None
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(address, reader, writer)

    @property
    def closed(self) -> bool:
        """True once the session can no longer be used."""
        return self._closed

    async def send(self, data: bytes, timeout: float | Deadline) -> None:
        """Write bytes and wait until they are handed to the kernel."""
        if self._closed:
            raise MgmDisconnected(f"{self.address}: session closed")
        try:
            self._writer.write(data)
            await asyncio.wait_for(self._writer.drain(), deadline(timeout).left())
        except asyncio.TimeoutError:
            self.close()
            raise MgmTimeout(f"{self.address}: timed out sending a request") from None
        except ssl.SSLError as exc:
            self.close()
            why = describe_ssl_error(exc, self.cert_file)
            raise MgmTlsError(f"{self.address}: {why}") from None
        except OSError as exc:
            self.close()
            raise MgmDisconnected(f"{self.address}: {exc.strerror or exc}") from None

    async def read_line(self, timeout: float | Deadline) -> str:
        """The next line from the server; closes the session on any failure."""
        if not self._pending:
            await self._fill(deadline(timeout))
        return self._pending.popleft()

    async def _fill(self, end: Deadline) -> None:
        """Read until at least one complete line is pending."""
        timeout = end.seconds
        while not self._pending:
            remaining = end.left()
            if remaining <= 0:
                self.close()
                raise MgmTimeout(f"{self.address}: no reply within {timeout:g} s")
            try:
                chunk = await asyncio.wait_for(self._reader.read(READ_CHUNK), remaining)
            except asyncio.TimeoutError:
                self.close()
                raise MgmTimeout(f"{self.address}: no reply within {timeout:g} s") from None
            except ssl.SSLError as exc:
                self.close()
                raise MgmTlsError(
                    f"{self.address}: {describe_ssl_error(exc, self.cert_file)}"
                ) from None
            except OSError as exc:
                self.close()
                raise MgmDisconnected(f"{self.address}: {exc.strerror or exc}") from None
            if not chunk:
                self.close()
                raise MgmDisconnected(f"{self.address}: connection closed by the server")
            try:
                self._pending.extend(self._lines.feed(chunk))
            except MgmProtocolError:
                self.close()
                raise

    async def request(
        self, command: str, args: list[tuple[str, str | int]], timeout: float | Deadline
    ) -> Reply:
        """Send one request and read its reply block, both within ``timeout``.

        Raises :class:`MgmParserError` (session closed: the server is now
        answering the leftover lines), :class:`MgmAuthError` (session kept),
        or a transport/protocol error (session closed).
        """
        end = deadline(timeout)
        await self.send(encode_request(command, args), end)
        reply = await self.read_reply(end)
        if isinstance(reply, ParserErrorReply):
            self.close()
            raise MgmParserError(reply.message, reply.token)
        if isinstance(reply, AuthFailureReply):
            raise MgmAuthError(reply.reason)
        return reply

    async def read_reply(
        self, timeout: float | Deadline
    ) -> Reply | ParserErrorReply | AuthFailureReply:
        """Read lines until one reply block is complete (all of it within ``timeout``)."""
        parser = ReplyParser(self._bodies)
        end = deadline(timeout)
        pending = self._pending
        while True:
            if not pending:
                await self._fill(end)
            # Every line already received is parsed without returning to the event loop.
            try:
                reply = parser.feed_from(pending)
            except MgmProtocolError:
                self.close()
                raise
            if reply is not None:
                return reply

    async def start_tls(
        self, context: ssl.SSLContext, timeout: float, cert_file: Path | None = None
    ) -> None:
        """Run the TLS handshake on this socket (after ``start tls`` was answered ``Ok``)."""
        self.cert_file = cert_file
        try:
            await asyncio.wait_for(
                start_tls(self._writer, context, ssl_handshake_timeout=timeout), timeout + 1
            )
        except asyncio.TimeoutError:
            self.close()
            raise MgmTlsError(f"{self.address}: TLS handshake timed out") from None
        except ssl.SSLError as exc:
            self.close()
            raise MgmTlsError(f"{self.address}: {describe_ssl_error(exc, cert_file)}") from None
        except (OSError, ConnectionError) as exc:
            self.close()
            raise MgmTlsError(f"{self.address}: TLS handshake failed: {exc}") from None
        self.tls = True

    async def read_counted(self, nbytes: int, timeout: float | Deadline) -> bytes:
        """Read whole lines until they hold ``nbytes`` bytes, line ends included.

        For a body sent after a reply block (``get config``); lines that would
        run past ``nbytes`` are a protocol error and close the session.
        """
        end = deadline(timeout)
        pending = self._pending
        parts: list[str] = []
        count = 0
        while count < nbytes:
            if not pending:
                try:
                    await self._fill(end)
                except MgmTimeout:
                    raise MgmTimeout(f"{self.address}: body not complete within "
                                     f"{end.seconds:g} s") from None
            line = pending.popleft()
            parts.append(line)
            count += len(line.encode()) + 1
        if count != nbytes:
            self.close()
            raise MgmProtocolError(f"body of {count} bytes where {nbytes} were announced")
        return "\n".join(parts).encode()

    def close(self) -> None:
        """Close the socket (idempotent)."""
        if not self._closed:
            self._closed = True
            with contextlib.suppress(Exception):
                self._writer.close()

    async def aclose(self) -> None:
        """Close the socket and wait for it to be released."""
        self.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._writer.wait_closed(), 1.0)


async def open_first(addresses: tuple[MgmAddress, ...], timeout: float) -> MgmSession:
    """Connect to the first address that accepts, trying them in order (mgmapi's failover)."""
    failures: list[str] = []
    for address in addresses:
        try:
            return await MgmSession.open(address, timeout)
        except MgmError as exc:
            failures.append(str(exc))
    raise MgmConnectError("cannot connect to a management server: " + "; ".join(failures))

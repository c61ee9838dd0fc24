"""``listen event``: a dedicated connection that carries the cluster's events.

After the server accepts the filter, the socket carries only ``<PING>`` lines
(about every 500 ms) and event blocks. A stream that stays silent for longer
than ``idle_timeout`` is considered dead.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Mapping

from ndbtop.errors import MgmAuthError, MgmCommandError
from ndbtop.mgm.connectstring import MgmAddress
from ndbtop.mgm.event_stream import PING, EventStreamParser, TextEventLine
from ndbtop.mgm.events.filters import format_filter
from ndbtop.mgm.replies import parse_version
from ndbtop.mgm.session import MgmSession
from ndbtop.mgm.starttls import negotiate_tls
from ndbtop.mgm.tls import TlsOptions
from ndbtop.mgm.wire import RawEvent

IDLE_TIMEOUT = 5.0
"""Seconds without a ping or event after which the stream counts as lost."""


class EventListener:
    """One ``listen event`` subscription on its own connection."""

    def __init__(
        self,
        address: MgmAddress,
        levels: Mapping[int, int],
        *,
        connect_timeout: float = 3.0,
        timeout: float = 5.0,
        idle_timeout: float = IDLE_TIMEOUT,
        tls: TlsOptions | None = None,
    ) -> None:
        self.address = address
        self.tls = tls or TlsOptions()
        self.levels = dict(levels)
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.last_ping: float | None = None
        self._session: MgmSession | None = None

    async def open(self) -> None:
        """Connect and subscribe; :class:`MgmCommandError` carries the server's refusal verbatim."""
        session = await MgmSession.open(self.address, self.connect_timeout)
        try:
            version = parse_version(await session.request("get version", [], self.timeout))
            cleartext = await negotiate_tls(session, version, self.tls, self.timeout)
            try:
                reply = await session.request(
                    "listen event",
                    [("filter", format_filter(self.levels)), ("parsable", 1)],
                    self.timeout,
                )
            except MgmAuthError as exc:
                if exc.reason != "Requires TLS" or not cleartext:
                    raise
                raise MgmAuthError(exc.reason, f"in cleartext because {cleartext}") from None
            if reply.header != "listen event":
                raise MgmCommandError("listen event", f"unexpected reply {reply.header!r}")
            if reply.get("result") != "0":
                raise MgmCommandError("listen event", reply.get("msg") or reply.get("result") or "")
        except BaseException:
            await session.aclose()
            raise
        self._session = session
        self.last_ping = time.monotonic()

    async def items(
        self, stop: Callable[[], bool] | None = None
    ) -> AsyncIterator[RawEvent | TextEventLine]:
        """Events as they arrive; pings only refresh :attr:`last_ping`.

        Ends when ``stop()`` turns true (checked after every line, pings
        included), or by raising the transport error (timeout, closed socket,
        garbage).
        """
        session = self._session
        if session is None:
            raise RuntimeError("listener is not open")
        parser = EventStreamParser()
        while True:
            line = await session.read_line(self.idle_timeout)
            item = parser.feed(line)
            if item == PING:
                self.last_ping = time.monotonic()
            elif item is not None:
                assert not isinstance(item, str)
                self.last_ping = time.monotonic()
                yield item
            if stop is not None and stop():
                return

    async def close(self) -> None:
        """Close the subscription's socket."""
        session, self._session = self._session, None
        if session is not None:
            await session.aclose()

"""One deadline for a whole exchange with the SQL node, not one per read.

pymysql's ``read_timeout`` bounds each read of the socket: a server that sends a byte
every few seconds never trips it, and holds a connect or a sample as long as it likes.
A :class:`Watchdog` runs beside the blocking call and, once the exchange's time is up,
shuts the connection's socket down; the blocked read then fails at once, and the error
is reported as the timeout it is.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any


class Watchdog:
    """Shuts the socket of ``connection()`` down if the ``with`` block outlives ``seconds``."""

    def __init__(self, seconds: float, connection: Callable[[], Any]) -> None:
        self.seconds = seconds
        self.connection = connection
        self.fired = False
        """True once the time ran out and the socket was shut down."""
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        sock = getattr(self.connection(), "_sock", None)
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._timer.cancel()

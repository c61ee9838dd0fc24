"""The exporter's HTTP server: wsgiref's request handling behind an accept loop that bounds
what clients can hold.

The standard library's server (``socketserver.ThreadingMixIn`` under
``wsgiref.simple_server``, which prometheus_client's own ``start_http_server`` uses too)
starts a thread for every connection with no limit and no deadline, so connections that
send one byte hold a thread and a descriptor each until the process runs out; and at the
descriptor limit its accept loop spins, since the listening socket stays readable and every
``accept()`` fails at once with EMFILE. Neither can be configured away, so the loop here is
our own; parsing the request, the limits on its line and headers, and writing the response
stay wsgiref's.

- At most :attr:`Limits.connections` connections are open at once. Another one waiting
  makes room by closing the connection that has waited longest for its headers; when every
  connection is sending a response, it waits in the kernel's queue.
- A request's line and headers must arrive within :attr:`Limits.header_timeout` of the
  connect, however slowly they trickle, and the response be sent within
  :attr:`Limits.response_timeout` of them, however slowly it is read; a connection on which
  nothing moves for :attr:`Limits.idle_timeout` is closed.
- When ``accept()`` fails for lack of descriptors or memory, the oldest connection still
  waiting for its headers is closed to make room; without one, accepting pauses for
  :attr:`Limits.accept_retry` seconds. The first failure is logged in one line, then at
  most one line a minute.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler

from ndbtop.compat import SLOTS
from ndbtop.sanitise import write_line

App = Callable[..., Iterable[bytes]]

OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""``accept()`` errors that retrying at once cannot cure."""


@dataclass(frozen=True, **SLOTS)
class Limits:
    """What clients of the exporter can hold."""

    connections: int = 32
    """Connections open at once."""
    header_timeout: float = 5.0
    """Seconds from the connect for the request line and headers to arrive."""
    idle_timeout: float = 15.0
    """Seconds a connection may go without receiving or sending anything."""
    response_timeout: float = 60.0
    """Seconds from the end of the headers for the response to be sent."""
    accept_retry: float = 0.5
    """Seconds accepting pauses after it failed for lack of resources."""
    backlog: int = 128
    """Connections the kernel queues while all the others are served."""


DEFAULT_LIMITS = Limits()
REPORT_EVERY = 60.0
"""Seconds between two log lines about failed accepts."""


class _Connection:
    """One accepted connection: whether its headers arrived, and when it is closed unless
    it has ended (the header deadline, then the response deadline)."""

    __slots__ = ("address", "closing", "deadline", "headers", "sock")

    def __init__(self, sock: socket.socket, address: Any, deadline: float) -> None:
        self.sock = sock
        self.address = address
        self.deadline = deadline
        self.headers = False
        self.closing = False


class _QuietServerHandler(ServerHandler):
    """wsgiref's response writer, silent about a client that went away or stalled (the app
    reports its own faults)."""

    def log_exception(self, exc_info: Any) -> None:
        """Nothing: only socket errors reach here."""


class _Handler(WSGIRequestHandler):
    """wsgiref's request handler, telling the server when the headers are in."""

    server: BoundedServer  # type: ignore[assignment]

    def handle(self) -> None:
        """One request, as wsgiref handles it, with the quiet response writer."""
        self.raw_requestline = self.rfile.readline(65537)
        if len(self.raw_requestline) > 65536:
            self.requestline = self.request_version = self.command = ""
            self.send_error(414)
            return
        if not self.parse_request():
            return
        handler = _QuietServerHandler(self.rfile, self.wfile, self.get_stderr(),
                                      self.get_environ(), multithread=False)
        handler.request_handler = self
        handler.run(self.server.get_app())

    def parse_request(self) -> bool:
        """Read the headers; from then on the response deadline holds."""
        try:
            return super().parse_request()
        finally:
            self.server.headers_read(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: the journal gets source state changes only."""


def _log(line: str) -> None:
    write_line(sys.stderr, line)
    sys.stderr.flush()


class BoundedServer:
    """Serves a WSGI app on a listening socket within :class:`Limits`, each connection in a
    thread of its own."""

    def __init__(self, sock: socket.socket, app: App, limits: Limits = DEFAULT_LIMITS,
                 log: Callable[[str], None] = _log,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.socket = sock
        self.limits = limits
        self._app = app
        self._log = log
        self._clock = clock
        host, port = sock.getsockname()[:2]
        self.base_environ = {"SERVER_NAME": host, "GATEWAY_INTERFACE": "CGI/1.1",
                             "SERVER_PORT": str(port), "REMOTE_HOST": "",
                             "CONTENT_LENGTH": "", "SCRIPT_NAME": ""}
        """What every request's environ starts from (wsgiref's handler reads it)."""
        self._lock = threading.Lock()
        self._open: dict[socket.socket, _Connection] = {}
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._stopping = False
        self._failing = False
        self._reported_at: float | None = None
        self._unreported = 0
        self.accept_failures = 0
        """``accept()`` calls that failed for lack of resources (tests check the pace)."""
        self.accept_thread_id: int | None = None
        """The native id of the thread running :meth:`serve_forever`."""

    def get_app(self) -> App:
        """The WSGI app (wsgiref's handler asks for it)."""
        return self._app

    @property
    def connections(self) -> int:
        """Connections open now."""
        with self._lock:
            return len(self._open)

    def headers_read(self, sock: socket.socket) -> None:
        """The request's headers arrived (or failed): the response deadline holds now."""
        with self._lock:
            conn = self._open.get(sock)
            if conn is None:
                return
            before, conn.headers = conn.deadline, True
            conn.deadline = self._clock() + self.limits.response_timeout
        if conn.deadline < before:
            self._wake()  # the accept loop sleeps until the header deadline

    def serve_forever(self) -> None:
        """Accept and serve until :meth:`shutdown`."""
        self.accept_thread_id = threading.get_native_id()
        self.socket.setblocking(False)
        selector = self._selector
        selector.register(self._wake_r, selectors.EVENT_READ)
        listening, retry_at = False, 0.0
        try:
            while True:
                now = self._clock()
                with self._lock:
                    if self._stopping:
                        break
                    accept, make_room, wake_at = self._plan(now, retry_at)
                if (accept or make_room) != listening:
                    listening = not listening
                    if listening:
                        selector.register(self.socket, selectors.EVENT_READ)
                    else:
                        selector.unregister(self.socket)
                timeout = None if wake_at is None else max(wake_at - now, 0.0)
                for key, _ in selector.select(timeout):
                    if key.fileobj is self._wake_r:
                        with contextlib.suppress(OSError):
                            while self._wake_r.recv(4096):
                                pass
                    elif accept:
                        retry_at = self._accept()
                    else:
                        with self._lock:
                            self._evict()
        finally:
            for key in list(selector.get_map().values()):
                selector.unregister(key.fileobj)

    def _plan(self, now: float, retry_at: float) -> tuple[bool, bool, float | None]:
        """What the accept loop waits for (the lock is held): whether to accept; whether,
        at the bound, to make room for a connection that waits (the listener is readable);
        and when to look again (the next deadline, the end of a pause after a failed
        accept). Connections past their deadline are closed first."""
        self._expire(now)
        conns = self._open.values()
        room = len(self._open) < self.limits.connections
        closing = any(c.closing for c in conns)
        # After a failed accept, the descriptor of a connection being closed is waited for.
        accept = room and now >= retry_at and not (self._failing and closing)
        make_room = not room and not closing and self._oldest_waiting() is not None
        times = [c.deadline for c in conns if not c.closing]
        if room and now < retry_at:
            times.append(retry_at)
        return accept, make_room, min(times, default=None)

    def _accept(self) -> float:
        """Accept one connection; the monotonic time before which not to try again."""
        try:
            sock, address = self.socket.accept()
        except OSError as exc:
            if exc.errno not in OUT_OF_RESOURCES:
                return 0.0  # gone before it was accepted, or taken by another accept
            self.accept_failures += 1
            with self._lock:
                open_now = len(self._open)
                # A connection being closed frees a descriptor: try again once it has.
                room = any(c.closing for c in self._open.values()) or self._evict()
            self._failing = True
            self._report(exc, open_now, room)
            return 0.0 if room else self._clock() + self.limits.accept_retry
        self._failing = False
        conn = _Connection(sock, address, self._clock() + self.limits.header_timeout)
        try:
            sock.settimeout(self.limits.idle_timeout)
            with self._lock:
                self._open[sock] = conn
            threading.Thread(target=self._serve, args=(conn,), name="metrics-conn",
                             daemon=True).start()
        except (OSError, RuntimeError):
            self._forget(conn)
        return 0.0

    def _report(self, exc: OSError, open_now: int, room: bool) -> None:
        """Log a failed accept: the first, then at most one line a minute."""
        self._unreported += 1
        now = self._clock()
        if self._reported_at is not None and now - self._reported_at < REPORT_EVERY:
            return
        then = ("closing the one waiting longest for its headers" if room
                else f"trying again every {self.limits.accept_retry:g} s")
        times = f"; {self._unreported} times since the last line" if self._reported_at else ""
        self._log(f"ndbtop export: cannot accept a connection ({exc.strerror}, {open_now} "
                  f"open): {then}{times}")
        self._reported_at, self._unreported = now, 0

    def _serve(self, conn: _Connection) -> None:
        try:
            _Handler(conn.sock, conn.address, self)
        except Exception:
            pass  # a client that went away, stalled or was closed
        finally:
            self._forget(conn)

    def _forget(self, conn: _Connection) -> None:
        """Close a connection whose thread is done, and let the accept loop know."""
        with self._lock:
            self._open.pop(conn.sock, None)
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_WR)
            conn.sock.close()
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")

    def _oldest_waiting(self) -> _Connection | None:
        """The connection that has waited longest for its headers (the lock is held)."""
        waiting = [c for c in self._open.values() if not (c.headers or c.closing)]
        return min(waiting, key=lambda c: c.deadline, default=None)

    @staticmethod
    def _close(conn: _Connection) -> None:
        """End a connection from outside its thread: its blocked read returns at once and
        the thread closes it (the lock is held, so the socket is still open)."""
        conn.closing = True
        with contextlib.suppress(OSError):
            conn.sock.shutdown(socket.SHUT_RDWR)

    def _evict(self) -> bool:
        """Close the connection waiting longest for its headers; whether there was one."""
        conn = self._oldest_waiting()
        if conn is None:
            return False
        self._close(conn)
        return True

    def _expire(self, now: float) -> None:
        """Close the connections past their deadline (the lock is held)."""
        for conn in self._open.values():
            if conn.deadline <= now and not conn.closing:
                self._close(conn)

    def shutdown(self) -> None:
        """Stop accepting and end every connection; returns at once."""
        with self._lock:
            self._stopping = True
            for conn in self._open.values():
                self._close(conn)
        self._wake()

    def server_close(self) -> None:
        """Close the listening socket (after :meth:`serve_forever` returned)."""
        self.socket.close()
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()


def listen_socket(host: str, port: int, backlog: int = DEFAULT_LIMITS.backlog) -> socket.socket:
    """A listening socket on ``host`` (a name or an address; ``""`` is every interface, IPv6
    and IPv4 where the host has IPv6, else IPv4) and ``port``."""
    if host == "":
        if socket.has_dualstack_ipv6():
            try:
                return _server(("", port), socket.AF_INET6, backlog)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise
        return _server(("", port), socket.AF_INET, backlog)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise OSError(f"cannot resolve {host}: {exc.strerror}") from None
    family, _, _, _, sockaddr = infos[0]
    return _server(sockaddr, family, backlog)


def _server(address: Any, family: int, backlog: int) -> socket.socket:
    """``socket.create_server``, its error without the address it appends."""
    try:
        return socket.create_server(address, family=family, backlog=backlog,
                                    dualstack_ipv6=family == socket.AF_INET6 and not address[0])
    except OSError as exc:
        if exc.errno:
            raise OSError(exc.errno, os.strerror(exc.errno)) from None
        raise


def is_loopback(address: str) -> bool:
    """Whether a listening address is reachable from this host only."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback

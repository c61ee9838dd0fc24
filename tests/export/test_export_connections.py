"""The exporter's HTTP server against clients that hold connections: slow headers, silence,
more connections than it serves at once, and no descriptors left.

Every server here listens on loopback with small limits; every wait is for a condition,
with a deadline.
"""

from __future__ import annotations

import contextlib
import os
import resource
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import BinaryIO

import pytest
from export_helpers import NOW, fetch, up

from ndbtop.cli.export import exposed_warning
from ndbtop.export.http import BoundedServer, Limits, is_loopback, listen_socket
from ndbtop.export.server import MetricsServer, SnapshotCollector
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.snapshot import ClusterSnapshot

DEADLINE = 20.0
REQUEST = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def until(condition: Callable[[], bool], what: str, deadline: float = DEADLINE) -> float:
    """Wait for ``condition``; the seconds it took."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < deadline, f"not within {deadline} s: {what}"
        time.sleep(0.005)
    return time.monotonic() - start


@contextlib.contextmanager
def serving(limits: Limits) -> Iterator[MetricsServer]:
    collector = SnapshotCollector(clock=lambda: NOW)
    collector.publish(ClusterSnapshot(taken_at=NOW, wall=1.7e9, interval=1.0,
                                      sources=up("mgm"),
                                      nodes=(NodeStatus(2, "NDB", "STARTED", version=525315),)))
    server = MetricsServer(collector, "127.0.0.1", 0, "test", limits)
    server.start()
    try:
        yield server
    finally:
        server.close()


def connect(port: int, send: bytes = b"") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    if send:
        s.sendall(send)
    return s


def closed(sock: socket.socket) -> bool:
    """Whether the server has closed the connection (without waiting)."""
    while select.select([sock], [], [], 0)[0]:
        try:
            if not sock.recv(65536):
                return True
        except ConnectionError:
            return True
    return False


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_slow_connections_beyond_the_bound_leave_room_for_a_scrape() -> None:
    # Headers may take 60 s: only making room for new connections lets the scrape in.
    limits = Limits(connections=4, header_timeout=60.0, idle_timeout=60.0)
    with serving(limits) as server:
        url = f"http://127.0.0.1:{server.port}/metrics"
        assert fetch(url)[0] == 200
        before = open_fds()
        slow = [connect(server.port, b"G") for _ in range(40)]
        try:
            # Each connection waiting makes room by closing the one waiting longest.
            until(lambda: sum(closed(s) for s in slow) >= 36, "36 slow connections closed")
            start = time.monotonic()
            status, _, body = fetch(url)
            assert status == 200 and b'ndb_node_status{node_id="2"' in body
            assert time.monotonic() - start < 5
            assert server.httpd.connections <= limits.connections
            # The server holds at most its bound of descriptors for connections.
            assert open_fds() - before - len(slow) <= limits.connections
        finally:
            for s in slow:
                s.close()


def test_silent_and_trickling_connections_are_closed_by_their_timeouts() -> None:
    limits = Limits(connections=8, header_timeout=3.0, idle_timeout=0.5)
    with serving(limits) as server:
        start = time.monotonic()
        silent = connect(server.port)
        trickle = connect(server.port, b"G")
        ended: dict[str, float] = {}
        try:
            # Nothing arrives on one; a byte every 0.1 s on the other, whose headers never
            # end: never idle, it lasts until the header deadline.
            while len(ended) < 2:
                assert time.monotonic() - start < DEADLINE, ended
                waiting = {"silent": silent, "trickle": trickle}
                select.select([s for n, s in waiting.items() if n not in ended], [], [], 0.1)
                for name, sock in waiting.items():
                    if name not in ended and closed(sock):
                        ended[name] = time.monotonic() - start
                if "trickle" not in ended:
                    with contextlib.suppress(OSError):
                        trickle.sendall(b"E")
            assert 0.45 <= ended["silent"] < 2.5
            assert 2.9 <= ended["trickle"] < 8
            status, _, _ = fetch(f"http://127.0.0.1:{server.port}/metrics")
            assert status == 200
        finally:
            silent.close()
            trickle.close()


def test_a_scrape_is_not_cut_by_the_header_timeout_of_others() -> None:
    limits = Limits(connections=8, header_timeout=0.5, idle_timeout=5.0)
    with serving(limits) as server:
        held = connect(server.port, b"GET /metrics HTTP/1.1\r\n")
        try:
            until(lambda: closed(held), "the connection without a header end closed")
            for _ in range(5):
                assert fetch(f"http://127.0.0.1:{server.port}/metrics")[0] == 200
        finally:
            held.close()


def endless(environ: dict, start_response: Callable[..., object]) -> Iterator[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain")])
    while True:
        yield b"x" * 65536


@pytest.mark.parametrize(("idle", "response"), [(30.0, 1.0), (1.0, 30.0)])
def test_a_response_not_read_is_cut_at_the_response_deadline_or_when_idle(
        idle: float, response: float) -> None:
    limits = Limits(connections=4, header_timeout=30.0, idle_timeout=idle,
                    response_timeout=response)
    server = BoundedServer(listen_socket("127.0.0.1", 0), endless, limits)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with connect(server.socket.getsockname()[1], REQUEST):
            until(lambda: server.connections == 1, "the request accepted")
            took = until(lambda: server.connections == 0, "the response cut")
        assert 0.8 <= took < 4
    finally:
        server.shutdown()
        thread.join(5)
        server.server_close()


def thread_cpu_ticks(stat: BinaryIO) -> int:
    """User and system clock ticks a thread has used, from its open ``stat`` file."""
    stat.seek(0)
    fields = stat.read().rsplit(b")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


@contextlib.contextmanager
def no_descriptor_left() -> Iterator[None]:
    """Every new descriptor of this process fails with EMFILE until the block ends, and
    one closed meanwhile makes room for one (the limit is on descriptor numbers: the gaps
    below the highest are filled first)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    top = max(int(fd) for fd in os.listdir("/proc/self/fd"))
    fillers = []
    while (fd := os.dup(0)) < top:
        fillers.append(fd)
    os.close(fd)
    resource.setrlimit(resource.RLIMIT_NOFILE, (fd, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        for fd in fillers:
            os.close(fd)


def test_at_the_descriptor_limit_a_waiting_scrape_takes_a_slow_ones_place_and_nothing_spins(
        capsys: pytest.CaptureFixture[str]) -> None:
    limits = Limits(connections=16, header_timeout=60.0, idle_timeout=60.0, accept_retry=0.25)
    with serving(limits) as server:
        slow = connect(server.port, b"G")
        until(lambda: server.httpd.connections == 1, "the slow connection accepted")
        scrape, late = socket.socket(), socket.socket()  # made while descriptors are left
        assert server.httpd.accept_thread_id is not None
        stat = open(f"/proc/self/task/{server.httpd.accept_thread_id}/stat", "rb")  # noqa: SIM115
        try:
            with no_descriptor_left():
                scrape.settimeout(DEADLINE)
                scrape.connect(("127.0.0.1", server.port))
                scrape.sendall(REQUEST)
                reply = b""
                while chunk := scrape.recv(65536):
                    reply += chunk
                assert reply.startswith(b"HTTP/1.0 200 OK")
                assert b'ndb_node_status{node_id="2"' in reply
                assert closed(slow)
                until(lambda: server.httpd.connections == 0, "the scrape's connection closed")
            with no_descriptor_left():
                # Nothing to close now: accepting pauses between attempts.
                late.connect(("127.0.0.1", server.port))
                failures = server.httpd.accept_failures
                until(lambda: server.httpd.accept_failures > failures, "a failed accept")
                ticks, failures = thread_cpu_ticks(stat), server.httpd.accept_failures
                took = until(lambda: server.httpd.accept_failures >= failures + 4,
                             "four more attempts")
                assert took >= 4 * 0.25 * 0.9
                assert thread_cpu_ticks(stat) - ticks <= 0.2 * os.sysconf("SC_CLK_TCK")
            # Descriptors free again: the connection waiting is served.
            until(lambda: server.httpd.connections == 1 or closed(late), "the late one accepted")
        finally:
            for s in (slow, scrape, late, stat):
                s.close()
    lines = [line for line in capsys.readouterr().err.splitlines() if "cannot accept" in line]
    assert lines == [
        "ndbtop export: cannot accept a connection (Too many open files, 1 open): "
        "closing the one waiting longest for its headers"]


def test_closing_the_server_ends_the_connections_it_holds() -> None:
    limits = Limits(connections=4, header_timeout=60.0, idle_timeout=60.0)
    server_ctx = serving(limits)
    server = server_ctx.__enter__()
    slow = [connect(server.port, b"G") for _ in range(3)]
    try:
        until(lambda: server.httpd.connections == 3, "three connections accepted")
        done = threading.Event()
        threading.Thread(target=lambda: (server_ctx.__exit__(None, None, None), done.set()),
                         daemon=True).start()
        assert done.wait(5)
        until(lambda: all(closed(s) for s in slow), "every connection closed")
    finally:
        for s in slow:
            s.close()


def test_every_interface_is_both_families_where_the_host_has_ipv6(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[object, ...]] = []
    made = socket.create_server(("127.0.0.1", 0))

    def create_server(address: object, *, family: int, backlog: int,
                      dualstack_ipv6: bool) -> socket.socket:
        asked.append((address, family, dualstack_ipv6))
        return made

    monkeypatch.setattr(socket, "create_server", create_server)
    monkeypatch.setattr(socket, "has_dualstack_ipv6", lambda: True)
    with listen_socket("", 11186) as s:
        assert s is made
    assert asked == [(("", 11186), socket.AF_INET6, True)]
    monkeypatch.setattr(socket, "has_dualstack_ipv6", lambda: False)
    asked.clear()
    listen_socket("", 11186)
    assert asked == [(("", 11186), socket.AF_INET, False)]


def test_a_listener_beyond_loopback_is_one_warning_line() -> None:
    for address in ("127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"):
        assert is_loopback(address), address
        assert exposed_warning(address, 11186) is None
    for address in ("", "0.0.0.0", "::", "192.0.2.7", "fe80::1%eth0", "::ffff:192.0.2.7"):
        assert not is_loopback(address), address
    assert exposed_warning("::", 11186) == (
        "ndbtop export: warning: listening on every interface ([::]:11186): anyone who can "
        "reach this host reads the metrics")
    assert exposed_warning("192.0.2.7", 9000) == (
        "ndbtop export: warning: listening on a non-loopback address (192.0.2.7:9000): anyone "
        "who can reach this host reads the metrics")


def reply_to(port: int, request: bytes) -> bytes:
    with connect(port, request) as s:
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
        return reply


def test_wsgirefs_limits_on_the_request_line_and_headers_still_hold() -> None:
    with serving(Limits(connections=4)) as server:
        assert reply_to(server.port, b"G" * 65537).startswith(b"HTTP/1.0 414 ")
        headers = b"".join(b"X-%d: 1\r\n" % i for i in range(101))
        reply = reply_to(server.port, b"GET /metrics HTTP/1.1\r\n" + headers + b"\r\n")
        assert reply.startswith(b"HTTP/1.0 431 ")
        assert reply_to(server.port, REQUEST).startswith(b"HTTP/1.0 200 OK")

"""The exporter answers ``HEAD`` with the headers ``GET`` would have and no body, and gzips
only what the scraper accepts: ``Accept-Encoding: gzip;q=0`` refuses gzip (RFC 9110
§12.5.3, "Accept-Encoding", and §12.4.2, quality values: a weight of 0 means "not
acceptable"). prometheus_client's own ``gzip_accepted`` reads the name only."""

from __future__ import annotations

import gzip
import http.client
from collections.abc import Iterator

import pytest
from export_helpers import up

from ndbtop.export.server import MetricsServer, SnapshotCollector, accepts_gzip
from ndbtop.model.snapshot import ClusterSnapshot


@pytest.mark.parametrize(("header", "gzipped"), [
    ("gzip", True), ("GZIP", True), ("deflate, gzip;q=0.5", True), ("x-gzip", True),
    ("gzip;q=0", False), ("gzip; q=0.000", False), ("gzip;q=0, *;q=1", False),
    ("*", True), ("*;q=0", False), ("identity", False), ("", False), ("br, deflate", False),
    ("gzip;q=2", False), ("gzip;q=abc", False), ("gzip;q=1.000", True),
])
def test_gzip_only_with_a_weight_above_zero(header: str, gzipped: bool) -> None:
    assert accepts_gzip(header) is gzipped


@pytest.fixture
def server() -> Iterator[MetricsServer]:
    collector = SnapshotCollector(clock=lambda: 2.0)  # the same ages at every scrape
    collector.publish(ClusterSnapshot(taken_at=1.0, wall=1.0, interval=1.0,
                                      sources=up("mgm", "events")))
    served = MetricsServer(collector, "127.0.0.1", 0, "test")
    served.start()
    yield served
    served.close()


def ask(server: MetricsServer, method: str, path: str, **headers: str
        ) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        connection.request(method, path, headers=headers)
        reply = connection.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        connection.close()


@pytest.mark.parametrize("path", ["/metrics", "/", "/nothing"])
def test_head_has_the_headers_of_get_and_no_body(server: MetricsServer, path: str) -> None:
    status, headers, body = ask(server, "GET", path)
    head_status, head_headers, head_body = ask(server, "HEAD", path)
    assert head_body == b"" and body
    assert head_status == status
    assert head_headers["content-length"] == headers["content-length"] == str(len(body))
    assert head_headers["content-type"] == headers["content-type"]


def test_head_sends_nothing_after_the_headers_on_the_wire(server: MetricsServer) -> None:
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"HEAD /metrics HTTP/1.0\r\nAccept-Encoding: gzip\r\n\r\n")
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, rest = received.partition(b"\r\n\r\n")
    assert rest == b"" and b"Content-Encoding: gzip" in head


def test_gzip_q_0_gets_the_plain_text(server: MetricsServer) -> None:
    _, headers, body = ask(server, "GET", "/metrics", **{"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in headers and b"ndbtop_source_up" in body
    _, headers, body = ask(server, "GET", "/metrics", **{"Accept-Encoding": "gzip"})
    assert headers["content-encoding"] == "gzip"
    assert b"ndbtop_source_up" in gzip.decompress(body)

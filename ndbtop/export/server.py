"""The HTTP side of ``ndbtop export``: a prometheus_client registry over the latest snapshot.

A scrape never reaches the cluster. The collectors run on their own interval
and publish each new snapshot (:meth:`SnapshotCollector.publish`); a scrape
turns the last published one into metric families, kept until the next
snapshot, so any number of scrapers cost the cluster nothing and each other
little. Only the source ages are worked out at scrape time.
"""

from __future__ import annotations

import html
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.core import Metric

from ndbtop.export.families import snapshot_families, source_families
from ndbtop.model.snapshot import ClusterSnapshot

DEFAULT_PORT = 11186
"""Default port of ``ndbtop export``: not in Prometheus's list of default port allocations
(whose exporter range 9100-9999 is taken); 1186 is the management server's port."""
DEFAULT_HOST = "127.0.0.1"


class SnapshotCollector:
    """A prometheus_client custom collector over the last snapshot published to it."""

    def __init__(self, host_name: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.host_name = host_name
        self._clock = clock
        self._latest: ClusterSnapshot | None = None
        self._cached: tuple[ClusterSnapshot, list[Metric]] | None = None
        self._lock = threading.Lock()
        self.scrapes = 0

    def publish(self, snapshot: ClusterSnapshot) -> None:
        """Make ``snapshot`` the one the next scrapes read."""
        self._latest = snapshot

    def collect(self) -> Iterator[Metric]:
        """The families of the last snapshot, then the source ages as of now."""
        snapshot = self._latest
        if snapshot is None:
            return
        with self._lock:
            self.scrapes += 1
            cached = self._cached
            if cached is None or cached[0] is not snapshot:
                cached = (snapshot, list(snapshot_families(snapshot, snapshot.taken_at,
                                                           self.host_name)))
                self._cached = cached
        yield from source_families(snapshot, self._clock())
        yield from cached[1]


INDEX = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>ndbtop export</title></head>
<body><h1>ndbtop export</h1>
<p>Metrics of the NDB Cluster at {cluster} for Prometheus: <a href="metrics">/metrics</a></p>
</body></html>
"""


def make_app(registry: CollectorRegistry, cluster: str) -> Callable[..., Iterable[bytes]]:
    """The WSGI app: ``/`` links to ``/metrics``, which prometheus_client serves (text or
    OpenMetrics by the ``Accept`` header, gzip when accepted); anything else is 404."""
    metrics = make_wsgi_app(registry)
    index = INDEX.format(cluster=html.escape(cluster)).encode()

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/metrics":
            return metrics(environ, start_response)  # type: ignore[no-any-return]
        if path == "/" and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Type", "text/html; charset=utf-8")])
            return [index]
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [b"Not found: the metrics are at /metrics\n"]

    return app


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes are not logged: the journal gets source state changes only."""


class MetricsServer:
    """The HTTP server in a thread of its own."""

    def __init__(self, collector: SnapshotCollector, host: str, port: int, cluster: str) -> None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(collector)  # type: ignore[arg-type]
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                       flags=socket.AI_PASSIVE)
        except socket.gaierror as exc:
            raise OSError(f"cannot listen on {host}: {exc.strerror}") from None
        family, _, _, _, sockaddr = infos[0]

        class Server(_Server):
            address_family = family

        self.httpd = make_server(sockaddr[0], port, make_app(registry, cluster), Server,
                                 handler_class=_QuietHandler)
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="metrics-http",
                                        daemon=True)

    @property
    def port(self) -> int:
        """The port listened on (the kernel's choice when 0 was asked)."""
        return int(self.httpd.server_address[1])

    def start(self) -> None:
        """Serve in the background."""
        self._thread.start()

    def close(self) -> None:
        """Stop serving and close the socket."""
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(5)

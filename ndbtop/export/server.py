"""The HTTP side of ``ndbtop export``: prometheus_client's formats over the latest snapshot.

A scrape never reaches the cluster. The collectors run on their own interval
and publish each new snapshot (:meth:`SnapshotCollector.publish`); the first
scrape of a snapshot turns it into metric families and prometheus_client's
text or OpenMetrics exposition, kept for the next scrapes of the same snapshot
in that format, so any number of scrapers cost the cluster nothing and each
other little. Only the source ages are worked out at every scrape.
"""

from __future__ import annotations

import gzip
import html
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client.core import Metric
from prometheus_client.exposition import choose_encoder

from ndbtop.export.families import snapshot_families, snapshot_groups, source_families
from ndbtop.export.familyset import Families, Group, same_inputs
from ndbtop.export.http import DEFAULT_LIMITS, BoundedServer, Limits, listen_socket
from ndbtop.export.lines import EOF_LINE, Fixed, LineCache, cluster_label, with_label, without_eof
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.sanitise import sanitise, write_line

Encoder = Callable[[Any], bytes]


class SnapshotCollector:
    """A prometheus_client custom collector over the last snapshot published to it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 cluster: str | None = None) -> None:
        self._clock = clock
        self.cluster = cluster
        """The context's name, given to every series as its ``cluster`` label (None: no
        label, one cluster served)."""
        self._label = None if cluster is None else cluster_label(cluster)
        self._latest: ClusterSnapshot | None = None
        self._families: tuple[ClusterSnapshot, list[Metric]] | None = None
        self._rendered: dict[str, dict[str, tuple[tuple[object, ...], bytes]]] = {}
        self._lines: dict[tuple[str, str], LineCache] = {}
        self._lock = threading.Lock()
        self.scrapes = 0

    def publish(self, snapshot: ClusterSnapshot) -> None:
        """Make ``snapshot`` the one the next scrapes read."""
        self._latest = snapshot

    def _snapshot_families(self, snapshot: ClusterSnapshot) -> list[Metric]:
        kept = self._families
        if kept is None or kept[0] is not snapshot:
            kept = (snapshot, list(snapshot_families(snapshot, snapshot.taken_at)))
            self._families = kept
        return kept[1]

    def _sources(self, snapshot: ClusterSnapshot) -> Families:
        return source_families(snapshot, self._clock())

    def collect(self) -> Iterator[Metric]:
        """The source ages as of now, then the families of the last snapshot."""
        snapshot = self._latest
        if snapshot is None:
            return
        with self._lock:
            self.scrapes += 1
            families = self._snapshot_families(snapshot)
        yield from self._sources(snapshot)
        yield from families

    def render(self, encoder: Encoder, content_type: str) -> bytes:
        """One scrape in a format: the source ages now, then each group of the snapshot's
        families, rendered again only when its inputs changed since the last scrape."""
        snapshot = self._latest
        if snapshot is None:
            return encoder(Fixed(()))
        with self._lock:
            self.scrapes += 1
            kept = self._rendered.setdefault(content_type, {})
            groups = snapshot_groups(snapshot, snapshot.taken_at)
            parts = [self._labelled(without_eof(encoder(Fixed(self._sources(snapshot)))))]
            for group in groups:
                parts.append(self._group_bytes(kept, group, encoder, content_type))
            for name in set(kept) - {g.name for g in groups}:
                del kept[name]
        body = b"".join(parts)
        if encoder(Fixed(())).endswith(EOF_LINE):
            body += EOF_LINE
        return body

    def _group_bytes(self, kept: dict[str, tuple[tuple[object, ...], bytes]], group: Group,
                     encoder: Encoder, content_type: str) -> bytes:
        before = kept.get(group.name)
        if before is not None and same_inputs(before[0], group.inputs):
            return before[1]
        if group.rows is not None:
            lines = self._lines.get((content_type, group.name))
            if lines is None:
                lines = self._lines[(content_type, group.name)] = LineCache(encoder)
            body = lines.render(group.rows())
        else:
            body = without_eof(encoder(Fixed(group.families())))
        body = self._labelled(body)
        kept[group.name] = (group.inputs, body)
        return body

    def _labelled(self, body: bytes) -> bytes:
        return body if self._label is None else with_label(body, self._label)


INDEX = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>ndbtop export</title></head>
<body><h1>ndbtop export</h1>
<p>Metrics of the NDB Cluster at {cluster} for Prometheus: <a href="metrics">/metrics</a></p>
</body></html>
"""


def accepts_gzip(header: str) -> bool:
    """Whether an ``Accept-Encoding`` header accepts gzip (RFC 9110 §12.5.3): ``gzip`` (or
    ``x-gzip``) with a weight above 0, or, when it is not named, ``*`` with one; a member
    whose weight cannot be read is left out. ``gzip;q=0`` refuses it."""
    weights: dict[str, float] = {}
    for member in header.split(","):
        coding, *params = (part.strip() for part in member.split(";"))
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                qvalue = _QVALUE.fullmatch(value.strip())
                weight = float(qvalue.group()) if qvalue else -1.0
        if coding and weight >= 0:
            weights[coding.lower()] = weight
    named = [weights[c] for c in ("gzip", "x-gzip") if c in weights]
    if named:
        return max(named) > 0
    return weights.get("*", 0.0) > 0


_QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")
"""A weight as RFC 9110 §12.4.2 writes it."""


def make_app(collector: SnapshotCollector, cluster: str) -> Callable[..., Iterable[bytes]]:
    """The WSGI app: ``/`` links to ``/metrics``, served in prometheus_client's text or
    OpenMetrics format as the ``Accept`` header asks (gzip when accepted: not with
    ``gzip;q=0``); anything else is 404. ``HEAD`` is answered with the headers ``GET``
    would have (its ``Content-Length`` too) and no body."""
    index = INDEX.format(cluster=html.escape(sanitise(cluster))).encode()
    reported: set[str] = set()

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        answer = answerer(environ, start_response)
        if answer is None:
            return [b""]
        if path == "/metrics":
            return metrics_response(environ, answer, collector.render, reported)
        if path == "/":
            return answer("200 OK", HTML, index)
        return answer("404 Not Found", TEXT, b"Not found: the metrics are at /metrics\n")

    return app


Answer = Callable[[str, list[tuple[str, str]], bytes], list[bytes]]
"""Sends a status, headers and a body (with its ``Content-Length``; none for ``HEAD``)."""
TEXT = [("Content-Type", "text/plain; charset=utf-8")]
HTML = [("Content-Type", "text/html; charset=utf-8")]


def answerer(environ: dict[str, Any], start_response: Callable[..., Any]) -> Answer | None:
    """How to answer this request; None when its method is refused (405, answered)."""
    method = environ.get("REQUEST_METHOD")
    if method not in ("GET", "HEAD"):
        start_response("405 Method Not Allowed", [("Allow", "GET, HEAD")])
        return None

    def answer(status: str, headers: list[tuple[str, str]], body: bytes) -> list[bytes]:
        start_response(status, [*headers, ("Content-Length", str(len(body)))])
        return [] if method == "HEAD" else [body]

    return answer


def metrics_response(environ: dict[str, Any], answer: Answer,
                     render: Callable[[Encoder, str], bytes], reported: set[str]
                     ) -> list[bytes]:
    """An exposition in the format the ``Accept`` header asks (gzip when accepted); a fault
    of ours is one line in the journal (once) and a 500 to the scraper."""
    encoder, content_type = choose_encoder(environ.get("HTTP_ACCEPT", ""))
    try:
        body = render(encoder, content_type)
    except Exception as exc:
        text = f"cannot serve the metrics: {type(exc).__name__}: {exc}"
        if text not in reported:
            reported.add(text)
            write_line(sys.stderr, f"ndbtop export: {text}")
        return answer("500 Internal Server Error", TEXT, text.encode() + b"\n")
    headers = [("Content-Type", content_type)]
    if accepts_gzip(environ.get("HTTP_ACCEPT_ENCODING", "")):
        body = gzip.compress(body, compresslevel=1)
        headers.append(("Content-Encoding", "gzip"))
    return answer("200 OK", headers, body)


class MetricsServer:
    """The HTTP server in a thread of its own, within ``limits``
    (:class:`ndbtop.export.http.BoundedServer`)."""

    def __init__(self, collector: SnapshotCollector | None, host: str, port: int,
                 cluster: str, limits: Limits = DEFAULT_LIMITS,
                 app: Callable[..., Iterable[bytes]] | None = None) -> None:
        sock = listen_socket(host, port, limits.backlog)
        if app is None:
            assert collector is not None
            app = make_app(collector, cluster)
        self.httpd = BoundedServer(sock, app, limits)
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="metrics-http",
                                        daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        """The address and port listened on."""
        host, port = self.httpd.socket.getsockname()[:2]
        return str(host), int(port)

    @property
    def port(self) -> int:
        """The port listened on (the kernel's choice when 0 was asked)."""
        return self.address[1]

    def start(self) -> None:
        """Serve in the background."""
        self._thread.start()

    def close(self) -> None:
        """Stop serving, end every connection and close the socket."""
        self.httpd.shutdown()
        self._thread.join(5)
        self.httpd.server_close()

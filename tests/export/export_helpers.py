"""Expositions of hand-built snapshots read back sample by sample, and a running exporter."""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from ndbtop.collect.hub import Hub
from ndbtop.export.server import MetricsServer, SnapshotCollector
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.sim.runtime import Simulator

NOW = 1000.0
"""Monotonic time of the snapshots built here (and of their scrapes)."""


def up(*names: str) -> tuple[SourceStatus, ...]:
    """Every source, those named connected with data of ``NOW``, the others retrying
    (replication only when named: a cluster with no replica named has no such source)."""
    out = []
    for name in ("mgm", "events", "ndbinfo", "host", *(("replication",) if "replication"
                                                        in names else ())):
        if name in names:
            out.append(SourceStatus(name, SourceState.CONNECTED, last_ok=NOW))
        else:
            out.append(SourceStatus(name, SourceState.RETRYING, error="refused"))
    return tuple(out)


def exposition(snapshot: ClusterSnapshot) -> bytes:
    """The text exposition of ``snapshot`` as ``ndbtop export`` serves it at ``NOW``."""
    collector = SnapshotCollector(clock=lambda: NOW)
    collector.publish(snapshot)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)  # type: ignore[arg-type]
    return generate_latest(registry)


def samples(snapshot: ClusterSnapshot) -> dict[tuple[str, frozenset], float]:
    """``{(sample name, frozenset of label pairs): value}`` of the exposition."""
    out = {}
    for family in text_string_to_metric_families(exposition(snapshot).decode()):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def names(snapshot: ClusterSnapshot) -> set[str]:
    """The sample names present."""
    return {name for name, _ in samples(snapshot)}


def value(found: dict[tuple[str, frozenset], float], name: str, **labels: str) -> float | None:
    """One sample's value, None when absent."""
    return found.get((name, frozenset(labels.items())))


STARTING_NODE = 10
"""The data node of ``initial-start`` the exporter is shown mid-start."""


@dataclass
class Served:
    """A running exporter and what it watches."""

    sim: Simulator
    hub: Hub
    collector: SnapshotCollector
    server: MetricsServer

    @property
    def url(self) -> str:
        """The metrics URL."""
        return f"http://127.0.0.1:{self.server.port}/metrics"

    def cluster_requests(self) -> tuple[int, int]:
        """Requests the management servers and statements the SQL node received so far."""
        mgm = sum(s.requests for s in self.sim.mgmds.values())
        return mgm, self.sim.sql_server.stats.statements


def fetch(url: str, accept: str | None = None) -> tuple[int, str, bytes]:
    """GET ``url``: status, content type and body (errors included)."""
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, reply.headers.get("Content-Type", ""), reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()

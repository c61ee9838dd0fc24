"""Expositions of hand-built snapshots, read back sample by sample."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from ndbtop.export.server import SnapshotCollector
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus

NOW = 1000.0
"""Monotonic time of the snapshots built here (and of their scrapes)."""


def up(*names: str) -> tuple[SourceStatus, ...]:
    """Every source, those named connected with data of ``NOW``, the others retrying."""
    out = []
    for name in ("mgm", "events", "ndbinfo", "host"):
        if name in names:
            out.append(SourceStatus(name, SourceState.CONNECTED, last_ok=NOW))
        else:
            out.append(SourceStatus(name, SourceState.RETRYING, error="refused"))
    return tuple(out)


def exposition(snapshot: ClusterSnapshot, host: str = "db1") -> bytes:
    """The text exposition of ``snapshot`` as ``ndbtop export`` serves it at ``NOW``."""
    collector = SnapshotCollector(host, clock=lambda: NOW)
    collector.publish(snapshot)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)  # type: ignore[arg-type]
    return generate_latest(registry)


def samples(snapshot: ClusterSnapshot, host: str = "db1") -> dict[tuple[str, frozenset], float]:
    """``{(sample name, frozenset of label pairs): value}`` of the exposition."""
    out = {}
    for family in text_string_to_metric_families(exposition(snapshot, host).decode()):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def names(snapshot: ClusterSnapshot) -> set[str]:
    """The sample names present."""
    return {name for name, _ in samples(snapshot)}


def value(found: dict[tuple[str, frozenset], float], name: str, **labels: str) -> float | None:
    """One sample's value, None when absent."""
    return found.get((name, frozenset(labels.items())))

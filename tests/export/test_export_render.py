"""A scrape renders again only what changed since the last one, and says the same as a full
rendering."""

from __future__ import annotations

import dataclasses

from export_helpers import NOW, exposition, up
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as generate_om
from prometheus_client.parser import text_string_to_metric_families
from test_export_families import NODES, ndbinfo_sample

from ndbtop.export.server import SnapshotCollector
from ndbtop.host.samples import DiskCounters
from ndbtop.host.view import HostView
from ndbtop.model.hosts import HostReport
from ndbtop.model.ndbinfo import MemoryUse, ThreadCpu
from ndbtop.model.snapshot import ClusterSnapshot

TEXT = "text/plain; version=0.0.4; charset=utf-8"
OM = "application/openmetrics-text; version=1.0.0; charset=utf-8"


def snapshot(**ndbinfo: object) -> ClusterSnapshot:
    sample = dataclasses.replace(ndbinfo_sample(), **ndbinfo)
    return ClusterSnapshot(taken_at=NOW, wall=1e9, interval=1.0,
                           sources=up("mgm", "ndbinfo"), nodes=NODES, ndbinfo=sample)


def parsed(body: bytes) -> dict[tuple[str, frozenset], float]:
    return {(s.name, frozenset(s.labels.items())): s.value
            for f in text_string_to_metric_families(body.decode()) for s in f.samples}


def test_a_scrape_shows_the_new_threads_and_keeps_the_unchanged_panels() -> None:
    collector = SnapshotCollector(clock=lambda: NOW)
    first = snapshot()
    collector.publish(first)
    assert parsed(collector.render(generate_latest, TEXT)) == parsed(exposition(first))
    kept = dict(collector._rendered[TEXT])
    second = snapshot(threads=(ThreadCpu(2, 1, "ldm", exec_pct=12.0),),
                      memory=first.ndbinfo.memory)  # type: ignore[union-attr]
    collector.publish(second)
    body = collector.render(generate_latest, TEXT)
    assert parsed(body) == parsed(exposition(second))
    assert b'ndb_thread_cpu_ratio{node_id="2",thread_name="ldm",thread_no="1"} 0.12' in body
    assert b'thread_no="0"' not in body
    now = collector._rendered[TEXT]
    assert now["memory"] is kept["memory"]
    assert now["threads"] is not kept["threads"]
    # A memory row with the same values but new (read again) is rendered again.
    third = snapshot(memory=(MemoryUse(2, "Data memory", 2 << 20, 64, 1 << 30, 32768),))
    collector.publish(third)
    assert parsed(collector.render(generate_latest, TEXT)) == parsed(exposition(third))


def test_openmetrics_has_one_eof_at_the_end() -> None:
    collector = SnapshotCollector(clock=lambda: NOW)
    collector.publish(snapshot())
    body = collector.render(generate_om, OM)
    assert body.endswith(b"# EOF\n") and body.count(b"# EOF") == 1
    assert b"# TYPE ndb_thread_cpu_ratio gauge" in body
    assert body.count(b"# TYPE ndb_node_status gauge") == 1


def blocks(body: bytes) -> dict[str, bytes]:
    """Each family's text (its HELP and TYPE lines and its samples), by family."""
    out: dict[str, bytes] = {}
    name = ""
    for line in body.splitlines(keepends=True):
        if line.startswith(b"# HELP "):
            name = line.split()[2].decode()
            assert name not in out, f"{name} twice"
            out[name] = b""
        if line != b"# EOF\n":
            out[name] += line
    return out


def test_the_large_families_are_the_librarys_text_byte_for_byte() -> None:
    hostile = 'x"\\\n\x1b[2Jé'

    def snap_at(step: int) -> ClusterSnapshot:
        threads = tuple(ThreadCpu(2, i, ("ldm", "main", hostile)[i % 3],
                                  exec_pct=(i + step) * 0.37) for i in range(300))
        disks = (DiskCounters("nvme0n1", 10 + step, 20, 4096, 8192, 1500, 2500, 3000, 1, 2),
                 DiskCounters(hostile, 1, 2, 512, 1024 * step, 5, 6, None),
                 DiskCounters("sdb", 2**53 + 1, 1, 0, 10**20, 1, 1, 7 + step, None, 3))
        hosts = (HostReport("db1", "local", (2,), "ok", last_ok=NOW,
                            view=HostView(NOW, 1.0, (), None, (), disks)),
                 HostReport(hostile, "ssh", (3,), "ok", last_ok=NOW,
                            view=HostView(NOW, 1.0, (), None, (), disks[step % 2:])))
        return dataclasses.replace(snapshot(threads=threads), hosts=hosts)

    for generate, content_type in ((generate_latest, TEXT), (generate_om, OM)):
        served_by = SnapshotCollector(clock=lambda: NOW)
        # New values at every step: the later scrapes use the label text kept from the first
        # (a device gone at step 1 and back at step 2 included).
        for step in range(3):
            snap = snap_at(step)
            reference = SnapshotCollector(clock=lambda: NOW)
            reference.publish(snap)
            registry = CollectorRegistry(auto_describe=False)
            registry.register(reference)  # type: ignore[arg-type]
            served_by.publish(snap)
            served = blocks(served_by.render(generate, content_type))
            assert served == blocks(generate(registry))
        assert any(k.startswith("ndbtop_host_disk_io_time_seconds") for k in served)
        assert any(k.startswith("ndb_thread_cpu_ratio") for k in served)

"""Label values from servers and hosts reach ``/metrics`` as the screen shows them: no
control character, DEL or bidi mark arrives raw at a terminal running ``curl``; the JSON
report keeps the exact data."""

from __future__ import annotations

import json

from export_helpers import NOW, up
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import CollectorRegistry

from ndbtop.export.server import SnapshotCollector, make_app
from ndbtop.host.samples import DiskCounters
from ndbtop.host.view import HostView
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.hosts import HostReport
from ndbtop.model.ndbinfo import NdbinfoSample, ThreadCpu
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.as_json import report_json
from ndbtop.sanitise import json_text, sanitise

HOSTILE = 'a\rb\x00c\x1b]0;owned\x07d\x08e\x7f\u202e"\\\n'
"""CR, NUL, an OSC that sets the window title (ESC ... BEL), BS, DEL, a bidi override,
and the three characters the exposition formats escape themselves."""
SHOWN = sanitise(HOSTILE)


def hostile_snapshot() -> ClusterSnapshot:
    """A status, a thread name, a host and a device name that all carry ``HOSTILE``: the
    thread and disk series are rendered by the line cache, the others by the library."""
    sample = NdbinfoSample(taken_at=NOW, ndb_version=525315,
                           threads=(ThreadCpu(2, 0, HOSTILE, exec_pct=50.0),))
    view = HostView(NOW, 1.0, (), None, (), (DiskCounters(HOSTILE, 1, 2, 3, 4, 5, 6, 7, 8, 9),))
    host = HostReport(HOSTILE, "ssh", state="ok", node_ids=(2,), last_ok=NOW, view=view)
    return ClusterSnapshot(taken_at=NOW, wall=1.7e9, interval=1.0,
                           sources=up("mgm", "events", "ndbinfo", "host"),
                           nodes=(NodeStatus(2, "NDB", HOSTILE, version=525315),),
                           ndbinfo=sample, hosts=(host,))


def scrape(encoder) -> bytes:  # type: ignore[no-untyped-def]
    collector = SnapshotCollector(clock=lambda: NOW)
    collector.publish(hostile_snapshot())
    content_type = "application/openmetrics-text" if encoder is openmetrics else "text/plain"
    return collector.render(encoder, content_type)


def test_no_control_character_reaches_the_text_or_openmetrics_exposition() -> None:
    from prometheus_client.exposition import generate_latest as text

    for encoder in (text, openmetrics):
        body = scrape(encoder)
        for _ in range(2):  # the first scrape renders, the second serves the lines kept
            body = scrape(encoder)
            lines = body.decode().split("\n")
            assert all(c >= " " and c not in "\x7f\u202e" for line in lines for c in line)
            assert body.count(b'\\x1b]0;owned\\\\x07') >= 4


def test_label_values_read_back_as_the_screen_shows_them() -> None:
    from prometheus_client.exposition import generate_latest as text

    assert "\\x1b" in SHOWN and "\\u202e" in SHOWN and "\x1b" not in SHOWN
    found: dict[str, set[tuple[str, str]]] = {}
    for family in text_string_to_metric_families(scrape(text).decode()):
        for s in family.samples:
            found.setdefault(s.name, set()).update(s.labels.items())
    assert ("status", SHOWN) in found["ndb_node_status"]
    assert ("thread_name", SHOWN) in found["ndb_thread_cpu_ratio"]
    assert ("host", SHOWN) in found["ndbtop_host_up"]
    assert {("host", SHOWN), ("device", SHOWN)} <= found["ndbtop_host_disk_reads_completed_total"]
    assert ("source", "mgm") in found["ndbtop_source_up"]


def test_the_library_and_the_line_cache_write_the_same_escaped_labels() -> None:
    registry = CollectorRegistry(auto_describe=False)
    collector = SnapshotCollector(clock=lambda: NOW)
    collector.publish(hostile_snapshot())
    registry.register(collector)  # type: ignore[arg-type]
    assert sorted(openmetrics(registry).split(b"\n")) == sorted(scrape(openmetrics).split(b"\n"))


def test_the_json_report_keeps_the_exact_data() -> None:
    report = report_json(hostile_snapshot())
    assert report["nodes"][0]["status"] == HOSTILE
    assert json.loads(json_text(report))["nodes"][0]["status"] == HOSTILE


def test_the_index_page_shows_the_connect_string_escaped() -> None:
    app = make_app(SnapshotCollector(), "mgm1:1186\x1b]0;x\x07<b>")
    body = b"".join(app({"PATH_INFO": "/", "REQUEST_METHOD": "GET"}, lambda *a: None))
    assert b"mgm1:1186\\x1b]0;x\\x07&lt;b&gt;" in body and b"\x1b" not in body

"""The exporter's HTTP side against a simulated cluster: formats, pages, and no cluster load."""

from __future__ import annotations

import asyncio
import subprocess

from export_helpers import STARTING_NODE, Served, fetch
from prometheus_client.parser import text_string_to_metric_families

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"


def sample_values(body: bytes, name: str) -> dict[frozenset, float]:
    out = {}
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            if s.name == name:
                out[frozenset(s.labels.items())] = s.value
    return out


async def test_scrapes_never_reach_the_cluster(served: Served) -> None:
    before = served.cluster_requests()
    for _ in range(50):
        status, _, body = await asyncio.to_thread(fetch, served.url)
        assert status == 200 and b"ndb_node_status" in body
    assert served.cluster_requests() == before
    assert served.collector.scrapes == 50


async def test_start_phase_of_the_starting_node(served_starting: Served) -> None:
    _, _, body = await asyncio.to_thread(fetch, served_starting.url)
    cluster = served_starting.sim.cluster
    phases = sample_values(body, "ndb_node_start_phase")
    expected = {frozenset({("node_id", str(n.node_id))}): float(n.start_phase)
                for n in cluster.data_nodes.values() if n.state == "STARTING"}
    assert phases == expected
    assert expected[frozenset({("node_id", str(STARTING_NODE))})] >= 2
    up = sample_values(body, "ndbtop_source_up")
    assert up[frozenset({("source", "ndbinfo")})] == 0
    assert not sample_values(body, "ndb_thread_cpu_ratio")


async def test_figures_are_those_of_the_cluster(served: Served) -> None:
    _, _, body = await asyncio.to_thread(fetch, served.url)
    snap = served.hub.snapshot()
    assert snap.ndbinfo is not None
    assert len(sample_values(body, "ndb_thread_cpu_ratio")) == len(snap.ndbinfo.threads)
    up = sample_values(body, "ndbtop_source_up")
    for name in ("mgm", "events", "ndbinfo", "host"):
        assert up[frozenset({("source", name)})] == 1.0


async def test_text_or_openmetrics_by_the_accept_header(served: Served) -> None:
    status, ctype, body = await asyncio.to_thread(fetch, served.url)
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4")
    assert b"# TYPE ndb_transactions_total counter" in body and not body.endswith(b"# EOF\n")
    status, ctype, body = await asyncio.to_thread(fetch, served.url, OPENMETRICS)
    assert status == 200 and ctype.startswith("application/openmetrics-text")
    assert b"# TYPE ndb_transactions counter" in body and body.endswith(b"# EOF\n")


async def test_root_page_links_to_metrics_and_other_paths_are_not_found(served: Served) -> None:
    base = served.url.removesuffix("metrics")
    status, ctype, body = await asyncio.to_thread(fetch, base)
    assert status == 200 and ctype.startswith("text/html")
    assert b'<a href="metrics">/metrics</a>' in body
    status, _, _ = await asyncio.to_thread(fetch, base + "nothing-here")
    assert status == 404


async def test_promtool_finds_no_lint_problem(served: Served) -> None:
    _, _, body = await asyncio.to_thread(fetch, served.url)
    result = await asyncio.to_thread(
        subprocess.run, ["promtool", "check", "metrics"], input=body, capture_output=True,
        timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == b"" and result.stderr == b""


async def test_a_fault_in_rendering_is_a_500_and_one_line(
        served: Served, capsys) -> None:  # type: ignore[no-untyped-def]
    def broken(*args: object) -> bytes:
        raise ValueError("no such family")

    served.collector.render = broken  # type: ignore[method-assign]
    for _ in range(3):
        status, _, body = await asyncio.to_thread(fetch, served.url)
        assert status == 500
        assert body == b"cannot serve the metrics: ValueError: no such family\n"
    assert capsys.readouterr().err == (
        "ndbtop export: cannot serve the metrics: ValueError: no such family\n")

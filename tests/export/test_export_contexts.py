"""One exporter for many clusters: every series labelled with its context, /probe as
Prometheus's multi-target exporters serve it, and a real Prometheus scraping three
contexts through contrib/'s scrape configuration."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from export_helpers import Served
from prometheus_server import ROOT, Prometheus
from prometheus_server import fetch as get

from ndbtop.cli import main
from ndbtop.cli.export import contexts_served
from ndbtop.cli.parser import build_parser
from ndbtop.contexts import clusters_path
from ndbtop.errors import UsageError
from ndbtop.export.catalogue import BY_NAME
from ndbtop.export.lines import cluster_label, with_label
from ndbtop.export.many import START_REASONS, NotStarted, make_multi_app, merge_expositions
from ndbtop.export.server import MetricsServer, SnapshotCollector

SCRAPE = ROOT / "contrib" / "prometheus" / "ndbtop-contexts.yml"
TEXT = "text/plain; version=0.0.4; charset=utf-8"


def test_every_sample_line_gets_the_label_first() -> None:
    body = (b'# HELP a x {y}\n# TYPE a gauge\na 1.0\nb{node_id="2",s="a b"} 2.0\n'
            b"c{} 3.0\n# EOF\n")
    assert with_label(body, cluster_label("prod")) == (
        b'# HELP a x {y}\n# TYPE a gauge\na{cluster="prod"} 1.0\n'
        b'b{cluster="prod",node_id="2",s="a b"} 2.0\nc{cluster="prod"} 3.0\n# EOF\n')
    assert cluster_label('a"b\\') == b'cluster="a\\"b\\\\"'


def test_expositions_merge_family_by_family() -> None:
    a = b'# HELP x h\n# TYPE x gauge\nx{cluster="a"} 1.0\n# HELP y h\n# TYPE y gauge\ny 2\n'
    b = b'# HELP y h\n# TYPE y gauge\ny{cluster="b"} 3\n# HELP x h\n# TYPE x gauge\nx 4\n'
    assert merge_expositions([a, b]) == (
        b'# HELP x h\n# TYPE x gauge\nx{cluster="a"} 1.0\nx 4\n'
        b'# HELP y h\n# TYPE y gauge\ny 2\ny{cluster="b"} 3\n')
    merged = merge_expositions([a + b"# EOF\n", b + b"# EOF\n"])
    assert merged.endswith(b'y{cluster="b"} 3\n# EOF\n') and merged.count(b"# EOF") == 1


async def test_a_context_labels_every_series_of_its_exporter(served: Served) -> None:
    collector = SnapshotCollector(cluster="prod")
    collector.publish(served.hub.snapshot())
    body = collector.render(*_text_encoder()).decode()
    samples = [line for line in body.splitlines() if line and not line.startswith("#")]
    assert len(samples) > 100
    assert all(line.split("{", 1)[1].startswith('cluster="prod"') for line in samples)
    unlabelled = SnapshotCollector()
    unlabelled.publish(served.hub.snapshot())
    assert "cluster=" not in unlabelled.render(*_text_encoder()).decode()


def _text_encoder() -> tuple[Any, str]:
    from prometheus_client.exposition import choose_encoder

    return choose_encoder("text/plain")


def write_clusters(text: str) -> None:
    path = clusters_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    path.write_text(text)
    os.chmod(path, 0o600)


def write_contexts(sims: dict[str, Any]) -> None:
    write_clusters("".join(f'[{name}]\nconnectstring = "{sim.connectstring}"\nno_sql = true\n'
                           for name, sim in sims.items()))


async def test_one_exporter_serves_three_contexts_to_prometheus(
        start_sim: Callable[..., Awaitable[Any]], tmp_path: Path,
        until: Callable[..., Awaitable[None]]) -> None:
    sims = {"prod": await start_sim("threads"), "dr": await start_sim("node-groups"),
            "staging": await start_sim("single-user")}
    write_contexts(sims)
    args = build_parser().parse_args(["export", "--contexts", "--interval", "0.5"])
    watched, app, described = contexts_served(args)
    assert [name for name, _, _ in watched] == ["prod", "dr", "staging"]
    assert all(hub.host is None and hub.sql is None for _, hub, _ in watched)
    server = MetricsServer(None, "127.0.0.1", 0, described, app=app)
    server.start()
    for _, hub, _ in watched:
        await hub.start()

    async def publish() -> None:
        while True:
            for _, hub, collector in watched:
                collector.publish(hub.snapshot())
            await asyncio.sleep(0.25)

    publisher = asyncio.create_task(publish())
    base = f"http://127.0.0.1:{server.port}"
    prometheus = None
    try:
        await until(lambda: all(hub.snapshot().nodes for _, hub, _ in watched), 10,
                    "every cluster's status")
        for _, hub, collector in watched:
            collector.publish(hub.snapshot())
        status, body = await asyncio.to_thread(get, f"{base}/probe?context=dr")
        assert status == 200 and b'ndb_node_status{cluster="dr",' in body
        assert b'cluster="prod"' not in body
        status, body = await asyncio.to_thread(get, f"{base}/metrics")
        assert status == 200 and body.count(b"# HELP ndb_node_status ") == 1
        assert {b'cluster="prod"', b'cluster="dr"', b'cluster="staging"'} <= set(
            body.split(b",", 1)[0].split(b"{", 1)[-1] for body in body.splitlines())
        assert (await asyncio.to_thread(get, f"{base}/probe"))[0] == 400
        status, body = await asyncio.to_thread(get, f"{base}/probe?context=qa")
        assert status == 404 and b"known: prod, dr, staging" in body
        # contrib/'s scrape configuration, pointed at this exporter.
        scrape = SCRAPE.read_text().replace("ndbtop-host:11186", f"127.0.0.1:{server.port}")
        prometheus = Prometheus(tmp_path, "", scrape)
        result = await asyncio.to_thread(
            prometheus.wait_for, 'ndb_node_status{status="STARTED"} == 1', 7)
        started: dict[str, int] = {}
        for r in result:
            labels = r["metric"]
            assert labels["instance"] == labels["cluster"] and labels["job"] == "ndb"
            started[labels["cluster"]] = started.get(labels["cluster"], 0) + 1
        assert started == {name: sum(1 for n in sim.cluster.data_nodes.values()
                                     if n.state == "STARTED")
                           for name, sim in sims.items()}
        up = await asyncio.to_thread(prometheus.wait_for, 'up{job="ndb"}', 3)
        assert {r["metric"]["instance"]: r["value"][1] for r in up} == {
            "prod": "1", "dr": "1", "staging": "1"}
        # The dashboard's variable lists the contexts.
        values = await asyncio.to_thread(prometheus.api, "label/cluster/values")
        assert sorted(values) == ["dr", "prod", "staging"]
    finally:
        if prometheus is not None:
            prometheus.stop()
        publisher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await publisher
        await asyncio.to_thread(server.close)
        for _, hub, _ in watched:
            await hub.stop()


def test_the_multi_app_index_links_every_context() -> None:
    app = make_multi_app({"prod": SnapshotCollector(cluster="prod")}, "/etc/clusters.toml")
    seen: list[str] = []
    body = b"".join(app({"PATH_INFO": "/", "REQUEST_METHOD": "GET"},
                        lambda status, headers: seen.append(status)))
    assert seen == ["200 OK"] and b'href="probe?context=prod"' in body
    body = b"".join(app({"PATH_INFO": "/nope", "REQUEST_METHOD": "GET"},
                        lambda status, headers: seen.append(status)))
    assert seen[-1] == "404 Not Found" and b"/probe?context=NAME" in body


def test_a_context_that_could_not_start_is_served_down_with_its_reason() -> None:
    body = NotStarted("prod", "password_command").render(*_text_encoder()).decode()
    samples = [line for line in body.splitlines() if not line.startswith("#")]
    assert samples == ['ndbtop_source_up{cluster="prod",source="mgm"} 0.0',
                       'ndbtop_context_start_error{cluster="prod",reason="password_command"} 1.0']
    with pytest.raises(ValueError):
        NotStarted("prod", "the password was wrong")
    # The reasons are a fixed vocabulary, every one of them in the metric's help.
    assert all(reason in BY_NAME["ndbtop_context_start_error"].help for reason in START_REASONS)


UNSTARTABLE = """\
[prod]
connectstring = "127.0.0.1:1"
no_sql = true

[dr]
connectstring = "127.0.0.1:2"
mysql_host = "127.0.0.1"
password_command = "sh -c 'echo hunter2; echo vault sealed >&2; exit 1'"

[staging]
connectstring = "127.0.0.1:3"
ssh_config = "/nonexistent/ssh_config"
no_sql = true

[qa]
connectstring = "127.0.0.1:4:5"
no_sql = true

[lab]
connectstring = "127.0.0.1:6"
defaults_file = "/nonexistent/my.cnf"
"""


def test_a_context_that_cannot_start_is_served_down_and_never_stops_the_others(
        capsys: pytest.CaptureFixture[str]) -> None:
    write_clusters(UNSTARTABLE)
    args = build_parser().parse_args(["export", "--contexts"])
    watched, app, described = contexts_served(args)
    assert [name for name, _, _ in watched] == ["prod"]
    assert described.endswith("; not started: dr, staging, qa, lab")
    log = capsys.readouterr().err.splitlines()
    assert [line.split(":", 1)[1].split(")", 1)[0] for line in log] == [
        " dr not started (password_command", " staging not started (ssh",
        " qa not started (connectstring", " lab not started (sql_options"]
    assert "vault sealed" in log[0] and "hunter2" not in "\n".join(log)

    def probe(name: str) -> tuple[list[str], str]:
        seen: list[str] = []
        body = b"".join(app({"PATH_INFO": "/probe", "QUERY_STRING": f"context={name}",
                             "REQUEST_METHOD": "GET"}, lambda status, _: seen.append(status)))
        return seen, body.decode()

    seen, body = probe("staging")
    assert seen == ["200 OK"]
    assert 'ndbtop_source_up{cluster="staging",source="mgm"} 0.0' in body
    assert 'ndbtop_context_start_error{cluster="staging",reason="ssh"} 1.0' in body
    # /metrics serves every context, the ones that did not start among them.
    seen = []
    body = b"".join(app({"PATH_INFO": "/metrics", "REQUEST_METHOD": "GET"},
                        lambda status, _: seen.append(status))).decode()
    reasons = {line.split('"')[1]: line.split('"')[3] for line in body.splitlines()
               if line.startswith("ndbtop_context_start_error{")}
    assert seen == ["200 OK"] and reasons == {
        "dr": "password_command", "staging": "ssh", "qa": "connectstring", "lab": "sql_options"}


REPLICATING = """\
[prod]
connectstring = "127.0.0.1:5"
mysql_host = "127.0.0.1"
mysql_port = 7
replicates_to = "dr"

[dr]
connectstring = "127.0.0.1:6"
mysql_host = "127.0.0.1"
mysql_port = 8

[staging]
connectstring = "127.0.0.1:9"
no_sql = true
"""


def test_contexts_take_the_lag_threshold_where_they_replicate() -> None:
    write_clusters(REPLICATING)
    args = build_parser().parse_args(["export", "--contexts", "--replication-lag-threshold",
                                      "5"])
    watched, _, described = contexts_served(args)
    assert "not started" not in described
    setups = {name: hub.replication.setup if hub.replication else None
              for name, hub, _ in watched}
    assert setups["staging"] is None
    assert setups["prod"] is not None and setups["prod"].lag_threshold_s == 5.0
    assert setups["dr"] is not None and setups["dr"].lag_threshold_s == 5.0
    write_clusters(UNSTARTABLE.split("[dr]")[0])
    with pytest.raises(UsageError, match=r"no context of .* replicates"):
        contexts_served(args)


@pytest.mark.parametrize("option", [["--mysql-user", "monitor"], ["-p"], ["--ssh"],
                                    ["--replica-mysql-host", "127.0.0.1"],
                                    ["--ndb-tls-search-path", "/tls"], ["--ssl-ca", "ca.pem"]])
def test_contexts_refuse_what_each_context_sets_itself(
        option: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # Each context reaches its cluster with its own settings: one value for all of them
    # would be ignored or wrong, so it is refused.
    with pytest.raises(SystemExit) as refused:
        main(["export", "--contexts", *option])
    assert refused.value.code == 2
    assert "does not apply with --contexts" in capsys.readouterr().err

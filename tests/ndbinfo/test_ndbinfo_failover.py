"""Several SQL nodes: two real MariaDB servers, the first killed and brought back.

The reader keeps reading through the second while the first is down (no refresh
lost), goes back to the first once it answers again, and names every server in
its errors. The host list is parsed as ``--mysql-host`` takes it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mariadb_fixture import NDBTOP_PASSWORD, NDBTOP_USER, MariaDbServer, private_mariadb

from ndbtop.cli import main
from ndbtop.collect.hub import Hub
from ndbtop.collect.sql import SqlSource
from ndbtop.errors import UsageError
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.failover import (
    FailoverReader,
    auto_candidates,
    candidate_options,
    failover_reader,
    is_host_list,
    parse_host_list,
)
from ndbtop.ndbinfo.options import MysqlOptions, resolve_mysql_options
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import build_scenario
from ndbtop.tui.widgets.header import source_text


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MariaDbServer, ...]]:
    with private_mariadb(tmp_path_factory.mktemp("sql1")) as first, private_mariadb(
        tmp_path_factory.mktemp("sql2")
    ) as second:
        yield first, second


def base() -> MysqlOptions:
    return MysqlOptions(host="127.0.0.1", user=NDBTOP_USER, password=NDBTOP_PASSWORD,
                        connect_timeout=2.0)


async def test_kill_the_first_the_second_answers_within_the_refresh_then_the_first_again(
    two: tuple[MariaDbServer, MariaDbServer],
) -> None:
    first, second = two
    hosts = (("127.0.0.1", first.port), ("127.0.0.1", second.port))
    options = candidate_options(base(), hosts)
    reader = FailoverReader(lambda: options, NdbinfoCollector, probe_every=0.0)
    samples = []
    source = SqlSource(reader, "list", 1.0, samples.append, lambda: None)
    try:
        await source.attempt()
        assert source.status.state is SourceState.CONNECTED
        assert source.status.target == f"ndbtop@127.0.0.1:{first.port}"
        assert source.status.others == (f"ndbtop@127.0.0.1:{second.port} standby",)

        first.kill()
        await source.attempt()  # the same refresh reads from the second
        assert source.status.state is SourceState.CONNECTED and len(samples) == 2
        assert source.status.target == f"ndbtop@127.0.0.1:{second.port}"
        (other,) = source.status.others
        assert other.startswith(f"ndbtop@127.0.0.1:{first.port} down: ")
        assert f"127.0.0.1:{first.port}" in other.partition("down: ")[2]  # the error names it
        assert samples[-1].nodes  # a real sample, not an empty one
        assert reader.switches[-1][1] == f"ndbtop@127.0.0.1:{second.port}"
        await source.attempt()
        assert source.status.target == f"ndbtop@127.0.0.1:{second.port}"

        first.start()
        await source.attempt()  # it answers again: back to the first
        assert source.status.target == f"ndbtop@127.0.0.1:{first.port}"
        assert source.status.others == (f"ndbtop@127.0.0.1:{second.port} standby",)
        assert [s[2].split(" ")[-2:] for s in reader.switches[-1:]] == [["answers", "again"]]

        first.kill()
        second.kill()
        await source.attempt()
        assert source.status.state is SourceState.RETRYING
        error = source.status.error or ""
        assert f"127.0.0.1:{first.port}" in error and f"127.0.0.1:{second.port}" in error
    finally:
        await source.close()
        reader.close()
        for server in (first, second):
            if not server.running:
                server.start()


def test_an_option_file_holds_the_list_and_passwords_apply_to_every_host(tmp_path: Path) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[ndbtop]\nhost = sql1,sql2:3307,[fd00::5]:3308\nport = 3310\n"
                   "user = monitor\npassword = pw\nssl-ca = /etc/ca.pem\n")
    options = resolve_mysql_options({}, {}, cnf, tmp_path)
    assert is_host_list(options.host)
    reader, summary = failover_reader(options, NdbinfoCollector)
    assert summary == "monitor@sql1:3310,sql2:3307,[fd00::5]:3308"
    each = reader._candidates()
    assert [(o.host, o.port) for o in each] == [("sql1", 3310), ("sql2", 3307), ("fd00::5", 3308)]
    assert {(o.password, o.ssl_ca, o.socket) for o in each} == {("pw", "/etc/ca.pem", None)}
    assert "pw" not in repr(each)


@pytest.mark.parametrize(
    ("text", "hosts"),
    [
        ("sql1", (("sql1", None),)),
        ("sql1, sql2:3307 ,sql3", (("sql1", None), ("sql2", 3307), ("sql3", None))),
        ("[::1]:3306,[fd00::1]", (("::1", 3306), ("fd00::1", None))),
    ],
)
def test_host_lists(text: str, hosts: tuple[tuple[str, int | None], ...]) -> None:
    assert parse_host_list(text) == hosts


@pytest.mark.parametrize("text", ["sql1,,sql2", "sql1:0", "sql1:70000", "sql1:x", "[::1",
                                  "[::1]x", ":3306"])
def test_bad_host_lists(text: str) -> None:
    with pytest.raises(UsageError, match="--mysql-host"):
        parse_host_list(text)


def test_single_hosts_are_not_lists() -> None:
    assert not is_host_list("sql1") and not is_host_list("localhost")
    assert not is_host_list("fd00::5") and not is_host_list(None)
    assert is_host_list("auto") and is_host_list("sql1:3307") and is_host_list("a,b")


def test_auto_takes_connected_api_nodes_with_an_address() -> None:
    nodes = [
        NodeStatus(2, "NDB", "STARTED", address="10.0.0.2"),
        NodeStatus(7, "API", "CONNECTED", address="10.0.0.7"),
        NodeStatus(5, "API", "CONNECTED", address="10.0.0.5"),
        NodeStatus(6, "API", "NO_CONTACT", address="10.0.0.6"),
        NodeStatus(8, "API", "CONNECTED", address="0.0.0.0"),
        NodeStatus(9, "API", "CONNECTED", address="10.0.0.5"),
        NodeStatus(10, "API", "CONNECTED", address="evil\x1b[2Jhost"),
        NodeStatus(11, "API", "CONNECTED", address="a b"),
        NodeStatus(1, "MGM", "CONNECTED", address="10.0.0.1"),
    ]
    got = auto_candidates(MysqlOptions(host="auto", port=3307, user="m"), nodes)
    assert [(o.host, o.port) for o in got] == [("10.0.0.5", 3307), ("10.0.0.7", 3307)]


def test_auto_without_api_nodes_waits_with_a_reason() -> None:
    reader, summary = failover_reader(MysqlOptions(host="auto", user="m"), NdbinfoCollector)
    assert summary == "m@(connected API nodes):3306"
    with pytest.raises(Exception, match="no connected API node"):
        reader.connect()


def test_header_names_the_sql_node_read_and_the_others() -> None:
    now = time.monotonic()
    src = SourceStatus(
        "ndbinfo", SourceState.CONNECTED, "monitor@sql2:3307", last_ok=now,
        others=("monitor@sql1:3306 down: cannot connect to the SQL node at sql1:3306: "
                "connection refused", "monitor@sql3:3306 standby"),
    )
    assert source_text(src, now, 1.0).plain == (
        "ndbinfo sql2:3307 (sql1:3306 down, sql3:3306 standby) 0s"
    )
    assert src.as_json(now)["others"] == list(src.others)


async def test_auto_reads_from_a_connected_api_node_the_management_server_reports(
    until: Any,
) -> None:
    cluster = build_scenario("backup")
    sim = Simulator(cluster, SimClock(speed=1.0, start_at=cluster.now))
    await sim.start(sql_port=0)
    assert sim.sql_port is not None
    base_options = MysqlOptions(host="auto", port=sim.sql_port, user="root", password="")
    hub = Hub(parse_connectstring(sim.connectstring), sim.clock, 0.2, events=False,
              ndbinfo=failover_reader(base_options, NdbinfoCollector))
    await hub.start()
    try:
        await until(
            lambda: (s := hub.snapshot().source("ndbinfo")) is not None
            and s.state is SourceState.CONNECTED,
            what="ndbinfo read through an API node's address",
        )
        src = hub.snapshot().source("ndbinfo")
        assert src is not None and src.target == f"root@127.0.0.1:{sim.sql_port}"
        assert hub.snapshot().ndbinfo is not None
    finally:
        await hub.stop()
        await sim.close()


def test_a_socket_does_not_apply_to_several_sql_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--mysql-host", "a,b", "--mysql-socket", "/tmp/x", "--once",
                 "-c", "127.0.0.1:1"]) == 2
    assert "--mysql-socket does not apply to several SQL nodes" in capsys.readouterr().err

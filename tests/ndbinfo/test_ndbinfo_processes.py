"""``ndbinfo.processes`` and every ``config_values`` row: read only while something asks for
them, parsed from rows as the server sends them (ndbinfo.md §2 ``processes``: the view gives
NULL for a pid of 0, no angel for an API node on Linux, ``mysql://host:port`` for a SQL node),
against the simulated SQL node and against MariaDB holding the real column layout
(ndbinfo-schema.json)"""

from __future__ import annotations

from mariadb_fixture import NDBTOP_PASSWORD, NDBTOP_USER, NODE_VERSION, MariaDbServer
from sim_reads import samples_wanting

from ndbtop.model.ndbinfo import ApiProcess
from ndbtop.ndbinfo.collector import (
    MAX_ON_DEMAND_PER_SAMPLE,
    MAX_QUERIES_PER_SAMPLE,
    NdbinfoCollector,
)
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.ndbinfo.rows import parse_processes
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.scenarios import build_scenario


def test_rows_as_the_server_sends_them() -> None:
    rows = [
        (51, b"mysql-8.0.40 ndb-8.0.40", None, None, b"ndb_restore", b""),
        (50, "mysql-8.0.40 ndb-8.0.40", 6001, None, "mysqld", "mysql://10.0.0.9:3306"),
        (None, "x", 1, 1, "y", "z"),
        (52, "v"),
    ]
    assert parse_processes(rows) == (
        ApiProcess(50, "mysql-8.0.40 ndb-8.0.40", 6001, None, "mysqld", "mysql://10.0.0.9:3306"),
        ApiProcess(51, "mysql-8.0.40 ndb-8.0.40", None, None, "ndb_restore", ""),
    )


async def test_the_simulated_sql_node_serves_them_only_when_asked() -> None:
    cluster = build_scenario("threads")
    cluster.advance(10)
    before, wanted = await samples_wanting(SimNdbinfo(cluster), {"processes"})
    assert before.processes == () and before.panel_read_at("processes") is None
    assert wanted.panel_read_at("processes") is not None
    assert wanted.queries <= MAX_QUERIES_PER_SAMPLE + MAX_ON_DEMAND_PER_SAMPLE
    api = [n for n in cluster.config.api_nodes if n.node_id in cluster.api_connected]
    assert [p.node_id for p in wanted.processes] == sorted(a.node_id for a in api)
    sql = next(p for p in wanted.processes if p.node_id == cluster.config.sql_node_id)
    assert sql.process_name == "mysqld" and sql.service_uri.startswith("mysql://")
    assert sql.angel_process_id is None and sql.process_id


def test_mariadb_with_the_real_columns(mariadb: MariaDbServer) -> None:
    options = MysqlOptions(host="127.0.0.1", port=mariadb.port, user=NDBTOP_USER,
                           password=NDBTOP_PASSWORD)
    collector = NdbinfoCollector(options)
    collector.connect()
    try:
        assert collector.sample().processes == ()
        collector.wanted = frozenset({"processes"})
        sample = collector.sample()
    finally:
        collector.close()
    # Only the API node: the data and management nodes' rows are not read.
    assert sample.processes == (
        ApiProcess(50, NODE_VERSION, 6001, None, "mysqld", "mysql://192.168.56.105:3306"),)


def test_every_config_value_is_read_once_on_demand(mariadb: MariaDbServer) -> None:
    options = MysqlOptions(host="127.0.0.1", port=mariadb.port, user=NDBTOP_USER,
                           password=NDBTOP_PASSWORD)
    collector = NdbinfoCollector(options)
    collector.connect()
    try:
        sample = collector.sample()
        every = collector.read_all_config_values()
    finally:
        collector.close()
    # A refresh reads only the parameters the Config view compares (106 is not one of them).
    assert {p for _, p, _ in sample.config_values} == {112}
    assert every == ((1, 106, "2048"), (1, 112, "31457280"), (2, 106, "2048"),
                     (2, 112, "31457280"))

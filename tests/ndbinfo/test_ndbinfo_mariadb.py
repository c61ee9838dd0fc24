"""The collector against a real MySQL-protocol server: a private MariaDB whose ``ndbinfo``
database holds rows from real NDB 7.5 clusters (see mariadb_fixture.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import pytest
from mariadb_fixture import (
    FIXTURE_ROWS,
    LIMITED_PASSWORD,
    LIMITED_USER,
    NDBTOP_PASSWORD,
    NDBTOP_USER,
    UNICODE_PASSWORD,
    UNICODE_USER,
    MariaDbServer,
    os_tid,
)

from ndbtop.mgm.version import make_version
from ndbtop.model.derive import hit_ratio, hit_ratios
from ndbtop.model.ndbinfo import (
    DiskWriteSpeed,
    LogSpace,
    MemoryUse,
    NdbinfoNode,
    NdbinfoSample,
    NodeLinks,
)
from ndbtop.ndbinfo.collector import MAX_QUERIES_PER_SAMPLE, NdbinfoCollector
from ndbtop.ndbinfo.errors import (
    SqlAccessDenied,
    SqlConnectError,
    SqlConnectionLost,
    SqlUnknownHost,
)
from ndbtop.ndbinfo.options import MysqlOptions, resolve_mysql_options


def tcp_options(server: MariaDbServer, user: str = NDBTOP_USER, password: str = NDBTOP_PASSWORD):
    return MysqlOptions(host="127.0.0.1", port=server.port, user=user, password=password)


@contextmanager
def collector(options: MysqlOptions) -> Iterator[NdbinfoCollector]:
    c = NdbinfoCollector(options)
    c.connect()
    try:
        yield c
    finally:
        c.close()


@contextmanager
def table_replaced(server: MariaDbServer, table: str, ddl: str | None) -> Iterator[None]:
    """``ndbinfo.table`` moved aside (and replaced by ``ddl`` if given) for the block."""
    with server.admin() as cur:
        cur.execute(f"RENAME TABLE ndbinfo.`{table}` TO ndbinfo.`{table}_saved`")
        if ddl:
            cur.execute(ddl)
    try:
        yield
    finally:
        with server.admin() as cur:
            if ddl:
                cur.execute(f"DROP TABLE ndbinfo.`{table}`")
            cur.execute(f"RENAME TABLE ndbinfo.`{table}_saved` TO ndbinfo.`{table}`")


def sample_of(server: MariaDbServer, **kw: str) -> NdbinfoSample:
    with collector(tcp_options(server, **kw)) as c:
        return c.sample()


def test_the_version_comes_from_processes_when_the_server_has_no_ndbinfo_version(
    mariadb: MariaDbServer,
) -> None:
    with collector(tcp_options(mariadb)) as c:
        assert c.version == make_version(7, 5, 7)
        assert c.sample().ndb_version == make_version(7, 5, 7)


def test_hit_ratios_follow_the_documented_formula_summed_per_node(mariadb: MariaDbServer) -> None:
    with mariadb.admin() as cur:
        cur.execute(
            "SELECT node_id, block_instance, ROUND(100 * page_requests_direct_return /"
            " (page_requests_direct_return + page_requests_wait_io), 2)"
            " FROM ndbinfo.diskpagebuffer ORDER BY node_id, block_instance"
        )
        per_instance = cur.fetchall()
    assert per_instance == (
        (1, 1, Decimal("99.84")),
        (1, 2, Decimal("50.00")),
        (2, 1, Decimal("99.84")),
        (2, 2, Decimal("50.00")),
    )
    sample = sample_of(mariadb)
    by_node = {d.node_id: d for d in sample.disk_page_buffer}
    assert (by_node[1].page_requests_direct_return, by_node[1].page_requests_wait_io) == (
        10488 + 1,
        17 + 1,
    )
    assert (by_node[2].page_requests_direct_return, by_node[2].page_requests_wait_io) == (
        10408 + 1,
        17 + 1,
    )
    assert by_node[1].pages_read == 18 and by_node[1].pages_written == 12
    ratios = {h.node_id: h.since_start_pct for h in hit_ratios(None, sample.disk_page_buffer, 0)}
    assert ratios[1] == pytest.approx(100 * 10489 / 10507)
    assert ratios[2] == pytest.approx(100 * 10409 / 10427)
    assert round(ratios[1], 2) == 99.83 == round(hit_ratio(10489, 18) or 0, 2)


def test_threads_come_with_names_blocks_os_ids_and_cpu(mariadb: MariaDbServer) -> None:
    threads = {(t.node_id, t.thr_no): t for t in sample_of(mariadb).threads}
    assert sorted(threads) == [(n, t) for n in (1, 2) for t in range(4)]
    assert [threads[(2, t)].thread_name for t in range(4)] == ["main", "rep", "ldm", "recv"]
    rep = threads[(1, 1)]
    assert rep.blocks.count("PGMAN") == 1 and "DBINFO" in rep.blocks
    assert threads[(1, 2)].blocks == (
        "DBLQH",
        "DBACC",
        "DBTUP",
        "DBTUX",
        "BACKUP",
        "RESTORE",
        "PGMAN",
        "THRMAN",
    )
    recv = threads[(2, 3)]
    assert (recv.os_user_pct, recv.os_system_pct, recv.exec_pct) == (2.0, 2.0, 4.0)
    assert recv.cpu_pct == 4.0
    assert recv.os_tid == os_tid(2, 3)
    assert all(t.spin_pct == 0.0 for t in threads.values())


def test_every_panel_the_version_has_matches_the_fixture_rows(mariadb: MariaDbServer) -> None:
    sample = sample_of(mariadb)
    assert sample.nodes == (
        NdbinfoNode(1, 2000, "STARTED", 0, 1),
        NdbinfoNode(2, 2000, "STARTED", 0, 1),
    )
    assert sample.memory == tuple(MemoryUse(*row) for row in FIXTURE_ROWS["memoryusage"])
    assert sample.memory[1].memory_type == "Index memory"
    assert sample.log_spaces[:5] == (
        *(
            LogSpace(1, "REDO", 0, part, 256 << 20, (1 << 20) if part == 0 else 0)
            for part in range(4)
        ),
        LogSpace(1, "DD-UNDO", 20, 0, 16 << 20, 2 << 20),
    )
    assert sorted(sample.log_spaces, key=lambda s: (s.node_id, s.log_id, s.log_part)) == sorted(
        (LogSpace(*row) for row in FIXTURE_ROWS["logspaces"]),
        key=lambda s: (s.node_id, s.log_id, s.log_part),
    )
    assert LogSpace(2, "REDO", 0, 1, 16 << 20, 320 << 10) in sample.log_buffers
    assert sample.links == (
        NodeLinks(1, 2, 1, 139508260, 117712512, down=(3,)),
        NodeLinks(2, 2, 1, 117712512, 139508260, down=(3,)),
    )
    assert sample.disk_write_speed[0] == DiskWriteSpeed(1, 75000, 130000, 7540, 65235, 1000, 65000)
    assert sample.restart_info == ()


def test_a_table_newer_than_the_cluster_is_unavailable_and_never_queried(
    mariadb: MariaDbServer,
) -> None:
    sample = sample_of(mariadb)
    assert dict(sample.unavailable) == {
        "disk_stat": "ndbinfo.diskstat needs NDB 8.0.19 (this is 7.5.7)"
    }
    assert sample.disk_stat == ()


def test_an_account_without_one_table_loses_only_that_panel(mariadb: MariaDbServer) -> None:
    with collector(tcp_options(mariadb, LIMITED_USER, LIMITED_PASSWORD)) as c:
        samples = [c.sample() for _ in range(10)]
    last = samples[-1]
    reasons = dict(last.unavailable)
    assert reasons["links"] == (
        "no SELECT privilege on ndbinfo.transporters "
        "(needs GRANT SELECT ON ndbinfo.* TO 'limited'@'%')"
    )
    assert last.links == ()
    assert len(last.threads) == 8 and last.memory and last.nodes and last.disk_page_buffer
    assert all(s.queries <= MAX_QUERIES_PER_SAMPLE for s in samples)


def test_a_wrong_password_is_access_denied(mariadb: MariaDbServer) -> None:
    c = NdbinfoCollector(tcp_options(mariadb, password="not-the-password"))
    with pytest.raises(SqlAccessDenied) as failure:
        c.connect()
    message = str(failure.value)
    assert message == "access denied for user 'ndbtop'@'127.0.0.1' (wrong password?)"
    assert "not-the-password" not in message and failure.value.__cause__ is None
    assert not c.connected


def test_a_password_beyond_latin_1_logs_in(mariadb: MariaDbServer) -> None:
    assert len(sample_of(mariadb, user=UNICODE_USER, password=UNICODE_PASSWORD).threads) == 8


def test_an_unknown_host_is_named(mariadb: MariaDbServer) -> None:
    options = MysqlOptions(host="no-such-host.invalid", port=mariadb.port, user="ndbtop")
    with pytest.raises(SqlUnknownHost, match=r"^unknown SQL node host 'no-such-host\.invalid'$"):
        NdbinfoCollector(options).connect()


def test_a_missing_table_makes_its_panel_unavailable(mariadb: MariaDbServer) -> None:
    with table_replaced(mariadb, "memoryusage", None):
        sample = sample_of(mariadb)
    assert dict(sample.unavailable)["memory"] == (
        "table ndbinfo.memoryusage does not exist on this SQL node"
    )
    assert sample.memory == () and sample.log_spaces and sample.threads


def test_a_missing_column_makes_its_panel_unavailable(mariadb: MariaDbServer) -> None:
    ddl = "CREATE TABLE ndbinfo.logbuffers (node_id INT UNSIGNED) ENGINE=MyISAM"
    with table_replaced(mariadb, "logbuffers", ddl):
        sample = sample_of(mariadb)
    assert dict(sample.unavailable)["log_buffers"] == (
        "unknown column 'log_id' in ndbinfo.logbuffers"
    )
    assert sample.log_buffers == () and sample.log_spaces


def test_an_option_file_can_point_at_the_unix_socket(
    mariadb: MariaDbServer, tmp_path: Path
) -> None:
    cnf = tmp_path / "ndbtop.cnf"
    cnf.write_text(
        f"[client]\nsocket = {mariadb.socket}\nuser = nobody\n"
        f'[ndbtop]\nuser = {NDBTOP_USER}\npassword = "{NDBTOP_PASSWORD}"  # quoted: it has a #\n'
    )
    options = resolve_mysql_options({}, {}, cnf, tmp_path)
    assert options.socket == mariadb.socket and options.user == NDBTOP_USER
    with collector(options) as c:
        assert len(c.sample().threads) == 8


def test_a_killed_server_is_a_lost_connection_then_a_refused_one(mariadb: MariaDbServer) -> None:
    c = NdbinfoCollector(tcp_options(mariadb))
    c.connect()
    try:
        mariadb.kill()
        with pytest.raises(SqlConnectionLost) as lost:
            c.sample()
        assert str(lost.value) == f"lost the connection to the SQL node at 127.0.0.1:{mariadb.port}"
        assert not c.connected
        with pytest.raises(SqlConnectError) as refused:
            c.connect()
        assert str(refused.value) == (
            f"cannot connect to the SQL node at 127.0.0.1:{mariadb.port}: connection refused"
        )
    finally:
        c.close()
        if not mariadb.running:
            mariadb.start()
    assert len(sample_of(mariadb).threads) == 8

"""Text reports: a long value from a server is cut with ``…``, and tables stay linear.

The cluster is a hand-written management server (``get status`` as mgm-protocol.md §2.2
gives it) whose configuration (``get config_v2``, §7.4; packed as config-protocol.md
describes) names 100 API nodes, each with a HostName of 20,000 characters: ``--once``
shows a node that is not connected as ``not connected, accepting connect from HOST``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.elide import MAX_CELL_CHARS, MAX_LINE_CHARS, elide
from ndbtop.report.tables import format_table
from ndbtop.sim.config import simple_config
from ndbtop.sim.config_blob import config_reply, pack_v2
from tests.bounds.conftest import GROWTH_LIMIT, growth
from tests.hostile.conftest import loglevel_reply, mgm_script, node_fields

HOST_CHARS = 20_000
API_NODES = 100


def long_hosts_cluster() -> dict[str, object]:
    """Two started data nodes and 100 API slots with 20,000-character HostNames."""
    api = tuple((10 + i, f"api{i}." + "h" * HOST_CHARS) for i in range(API_NODES))
    config = simple_config("long", ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0)), api=api)
    nodes: dict[int, dict[str, object]] = {2: node_fields(2), 3: node_fields(3)}
    for node_id, _ in api:
        nodes[node_id] = node_fields(node_id, type="API", status="NO_CONTACT", version=0,
                                     mysql_version=0, node_group=0, connect_count=0,
                                     address="")
    return mgm_script(nodes, extra=[("get config_v2", config_reply(pack_v2(config))),
                                    ("get cluster loglevel", loglevel_reply())])


async def test_once_cuts_long_host_names_instead_of_padding_every_row(
    scripted: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    server = await scripted(long_hosts_cluster())
    code = await asyncio.to_thread(main, ["-c", server.connectstring, "--no-sql", "--once"])
    out, err = capsys.readouterr()
    assert code == 0, err
    # Unbounded, every one of the ~100 rows was padded to 20,000 characters (2 MB).
    assert len(out) < 100_000
    assert max(len(line) for line in out.splitlines()) <= MAX_LINE_CHARS
    cut = [line for line in out.splitlines() if "accepting connect from api1." in line]
    assert cut and cut[0].endswith("…")


@pytest.mark.parametrize("value", ["x" * 10_000_000, "\x1b[2J" * 1000, "a" * 121, "é" * 500])
def test_a_cell_holds_at_most_max_cell_chars(value: str) -> None:
    table = format_table(("id", "host"), [(n, value) for n in range(100)])
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= len("id") + 2 + MAX_CELL_CHARS
    assert all(line.endswith("…") for line in lines[2:])
    assert "\x1b" not in table


def test_a_cell_within_the_bound_is_kept_whole() -> None:
    value = "/var/lib/mysql-cluster/" + "d" * (MAX_CELL_CHARS - 23)
    assert format_table(("dir",), [(value,)]).splitlines()[2] == value
    assert elide(value) == value


def test_tables_grow_linearly_with_their_rows() -> None:
    def make(n: int) -> list[tuple[object, ...]]:
        return [(i, "STARTED", f"host-{i}" * (1 + i % 50), 1.5 * i, None) for i in range(n)]

    def run(rows: list[tuple[object, ...]]) -> None:
        format_table(("id", "status", "host", "rate", "x"), rows, right=(0, 3))

    assert growth(make, run, 10_000) < GROWTH_LIMIT

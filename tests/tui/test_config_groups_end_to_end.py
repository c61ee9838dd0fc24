"""A management server that answers as the real one does with node 5 down: ``get status``
sends ``node_group: 0`` for it, the configuration puts it in group 1 with node 4. ``--once``,
the live view, the guards and ``rolling-restart --dry-run`` all say group 1 is missing a
node. The replies are written by hand (tests/mgm/config_vectors.py), not by the simulator."""

from __future__ import annotations

import json
import socketserver
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "mgm"))
from config_vectors import STATUS_NODE_5_DOWN, TWO_GROUPS, config_reply
from rich.text import Text

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.commands import RestartNode, StopNode
from ndbtop.actions.guards import assess
from ndbtop.cli import main
from ndbtop.collect.hub import Hub
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.model.config_decode import config_from_blob
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.widgets.keyed_table import KeyedTable
from tests.tui.conftest import wait_until

SIZE = (140, 40)


def plain(cell: object) -> str:
    """A table cell's text without its style."""
    return cell.plain if isinstance(cell, Text) else str(cell)
REPLIES = {
    "get version": b"version\nid: 525315\nmajor: 8\nminor: 4\nbuild: 3\n"
                   b"string: mysql-8.4.3 ndb-8.4.3\nmysql_major: 8\nmysql_minor: 4\n"
                   b"mysql_build: 3\n\n",
    "set clientversion": b"set clientversion reply\nresult: Ok\n\n",
    "get status": STATUS_NODE_5_DOWN,
    "get cluster loglevel": b"get cluster loglevel\nstartup: 7\nshutdown: 7\n"
                            b"statistics: 7\ncheckpoint: 7\nnoderestart: 7\nconnection: 7\n"
                            b"info: 7\nwarning: 7\nerror: 15\ncongestion: 7\ndebug: 7\n"
                            b"backup: 7\nschema: 7\n\n",
    "get config_v2": config_reply(TWO_GROUPS),
    # The subscription is accepted (mgm-protocol.md §5, example 18); no event follows.
    "listen event": b"listen event\nresult: 0\n\n",
    # §7.2: one BackupStatus per started data node, each "Backup not started" (word 1 is 0).
    "dump events": b"dump events reply\nresult: Ok\nevents: 3\n\n" + b"".join(
        b"log event reply\ntype=62\ntime=0\nsource_nodeid=%d\nstarting_node=0\nbackup_id=0\n"
        b"n_bytes_lo=0\nn_bytes_hi=0\nn_records_lo=0\nn_records_hi=0\nn_log_bytes_lo=0\n"
        b"n_log_bytes_hi=0\nn_log_records_lo=0\nn_log_records_hi=0\n\n" % node
        for node in (2, 3, 4)),
}
class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        request: list[bytes] = []
        for raw in self.rfile:
            line = raw.rstrip(b"\r\n")
            if line:
                request.append(line)
                continue
            if not request:
                continue
            reply = REPLIES.get(request[0].decode())
            request = []
            if reply is not None:
                self.wfile.write(reply)
                self.wfile.flush()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@pytest.fixture
def server() -> Iterator[str]:
    """The hand-written server on a loopback port; yields its connect string."""
    srv = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def test_once_puts_node_5_in_group_1(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--once", "--json", "--no-sql", "--no-host", "-c", server]) == 0
    report = json.loads(capsys.readouterr().out)
    groups = {n["node_id"]: n["node_group"] for n in report["nodes"] if n["type"] == "NDB"}
    assert groups == {2: 0, 3: 0, 4: 1, 5: 1}
    assert report["summary"]["node_groups_missing_node"] == [1]
    assert report["summary"]["node_groups_down"] == []
    config = report["config"]
    assert config["generation"] == 7 and config["no_of_replicas"] == 2
    assert [d["node_group"] for d in config["data_nodes"]] == [0, 0, 1, 1]
    node5 = config["data_nodes"][3]
    assert node5 == {
        "node_id": 5, "node_group": 1, "host": "10.0.0.5", "data_dir": "/d",
        "redo_log_bytes": 1 << 30, "startup_status_report_frequency": 0,
        "data_memory": 1 << 30, "disk_page_buffer_memory": 64 << 20,
        "pending_restart": None,
    }


def test_once_text_says_where_node_5_may_connect_from(
        server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--once", "--no-sql", "--no-host", "-c", server]) == 0
    out = capsys.readouterr().out
    assert "node groups missing a node: #1;" in out
    line = next(x for x in out.splitlines() if x.split()[:2] == ["5", "NDB"])
    assert "not connected, accepting connect from 10.0.0.5" in line
    assert line.split()[4] == "1"


def test_rolling_restart_dry_run_pairs_node_4_with_node_5(
        server: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Without --force-degraded the run is refused because node 5 is down.
    assert main(["rolling-restart", "-c", server, "--dry-run"]) == 1
    assert "data node 5 is NO_CONTACT" in capsys.readouterr().out
    assert main(["rolling-restart", "-c", server, "--dry-run", "--force-degraded"]) == 0
    out = capsys.readouterr().out
    assert "configuration generation 7" in out.splitlines()[0]
    steps = [x.strip() for x in out.splitlines() if x.startswith("  ") and "RESTART" in x]
    assert steps == ["1. 2 RESTART", "2. 3 RESTART"]
    assert "node 4 left out: the last started node of node group 1" in out
    assert "node group 1 misses node 5 (NO_CONTACT)" in out
    assert "node group 0 misses" not in out


async def test_guards_name_node_4_as_the_last_of_group_1(server: str) -> None:
    client = MgmClient(parse_connectstring(server))
    try:
        nodes, config = await client.get_status(), config_from_blob(await client.get_config_blob())
    finally:
        await client.close()
    stop4 = assess(StopNode((4,)), nodes, config)
    assert stop4.danger
    assert "last started node of node group 1" in stop4.blockers[0]
    restart2 = assess(RestartNode((2,)), nodes, config)
    assert restart2.allowed
    assert not any("last started node" in w for w in restart2.warnings)


async def test_live_view_puts_node_5_in_group_1(server: str, tmp_path: Path) -> None:
    async def start() -> Hub:
        return Hub(parse_connectstring(server), RealClock(), 0.2, events=False)

    app = NdbtopApp(start, read_only=True, audit=AuditLog(tmp_path / "audit.log"))
    async with app.run_test(size=SIZE):
        await wait_until(lambda: "node groups missing a node: #1" in screen_text(app)
                         and "config gen 7" in screen_text(app), "the configured groups")
        table = app.current_view.query_one("#nodes", KeyedTable)
        assert plain(table.get_cell("5", "group")) == "1"
        assert plain(table.get_cell("4", "group")) == "1"
        assert plain(table.get_cell("5", "host")) == "from 10.0.0.5"
        assert "config gen 7" in screen_text(app)


async def test_live_view_guards_and_rolling_plan_use_group_1(server: str, tmp_path: Path) -> None:
    """The live view's own guards: stopping node 4 warns it is the last started node of
    group 1, and the rolling restart (W) pairs 4 with 5 and names group 1."""
    from textual.widgets import Static

    from ndbtop.tui.screens.confirm import ConfirmAction
    from ndbtop.tui.screens.rolling import RollingRestartScreen

    async def start() -> Hub:
        return Hub(parse_connectstring(server), RealClock(), 0.2, events=False)

    app = NdbtopApp(start, audit=AuditLog(tmp_path / "audit.log"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(lambda: "config gen 7" in screen_text(app), "the configuration")
        for _ in range(10):
            if app.current_view.selected_node() == 4:
                break
            await pilot.press("down")
            await pilot.pause()
        assert app.current_view.selected_node() == 4
        await pilot.press("x")
        await wait_until(lambda: isinstance(app.screen, ConfirmAction) and "last started node"
                         in " ".join(screen_text(app).split()), "the confirmation's guard")
        warnings = plain(app.screen.query_one("#warnings", Static).content)
        assert "last started node of node group 1" in warnings
        assert "node group 0" not in warnings
        await pilot.press("escape")
        await wait_until(lambda: not isinstance(app.screen, ConfirmAction), "it to close")

        await pilot.press("W")
        await wait_until(lambda: isinstance(app.screen, RollingRestartScreen)
                         and "pre-flight" in screen_text(app), "the plan")
        screen = app.screen
        assert isinstance(screen, RollingRestartScreen)
        assert {n: row.node_group for n, row in screen.rows.items()} == {2: 0, 3: 0, 4: 1, 5: 1}
        text = screen_text(app)
        assert "pre-flight: refused: data node 5 is NO_CONTACT" in text
        await pilot.click("#force-degraded")
        await wait_until(lambda: "node 4 left out" in " ".join(screen_text(app).split()),
                         "the plan without node 4")
        text = " ".join(screen_text(app).split())
        assert "node group 1 misses node 5 (NO_CONTACT)" in text
        assert "node 4 left out: the last started node of node group 1" in text
        assert "node group 0 misses" not in text
        assert screen.plan.batches == ((2,), (3,))
    assert not (tmp_path / "audit.log").exists()

"""Data node hosts in the views, on made-up snapshots: the Disk view's section per host
(busiest first, hosts in error named), the Nodes view's %util, the redo initialisation
measured on the host and a failed node's error log."""

from __future__ import annotations

from textual.app import App, ComposeResult

from ndbtop.host.rates import CpuPercent, DiskRates, ThreadRates
from ndbtop.host.view import HostView
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.hosts import ErrorLogEntry, HostReport, RedoMeasure
from ndbtop.model.phases import StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.views.disk import DiskView
from ndbtop.tui.views.nodes import NodesView
from ndbtop.tui.widgets.keyed_table import KeyedTable

MIB = 1 << 20


class OneView(App[None]):
    def __init__(self, view: type) -> None:
        super().__init__()
        self.view_class = view

    def compose(self) -> ComposeResult:
        yield self.view_class(id="view")


def _view(disks: tuple[DiskRates, ...], node: int = 2) -> HostView:
    cpu = CpuPercent(4.0, 0.0, 2.0, 18.5, 0.0, 75.5)
    threads = (
        ThreadRates(99, node, "ndbmtd", 101, "ldm\x1b[31m", 60.0, 5.0, 65.0),
        ThreadRates(99, node, "ndbmtd", 99, "main", 1.0, 1.0, 2.0),
    )
    return HostView(1000.0, 1.0, disks, cpu, threads)


def snapshot() -> ClusterSnapshot:
    quiet = HostReport("db-a", "ssh", (2,), "ok", last_ok=499.0, view=_view(
        (DiskRates("sda", 0.0, 2.0, 0.0, 30.0, wareq_kb=15.0, await_ms=0.4, util_pct=1.5),)),
        error_logs=(ErrorLogEntry(2, "/var/lib/ndb/ndb_2_error.log",
                                  time="Wednesday 25 November 2026 - 10:40:17",
                                  error_code=2305, meaning="Node lost connection",
                                  classification="Arbitration error",
                                  error_data="Arbitrator decided to shutdown this node. "
                                  "Caused by error 2305: 'Node lost'",
                                  caused_by="Caused by error 2305: 'Node lost'",
                                  trace_file="ndb_2_trace.log.2_t3"),))
    busy = HostReport("db-b", "ssh", (3,), "ok", last_ok=499.0, view=_view(
        (DiskRates("nvme0n1", 0.0, 50.0, 0.0, 1600.0, wareq_kb=32.0, await_ms=36.5,
                   util_pct=100.0),
         DiskRates("[red]x[/red]", 0.0, 0.0, 0.0, 0.0, util_pct=0.0),
         DiskRates("sd\x1b[2Jz", 0.0, 0.0, 0.0, 0.0, util_pct=0.0)), node=3),
        redo_init=(RedoMeasure(3, 37, 64, 10 * MIB, 32 * MIB, 1 * MIB, 22.0),))
    down = HostReport("db-c", "ssh", (4,), "error", "ssh: connect to host db-c port 22: "
                      "Connection refused", last_ok=470.0)
    nodes = (
        NodeStatus(2, "NDB", "NO_CONTACT"),
        NodeStatus(3, "NDB", "STARTING", start_phase=1),
        NodeStatus(4, "NDB", "STARTED"),
    )
    timeline = StartTimeline(3, 0, 400.0, True, completed=(), current_phase=2,
                             current_since=450.0, redo_phase=2)
    sources = (SourceStatus("ndbinfo", SourceState.DISABLED, error="--no-sql"),)
    return ClusterSnapshot(taken_at=500.0, wall=500.0, interval=1.0, sources=sources, nodes=nodes,
                           timelines=(timeline,), hosts=(quiet, down, busy))


async def test_disk_view_one_section_per_host_busiest_first() -> None:
    app = OneView(DiskView)
    async with app.run_test(size=(130, 40)) as pilot:
        view = app.query_one(DiskView)
        view.show(snapshot(), 500.0)
        await pilot.pause()
        keys = view.query_one("#host", KeyedTable).row_keys_in_order()
        assert keys == ["h:db-b", "d:db-b/nvme0n1", "d:db-b/[red]x[/red]", "d:db-b/sd\x1b[2Jz",
                        "h:db-a", "d:db-a/sda", "h:db-c"]
        text = screen_text(app)
        assert "db-b nodes 3" in text and "db-a nodes 2" in text
        assert "db-c nodes 4 error" in text
        assert "db-c: ssh: connect to host db-c port 22: Connection refused (data 30s old)" in text
        # A device name from the host is shown as it is, never as markup, and a control
        # character in it escaped.
        assert "[red]x[/red]" in text
        assert "sd\\x1b[2Jz" in text and "\x1b" not in text


async def test_nodes_view_util_redo_measured_on_the_host_and_the_error_log() -> None:
    app = OneView(NodesView)
    async with app.run_test(size=(130, 40)) as pilot:
        view = app.query_one(NodesView)
        view.show(snapshot(), 500.0)
        await pilot.pause()
        table = view.query_one("#nodes", KeyedTable)
        assert [table.get_cell(n, "disk").plain for n in ("2", "3", "4")] == ["2%", "100%", "?"]
        assert table.get_cell("3", "phase").plain == "2 redo log init"
        # Node 2, lost, is selected first: its error log, read on its host.
        text = screen_text(app)
        assert "error log /var/lib/ndb/ndb_2_error.log on db-a, newest entry:" in text
        assert "Time: Wednesday 25 November 2026 - 10:40:17" in text
        assert "Message: Node lost connection (Arbitration error)" in text
        assert "Error: 2305" in text
        assert "Caused by error 2305: 'Node lost'" in text
        assert "Trace file name: ndb_2_trace.log.2_t3" in text
        table.move_cursor(row=table.get_row_index("3"))
        await pilot.pause()
        view.show(snapshot(), 501.0)
        await pilot.pause()
        text = screen_text(app)
        # SPARSE: the bytes written are one 32 KiB page per MB of log, the rate says both.
        assert ("written 10/32 MB · 1.00 MB/s written (≈32.0 MB/s of log, one 32 KiB page "
                "per MB) · files 37/64 (measured on the host)") in " ".join(text.split())
        assert "host db-b nvme0n1 w/s 50.0 · wareq 32.0 kB · await 36.5 ms · %util 100%" in text


def test_the_header_counts_the_ssh_hosts_and_names_the_failing() -> None:
    from ndbtop.tui.widgets.header import hosts_text

    hosts = [SourceStatus(f"host db{i}", SourceState.CONNECTED, f"db{i}") for i in range(45)]
    hosts += [SourceStatus(f"host db{i}", SourceState.RETRYING, f"db{i}", "refused")
              for i in (45, 46, 47)]
    assert hosts_text(hosts).plain == " · ssh hosts 45/48 (db45 retrying, db46 retrying +1)"
    assert hosts_text(hosts[:3]).plain == " · ssh hosts 3/3"


async def test_with_full_initialisation_only_completed_files_are_shown_and_the_host_wins(
) -> None:
    from dataclasses import replace

    from ndbtop.model.config import ClusterConfig, DataNodeConfig
    from ndbtop.model.phases import RedoProgress

    # FULL sends no periodic reports whatever the frequency, and its events' fourth figure
    # counts files, not megabytes (redo-init.md §6): files completed only, or the host.
    config = ClusterConfig(1, "c", 2, (), (DataNodeConfig(3, 0, init_fragment_log_files="FULL",
                                                                   startup_status_report_frequency=10),))
    snap = snapshot()
    timeline = replace(snap.timelines[0], redo=RedoProgress(64, 16, 1024, 16, 490.0))
    app = OneView(NodesView)
    async with app.run_test(size=(200, 40)) as pilot:
        view = app.query_one(NodesView)
        table = view.query_one("#nodes", KeyedTable)
        blind = replace(snap, timelines=(timeline,), config=config, hosts=())
        view.show(blind, 500.0)
        await pilot.pause()
        table.move_cursor(row=table.get_row_index("3"))
        view.show(blind, 501.0)
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "no progress reports: InitFragmentLogFiles=FULL" in text
        assert "files 16/64 done (completion events)" in text and "16/1,024 MB" not in text
        view.show(replace(blind, hosts=snap.hosts), 502.0)
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "(measured on the host)" in text and "completion events" not in text


async def test_threads_view_without_ndbinfo_shows_the_threads_read_on_the_hosts() -> None:
    from ndbtop.tui.views.threads import ThreadsView

    app = OneView(ThreadsView)
    async with app.run_test(size=(130, 40)) as pilot:
        view = app.query_one(ThreadsView)
        view.show(snapshot(), 500.0)
        await pilot.pause()
        assert view.query_one("#grid", KeyedTable).row_keys_in_order() == ["2", "3"]
        detail = view.query_one("#detail", KeyedTable)
        # In kernel tid order, numbered from 0; names as the kernel has them, escaped.
        assert detail.row_keys_in_order() == ["1", "0"]
        assert detail.get_cell("0", "name").plain == "main"
        text = screen_text(app)
        assert "node 2: 2 threads" in text and "read on its host" in text
        assert "ldm\\x1b[31m" in text
        assert "Per-thread CPU comes from ndbinfo" not in text


async def test_summary_gives_the_hosts_measure_when_a_node_sends_no_progress_reports() -> None:
    from dataclasses import replace

    from ndbtop.model.config import ClusterConfig, DataNodeConfig

    # StartupStatusReportFrequency=0 (the default): only the host can say how far it is.
    config = ClusterConfig(1, "c", 2, (), (DataNodeConfig(3, 0),))
    app = OneView(NodesView)
    async with app.run_test(size=(200, 40)) as pilot:
        view = app.query_one(NodesView)
        view.show(replace(snapshot(), config=config), 500.0)
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "node 3 redo init 31% (host)" in text
        assert "redo init: no progress reports" not in text

"""What ``ndbtop export`` serves for snapshots built from replies as real servers give them.

The ``get status`` fields follow mgm-protocol.md §2.3: a NO_CONTACT data node
reports start phase 0 and node group 0 (unfilled), a SHUTTING_DOWN node's
start phase is its stopping level, a STARTING node's the last completed phase.
"""

from __future__ import annotations

import dataclasses

from export_helpers import NOW, exposition, names, samples, up, value

from ndbtop.export.catalogue import METRICS
from ndbtop.findings import evaluate
from ndbtop.host.rates import ThreadRates
from ndbtop.host.samples import DiskCounters, DiskFree
from ndbtop.host.view import HostView
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.backups import ABORTED, COMPLETED, RUNNING, Backup, NodeProgress
from ndbtop.model.config import NO_NODE_GROUP, ClusterConfig, DataNodeConfig
from ndbtop.model.derive import HitRatio
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.history import PastStart
from ndbtop.model.hosts import ErrorLogEntry, HostReport, NodeOnHost, RedoMeasure
from ndbtop.model.ndbinfo import (
    DiskPageBuffer,
    LogSpace,
    MemoryUse,
    NdbinfoNode,
    NdbinfoSample,
    NodeActivity,
    RestartInfo,
    ThreadCpu,
)
from ndbtop.model.phases import (
    INITIAL_START,
    PhaseRecord,
    RedoProgress,
    StartTimeline,
    phase_text,
)
from ndbtop.model.replication import Channel, Endpoint, Lag, ReplicaThreads, ReplicationState
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus

WALL = 1_700_000_000.0


def ndb(node_id: int, status: str, phase: int = 0, group: int | None = 0) -> NodeStatus:
    """A data node as ``get status`` reports it."""
    filled = status != "NO_CONTACT"
    return NodeStatus(node_id, "NDB", status, version=525315 if filled else 0,
                      start_phase=phase, node_group=group,
                      address=f"10.0.0.{node_id}" if filled else "")


NODES = (
    ndb(2, "STARTED"),
    ndb(3, "NO_CONTACT"),
    ndb(4, "STARTING", phase=4),
    ndb(5, "SHUTTING_DOWN", phase=2, group=1),
    NodeStatus(1, "MGM", "CONNECTED", version=525315, address="10.0.0.1"),
    NodeStatus(50, "API", "NO_CONTACT"),
)

CONFIG = ClusterConfig(
    generation=3, name="c", no_of_replicas=2, nodes=(),
    data_nodes=(
        DataNodeConfig(2, 0), DataNodeConfig(3, 0), DataNodeConfig(4, 1),
        DataNodeConfig(5, 1, fragment_log_parts=4, fragment_log_files=16,
                       fragment_log_file_size=64 << 20, init_fragment_log_files="full"),
        DataNodeConfig(6, NO_NODE_GROUP),
    ),
)


def snapshot(**fields: object) -> ClusterSnapshot:
    base: dict[str, object] = dict(taken_at=NOW, wall=WALL, interval=1.0,
                                   sources=up("mgm", "events", "ndbinfo", "host"), nodes=NODES)
    base.update(fields)
    return ClusterSnapshot(**base)  # type: ignore[arg-type]


def test_start_phase_only_for_a_starting_node() -> None:
    found = samples(snapshot())
    phases = {dict(k[1])["node_id"]: v for k, v in found.items() if k[0] == "ndb_node_start_phase"}
    # Node 3 (NO_CONTACT) and 2 (STARTED) send 0, node 5 sends its stopping level: not phases.
    assert phases == {"4": 4.0}


def test_node_groups_count_configured_members_and_started_ones() -> None:
    found = samples(snapshot(config=CONFIG))
    # Group 0: node 2 STARTED, node 3 NO_CONTACT (configured in 0). Group 1: 4 starting, 5
    # stopping. Node 6 is in no node group and not in get status.
    assert value(found, "ndb_node_group_nodes", node_group="0") == 2
    assert value(found, "ndb_node_group_started_nodes", node_group="0") == 1
    assert value(found, "ndb_node_group_nodes", node_group="1") == 2
    assert value(found, "ndb_node_group_started_nodes", node_group="1") == 0
    groups = {dict(k[1])["node_group"] for k in found if k[0] == "ndb_node_group_nodes"}
    assert groups == {"0", "1"}


def test_without_configuration_only_started_nodes_have_a_known_group() -> None:
    found = samples(snapshot())
    # The 0 that NO_CONTACT node 3 sends is not its group: it is not counted anywhere.
    assert value(found, "ndb_node_group_nodes", node_group="0") == 1
    assert value(found, "ndb_node_group_started_nodes", node_group="0") == 1
    assert value(found, "ndb_node_group_nodes", node_group="1") is None


def test_phase_time_and_normal_duration_from_the_last_comparable_start() -> None:
    timeline = StartTimeline(4, 2, WALL - 100, True,
                             completed=(PhaseRecord(1, WALL - 100, 10, True),),
                             current_phase=5, current_since=WALL - 90)
    past = (PastStart(4, 2, WALL - 86400, ((1, 9.0), (5, 40.0)), 60.0),)
    found = samples(snapshot(timelines=(timeline,), past_starts=past))
    assert value(found, "ndb_node_phase_seconds", node_id="4") == 90
    assert value(found, "ndb_node_phase_normal_seconds", node_id="4") == 40
    assert value(found, "ndb_node_start_seconds", node_id="4") == 100
    # The phase is named as every output names it (phase_text).
    assert phase_text(NODES[2], timeline) == "5 copy data, wait LCP"
    assert value(found, "ndb_node_start_info", node_id="4", start_type="node restart",
                 phase="5", phase_name="copy data, wait LCP") == 1


def test_start_without_a_timeline_is_named_from_get_status_without_a_kind() -> None:
    found = samples(snapshot())
    # Node 4 completed phase 4: phase 5 runs. Prometheus takes an empty label as no label:
    # the start type is simply absent.
    assert phase_text(NODES[2]) == "5 copy data, wait LCP"
    infos = [k for k in found if k[0] == "ndb_node_start_info"]
    assert infos == [("ndb_node_start_info", frozenset({
        ("node_id", "4"), ("start_type", ""), ("phase", "5"),
        ("phase_name", "copy data, wait LCP")}))]


def test_no_start_info_once_the_last_phase_is_reported() -> None:
    found = samples(snapshot(nodes=(ndb(4, "STARTING", phase=101),)))
    assert value(found, "ndb_node_start_phase", node_id="4") == 101
    assert not [k for k in found if k[0] == "ndb_node_start_info"]


def test_normal_duration_falls_back_to_the_typical_one_and_is_absent_when_unknown() -> None:
    running = StartTimeline(4, 2, WALL - 20, True, current_phase=2, current_since=WALL - 5)
    found = samples(snapshot(timelines=(running,)))
    assert value(found, "ndb_node_phase_normal_seconds", node_id="4") == 10.0
    # Phase 5 of a node restart copies data: no norm without an earlier start.
    copying = StartTimeline(4, 2, WALL - 20, True, current_phase=5, current_since=WALL - 5)
    found = samples(snapshot(timelines=(copying,)))
    assert value(found, "ndb_node_phase_seconds", node_id="4") == 5
    assert value(found, "ndb_node_phase_normal_seconds", node_id="4") is None


def test_normal_redo_init_from_the_configured_log_size() -> None:
    # No progress report (StartupStatusReportFrequency=0), the node seen creating its redo
    # log on its host in this phase: the configured 1 GiB at 50 MB/s.
    t = StartTimeline(4, 0, WALL - 50, True, current_phase=4, current_since=WALL - 40,
                      redo_phase=4)
    found = samples(snapshot(timelines=(t,), config=CONFIG))
    assert value(found, "ndb_node_phase_normal_seconds", node_id="4") == 1024 / 50
    # Without that evidence the phase number alone says nothing of redo initialisation.
    bare = StartTimeline(4, 0, WALL - 50, True, current_phase=4, current_since=WALL - 40)
    found = samples(snapshot(timelines=(bare,), config=CONFIG))
    assert value(found, "ndb_node_phase_normal_seconds", node_id="4") is None
    assert value(found, "ndb_redo_init_bytes", node_id="4") is None


def test_finished_start_has_no_phase_time() -> None:
    done = StartTimeline(4, 2, WALL - 100, True, current_phase=None, finished_at=WALL - 10)
    assert not {"ndb_node_phase_seconds", "ndb_node_start_seconds"} & names(
        snapshot(timelines=(done,)))


def test_redo_init_progress_against_the_configured_log_size() -> None:
    # Node 4: sparse, 1 GiB; the MB figures count. Node 5: FULL, which sends no periodic reports.
    sparse = StartTimeline(4, 0, WALL - 50, True, current_phase=4, current_since=WALL - 40,
                           redo=RedoProgress(64, 16, 1024, 256, WALL - 1))
    full = StartTimeline(5, 0, WALL - 50, True, current_phase=4, current_since=WALL - 40,
                         redo=RedoProgress(64, 32, 4096, 3, WALL - 1))
    reporting = dataclasses.replace(CONFIG, data_nodes=tuple(
        dataclasses.replace(d, startup_status_report_frequency=10) for d in CONFIG.data_nodes))
    found = samples(snapshot(timelines=(sparse, full), config=reporting))
    assert value(found, "ndb_redo_log_bytes", node_id="4") == 1 << 30
    assert value(found, "ndb_redo_init_bytes", node_id="4") == (1 << 30) / 4
    assert value(found, "ndb_redo_log_bytes", node_id="5") == 4 * 16 * (64 << 20)
    # FULL sends no periodic reports whatever the frequency (redo-init.md §6): its events
    # move only as an LDM instance completes, which is not progress.
    assert value(found, "ndb_redo_init_bytes", node_id="5") is None


def test_no_redo_progress_from_the_events_of_a_node_that_sends_no_reports() -> None:
    # StartupStatusReportFrequency=0: the one status event at the start (nothing done) is
    # all there is until the end; without a measure on its host there is no progress.
    first = StartTimeline(4, INITIAL_START, WALL - 50, True, current_phase=2,
                          current_since=WALL - 40, redo=RedoProgress(64, 0, 1024, 0, WALL - 40))
    found = samples(snapshot(timelines=(first,), config=CONFIG))
    assert value(found, "ndb_redo_init_bytes", node_id="4") is None
    assert value(found, "ndb_redo_log_bytes", node_id="4") == 1 << 30


def test_redo_init_needs_the_configured_size() -> None:
    t = StartTimeline(4, 0, WALL - 50, True, current_phase=4, current_since=WALL - 40,
                      redo=RedoProgress(64, 16, 1024, 256, WALL - 1))
    assert not {"ndb_redo_init_bytes", "ndb_redo_log_bytes"} & names(snapshot(timelines=(t,)))


def ndbinfo_sample() -> NdbinfoSample:
    return NdbinfoSample(
        taken_at=NOW, ndb_version=525315,
        nodes=(NdbinfoNode(2, 3600, "STARTED", 0, 3),),
        threads=(ThreadCpu(2, 0, "main", os_user_pct=4.0),
                 ThreadCpu(2, 1, "ldm", exec_pct=87.0, spin_pct=3.0)),
        disk_page_buffer=(DiskPageBuffer(2, 900, 5, 100, 100, 40, 10, 0),),
        memory=(MemoryUse(2, "Data memory", 1 << 20, 32, 1 << 30, 32768),
                MemoryUse(2, "Long message buffer", 4096, 1, 0, 0)),
        restart_info=(
            RestartInfo(2, "Restart completed", 12, (("secs_to_copy_meta_data", 4),
                                                      ("secs_for_local_recovery", 30)), 40),
            RestartInfo(3, "Initial state", 21, (("secs_to_copy_meta_data", 0),), 0),
            RestartInfo(4, "Restore fragments ongoing", 8,
                        (("secs_to_copy_meta_data", 3), ("secs_for_local_recovery", 0)), 0),
        ),
    )


def test_ndbinfo_figures_in_base_units_and_ratios() -> None:
    found = samples(snapshot(ndbinfo=ndbinfo_sample(),
                             hit_ratios=(HitRatio(2, 90.0, None, None),)))
    assert value(found, "ndb_thread_cpu_ratio", node_id="2", thread_no="1",
                 thread_name="ldm") == 0.9
    assert value(found, "ndb_thread_cpu_ratio", node_id="2", thread_no="0",
                 thread_name="main") == 0.04
    assert value(found, "ndb_disk_page_buffer_hit_ratio", node_id="2") == 0.9
    # No interval ratio yet (one sample): no series rather than 0 or 1.
    assert value(found, "ndb_disk_page_buffer_interval_hit_ratio", node_id="2") is None
    assert value(found, "ndb_disk_page_buffer_requests_total", node_id="2", result="hit") == 900
    assert value(found, "ndb_disk_page_buffer_requests_total", node_id="2",
                 result="wait_io") == 100
    assert value(found, "ndb_node_uptime_seconds", node_id="2") == 3600
    assert value(found, "ndb_memory_used_bytes", node_id="2", memory_type="Data memory") == 1 << 20
    assert value(found, "ndb_memory_size_bytes", node_id="2", memory_type="Data memory") == 1 << 30
    # A total the server reports as 0 is unknown, not a size.
    assert value(found, "ndb_memory_size_bytes", node_id="2",
                 memory_type="Long message buffer") is None


def test_restart_durations_only_for_nodes_with_a_restart_report() -> None:
    found = samples(snapshot(ndbinfo=ndbinfo_sample()))
    assert value(found, "ndb_restart_phase_seconds", node_id="2", phase="for_local_recovery") == 30
    assert value(found, "ndb_restart_phase_seconds", node_id="2", phase="to_copy_meta_data") == 4
    assert not [k for k in found if k[0] == "ndb_restart_phase_seconds"
                and dict(k[1])["node_id"] == "3"]
    # A restart still running: the steps done have durations, the step not reached has none.
    assert value(found, "ndb_restart_phase_seconds", node_id="4", phase="to_copy_meta_data") == 3
    assert value(found, "ndb_restart_phase_seconds", node_id="4",
                 phase="for_local_recovery") is None


def report(host: str = "db1", via: str = "local", state: str = "ok", **fields: object
           ) -> HostReport:
    """A data node host's report as the hub gives it, read at ``NOW``."""
    base: dict[str, object] = dict(node_ids=(), last_ok=NOW if state == "ok" else None)
    base.update(fields)
    return HostReport(host, via, state=state, **base)  # type: ignore[arg-type]


DISKS = HostView(NOW, 1.0, (), None, (), (
    DiskCounters("nvme0n1", 10, 20, 4096, 8192, 1500, 2500, 3000, 1, 2),
    DiskCounters("sdb", 1, 2, 512, 1024, 5, 6, None),
))


def test_host_disks_under_ndbtops_prefix_with_node_exporters_labels() -> None:
    found = samples(snapshot(hosts=(report(view=DISKS),)))
    disk = "ndbtop_host_disk_"
    assert value(found, disk + "io_time_seconds_total", host="db1", device="nvme0n1") == 3.0
    assert value(found, disk + "written_bytes_total", host="db1", device="nvme0n1") == 8192
    assert value(found, disk + "read_time_seconds_total", host="db1", device="nvme0n1") == 1.5
    assert value(found, disk + "writes_merged_total", host="db1", device="nvme0n1") == 2
    # A field the platform does not report has no series.
    assert value(found, disk + "io_time_seconds_total", host="db1", device="sdb") is None
    assert value(found, disk + "reads_merged_total", host="db1", device="sdb") is None
    # node_exporter's own names are never served: sums over both would count a disk twice.
    assert not [k for k in found if k[0].startswith("node_")]
    assert value(found, "ndbtop_host_up", host="db1", via="local") == 1


def test_every_host_read_over_ssh_has_its_disks_and_its_state() -> None:
    hosts = (
        report("db1", view=DISKS),
        report("10.0.0.2", "ssh", node_ids=(2,), view=DISKS),
        report("10.0.0.3", "ssh", "error", node_ids=(3,), view=DISKS,
               error="ssh: connect to host 10.0.0.3 port 22: Connection refused"),
        report("10.0.0.4", "ssh", "connecting", node_ids=(4, 5)),
    )
    found = samples(snapshot(hosts=hosts))
    ups = {(dict(k[1])["host"], dict(k[1])["via"]): v for k, v in found.items()
           if k[0] == "ndbtop_host_up"}
    assert ups == {("db1", "local"): 1, ("10.0.0.2", "ssh"): 1, ("10.0.0.3", "ssh"): 0,
                   ("10.0.0.4", "ssh"): 0}
    assert value(found, "ndbtop_host_disk_written_bytes_total", host="10.0.0.2",
                 device="sdb") == 1024
    # A host that is not read has no counters (its last ones are not current), only its
    # state and the data nodes the configuration puts on it.
    assert not [k for k in found if k[0].startswith("ndbtop_host_disk_")
                and dict(k[1])["host"] in ("10.0.0.3", "10.0.0.4")]
    nodes = {(dict(k[1])["host"], dict(k[1])["node_id"]) for k in found
             if k[0] == "ndbtop_host_data_node"}
    assert nodes == {("10.0.0.2", "2"), ("10.0.0.3", "3"), ("10.0.0.4", "4"),
                     ("10.0.0.4", "5")}


def test_a_host_whose_last_sample_is_old_is_down() -> None:
    old = report("10.0.0.2", "ssh", node_ids=(2,), view=DISKS, last_ok=NOW - 10)
    found = samples(snapshot(hosts=(old,)))
    assert value(found, "ndbtop_host_up", host="10.0.0.2", via="ssh") == 0
    assert not [k for k in found if k[0].startswith("ndbtop_host_disk_")]


def test_a_host_name_read_twice_is_served_once() -> None:
    # ndbtop runs on a data node host that --ssh also reaches under the same name.
    hosts = (report("db1", view=DISKS), report("db1", "ssh", node_ids=(2,), view=DISKS))
    text = exposition(snapshot(hosts=hosts)).decode()
    assert text.count('ndbtop_host_disk_written_bytes_total{device="sdb",host="db1"}') == 1
    assert value(samples(snapshot(hosts=hosts)), "ndbtop_host_up", host="db1",
                 via="local") == 1


SILENT = ClusterConfig(
    generation=3, name="c", no_of_replicas=2, nodes=(),
    data_nodes=(DataNodeConfig(10, 0, fragment_log_parts=4, fragment_log_files=42,
                               fragment_log_file_size=256 << 20),
                DataNodeConfig(11, 0, fragment_log_parts=4, fragment_log_files=16,
                               fragment_log_file_size=64 << 20,
                               startup_status_report_frequency=10)),
)
"""S1's node 10 (4 x 42 x 256 MB, SPARSE, no progress reports: the defaults) and a node
11 that reports its progress every 10 s."""


def initialising(node_id: int, redo: RedoProgress | None = None) -> StartTimeline:
    return StartTimeline(node_id, INITIAL_START, WALL - 700, True, current_phase=2,
                         current_since=WALL - 600, redo=redo, redo_phase=2)


def test_redo_init_of_a_node_without_progress_reports_is_measured_on_its_host() -> None:
    log = 4 * 42 * (256 << 20)
    measure = RedoMeasure(10, files_done=17, files_total=4 * 42, bytes_written=log // 32 // 4,
                          bytes_expected=log // 32, rate_bytes_per_s=1e6, eta_s=99.0)
    # The one status event sent at the start: totals, nothing done.
    first = RedoProgress(168, 0, 43008, 0, WALL - 600)
    snap = snapshot(nodes=(ndb(10, "STARTING", phase=1),), timelines=(initialising(10, first),),
                    config=SILENT,
                    hosts=(report("10.0.0.10", "ssh", node_ids=(10,), redo_init=(measure,)),))
    found = samples(snap)
    assert value(found, "ndb_redo_init_written_bytes", node_id="10") == log // 32 // 4
    assert value(found, "ndb_redo_init_expected_bytes", node_id="10") == log // 32
    assert value(found, "ndb_redo_init_files_done", node_id="10") == 17
    assert value(found, "ndb_redo_log_files", node_id="10") == 4 * 42
    assert value(found, "ndb_redo_log_bytes", node_id="10") == log
    # The events' zero is not the progress: the host's quarter of the log is.
    assert value(found, "ndb_redo_init_bytes", node_id="10") == log / 4
    # The phase the node was seen creating its log in: its normal duration is the log's.
    assert value(found, "ndb_node_phase_normal_seconds", node_id="10") == 43008 / 50


def test_events_win_for_a_node_that_reports_its_progress() -> None:
    log = 4 * 16 * (64 << 20)
    measure = RedoMeasure(11, files_done=32, files_total=64, bytes_written=log // 32 // 2,
                          bytes_expected=log // 32, rate_bytes_per_s=None, eta_s=None)
    host = report("10.0.0.11", "ssh", node_ids=(11,), redo_init=(measure,))
    reported = RedoProgress(64, 16, 1024, 256, WALL - 1)
    snap = snapshot(nodes=(ndb(11, "STARTING", phase=1),),
                    timelines=(initialising(11, reported),), config=SILENT, hosts=(host,))
    found = samples(snap)
    assert value(found, "ndb_redo_init_bytes", node_id="11") == log / 4
    # The host's own figures are served all the same.
    assert value(found, "ndb_redo_init_written_bytes", node_id="11") == log // 32 // 2
    # Before its first report the host's measure is all there is.
    snap = snapshot(nodes=(ndb(11, "STARTING", phase=1),), timelines=(initialising(11),),
                    config=SILENT, hosts=(host,))
    assert value(samples(snap), "ndb_redo_init_bytes", node_id="11") == log / 2


def test_a_source_that_is_not_up_has_only_its_up_and_age_series() -> None:
    snap = snapshot(sources=up("events", "host"), ndbinfo=ndbinfo_sample())
    found = samples(snap)
    assert value(found, "ndbtop_source_up", source="mgm") == 0
    assert value(found, "ndbtop_source_up", source="host") == 1
    assert value(found, "ndbtop_source_age_seconds", source="host") == 0
    assert value(found, "ndbtop_source_age_seconds", source="mgm") is None
    assert not {"ndb_node_status", "ndb_thread_cpu_ratio"} & names(snap)


def test_a_source_turned_off_has_no_series() -> None:
    off = SourceStatus("ndbinfo", SourceState.DISABLED, error="--no-sql")
    found = samples(snapshot(sources=(up("mgm")[0], off)))
    assert value(found, "ndbtop_source_up", source="mgm") == 1
    assert value(found, "ndbtop_source_up", source="ndbinfo") is None


def test_a_stale_source_is_down() -> None:
    old = SourceStatus("mgm", SourceState.CONNECTED, last_ok=NOW - 10)
    snap = snapshot(sources=(old,))
    found = samples(snap)
    assert value(found, "ndbtop_source_up", source="mgm") == 0
    assert value(found, "ndbtop_source_age_seconds", source="mgm") == 10
    assert "ndb_node_status" not in names(snap)


def test_label_values_are_escaped_by_the_format_after_the_screen_escaping() -> None:
    hostile = 'x"\\\n\x1b[2J'
    snap = snapshot(nodes=(NodeStatus(7, "NDB", hostile),))
    text = exposition(snap)
    assert b"\x1b" not in text and b'status="x\\"\\\\\\\\x0a\\\\x1b[2J"' in text
    assert value(samples(snap), "ndb_node_status", node_id="7", node_type="NDB",
                 status='x"\\\\x0a\\x1b[2J') == 1


def test_the_configuration_source_is_up_while_connected_however_old_its_read() -> None:
    # It is read at connect and when a node may run a new generation, never per refresh.
    read = SourceStatus("config", SourceState.CONNECTED, last_ok=NOW - 3600)
    found = samples(snapshot(sources=(*up("mgm"), read)))
    assert value(found, "ndbtop_source_up", source="config") == 1
    assert value(found, "ndbtop_source_age_seconds", source="config") == 3600
    failed = SourceStatus("config", SourceState.UNAVAILABLE, error="refused",
                          last_ok=NOW - 3600)
    found = samples(snapshot(sources=(*up("mgm"), failed)))
    assert value(found, "ndbtop_source_up", source="config") == 0


def test_a_full_snapshot_serves_every_metric_of_the_catalogue() -> None:
    t = StartTimeline(4, 0, WALL - 50, True, current_phase=4, current_since=WALL - 40,
                      redo=RedoProgress(64, 16, 1024, 256, WALL - 1), redo_phase=4)
    # Node 5's start was first seen mid-way: its lower bounds.
    late = StartTimeline(5, 2, WALL - 30, False, current_phase=5, current_since=WALL - 30,
                         current_from="first_seen", began_from=None)
    sample = ndbinfo_sample()
    sample = dataclasses.replace(
        sample,
        log_spaces=(LogSpace(2, "REDO", 0, 1, 1 << 30, 1 << 20),),
        activity=(NodeActivity(2, 10, 9, 1, 100, 50, 5, 700),),
        # Both nodes of the running backup, with more in use than they wrote: its ETA is
        # served.
        memory=(*sample.memory[1:],
                *(MemoryUse(n, "Data memory", 1 << 24, 512, 1 << 30, 32768) for n in (2, 3))))
    view = HostView(NOW, 1.0, (), None, (ThreadRates(40, 2, "ndbmtd", 41, "ldm"),),
                    (DiskCounters("sda", 1, 2, 3, 4, 5, 6, 7, 8, 9),))
    measure = RedoMeasure(4, 3, 64, 1 << 20, 1 << 25, 1e6, 31.0)
    hosts = (report("db1", node_ids=(2, 4), view=view, redo_init=(measure,)), DOWN_HOST)
    snap = snapshot(config=CONFIG, timelines=(t, late), ndbinfo=sample, hosts=hosts,
                    hit_ratios=(HitRatio(2, 90.0, 80.0, 5.0),), backups=BACKUPS,
                    backup_failures=1, replication=REPLICATION,
                    sources=up("mgm", "events", "ndbinfo", "host", "replication"))
    snap = dataclasses.replace(snap, findings=evaluate(snap),
                               start_etas=((4, Eta(120.0, 90.0, 200.0, WALL, ("last start",))),))
    # A context that could not start is no snapshot (test_export_contexts serves it).
    assert names(snap) == {m.name for m in METRICS} - {"ndbtop_context_start_error"}
    assert value(samples(snap), "ndbtop_host_data_node", host="db1", node_id="2") == 1


REPLICA_THREADS = ReplicaThreads("", "10.0.1.5", 3306, 11, "Yes", "Yes", 12)
REPLICATION = ReplicationState(
    (Endpoint("10.0.2.5:3306", "dr", read_at=WALL, channels=(REPLICA_THREADS,)),),
    (Channel("10.0.2.5:3306", "", REPLICA_THREADS, "10.0.1.5:3306", 7, 9,
             Lag(140, 14.0, "derived"), read_at=WALL),), 60.0, WALL)
"""A channel 140 epochs (14 s) behind its source; the replica says 12 s."""


def test_replication_serves_each_thread_and_the_lag() -> None:
    found = samples(snapshot(replication=REPLICATION,
                             sources=up("mgm", "replication")))
    labels = {"source": "10.0.1.5:3306", "replica": "10.0.2.5:3306", "channel": ""}
    assert value(found, "ndb_replication_running", thread="sql", **labels) == 1
    assert value(found, "ndb_replication_lag_epochs", **labels) == 140
    assert value(found, "ndb_replication_lag_seconds", **labels) == 14
    assert value(found, "ndb_replication_seconds_behind_source", **labels) == 12
    # Not read now: no series (a gap), not the last values.
    failed = SourceStatus("replication", SourceState.RETRYING, error="refused")
    stale = samples(snapshot(replication=REPLICATION, sources=(*up("mgm"), failed)))
    assert not [name for name, _ in stale if name.startswith("ndb_replication_")]


def test_each_sql_node_named_for_replication_is_up_or_not() -> None:
    # The replica does not answer (the source does): it shows no channel, so no
    # ndb_replication_* series is there to alert on; its own ndbtop_source_up is 0.
    silent = dataclasses.replace(REPLICATION, channels=(), endpoints=(
        Endpoint("10.0.1.5:3306", "prod", read_at=WALL, server_id=11),
        Endpoint("10.0.2.5:3306", "dr", error="connection refused")))
    found = samples(snapshot(replication=silent, sources=up("mgm", "replication")))
    assert value(found, "ndbtop_source_up", source="replication") == 1
    assert value(found, "ndbtop_source_up", source="replication 10.0.1.5:3306") == 1
    assert value(found, "ndbtop_source_up", source="replication 10.0.2.5:3306") == 0
    failed = SourceStatus("replication", SourceState.RETRYING, error="refused")
    down = samples(snapshot(replication=silent, sources=(*up("mgm"), failed)))
    assert value(down, "ndbtop_source_up", source="replication 10.0.1.5:3306") == 0


DOWN_HOST = report(
    "db2", via="ssh", node_ids=(5,),
    error_logs=(ErrorLogEntry(5, "/d/ndb_5_error.log", time="Thursday 26 November 2026 - "
                              "23:41:56", error_code=2810, meaning="The file system is full"),),
    down_nodes=(NodeOnHost(5, "angel only", DiskFree("/d", "/", 100 << 30, 0, 100)),))
"""Data node 5, down: its error log, its angel alone and a full DataDir, read over SSH."""


def test_a_down_node_has_its_last_error_its_processes_and_its_free_space() -> None:
    found = samples(snapshot(hosts=(DOWN_HOST,)))
    assert value(found, "ndb_node_last_error_code", node_id="5",
                 time="Thursday 26 November 2026 - 23:41:56") == 2810
    assert value(found, "ndb_node_data_dir_available_bytes", node_id="5") == 0
    assert value(found, "ndb_node_process_running", node_id="5", process="angel") == 1
    assert value(found, "ndb_node_process_running", node_id="5", process="worker") == 0
    # A host not read now keeps the last error (a fact of the past), not the live figures.
    gone = samples(snapshot(hosts=(dataclasses.replace(DOWN_HOST, state="error",
                                                       last_ok=None),)))
    assert value(gone, "ndb_node_last_error_code", node_id="5",
                 time="Thursday 26 November 2026 - 23:41:56") == 2810
    assert value(gone, "ndb_node_data_dir_available_bytes", node_id="5") is None


BACKUPS = (
    Backup(7, COMPLETED, master=2, started_at=WALL - 7200, ended_at=WALL - 6900, records=1000,
           bytes=1 << 20, log_records=10, log_bytes=4096),
    Backup(8, ABORTED, master=2, started_at=WALL - 3600, ended_at=WALL - 3500, error=1326),
    Backup(9, RUNNING, master=2, started_at=WALL - 60, nodes=(
        NodeProgress(2, 500, 1 << 19, 5, 2048, WALL - 5),
        NodeProgress(3, 400, 1 << 18, 0, 0, WALL - 5))),
)
"""A completed backup, an aborted one and one running with two nodes' status reports."""


def test_backups_in_progress_last_completed_and_failures() -> None:
    found = samples(snapshot(backups=BACKUPS, backup_failures=3))
    assert value(found, "ndb_backup_in_progress") == 1
    assert value(found, "ndb_backup_id") == 9
    assert value(found, "ndb_backup_node_written_bytes", node_id="2") == (1 << 19) + 2048
    assert value(found, "ndb_backup_node_written_records", node_id="3") == 400
    assert value(found, "ndb_backup_last_completed_timestamp_seconds") == WALL - 6900
    assert value(found, "ndb_backup_last_duration_seconds") == 300
    assert value(found, "ndb_backup_last_written_bytes") == (1 << 20) + 4096
    assert value(found, "ndb_backup_last_written_records") == 1000
    assert value(found, "ndb_backup_last_failure_timestamp_seconds") == WALL - 3500
    assert value(found, "ndb_backup_failures_total") == 3


def test_no_backup_seen_is_none_in_progress_and_nothing_else_made_up() -> None:
    found = samples(snapshot())
    assert value(found, "ndb_backup_in_progress") == 0
    assert value(found, "ndb_backup_failures_total") == 0
    assert not [k for k in found if k[0].startswith("ndb_backup_")
                and k[0] not in ("ndb_backup_in_progress", "ndb_backup_failures_total")]
    # A completed backup whose start was not seen (ndbtop came later) has no duration.
    late = Backup(5, COMPLETED, master=2, ended_at=WALL - 10, records=1, bytes=1)
    found = samples(snapshot(backups=(late,)))
    assert value(found, "ndb_backup_last_completed_timestamp_seconds") == WALL - 10
    assert value(found, "ndb_backup_last_duration_seconds") is None
    assert value(found, "ndb_backup_in_progress") == 0
    # Without the events there is nothing to say about backups.
    assert not [k for k in samples(snapshot(sources=up("mgm"), backups=BACKUPS))
                if k[0].startswith("ndb_backup_")]


def test_a_finding_is_one_series_per_node_while_it_holds() -> None:
    # Node 3 NO_CONTACT leaves node 2 alone in group 0 (CONFIG): node_group_one_left.
    snap = snapshot(config=CONFIG)
    found = samples(dataclasses.replace(snap, findings=evaluate(snap)))
    assert value(found, "ndbtop_finding", id="node_group_one_left", severity="warning",
                 node_id="2") == 1
    healthy = snapshot(config=CONFIG, nodes=(ndb(2, "STARTED"), ndb(3, "STARTED")))
    assert "ndbtop_finding" not in names(dataclasses.replace(healthy,
                                                             findings=evaluate(healthy)))


def test_a_start_estimate_is_served_with_its_range_and_a_missing_one_not_at_all() -> None:
    eta = Eta(120.0, 90.0, 200.0, WALL, ("redo rate (host)", "last start"))
    snap = dataclasses.replace(snapshot(), start_etas=(
        (4, eta), (5, EtaMissing("phase 5 (copy data, wait LCP): no restart_info, no past start"))))
    found = samples(snap)
    assert value(found, "ndb_node_start_eta_seconds", node_id="4") == 120.0
    assert value(found, "ndb_node_start_eta_low_seconds", node_id="4") == 90.0
    assert value(found, "ndb_node_start_eta_high_seconds", node_id="4") == 200.0
    assert not [k for k in found if k[0].startswith("ndb_node_start_eta")
                and dict(k[1])["node_id"] == "5"]


def test_a_start_not_seen_from_its_beginning_exports_lower_bounds_under_their_own_name() -> None:
    # The JSON marks them elapsed_at_least_s / in_phase_at_least_s: the exporter never gives
    # a lower bound as the exact figure.
    seen_late = StartTimeline(4, 2, WALL - 45, False, current_phase=5, current_since=WALL - 30,
                              current_from="first_seen", began_from=None)
    found = samples(snapshot(timelines=(seen_late,)))
    assert value(found, "ndb_node_start_seconds", node_id="4") is None
    assert value(found, "ndb_node_phase_seconds", node_id="4") is None
    assert value(found, "ndb_node_start_at_least_seconds", node_id="4") == 45
    assert value(found, "ndb_node_phase_at_least_seconds", node_id="4") == 30

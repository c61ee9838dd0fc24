"""A data node configured with StartupStatusReportFrequency=0 (the default) reports its
redo-log initialisation only at its start and its end: --once (text and JSON) gives the
size to create and says there are no progress reports, never the start's zeros as progress."""

from __future__ import annotations

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig, DataNodeConfig
from ndbtop.model.phases import INITIAL_START, RedoProgress, StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.render import report_json, report_text

NODE = NodeStatus(3, "NDB", "STARTING", 525315, 525315, 2, 3, 0, 0, "h")
TIMELINE = StartTimeline(3, INITIAL_START, 1000.0, True, current_phase=2,
                         current_since=1010.0, redo=RedoProgress(64, 0, 1024, 0, 1010.0))


def _snap(frequency: int) -> ClusterSnapshot:
    config = ClusterConfig(1, "c", 2, (), (DataNodeConfig(
        3, 0, startup_status_report_frequency=frequency),))
    return ClusterSnapshot(1.0, 1020.0, 1.0, (), nodes=(NODE,), timelines=(TIMELINE,),
                           config=config)


def test_without_progress_reports_the_start_figures_are_not_progress() -> None:
    snap = _snap(0)
    assert ("node 3 redo log init: 1024 MB to create, no progress reports "
            "(StartupStatusReportFrequency=0)") in report_text(snap)
    redo = report_json(snap)["start_timelines"][0]["redo_init"]
    assert redo == {"total_mb": 1024, "mb_done": None, "total_files": 64, "files_done": None,
                    "mb_per_s": None, "eta_s": None, "progress_reports": False}


def test_with_progress_reports_the_figures_are_given() -> None:
    snap = _snap(10)
    assert "node 3 redo log init: 0/1024 MB, 0/64 files" in report_text(snap)
    redo = report_json(snap)["start_timelines"][0]["redo_init"]
    assert (redo["mb_done"], redo["files_done"], redo["progress_reports"]) == (0, 0, True)

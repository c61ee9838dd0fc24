"""The header at 80 columns: its first line never wraps over the sources' health."""

from __future__ import annotations

from pathlib import Path

from ndbtop.actions.audit import AuditLog
from ndbtop.demo.capture import CaptureSpec
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.tui.app import NdbtopApp
from ndbtop.tui.screen_text import screen_text
from ndbtop.tui.source import FrozenSource
from ndbtop.tui.widgets.header import source_text
from tests.captures import captured
from tests.tui.conftest import wait_until

SINGLE_USER_AT = 40.0
"""A moment of the single-user scenario while API node 5 holds the cluster."""


async def test_badges_and_stale_sources_both_show_at_80_columns(tmp_path: Path) -> None:
    cap = await captured(CaptureSpec("single-user", SINGLE_USER_AT))

    async def start() -> FrozenSource:
        # Every source's data is a minute old: stale.
        return FrozenSource(cap.snapshot, cap.connectstring, age=60.0)

    app = NdbtopApp(start, read_only=True, audit=AuditLog(tmp_path / "audit.log"),
                    simulated="single-user")
    async with app.run_test(size=(80, 24)):
        await wait_until(lambda: "mgm stale 60s" in screen_text(app), "the stale sources")
        top, bottom, tabs = screen_text(app).splitlines()[:3]
        assert "SINGLE-USER MODE (API node 5)" in top and "READ-ONLY" in top
        assert "10.0.0.1:1186  gen 1" in top
        assert bottom.lstrip().startswith("mgm stale 60s")
        # Every tab in sight, the narrow screen's short titles.
        assert tabs.split()[:4] == ["1", "Nodes", "2", "Thr"] and "0 Locks" in tabs


def test_a_source_connected_that_never_answered_is_stale_without_an_age() -> None:
    never = SourceStatus("ndbinfo", SourceState.CONNECTED, last_ok=None)
    assert source_text(never, 100.0, 1.0).plain == "ndbinfo stale"
    old = SourceStatus("ndbinfo", SourceState.CONNECTED, last_ok=40.0)
    assert source_text(old, 100.0, 1.0).plain == "ndbinfo stale 60s"


def test_the_cluster_log_read_once_is_never_stale() -> None:
    # Read at connect and after a gap in the events only: its age says nothing of trouble,
    # as the configuration's does not (the exporter's ndbtop_source_up counts it up too).
    once = SourceStatus("cluster-log", SourceState.CONNECTED, last_ok=40.0)
    assert source_text(once, 100.0, 1.0).plain == "cluster-log"

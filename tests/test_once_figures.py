"""``--once`` gives its figures as the live view does: rates of things with thousands
separators and no decimals, bytes in one unit system (binary, as the Backup view)."""

from __future__ import annotations

import re

from ndbtop.model.backups import COMPLETED, Backup
from ndbtop.model.derive import ActivityRate
from ndbtop.model.hosts import HostReport, RedoMeasure
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.as_text import report_text


def _snapshot(**fields: object) -> ClusterSnapshot:
    return ClusterSnapshot(100.0, 1_700_000_000.0, 1.0, (), **fields)  # type: ignore[arg-type]


def test_activity_rates_are_printed_as_the_screen_prints_them() -> None:
    rate = ActivityRate(2, 10002.4, 9990.0, 3.6, 4202.2, 3000.9, 118.5, 10002.4, seconds=1.0)
    sample = NdbinfoSample(taken_at=100.0, ndb_version=None)
    out = report_text(_snapshot(activity_rates=(rate,), ndbinfo=sample))
    row = next(line for line in out.splitlines() if line.split()[:1] == ["2"])
    assert row.split() == ["2", "10,002", "4", "4,202", "3,001", "118", "10,002"]
    assert "10002.4" not in out


def test_a_backup_gives_size_and_rate_in_binary_units_and_its_records_grouped() -> None:
    backup = Backup(7, COMPLETED, started_at=1_699_999_000.0, ended_at=1_699_999_100.0,
                    records=181_528_687, bytes=280 * 2**30, log_records=0, log_bytes=0)
    out = report_text(_snapshot(backups=(backup,)))
    row = next(line for line in out.splitlines() if line.strip().startswith("7 "))
    assert "181,528,687" in row and "280.0 GiB" in row and "2.8 GiB/s" in row
    assert not re.search(r"\d (kB|MB|GB)/s", out)


def test_a_redo_log_measured_on_its_host_gives_progress_and_rate_but_no_estimate() -> None:
    # One estimate per node: its start's ETA line; the host's line has the measure only.
    log = 4096 << 20
    measure = RedoMeasure(10, 64, 256, log // 128, log // 32, 1 << 20, 2304.0)
    host = HostReport("db10", "ssh", (10,), "ok", last_ok=100.0, redo_init=(measure,))
    out = report_text(_snapshot(hosts=(host,)))
    (line,) = [ln for ln in out.splitlines() if "redo log initialisation" in ln]
    assert line.startswith("  node 10 redo log initialisation (measured on the host): files "
                           "64/256, written 32.0/128.0 MB, 1.00 MB/s written")
    assert "ETA" not in line and "38m" not in line

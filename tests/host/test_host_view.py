"""host_view: rates between two samples, with the disk filter applied."""

from __future__ import annotations

import pytest

from ndbtop.host.rates import DiskRates
from ndbtop.host.samples import CpuTimes, DiskCounters, HostSample, ThreadSample
from ndbtop.host.view import host_view


def disk(
    name: str, writes: int = 0, wbytes: int = 0, wtime: int = 0, busy: int = 0
) -> DiskCounters:
    return DiskCounters(name, 0, writes, 0, wbytes, 0, wtime, busy, 0, 0)


def thread(pid: int, tid: int, name: str, cpu: float, node_id: int | None = 10) -> ThreadSample:
    return ThreadSample(pid, node_id, "ndbmtd", tid, name, cpu, 0.0)


PREV = HostSample(
    monotonic=100.0,
    disks=(disk("loop0"), disk("sda"), disk("sda1"), disk("nvme0n1", 1_000, 10_000, 50, 900)),
    cpu=CpuTimes(user=10, system=5, idle=80, iowait=5),
    threads=(thread(400, 401, "main", 1.0), thread(400, 402, "ldm", 5.0)),
)
CUR = HostSample(
    monotonic=102.0,
    disks=(
        disk("loop0", 7, 7 * 4096, 1, 1),
        disk("sda"),
        disk("sda1"),
        disk("nvme0n1", 1_100, 10_000 + 100 * 20_480, 50 + 3_600, 900 + 2_000),
        disk("sdb", 5, 5, 5, 5),
    ),
    cpu=CpuTimes(user=12, system=6, idle=94, iowait=8),
    threads=(
        thread(400, 401, "main", 1.2),
        thread(400, 402, "ldm", 7.0),
        thread(400, 403, "send", 0.5),
        thread(500, 402, "ldm", 9.0, node_id=11),
    ),
)


def test_disks_are_block_devices_in_kernel_order() -> None:
    view = host_view(PREV, CUR)
    assert [d.name for d in view.disks] == ["sda", "nvme0n1", "sdb"]


def test_rates_over_the_interval() -> None:
    view = host_view(PREV, CUR)
    assert view.monotonic == 102.0
    assert view.interval_s == 2.0
    nvme = view.disk("nvme0n1")
    assert nvme is not None
    assert nvme.w_s == 50
    assert nvme.wkb_s == 1000
    assert nvme.wareq_kb == 20
    assert nvme.await_ms == 36
    assert nvme.util_pct == 100
    assert view.disk("sdb") == DiskRates("sdb")  # appeared in this interval
    assert view.disk("loop0") is None
    assert view.cpu is not None
    assert view.cpu.user == pytest.approx(10.0)
    assert view.cpu.system == pytest.approx(5.0)
    assert view.cpu.iowait == pytest.approx(15.0)
    assert view.cpu.idle == pytest.approx(70.0)


def test_threads_are_paired_by_pid_and_tid() -> None:
    view = host_view(PREV, CUR)
    cpu = {(t.pid, t.tid): t.cpu_pct for t in view.threads}
    assert cpu[(400, 401)] == pytest.approx(10.0)
    assert cpu[(400, 402)] == pytest.approx(100.0)
    assert cpu[(400, 403)] is None  # new thread
    assert cpu[(500, 402)] is None  # same tid in another process is not the same thread
    assert view.node_ids == (10, 11)


def test_first_sample_lists_everything_without_rates() -> None:
    view = host_view(None, CUR)
    assert view.interval_s is None
    assert view.cpu is None
    assert [d.name for d in view.disks] == ["sda", "nvme0n1", "sdb"]
    assert all(d == DiskRates(d.name) for d in view.disks)
    assert len(view.threads) == 4
    assert all(t.cpu_pct is None for t in view.threads)


@pytest.mark.parametrize("stamp", [100.0, 99.0])
def test_no_elapsed_time_gives_no_rates(stamp: float) -> None:
    cur = HostSample(stamp, CUR.disks, CUR.cpu, CUR.threads)
    view = host_view(PREV, cur)
    assert view.interval_s is None
    assert view.cpu is None
    assert all(d == DiskRates(d.name) for d in view.disks)
    assert all(t.cpu_pct is None for t in view.threads)


def test_host_without_data_nodes_shows_disks_only() -> None:
    prev = HostSample(1.0, (disk("vda", 10, 100, 10, 10),), CpuTimes(idle=10))
    cur = HostSample(2.0, (disk("vda", 20, 200, 20, 20),), CpuTimes(idle=11))
    view = host_view(prev, cur)
    assert view.threads == ()
    assert view.node_ids == ()
    assert view.disk("vda") is not None
    assert view.disk("vda").w_s == 10


def test_unreadable_cpu_gives_no_cpu_rates() -> None:
    cur = HostSample(CUR.monotonic, CUR.disks, None, CUR.threads)
    assert host_view(PREV, cur).cpu is None


def test_raw_counters_of_the_shown_disks_only() -> None:
    view = host_view(PREV, CUR)
    # Loop devices and partitions are left out, as from the rates; a new disk is included.
    assert [d.name for d in view.disk_counters] == ["sda", "nvme0n1", "sdb"]
    assert view.disk_counters[1] is CUR.disks[3]
    assert host_view(None, CUR).disk_counters == view.disk_counters

"""A host's block devices and data node threads: bounded in number, each once, and
processed in linear time.

Input as ``/proc/diskstats`` gives it (Documentation/admin-guide/iostats.rst: major,
minor, name, then the counters) and as ``/proc/<pid>/task/<tid>/stat`` gives a thread
(proc(5)), through the remote host's parser.
"""

from __future__ import annotations

from ndbtop.host.devices import MAX_DEVICES, block_devices
from ndbtop.host.procfs import parse_sample
from ndbtop.host.samples import ThreadSample
from ndbtop.host.threadmap import NdbinfoThread, match_threads
from ndbtop.host.view import MAX_THREADS, host_view
from tests.bounds.conftest import GROWTH_LIMIT, growth

MARKER = "@t0k "


def diskstats(names: list[str], count: int = 0) -> list[str]:
    """One sample's lines: uptime, then a diskstats line per name."""
    lines = [f"{MARKER}uptime", f"{100 + count}.00 1.00", f"{MARKER}disk"]
    lines += [f"8 {i % 256} {name} {count} 0 {8 * count} 3 {count} 0 {8 * count} 4 0 "
              f"{count} 7" for i, name in enumerate(names)]
    return lines


def disks_and_partitions(n: int) -> list[str]:
    """``n`` names: disks ``sdXa``... with partitions, NVMe namespaces with ``p`` partitions."""
    out = []
    for i in range(n // 4):
        out += [f"sd{i}x", f"sd{i}x1", f"nvme{i}n1", f"nvme{i}n1p2"]
    return out


def test_diskstats_doubled_takes_twice_the_time_not_four_times() -> None:
    def run(names: list[str]) -> None:
        prev = parse_sample(diskstats(names, 0), MARKER, 100)
        cur = parse_sample(diskstats(names, 5), MARKER, 100)
        host_view(prev, cur)

    assert growth(disks_and_partitions, run, 6_000) < GROWTH_LIMIT


def test_the_filter_alone_is_linear() -> None:
    assert growth(disks_and_partitions, block_devices, 100_000, runs=5) < GROWTH_LIMIT


def test_a_host_shows_at_most_max_devices_and_counts_the_rest() -> None:
    names = disks_and_partitions(4 * 1000)
    prev = parse_sample(diskstats(names, 0), MARKER, 100)
    view = host_view(prev, parse_sample(diskstats(names, 5), MARKER, 100))
    assert len(view.disks) == MAX_DEVICES == len(view.disk_counters)
    assert view.hidden_disks == 2000 - MAX_DEVICES
    # Partitions of listed disks are still left out, the kernel's order kept.
    assert [d.name for d in view.disks[:4]] == ["sd0x", "nvme0n1", "sd1x", "nvme1n1"]
    # The Disk view's host title and the JSON say how many are not shown.
    from ndbtop.model.hosts import HostReport
    from ndbtop.report.as_json import _host_report_json
    from ndbtop.tui.views.disk import _host_title

    report = HostReport("db1", "ssh", (2,), "ok", view=view)
    assert _host_title(report).plain == f"db1 nodes 2 (+{2000 - MAX_DEVICES} devices not shown)"
    assert _host_report_json(report)["hidden_disks"] == 2000 - MAX_DEVICES


def test_a_device_listed_twice_is_one_device() -> None:
    names = ["sda"] * 50_000 + ["sdb", "sda1"]
    prev = parse_sample(diskstats(names, 0), MARKER, 100)
    view = host_view(prev, parse_sample(diskstats(names, 5), MARKER, 100))
    assert [d.name for d in view.disks] == ["sda", "sdb"]
    assert view.hidden_disks == 0
    assert view.disks[0].r_s == 1.0  # 5 reads in 5 s: one line's counters, not 50,000 summed


def test_unicode_digits_make_no_partition() -> None:
    # str.isdigit() takes "²"; the kernel numbers partitions in ASCII.
    assert block_devices(["sda", "sda²", "md0", "md0p٣"]) == ("sda", "sda²", "md0", "md0p٣")


def ndbmtd(threads: list[int], ticks: int = 0) -> list[str]:
    """A data node process 4242 (``ndbmtd --ndb-nodeid=2``) with a stat line per thread id
    (proc(5): tid (comm) state ppid ... utime stime)."""
    lines = [f"{MARKER}proc 4242", "C ndbmtd\x1e--ndb-nodeid=2"]
    rest = " ".join(["0"] * 9)
    lines += [f"{tid} (ldm) S 1 {rest} {ticks} {ticks} 0" for tid in threads]
    return lines


def test_threads_listed_twice_count_once_and_are_bounded() -> None:
    tids = [4242, *range(5000, 5000 + MAX_THREADS + 100)] + [5000] * 1000
    prev = parse_sample(diskstats(["sda"], 0) + ndbmtd(tids, 0), MARKER, 100)
    cur = parse_sample(diskstats(["sda"], 5) + ndbmtd(tids, 50), MARKER, 100)
    view = host_view(prev, cur)
    assert len(view.threads) == MAX_THREADS
    assert len({(t.pid, t.tid) for t in view.threads}) == MAX_THREADS
    assert view.threads[1].cpu_pct == 20.0  # 100 ticks over 5 s: one line, not 1,001


def test_thread_matching_is_linear_whatever_repeats() -> None:
    def make(n: int) -> tuple[list[NdbinfoThread], list[ThreadSample]]:
        # Every ndbinfo row and every local thread carries the same tid: the worst case.
        rows = [NdbinfoThread(2 + i % 2, i, "ldm", os_tid=777) for i in range(n)]
        local = [ThreadSample(1, 2, "ndbmtd", 777, "ldm", 0.0, 0.0) for _ in range(n)]
        return rows, local

    def run(data: tuple[list[NdbinfoThread], list[ThreadSample]]) -> None:
        match_threads(*data)

    assert growth(make, run, 20_000) < GROWTH_LIMIT
    rows, local = make(4)
    assert match_threads(rows, local) == ()  # several rows carry it: no match
    assert len(match_threads(rows[:1], local)) == 4

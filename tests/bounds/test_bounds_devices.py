"""Block devices from a host: bounded in number and filtered in linear time.

Input as ``/proc/diskstats`` gives it (Documentation/admin-guide/iostats.rst: major,
minor, name, then the counters), through the remote host's parser.
"""

from __future__ import annotations

from ndbtop.host.devices import MAX_DEVICES, block_devices
from ndbtop.host.procfs import parse_sample
from ndbtop.host.view import host_view
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


def test_thirty_thousand_devices_take_linear_time_and_a_bounded_view() -> None:
    def run(names: list[str]) -> None:
        prev = parse_sample(diskstats(names, 0), MARKER, 100)
        cur = parse_sample(diskstats(names, 5), MARKER, 100)
        host_view(prev, cur)

    assert growth(disks_and_partitions, run, 15_000) < GROWTH_LIMIT


def test_the_filter_alone_is_linear() -> None:
    assert growth(disks_and_partitions, lambda names: block_devices(names), 50_000) < GROWTH_LIMIT


def test_a_host_shows_at_most_max_devices_and_counts_the_rest() -> None:
    names = disks_and_partitions(4 * 1000)
    prev = parse_sample(diskstats(names, 0), MARKER, 100)
    view = host_view(prev, parse_sample(diskstats(names, 5), MARKER, 100))
    assert len(view.disks) == MAX_DEVICES == len(view.disk_counters)
    assert view.hidden_disks == 2000 - MAX_DEVICES
    # Partitions of listed disks are still left out, the kernel's order kept.
    assert [d.name for d in view.disks[:4]] == ["sd0x", "nvme0n1", "sd1x", "nvme1n1"]


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

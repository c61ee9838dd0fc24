"""The block-device filter of ndbtop.host.devices."""

from __future__ import annotations

import pytest

from ndbtop.host.devices import block_devices, partition_parent

# (label, names as /proc/diskstats lists them, devices shown)
CASES = [
    ("this kind of VM", ["loop0", "loop1", "vda", "zram0"], ["vda"]),
    ("SCSI disk with partitions", ["sda", "sda1", "sda2", "sdb", "sdb1"], ["sda", "sdb"]),
    (
        "NVMe namespaces and partitions",
        ["nvme0n1", "nvme0n1p1", "nvme0n1p2", "nvme1n1"],
        ["nvme0n1", "nvme1n1"],
    ),
    (
        "MMC and its boot areas",
        ["mmcblk0", "mmcblk0p1", "mmcblk0boot0"],
        ["mmcblk0", "mmcblk0boot0"],
    ),
    ("RAM disks", ["ram0", "ram15", "sda"], ["sda"]),
    (
        "LVM and software RAID are kept",
        ["sda", "sda1", "dm-0", "dm-1", "md0", "md0p1"],
        ["sda", "dm-0", "dm-1", "md0"],
    ),
    ("partition without its disk is kept", ["sda2", "vdb1"], ["sda2", "vdb1"]),
    ("sdaa is a disk, not a partition of sda", ["sda", "sdaa", "sdaa1"], ["sda", "sdaa"]),
    (
        "nvme0n10 is a namespace, not a partition of nvme0n1",
        ["nvme0n1", "nvme0n10"],
        ["nvme0n1", "nvme0n10"],
    ),
    ("Xen and old IDE", ["xvda", "xvda1", "hda", "hda3"], ["xvda", "hda"]),
    ("order is kept", ["vdb", "sda", "vda"], ["vdb", "sda", "vda"]),
    ("nothing", [], []),
    ("only memory-backed devices", ["loop0", "zram0", "ram1"], []),
]


@pytest.mark.parametrize(("names", "shown"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_block_devices(names: list[str], shown: list[str]) -> None:
    assert block_devices(names) == tuple(shown)


@pytest.mark.parametrize(
    ("name", "disks", "parent"),
    [
        ("sda1", {"sda"}, "sda"),
        ("sda", {"sda"}, None),
        ("sda1", {"sdb"}, None),
        ("nvme0n1p3", {"nvme0n1"}, "nvme0n1"),
        ("nvme0n13", {"nvme0n1"}, None),
        ("md127p1", {"md127", "md1"}, "md127"),
        ("sdap1", {"sda"}, None),
        ("vda12", {"vda"}, "vda"),
    ],
)
def test_partition_parent(name: str, disks: set[str], parent: str | None) -> None:
    assert partition_parent(name, disks) == parent

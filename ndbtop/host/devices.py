"""Which of the kernel's block devices are worth showing as disks.

``/proc/diskstats`` lists every block device: memory-backed ones (``loop``, ``ram``,
``zram``), whole disks and each partition of them. A partition's I/O is also counted
in its disk's line, so showing both repeats the same requests. The rule, on device
names alone so it is a pure function:

- drop names starting with ``loop``, ``ram`` or ``zram``: no physical device behind them;
- drop a partition when its whole disk is in the list too. The kernel names a
  partition by appending its number to the disk name, with a ``p`` in between when
  the disk name ends in a digit: ``sda`` -> ``sda1``, ``vda`` -> ``vda3``,
  ``nvme0n1`` -> ``nvme0n1p2``, ``mmcblk0`` -> ``mmcblk0p1``, ``md0`` -> ``md0p1``.
  A partition whose disk is not listed (a container that sees only its partition)
  is kept, since it is then the only view of that disk;
- keep everything else, device-mapper (``dm-0``) and software RAID (``md0``) included:
  they are where a data node's files often live.
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.textnum import is_digits

VIRTUAL_PREFIXES = ("loop", "ram", "zram")
"""Name prefixes of memory-backed block devices."""


def partition_parent(name: str, disks: Iterable[str]) -> str | None:
    """The disk among ``disks`` that ``name`` is a partition of, or ``None``."""
    for disk in disks:
        if disk == name or not name.startswith(disk):
            continue
        rest = name[len(disk) :]
        if is_digits(disk[-1:]):
            if rest.startswith("p") and is_digits(rest[1:]):
                return disk
        elif is_digits(rest):
            return disk
    return None


def block_devices(names: Iterable[str]) -> tuple[str, ...]:
    """The devices of ``names`` to show as disks, in their original order (see module doc)."""
    real = [n for n in names if not n.startswith(VIRTUAL_PREFIXES)]
    present = set(real)
    return tuple(n for n in real if partition_parent(n, present) is None)

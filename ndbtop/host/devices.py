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
  they are where a data node's files often live;
- show at most :data:`MAX_DEVICES`, the first in the kernel's order: the list comes from
  a host, and every device shown costs a row and a series at every refresh.

A name has one possible parent disk (its trailing digits taken off, and the ``p`` before
them when what is left ends in a digit), so the filter is linear in the number of devices.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from itertools import islice

VIRTUAL_PREFIXES = ("loop", "ram", "zram")
"""Name prefixes of memory-backed block devices."""

MAX_DEVICES = 512
"""Most block devices shown for one host (a host with a SAN's LUNs and their paths has a
few hundred)."""

_DIGITS = frozenset("0123456789")


def _parent_name(name: str) -> str | None:
    """The only disk name ``name`` can be a partition of, or ``None``."""
    end = len(name)
    while end > 0 and name[end - 1] in _DIGITS:
        end -= 1
    if end == len(name) or end == 0:
        return None
    if name[end - 1] == "p" and end >= 2 and name[end - 2] in _DIGITS:
        return name[: end - 1]
    return name[:end]


def partition_parent(name: str, disks: Collection[str]) -> str | None:
    """The disk among ``disks`` that ``name`` is a partition of, or ``None``."""
    parent = _parent_name(name)
    return parent if parent is not None and parent in disks else None


def block_devices(names: Iterable[str], limit: int | None = MAX_DEVICES) -> tuple[str, ...]:
    """The devices of ``names`` to show as disks, in their original order, at most ``limit``
    of them (see module doc; ``None``: all)."""
    real = [n for n in names if not n.startswith(VIRTUAL_PREFIXES)]
    present = set(real)
    shown = (n for n in real if partition_parent(n, present) is None)
    return tuple(shown if limit is None else islice(shown, limit))

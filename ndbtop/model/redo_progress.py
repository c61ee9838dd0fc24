"""Redo-log initialisation of a starting data node, summed over its LDM instances from
the ``LogFileInitStatus`` events (mgm-protocol.md §5.4, redo-init.md §6), and from the
cluster log file's lines of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.decode import LogFileInit

FILE_PART = -1
"""The instance number of the share the cluster log file's lines gave: every LDM instance of
the node summed per report round (a line names no instance, :mod:`ndbtop.model.redo_file`)."""

Part = tuple[int, int, int, int, int, int]
Rate = tuple[int, float, "float | None"]


@dataclass(frozen=True, **SLOTS)
class RedoProgress:
    """Redo-log initialisation as the last ``LogFileInitStatus`` reports told it."""

    total_files: int
    files_done: int
    total_mb: int
    mb_done: int
    at: float
    mb_per_s: float | None = None
    completed: bool = False
    instances: tuple[Part, ...] = ()
    """Per LDM instance: (instance, total files, files done, total MB, MB done, completed);
    the figures above are their sums. :data:`FILE_PART` is the cluster log file's share,
    which stands for the whole node until the events' instances cover its log."""
    instance_rates: tuple[Rate, ...] = ()
    """Per LDM instance: (instance, when its last report arrived, MB/s between its last two
    reports, 0 once it completed); ``mb_per_s`` is the sum of those known (the file's
    rate until every instance heard has one)."""

    @property
    def fraction(self) -> float:
        """Share of the megabytes done (0..1)."""
        return min(self.mb_done / self.total_mb, 1.0) if self.total_mb else 0.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the current speed, None until the speed is known."""
        if self.completed:
            return 0.0
        if not self.mb_per_s:
            return None
        return max(self.total_mb - self.mb_done, 0) / self.mb_per_s

    @property
    def from_file(self) -> bool:
        """True while the figures are the cluster log file's (no event covers them yet)."""
        file = next((i for i in self.instances if i[0] == FILE_PART), None)
        return file is not None and sum(i[3] for i in self.instances
                                        if i[0] != FILE_PART) < file[3]


def redo_after(
    previous: RedoProgress | None, init: LogFileInit, at: float, done: bool
) -> RedoProgress:
    """The node's progress after one instance's ``LogFileInitStatus`` (or its completed
    form, ``done``) arriving at ``at``: the sum over its LDM instances."""
    parts = {i[0]: i for i in previous.instances} if previous is not None else {}
    old = parts.get(init.instance)
    figures = (init.total_files, init.files_done, init.total_mbytes, init.mbytes_done)
    if done and init.total_files == 0 and old is not None:
        # The "completed" form carries no totals: the instance did all it announced.
        figures = (old[1], old[1], old[3], old[3])
    parts[init.instance] = (init.instance, *figures, int(done))
    # Each instance's speed is measured between its own reports: the instances report at
    # the same moment, and their events arrive milliseconds apart (stamped on arrival).
    rates = {r[0]: r for r in previous.instance_rates} if previous is not None else {}
    last = rates.get(init.instance)
    speed_of = last[2] if last is not None else None
    if done:
        speed_of = 0.0
    elif old is not None and last is not None and at > last[1] and figures[3] >= old[4]:
        speed_of = (figures[3] - old[4]) / (at - last[1])
    rates[init.instance] = (init.instance, at, speed_of)
    return summed(parts, rates, at)


def with_file(live: RedoProgress | None, file: RedoProgress) -> RedoProgress:
    """``live`` (the events' progress, if any) with the cluster log file's share ``file``
    (:data:`FILE_PART`) in place of an older one."""
    parts = {i[0]: i for i in live.instances} if live is not None else {}
    rates = {r[0]: r for r in live.instance_rates} if live is not None else {}
    parts.update((i[0], i) for i in file.instances)
    rates.update((r[0], r) for r in file.instance_rates)
    return summed(parts, rates, max(file.at, live.at if live is not None else file.at))


def summed(parts: Mapping[int, Part], rates: Mapping[int, Rate], at: float) -> RedoProgress:
    """The node's progress from its instances' shares (and the file's, :data:`FILE_PART`,
    which stands for the node while the instances heard cover less of its log)."""
    file = parts.get(FILE_PART)
    heard = [parts[k] for k in sorted(parts) if k != FILE_PART]
    known = [r[2] for k, r in rates.items() if k != FILE_PART and r[2] is not None]
    file_rate = rates.get(FILE_PART)
    if file is not None and sum(i[3] for i in heard) < file[3]:
        shown = [file]
        at = file_rate[1] if file_rate is not None else at
    else:
        shown = heard
    speed: float | None = sum(known) if known else None
    if file_rate is not None and file_rate[2] is not None and (
            not heard or len(known) < len(heard)):
        # Until every instance heard has a rate of its own, the file's is the node's.
        speed = file_rate[2]
    total_mb = sum(i[3] for i in shown)
    mb_done = sum(i[4] for i in shown)
    return RedoProgress(
        sum(i[1] for i in shown),
        sum(i[2] for i in shown),
        total_mb,
        mb_done,
        at,
        speed,
        all(i[5] for i in shown) or (total_mb > 0 and mb_done >= total_mb),
        tuple(parts[k] for k in sorted(parts)),
        tuple(rates[k] for k in sorted(rates)),
    )

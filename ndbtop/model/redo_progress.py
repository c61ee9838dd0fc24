"""Redo-log initialisation of a starting data node, summed over its LDM instances from
the ``LogFileInitStatus`` events (mgm-protocol.md §5.4, redo-init.md §6)."""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.decode import LogFileInit


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
    instances: tuple[tuple[int, int, int, int, int, int], ...] = ()
    """Per LDM instance: (instance, total files, files done, total MB, MB done, completed);
    the figures above are their sums."""
    instance_rates: tuple[tuple[int, float, float | None], ...] = ()
    """Per LDM instance: (instance, when its last report arrived, MB/s between its last two
    reports, 0 once it completed); ``mb_per_s`` is the sum of those known."""

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
    instances = tuple(parts[k] for k in sorted(parts))
    total_files = sum(i[1] for i in instances)
    files_done = sum(i[2] for i in instances)
    total_mb = sum(i[3] for i in instances)
    mb_done = sum(i[4] for i in instances)
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
    known = [r[2] for r in rates.values() if r[2] is not None]
    speed = sum(known) if known else None
    return RedoProgress(
        total_files,
        files_done,
        total_mb,
        mb_done,
        at,
        speed,
        all(i[5] for i in instances) or (total_mb > 0 and mb_done >= total_mb),
        instances,
        tuple(rates[k] for k in sorted(rates)),
    )

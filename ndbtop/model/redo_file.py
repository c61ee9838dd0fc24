"""A node's redo log creation as the cluster log file's lines tell it.

Each LDM instance reports its own share (``LogFileInitStatus``, redo-init.md §6), but the
line of a report names no instance: EventLogger.cpp ``getTextLogFileInitStatus`` leaves
the block reference out. The instances report at the same moment (each on the same
``StartupStatusReportFrequency`` timer, all of them once when the creation begins), so a
node's lines within :data:`ROUND_S` of each other are one report round, and a round sums
the node's instances. A line repeated within 3 s is written once and then again with
`` - Repeated N times`` (LogHandler.cpp ``append``): it counts N times. A round that sums
to less of the log than the others (an instance's line cut off, or in another second
than the others) is left out. The completion lines (``LogFileInitCompStatus``, or the
"completed" form of ``LogFileInitStatus``) come one per instance as each finishes.
"""

from __future__ import annotations

from collections.abc import Iterable

from ndbtop.mgm.cluster_log import LogLine
from ndbtop.mgm.events.decode import log_file_init
from ndbtop.model.redo_progress import FILE_PART, RedoProgress

ROUND_S = 2.0
"""Lines of one node this close (the file's times are to the second) are one round."""
RATE_ROUNDS = 4
"""The rate is measured over up to this many report intervals (as the events' is)."""


def file_progress(lines: Iterable[LogLine]) -> RedoProgress | None:
    """The node's progress from its redo lines (oldest first, one start's), as one share
    (:data:`~ndbtop.model.redo_progress.FILE_PART`) with the rate of its last rounds; None
    when no round sums its whole log."""
    rounds: list[list[float]] = []
    """Per round: its time, total files, files done, total MB, MB done."""
    finished = starts = 0
    last_at = None
    for ln in lines:
        init = log_file_init(ln.event) if ln.event is not None else None
        if init is None or ln.time is None:
            continue
        last_at = ln.time
        if init.completed:
            finished += ln.repeated
            continue
        figures = [init.total_files, init.files_done, init.total_mbytes, init.mbytes_done]
        if rounds and ln.time - rounds[-1][0] <= ROUND_S:
            for i, value in enumerate(figures, 1):
                rounds[-1][i] += value * ln.repeated
        else:
            rounds.append([ln.time, *(v * ln.repeated for v in figures)])
        if len(rounds) == 1:
            starts += ln.repeated
    if not rounds:
        return None
    whole = max(r[3] for r in rounds)
    full = [r for r in rounds if r[3] == whole and whole > 0]
    if not full:
        return None
    at, total_files, files_done, total_mb, mb_done = full[-1]
    done = starts > 0 and finished >= starts
    if done:
        files_done, mb_done = total_files, total_mb
        at = last_at if last_at is not None else at
    first = full[max(len(full) - 1 - RATE_ROUNDS, 0)]
    rate = None
    if done:
        rate = 0.0
    elif at > first[0] and mb_done >= first[4]:
        rate = (mb_done - first[4]) / (at - first[0])
    part = (FILE_PART, int(total_files), int(files_done), int(total_mb), int(mb_done),
            int(done))
    return RedoProgress(part[1], part[2], part[3], part[4], at, rate, done, (part,),
                        ((FILE_PART, at, rate),))

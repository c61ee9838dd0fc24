"""Redo-log initialisation rates, each saying what it counts.

The events count megabytes of log initialised; the host counts bytes written. With
``InitFragmentLogFiles=SPARSE`` (the default) the two differ 32-fold: one 32 KiB page
is written at every MiB of log (redo-init.md §4), so ``17.5 MB/s`` of log is about
``0.55 MB/s`` on the disk. Each rate here names its kind and gives the other beside it.
"""

from __future__ import annotations

from ndbtop.model.hosts import SPARSE_FRACTION
from ndbtop.model.phases import StartTimeline

MIB = 1024 * 1024


def log_rate_text(log_mb_per_s: float | None, sparse: bool = True, short: bool = False) -> str:
    """``17.5 MB/s of log initialised (≈0.55 MB/s written, one 32 KiB page per MB)``, or
    ``17.5 MB/s of log`` (``short``, for a narrow screen)."""
    if short:
        return f"{log_mb_per_s:.1f} MB/s of log" if log_mb_per_s else "? MB/s of log"
    if not log_mb_per_s:
        return "? MB/s of log initialised"
    if not sparse:
        return f"{log_mb_per_s:.1f} MB/s of log initialised (all of it written: FULL)"
    return (f"{log_mb_per_s:.1f} MB/s of log initialised (≈{log_mb_per_s / SPARSE_FRACTION:.2f}"
            " MB/s written, one 32 KiB page per MB)")


def written_rate_text(bytes_per_s: float | None, sparse: bool = True) -> str:
    """``0.55 MB/s written (≈17.5 MB/s of log, one 32 KiB page per MB)``."""
    if not bytes_per_s:
        return "? MB/s written"
    mb = bytes_per_s / MIB
    if not sparse:
        return f"{mb:.1f} MB/s written (the whole log: FULL)"
    return (f"{mb:.2f} MB/s written (≈{mb * SPARSE_FRACTION:.1f} MB/s of log, one 32 KiB page"
            " per MB)")


def redo_average(t: StartTimeline) -> float | None:
    """MB of log initialised per second over the whole initialisation, once it is done;
    None when its beginning was not seen (ndbtop came later) or it is not done."""
    r = t.redo
    if r is None or not r.completed or t.redo_phase is None:
        return None
    record = next((p for p in t.completed if p.phase == t.redo_phase), None)
    if record is not None:
        began, seen = record.began_at, record.exact or t.current_from == "host"
    elif t.current_phase == t.redo_phase:
        began, seen = t.current_since, t.current_from in ("event", "file", "host")
    else:
        return None
    elapsed = r.at - began
    return r.total_mb / elapsed if seen and elapsed > 0 else None


def redo_speed_text(t: StartTimeline, sparse: bool = True, short: bool = False) -> str:
    """The speed of the initialisation in progress, or the average of a finished one."""
    r = t.redo
    if r is None:
        return ""
    if not r.completed:
        return log_rate_text(r.mb_per_s, sparse, short)
    average = redo_average(t)
    if average is None:
        return "done (no average: its beginning was not seen)"
    return "done, average " + log_rate_text(average, sparse, short)

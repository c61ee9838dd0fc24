"""Plain-text tables for terminal reports (no colours, no dependencies)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from ndbtop.durations import duration as plain_duration
from ndbtop.elide import MAX_CELL_CHARS, elide
from ndbtop.sanitise import Laid, sanitise


def format_table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[int] = ()
) -> Laid:
    """Columns padded to their widest cell; columns listed in ``right`` align right: text
    laid out (:class:`~ndbtop.sanitise.Laid`), every cell escaped to one line.

    A cell holds at most :data:`~ndbtop.elide.MAX_CELL_CHARS` characters (``…`` marks
    the cut), so one long value cannot widen every row.
    """
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, value in enumerate(row):
            widths[i] = max(widths[i], len(value))
    lines = [_line(headers, widths, right), _line(["-" * w for w in widths], widths, ())]
    lines += [_line(row, widths, right) for row in cells]
    return Laid("\n".join(lines))


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    text = str(value)
    # Cut before escaping (a long value costs nothing more), and after (escapes widen it).
    return elide(sanitise(text[: MAX_CELL_CHARS + 1]), MAX_CELL_CHARS)


def _line(values: Sequence[str], widths: Sequence[int], right: Sequence[int]) -> str:
    parts = [
        v.rjust(w) if i in right else v.ljust(w)
        for i, (v, w) in enumerate(zip(values, widths))
    ]
    return "  ".join(parts).rstrip()


def human_bytes(n: float | None) -> str:
    """``1.5 GiB``-style size (binary units)."""
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def per_second(value: float | None) -> str:
    """A rate of things (transactions, reads) as the live view shows it: ``10,002``."""
    return "-" if value is None else f"{value:,.0f}"


def duration(seconds: float | None) -> str:
    """``38m47s``, ``1h02m``, ``12s``; ``-`` for none."""
    return "-" if seconds is None else plain_duration(seconds)


def iso_utc(epoch: float) -> str:
    """``epoch`` in ISO 8601, UTC, to the second: the times of the JSON report."""
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).isoformat(timespec="seconds")

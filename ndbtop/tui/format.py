"""Small renderers shared by the views: coloured states, bars, durations, sparklines."""

from __future__ import annotations

from collections.abc import Sequence

from ndbtop.model.freshness import freshness
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.tables import duration
from ndbtop.tui.safe import Text

STATUS_STYLE = {
    "STARTED": "bold green",
    "CONNECTED": "green",
    "STARTING": "bold yellow",
    "NOT_STARTED": "bold dark_orange",
    "SHUTTING_DOWN": "bold dark_orange",
    "SINGLE USER MODE": "bold magenta",
    "RESTARTING": "bold yellow",
    "RESUME": "yellow",
    "NO_CONTACT": "bold red",
    "UNKNOWN": "bold yellow",
}

_BLOCKS = " ▏▎▍▌▋▊▉█"
_SPARK = "▁▂▃▄▅▆▇█"


def status_text(status: str, node_type: str) -> Text:
    """A node status in its colour; a free API slot is dimmed, not alarming.

    A data node in ``UNKNOWN`` is connected, in a start level the management server
    does not map: it is not unreachable.
    """
    if node_type == "API" and status in ("NO_CONTACT", "UNKNOWN"):
        return Text("free slot" if status == "NO_CONTACT" else status, style="dim")
    if node_type == "NDB" and status == "UNKNOWN":
        return Text("UNKNOWN (connected)", style="bold yellow")
    return Text(status, style=STATUS_STYLE.get(status, ""))


def bar(pct: float | None, width: int = 10, *, warn: float = 70.0, crit: float = 90.0) -> Text:
    """A horizontal bar for a percentage, coloured by level."""
    if pct is None:
        return Text("·" * width, style="dim")
    p = max(0.0, min(pct, 100.0))
    cells = p / 100.0 * width
    full = int(cells)
    rest = cells - full
    body = "█" * full + (_BLOCKS[int(rest * 8)] if full < width else "")
    body = body.ljust(width)
    style = "red" if p >= crit else "yellow" if p >= warn else "green"
    return Text(body, style=style)


def split_bar(parts: Sequence[tuple[float | None, str]], width: int = 20) -> Text:
    """A stacked bar: each (percent, style) part takes its share of ``width`` cells."""
    text = Text()
    used = 0
    for pct, style in parts:
        if not pct:
            continue
        n = min(round(pct / 100.0 * width), width - used)
        if n > 0:
            text.append("█" * n, style=style)
            used += n
    text.append("·" * (width - used), style="dim")
    return text


def sparkline(values: Sequence[float | None], width: int | None = None, *,
              lo: float | None = 0.0, hi: float | None = None) -> Text:
    """A one-line sparkline of the last ``width`` values (None shown as a gap).

    The scale runs from ``lo`` to ``hi``; None takes the data's own minimum or
    maximum. An absolute scale (0..100 for percentages) keeps noise small.
    """
    chars = spark_chars(values, width, lo=lo, hi=hi)
    return Text(chars, style="cyan") if chars.strip() else Text(chars)


def spark_chars(values: Sequence[float | None], width: int | None = None, *,
                lo: float | None = 0.0, hi: float | None = None) -> str:
    """The characters of :func:`sparkline`, without their colour."""
    data = list(values)[-width:] if width else list(values)
    known = [v for v in data if v is not None]
    if not known:
        return " " * len(data)
    lo = min(known) if lo is None else lo
    hi = max(known) if hi is None else hi
    span = hi - lo or 1.0
    top = len(_SPARK) - 1
    return "".join(" " if v is None else _SPARK[max(0, min(int((v - lo) / span * top), top))]
                   for v in data)


def seconds(value: float | None) -> str:
    """``38m47s``-style duration."""
    return duration(value)


def pct(value: float | None, digits: int = 1) -> str:
    """``99.2%`` or ``-``."""
    return "-" if value is None else f"{value:.{digits}f}%"


def number(value: float | None, digits: int = 0) -> str:
    """A number with thousands separators, or ``-``."""
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def rate_bytes(value: float | None) -> str:
    """``12.3 MB/s``-style throughput (decimal units, as iostat)."""
    if value is None:
        return "-"
    for unit in ("B/s", "kB/s", "MB/s", "GB/s"):
        if abs(value) < 1000 or unit == "GB/s":
            return f"{value:.0f} {unit}" if unit == "B/s" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB/s"


def stale_mark(snap: ClusterSnapshot, source: str) -> Text:
    """``STALE as of 12:04:31, 78 s ago: `` before the figures of a source gone quiet
    (empty while the source is current, or never answered: that says so itself)."""
    fresh = freshness(snap, source)
    if not fresh.stale or fresh.age is None:
        return Text("")
    return Text(f"STALE {fresh.text()}: ", style="bold yellow")

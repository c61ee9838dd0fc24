"""How a duration is written everywhere ndbtop writes one: ``38m47s``, ``1h02m``, ``12s``."""

from __future__ import annotations


def duration(seconds: float) -> str:
    """``38m47s``, ``1h02m``, ``12s``: whole seconds below an hour, minutes above."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"

"""An estimate as one line of text: ``ETA 12:41 (12:35–12:52) in 6m10s · this run (1 step)``."""

from __future__ import annotations

import datetime as dt

from ndbtop.durations import duration
from ndbtop.model.eta import Eta, EtaResult

SECONDS_SHOWN_BELOW = 120.0
"""A range narrower than this shows its times to the second."""


def clock(epoch: float, *, seconds: bool) -> str:
    """``12:41`` (or ``12:41:05``) in local time."""
    return dt.datetime.fromtimestamp(epoch).strftime("%H:%M:%S" if seconds else "%H:%M")


def eta_text(result: EtaResult, *, basis: bool = True) -> str:
    """The estimate's end, its range, the time to go and (with ``basis``) what it rests
    on; or ``no ETA: why``."""
    if not isinstance(result, Eta):
        return f"no ETA: {result.reason}"
    fine = result.high - result.low < SECONDS_SHOWN_BELOW
    text = (f"ETA {clock(result.at, seconds=fine)} "
            f"({clock(result.now + result.low, seconds=fine)}–"
            f"{clock(result.now + result.high, seconds=fine)}) in {duration(result.seconds)}")
    if basis and result.basis:
        text += " · " + ", ".join(result.basis)
    return text

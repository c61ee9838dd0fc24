"""A start estimate in words: ``ETA 12:41 (12:35–12:52) · redo 18 MB/s, last start``.

Every output (the Nodes view, ``--once``, ``wait``) says an estimate the same way: the
clock time it ends at, its range (to the second when it is narrower than two minutes),
and what it rests on, the strongest basis first, then its notes (a start attached to
mid-way, the kind of start taken); or ``no ETA: <why>``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from ndbtop.eta.node import ATTACHED
from ndbtop.model.eta import Eta, EtaMissing, EtaResult

SHORT_BASIS = {
    "restart_info (this node)": "its restart_info",
    "memory rate (field report)": "field memory rate",
    "phases done": "",
}
"""How a basis is named on one line (the JSON keeps the full names)."""


SECONDS_SHOWN_BELOW = 120.0
"""A range narrower than this shows its times to the second, so that it shows at all."""


def clock(epoch: float, seconds: bool = False) -> str:
    """``12:41`` (or ``12:41:05``) in local time."""
    return dt.datetime.fromtimestamp(epoch).strftime("%H:%M:%S" if seconds else "%H:%M")


NOTES = (ATTACHED, "taken for ")
"""The beginnings of the notes a basis carries beside its evidence (a start attached to
mid-way, the kind of start taken): every line says them, whatever ``most``."""


def basis_text(basis: Sequence[str], redo_mb_per_s: float | None = None,
               most: int = 2) -> str:
    """``redo 18 MB/s, last start``: the first ``most`` bases, a redo rate with its speed,
    then the notes (``attached mid-start: phase 4 began before 12:04:31``)."""
    notes = [b for b in basis if b.startswith(NOTES)]
    words = []
    for b in (b for b in basis if not b.startswith(NOTES)):
        if b.startswith("redo rate"):
            source = b[len("redo rate"):].strip(" ()")
            speed = f"{redo_mb_per_s:.0f} MB/s" if redo_mb_per_s else "rate"
            words.append(f"redo {speed} ({source})" if source else f"redo {speed}")
        else:
            short = SHORT_BASIS.get(b, b)
            if short:
                words.append(short)
        if len(words) == most:
            break
    return ", ".join(words) + "".join(f"; {n}" for n in notes)


def eta_text(result: EtaResult | None, redo_mb_per_s: float | None = None) -> str:
    """``ETA 12:41 (12:35–12:52) · redo 18 MB/s (host), last start``, ``no ETA: why``, or
    ``""`` for a node that is not starting."""
    if isinstance(result, EtaMissing):
        return f"no ETA: {result.reason}"
    if not isinstance(result, Eta):
        return ""
    fine = result.high - result.low < SECONDS_SHOWN_BELOW
    low, high = clock(result.now + result.low, fine), clock(result.now + result.high, fine)
    at = clock(result.at, fine)
    span = f" ({low}–{high})" if (low, high) != (at, at) else ""
    return f"ETA {at}{span} · {basis_text(result.basis, redo_mb_per_s)}"

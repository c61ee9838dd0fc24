"""What an estimate of "when will it be done" is: a value, a range and what it rests on.

An :class:`Eta` is given for a node's start, a rolling restart or a backup. ``basis`` names
the evidence in the order it weighed (``"redo rate (host)"``, ``"last start"``, ...); the
range is wider when the basis is weaker. When no estimate can be stood behind, the reason is
given instead (:class:`EtaMissing`), never a guess.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any, Union


@dataclass(frozen=True)
class Eta:
    """Seconds still to go from ``now`` (a wall-clock epoch), with a low and high bound."""

    seconds: float
    low: float
    high: float
    now: float
    basis: tuple[str, ...]

    @property
    def at(self) -> float:
        """The wall-clock epoch the estimate ends at."""
        return self.now + self.seconds

    def as_json(self) -> dict[str, Any]:
        """``{"seconds", "low", "high", "at", "basis"}`` as the JSON output gives it."""
        return {
            "seconds": round(self.seconds),
            "low": round(self.low),
            "high": round(self.high),
            "at": dt.datetime.fromtimestamp(self.at, dt.timezone.utc).isoformat(
                timespec="seconds"),
            "basis": list(self.basis),
        }


@dataclass(frozen=True)
class EtaMissing:
    """Why no estimate is given (``"phase 5 (copy data, wait LCP): no restart_info, no past
    start"``, ...)."""

    reason: str


MAX_ETA_S = 30 * 86400.0
"""Beyond this an estimate says nothing an operator can use (a rate near zero gives years),
and its end is no longer a date."""


def bounded(result: Eta | EtaMissing | None) -> Eta | EtaMissing | None:
    """``result``, or the reason there is no estimate when its high end is past
    :data:`MAX_ETA_S` (or not a number): every estimator's result goes through here."""
    if not isinstance(result, Eta):
        return result
    figures = (result.seconds, result.low, result.high)
    if not all(math.isfinite(f) for f in figures) or result.high > MAX_ETA_S:
        return EtaMissing("more than 30 days at the rate measured")
    return result


EtaResult = Union[Eta, EtaMissing]
"""An estimate, or the reason there is none."""


def eta_json(result: EtaResult | None) -> dict[str, Any]:
    """The ``eta`` and ``eta_missing`` keys of a JSON object for ``result``."""
    if isinstance(result, Eta):
        return {"eta": result.as_json()}
    if isinstance(result, EtaMissing):
        return {"eta": None, "eta_missing": result.reason}
    return {"eta": None, "eta_missing": "not starting"}

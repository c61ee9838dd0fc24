"""What an estimate of "when will it be done" is: a value, a range and what it rests on.

An :class:`Eta` is given for a node's start, a rolling restart or a backup. ``basis`` names
the evidence in the order it weighed (``"redo rate (host)"``, ``"last start"``, ...); the
range is wider when the basis is weaker. When no estimate can be stood behind, the reason is
given instead (:class:`EtaMissing`), never a guess.
"""

from __future__ import annotations

import datetime as dt
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
    """Why no estimate is given (``"start not seen from its beginning"``, ...)."""

    reason: str


EtaResult = Union[Eta, EtaMissing]
"""An estimate, or the reason there is none."""


def eta_json(result: EtaResult | None) -> dict[str, Any]:
    """The ``eta`` and ``eta_missing`` keys of a JSON object for ``result``."""
    if isinstance(result, Eta):
        return {"eta": result.as_json()}
    if isinstance(result, EtaMissing):
        return {"eta": None, "eta_missing": result.reason}
    return {"eta": None, "eta_missing": "not starting"}

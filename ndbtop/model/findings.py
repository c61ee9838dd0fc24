"""What a finding is: a conclusion about the cluster, with its evidence and its basis.

A finding names what is wrong or about to go wrong, the figures it rests on (each with its
source and age), the threshold it was judged against (the server's own, with the
parameter and its configured value, or ndbtop's judgement, said as such) and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ndbtop.compat import SLOTS


class FindingSeverity(Enum):
    """How bad: ``info`` to know, ``warning`` to act on, ``critical`` to act on now."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """0 for info, 1 for warning, 2 for critical."""
        return ("info", "warning", "critical").index(self.value)


@dataclass(frozen=True, **SLOTS)
class Evidence:
    """One figure a finding rests on: what, its value, where it comes from and how old it is."""

    what: str
    value: str
    source: str
    age_s: float | None = None


@dataclass(frozen=True, **SLOTS)
class Threshold:
    """What the evidence was judged against.

    ``by`` is ``"server"`` when the server itself acts at that value (``parameter`` and its
    ``configured`` value then say which), ``"ndbtop"`` when it is ndbtop's own judgement.
    """

    value: str
    by: str
    parameter: str | None = None
    configured: str | None = None
    reference: str | None = None
    """Where the rule comes from (a source function or the reference's section)."""

    def describe(self) -> str:
        """One line: the value and whose it is."""
        if self.by == "server":
            param = ""
            if self.parameter:
                param = f" ({self.parameter}" + (
                    f" = {self.configured}" if self.configured is not None else "") + ")"
            return f"{self.value}: the server's{param}"
        return f"{self.value}: ndbtop's judgement"


@dataclass(frozen=True, **SLOTS)
class Finding:
    """One conclusion; ``id`` is fixed (scripts and alerts use it), ``key`` tells two
    findings of one rule apart (a node, a log part, a link)."""

    id: str
    severity: FindingSeverity
    summary: str
    evidence: tuple[Evidence, ...]
    threshold: Threshold
    advice: str
    nodes: tuple[int, ...] = ()
    parts: tuple[int, ...] = ()
    links: tuple[tuple[int, int], ...] = ()
    since: float | None = None
    """Wall time the finding first held (set by the keeper)."""
    key: str = field(default="")

    @property
    def identity(self) -> tuple[str, str]:
        """What stays the same while the finding holds: its rule and what it is about."""
        return self.id, self.key or ",".join(map(str, self.nodes))

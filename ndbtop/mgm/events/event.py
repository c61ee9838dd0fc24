"""One cluster event as ndbtop sees it (:class:`Event`): what :mod:`.decode` makes and
:mod:`.admit` checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ndbtop.compat import SLOTS
from ndbtop.mgm.events.catalogue import CATALOGUE, Category, EventSpec, Severity


@dataclass(frozen=True, **SLOTS)
class Event:
    """One cluster event as ndbtop sees it.

    ``fields`` are the parsable body values (name, 32-bit word) in body order;
    ``body`` the raw ``key=value`` pairs as received; ``words`` the rebuilt
    signal words (``words[0]`` is signal word 1); ``text`` the cluster-log text
    without the ``Node <id>: `` prefix. ``received_at`` is wall-clock epoch
    seconds, stamped by whoever read the event.
    """

    type: int
    name: str
    category: Category | None
    severity: Severity | None
    source_node: int
    fields: tuple[tuple[str, int], ...]
    body: tuple[tuple[str, str], ...]
    words: tuple[int, ...]
    text: str
    known: bool
    malformed: bool
    received_at: float
    refused: str | None = None
    """Why the event is left out (:func:`~ndbtop.mgm.events.admit.refusal`); such an event
    is also malformed."""

    def get(self, name: str, default: int | None = None) -> int | None:
        """The value of field ``name`` (a 32-bit word), or ``default``."""
        for key, value in self.fields:
            if key == name:
                return value
        return default

    @property
    def field_map(self) -> Mapping[str, int]:
        """The fields as a read-only mapping."""
        return MappingProxyType(dict(self.fields))

    @property
    def spec(self) -> EventSpec | None:
        """The catalogue entry of this type, if known."""
        return CATALOGUE.get(self.type)

    @property
    def threshold(self) -> int | None:
        """The level a listener needs for this type's category to receive it."""
        spec = self.spec
        return None if spec is None else spec.threshold

    def word(self, index: int) -> int:
        """Signal word ``index`` (1-based, like ``theData``); 0 past the end."""
        return self.words[index - 1] if 1 <= index <= len(self.words) else 0

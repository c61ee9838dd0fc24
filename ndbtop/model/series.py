"""The recent values of every time series of a snapshot: ``(key, values)`` pairs.

A large cluster has thousands of per-thread series, each with a new point at every
refresh, and most screens never look at them. :class:`SeriesSet` holds the other
series as they are and the rest as a function that cuts them out when first asked
for; it reads as the tuple of every pair (iteration, length, indexing, equality).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Optional, overload

Series = tuple[Optional[float], ...]
Pair = tuple[str, Series]


class SeriesSet(Sequence[Pair]):
    """``fixed`` pairs, then those ``later()`` gives (called once, when first needed)."""

    __slots__ = ("_find", "_fixed", "_items", "_later")

    def __init__(
        self,
        fixed: tuple[Pair, ...],
        later: Callable[[], Sequence[Pair]],
        find: Callable[[str], Series | None] | None = None,
    ) -> None:
        self._fixed = fixed
        self._later = later
        self._find = find
        """Cuts out one of the later series (None for a key it does not have)."""
        self._items: tuple[Pair, ...] | None = None

    def get(self, key: str, default: Series = ()) -> Series:
        """The values of series ``key`` (``default`` without it), without cutting out the
        others."""
        for name, values in self._fixed:
            if name == key:
                return values
        if self._items is None and self._find is not None:
            found = self._find(key)
            return default if found is None else found
        return next((values for name, values in self._all() if name == key), default)

    def _all(self) -> tuple[Pair, ...]:
        items = self._items
        if items is None:
            items = self._items = self._fixed + tuple(self._later())
        return items

    def __iter__(self) -> Iterator[Pair]:
        # The fixed pairs come first, so that a look-up of one of them (``series()``)
        # stops before the rest is cut out.
        fixed = self._fixed
        yield from fixed
        yield from self._all()[len(fixed) :]

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, index: int) -> Pair: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Pair, ...]: ...

    def __getitem__(self, index: int | slice) -> Pair | tuple[Pair, ...]:
        return self._all()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (SeriesSet, tuple)):
            return self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"SeriesSet({self._all()!r})"

"""Python's garbage collector run between refreshes, not in the middle of a key.

Drawing a screen allocates tens of thousands of objects, and Python collects garbage
whenever allocations pass a threshold: a collection then lands inside whatever is
being drawn, most often the redraw a key asked for, and holds it up by 5 to 25 ms on
the largest clusters. While the live view runs, the collector is only run by it, after
each refresh has been drawn: the youngest objects every refresh, the older ones every
tenth, everything every ten minutes (at a 1 s refresh). The same garbage is collected,
at moments nobody waits for.
"""

from __future__ import annotations

import gc

OLDER_EVERY = 10
"""Refreshes between collections of the objects that survived one."""
ALL_EVERY = 600
"""Refreshes between collections of every object."""


class GcPacing:
    """Runs the collector after refreshes while started; restores it when stopped."""

    def __init__(self) -> None:
        self._thresholds: tuple[int, int, int] | None = None
        self._refreshes = 0

    @property
    def started(self) -> bool:
        """Whether the collector runs only when this tells it to."""
        return self._thresholds is not None

    def start(self) -> None:
        """Take over from the thresholds (kept for :meth:`stop`)."""
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            # Objects alive now (modules, classes, the widgets) live as long as the app:
            # full collections need not look at them again.
            gc.freeze()
            gc.set_threshold(0)

    def after_refresh(self) -> int | None:
        """Collect after a refresh; the generation collected (None when not started)."""
        if self._thresholds is None:
            return None
        self._refreshes += 1
        generation = (2 if self._refreshes % ALL_EVERY == 0
                      else 1 if self._refreshes % OLDER_EVERY == 0 else 0)
        gc.collect(generation)
        return generation

    def stop(self) -> None:
        """Give the collector its thresholds back."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            gc.unfreeze()
            self._thresholds = None

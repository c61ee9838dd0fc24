"""Work that must grow no faster than its input: the doubling check shared by the tests.

A source is fed an input of size n and of size 2n; the best of a few runs of each is
taken (the machine is shared, the best run is the one least disturbed). Linear or
n log n work takes about twice as long for twice the input; quadratic work four times.
The ratio must stay under 3.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

GROWTH_LIMIT = 3.0
"""Largest time ratio accepted for an input twice as large."""


def growth(make: Callable[[int], Any], run: Callable[[Any], object], n: int,
           runs: int = 3, attempts: int = 3) -> float:
    """How much longer ``run`` takes on ``make(2 * n)`` than on ``make(n)``.

    Runs on the two inputs alternate, so that a burst of load on the shared machine
    slows both; a ratio at or above the limit is measured again (up to ``attempts``
    times), since noise only makes work look slower, while quadratic work is four times
    slower every time.
    """
    small, large = make(n), make(2 * n)
    run(small)  # the first call pays for imports and caches
    ratio = float("inf")
    for _ in range(attempts):
        best = {id(small): float("inf"), id(large): float("inf")}
        for _ in range(runs):
            for data in (small, large):
                started = time.perf_counter()
                run(data)
                best[id(data)] = min(best[id(data)], time.perf_counter() - started)
        ratio = min(ratio, best[id(large)] / best[id(small)])
        if ratio < GROWTH_LIMIT:
            break
    return ratio

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


def best_time(run: Callable[[Any], object], data: Any, runs: int = 3) -> float:
    """The shortest of ``runs`` timings of ``run(data)``."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        run(data)
        best = min(best, time.perf_counter() - started)
    return best


def growth(make: Callable[[int], Any], run: Callable[[Any], object], n: int,
           runs: int = 3) -> float:
    """How much longer ``run`` takes on ``make(2 * n)`` than on ``make(n)``."""
    small, large = make(n), make(2 * n)
    run(small)  # the first call pays for imports and caches
    return best_time(run, large, runs) / best_time(run, small, runs)

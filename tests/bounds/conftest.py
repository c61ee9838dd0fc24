"""Work that must grow no faster than its input: the doubling check shared by the tests.

A source is fed an input of size n and of size 2n; the best of a few runs of each is
taken, in CPU time of the running thread: other processes on a shared machine, and other
threads of this one, do not count in it (the best run is the one least disturbed by what
still does, such as caches). Linear or n log n work takes about twice as long for twice
the input; quadratic work four times. The ratio must stay under 3.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

GROWTH_LIMIT = 3.0
"""Largest time ratio accepted for an input twice as large."""


def growth(make: Callable[[int], Any], run: Callable[[Any], object], n: int,
           runs: int = 3, attempts: int = 3) -> float:
    """How much longer ``run`` takes on ``make(2 * n)`` than on ``make(n)``.

    Runs on the two inputs alternate, so that what disturbs a run disturbs both; a ratio
    at or above the limit is measured again (up to ``attempts`` times), since noise only
    makes work look slower, while quadratic work is four times slower every time. ``run``
    does its work in the calling thread (a thread it started would not be counted).
    """
    small, large = make(n), make(2 * n)
    run(small)  # the first call pays for imports and caches
    ratio = float("inf")
    for _ in range(attempts):
        best = {id(small): float("inf"), id(large): float("inf")}
        for _ in range(runs):
            for data in (small, large):
                started = time.thread_time()
                run(data)
                best[id(data)] = min(best[id(data)], time.thread_time() - started)
        ratio = min(ratio, best[id(large)] / best[id(small)])
        if ratio < GROWTH_LIMIT:
            break
    return ratio


PACKAGE = str(Path(__file__).resolve().parents[2] / "ndbtop")
"""ndbtop's own code: the lines :func:`work` counts."""


def work(call: Callable[[], object]) -> int:
    """The lines of ndbtop's code that ``call()`` runs: a count of its work that the load
    of the machine does not change (work done in C, a sort or a dict look-up, counts once
    per line that asks for it)."""
    count = 0

    def line(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return line

    ours: dict[str, bool] = {}

    def call_event(frame: Any, event: str, arg: Any) -> Any:
        name = frame.f_code.co_filename
        if name not in ours:
            ours[name] = os.path.abspath(name).startswith(PACKAGE + os.sep)
        return line if ours[name] else None

    previous = sys.gettrace()
    sys.settrace(call_event)
    try:
        call()
    finally:
        sys.settrace(previous)
    return count


LINEAR_LIMIT = 2.5
"""Largest ratio of :func:`work` accepted for an input twice as large: linear or n log n
work doubles (plus what does not depend on the input), quadratic work quadruples."""


def work_growth(make: Callable[[int], Any], run: Callable[[Any], object], n: int) -> float:
    """How much more work ``run`` does on ``make(2 * n)`` than on ``make(n)``."""
    small, large = make(n), make(2 * n)
    return work(lambda: run(large)) / work(lambda: run(small))

"""Memory in use as a whole percent, rounded as the data nodes round it.

The server reports memory usage in whole percent cut down, never rounded up:
``getTextMemoryUsage`` (storage/ndb/src/common/debugger/EventLogger.cpp) and ``ndb_mgm``'s
``REPORT MEMORY`` (CommandInterpreter.cpp, ``NDB_LE_MemoryUsage``) print
``(used * 100) / total`` in integers. Every figure of memory in use that ndbtop shows in whole
percent goes through :func:`whole_percent`, so that the live view, ``--once``, the findings
and ``mgm -e "ALL REPORT MEMORY"`` say the same number for the same pages (93.9% is 93%).
"""

from __future__ import annotations

import math


def whole_percent(pct: float) -> int:
    """``pct`` (0..100, from ``100 * used / total``) cut down to a whole percent, as the
    server prints it. Exact for a ratio of integers: a quotient that is a whole number
    is computed exactly, so none reads one less."""
    return math.floor(pct)


def used_percent(used: int, total: int) -> int:
    """Whole percent of ``total`` that ``used`` is (0 when ``total`` is 0), as the server
    prints a MemoryUsage report."""
    return used * 100 // total if total > 0 else 0

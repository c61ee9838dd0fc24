"""One whole percent of memory in use everywhere: the server's own, cut down.

``ndb_mgm``'s ``REPORT MEMORY`` (CommandInterpreter.cpp, ``NDB_LE_MemoryUsage``) and the
cluster log's text (EventLogger.cpp ``getTextMemoryUsage``) print ``(used * 100) / total`` in
integers: 936 pages of 1,000 are 93%, and the live view, the node's detail and the
``memory_high`` finding say 93% too, never 94%.
"""

from __future__ import annotations

from ndbtop.findings import evaluate
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample
from ndbtop.model.percent import used_percent, whole_percent
from ndbtop.report.ndb_mgm import report_line
from ndbtop.tui.views.node_cells import memory_cell
from ndbtop.tui.views.node_facts import memory_line
from tests.findings.test_rules_server_words import NOW, snap

PAGE = 32768
USED, TOTAL = 936, 1000
"""93.6% of DataMemory's pages: the server prints 93."""


def report() -> str:
    body = (("block", "249"), ("pages_total", str(TOTAL)), ("pages_used", str(USED)),
            ("page_size_bytes", str(PAGE)), ("gth", "0"))
    return report_line(RawEvent(50, 0, 2, body))


def test_the_live_view_says_what_report_memory_says() -> None:
    assert report() == "Node 2: Data usage is 93%(936 32K pages of total 1000)"
    memory = MemoryUse(2, "Data memory", USED * PAGE, USED, TOTAL * PAGE, TOTAL)
    pct = memory.used_pct
    assert pct is not None and round(pct) == 94  # what rounding would have said
    assert memory_cell(pct).plain.startswith("93%")
    s = snap(ndbinfo=NdbinfoSample(NOW, None, memory=(memory,)))
    line = memory_line(s, 2)
    assert line is not None and "(93%)" in line.plain
    (f,) = evaluate(s)
    assert f.id == "memory_high" and f.summary.startswith("node 2 Data memory 93% used")


def test_whole_percent_is_exact_at_whole_numbers() -> None:
    # A quotient that is a whole number is computed exactly: none reads one less.
    for total in (3, 7, 1000, 32768 * 12000):
        for used in range(0, total + 1, max(total // 97, 1)):
            assert whole_percent(100.0 * used / total) == used_percent(used, total)
    assert used_percent(5, 0) == 0

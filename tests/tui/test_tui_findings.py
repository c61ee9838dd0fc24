"""The findings on screen: a line under the Nodes view's summary and the Findings view (8),
each severity with a text marker that reads without colour."""

from __future__ import annotations

from ndbtop.findings import Evidence, Finding, Severity, Threshold
from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.tui.views.findings import finding_text, findings_head, findings_line
from tests.findings.test_rules_server_words import NOW, snap


async def test_the_hot_thread_is_named_under_the_summary_and_in_the_view(tui) -> None:
    async with tui("threads") as t:
        await t.until_shown("WARN thread_saturated: node 2 ldm thread 3 at ")
        await t.view("8")
        await t.until_shown("WARN thread_saturated  node 2 ldm thread 3 at")
        text = " ".join(t.text().split())
        assert "threshold 90% with peers under 50%: ndbtop's judgement" in text
        assert "advice one LDM thread doing the work of all" in text
        assert "evidence thread 3 (ldm) =" in text and "(ndbinfo.cpustat," in text


def test_every_severity_has_its_marker_in_plain_text() -> None:
    for severity, marker in ((Severity.CRITICAL, "CRIT"), (Severity.WARNING, "WARN"),
                             (Severity.INFO, "info")):
        f = Finding("memory_high", severity, "node 2 Data memory 99% used",
                    (Evidence("Data memory used", "99%", "ndbinfo.memoryusage", 1.0),),
                    Threshold("99%", "server", "DataMemory", "11.7 GiB"), "raise DataMemory",
                    nodes=(2,), since=1_700_000_000.0)
        assert finding_text(f, 1_700_000_030.0).plain.startswith(f"{marker} memory_high  ")
        line = findings_line(snap(findings=(f,)))
        assert line is not None
        assert line.plain == f"{marker} memory_high: node 2 Data memory 99% used"
    assert findings_line(snap()) is None


def test_the_line_under_the_summary_says_each_severity_once() -> None:
    # Two info findings read "info redo_init_disk_bound: ... (+1 info)", not "info 2 info: ...".
    def found(severity: Severity, node: int) -> Finding:
        return Finding("redo_init_disk_bound", severity, f"node {node} creates its redo log",
                       (), Threshold("90%", "ndbtop"), "a faster disk", nodes=(node,))

    line = findings_line(snap(findings=(found(Severity.INFO, 10), found(Severity.INFO, 11))))
    assert line is not None
    assert line.plain == "info redo_init_disk_bound: node 10 creates its redo log  (+1 info)"
    mixed = findings_line(snap(findings=(found(Severity.CRITICAL, 2), found(Severity.WARNING, 3),
                                         found(Severity.WARNING, 4), found(Severity.INFO, 5))))
    assert mixed is not None and mixed.plain.startswith("CRIT redo_init_disk_bound: node 2 ")
    assert mixed.plain.endswith("  (+2 warnings, 1 info)")


def test_the_view_names_the_rules_its_sources_leave_unjudged() -> None:
    # No SQL node: the ndbinfo rules cannot conclude; the view says so, as --once and check
    # do, rather than let "Nothing found" pass for a judgement.
    bare = snap(sources=tuple(s for s in snap().sources if s.name != "ndbinfo"))
    lines = findings_head(bare).plain.splitlines()
    assert lines[0] == "Findings: none"
    assert lines[-1].startswith("not judged (no ndbinfo): memory_high, redo_part_filling, ")
    read = findings_head(snap(ndbinfo=NdbinfoSample(NOW, None))).plain
    assert "not judged (no ndbinfo)" not in read and "Findings: none" in read

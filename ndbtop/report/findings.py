"""Findings as JSON, as text, and as one monitoring-plugin line (``ndbtop check``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ndbtop.findings import Finding, Severity
from ndbtop.findings.coverage import unjudged_text
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.summary import summarize
from ndbtop.sanitise import perf_label, plugin_text


def finding_json(f: Finding) -> dict[str, Any]:
    """One finding with its evidence, threshold and advice."""
    t = f.threshold
    return {
        "id": f.id,
        "severity": f.severity.value,
        "nodes": list(f.nodes),
        "parts": list(f.parts),
        "links": [list(link) for link in f.links],
        "summary": f.summary,
        "evidence": [{"what": e.what, "value": e.value, "source": e.source,
                      "age_s": None if e.age_s is None else round(e.age_s, 1)}
                     for e in f.evidence],
        "threshold": {"value": t.value, "by": t.by, "parameter": t.parameter,
                      "configured": t.configured, "reference": t.reference},
        "advice": f.advice,
        "since": f.since,
    }


def findings_text(findings: Sequence[Finding]) -> list[str]:
    """The --once report's Findings section: one block per finding."""
    if not findings:
        return ["", "Findings: none"]
    out = ["", f"Findings ({counts(findings)}):"]
    for f in findings:
        out.append(f"  {f.severity.value.upper():8} {f.id}: {f.summary}")
        for e in f.evidence:
            age = "" if e.age_s is None else f", {e.age_s:.0f} s old"
            out.append(f"           evidence: {e.what} = {e.value} ({e.source}{age})")
        out.append(f"           threshold: {f.threshold.describe()}")
        out.append(f"           advice: {f.advice}")
    return out


def unjudged_lines(snap: ClusterSnapshot, heard_s: float | None) -> list[str]:
    """The lines under the Findings section naming the rules the snapshot's sources could
    not judge (``heard_s``: how long the events were listened to; None: long enough)."""
    return [f"  {part}" for part in unjudged_text(snap, heard_s).split("; ") if part]


def counts(findings: Sequence[Finding]) -> str:
    """``1 critical, 2 warnings`` (the severities present, most severe first)."""
    parts = []
    for severity, word in ((Severity.CRITICAL, "critical"), (Severity.WARNING, "warning"),
                           (Severity.INFO, "info")):
        n = sum(1 for f in findings if f.severity is severity)
        if n:
            parts.append(f"{n} {word}" + ("s" if n > 1 and word == "warning" else ""))
    return ", ".join(parts) or "none"


PLUGIN_OK, PLUGIN_WARNING, PLUGIN_CRITICAL, PLUGIN_UNKNOWN = 0, 1, 2, 3
"""The monitoring-plugin exit codes (Nagios, Icinga, Zabbix agents)."""


def plugin_head(word: str, cluster: str | None = None) -> str:
    """``NDB OK - ``, and for a context ``NDB OK - prod: ``: the service and its status
    first, as the Monitoring Plugins Development Guidelines write a plugin's line ("SERVICE
    STATUS: Information text"), then the cluster judged."""
    return f"NDB {word} - " + (f"{cluster}: " if cluster else "")


def check_line(snap: ClusterSnapshot, findings: Sequence[Finding], warning_only: bool,
               coverage: str = "", cluster: str | None = None) -> tuple[int, str]:
    """The plugin's exit code and its one line: the status, the context judged
    (``cluster``), the most severe findings in words, what could not be read or judged
    (``coverage``), then perfdata after ``|``."""
    worst = max((f.severity.rank for f in findings if f.severity is not Severity.INFO),
                default=-1)
    if worst >= Severity.CRITICAL.rank and not warning_only:
        code, word = PLUGIN_CRITICAL, "CRITICAL"
    elif worst >= Severity.WARNING.rank:
        code, word = PLUGIN_WARNING, "WARNING"
    else:
        code, word = PLUGIN_OK, "OK"
    s = summarize(snap.nodes, snap.config)
    shown = [f for f in findings if f.severity is not Severity.INFO][:3]
    words = "; ".join(f"{f.id}: {f.summary}" for f in shown)
    text = plugin_head(word, cluster) + (f"{counts(findings)}: {words}" if shown else
                               f"data nodes started {s.data_started}/{s.data_nodes}")
    if coverage:
        text += f"; {coverage}"
    n = {sev: sum(1 for f in findings if f.severity is sev) for sev in Severity}
    perf = " ".join(perf_value(label, *values) for label, *values in (
        ("critical", n[Severity.CRITICAL], "", "1"),
        ("warning", n[Severity.WARNING], "1"),
        ("info", n[Severity.INFO]),
        ("data_nodes_started", s.data_started, "", "", "0", s.data_nodes),
    ))
    return code, f"{plugin_text(text)} | {perf}"


def perf_value(label: str, value: int, *limits: object) -> str:
    """One performance-data value, ``label=value;warn;crit;min;max`` (the limits given),
    of one of ndbtop's own labels (:func:`ndbtop.sanitise.perf_label`)."""
    return ";".join((f"{perf_label(label)}={int(value)}", *map(str, limits)))

"""Findings: what is wrong or about to go wrong, with its evidence, threshold and advice.

Every finding carries a text marker for its severity (``CRIT``, ``WARN``, ``info``), so it
reads the same without colour.
"""

from __future__ import annotations

import datetime as dt

from ndbtop.findings.coverage import unjudged
from ndbtop.model.findings import Finding, FindingSeverity
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.findings import counts
from ndbtop.tui.safe import Text
from ndbtop.tui.views.base import PanelsView

MARKERS = {
    FindingSeverity.CRITICAL: ("CRIT", "bold red"),
    FindingSeverity.WARNING: ("WARN", "bold yellow"),
    FindingSeverity.INFO: ("info", "cyan"),
}
"""The marker and style of each severity."""


def findings_line(snap: ClusterSnapshot) -> Text | None:
    """The Nodes view's line under the summary: the most severe finding in words after its
    marker, then how many others there are by severity (``WARN thread_saturated: ...  (+1
    info)``); None when there is none."""
    found = snap.findings
    if not found:
        return None
    first = found[0]
    marker, style = MARKERS[first.severity]
    line = Text(f"{marker} ", style=style)
    line.append(f"{first.id}: ", style="bold")
    line.append(first.summary)
    if len(found) > 1:
        line.append(f"  (+{counts(found[1:])})", style="bold")
    return line


def _since(f: Finding, now: float) -> str:
    if f.since is None:
        return ""
    at = dt.datetime.fromtimestamp(f.since).strftime("%H:%M:%S")
    return f" · since {at} ({max(now - f.since, 0.0):,.0f} s)"


def finding_text(f: Finding, now: float) -> Text:
    """One finding: marker, id and summary, then its evidence, threshold and advice."""
    marker, style = MARKERS[f.severity]
    text = Text(f"{marker} ", style=style)
    text.append(f.id, style="bold")
    text.append(f"  {f.summary}")
    text.append(_since(f, now), style="dim")
    for e in f.evidence:
        age = "" if e.age_s is None else f", {e.age_s:.0f} s old"
        text.append(f"\n     evidence  {e.what} = {e.value}")
        text.append(f"  ({e.source}{age})", style="dim")
    text.append(f"\n     threshold {f.threshold.describe()}")
    if f.threshold.reference:
        text.append(f"  [{f.threshold.reference}]", style="dim")
    text.append(f"\n     advice    {f.advice}")
    return text


def findings_head(snap: ClusterSnapshot, matching: int | None = None) -> Text:
    """The view's head: the counts (``matching``: how many the filter shows), how findings
    are judged, and the rules the sources leave unjudged, as ``--once`` and ``check`` name
    them (the events: over what was heard since the view started)."""
    head = Text("Findings", style="bold")
    head.append(f": {counts(snap.findings) or 'none'}"
                + (f" ({matching} match the filter)" if matching is not None else ""))
    head.append("\nJudged by the server's own thresholds where it has them (naming the "
                "parameter), else ndbtop's, said as such; one on figures read now and then "
                "clears 30 s after its condition, any other as soon as it is over.",
                style="dim")
    for why, ids in unjudged(snap, None):
        head.append(f"\nnot judged ({why}): {', '.join(ids)}", style="yellow")
    return head


class FindingsView(PanelsView):
    """Every finding, the most severe first."""

    title = "Findings"
    short_title = "Find"
    panels = ("findings_head", "findings_list")

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        found = snap.findings
        wanted = self.filter_text.lower()
        shown = tuple(f for f in found if not wanted or wanted in f.id
                      or wanted in f.summary.lower())
        self.put("#findings_head", findings_head(snap, len(shown) if wanted else None))
        body = Text("\n\n").join(finding_text(f, now) for f in shown) if shown else Text(
            "Nothing found by the rules judged.", style="dim")
        self.put("#findings_list", body)

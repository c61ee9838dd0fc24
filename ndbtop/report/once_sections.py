"""``--once --section NAME,...``: a report of the named sections only.

The core sections (``nodes``, ``findings``, ``config``) come from the snapshot every refresh
reads; the triage sections (:data:`ndbtop.report.sections.TRIAGE`) read their ndbinfo tables
only because they are asked for. The JSON keeps ``time``, ``mgm`` and ``sources`` whatever
the sections, and each section's keys are those of the full report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.as_json import report_json
from ndbtop.report.as_text import heading_text, nodes_text, sources_text
from ndbtop.report.config_report import config_text
from ndbtop.report.findings import findings_text
from ndbtop.report.section_names import CORE
from ndbtop.report.sections import TRIAGE, panels_of, triage_section
from ndbtop.report.tables import iso_utc
from ndbtop.sanitise import Laid, laid_out

CORE_KEYS: dict[str, tuple[str, ...]] = {
    "nodes": ("summary", "nodes", "start_timelines"),
    "findings": ("findings",),
    "config": ("config",),
}
"""The core sections and their keys of the full JSON report."""

assert tuple(CORE_KEYS) == CORE

ALWAYS = ("context", "time", "mgm", "sources")


def sections_panels(names: Sequence[str]) -> frozenset[str]:
    """The on-demand ndbinfo panels the named sections read."""
    return panels_of(s for s in TRIAGE if s.name in names)


def sections_json(snap: ClusterSnapshot, names: Sequence[str],
                  context: str | None = None) -> dict[str, Any]:
    """The JSON report of the named sections (``context``: the context's name)."""
    full = report_json(snap, context=context) if any(n in CORE_KEYS for n in names) else None
    out: dict[str, Any] = {}
    if full is None:
        out.update({"context": context, "time": iso_utc(snap.wall),
                    "mgm": {"address": snap.mgm_address, "version": snap.mgm_version}})
        out["sources"] = [src.as_json(snap.taken_at) for src in snap.sources]
    else:
        out.update({key: full[key] for key in ALWAYS})
    for name in names:
        if name in CORE_KEYS:
            assert full is not None
            out.update({key: full[key] for key in CORE_KEYS[name]})
        else:
            section = triage_section(name)
            assert section is not None
            out.update(section.json(snap))
    return out


def sections_text(snap: ClusterSnapshot, names: Sequence[str],
                  node_notes: Mapping[int, str] | None = None,
                  context: str | None = None) -> str:
    """The text report of the named sections, with the heading (naming ``context``) and
    the sources."""
    lines = [heading_text(snap, context)]
    for name in names:
        if name == "nodes":
            lines += nodes_text(snap, node_notes)
        elif name == "findings":
            lines += findings_text(snap.findings)
        elif name == "config":
            lines += config_text(snap)
        else:
            section = triage_section(name)
            assert section is not None
            lines += section.text(snap) or ["", section.absent or f"{name}: none"]
    lines += sources_text(snap)
    return Laid(laid_out(lines) + "\n")

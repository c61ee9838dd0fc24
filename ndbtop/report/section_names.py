"""The names ``--once --section`` takes, known without importing the reports (the command
line is parsed at every start; :mod:`ndbtop.report.sections` holds what each one reads)."""

from __future__ import annotations

CORE = ("nodes", "findings", "config")
"""The sections of the snapshot every refresh reads (:mod:`ndbtop.report.once_sections`)."""

TRIAGE_NAMES = ("processes", "membership", "tables", "locks", "replication")
"""The triage sections, in report order (:data:`ndbtop.report.sections.TRIAGE`)."""


def section_names() -> tuple[str, ...]:
    """Every name ``--section`` takes, in report order."""
    return (*CORE, *TRIAGE_NAMES)


def parse_sections(text: str) -> tuple[str, ...]:
    """The names of a comma-separated ``--section`` value; ValueError names an unknown one."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names:
        raise ValueError("no section named")
    known = section_names()
    for name in names:
        if name not in known:
            raise ValueError(f"unknown section {name!r} (one of: {', '.join(known)})")
    return tuple(n for n in known if n in names)

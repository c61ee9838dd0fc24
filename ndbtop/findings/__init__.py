"""Findings: what is wrong or about to go wrong, judged by the server's own thresholds.

A headless, pure layer over the snapshot: :func:`evaluate` returns the findings of one
snapshot, :class:`FindingsKeeper` holds them over time.
"""

from ndbtop.findings.engine import RULE_IDS, RULES, FindingsKeeper, evaluate, worst
from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity

__all__ = [
           "RULES",
           "RULE_IDS",
           "Evidence",
           "Finding",
           "FindingsKeeper",
           "Severity",
           "Threshold",
           "evaluate",
           "worst",
]

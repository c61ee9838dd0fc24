"""What ndbtop listens to for the findings: the cluster log's own levels, raised only to
what the rules need (diagnostics.md §0: a listener's levels cost the cluster too)."""

from __future__ import annotations

from ndbtop.collect.events import levels_from_names
from ndbtop.mgm.events.catalogue import Category


def test_a_lowered_cluster_log_still_brings_the_warnings_the_rules_read() -> None:
    levels = levels_from_names({"error": 0, "info": 0, "noderestart": 0, "checkpoint": 0})
    assert levels[int(Category.ERROR)] == 8  # WarningEvent 46, MissedHeartbeat 44, 45
    assert levels[int(Category.INFO)] == 2  # InfoEvent 49: the GCP monitor's limits
    assert levels[int(Category.NODERESTART)] == 8  # ArbitState/Result, NODE_FAILREP
    # CHECKPOINT is not raised: at 11 every fragment's LCP is an event.
    assert levels[int(Category.CHECKPOINT)] == 0


def test_the_defaults_are_not_lowered() -> None:
    levels = levels_from_names(None)
    assert levels[int(Category.ERROR)] == 15 and levels[int(Category.INFO)] == 7

"""The findings of each simulator scenario are what the scenario plays; healthy ones raise
no warning or critical."""

from __future__ import annotations

import pytest

from ndbtop.demo.capture import CaptureSpec, capture
from ndbtop.findings import evaluate


@pytest.mark.parametrize(("scenario", "at", "expected"), [
    ("initial-start", 1800.0, {("start_phase_slow", "warning", (10,)),
                               ("start_phase_slow", "warning", (11,)),
                               ("redo_init_disk_bound", "info", (10,)),
                               ("redo_init_disk_bound", "info", (11,))}),
    ("threads", 30.0, {("thread_saturated", "warning", (2,))}),
    ("disk-buffer", 60.0, {("disk_page_buffer_low_hit", "warning", (3,)),
                           ("disk_page_buffer_low_hit", "warning", (4,))}),
    ("node-groups", 30.0, {("node_group_one_left", "warning", (3,))}),
    ("single-user", 40.0, {("single_user_mode", "info", ())}),
    ("config-change", 100.0, {("config_not_applied", "info", (3, 4, 5))}),
    ("backup", 100.0, set()),
    ("large", 30.0, set()),
])
async def test_a_scenario_raises_what_it_plays(scenario: str, at: float,
                                               expected: set[tuple[str, str, tuple[int, ...]]]
                                               ) -> None:
    cap = await capture(CaptureSpec(scenario, at))
    found = {(f.id, f.severity.value, f.nodes) for f in evaluate(cap.snapshot)}
    assert found == expected

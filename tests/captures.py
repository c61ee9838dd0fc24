"""Captured moments of the scenarios, played once per test process.

A capture is the same on every run (tests/tui/test_tui_snapshots.py checks it), so tests
that render the same moment share it instead of playing the scenario again: a capture
costs seconds, showing it a fraction of that. Snapshots are frozen; a test that wants
other figures makes a changed copy (``dataclasses.replace``).
"""

from __future__ import annotations

import asyncio

from ndbtop.demo.capture import Capture, CaptureSpec, capture

_CAPTURED: dict[CaptureSpec, Capture] = {}


async def captured(spec: CaptureSpec) -> Capture:
    """``capture(spec)``, played the first time a test of this process asks for it."""
    if spec not in _CAPTURED:
        _CAPTURED[spec] = await capture(spec)
    return _CAPTURED[spec]


def captured_now(spec: CaptureSpec) -> Capture:
    """:func:`captured` for a test or fixture that runs no event loop."""
    if spec not in _CAPTURED:
        _CAPTURED[spec] = asyncio.run(capture(spec))
    return _CAPTURED[spec]
